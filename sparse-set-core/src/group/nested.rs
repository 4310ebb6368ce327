//! Nested groups: a [`Nested`] level inside a group's aligned prefix (documented on
//! [`Nested`]), the trait that reaches it from every change of keys ([`Nest`]), the views of the
//! level as a group, and its handles.

use crate::error::Error;
use crate::group::Group;
use crate::group::both::Both;
use crate::group::check::{Misaligned, aligned_len};
use crate::group::tuples::{
    Chain, GroupExcluded, GroupExcludedMut, GroupMembers, GroupRows, KeySet, Reporting, SwapRows,
};
use crate::group::view::NestedMut;
use crate::observe::Observer;
#[cfg(doc)]
use crate::storage::Columnar;
use crate::unwind::then;

/// The nested level of a [`Group`]: member storages `M` (a tuple of 1 to 8 [`Columnar`]
/// storages of the group's key) and excluded storages `X`, whose keys the group keeps aligned
/// inside its own prefix, so that a storage belongs to several groups that nest (`EnTT`'s
/// nested owning groups, sparsey's group families), and `N`, the level inside this one (`()`
/// for none; see "Deeper families" below). Made detached, then put in a group with
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
/// # Deeper families
///
/// A level holds a level of its own, put inside it with [`Nested::nest`] (or with
/// [`Group::nest`] on a family, which puts the level inside the innermost one):
/// `Group<M, X, Nested<M2, X2, Nested<M3, X3>>>` keeps a third prefix, `0..len3` of every member
/// of `M`, `M2` and `M3`, inside the second. Families reach level 7 (a group and seven nested
/// levels: eight groups). Level `D` is read with `nested()` taken `D` times, written with
/// [`Group::level_mut`], and its storages are changed with [`Group::level_member_mut`] and
/// [`Group::level_excluded_mut`]; [`Level`](crate::group::Level) is how those reach it.
///
/// ```
/// use sparse_set_core::group::Nested;
/// use sparse_set_core::{Group, SparseSet};
///
/// let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
/// // (a), (a, b), (a, b, c) without hidden, (a, b, c, d) without hidden.
/// let inner = Nested::new((set(&[1, 2, 3]),)).nest(Nested::new((set(&[1, 2]),)));
/// let level = Nested::with_excluded((set(&[1, 2, 3, 4]),), (set(&[4]),)).nest(inner);
/// let mut family = Group::new((set(&[1, 2, 3, 4, 5]),)).nest(level);
/// let (level1, level2) = (family.nested(), family.nested().nested());
/// let lens = (family.len(), level1.len(), level2.len(), level2.nested().len());
/// assert_eq!(lens, (5, 3, 3, 2));
///
/// family.level_member_mut::<2, 0>().remove(1); // 1 leaves levels 2 and 3
/// assert_eq!(family.nested().nested().nested().keys(), &[2]);
/// family.level_excluded_mut::<1, 0>().insert(2, ()); // 2 leaves levels 1 to 3
/// assert_eq!(family.nested().nested().nested().len(), 0);
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
/// Each level deeper adds the same again: a key that joins level `D` looks up only level
/// `D`'s own storages and swaps in every member from the group's to level `D`'s; a change to
/// level `D`'s storages alone makes one lookup in the group's prefix, compares its position
/// with each level's length on the way in, and then repairs level `D` and the levels inside
/// it; a key that leaves level `D` leaves the levels inside it first.
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
/// (0.76x to 1.09x of it over five full runs; 1.35x in a sixth, where sparsey's row ran in
/// 0.70x its earlier time and ours in the same, and 0.67x run again on its own; 0.83x in the
/// latest, on an Intel Xeon).
/// In a family of three levels (spins nested inside the accelerations' level; groups
/// `respawn_deep` and `cycle_deep`), a spin removed or put back costs 0.90x to 1.04x what it
/// costs in sparsey's family of three groups (five runs; 0.49x, 0.45x and 0.75x in the three
/// latest), and a despawn + respawn of a whole row 0.91x, 1.05x, 1.16x, 1.00x, 1.02x and 0.67x
/// (the last six).
///
/// # Limits
///
/// - A family reaches level 7: a group and seven nested levels, each inside the one before
///   (sparsey's families and `EnTT`'s nested groups have no fixed depth; an eighth level would
///   be one more entry of the `Level` implementations).
/// - Sorting: only the innermost level's prefix can be sorted (any other would scatter the
///   levels inside it), with [`Group::sort_nested_by`] and the other `sort_nested_*` methods
///   in a family of two levels, [`Group::sort_level_by`] and the other `sort_level_*` methods
///   at any depth. They move every outer level's members in the same swaps, so every prefix
///   stays aligned. Sorting a level with a level inside it does not compile.
#[derive(Clone, Debug, Default)]
pub struct Nested<M, X = (), N = ()> {
    pub(super) members: M,
    pub(super) excluded: X,
    pub(super) inner: N,
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
        Nested::detached(members, ())
    }
}

impl<M, X> Nested<M, X> {
    /// A detached level of any storages, aligned when a group takes it (or a loaded family
    /// measures it).
    pub(crate) fn detached(members: M, excluded: X) -> Self {
        Nested { members, excluded, inner: (), len: 0 }
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

impl<M, X, N> Nested<M, X, N> {
    /// Puts `level` (with the levels inside it) inside this one's innermost level: a family
    /// of three levels or more, each one's keys a subset of the one around it. Levels nest
    /// innermost first (`a.nest(b.nest(c))`) or outermost first (`a.nest(b).nest(c)`): both
    /// build the same family. Detached, like this level: a group aligns every level when
    /// [`Group::nest`] takes the outermost.
    ///
    /// Computes in **O(depth)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    /// // (a), (a, b), (a, b, c): each level a superset of the next one's members.
    /// let family = Group::new((set(&[1, 2, 3]),))
    ///     .nest(Nested::new((set(&[2, 3]),)).nest(Nested::new((set(&[3]),))));
    /// assert_eq!(family.len(), 3);
    /// assert_eq!(family.nested().len(), 2);
    /// assert_eq!(family.nested().nested().keys(), &[3]);
    ///
    /// // The same family, its levels put in outermost first.
    /// let level = Nested::new((set(&[2, 3]),)).nest(Nested::new((set(&[3]),)));
    /// let same = Group::new((set(&[1, 2, 3]),)).nest(level);
    /// assert_eq!(same.nested().nested().keys(), &[3]);
    /// ```
    #[must_use]
    pub fn nest<L>(self, level: L) -> <Self as Innermost<L>>::Output
    where
        Self: Innermost<L>,
    {
        self.put_innermost(level)
    }
}

impl<M, X, N> Nested<M, X, N> {
    /// Takes the levels inside this one out: this level alone, and the level that was inside it
    /// (`()` if none).
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::SparseSet;
    ///
    /// let level = Nested::new((SparseSet::<u32>::new(),)).nest(Nested::new((SparseSet::<u32>::new(),)));
    /// let (outer, inner) = level.unnest();
    /// let ((_,), ()) = outer.into_parts();
    /// let ((_,), ()) = inner.into_parts();
    /// ```
    pub fn unnest(self) -> (Nested<M, X>, N) {
        let Nested { members, excluded, inner, len } = self;
        (Nested { members, excluded, inner: (), len }, inner)
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

    /// The level inside this one (`()` for none), shared.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::SparseSet;
    ///
    /// let inner = Nested::new(([7].into_iter().collect::<SparseSet<u32>>(),));
    /// let level = Nested::new((SparseSet::<u32>::new(),)).nest(inner);
    /// assert!(level.nested().members().0.contains(7));
    /// ```
    #[inline]
    #[must_use]
    pub fn nested(&self) -> &N {
        &self.inner
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
        Nested::detached(members, excluded)
    }
}

/// The nested level of a group: `()` for none, or a [`Nested`] level (which may hold one of
/// its own). The methods are the family's plumbing: how a change of keys reaches every nested
/// prefix. `outer` is every member of the levels around the level, from the group's inward.
pub trait Nest<K: Copy> {
    /// Whether a member of this level or of a level inside it reports to an observer
    /// ([`Columnar::OBSERVES`]): then a change goes on in every storage while a hook panics.
    #[doc(hidden)]
    const OBSERVES: bool;

    /// After the outer levels' prefixes were repaired for `key`, which is in the innermost of
    /// them at `position`: `key` joins or leaves this level's prefix (and the levels inside
    /// it) as it now qualifies.
    #[doc(hidden)]
    fn refresh<O: SwapRows>(&mut self, outer: &mut O, key: K, position: usize);

    /// Before the key at `position` of the outer levels' prefixes leaves them: takes it out
    /// of this level's prefix (and the levels inside it) first. Returns its position now.
    #[doc(hidden)]
    fn leave_at<O: SwapRows>(&mut self, outer: &mut O, position: usize) -> usize;

    /// What [`leave_for_removal`](Self::leave_for_removal) takes out of the levels' members,
    /// dropped by the caller once every storage is done.
    #[doc(hidden)]
    type Taken: Default;

    /// Before the key at `position` of the outer levels' prefix of `outer_len` keys is
    /// removed from every storage of the family (a despawn): if it is in this level's prefix,
    /// takes it out of the members of this level and of the levels inside it, and moves it in
    /// the outer levels' members to where their removal keeps this prefix whole. Returns its
    /// position in the outer members now, and what was taken.
    #[doc(hidden)]
    fn leave_for_removal<O: SwapRows>(
        &mut self,
        outer: &mut O,
        position: usize,
        outer_len: usize,
    ) -> (usize, Self::Taken);

    /// Removes `key`, which is in no prefix, from the level's storages and those of the levels
    /// inside it, except where `taken` says [`leave_for_removal`](Self::leave_for_removal)
    /// took it out already; whether any held it.
    #[doc(hidden)]
    fn remove(&mut self, key: K, taken: &Self::Taken) -> bool;

    /// The level's invariant (and that of the levels inside it), within the outer levels'
    /// prefix of `outer_len` keys.
    #[doc(hidden)]
    fn check<O: GroupRows<Key = K>, OX: GroupExcluded<K>>(
        &self,
        outer: &O,
        outer_excluded: &OX,
        outer_len: usize,
    ) -> Result<(), Misaligned<K>>;

    /// Empties the level's prefix and those inside it, moving nothing: a level taken out of a
    /// family is aligned anew when a group takes it.
    #[doc(hidden)]
    fn reset(&mut self);

    /// Sets the level's prefix (and those inside it) to what its storages hold aligned
    /// already inside the outer levels' prefix of `outer_len` keys, moving nothing: how a
    /// loaded family finds its prefixes, checked afterwards.
    #[doc(hidden)]
    fn measure<O: GroupRows<Key = K>>(&mut self, outer: &O, outer_len: usize);

    /// Checks every storage's own invariants.
    #[doc(hidden)]
    fn assert_invariants(&self);

    /// The number of the level's storages (members, then excluded storages), and those of the
    /// levels inside it.
    #[doc(hidden)]
    fn storage_count(&self) -> usize;

    /// The keys of storage `storage`, counted as [`storage_count`](Self::storage_count) counts.
    #[doc(hidden)]
    fn storage(&self, storage: usize) -> Option<&dyn KeySet<K>>;

    /// Asks the processor for `key`'s cell in every storage of the level and of the levels
    /// inside it (as [`KeySet::prefetch`]); changes nothing.
    #[doc(hidden)]
    fn prefetch(&self, key: K);

    /// Room for `additional` more rows in every member of the level and of the levels inside
    /// it (`Storage::try_reserve`); the keys are unchanged either way.
    ///
    /// # Errors
    ///
    /// The first failing member's.
    #[doc(hidden)]
    fn try_reserve(&mut self, additional: usize) -> Result<(), Error>;

    /// Releases the spare memory of every storage of the level and of the levels inside it
    /// (`Storage::shrink_to_fit`); the keys are unchanged.
    #[doc(hidden)]
    fn shrink_to_fit(&mut self);
}

/// A family's levels with one more level put inside the innermost: what
/// [`Nested::nest`] and [`Group::nest`] build. Implemented for `()` (no level yet) and every
/// [`Nested`] level.
#[doc(hidden)]
pub trait Innermost<L> {
    /// The levels with `L` inside the innermost.
    type Output;

    /// Puts `level` inside the innermost level.
    fn put_innermost(self, level: L) -> Self::Output;
}

impl<L> Innermost<L> for () {
    type Output = L;

    #[inline]
    fn put_innermost(self, level: L) -> L {
        level
    }
}

impl<M, X, N: Innermost<L>, L> Innermost<L> for Nested<M, X, N> {
    type Output = Nested<M, X, N::Output>;

    #[inline]
    fn put_innermost(self, level: L) -> Self::Output {
        let Nested { members, excluded, inner, len } = self;
        Nested { members, excluded, inner: inner.put_innermost(level), len }
    }
}

impl<K: Copy> Nest<K> for () {
    const OBSERVES: bool = false;

    #[inline]
    fn refresh<O: SwapRows>(&mut self, _: &mut O, _: K, _: usize) {}

    #[inline]
    fn leave_at<O: SwapRows>(&mut self, _: &mut O, position: usize) -> usize {
        position
    }

    type Taken = ();

    #[inline]
    fn leave_for_removal<O: SwapRows>(
        &mut self,
        _: &mut O,
        position: usize,
        _: usize,
    ) -> (usize, ()) {
        (position, ())
    }

    #[inline]
    fn remove(&mut self, _: K, (): &()) -> bool {
        false
    }

    #[inline]
    fn check<O: GroupRows<Key = K>, OX: GroupExcluded<K>>(
        &self,
        _: &O,
        _: &OX,
        _: usize,
    ) -> Result<(), Misaligned<K>> {
        Ok(())
    }

    #[inline]
    fn reset(&mut self) {}

    #[inline]
    fn measure<O: GroupRows<Key = K>>(&mut self, _: &O, _: usize) {}

    fn assert_invariants(&self) {}

    #[inline]
    fn storage_count(&self) -> usize {
        0
    }

    #[inline]
    fn storage(&self, _: usize) -> Option<&dyn KeySet<K>> {
        None
    }

    #[inline]
    fn prefetch(&self, _: K) {}

    #[inline]
    fn try_reserve(&mut self, _: usize) -> Result<(), Error> {
        Ok(())
    }

    #[inline]
    fn shrink_to_fit(&mut self) {}
}

impl<K, M, X, N> Nest<K> for Nested<M, X, N>
where
    K: Copy,
    M: GroupMembers<Key = K>,
    X: GroupExcludedMut<K>,
    N: Nest<K>,
{
    const OBSERVES: bool = M::OBSERVES || N::OBSERVES;

    #[inline]
    fn refresh<O: SwapRows>(&mut self, outer: &mut O, key: K, position: usize) {
        // In the outer prefixes, every outer member holds `key` at `position`: only the
        // level's own storages are looked up, and not even those when `key` was just pushed to
        // each (it is then every member's last key).
        let positions = self.members.last_positions(key).or_else(|| self.members.positions(key));
        match positions {
            Some(positions) if !self.excluded.holds(key) => {
                // Past the nested prefix in the outer members means past it in the level's,
                // for keys implemented as `Key` asks; `joinable` checks the level's members, so
                // that a key that is not never moves a swap out of bounds.
                let mut position = position;
                if position >= self.len && self.members.joinable(positions, self.len) {
                    if O::OBSERVES || M::OBSERVES {
                        // The prefix grows first, and the level's members move (and the levels
                        // inside take the key in) also while a hook of the levels around
                        // unwinds: a hook that panics leaves the key in every prefix it
                        // qualifies for, every storage having moved it.
                        let target = self.len;
                        self.len += 1;
                        then(
                            &mut (&mut *outer, &mut self.members, &mut self.inner),
                            |(outer, members, _)| {
                                then(
                                    &mut (&mut **outer, &mut **members),
                                    |(outer, _)| {
                                        if position != target {
                                            outer.swap_rows(position, target);
                                        }
                                    },
                                    |(_, members)| members.move_to(positions, target),
                                );
                            },
                            |(outer, members, inner)| {
                                inner.refresh(
                                    &mut Chain(&mut **outer, &mut **members),
                                    key,
                                    target,
                                );
                            },
                        );
                        return;
                    }
                    if position != self.len {
                        outer.swap_rows(position, self.len);
                    }
                    self.members.move_to(positions, self.len);
                    position = self.len;
                    self.len += 1;
                }
                if position < self.len {
                    self.inner.refresh(&mut Chain(outer, &mut self.members), key, position);
                }
            }
            _ => {
                self.leave_at(outer, position);
            }
        }
    }

    #[inline]
    fn leave_at<O: SwapRows>(&mut self, outer: &mut O, position: usize) -> usize {
        if position >= self.len {
            return position;
        }
        // Out of the levels inside first. Then the last row of this prefix and this one trade
        // places in every member of this level and the outer ones; the prefix then ends
        // before it.
        let position = self.inner.leave_at(&mut Chain(&mut *outer, &mut self.members), position);
        self.len -= 1;
        if position != self.len {
            if O::OBSERVES {
                // A hook of the levels around may panic: this level swaps all the same.
                let last = self.len;
                then(
                    &mut (outer, &mut self.members),
                    |(outer, _)| outer.swap_rows(position, last),
                    |(_, members)| members.swap(position, last),
                );
            } else {
                outer.swap_rows(position, self.len);
                self.members.swap(position, self.len);
            }
        }
        self.len
    }

    type Taken = (Option<M::Taken>, N::Taken);

    #[inline]
    fn leave_for_removal<O: SwapRows>(
        &mut self,
        outer: &mut O,
        position: usize,
        outer_len: usize,
    ) -> (usize, Self::Taken) {
        if position >= self.len {
            return (position, (None, N::Taken::default()));
        }
        // The levels inside take the row out first, leaving it at a position of this prefix
        // past theirs. Then this level's members take it out, the prefix's last row filling
        // its place (a member with no keys past the prefix swaps nothing). The outer members
        // follow: that last row moves to `position` in them too, and the key to this prefix's
        // old end, from where the outer removal takes it. When this prefix is all of the outer
        // one, the outer removal fills the hole with that same row by itself, and nothing
        // needs swapping first.
        let (position, inner) = self.inner.leave_for_removal(
            &mut Chain(&mut *outer, &mut self.members),
            position,
            self.len,
        );
        let len = self.len;
        self.len -= 1;
        if M::OBSERVES && position != self.len {
            // A hook of this level's members may panic during the take (which the other
            // members finish): the levels around move all the same. When this prefix is all of
            // the outer one, the outer removal would fill the hole by itself; a take that
            // panicked stops that removal, so the outer members swap then too.
            let (last, whole) = (self.len, len == outer_len);
            let mut state = (outer, &mut self.members, None);
            then(
                &mut state,
                |(_, members, taken)| *taken = Some(members.take_aligned(position, len)),
                |(outer, _, taken)| {
                    if !whole || taken.is_none() {
                        outer.swap_rows(position, last);
                    }
                },
            );
            return (if whole { position } else { last }, (state.2, inner));
        }
        let taken = self.members.take_aligned(position, len);
        let last = self.len;
        if len == outer_len || position == last {
            return (position, (Some(taken), inner));
        }
        outer.swap_rows(position, last);
        (last, (Some(taken), inner))
    }

    fn remove(&mut self, key: K, (taken, inner): &Self::Taken) -> bool {
        let inner = self.inner.remove(key, inner);
        if taken.is_some() {
            // Taken out of the members with the row; it qualified, so no excluded storage of
            // the level holds it.
            return true;
        }
        // Every storage, whichever held the key.
        let held = self.members.remove(key);
        self.excluded.remove(key) || held || inner
    }

    fn check<O: GroupRows<Key = K>, OX: GroupExcluded<K>>(
        &self,
        outer: &O,
        outer_excluded: &OX,
        outer_len: usize,
    ) -> Result<(), Misaligned<K>> {
        if self.len > outer_len {
            return Err(Misaligned::NestedTooLong { len: self.len, outer_len });
        }
        let view = Group {
            members: Both::new(outer, &self.members),
            excluded: Both::new(outer_excluded, &self.excluded),
            nested: (),
            len: self.len,
            observer: (),
        };
        view.check_aligned()?;
        self.inner.check(&view.members, &view.excluded, self.len)
    }

    fn reset(&mut self) {
        self.len = 0;
        self.inner.reset();
    }

    fn measure<O: GroupRows<Key = K>>(&mut self, outer: &O, outer_len: usize) {
        self.len = aligned_len(outer, outer_len, &self.members, &self.excluded);
        self.inner.measure(&Both::new(outer, &self.members), self.len);
    }

    fn assert_invariants(&self) {
        self.members.assert_invariants();
        self.excluded.assert_invariants();
        self.inner.assert_invariants();
    }

    #[inline]
    fn storage_count(&self) -> usize {
        self.members.count() + self.excluded.count() + self.inner.storage_count()
    }

    #[inline]
    fn storage(&self, storage: usize) -> Option<&dyn KeySet<K>> {
        let own = self.members.count() + self.excluded.count();
        match (storage.checked_sub(self.members.count()), storage.checked_sub(own)) {
            (None, _) => self.members.part(storage),
            (Some(excluded), None) => self.excluded.part(excluded),
            (_, Some(inner)) => self.inner.storage(inner),
        }
    }

    #[inline]
    fn prefetch(&self, key: K) {
        self.members.prefetch(key);
        self.excluded.prefetch(key);
        self.inner.prefetch(key);
    }

    #[inline]
    fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        self.members.try_reserve(additional)?;
        self.inner.try_reserve(additional)
    }

    #[inline]
    fn shrink_to_fit(&mut self) {
        self.members.shrink_to_fit();
        self.excluded.shrink_to_fit();
        self.inner.shrink_to_fit();
    }
}

impl<M, X, N, O> Group<M, X, N, O> {
    /// The nested level: `()` or a [`Nested`] one.
    pub(crate) fn nested_level(&self) -> &N {
        &self.nested
    }
}

impl<M, X, M2, X2, N3, O> Group<M, X, Nested<M2, X2, N3>, O> {
    /// The length of the nested level's prefix.
    pub(super) fn nested_len(&self) -> usize {
        self.nested.len
    }
}

/// The shared view of a group's nested level: a group of the outer level's members beside the
/// level's own, and the levels inside it (`N3`, `()` for none), read with
/// [`nested`](Group::nested) again.
pub type NestedView<'g, M, X, M2, X2, N3 = ()> =
    Group<Both<&'g M, &'g M2>, Both<&'g X, &'g X2>, &'g N3>;

impl<M: GroupMembers, X: GroupExcluded<M::Key>, O: Observer<M::Key, ()>> Group<M, X, (), O> {
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
    pub fn nest<M2, X2, N3>(self, level: Nested<M2, X2, N3>) -> Group<M, X, Nested<M2, X2, N3>, O>
    where
        M2: GroupMembers<Key = M::Key>,
        X2: GroupExcludedMut<M::Key>,
        N3: Nest<M::Key>,
    {
        let Group { members, excluded, len, observer, .. } = self;
        let mut level = level;
        level.reset();
        let mut group = Group { members, excluded, nested: level, len, observer };
        // Walk the group's prefix forwards. Joining swaps a key from `index` to the nested
        // length, and the key there (already visited) to `index`: each key is visited once.
        for index in 0..len {
            let key = group.members.first_keys()[index];
            group.nested.refresh(
                &mut Reporting(&mut group.members, &mut group.observer),
                key,
                index,
            );
        }
        group
    }
}

impl<M, X, M2, X2, N3, O> Group<M, X, Nested<M2, X2, N3>, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key>,
    N3: Nest<M::Key>,
{
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
    pub fn nested(&self) -> NestedView<'_, M, X, M2, X2, N3> {
        Group {
            members: Both::new(&self.members, &self.nested.members),
            excluded: Both::new(&self.excluded, &self.nested.excluded),
            nested: &self.nested.inner,
            len: self.nested.len,
            observer: (),
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
    pub fn nested_mut(&mut self) -> NestedMut<'_, M, X, M2, X2, N3, O> {
        self.level_mut::<1>()
    }

    /// Puts `level` (with the levels inside it) inside the family's innermost level, and aligns
    /// every level anew: levels nest outermost first as well as innermost first.
    ///
    /// Computes in **O(len)** lookups and swaps; allocates nothing.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    /// let family = Group::new((set(&[1, 2, 3]),))
    ///     .nest(Nested::new((set(&[2, 3]),)))
    ///     .nest(Nested::new((set(&[3]),))); // inside (a, b)
    /// assert_eq!(family.nested().nested().keys(), &[3]);
    /// family.assert_invariants();
    /// ```
    #[must_use]
    pub fn nest<L>(self, level: L) -> Group<M, X, Deeper<M2, X2, N3, L>, O>
    where
        N3: Innermost<L, Output: Nest<M::Key>>,
    {
        let (group, levels) = self.unnest();
        group.nest(levels.put_innermost(level))
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
    pub fn unnest(self) -> Unnested<M, X, M2, X2, N3, O> {
        let Group { members, excluded, nested, len, observer } = self;
        (Group { members, excluded, nested: (), len, observer }, nested)
    }
}

/// A family's levels with `L` put inside the innermost: what [`Group::nest`] on a family makes.
type Deeper<M2, X2, N3, L> = Nested<M2, X2, <N3 as Innermost<L>>::Output>;

/// A family taken apart by [`Group::unnest`]: the group, and its nested level.
type Unnested<M, X, M2, X2, N3, O> = (Group<M, X, (), O>, Nested<M2, X2, N3>);

impl<'g, A: Copy, B: Copy, M3, X3, N4> Group<A, B, &'g Nested<M3, X3, N4>> {
    /// The level inside this view's level, as a group: its prefix, and rows of every outer
    /// level's members followed by the level's own (`(((a,), (b,)), (c,))` for three levels).
    /// Reads a family of any depth: `family.nested().nested()` is level 2.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, query};
    ///
    /// let map = |rows: &[(u32, u8)]| rows.iter().copied().collect::<SparseMap<u32, u8>>();
    /// let family = Group::new((map(&[(1, 1), (2, 2), (3, 3)]),))
    ///     .nest(Nested::new((map(&[(2, 20), (3, 30)]),)).nest(Nested::new((map(&[(3, 100)]),))));
    /// let level = family.nested().nested();
    /// assert_eq!(level.get(3), Some((((&3,), (&30,)), (&100,))));
    /// let mut sum = 0;
    /// query((&level,)).for_each(|_, ((((a,), (b,)), (c,)),)| sum += u32::from(*a + *b + *c));
    /// assert_eq!(sum, 133);
    /// ```
    #[inline]
    #[must_use]
    pub fn nested(&self) -> Group<Both<A, &'g M3>, Both<B, &'g X3>, &'g N4> {
        let level: &'g Nested<M3, X3, N4> = self.nested;
        Group {
            members: Both::new(self.members, &level.members),
            excluded: Both::new(self.excluded, &level.excluded),
            nested: &level.inner,
            len: level.len,
            observer: (),
        }
    }
}
