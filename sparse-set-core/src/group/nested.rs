//! Nested groups: a [`Nested`] level inside a group's aligned prefix (documented on
//! [`Nested`]), the trait that reaches it from every change of keys ([`Nest`]), the views of the
//! level as a group, and its handles.

use core::ops::Deref;

use crate::error::{Error, fail_insert};
use crate::group::Group;
use crate::group::both::Both;
use crate::group::check::Misaligned;
use crate::group::tuples::{GroupExcluded, GroupExcludedMut, GroupMembers, GroupRows, KeySet, Nth};
use crate::group::view::NestedMut;
use crate::storage::{Columnar, Storage};

type NthOf<T, const I: usize> = <T as Nth<I>>::Storage;

/// The nested level of a [`Group`]: member storages `M` (a tuple of 1 to 8 [`Columnar`]
/// storages of the group's key) and excluded storages `X`, whose keys the group keeps aligned
/// inside its own prefix, so that a storage belongs to two groups that nest (`EnTT`'s nested
/// owning groups, sparsey's group families). Made detached, then put in a group with
/// [`Group::nest`].
///
/// A group over members `M` (without `X`) with a [`Nested`] level of members `M2` (without
/// `X2`) keeps two prefixes. The keys of the group's prefix (every storage of `M`, none of `X`)
/// sit at positions `0..len` of every member of `M`; among them, the keys that every storage of
/// `M2` also holds and none of `X2` holds sit at positions `0..nested_len`, in the same order
/// in every storage of `M` and of `M2`. A query over the group walks `0..len` of `M`'s
/// columns; one over the nested level walks `0..nested_len` of `M`'s and `M2`'s, with no
/// lookup in either.
///
/// ```
/// use sparse_set_core::group::Nested;
/// use sparse_set_core::{Group, SparseMap, SparseSet};
///
/// let positions: SparseMap<u32, f32> = (0..6).map(|key| (key, 0.0)).collect();
/// let velocities: SparseMap<u32, f32> = (0..4).map(|key| (key, 1.0)).collect();
/// let sprites: SparseMap<u32, char> = [(1, 'a'), (3, 'b'), (5, 'c')].into_iter().collect();
/// let hidden: SparseSet<u32> = [3].into_iter().collect();
///
/// // Motion walks (positions, velocities); drawing walks the visible moving sprites.
/// let mut family = Group::new((positions, velocities))
///     .nest(Nested::with_excluded((sprites,), (hidden,)));
/// assert_eq!(family.len(), 4); // 0, 1, 2, 3
/// assert_eq!(family.nested().keys(), &[1]); // 3 is hidden, 5 has no velocity
///
/// for (_, (position, velocity)) in family.iter_mut() {
///     *position += *velocity;
/// }
/// // The nested level's rows: the group's members, then the level's own.
/// for (_, ((position, _), (sprite,))) in family.nested().iter() {
///     assert_eq!((*position, *sprite), (1.0, 'a'));
/// }
///
/// // Changes go through the group, which keeps both prefixes aligned.
/// family.nested_excluded_mut::<0>().remove(3); // 3 is visible again: it joins the level
/// family.member_mut::<1>().remove(1); // 1 stops moving: it leaves both prefixes
/// assert_eq!(family.nested().keys(), &[3]);
/// family.assert_invariants();
/// ```
///
/// # Costs per change, against the peers
///
/// A change to a storage of the family makes one repair: the group's prefix first, then the
/// nested one's. For a group of `m` members and `x` excluded storages with a nested level of
/// `m2` members and `x2` excluded storages:
///
/// | change | cost |
/// |---|---|
/// | a key joins both prefixes (the group's last missing component arrives) | `m + x` lookups and at most `m` swaps for the group; `m2 + x2` lookups (none for members that just pushed it) and at most `m + m2` swaps for the nested level |
/// | a change to a nested member or excluded storage alone | one lookup (the key's position in the group's prefix), then the nested level's as above; the group's prefix is not touched |
/// | a key leaves both prefixes | one lookup, then `m + m2` swaps (the nested level first) and `m` swaps |
/// | a change to a key in neither prefix | the storage's own cost and the lookups that show it |
///
/// The peers keep the same nested prefixes; they differ in what they look up:
///
/// - sparsey's group families check, per group of the family from the outermost, only the
///   storages that group adds to the previous one, then swap in all of the group's storages:
///   the same lookups and swaps as here, walked at run time over the family's groups.
/// - `EnTT`'s nested owning groups react to each pool's signals, one handler per group, and
///   each handler tests every pool of its group (owned, observed and excluded): the nested
///   group looks up the outer group's pools again. As here, only the most restrictive group
///   of a family can be sorted.
///
/// Measured (BENCHMARKS.md, groups `respawn_nested` and `cycle_nested`, 100,000 entities): a
/// despawn or spawn of a whole row into a family of positions and velocities with
/// accelerations nested costs what sparsey's family of the same components does, and what
/// the flat group costs; one change to the nested level (an acceleration removed or put back)
/// costs what a change to the third member of one wide group does, and what sparsey's does
/// (0.96x and 1.02x of it in two runs).
///
/// # Limits
///
/// - A family has two levels, the group and one nested level (`EnTT` and sparsey allow deeper
///   chains).
/// - Sorting: the group's prefix cannot be sorted (that would scatter the nested level's), the
///   nested level's can, with [`Group::sort_nested_by`] and the other `sort_nested_*` methods.
///   They move the group's members in the same swaps, so both prefixes stay aligned.
#[derive(Clone, Debug, Default)]
pub struct Nested<M, X = ()> {
    pub(super) members: M,
    pub(super) excluded: X,
    pub(super) len: usize,
}

impl<M: GroupMembers> Nested<M, ()> {
    /// A nested level of `members`, without excluded storages.
    ///
    /// Computes in **O(1)** time: the level is aligned when [`Group::nest`] takes it.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let level = Nested::new((SparseMap::<u32, char>::new(),));
    /// let family = Group::new((SparseSet::<u32>::new(),)).nest(level);
    /// assert!(family.nested().is_empty());
    /// ```
    #[must_use]
    pub fn new(members: M) -> Self {
        Nested { members, excluded: (), len: 0 }
    }
}

impl<M, X> Nested<M, X> {
    /// A level whose first `len` keys are aligned with its group's, as checked by the caller
    /// (none for a detached level, which is aligned when a group takes it).
    pub(crate) fn aligned(members: M, excluded: X, len: usize) -> Self {
        Nested { members, excluded, len }
    }

    /// The level's own member storages, shared.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let level = Nested::new(([(1, 'a')].into_iter().collect::<SparseMap<u32, char>>(),));
    /// assert_eq!(level.members().0.len(), 1);
    /// ```
    #[inline]
    #[must_use]
    pub fn members(&self) -> &M {
        &self.members
    }

    /// The level's own excluded storages, shared.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let level = Nested::with_excluded((SparseSet::<u32>::new(),), ([7].into_iter().collect::<SparseSet<u32>>(),));
    /// assert!(level.excluded().0.contains(7));
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
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let level = Nested::new((SparseSet::<u32>::from_iter([1, 2]),));
    /// let ((set,), ()) = level.into_parts();
    /// assert_eq!(set.len(), 2);
    /// ```
    pub fn into_parts(self) -> (M, X) {
        (self.members, self.excluded)
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Nested<M, X> {
    /// A nested level of `members` without the keys `excluded` holds.
    ///
    /// Computes in **O(1)** time: the level is aligned when [`Group::nest`] takes it.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let hidden: SparseSet<u32> = [2].into_iter().collect();
    /// let family = Group::new((a,)).nest(Nested::with_excluded((b,), (hidden,)));
    /// assert_eq!(family.nested().keys(), &[1]);
    /// ```
    #[must_use]
    pub fn with_excluded(members: M, excluded: X) -> Self {
        Nested { members, excluded, len: 0 }
    }
}

/// The nested level of a group: `()` for none, or a [`Nested`] level. The methods are the
/// group's plumbing: how a change of keys reaches the nested level's prefix.
pub trait Nest<M: GroupRows> {
    /// After the group's prefix was repaired for `key`, which is in it at `position`: `key`
    /// joins or leaves the nested level's prefix as it now qualifies.
    #[doc(hidden)]
    fn refresh(&mut self, outer: &mut M, key: M::Key, position: usize)
    where
        M: GroupMembers;

    /// Before the key at `position` of the group's prefix leaves it: takes it out of the
    /// nested level's prefix first. Returns its position now.
    #[doc(hidden)]
    fn leave_at(&mut self, outer: &mut M, position: usize) -> usize
    where
        M: GroupMembers;

    /// What [`leave_for_removal`](Self::leave_for_removal) takes out of the level's members,
    /// dropped by the caller once every storage is done.
    #[doc(hidden)]
    type Taken: Default;

    /// Before the key at `position` of the group's prefix of `outer_len` keys is removed from
    /// every storage of the family (a despawn): if it is in the nested prefix, takes it out of
    /// the level's members, and moves it in the group's members to where the group's removal
    /// keeps the nested prefix whole. Returns its position in the group's members now, and
    /// what was taken.
    #[doc(hidden)]
    fn leave_for_removal(
        &mut self,
        outer: &mut M,
        position: usize,
        outer_len: usize,
    ) -> (usize, Self::Taken)
    where
        M: GroupMembers;

    /// Removes `key`, which is in no prefix, from the level's storages, unless `taken` says
    /// [`leave_for_removal`](Self::leave_for_removal) took it out of them already; whether any
    /// held it.
    #[doc(hidden)]
    fn remove(&mut self, key: M::Key, taken: &Self::Taken) -> bool;

    /// The nested level's invariant, within a group prefix of `outer_len` keys.
    #[doc(hidden)]
    fn check<X: GroupExcluded<M::Key>>(
        &self,
        outer: &M,
        outer_excluded: &X,
        outer_len: usize,
    ) -> Result<(), Misaligned<M::Key>>;

    /// Checks every storage's own invariants.
    #[doc(hidden)]
    fn assert_invariants(&self);

    /// The number of the level's storages: members, then excluded storages.
    #[doc(hidden)]
    fn storage_count(&self) -> usize;

    /// The keys of the level's storage `storage` (members, then excluded storages).
    #[doc(hidden)]
    fn storage(&self, storage: usize) -> Option<&dyn KeySet<M::Key>>;
}

impl<M: GroupRows> Nest<M> for () {
    #[inline]
    fn refresh(&mut self, _: &mut M, _: M::Key, _: usize) {}

    #[inline]
    fn leave_at(&mut self, _: &mut M, position: usize) -> usize {
        position
    }

    type Taken = ();

    #[inline]
    fn leave_for_removal(&mut self, _: &mut M, position: usize, _: usize) -> (usize, ()) {
        (position, ())
    }

    #[inline]
    fn remove(&mut self, _: M::Key, (): &()) -> bool {
        false
    }

    #[inline]
    fn check<X: GroupExcluded<M::Key>>(
        &self,
        _: &M,
        _: &X,
        _: usize,
    ) -> Result<(), Misaligned<M::Key>> {
        Ok(())
    }

    fn assert_invariants(&self) {}

    #[inline]
    fn storage_count(&self) -> usize {
        0
    }

    #[inline]
    fn storage(&self, _: usize) -> Option<&dyn KeySet<M::Key>> {
        None
    }
}

impl<OM, M, X> Nest<OM> for Nested<M, X>
where
    OM: GroupRows,
    M: GroupMembers<Key = OM::Key>,
    X: GroupExcludedMut<OM::Key>,
{
    #[inline]
    fn refresh(&mut self, outer: &mut OM, key: OM::Key, position: usize)
    where
        OM: GroupMembers,
    {
        // In the group's prefix, every member of the group holds `key` at `position`: only the
        // level's own storages are looked up, and not even those when `key` was just pushed to
        // each (it is then every member's last key).
        let positions = self.members.last_positions(key).or_else(|| self.members.positions(key));
        match positions {
            Some(positions) if !self.excluded.holds(key) => {
                // Past the nested prefix in the group's members means past it in the level's,
                // for keys implemented as `Key` asks; `joinable` checks the level's members, so
                // that a key that is not never moves a swap out of bounds.
                if position >= self.len && self.members.joinable(positions, self.len) {
                    if position != self.len {
                        outer.swap(position, self.len);
                    }
                    self.members.move_to(positions, self.len);
                    self.len += 1;
                }
            }
            _ => {
                self.leave_at(outer, position);
            }
        }
    }

    #[inline]
    fn leave_at(&mut self, outer: &mut OM, position: usize) -> usize
    where
        OM: GroupMembers,
    {
        if position >= self.len {
            return position;
        }
        // The last row of the nested prefix and this one trade places in every member of both
        // levels; the nested prefix then ends before it.
        self.len -= 1;
        if position != self.len {
            outer.swap(position, self.len);
            self.members.swap(position, self.len);
        }
        self.len
    }

    type Taken = Option<M::Taken>;

    #[inline]
    fn leave_for_removal(
        &mut self,
        outer: &mut OM,
        position: usize,
        outer_len: usize,
    ) -> (usize, Option<M::Taken>)
    where
        OM: GroupMembers,
    {
        if position >= self.len {
            return (position, None);
        }
        // In the nested prefix: the level's members take the row out now, the prefix's last
        // row filling its place (a member with no keys past the prefix swaps nothing). The
        // group's members follow: that last row moves to `position` in them too, and the key
        // to the nested prefix's old end, from where the group's removal takes it. When the
        // nested prefix is all of the group's, the group's removal fills the hole with that
        // same row by itself, and nothing needs swapping first.
        let len = self.len;
        self.len -= 1;
        let taken = self.members.take_aligned(position, len);
        let last = self.len;
        if len == outer_len || position == last {
            return (position, Some(taken));
        }
        outer.swap(position, last);
        (last, Some(taken))
    }

    fn remove(&mut self, key: OM::Key, taken: &Option<M::Taken>) -> bool {
        if taken.is_some() {
            // Taken out of the members with the row; it qualified, so no excluded storage of
            // the level holds it.
            return true;
        }
        // Every storage, whichever held the key.
        let held = self.members.remove(key);
        self.excluded.remove(key) || held
    }

    fn check<OX: GroupExcluded<OM::Key>>(
        &self,
        outer: &OM,
        outer_excluded: &OX,
        outer_len: usize,
    ) -> Result<(), Misaligned<OM::Key>> {
        if self.len > outer_len {
            return Err(Misaligned::NestedTooLong { len: self.len, outer_len });
        }
        let view = Group {
            members: Both::new(outer, &self.members),
            excluded: Both::new(outer_excluded, &self.excluded),
            nested: (),
            len: self.len,
        };
        view.check_aligned()
    }

    fn assert_invariants(&self) {
        self.members.assert_invariants();
        self.excluded.assert_invariants();
    }

    #[inline]
    fn storage_count(&self) -> usize {
        self.members.count() + self.excluded.count()
    }

    #[inline]
    fn storage(&self, storage: usize) -> Option<&dyn KeySet<OM::Key>> {
        match storage.checked_sub(self.members.count()) {
            None => self.members.part(storage),
            Some(excluded) => self.excluded.part(excluded),
        }
    }
}

impl<M, X, N> Group<M, X, N> {
    /// The nested level: `()` or a [`Nested`] one.
    pub(crate) fn nested_level(&self) -> &N {
        &self.nested
    }
}

impl<M, X, M2, X2> Group<M, X, Nested<M2, X2>> {
    /// The length of the nested level's prefix.
    pub(super) fn nested_len(&self) -> usize {
        self.nested.len
    }
}

/// The shared view of a group's nested level: a group of the outer level's members beside the
/// level's own.
pub type NestedView<'g, M, X, M2, X2> = Group<Both<&'g M, &'g M2>, Both<&'g X, &'g X2>>;

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Group<M, X> {
    /// Puts `level` inside this group: its keys that qualify for both (every member of the
    /// group and of the level, no excluded storage of either) are aligned at the start of the
    /// group's prefix, in every member of both. See [`Nested`].
    ///
    /// Computes in **O(len)** lookups and swaps; allocates nothing.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 0), (2, 0), (3, 0)].into_iter().collect();
    /// let b: SparseMap<u32, char> = [(3, 'c'), (9, 'z')].into_iter().collect();
    /// let family = Group::new((a,)).nest(Nested::new((b,)));
    /// assert_eq!(family.nested().keys(), &[3]);
    /// assert_eq!(family.keys()[0], 3); // the nested prefix starts the group's
    /// ```
    #[must_use]
    pub fn nest<M2, X2>(self, level: Nested<M2, X2>) -> Group<M, X, Nested<M2, X2>>
    where
        M2: GroupMembers<Key = M::Key>,
        X2: GroupExcludedMut<M::Key>,
    {
        let Group { members, excluded, len, .. } = self;
        let mut group = Group { members, excluded, nested: Nested { len: 0, ..level }, len };
        // Walk the group's prefix forwards. Joining swaps a key from `index` to the nested
        // length, and the key there (already visited) to `index`: each key is visited once.
        for index in 0..len {
            let key = group.members.first_keys()[index];
            group.nested.refresh(&mut group.members, key, index);
        }
        group
    }
}

impl<M, X, M2, X2> Group<M, X, Nested<M2, X2>>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key>,
{
    /// After nested member `I` replaced the value of `key`'s slot in place: if that slot sits
    /// in the nested prefix and the other members hold another key there (an older version of
    /// `key`), the row leaves the nested prefix.
    #[cold]
    pub(super) fn realign_nested<const I: usize>(&mut self, key: M::Key)
    where
        M2: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        let Some(position) = self.nested.members.nth().get_index_of(key) else { return };
        if position < self.nested.len && !self.nested().members.same_key_at(position) {
            self.nested.leave_at(&mut self.members, position);
        }
    }

    /// After a change to the nested level's storages alone: `key` joins or leaves the nested
    /// prefix as it now qualifies. One lookup finds it in the group's prefix (outside it, it
    /// is in neither), then the level's own storages are looked up.
    pub(super) fn refresh_nested(&mut self, key: M::Key) {
        if let Some(position) = self.index_of(key) {
            self.nested.refresh(&mut self.members, key, position);
        }
    }

    /// The nested level as a group: its prefix, and rows of the group's members followed by
    /// the level's own (`((a, b), (c,))`). It stands wherever a shared group does: in a
    /// [`query`](crate::query()), its iterators, its lookups.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, query};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 10), (2, 20)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(2, 2)].into_iter().collect();
    /// let family = Group::new((a,)).nest(Nested::new((b,)));
    /// let nested = family.nested();
    /// assert_eq!(nested.get(2), Some(((&20,), (&2,))));
    /// let mut sum = 0;
    /// query((&nested,)).for_each(|_, (((a,), (b,)),)| sum += a + b);
    /// assert_eq!(sum, 22);
    /// ```
    #[inline]
    #[must_use]
    pub fn nested(&self) -> NestedView<'_, M, X, M2, X2> {
        Group {
            members: Both::new(&self.members, &self.nested.members),
            excluded: Both::new(&self.excluded, &self.nested.excluded),
            nested: (),
            len: self.nested.len,
        }
    }

    /// The nested level's values, mutably: a [`NestedMut`] with `get_mut`, `iter_mut`,
    /// `columns_mut`, `rows_mut`, and a place in a query as a mutable member. Its keys change
    /// only through the family: [`nested_member_mut`], [`nested_excluded_mut`],
    /// [`member_mut`](Group::member_mut), [`remove`](Group::remove); its prefix is sorted by
    /// [`sort_nested_by`](Group::sort_nested_by) and the other `sort_nested_*` methods.
    ///
    /// Computes in **O(1)** time.
    ///
    /// [`nested_member_mut`]: Self::nested_member_mut
    /// [`nested_excluded_mut`]: Self::nested_excluded_mut
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, query};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(1, 10), (2, 20)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// for (_, ((a,), (b,))) in family.nested_mut().iter_mut() {
    ///     *a += *b;
    /// }
    /// let mut nested = family.nested_mut();
    /// query((&mut nested,)).for_each(|_, (((a,), _),)| *a *= 2);
    /// assert_eq!(family.members().0.values(), &[22, 44, 3]);
    /// family.assert_invariants();
    /// ```
    #[inline]
    pub fn nested_mut(&mut self) -> NestedMut<'_, M, X, M2, X2> {
        NestedMut { family: self }
    }

    /// A handle to member `I` of the nested level that changes its values freely and its keys
    /// only through the family. See [`NestedMemberMut`].
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((SparseMap::<u32, char>::new(),)));
    /// family.nested_member_mut::<0>().insert(2, 'b');
    /// assert_eq!(family.nested().keys(), &[2]);
    /// ```
    #[inline]
    pub fn nested_member_mut<const I: usize>(&mut self) -> NestedMemberMut<'_, M, X, M2, X2, I>
    where
        M2: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        NestedMemberMut { group: self }
    }

    /// A handle to excluded storage `I` of the nested level whose `insert` and `remove` keep the
    /// family aligned. See [`NestedExcludedMut`].
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::with_excluded((b,), (SparseSet::<u32>::new(),)));
    /// family.nested_excluded_mut::<0>().insert(1, ());
    /// assert_eq!(family.nested().keys(), &[2]);
    /// ```
    #[inline]
    pub fn nested_excluded_mut<const I: usize>(&mut self) -> NestedExcludedMut<'_, M, X, M2, X2, I>
    where
        X2: Nth<I, Storage: Storage<Key = M::Key>>,
    {
        NestedExcludedMut { group: self }
    }

    /// Takes the nested level out: the group as it was before [`nest`](Group::nest), and the
    /// level's storages.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 0)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(1, 0)].into_iter().collect();
    /// let (group, level) = Group::new((a,)).nest(Nested::new((b,))).unnest();
    /// let ((mut b,), ()) = level.into_parts();
    /// b.clear(); // no longer nested: any change is allowed
    /// assert_eq!(group.len(), 1);
    /// ```
    pub fn unnest(self) -> (Group<M, X>, Nested<M2, X2>) {
        let Group { members, excluded, nested, len } = self;
        (Group { members, excluded, nested: (), len }, nested)
    }
}

/// A mutable handle to one member of a group's nested level, from
/// [`Group::nested_member_mut`]: values change freely, keys only through the family. It
/// dereferences to the member storage (`&S`).
///
/// ```
/// use sparse_set_core::group::Nested;
/// use sparse_set_core::{Group, SparseMap};
///
/// let a: SparseMap<u32, u8> = [(1, 0), (2, 0)].into_iter().collect();
/// let mut family = Group::new((a,)).nest(Nested::new((SparseMap::<u32, char>::new(),)));
/// family.nested_member_mut::<0>().insert(2, 'b');
/// assert_eq!(family.nested().keys(), &[2]);
/// *family.nested_member_mut::<0>().get_mut(2).unwrap() = 'c';
/// assert_eq!(family.nested_member_mut::<0>().remove(2), Some('c'));
/// assert!(family.nested().is_empty());
/// ```
pub struct NestedMemberMut<'g, M, X, M2, X2, const I: usize> {
    group: &'g mut Group<M, X, Nested<M2, X2>>,
}

impl<M, X, M2: Nth<I>, X2, const I: usize> Deref for NestedMemberMut<'_, M, X, M2, X2, I> {
    type Target = NthOf<M2, I>;

    #[inline]
    fn deref(&self) -> &NthOf<M2, I> {
        self.group.nested.members.nth()
    }
}

impl<M, X, M2, X2, const I: usize> NestedMemberMut<'_, M, X, M2, X2, I>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    M2: GroupMembers<Key = M::Key> + Nth<I, Storage: Columnar<Key = M::Key>>,
    X2: GroupExcludedMut<M::Key>,
{
    /// Stores `value` under `key` in this member; returns the value it replaced. If `key` now
    /// qualifies for the nested level, it joins its prefix.
    ///
    /// Computes in **O(1)** amortised time: the storage's insert, one lookup in the group's
    /// prefix, one per storage of the level, at most one swap per member of both levels.
    ///
    /// # Panics
    ///
    /// As the member's `insert`; see [`try_insert`](Self::try_insert).
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// assert_eq!(family.nested_member_mut::<0>().insert(2, 'b'), None);
    /// assert_eq!(family.nested_member_mut::<0>().insert(2, 'c'), Some('b'));
    /// assert_eq!(family.nested().len(), 2);
    /// ```
    #[inline]
    #[track_caller]
    pub fn insert(
        &mut self,
        key: M::Key,
        value: <NthOf<M2, I> as Storage>::Value,
    ) -> Option<<NthOf<M2, I> as Storage>::Value> {
        self.try_insert(key, value)
            .unwrap_or_else(|error| fail_insert::<NthOf<M2, I>, _>(key, error))
    }

    /// The fallible twin of [`insert`](Self::insert): on an error the member, and the family,
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
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// assert_eq!(family.nested_member_mut::<0>().try_insert(2, 'b'), Ok(None));
    /// assert_eq!(family.nested().keys().len(), 2);
    /// ```
    pub fn try_insert(
        &mut self,
        key: M::Key,
        value: <NthOf<M2, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<M2, I> as Storage>::Value>, Error> {
        // The member refuses an older version before it changes. A newer version replacing an
        // aligned older one in place leaves a row whose keys differ: it leaves the nested
        // prefix. Then `key` joins if it now qualifies. Nothing in between runs the caller's
        // code, so nothing can unwind there.
        let replaced = self.group.put_nested_member::<I>(key, value)?;
        self.group.refresh_nested(key);
        Ok(replaced)
    }

    /// Removes `key` from this member by **swap-remove**; returns its value. If `key` was in
    /// the nested prefix it leaves it first; the group's prefix is unchanged.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// assert_eq!(family.nested_member_mut::<0>().remove(1), Some('a'));
    /// assert!(family.nested().is_empty());
    /// assert_eq!(family.len(), 2); // the group's prefix keeps the key
    /// ```
    pub fn remove(&mut self, key: M::Key) -> Option<<NthOf<M2, I> as Storage>::Value> {
        let group = &mut *self.group;
        let mut position = group.nested.members.nth().get_index_of(key)?;
        if position < group.nested.len {
            // In the nested prefix: at `position` in every member of both levels. Out of the
            // nested prefix first (to its end); the group's prefix keeps it.
            position = group.nested.leave_at(&mut group.members, position);
        }
        group.nested.members.nth_mut().swap_remove_index(position).map(|(_, value)| value)
    }

    /// The mutable view of `key`'s element in this member.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// *family.nested_member_mut::<0>().get_mut(1).unwrap() = 'z';
    /// assert_eq!(family.nested().members().inner().0[1], 'z');
    /// ```
    #[inline]
    pub fn get_mut(&mut self, key: M::Key) -> Option<<NthOf<M2, I> as Storage>::Mut<'_>> {
        Storage::get_mut(self.group.nested.members.nth_mut(), key)
    }

    /// The key and mutable view at dense position `index` of this member.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// if let Some((_, value)) = family.nested_member_mut::<0>().get_index_mut(0) {
    ///     *value = 'y';
    /// }
    /// assert_eq!(family.nested().members().inner().0[1], 'y');
    /// ```
    #[inline]
    pub fn get_index_mut(
        &mut self,
        index: usize,
    ) -> Option<(M::Key, <NthOf<M2, I> as Storage>::Mut<'_>)> {
        Storage::get_index_mut(self.group.nested.members.nth_mut(), index)
    }

    /// Every column of this member, mutably, over all its keys; the keys read-only.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// for value in family.nested_member_mut::<0>().columns_mut().values {
    ///     *value = value.to_ascii_uppercase();
    /// }
    /// assert_eq!(family.nested().members().inner().0.values(), &['A']);
    /// ```
    #[inline]
    pub fn columns_mut(&mut self) -> <NthOf<M2, I> as Columnar>::ColumnsMut<'_> {
        Columnar::columns_mut(self.group.nested.members.nth_mut())
    }
}

/// A mutable handle to one excluded storage of a group's nested level, from
/// [`Group::nested_excluded_mut`]: `insert` and `remove` keep the family aligned. It
/// dereferences to the storage (`&S`).
///
/// ```
/// use sparse_set_core::group::Nested;
/// use sparse_set_core::{Group, SparseMap, SparseSet};
///
/// let a: SparseMap<u32, u8> = [(1, 0), (2, 0)].into_iter().collect();
/// let level = Nested::with_excluded((SparseSet::<u32>::new(),), (SparseSet::<u32>::new(),));
/// let mut family = Group::new((a,)).nest(level);
/// family.nested_member_mut::<0>().insert(1, ());
/// family.nested_excluded_mut::<0>().insert(1, ());
/// assert!(family.nested().is_empty());
/// assert_eq!(family.len(), 2); // the group's prefix is not the level's
/// ```
pub struct NestedExcludedMut<'g, M, X, M2, X2, const I: usize> {
    group: &'g mut Group<M, X, Nested<M2, X2>>,
}

impl<M, X, M2, X2: Nth<I>, const I: usize> Deref for NestedExcludedMut<'_, M, X, M2, X2, I> {
    type Target = NthOf<X2, I>;

    #[inline]
    fn deref(&self) -> &NthOf<X2, I> {
        self.group.nested.excluded.nth()
    }
}

impl<M, X, M2, X2, const I: usize> NestedExcludedMut<'_, M, X, M2, X2, I>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key> + Nth<I, Storage: Storage<Key = M::Key>>,
{
    /// Stores `value` under `key` in this excluded storage; returns the value it replaced. A
    /// `key` in the nested prefix leaves it.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// As the storage's `insert`; see [`try_insert`](Self::try_insert).
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let level = Nested::with_excluded((b,), (SparseSet::<u32>::new(),));
    /// let mut family = Group::new((a,)).nest(level);
    /// assert_eq!(family.nested_excluded_mut::<0>().insert(2, ()), None);
    /// assert_eq!(family.nested().keys(), &[1]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn insert(
        &mut self,
        key: M::Key,
        value: <NthOf<X2, I> as Storage>::Value,
    ) -> Option<<NthOf<X2, I> as Storage>::Value> {
        self.try_insert(key, value)
            .unwrap_or_else(|error| fail_insert::<NthOf<X2, I>, _>(key, error))
    }

    /// The fallible twin of [`insert`](Self::insert): on an error the storage, and the family,
    /// are unchanged.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// As the storage's `try_insert`.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let level = Nested::with_excluded((b,), (SparseSet::<u32>::new(),));
    /// let mut family = Group::new((a,)).nest(level);
    /// assert_eq!(family.nested_excluded_mut::<0>().try_insert(1, ()), Ok(None));
    /// assert_eq!(family.nested().keys(), &[2]);
    /// ```
    pub fn try_insert(
        &mut self,
        key: M::Key,
        value: <NthOf<X2, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<X2, I> as Storage>::Value>, Error> {
        // The insert runs none of the caller's code (the value it replaces is returned), so the
        // repair follows it directly: an older version it displaced may join, `key` leaves.
        let replaced = self.group.put_nested_excluded::<I>(key, value)?;
        self.group.refresh_nested(key);
        Ok(replaced)
    }

    /// Removes `key` from this excluded storage; returns its value. If `key` now qualifies
    /// for the nested level it joins its prefix.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let level = Nested::with_excluded((b,), (SparseSet::<u32>::new(),));
    /// let mut family = Group::new((a,)).nest(level);
    /// family.nested_excluded_mut::<0>().insert(1, ());
    /// assert_eq!(family.nested_excluded_mut::<0>().remove(1), Some(()));
    /// assert_eq!(family.nested().len(), 2);
    /// ```
    pub fn remove(&mut self, key: M::Key) -> Option<<NthOf<X2, I> as Storage>::Value> {
        let removed = self.group.nested.excluded.nth_mut().remove(key);
        self.group.refresh_nested(key);
        removed
    }

    /// The mutable view of `key`'s element in this storage.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let level = Nested::with_excluded((b,), (SparseSet::<u32>::new(),));
    /// let mut family = Group::new((a,)).nest(level);
    /// family.nested_excluded_mut::<0>().insert(1, ());
    /// assert_eq!(family.nested_excluded_mut::<0>().get_mut(1), Some(()));
    /// ```
    #[inline]
    pub fn get_mut(&mut self, key: M::Key) -> Option<<NthOf<X2, I> as Storage>::Mut<'_>> {
        Storage::get_mut(self.group.nested.excluded.nth_mut(), key)
    }
}
