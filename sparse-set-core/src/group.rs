//! Groups: storages kept **aligned**, so that a system over them walks plain slices side by side
//! instead of looking keys up.
//!
//! A [`Group`] owns two or more **member** storages (any [`Columnar`] storage: derived storages,
//! [`SparseMap`](crate::SparseMap)s, [`SparseSet`](crate::SparseSet) tags), all with one key
//! type, and optionally **excluded** storages (any [`Storage`] of that key). The keys that every
//! member holds and no excluded storage holds occupy positions `0..len` of every member, in the
//! same order: the **aligned prefix**. Iterating the group walks that prefix in every column of
//! every member with no lookup at all.
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
//! run time (two owning groups over one pool) cannot be written.
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
//! | [`remove`](Group::remove) | one removal per storage of the group, and at most one swap per member |
//! | [`with_excluded`](Group::with_excluded), [`new`](Group::new) | O(smallest member) lookups and swaps: aligns storages that already hold data |
//! | sorting | O(len log len), then O(len) swaps per member |
//!
//! Measured on the development machine (2-core AMD EPYC; BENCHMARKS.md, groups `systems_grouped`,
//! `systems_parallel` and `systems_grouped_cycle`): the move system over a group of positions and
//! velocities with frozen entities excluded walks 100,000 or 1,000,000 entities in 0.24x to
//! 0.26x the time of a `bevy_ecs` table query and 0.91x to 0.94x that of a loop over plain
//! `Vec<f32>` columns holding just the moving entities; the same system as a query over
//! ungrouped storages takes 1.6x bevy's sparse-set query. The other side of the trade: an insert
//! or a remove that changes a key's membership costs 4x to 8x one in an ungrouped storage (a
//! lookup in every storage of the group and a swap of two rows in every member, each a cache
//! miss for a random key). Group what a system walks every frame, not what changes every frame.
//!
//! # Invariant
//!
//! `len` is at most every member's length; for every position `i < len`, every member holds
//! the same key at position `i`, and no excluded storage holds it; every key that all members
//! hold and no excluded storage holds is at a position below `len`. Every method keeps it,
//! also when a value's `Drop` or a comparator panics: a key leaves the prefix before anything
//! can take it from one member alone, and the prefix is repaired (a key re-enters or leaves)
//! by a guard that runs while unwinding. [`Group::assert_invariants`] checks all of it.

use core::fmt;
use core::ops::Deref;

use crate::error::{Error, fail_insert};
use crate::key::{Key, check_not_stale};
use crate::permutation::Permutation;
use crate::query::{Member, MemberView, SharedMember};
use crate::rows::{Aligned, Rows};
use crate::storage::{Columnar, Storage};

/// Storages kept aligned: the keys every member holds and no excluded storage holds sit at
/// positions `0..len` of every member, in the same order. See the [module docs](self).
///
/// `M` is a tuple of 1 to 8 [`Columnar`] member storages with one key type; `X` a tuple of 0 to
/// 8 excluded [`Storage`]s of that key (`()` for none).
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
pub struct Group<M, X = ()> {
    members: M,
    excluded: X,
    len: usize,
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
        let mut group = Group { members, excluded, len: 0 };
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
        self.index_of(key).is_some()
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
    /// assert_eq!(Group::new((a, b)).index_of(2), Some(0));
    /// ```
    #[inline]
    #[must_use]
    pub fn index_of(&self, key: M::Key) -> Option<usize> {
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
    pub fn member_mut<const I: usize>(&mut self) -> MemberMut<'_, M, X, I>
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
    pub fn excluded_mut<const I: usize>(&mut self) -> ExcludedMut<'_, M, X, I>
    where
        X: Nth<I, Storage: Storage<Key = M::Key>>,
    {
        ExcludedMut { group: self }
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
    pub fn remove(&mut self, key: M::Key) -> bool {
        let held = if let Some(position) = self.index_of(key) {
            // Aligned: at `position` in every member. Out of the prefix first (to its end);
            // then each member drops it from there.
            self.len -= 1;
            if position != self.len {
                self.members.swap(position, self.len);
            }
            self.members.swap_remove_at(self.len);
            true
        } else {
            let held = self.members.remove(key);
            // A key that is not aligned is in no member's prefix, so the prefix keeps its
            // length. Only a `Key` implemented wrongly (a slot that is not a function of the key)
            // can take one from a prefix here: the prefix then shrinks with it, so that it never
            // reaches past a member (see "Implementing `Key` wrongly").
            let shortest = self.members.member_keys(self.members.smallest()).len();
            self.len = self.len.min(shortest);
            held
        };
        self.excluded.remove(key) || held
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
        self.members.views(self.index_of(key)?)
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
        let index = self.index_of(key)?;
        self.members.views_mut(index)
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

    /// Every column of every member over the aligned prefix, mutably (the keys read-only): a
    /// tuple with each member's mutable columns, each of length [`len`](Self::len). This is
    /// the fastest walk: zip the slices.
    ///
    /// Computes in **O(1)** time.
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

    /// The aligned prefix as mutable [`Rows`].
    ///
    /// Computes in **O(1)** time.
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

    /// Iterates over the aligned keys with the mutable views of every member, in prefix order.
    ///
    /// Computes in **O(1)** time per step, with no lookups.
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

    /// Sorts the aligned prefix (stably) with a comparator of two keys and their views in every
    /// member; every column of every member moves in lockstep, and the prefix stays aligned.
    /// Keys outside the prefix do not move.
    ///
    /// The order is computed first and then applied to each member, so a comparator that
    /// panics does so before anything has moved.
    ///
    /// Computes in **O(len log len)** time and **O(len)** swaps per member; allocates
    /// **O(len)** memory.
    ///
    /// # Panics
    ///
    /// If the comparison panics, or the permutation's memory cannot be had (with the message of
    /// [`Error::AllocFailed`]): before anything has moved.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 30), (2, 10), (3, 20)].into_iter().collect();
    /// let b: SparseMap<u32, char> = [(3, 'c'), (2, 'b'), (1, 'a')].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// group.sort_by(|_, (a, _), _, (b, _)| a.cmp(b));
    /// assert_eq!(group.keys(), &[2, 3, 1]);
    /// assert_eq!(group.members().1.values(), &['b', 'c', 'a']);
    /// ```
    pub fn sort_by<F>(&mut self, mut compare: F)
    where
        F: FnMut(&M::Key, M::Refs<'_>, &M::Key, M::Refs<'_>) -> core::cmp::Ordering,
    {
        let permutation = {
            let (members, keys) = (&self.members, self.keys());
            Permutation::sorted_by(self.len, |a, b| {
                compare(&keys[a], members.view(a), &keys[b], members.view(b))
            })
        };
        self.apply(&permutation);
    }

    /// Sorts the aligned prefix (unstably) with a comparator of two keys and their views; as
    /// [`sort_by`](Self::sort_by), but elements that compare equal may be reordered.
    ///
    /// Computes in **O(len log len)** time and **O(len)** swaps per member; allocates
    /// **O(len)** memory.
    ///
    /// # Panics
    ///
    /// If the comparison panics, or the permutation's memory cannot be had (with the message of
    /// [`Error::AllocFailed`]): before anything has moved.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 30), (2, 10)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(1, 0), (2, 0)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// group.sort_unstable_by(|_, (a, _), _, (b, _)| a.cmp(b));
    /// assert_eq!(group.keys(), &[2, 1]);
    /// ```
    pub fn sort_unstable_by<F>(&mut self, mut compare: F)
    where
        F: FnMut(&M::Key, M::Refs<'_>, &M::Key, M::Refs<'_>) -> core::cmp::Ordering,
    {
        let permutation = {
            let (members, keys) = (&self.members, self.keys());
            Permutation::sorted_unstable_by(self.len, |a, b| {
                compare(&keys[a], members.view(a), &keys[b], members.view(b))
            })
        };
        self.apply(&permutation);
    }

    /// Sorts the aligned prefix (stably) by the key `f` extracts from each key and its views;
    /// as [`sort_by`](Self::sort_by).
    ///
    /// Computes in **O(len log len)** time and **O(len)** swaps per member; allocates
    /// **O(len)** memory.
    ///
    /// # Panics
    ///
    /// If the comparison panics, or the permutation's memory cannot be had (with the message of
    /// [`Error::AllocFailed`]): before anything has moved.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 30), (2, 10)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(1, 0), (2, 0)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// group.sort_by_key(|_, (a, _)| -a);
    /// assert_eq!(group.keys(), &[1, 2]);
    /// ```
    pub fn sort_by_key<T: Ord, F>(&mut self, mut f: F)
    where
        F: FnMut(&M::Key, M::Refs<'_>) -> T,
    {
        let permutation = {
            let (members, keys) = (&self.members, self.keys());
            Permutation::sorted_by_key(self.len, |i| f(&keys[i], members.view(i)))
        };
        self.apply(&permutation);
    }

    /// Sorts the aligned prefix by key, ascending.
    ///
    /// Computes in **O(len log len)** time and **O(len)** swaps per member; allocates
    /// **O(len)** memory.
    ///
    /// # Panics
    ///
    /// If the comparison panics, or the permutation's memory cannot be had (with the message of
    /// [`Error::AllocFailed`]): before anything has moved.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let a: SparseSet<u32> = [3, 1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [2, 3, 1].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// group.sort_keys();
    /// assert_eq!(group.keys(), &[1, 2, 3]);
    /// ```
    pub fn sort_keys(&mut self)
    where
        M::Key: Ord,
    {
        let permutation = {
            let keys = self.keys();
            Permutation::sorted_unstable_by(self.len, |a, b| keys[a].cmp(&keys[b]))
        };
        self.apply(&permutation);
    }

    /// Applies `permutation` (of the prefix) to every member.
    fn apply(&mut self, permutation: &Permutation) {
        debug_assert_eq!(permutation.len(), self.len);
        permutation.for_each_swap(|a, b| self.members.swap(a, b));
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
        self.members.assert_aligned(self.len);
        for &key in self.keys() {
            assert!(
                !self.excluded.holds(key),
                "aligned key {key:?} is held by an excluded storage"
            );
        }
        // Every key that qualifies is in the prefix: count them in the smallest member.
        let smallest = self.members.smallest();
        let mut qualifying = 0;
        let mut index = 0;
        while let Some(key) = self.members.key_at(smallest, index) {
            if self.members.positions(key).is_some() && !self.excluded.holds(key) {
                qualifying += 1;
                let position = self.members.first_position(key);
                assert!(
                    position.is_some_and(|position| position < self.len),
                    "key {key:?} is held by every member and no excluded storage, but is not aligned"
                );
            }
            index += 1;
        }
        assert_eq!(qualifying, self.len, "the aligned prefix holds keys that do not qualify");
    }

    /// Moves `key` into or out of the prefix, as whether it qualifies says. Idempotent, and
    /// safe after any change: every change of keys ends with it.
    fn refresh(&mut self, key: M::Key) {
        match self.members.positions(key) {
            Some(positions) if !self.excluded.holds(key) => {
                // Past the prefix in the first member means past it in every member, for keys
                // implemented as `Key` asks; `joinable` checks every member, so that a key that
                // is not (see "Implementing `Key` wrongly") never moves a swap out of bounds.
                if M::first(positions) >= self.len && self.members.joinable(positions, self.len) {
                    self.members.move_to(positions, self.len);
                    self.len += 1;
                }
            }
            _ => self.leave(key),
        }
    }

    /// Moves `key` out of the prefix if it is there: swaps it with the prefix's last key in
    /// every member, and shortens the prefix.
    fn leave(&mut self, key: M::Key) {
        if let Some(position) = self.index_of(key) {
            self.len -= 1;
            if position != self.len {
                self.members.swap(position, self.len);
            }
        }
    }
}

impl<M: GroupMembers + Default, X: GroupExcluded<M::Key> + Default> Default for Group<M, X> {
    /// A group of empty storages.
    fn default() -> Self {
        Group { members: M::default(), excluded: X::default(), len: 0 }
    }
}

impl<M: fmt::Debug, X: fmt::Debug> fmt::Debug for Group<M, X> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Group")
            .field("len", &self.len)
            .field("members", &self.members)
            .field("excluded", &self.excluded)
            .finish()
    }
}

/// Repairs the prefix for up to two keys: after a change to one storage of a group, each key
/// re-enters or leaves the prefix as it now qualifies. [`finish`](Self::finish) does it once
/// the change is made; dropped without it (the change panicked), it does it while unwinding.
struct Refresh<'g, M: GroupMembers, X: GroupExcluded<M::Key>> {
    group: &'g mut Group<M, X>,
    keys: [Option<M::Key>; 2],
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Refresh<'_, M, X> {
    fn repair(&mut self) {
        // Taken first: if a repair panics (only a `Key` implemented wrongly makes a lookup
        // panic), the drop that follows does not start it again.
        for key in core::mem::take(&mut self.keys).into_iter().flatten() {
            self.group.refresh(key);
        }
    }

    /// Repairs the prefix in ordinary code, not in a destructor: a value the change returned is
    /// then dropped if the repair panics, where a destructor's panic would leak it (a returned
    /// value is not dropped when a destructor panics after it was made).
    fn finish(mut self) {
        self.repair();
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Drop for Refresh<'_, M, X> {
    fn drop(&mut self) {
        self.repair();
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Group<M, X> {
    /// Runs `change` on the group with `leave` out of the prefix first (for changes that would
    /// take a key from one member alone), and the prefix repaired for `keys` afterwards, also
    /// if `change` panics.
    fn change<R>(
        &mut self,
        leave: Option<M::Key>,
        keys: [Option<M::Key>; 2],
        change: impl FnOnce(&mut Self) -> R,
    ) -> R {
        if let Some(key) = leave {
            self.leave(key);
        }
        let guard = Refresh { group: self, keys };
        let result = change(guard.group);
        guard.finish();
        result
    }
}

/// A mutable handle to one member of a [`Group`], from [`Group::member_mut`]: values change
/// freely, keys only through the group.
///
/// It dereferences to the member storage (`&S`), so every read-only method is available.
/// [`get_mut`](Self::get_mut), [`get_index_mut`](Self::get_index_mut) and
/// [`columns_mut`](Self::columns_mut) change values and never the keys or their order;
/// [`insert`](Self::insert) and [`remove`](Self::remove) change the member and keep the group
/// aligned. Nothing else that changes keys (`retain`, `sort_by`, `clear`, ...) is reachable.
///
/// ```
/// use sparse_set_core::{Group, SparseMap};
///
/// let a: SparseMap<u32, u8> = [(1, 7), (2, 8)].into_iter().collect();
/// let b: SparseMap<u32, u8> = [(2, 0)].into_iter().collect();
/// let mut group = Group::new((a, b));
/// let mut a = group.member_mut::<0>();
/// assert_eq!(a.len(), 2); // read-only methods of the storage
/// *a.get_mut(1).unwrap() += 1; // values
/// a.remove(2); // keys, through the group
/// assert!(group.is_empty());
/// ```
pub struct MemberMut<'g, M, X, const I: usize> {
    group: &'g mut Group<M, X>,
}

type NthOf<T, const I: usize> = <T as Nth<I>>::Storage;

impl<M, X, const I: usize> Deref for MemberMut<'_, M, X, I>
where
    M: GroupMembers + Nth<I>,
{
    type Target = NthOf<M, I>;

    #[inline]
    fn deref(&self) -> &NthOf<M, I> {
        self.group.members.nth()
    }
}

impl<M, X, const I: usize> MemberMut<'_, M, X, I>
where
    M: GroupMembers + Nth<I, Storage: Columnar<Key = M::Key>>,
    X: GroupExcluded<M::Key>,
{
    /// Stores `value` under `key` in this member; returns the value it replaced. If `key` is
    /// now held by every member and no excluded storage, it joins the aligned prefix.
    ///
    /// Computes in **O(1)** amortised time: the storage's insert, one lookup per storage of
    /// the group, at most one swap per member.
    ///
    /// # Panics
    ///
    /// As the member's `insert`; see [`try_insert`](Self::try_insert).
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let mut group = Group::new((SparseMap::<u32, u8>::new(), SparseMap::<u32, u8>::new()));
    /// group.member_mut::<0>().insert(4, 1);
    /// assert!(group.is_empty());
    /// group.member_mut::<1>().insert(4, 2);
    /// assert_eq!(group.keys(), &[4]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn insert(
        &mut self,
        key: M::Key,
        value: <NthOf<M, I> as Storage>::Value,
    ) -> Option<<NthOf<M, I> as Storage>::Value> {
        self.try_insert(key, value).unwrap_or_else(|error| fail_insert(key, error))
    }

    /// The fallible twin of [`insert`](Self::insert): on an error the member, and the group,
    /// are unchanged.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// As the member's `try_insert`: [`Error::StaleKey`], the limits of a bounded storage or
    /// of the dense width, a failed allocation.
    ///
    /// ```
    /// use sparse_set_core::{Error, Group, SparseMap};
    ///
    /// let mut group = Group::new((SparseMap::<u32, u8>::bounded(1, 8), SparseMap::<u32, u8>::new()));
    /// assert_eq!(group.member_mut::<0>().try_insert(3, 0), Ok(None));
    /// assert_eq!(group.member_mut::<0>().try_insert(4, 0), Err(Error::Full { capacity: 1 }));
    /// ```
    pub fn try_insert(
        &mut self,
        key: M::Key,
        value: <NthOf<M, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<M, I> as Storage>::Value>, Error> {
        // A newer version of a held key replaces it in place: the older one must leave the
        // prefix first, or this member alone would hold another key at its position. An older
        // version is refused before that, so that a refusal moves nothing.
        let held = self.group.members.nth().as_sparse_set().slot_holder(key).filter(|&h| h != key);
        if let Some(held) = held {
            check_not_stale(key, held)?;
        }
        self.group
            .change(held, [Some(key), held], |group| group.members.nth_mut().try_insert(key, value))
    }

    /// Removes `key` from this member by **swap-remove**; returns its value. If `key` was
    /// aligned it leaves the prefix first, so the other members stay aligned.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7), (2, 8)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(1, 0), (2, 0)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// assert_eq!(group.member_mut::<1>().remove(1), Some(0));
    /// assert_eq!(group.keys(), &[2]);
    /// assert_eq!(group.members().0.len(), 2);
    /// ```
    pub fn remove(&mut self, key: M::Key) -> Option<<NthOf<M, I> as Storage>::Value> {
        let group = &mut *self.group;
        let mut position = group.members.nth().get_index_of(key)?;
        if position < group.len {
            // Aligned: at `position` in every member. Out of the prefix first (to its end, in
            // every member); then removing it from this member changes no other key's standing,
            // so nothing needs repairing. The removal cannot panic: the caller drops the value.
            group.len -= 1;
            if position != group.len {
                group.members.swap(position, group.len);
            }
            position = group.len;
        }
        group.members.nth_mut().swap_remove_index(position).map(|(_, value)| value)
    }

    /// The mutable view of `key`'s element in this member.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let mut group = Group::new((a,));
    /// *group.member_mut::<0>().get_mut(1).unwrap() = 9;
    /// assert_eq!(group.members().0[1], 9);
    /// ```
    #[inline]
    pub fn get_mut(&mut self, key: M::Key) -> Option<<NthOf<M, I> as Storage>::Mut<'_>> {
        Storage::get_mut(self.group.members.nth_mut(), key)
    }

    /// The key and mutable view at dense position `index` of this member.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let mut group = Group::new((a,));
    /// if let Some((_, value)) = group.member_mut::<0>().get_index_mut(0) {
    ///     *value = 9;
    /// }
    /// assert_eq!(group.members().0[1], 9);
    /// ```
    #[inline]
    pub fn get_index_mut(
        &mut self,
        index: usize,
    ) -> Option<(M::Key, <NthOf<M, I> as Storage>::Mut<'_>)> {
        Storage::get_index_mut(self.group.members.nth_mut(), index)
    }

    /// Every column of this member, mutably, over all its keys (aligned or not); the keys
    /// read-only.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7), (2, 8)].into_iter().collect();
    /// let mut group = Group::new((a,));
    /// for value in group.member_mut::<0>().columns_mut().values {
    ///     *value += 1;
    /// }
    /// assert_eq!(group.members().0.values(), &[8, 9]);
    /// ```
    #[inline]
    pub fn columns_mut(&mut self) -> <NthOf<M, I> as Columnar>::ColumnsMut<'_> {
        Columnar::columns_mut(self.group.members.nth_mut())
    }
}

/// A mutable handle to one excluded storage of a [`Group`], from [`Group::excluded_mut`]:
/// `insert` and `remove` keep the group aligned (a key stored here leaves the prefix; one
/// removed from here may join it).
///
/// It dereferences to the storage (`&S`) for every read-only method.
///
/// ```
/// use sparse_set_core::{Group, SparseMap, SparseSet};
///
/// let a: SparseMap<u32, u8> = [(1, 7), (2, 8)].into_iter().collect();
/// let mut group = Group::with_excluded((a,), (SparseSet::<u32>::new(),));
/// let mut frozen = group.excluded_mut::<0>();
/// frozen.insert(2, ());
/// assert!(frozen.contains(2));
/// assert_eq!(group.keys(), &[1]);
/// group.excluded_mut::<0>().remove(2);
/// assert_eq!(group.len(), 2);
/// ```
pub struct ExcludedMut<'g, M, X, const I: usize> {
    group: &'g mut Group<M, X>,
}

impl<M, X, const I: usize> Deref for ExcludedMut<'_, M, X, I>
where
    M: GroupMembers,
    X: Nth<I>,
{
    type Target = NthOf<X, I>;

    #[inline]
    fn deref(&self) -> &NthOf<X, I> {
        self.group.excluded.nth()
    }
}

impl<M, X, const I: usize> ExcludedMut<'_, M, X, I>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key> + Nth<I, Storage: Storage<Key = M::Key>>,
{
    /// Stores `value` under `key` in this excluded storage; returns the value it replaced. An
    /// aligned `key` leaves the prefix.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// As the storage's `insert`; see [`try_insert`](Self::try_insert).
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let mut group = Group::with_excluded((a,), (SparseSet::<u32>::new(),));
    /// group.excluded_mut::<0>().insert(1, ());
    /// assert!(group.is_empty());
    /// ```
    #[inline]
    #[track_caller]
    pub fn insert(
        &mut self,
        key: M::Key,
        value: <NthOf<X, I> as Storage>::Value,
    ) -> Option<<NthOf<X, I> as Storage>::Value> {
        self.try_insert(key, value).unwrap_or_else(|error| fail_insert(key, error))
    }

    /// The fallible twin of [`insert`](Self::insert): on an error the storage, and the group,
    /// are unchanged.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// As the storage's `try_insert`.
    ///
    /// ```
    /// use sparse_set_core::{Error, Group, SparseMap, SparseSet};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let mut group = Group::with_excluded((a,), (SparseSet::<u32>::bounded(4, 4),));
    /// let err = group.excluded_mut::<0>().try_insert(9, ()).unwrap_err();
    /// assert_eq!(err, Error::KeyOutOfRange { index: 9, limit: 4 });
    /// ```
    pub fn try_insert(
        &mut self,
        key: M::Key,
        value: <NthOf<X, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<X, I> as Storage>::Value>, Error> {
        // A newer version of a held key replaces it: the older one is no longer excluded.
        let held = self.group.excluded.nth().as_sparse_set().slot_holder(key).filter(|&h| h != key);
        self.group.change(None, [Some(key), held], |group| {
            group.excluded.nth_mut().try_insert(key, value)
        })
    }

    /// Removes `key` from this excluded storage (a swap-remove there); returns its value. If
    /// `key` now qualifies it joins the prefix.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let hidden: SparseSet<u32> = [1].into_iter().collect();
    /// let mut group = Group::with_excluded((a,), (hidden,));
    /// assert_eq!(group.excluded_mut::<0>().remove(1), Some(()));
    /// assert_eq!(group.keys(), &[1]);
    /// ```
    pub fn remove(&mut self, key: M::Key) -> Option<<NthOf<X, I> as Storage>::Value> {
        self.group.change(None, [Some(key), None], |group| group.excluded.nth_mut().remove(key))
    }

    /// The mutable view of `key`'s element in this storage.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let hidden: SparseMap<u32, u8> = [(2, 0)].into_iter().collect();
    /// let mut group = Group::with_excluded((a,), (hidden,));
    /// *group.excluded_mut::<0>().get_mut(2).unwrap() = 5;
    /// assert_eq!(group.excluded().0[2], 5);
    /// ```
    #[inline]
    pub fn get_mut(&mut self, key: M::Key) -> Option<<NthOf<X, I> as Storage>::Mut<'_>> {
        Storage::get_mut(self.group.excluded.nth_mut(), key)
    }
}

/// Element `I` of a tuple: how [`Group::member_mut`] and [`Group::excluded_mut`] name one
/// storage by its position. Implemented for tuples of 1 to 8 elements.
pub trait Nth<const I: usize> {
    /// The type of element `I`.
    type Storage;

    /// Element `I`.
    fn nth(&self) -> &Self::Storage;

    /// Element `I`, mutably.
    fn nth_mut(&mut self) -> &mut Self::Storage;
}

macro_rules! nth {
    ($all:tt $($i:tt $t:ident)*) => {
        $(nth_one!($all $i $t);)*
    };
}

macro_rules! nth_one {
    ([$($all:ident)*] $i:tt $t:ident) => {
        impl<$($all),*> Nth<$i> for ($($all,)*) {
            type Storage = $t;

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "a field access")]
            fn nth(&self) -> &$t {
                &self.$i
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "a field access")]
            fn nth_mut(&mut self) -> &mut $t {
                &mut self.$i
            }
        }
    };
}

nth!([A] 0 A);
nth!([A B] 0 A 1 B);
nth!([A B C] 0 A 1 B 2 C);
nth!([A B C E] 0 A 1 B 2 C 3 E);
nth!([A B C E G] 0 A 1 B 2 C 3 E 4 G);
nth!([A B C E G H] 0 A 1 B 2 C 3 E 4 G 5 H);
nth!([A B C E G H I] 0 A 1 B 2 C 3 E 4 G 5 H 6 I);
nth!([A B C E G H I J] 0 A 1 B 2 C 3 E 4 G 5 H 6 I 7 J);

/// The members of a [`Group`]: a tuple of 1 to 8 [`Columnar`] storages with one key type. The
/// methods are the group's plumbing.
pub trait GroupMembers {
    /// The key type every member shares.
    type Key: Key;
    /// Every member's dense position of one key.
    type Positions: Copy;
    /// Every member's shared view of one element, as a tuple.
    type Refs<'a>
    where
        Self: 'a;
    /// Every member's mutable view of one element, as a tuple.
    type Muts<'a>
    where
        Self: 'a;
    /// Every member's columns over the prefix, as a tuple.
    type Columns<'a>
    where
        Self: 'a;
    /// Every member's mutable columns over the prefix, as a tuple.
    type ColumnsMut<'a>
    where
        Self: 'a;
    /// Every member's columns over the prefix, as one [`Aligned`] set of rows.
    type Rows<'a>: Rows<Key = Self::Key, Row = Self::Refs<'a>>
    where
        Self: 'a;
    /// Every member's mutable columns over the prefix, as one [`Aligned`] set of rows.
    type RowsMut<'a>: Rows<Key = Self::Key, Row = Self::Muts<'a>>
    where
        Self: 'a;

    /// The number of members.
    fn count(&self) -> usize;
    /// The keys of member `member` (of the first past the last).
    fn member_keys(&self, member: usize) -> &[Self::Key];
    /// Whether member `member` holds `key`.
    fn member_contains(&self, member: usize, key: Self::Key) -> bool;
    /// The index of the member with the fewest keys.
    fn smallest(&self) -> usize;
    /// The key at dense position `index` of member `member`.
    fn key_at(&self, member: usize, index: usize) -> Option<Self::Key>;
    /// The keys of the first member.
    fn first_keys(&self) -> &[Self::Key];
    /// The first member's position of `key`.
    fn first_position(&self, key: Self::Key) -> Option<usize>;
    /// The first member's entry of `positions`.
    fn first(positions: Self::Positions) -> usize;
    /// Every member's position of `key`, if every member holds it.
    fn positions(&self, key: Self::Key) -> Option<Self::Positions>;
    /// Whether the key at `positions` can join a prefix of length `len`: in every member, its
    /// position is at or past `len` and inside the member.
    fn joinable(&self, positions: Self::Positions, len: usize) -> bool;
    /// Moves the key at `positions` to position `target` of every member.
    fn move_to(&mut self, positions: Self::Positions, target: usize);
    /// Swaps positions `a` and `b` of every member.
    fn swap(&mut self, a: usize, b: usize);
    /// Removes `key` from every member (dropping the values); whether any held it.
    fn remove(&mut self, key: Self::Key) -> bool;
    /// Swap-removes position `index` of every member (dropping the values); it must be in
    /// every member.
    fn swap_remove_at(&mut self, index: usize);
    /// Every member's view at `index` (which must be in every member).
    fn view(&self, index: usize) -> Self::Refs<'_>;
    /// Every member's view at `index`.
    fn views(&self, index: usize) -> Option<Self::Refs<'_>>;
    /// Every member's mutable view at `index`.
    fn views_mut(&mut self, index: usize) -> Option<Self::Muts<'_>>;
    /// Every member's columns, cut to `len`.
    fn columns(&self, len: usize) -> Self::Columns<'_>;
    /// Every member's mutable columns, cut to `len`.
    fn columns_mut(&mut self, len: usize) -> Self::ColumnsMut<'_>;
    /// Every member's columns, cut to `len`, as rows.
    fn rows(&self, len: usize) -> Self::Rows<'_>;
    /// Every member's mutable columns, cut to `len`, as rows.
    fn rows_mut(&mut self, len: usize) -> Self::RowsMut<'_>;
    /// Checks every member's own invariants.
    fn assert_invariants(&self);
    /// Checks that positions `0..len` hold the same keys in every member.
    fn assert_aligned(&self, len: usize);
}

/// The excluded storages of a [`Group`]: `()` or a tuple of 1 to 8 [`Storage`]s keyed by `K`.
/// The methods are the group's plumbing.
pub trait GroupExcluded<K> {
    /// The number of storages.
    fn count(&self) -> usize;
    /// The keys of storage `storage` (empty past the last).
    fn storage_keys(&self, storage: usize) -> &[K];
    /// Whether storage `storage` holds `key`.
    fn storage_contains(&self, storage: usize, key: K) -> bool;
    /// Whether any of the storages holds `key`.
    fn holds(&self, key: K) -> bool;
    /// Removes `key` from every storage (dropping the values); whether any held it.
    fn remove(&mut self, key: K) -> bool;
    /// Checks every storage's own invariants.
    fn assert_invariants(&self);
}

impl<K> GroupExcluded<K> for () {
    #[inline]
    fn count(&self) -> usize {
        0
    }

    #[inline]
    fn storage_keys(&self, _: usize) -> &[K] {
        &[]
    }

    #[inline]
    fn storage_contains(&self, _: usize, _: K) -> bool {
        false
    }

    #[inline]
    fn holds(&self, _: K) -> bool {
        false
    }

    #[inline]
    fn remove(&mut self, _: K) -> bool {
        false
    }

    fn assert_invariants(&self) {}
}

macro_rules! group_tuple {
    ($first:ident 0 $($member:ident $i:tt)*) => {
        impl<K: Key, $first: Columnar<Key = K>, $($member: Columnar<Key = K>),*> GroupMembers
            for ($first, $($member,)*)
        {
            type Key = K;
            type Positions = (usize, $(group_tuple!(@usize $member),)*);
            type Refs<'a> = ($first::Ref<'a>, $($member::Ref<'a>,)*) where Self: 'a;
            type Muts<'a> = ($first::Mut<'a>, $($member::Mut<'a>,)*) where Self: 'a;
            type Columns<'a> = ($first::Columns<'a>, $($member::Columns<'a>,)*) where Self: 'a;
            type ColumnsMut<'a> = ($first::ColumnsMut<'a>, $($member::ColumnsMut<'a>,)*) where Self: 'a;
            type Rows<'a> = Aligned<Self::Columns<'a>> where Self: 'a;
            type RowsMut<'a> = Aligned<Self::ColumnsMut<'a>> where Self: 'a;

            #[inline]
            fn count(&self) -> usize {
                1 $(+ group_tuple!(@one $member))*
            }

            #[inline]
            fn member_keys(&self, member: usize) -> &[K] {
                match member {
                    $($i => Storage::keys(&self.$i),)*
                    _ => Storage::keys(&self.0),
                }
            }

            #[inline]
            fn member_contains(&self, member: usize, key: K) -> bool {
                match member {
                    $($i => Storage::contains_key(&self.$i, key),)*
                    _ => Storage::contains_key(&self.0, key),
                }
            }

            #[inline]
            #[allow(unused_mut, reason = "a group of one member has nothing to compare")]
            fn smallest(&self) -> usize {
                let mut best = (0, Storage::len(&self.0));
                $(
                    let len = Storage::len(&self.$i);
                    if len < best.1 {
                        best = ($i, len);
                    }
                )*
                best.0
            }

            #[inline]
            fn key_at(&self, member: usize, index: usize) -> Option<K> {
                match member {
                    $($i => Storage::keys(&self.$i).get(index).copied(),)*
                    _ => Storage::keys(&self.0).get(index).copied(),
                }
            }

            #[inline]
            fn first_keys(&self) -> &[K] {
                Storage::keys(&self.0)
            }

            #[inline]
            fn first_position(&self, key: K) -> Option<usize> {
                Storage::get_index_of(&self.0, key)
            }

            #[inline]
            fn first(positions: Self::Positions) -> usize {
                positions.0
            }

            #[inline]
            fn positions(&self, key: K) -> Option<Self::Positions> {
                Some((Storage::get_index_of(&self.0, key)?, $(Storage::get_index_of(&self.$i, key)?,)*))
            }

            #[inline]
            fn joinable(&self, positions: Self::Positions, len: usize) -> bool {
                (len..Storage::len(&self.0)).contains(&positions.0)
                    $(&& (len..Storage::len(&self.$i)).contains(&positions.$i))*
            }

            #[inline]
            fn move_to(&mut self, positions: Self::Positions, target: usize) {
                Columnar::swap_indices(&mut self.0, positions.0, target);
                $(Columnar::swap_indices(&mut self.$i, positions.$i, target);)*
            }

            #[inline]
            fn swap(&mut self, a: usize, b: usize) {
                Columnar::swap_indices(&mut self.0, a, b);
                $(Columnar::swap_indices(&mut self.$i, a, b);)*
            }

            fn remove(&mut self, key: K) -> bool {
                // Every storage, whichever held the key: all are asked.
                [
                    Storage::remove(&mut self.0, key).is_some(),
                    $(Storage::remove(&mut self.$i, key).is_some(),)*
                ]
                .contains(&true)
            }

            #[inline]
            fn swap_remove_at(&mut self, index: usize) {
                Columnar::swap_remove_index(&mut self.0, index);
                $(Columnar::swap_remove_index(&mut self.$i, index);)*
            }

            #[inline]
            #[track_caller]
            fn view(&self, index: usize) -> Self::Refs<'_> {
                match self.views(index) {
                    Some(views) => views,
                    None => panic!("position {index} is past a member of the group"),
                }
            }

            #[inline]
            fn views(&self, index: usize) -> Option<Self::Refs<'_>> {
                Some((
                    Storage::get_index(&self.0, index)?.1,
                    $(Storage::get_index(&self.$i, index)?.1,)*
                ))
            }

            #[inline]
            fn views_mut(&mut self, index: usize) -> Option<Self::Muts<'_>> {
                Some((
                    Storage::get_index_mut(&mut self.0, index)?.1,
                    $(Storage::get_index_mut(&mut self.$i, index)?.1,)*
                ))
            }

            #[inline]
            fn columns(&self, len: usize) -> Self::Columns<'_> {
                (
                    Columnar::columns(&self.0).split_at(len).0,
                    $(Columnar::columns(&self.$i).split_at(len).0,)*
                )
            }

            #[inline]
            fn columns_mut(&mut self, len: usize) -> Self::ColumnsMut<'_> {
                (
                    Columnar::columns_mut(&mut self.0).split_at(len).0,
                    $(Columnar::columns_mut(&mut self.$i).split_at(len).0,)*
                )
            }

            #[inline]
            fn rows(&self, len: usize) -> Self::Rows<'_> {
                Aligned::new(self.columns(len))
            }

            #[inline]
            fn rows_mut(&mut self, len: usize) -> Self::RowsMut<'_> {
                Aligned::new(self.columns_mut(len))
            }

            fn assert_invariants(&self) {
                Storage::assert_invariants(&self.0);
                $(Storage::assert_invariants(&self.$i);)*
            }

            fn assert_aligned(&self, len: usize) {
                let first = Storage::keys(&self.0);
                assert!(len <= first.len(), "the aligned prefix ({len}) is longer than member 0");
                $(
                    let keys = Storage::keys(&self.$i);
                    assert!(
                        len <= keys.len(),
                        "the aligned prefix ({len}) is longer than member {}",
                        $i
                    );
                    assert!(
                        keys[..len] == first[..len],
                        "member {} is not aligned with member 0 over the prefix",
                        $i
                    );
                )*
            }
        }

        impl<K: Key, $first: Storage<Key = K>, $($member: Storage<Key = K>),*> GroupExcluded<K>
            for ($first, $($member,)*)
        {
            #[inline]
            fn count(&self) -> usize {
                1 $(+ group_tuple!(@one $member))*
            }

            #[inline]
            fn storage_keys(&self, storage: usize) -> &[K] {
                match storage {
                    0 => Storage::keys(&self.0),
                    $($i => Storage::keys(&self.$i),)*
                    _ => &[],
                }
            }

            #[inline]
            fn storage_contains(&self, storage: usize, key: K) -> bool {
                match storage {
                    0 => Storage::contains_key(&self.0, key),
                    $($i => Storage::contains_key(&self.$i, key),)*
                    _ => false,
                }
            }

            #[inline]
            fn holds(&self, key: K) -> bool {
                Storage::contains_key(&self.0, key) $(|| Storage::contains_key(&self.$i, key))*
            }

            fn remove(&mut self, key: K) -> bool {
                // Every storage, whichever held the key: all are asked.
                [
                    Storage::remove(&mut self.0, key).is_some(),
                    $(Storage::remove(&mut self.$i, key).is_some(),)*
                ]
                .contains(&true)
            }

            fn assert_invariants(&self) {
                Storage::assert_invariants(&self.0);
                $(Storage::assert_invariants(&self.$i);)*
            }
        }
    };
    (@usize $member:ident) => { usize };
    (@one $member:ident) => { 1 };
}

group_tuple!(A 0);
group_tuple!(A 0 B 1);
group_tuple!(A 0 B 1 C 2);
group_tuple!(A 0 B 1 C 2 E 3);
group_tuple!(A 0 B 1 C 2 E 3 G 4);
group_tuple!(A 0 B 1 C 2 E 3 G 4 H 5);
group_tuple!(A 0 B 1 C 2 E 3 G 4 H 5 I 6);
group_tuple!(A 0 B 1 C 2 E 3 G 4 H 5 I 6 J 7);

// A group as one member of a query: the aligned prefix drives (or is probed, one lookup), and
// its view is every member's view. This is `EnTT`'s partial-owning group: the group's own
// members without lookups, the query's other members probed.

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Member for &Group<M, X> {
    type Key = M::Key;
    type Slot = usize;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn key_at(&self, index: usize) -> Option<M::Key> {
        self.keys().get(index).copied()
    }

    #[inline]
    fn driven_slot(index: usize) -> usize {
        index
    }

    #[inline]
    fn locate(&self, key: M::Key) -> Option<usize> {
        self.index_of(key)
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Member for &mut Group<M, X> {
    type Key = M::Key;
    type Slot = usize;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn key_at(&self, index: usize) -> Option<M::Key> {
        self.keys().get(index).copied()
    }

    #[inline]
    fn driven_slot(index: usize) -> usize {
        index
    }

    #[inline]
    fn locate(&self, key: M::Key) -> Option<usize> {
        self.index_of(key)
    }
}

impl<'v, M: GroupMembers, X: GroupExcluded<M::Key>> MemberView<'v> for &Group<M, X> {
    type View = M::Refs<'v>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> Option<M::Refs<'v>> {
        self.members.views(slot)
    }
}

impl<'v, M: GroupMembers, X: GroupExcluded<M::Key>> MemberView<'v> for &mut Group<M, X> {
    type View = M::Muts<'v>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> Option<M::Muts<'v>> {
        self.members.views_mut(slot)
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> SharedMember for &'a Group<M, X> {
    type Item = M::Refs<'a>;

    #[inline]
    fn item(self, slot: usize) -> Option<M::Refs<'a>> {
        self.members.views(slot)
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> IntoIterator for &'a Group<M, X> {
    type Item = (M::Key, M::Refs<'a>);
    type IntoIter = <M::Rows<'a> as Rows>::Iter;

    /// Iterates over the aligned keys with every member's view: [`Group::iter`].
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> IntoIterator for &'a mut Group<M, X> {
    type Item = (M::Key, M::Muts<'a>);
    type IntoIter = <M::RowsMut<'a> as Rows>::Iter;

    /// Iterates over the aligned keys with every member's mutable view: [`Group::iter_mut`].
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use core::num::NonZeroU32;

    use crate::entity::Entity;
    use crate::error::Error;
    use crate::group::Group;
    use crate::map::SparseMap;

    fn entity(index: u32, generation: u32) -> Entity {
        Entity::from_parts(index, NonZeroU32::new(generation).unwrap())
    }

    #[test]
    fn a_refused_stale_insert_moves_nothing() {
        // Regression: the newer key held in the slot left the prefix before the insert was
        // refused, and re-entered it at the end, so a refused call reordered the group.
        let a: SparseMap<Entity, u8> = (0..4).map(|index| (entity(index, 2), 0)).collect();
        let b: SparseMap<Entity, u8> = (0..4).map(|index| (entity(index, 2), 1)).collect();
        let mut group = Group::new((a, b));
        let before = group.keys().to_vec();
        let refused = group.member_mut::<0>().try_insert(entity(1, 1), 9);
        assert_eq!(refused, Err(Error::StaleKey { index: 1, version: 1, held: 2 }));
        assert_eq!(group.keys(), before.as_slice());
        assert_eq!(group.members().0.keys(), before.as_slice());
        group.assert_invariants();
    }
}
