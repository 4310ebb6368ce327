//! Groups: storages kept **aligned**, so that a system over them walks plain slices side by side
//! instead of looking keys up.
//!
//! A [`Group`] owns one or more (up to 8) **member** storages (any [`Columnar`] storage:
//! derived storages, [`SparseMap`](crate::SparseMap)s, [`SparseSet`](crate::SparseSet) tags),
//! all with one key type, and optionally **excluded** storages (any [`Storage`] of that key).
//! The keys that every member holds and no excluded storage holds occupy positions `0..len` of
//! every member, in the same order: the **aligned prefix**. Iterating the group walks that
//! prefix in every column of every member with no lookup at all.
//!
//! ```
//! use sparse_set_core::{Group, SparseMap, SparseSet};
//!
//! let positions: SparseMap<u32, f32> = (0..6).map(|key| (key, 0.0)).collect();
//! let velocities: SparseMap<u32, f32> = [(1, 1.0), (2, 2.0), (4, 4.0)].into_iter().collect();
//! let frozen: SparseSet<u32> = [2].into_iter().collect();
//!
//! // Moving entities: a position and a velocity, and not frozen.
//! let mut moving = Group::with_excluded((positions, velocities), (frozen,));
//! assert_eq!(moving.len(), 2); // keys 1 and 4
//! for (_, (position, velocity)) in moving.iter_mut() {
//!     *position += *velocity;
//! }
//!
//! // Changes go through the group, which keeps the prefix aligned in O(1) per call.
//! moving.member_mut::<1>().insert(5, 5.0); // 5 now has both: it joins the prefix
//! moving.excluded_mut::<0>().insert(4, ()); // 4 is frozen: it leaves
//! assert_eq!(moving.len(), 2); // keys 1 and 5
//! let (positions, _) = moving.members();
//! assert_eq!((positions[1], positions[4]), (1.0, 4.0));
//! ```
//!
//! # Why the group owns its storages
//!
//! Alignment is a promise about the order of several storages, so every change to their keys
//! must be seen by whoever keeps it. `EnTT` lets a group observe its pools through signals of the
//! registry; a Rust storage cannot reach its neighbours without shared mutable state. So the
//! group **owns** its storages and lends them out:
//!
//! - shared, whole: [`members`](Group::members) and [`excluded`](Group::excluded) give `&S`,
//!   every read-only method included;
//! - mutable, values only: [`member_mut`](Group::member_mut) gives a [`MemberMut`] handle whose
//!   `get_mut`, `get_index_mut` and `columns_mut` change values but never keys or their order,
//!   and whose `insert` and `remove` go through the group;
//! - mutable, structure: [`remove`](Group::remove) (from every storage of the group, a despawn),
//!   the handles' `insert` and `remove`, and the sorts of the group, which keep it aligned.
//!
//! No `&mut S` to a member is ever handed out, so safe code cannot break alignment: calling
//! `insert` on `group.members().0` does not compile. [`into_parts`](Group::into_parts) gives
//! the storages back. A storage moves into at most one group, so the conflict `EnTT` checks at
//! run time (two owning groups over one pool) cannot be written; two groups that nest share
//! storages as one family: a [`Nested`] level inside the group's prefix
//! ([`nest`](Group::nest)).
//!
//! In `EnTT`'s terms this is an *owning* group, with exclusion. A *non-owning* group is what a
//! [`query`](crate::query()) is: it drives by the smallest storage and probes the others. A
//! *partial-owning* group is a group used as one member of a query next to other storages:
//! the prefix drives and the others are probed (`query((&mut group, &lifetimes))`).
//!
//! # Costs
//!
//! | operation | cost |
//! |---|---|
//! | iteration, [`rows_mut`](Group::rows_mut), [`columns_mut`](Group::columns_mut) | O(len), plain slices, no lookups |
//! | [`MemberMut::insert`], [`MemberMut::remove`], the excluded handle's | the storage's own cost, one lookup per member and excluded storage, and at most one swap per member |
//! | [`remove`](Group::remove) | one removal per storage of the group; a swap only in the members that hold keys past the prefix (a member of aligned keys alone fills the hole with its last row) |
//! | [`with_excluded`](Group::with_excluded), [`new`](Group::new) | O(smallest member) lookups and swaps: aligns storages that already hold data |
//! | sorting | stable: O(len log len), then O(len) swaps per member (one [`Permutation`](crate::Permutation)); unstable: O(len log len) swaps per member, in place (through a `Permutation` when the group has an observer) |
//!
//! Measured on the development machines (2-core AMD EPYC and Intel Xeon; BENCHMARKS.md, groups
//! `systems_grouped`, `systems_parallel` and `systems_grouped_cycle`): the move system over a
//! group of positions and velocities with frozen entities excluded walks 100,000 or 1,000,000
//! entities in 0.22x to 0.49x the time of a `bevy_ecs` table query and 0.73x to 1.05x that of a
//! loop over plain `Vec<f32>` columns holding just the moving entities (three full runs); the
//! same system as a query over ungrouped storages takes 0.70x to 1.06x bevy's sparse-set query
//! and about 8x to 12x the group's time at 100,000. The other side of the trade: an insert or a
//! remove that changes a key's membership costs 2x to 9x one in an ungrouped storage (a lookup
//! in every storage of the group and a swap of two rows in every member, each a cache miss for
//! a random key). Group what a system walks every frame, not what changes every frame.
//!
//! # Invariant
//!
//! `len` is at most every member's length; for every position `i < len`, every member holds
//! the same key at position `i`, and no excluded storage holds it; every key that all members
//! hold and no excluded storage holds is at a position below `len`. Every method keeps it,
//! also when a value's `Drop` or a comparator panics: a key leaves the prefix before anything
//! can take it from one member alone, and the prefix is repaired (a key re-enters or leaves)
//! by a guard that runs while unwinding. [`Group::assert_invariants`] checks all of it.
//!
//! # Files
//!
//! This module (`mod.rs`) holds the group and its invariant checker; `repair.rs` owns how the
//! prefix is repaired after every change of keys, also while unwinding; `handles.rs` the member
//! and excluded handles; `rows.rs` how a world puts a whole row into a group and finishes it
//! once; `sort.rs` the sorts of the prefix; `tuples.rs` the tuples of storages a
//! group is made of; `query.rs` a group as a member of a query; `nested.rs` the nested level
//! of a family (its repair, which recurses into the levels inside it, and its construction);
//! `level.rs` level `D` of a family reached through the levels between (`Level`) and the
//! handles that change its storages; `both.rs` the storages of several levels read as one
//! group's; `view.rs` a level's values as a mutable view and query member.

mod both;
mod check;
mod handles;
mod level;
mod nested;
mod query;
mod repair;
mod rows;
mod sort;
#[cfg(test)]
mod tests;
mod tuples;
mod view;

use core::fmt;

use crate::dense::cap_rows;
use crate::error::{Error, fail};
use crate::group::tuples::Reporting;
use crate::observe::Observer;
use crate::removed::{Moved, Removed};
use crate::rows::Rows;
use crate::storage::{Columnar, Storage};
use crate::unwind::then;

pub use both::Both;
pub use handles::{ExcludedMut, MemberMut};
pub(crate) use level::{ExcludedValue, MemberValue};
pub use level::{Level, LevelExcludedMut, LevelMemberMut, NestedExcludedMut, NestedMemberMut};
pub use nested::{Innermost, Nest, Nested, NestedView};
pub use query::{GroupFetch, GroupFetchMut};
pub use tuples::{GroupExcluded, GroupExcludedMut, GroupMembers, GroupRows, KeySet, Nth};
pub use view::{LevelMut, NestedMut};

/// Storages kept aligned: the keys every member holds and no excluded storage holds sit at
/// positions `0..len` of every member, in the same order. See the [module docs](self).
///
/// `M` is a tuple of 1 to 8 [`Columnar`] member storages with one key type; `X` a tuple of 0 to
/// 8 excluded [`Storage`]s of that key (`()` for none); `N` the group's nested level, `()` for
/// none or a [`Nested`] one that [`nest`](Group::nest) puts in; `O` the group's observer,
/// which hears its aligned prefix change (`()` for none; see
/// [`observed_by`](Group::observed_by)).
///
/// ```
/// use sparse_set_core::{Group, SparseMap};
///
/// let names: SparseMap<u32, &str> = [(1, "ann"), (2, "bo"), (3, "cy")].into_iter().collect();
/// let ages: SparseMap<u32, u8> = [(3, 30), (1, 10)].into_iter().collect();
/// let group = Group::new((names, ages));
/// assert_eq!(group.len(), 2);
/// let (names, ages) = group.columns();
/// // Row by row, the same key in both.
/// assert_eq!(names.keys, ages.keys);
/// for (name, age) in names.values.iter().zip(ages.values) {
///     assert!(matches!((*name, *age), ("ann", 10) | ("cy", 30)));
/// }
/// ```
#[derive(Clone)]
pub struct Group<M, X = (), N = (), O = ()> {
    members: M,
    excluded: X,
    nested: N,
    len: usize,
    /// Hears the aligned prefix's changes: keys joining and leaving it, and its reorders.
    observer: O,
}

impl<M: GroupMembers> Group<M, ()> {
    /// A group of `members`, aligning the keys they all hold (without excluded storages).
    ///
    /// Computes in **O(n)** lookups and swaps, for the smallest member's n keys; allocates
    /// nothing.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
    /// let b: SparseMap<u32, char> = [(2, 'x'), (3, 'y')].into_iter().collect();
    /// let group = Group::new((a, b));
    /// assert_eq!(group.keys(), &[2]);
    /// ```
    #[must_use]
    pub fn new(members: M) -> Self {
        Group::with_excluded(members, ())
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Group<M, X> {
    /// A group of `members` without the keys held by `excluded` (a tuple of storages), aligning
    /// the keys they all hold and none of `excluded` holds.
    ///
    /// Computes in **O(n)** lookups and swaps, for the smallest member's n keys; allocates
    /// nothing.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
    /// let b: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let hidden: SparseSet<u32> = [1].into_iter().collect();
    /// let group = Group::with_excluded((a, b), (hidden,));
    /// assert_eq!(group.keys(), &[2]);
    /// ```
    #[must_use]
    pub fn with_excluded(members: M, excluded: X) -> Self {
        let mut group = Group { members, excluded, nested: (), len: 0, observer: () };
        // Walk the smallest member forwards. Entering swaps a key from `index` to `len`, and
        // the key at `len` (already visited) to `index`: each key is visited once.
        let smallest = group.members.smallest();
        let mut index = 0;
        while let Some(key) = group.members.key_at(smallest, index) {
            group.refresh(key);
            index += 1;
        }
        group
    }

    /// Gives the storages back: the members and the excluded storages.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(1, 8)].into_iter().collect();
    /// let ((mut a, b), ()) = Group::new((a, b)).into_parts();
    /// a.insert(2, 0); // no longer grouped: any change is allowed
    /// assert_eq!((a.len(), b.len()), (2, 1));
    /// ```
    pub fn into_parts(self) -> (M, X) {
        (self.members, self.excluded)
    }
}

impl<M: GroupRows, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> Group<M, X, N, O> {
    /// The number of aligned keys: those every member holds and no excluded storage holds.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 0), (2, 0)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(2, 0)].into_iter().collect();
    /// assert_eq!(Group::new((a, b)).len(), 1);
    /// ```
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key is aligned.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 0)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(2, 0)].into_iter().collect();
    /// assert!(Group::new((a, b)).is_empty());
    /// ```
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The aligned keys, in the order every member holds them at positions `0..len`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 0), (2, 0), (3, 0)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(3, 0), (1, 0)].into_iter().collect();
    /// let group = Group::new((a, b));
    /// let (a, b) = group.members();
    /// assert_eq!(group.keys(), &a.keys()[..2]);
    /// assert_eq!(group.keys(), &b.keys()[..2]);
    /// ```
    #[inline]
    #[must_use]
    pub fn keys(&self) -> &[M::Key] {
        &self.members.first_keys()[..self.len]
    }

    /// Whether `key` is aligned: every member holds it and no excluded storage does.
    ///
    /// Computes in **O(1)** time: one lookup.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 0), (2, 0)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(2, 0)].into_iter().collect();
    /// let group = Group::new((a, b));
    /// assert!(group.contains(2) && !group.contains(1));
    /// ```
    #[inline]
    #[must_use]
    pub fn contains(&self, key: M::Key) -> bool {
        self.get_index_of(key).is_some()
    }

    /// The position of `key` in the aligned prefix (the same in every member).
    ///
    /// Computes in **O(1)** time: one lookup.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 0), (2, 0)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(2, 0)].into_iter().collect();
    /// assert_eq!(Group::new((a, b)).get_index_of(2), Some(0));
    /// ```
    #[inline]
    #[must_use]
    pub fn get_index_of(&self, key: M::Key) -> Option<usize> {
        self.members.first_position(key).filter(|&position| position < self.len)
    }

    /// The member storages, shared: every read-only method of each is available.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(1, 8), (2, 9)].into_iter().collect();
    /// let group = Group::new((a, b));
    /// let (a, b) = group.members();
    /// assert_eq!((a[1], b.len()), (7, 2));
    /// ```
    #[inline]
    #[must_use]
    pub fn members(&self) -> &M {
        &self.members
    }

    /// The excluded storages, shared.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let hidden: SparseSet<u32> = [1].into_iter().collect();
    /// let group = Group::with_excluded((a,), (hidden,));
    /// assert!(group.excluded().0.contains(1));
    /// ```
    #[inline]
    #[must_use]
    pub fn excluded(&self) -> &X {
        &self.excluded
    }

    /// The views of `key`'s element in every member, if `key` is aligned.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let group = Group::new((a, b));
    /// assert_eq!(group.get(1), Some((&'a', &7)));
    /// ```
    #[inline]
    #[must_use]
    pub fn get(&self, key: M::Key) -> Option<M::Refs<'_>> {
        self.members.views(self.get_index_of(key)?)
    }

    /// Every column of every member over the aligned prefix: a tuple with each member's
    /// columns (`{Name}Columns` of a derived storage, [`map::Columns`](crate::map::Columns)
    /// of a map), each of length [`len`](Self::len) and in the same key order.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, f32> = [(1, 1.0), (2, 2.0)].into_iter().collect();
    /// let b: SparseMap<u32, f32> = [(2, 10.0)].into_iter().collect();
    /// let group = Group::new((a, b));
    /// let (a, b) = group.columns();
    /// assert_eq!((a.values, b.values), (&[2.0][..], &[10.0][..]));
    /// ```
    #[inline]
    #[must_use]
    pub fn columns(&self) -> M::Columns<'_> {
        self.members.columns(self.len)
    }

    /// The aligned prefix as [`Rows`]: every member's columns side by side, iterated as one,
    /// and split into chunks that stay in lockstep (what parallel iteration is built on).
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, Rows, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 1), (2, 2)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(2, 20), (1, 10)].into_iter().collect();
    /// let group = Group::new((a, b));
    /// let (front, back) = group.rows().split_at(1);
    /// assert_eq!((front.len(), back.len()), (1, 1));
    /// ```
    #[inline]
    #[must_use]
    pub fn rows(&self) -> M::Rows<'_> {
        self.members.rows(self.len)
    }

    /// Iterates over the aligned keys with the views of every member, in prefix order.
    ///
    /// Computes in **O(1)** time per step, with no lookups.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(2, 7)].into_iter().collect();
    /// let group = Group::new((a, b));
    /// let all: Vec<_> = group.iter().collect();
    /// assert_eq!(all, [(2, (&'b', &7))]);
    /// ```
    #[inline]
    pub fn iter(&self) -> <M::Rows<'_> as Rows>::Iter {
        self.rows().into_rows()
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    Group<M, X, N, O>
{
    /// A handle to member `I` (its position in the members tuple) that changes its values
    /// freely and its keys only through the group. See [`MemberMut`].
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = SparseMap::new();
    /// let mut group = Group::new((a, b));
    /// group.member_mut::<1>().insert(1, 8);
    /// assert_eq!(group.keys(), &[1]);
    /// ```
    #[inline]
    pub fn member_mut<const I: usize>(&mut self) -> MemberMut<'_, M, X, I, N, O>
    where
        M: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        MemberMut { group: self }
    }

    /// A handle to excluded storage `I` (its position in the excluded tuple) whose `insert` and
    /// `remove` keep the group aligned. See [`ExcludedMut`].
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7), (2, 8)].into_iter().collect();
    /// let mut group = Group::with_excluded((a,), (SparseSet::<u32>::new(),));
    /// group.excluded_mut::<0>().insert(1, ());
    /// assert_eq!(group.keys(), &[2]);
    /// ```
    #[inline]
    pub fn excluded_mut<const I: usize>(&mut self) -> ExcludedMut<'_, M, X, I, N, O>
    where
        X: Nth<I, Storage: Storage<Key = M::Key>>,
    {
        ExcludedMut { group: self }
    }

    /// Reserves room for at least `additional` more rows on the dense side of every member of the
    /// group and of its nested levels, and in the group's observer, as each member's own `reserve`
    /// does: spawning that many rows then grows no column (the sparse index grows with the keys).
    /// Like a member's own, a request past what the dense width addresses is capped there, in the
    /// observer too. The keys, their order and the prefix are unchanged. Excluded storages are not
    /// grown (reserve in them before they join the group). A bounded member reserves nothing, as
    /// with its own `reserve`: it allocated its room when it was made.
    ///
    /// Computes in **O(len)** time when a member reallocates.
    ///
    /// # Panics
    ///
    /// Where [`try_reserve`](Self::try_reserve) returns an error, with its message.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let mut group = Group::new((SparseMap::<u32, f32>::new(), SparseMap::<u32, f32>::new()));
    /// group.reserve(1_000);
    /// let (positions, velocities) = group.members();
    /// assert!(positions.capacity() >= 1_000 && velocities.capacity() >= 1_000);
    /// ```
    #[track_caller]
    pub fn reserve(&mut self, additional: usize) {
        if let Err(error) = self.try_reserve(additional) {
            fail(error);
        }
    }

    /// The fallible twin of [`reserve`](Self::reserve).
    ///
    /// Computes in **O(len)** time when a member reallocates.
    ///
    /// # Errors
    ///
    /// [`Error::CapacityOverflow`] or [`Error::AllocFailed`], the first failing member's (the
    /// members are asked in order, the nested levels' after the group's own, the observer
    /// last). The keys, their order and the prefix are unchanged either way; the members asked
    /// before the failing one may have grown.
    ///
    /// ```
    /// use sparse_set_core::{Error, Group, SparseMap};
    ///
    /// let mut group = Group::new((SparseMap::<u64, u8, usize>::new(),));
    /// assert_eq!(group.try_reserve(10), Ok(()));
    /// assert_eq!(group.try_reserve(usize::MAX), Err(Error::CapacityOverflow));
    /// ```
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        self.members.try_reserve(additional)?;
        self.nested.try_reserve(additional)?;
        self.reserve_observer_rows(additional)
    }

    /// Releases the spare memory of every storage of the group, members and excluded storages
    /// at every level of a family, as each storage's own `shrink_to_fit` does: spare dense
    /// capacity and the sparse pages no key uses. The keys, their order, the values and the
    /// prefixes are unchanged. A bounded storage keeps its memory, as with its own
    /// `shrink_to_fit`; the group's observer keeps its own.
    ///
    /// Computes in **O(len + allocated sparse slots)** time per storage.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let keys = 0..10_000;
    /// let positions: SparseMap<u32, f32> = keys.clone().map(|key| (key, 0.0)).collect();
    /// let velocities: SparseMap<u32, f32> = keys.map(|key| (key, 1.0)).collect();
    /// let mut group = Group::new((positions, velocities));
    /// for key in 10..10_000 {
    ///     group.remove(key);
    /// }
    /// group.shrink_to_fit();
    /// let (positions, velocities) = group.members();
    /// assert!(positions.capacity() < 100 && velocities.capacity() < 100);
    /// assert_eq!(group.keys(), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    /// ```
    pub fn shrink_to_fit(&mut self)
    where
        X: GroupExcludedMut<M::Key>,
    {
        self.members.shrink_to_fit();
        self.excluded.shrink_to_fit();
        self.nested.shrink_to_fit();
    }

    /// Removes `key` from every member and every excluded storage of the group (dropping its
    /// values): a despawn. Returns whether any of them held it.
    ///
    /// Computes in **O(1)** time per storage.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7), (2, 8)].into_iter().collect();
    /// let b: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// assert!(group.remove(1));
    /// assert!(!group.remove(1));
    /// assert_eq!(group.keys(), &[2]);
    /// ```
    pub fn remove(&mut self, key: M::Key) -> bool
    where
        X: GroupExcludedMut<M::Key>,
    {
        let (taken, nested_taken, held) = if let Some(position) = self.get_index_of(key) {
            // Aligned: at `position` in every member. Out of the nested prefix first, then out
            // of this one: the prefix shortens, and each member takes the row out so that the
            // prefix's last row fills its place (a member with no keys past the prefix swaps
            // nothing: its last row is that row).
            let len = self.len;
            let outer = &mut Reporting(&mut self.members, &mut self.observer);
            let (position, nested) = self.nested.leave_for_removal(outer, position, len);
            self.len -= 1;
            if M::OBSERVES && O::OBSERVES {
                // A member's hook may panic during the take (which the other members finish
                // while unwinding): the group's observer hears of the removal all the same.
                let mut state = (&mut *self, None);
                then(
                    &mut state,
                    |(group, taken)| *taken = Some(group.members.take_aligned(position, len)),
                    |(group, _)| group.report_removal(key, position),
                );
                (state.1, nested, true)
            } else {
                let taken = self.members.take_aligned(position, len);
                if O::OBSERVES {
                    // The prefix's last row filled the gap, unless the key was that row.
                    let moved = (position < self.len).then(|| Moved {
                        key: self.members.first_keys()[position],
                        from: self.len,
                    });
                    self.observer.removed(key, &(), Removed { index: position, moved });
                }
                (Some(taken), nested, true)
            }
        } else {
            let held = self.members.remove(key);
            // A key that is not aligned is in no member's prefix, so the prefix keeps its
            // length. Only a `Key` implemented wrongly (a slot that is not a function of the key)
            // can take one from a prefix here: the prefix then shrinks with it, so that it never
            // reaches past a member (see "Implementing `Key` wrongly").
            let shortest = self.members.member_keys(self.members.smallest()).len();
            self.len = self.len.min(shortest);
            (None, N::Taken::default(), held)
        };
        // Out of every prefix now: the nested level's storages drop it without moving one, and
        // the excluded storages drop it. The values taken from the members are dropped last, so
        // that a `Drop` that panics finds the key gone from every storage it could be taken
        // from first.
        let nested = self.nested.remove(key, &nested_taken);
        let excluded = self.excluded.remove(key);
        drop((taken, nested_taken));
        excluded || nested || held
    }

    /// Tells the observer that `key` left the prefix from `position`, the prefix's last row
    /// filling the gap unless the key was that row (as `remove` does inline).
    fn report_removal(&mut self, key: M::Key, position: usize) {
        let moved = (position < self.len)
            .then(|| Moved { key: self.members.first_keys()[position], from: self.len });
        self.observer.removed(key, &(), Removed { index: position, moved });
    }

    /// The mutable views of `key`'s element in every member, if `key` is aligned.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// if let Some((_, b)) = group.get_mut(1) {
    ///     *b += 1;
    /// }
    /// assert_eq!(group.members().1[1], 8);
    /// ```
    #[inline]
    pub fn get_mut(&mut self, key: M::Key) -> Option<M::Muts<'_>> {
        let index = self.get_index_of(key)?;
        self.members.views_mut(index)
    }

    /// Every column of every member over the aligned prefix, mutably (the keys read-only): a
    /// tuple with each member's mutable columns, each of length [`len`](Self::len). This is
    /// the fastest walk: zip the slices. A member's observer hears a write of the prefix's
    /// rows alone (its rows past the prefix were not handed out).
    ///
    /// Computes in **O(1)** time; a member with change ticks stamps the prefix's rows in
    /// O(`len`) unless the prefix is all of the member (one summary stamp).
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, f32> = [(1, 1.0), (2, 2.0)].into_iter().collect();
    /// let b: SparseMap<u32, f32> = [(2, 10.0), (1, 20.0)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// let (a, b) = group.columns_mut();
    /// for (a, b) in a.values.iter_mut().zip(b.values.iter()) {
    ///     *a += b;
    /// }
    /// assert_eq!(group.members().0.values(), &[21.0, 12.0]);
    /// ```
    #[inline]
    pub fn columns_mut(&mut self) -> M::ColumnsMut<'_> {
        self.members.columns_mut(self.len)
    }

    /// The aligned prefix as mutable [`Rows`]. A member's observer hears a write of the
    /// prefix's rows alone, as with [`columns_mut`](Self::columns_mut).
    ///
    /// Computes in **O(1)** time, plus what members with change ticks take to stamp the rows
    /// (see `columns_mut`).
    ///
    /// ```
    /// use sparse_set_core::{Group, Rows, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 1), (2, 2)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(2, 20), (1, 10)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// for (_, (a, b)) in group.rows_mut().into_rows() {
    ///     *a += *b;
    /// }
    /// assert_eq!(group.members().0.values(), &[11, 22]);
    /// ```
    #[inline]
    pub fn rows_mut(&mut self) -> M::RowsMut<'_> {
        self.members.rows_mut(self.len)
    }

    /// Iterates over the aligned keys with the mutable views of every member, in prefix order.
    /// A member's observer hears a write of the prefix's rows, when the iterator is made.
    ///
    /// Computes in **O(1)** time per step, with no lookups (members with change ticks stamp
    /// the rows when it is made, see [`columns_mut`](Self::columns_mut)).
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u32> = [(1, 1), (2, 2)].into_iter().collect();
    /// let b: SparseMap<u32, u32> = [(2, 7)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// for (_, (a, b)) in group.iter_mut() {
    ///     *a += *b;
    /// }
    /// assert_eq!(group.members().0[2], 9);
    /// ```
    #[inline]
    pub fn iter_mut(&mut self) -> <M::RowsMut<'_> as Rows>::Iter {
        self.rows_mut().into_rows()
    }

    /// Checks the invariant in the module docs, and every storage's own; panics describing the
    /// first one broken.
    ///
    /// Computes in **O(total len)** time. Meant for tests: call it after each operation.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 0)].into_iter().collect();
    /// Group::new((a,)).assert_invariants();
    /// ```
    #[doc(hidden)]
    pub fn assert_invariants(&self) {
        self.members.assert_invariants();
        self.excluded.assert_invariants();
        self.nested.assert_invariants();
        if let Err(misaligned) = self.check_aligned() {
            panic!("{misaligned}");
        }
    }
}

impl<M: GroupRows, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> Group<M, X, N, O> {
    /// The same group, reporting from now on the changes of its aligned prefix to `observer`
    /// (see [`observe`](crate::observe)): a key joining the prefix is
    /// [`inserted`](Observer::inserted) at its end, a key leaving it is
    /// [`removed`](Observer::removed) with the prefix's last row moving into its place, the
    /// swaps the nested levels make inside it are [`swapped`](Observer::swapped), and a sort
    /// of the group is one [`permuted`](Observer::permuted). The observer hears each once,
    /// however many members the group has; it is told the prefix's keys now
    /// ([`attached`](Observer::attached)), with the smallest capacity of its bounded members
    /// (the prefix never passes it), so an observer that reserves for a bounded storage
    /// reserves for the group. Writes to values are the members' own events.
    ///
    /// Computes in **O(1)** time, plus what `attached` costs.
    ///
    /// # Panics
    ///
    /// If the observer's `attached` panics: the observers of this crate reserve their room
    /// there (for the prefix's rows and the smallest capacity of the bounded members), and
    /// panic if that memory cannot be had.
    ///
    /// ```
    /// use sparse_set_core::observe::Journal;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, f32> = [(1, 1.0), (2, 2.0)].into_iter().collect();
    /// let b: SparseMap<u32, f32> = [(2, 0.5)].into_iter().collect();
    /// let mut moving = Group::new((a, b)).observed_by(Journal::new());
    /// moving.observer_mut().clear(); // a mirror of the prefix (key 2) is in sync
    /// moving.member_mut::<1>().insert(1, 0.1); // 1 joins the prefix
    /// moving.remove(2); // 2 leaves it, 1 moves into its place
    /// assert_eq!(moving.keys(), &[1]);
    /// assert_eq!(moving.observer().len(), 1);
    /// assert_eq!(moving.observer().patch().dirty_rows(), 1);
    /// ```
    #[must_use]
    pub fn observed_by<P: Observer<M::Key, ()>>(self, mut observer: P) -> Group<M, X, N, P> {
        observer.attached(self.keys(), self.bound());
        let Group { members, excluded, nested, len, .. } = self;
        Group { members, excluded, nested, len, observer }
    }

    /// The group without its own observer, and the observer: the group keeps its members (and
    /// their observers), its prefix and its levels. What a group with an observer goes through
    /// to be saved, or taken apart with [`into_parts`](Group::into_parts).
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::observe::Removals;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, f32> = [(1, 1.0), (2, 2.0)].into_iter().collect();
    /// let b: SparseMap<u32, f32> = [(2, 0.5)].into_iter().collect();
    /// let mut moving = Group::new((a, b)).observed_by(Removals::new());
    /// moving.remove(2); // 2 leaves the prefix
    /// let (moving, left) = moving.into_unobserved();
    /// assert_eq!(left.keys(), &[2]);
    /// let ((a, b), ()) = moving.into_parts();
    /// assert_eq!((a.len(), b.len()), (1, 0));
    /// ```
    #[must_use]
    pub fn into_unobserved(self) -> (Group<M, X, N>, O) {
        let Group { members, excluded, nested, len, observer } = self;
        (Group { members, excluded, nested, len, observer: () }, observer)
    }

    /// The smallest capacity of the bounded members, which the prefix never passes: the
    /// `bound` the group's observer is attached with.
    pub(crate) fn bound(&self) -> Option<usize> {
        (0..self.members.count()).filter_map(|member| self.members.part(member)?.bound()).min()
    }

    /// Room in the group's own observer for one more row (a `Ticks`' stamps), asked before a
    /// change that may make a key join, so that a failed allocation leaves the group unchanged.
    ///
    /// # Errors
    ///
    /// The observer's, as its `try_reserve` returns it.
    #[inline]
    pub(crate) fn reserve_observer_row(&mut self) -> Result<(), Error> {
        if O::OBSERVES && self.observer.spare_rows() == 0 {
            self.reserve_observer_rows(1)?;
        }
        Ok(())
    }

    /// Room in the group's own observer for `additional` more rows of the prefix, but none past
    /// what the first member's dense width addresses, which the prefix never passes (as a member
    /// caps what it asks of its own observer). An observer of a bounded group reserved the
    /// bound when attached: asking there could allocate, so it is not asked.
    ///
    /// # Errors
    ///
    /// The observer's, as its `try_reserve` returns it.
    fn reserve_observer_rows(&mut self, additional: usize) -> Result<(), Error> {
        if self.bound().is_none() {
            self.observer.try_reserve(cap_rows::<M::FirstDense>(additional, self.len))?;
        }
        Ok(())
    }

    /// The group's observer.
    ///
    /// Computes in **O(1)** time.
    #[inline]
    #[must_use]
    pub fn observer(&self) -> &O {
        &self.observer
    }

    /// The group's observer, mutably: to drain or clear what it collected. The group's
    /// storages cannot be reached through it.
    ///
    /// Computes in **O(1)** time.
    #[inline]
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.observer
    }
}

impl<M: GroupMembers + Default, X: GroupExcluded<M::Key> + Default, N: Default, O: Default> Default
    for Group<M, X, N, O>
{
    /// A group of empty storages.
    fn default() -> Self {
        Group {
            members: M::default(),
            excluded: X::default(),
            nested: N::default(),
            len: 0,
            observer: O::default(),
        }
    }
}

impl<M: fmt::Debug, X: fmt::Debug, N: fmt::Debug, O> fmt::Debug for Group<M, X, N, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Group")
            .field("len", &self.len)
            .field("members", &self.members)
            .field("excluded", &self.excluded)
            .field("nested", &self.nested)
            .finish_non_exhaustive()
    }
}

impl<'a, M: GroupRows, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> IntoIterator
    for &'a Group<M, X, N, O>
{
    type Item = (M::Key, M::Refs<'a>);
    type IntoIter = <M::Rows<'a> as Rows>::Iter;

    /// Iterates over the aligned keys with every member's view: [`Group::iter`].
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    IntoIterator for &'a mut Group<M, X, N, O>
{
    type Item = (M::Key, M::Muts<'a>);
    type IntoIter = <M::RowsMut<'a> as Rows>::Iter;

    /// Iterates over the aligned keys with every member's mutable view: [`Group::iter_mut`].
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}
