//! The levels of a family at any depth: [`Level`], which reaches level `D` from the group's
//! nested level through the levels between, and the handles that change one storage of a level
//! while the family stays aligned ([`LevelMemberMut`], [`LevelExcludedMut`]).

use core::ops::Deref;

use crate::error::{Error, fail_insert};
use crate::group::both::Both;
use crate::group::nested::Nested;
use crate::group::tuples::Reporting;
use crate::group::tuples::{
    Chain, GroupExcluded, GroupExcludedMut, GroupMembers, GroupRows, Nth, SwapRows,
};
use crate::group::{Group, LevelMut, Nest};
use crate::observe::Observed;
use crate::observe::Observer;
use crate::rows::Aligned;
use crate::storage::{Columnar, Storage, TrackedStorage};
use crate::unwind::then;

/// Member `I` of level `D` of the family inside `N`.
pub(crate) type MemberOf<N, K, const D: usize, const I: usize> =
    <<N as Level<K, D>>::Members as Nth<I>>::Storage;
/// Excluded storage `I` of level `D` of the family inside `N`.
pub(crate) type ExcludedOf<N, K, const D: usize, const I: usize> =
    <<N as Level<K, D>>::Excluded as Nth<I>>::Storage;
/// The value type of member `I` of level `D` of the family inside `N`.
pub(crate) type MemberValue<N, K, const D: usize, const I: usize> =
    <MemberOf<N, K, D, I> as Storage>::Value;
/// The value type of excluded storage `I` of level `D` of the family inside `N`.
pub(crate) type ExcludedValue<N, K, const D: usize, const I: usize> =
    <ExcludedOf<N, K, D, I> as Storage>::Value;
/// The key and mutable view of one element of member `I` of level `D` of the family inside
/// `N`, for members keyed by `M`'s key.
type KeyedMut<'a, M, N, const D: usize, const I: usize> =
    (<M as GroupRows>::Key, <MemberOf<N, <M as GroupRows>::Key, D, I> as Storage>::Mut<'a>);
/// The mutable view of member `I` of level `D` of the family inside `N`.
type MemberMut<'a, N, K, const D: usize, const I: usize> =
    <MemberOf<N, K, D, I> as Storage>::Mut<'a>;

/// Level `D` of a family, counted from the [`Nested`] level it is asked of (level 1) inward:
/// what a handle to one of its storages reaches, and how a change there is repaired. Families
/// reach level 7 (a group and seven nested levels: eight groups). The methods are the family's plumbing.
pub trait Level<K: Copy, const D: usize> {
    /// The level's member storages.
    type Members: GroupMembers<Key = K>;
    /// The level's excluded storages.
    type Excluded: GroupExcludedMut<K>;

    /// The level inside this one: `()` when it is the family's innermost, the only level
    /// whose prefix can be sorted.
    type Inner: Nest<K>;

    /// The level's members, shared.
    #[doc(hidden)]
    fn level_members(&self) -> &Self::Members;

    /// The level's members, mutably.
    #[doc(hidden)]
    fn level_members_mut(&mut self) -> &mut Self::Members;

    /// The level's excluded storages, shared.
    #[doc(hidden)]
    fn level_excluded(&self) -> &Self::Excluded;

    /// The level's excluded storages, mutably.
    #[doc(hidden)]
    fn level_excluded_mut(&mut self) -> &mut Self::Excluded;

    /// The length of the level's prefix.
    #[doc(hidden)]
    fn level_len(&self) -> usize;

    /// Every member of the levels from `O` (the members around level 1) to this one, side by
    /// side: the type whose rows a view of the level reads (`Both<Both<O, M1>, M2>` for level
    /// 2).
    type Path<O: GroupRows<Key = K>>: GroupRows<Key = K, FirstDense = O::FirstDense>;

    /// The views at `index` of every member from `outer`'s (given) to this level's.
    #[doc(hidden)]
    fn path_views<'a, O: GroupRows<Key = K> + 'a>(
        &'a self,
        outer: O::Refs<'a>,
        index: usize,
    ) -> Option<<Self::Path<O> as GroupRows>::Refs<'a>>;

    /// The mutable views at `index` of every member from `outer`'s (given) to this level's.
    #[doc(hidden)]
    fn path_views_mut<'a, O: GroupRows<Key = K> + 'a>(
        &'a mut self,
        outer: O::Muts<'a>,
        index: usize,
    ) -> Option<<Self::Path<O> as GroupRows>::Muts<'a>>;

    /// The columns, cut to `len`, of every member from `outer`'s (given) to this level's.
    #[doc(hidden)]
    fn path_columns<'a, O: GroupRows<Key = K> + 'a>(
        &'a self,
        outer: O::Columns<'a>,
        len: usize,
    ) -> <Self::Path<O> as GroupRows>::Columns<'a>;

    /// The mutable columns, cut to `len`, of every member from `outer`'s (given) to this
    /// level's.
    #[doc(hidden)]
    fn path_columns_mut<'a, O: GroupRows<Key = K> + 'a>(
        &'a mut self,
        outer: O::ColumnsMut<'a>,
        len: usize,
    ) -> <Self::Path<O> as GroupRows>::ColumnsMut<'a>;

    /// The rows, cut to `len`, of every member from `outer`'s (given) to this level's.
    #[doc(hidden)]
    fn path_rows<'a, O: GroupRows<Key = K> + 'a>(
        &'a self,
        outer: O::Rows<'a>,
        len: usize,
    ) -> <Self::Path<O> as GroupRows>::Rows<'a>;

    /// The mutable rows, cut to `len`, of every member from `outer`'s (given) to this level's.
    #[doc(hidden)]
    fn path_rows_mut<'a, O: GroupRows<Key = K> + 'a>(
        &'a mut self,
        outer: O::RowsMut<'a>,
        len: usize,
    ) -> <Self::Path<O> as GroupRows>::RowsMut<'a>;

    /// Swaps positions `a` and `b` of every member from `outer`'s to this level's (positions
    /// inside this level's prefix, so that every prefix around it keeps its keys).
    #[doc(hidden)]
    fn swap_path<O: SwapRows>(&mut self, outer: &mut O, a: usize, b: usize);

    /// After a change to the level's storages alone: `key`, at `position` of the prefix
    /// around level 1 (`outer` its members), joins or leaves the level's prefix as it now
    /// qualifies. Nothing changes when a level between holds `key` outside its prefix.
    #[doc(hidden)]
    fn refresh_level<O: SwapRows>(&mut self, outer: &mut O, key: K, position: usize);

    /// Takes the key at `position` of the level's prefix out of it (and out of the levels
    /// inside it). Returns its position now, past the level's prefix.
    #[doc(hidden)]
    fn leave_level<O: SwapRows>(&mut self, outer: &mut O, position: usize) -> usize;
}

impl<K, M, X, N> Level<K, 1> for Nested<M, X, N>
where
    K: Copy,
    M: GroupMembers<Key = K>,
    X: GroupExcludedMut<K>,
    N: Nest<K>,
{
    type Members = M;
    type Excluded = X;

    #[inline]
    fn level_members(&self) -> &M {
        &self.members
    }

    #[inline]
    fn level_members_mut(&mut self) -> &mut M {
        &mut self.members
    }

    #[inline]
    fn level_excluded(&self) -> &X {
        &self.excluded
    }

    #[inline]
    fn level_excluded_mut(&mut self) -> &mut X {
        &mut self.excluded
    }

    #[inline]
    fn level_len(&self) -> usize {
        self.len
    }

    type Inner = N;

    #[inline]
    fn swap_path<O: SwapRows>(&mut self, outer: &mut O, a: usize, b: usize) {
        if O::OBSERVES {
            // A hook of the levels around may panic: this level swaps all the same.
            then(
                &mut (outer, &mut self.members),
                |(outer, _)| outer.swap_rows(a, b),
                |(_, members)| members.swap(a, b),
            );
            return;
        }
        outer.swap_rows(a, b);
        self.members.swap(a, b);
    }

    type Path<O: GroupRows<Key = K>> = Both<O, M>;

    #[inline]
    fn path_views<'a, O: GroupRows<Key = K> + 'a>(
        &'a self,
        outer: O::Refs<'a>,
        index: usize,
    ) -> Option<(O::Refs<'a>, M::Refs<'a>)> {
        Some((outer, self.members.views(index)?))
    }

    #[inline]
    fn path_views_mut<'a, O: GroupRows<Key = K> + 'a>(
        &'a mut self,
        outer: O::Muts<'a>,
        index: usize,
    ) -> Option<(O::Muts<'a>, M::Muts<'a>)> {
        Some((outer, self.members.views_mut(index)?))
    }

    #[inline]
    fn path_columns<'a, O: GroupRows<Key = K> + 'a>(
        &'a self,
        outer: O::Columns<'a>,
        len: usize,
    ) -> (O::Columns<'a>, M::Columns<'a>) {
        (outer, self.members.columns(len))
    }

    #[inline]
    fn path_columns_mut<'a, O: GroupRows<Key = K> + 'a>(
        &'a mut self,
        outer: O::ColumnsMut<'a>,
        len: usize,
    ) -> (O::ColumnsMut<'a>, M::ColumnsMut<'a>) {
        (outer, self.members.columns_mut(len))
    }

    #[inline]
    fn path_rows<'a, O: GroupRows<Key = K> + 'a>(
        &'a self,
        outer: O::Rows<'a>,
        len: usize,
    ) -> Aligned<(O::Rows<'a>, M::Rows<'a>)> {
        Aligned::new((outer, self.members.rows(len)))
    }

    #[inline]
    fn path_rows_mut<'a, O: GroupRows<Key = K> + 'a>(
        &'a mut self,
        outer: O::RowsMut<'a>,
        len: usize,
    ) -> Aligned<(O::RowsMut<'a>, M::RowsMut<'a>)> {
        Aligned::new((outer, self.members.rows_mut(len)))
    }

    #[inline]
    fn refresh_level<O: SwapRows>(&mut self, outer: &mut O, key: K, position: usize) {
        self.refresh(outer, key, position);
    }

    #[inline]
    fn leave_level<O: SwapRows>(&mut self, outer: &mut O, position: usize) -> usize {
        self.leave_at(outer, position)
    }
}

/// Level `D + 1` of a level is level `D` of the level inside it, reached through this level's
/// prefix, with this level's members beside the outer ones.
macro_rules! deeper_level {
    ($($depth:literal from $inner:literal),+) => {$(
        impl<K, M, X, N> Level<K, $depth> for Nested<M, X, N>
        where
            K: Copy,
            M: GroupMembers<Key = K>,
            X: GroupExcludedMut<K>,
            N: Nest<K> + Level<K, $inner>,
        {
            type Members = <N as Level<K, $inner>>::Members;
            type Excluded = <N as Level<K, $inner>>::Excluded;

            #[inline]
            fn level_members(&self) -> &Self::Members {
                self.inner.level_members()
            }

            #[inline]
            fn level_members_mut(&mut self) -> &mut Self::Members {
                self.inner.level_members_mut()
            }

            #[inline]
            fn level_excluded(&self) -> &Self::Excluded {
                self.inner.level_excluded()
            }

            #[inline]
            fn level_excluded_mut(&mut self) -> &mut Self::Excluded {
                self.inner.level_excluded_mut()
            }

            #[inline]
            fn level_len(&self) -> usize {
                self.inner.level_len()
            }

            type Inner = <N as Level<K, $inner>>::Inner;

            #[inline]
            fn swap_path<O: SwapRows>(&mut self, outer: &mut O, a: usize, b: usize) {
                self.inner.swap_path(&mut Chain(outer, &mut self.members), a, b);
            }

            type Path<O: GroupRows<Key = K>> = <N as Level<K, $inner>>::Path<Both<O, M>>;

            #[inline]
            fn path_views<'a, O: GroupRows<Key = K> + 'a>(
                &'a self,
                outer: O::Refs<'a>,
                index: usize,
            ) -> Option<<Self::Path<O> as GroupRows>::Refs<'a>> {
                let outer = (outer, self.members.views(index)?);
                self.inner.path_views::<Both<O, M>>(outer, index)
            }

            #[inline]
            fn path_views_mut<'a, O: GroupRows<Key = K> + 'a>(
                &'a mut self,
                outer: O::Muts<'a>,
                index: usize,
            ) -> Option<<Self::Path<O> as GroupRows>::Muts<'a>> {
                let outer = (outer, self.members.views_mut(index)?);
                self.inner.path_views_mut::<Both<O, M>>(outer, index)
            }

            #[inline]
            fn path_columns<'a, O: GroupRows<Key = K> + 'a>(
                &'a self,
                outer: O::Columns<'a>,
                len: usize,
            ) -> <Self::Path<O> as GroupRows>::Columns<'a> {
                let outer = (outer, self.members.columns(len));
                self.inner.path_columns::<Both<O, M>>(outer, len)
            }

            #[inline]
            fn path_columns_mut<'a, O: GroupRows<Key = K> + 'a>(
                &'a mut self,
                outer: O::ColumnsMut<'a>,
                len: usize,
            ) -> <Self::Path<O> as GroupRows>::ColumnsMut<'a> {
                let outer = (outer, self.members.columns_mut(len));
                self.inner.path_columns_mut::<Both<O, M>>(outer, len)
            }

            #[inline]
            fn path_rows<'a, O: GroupRows<Key = K> + 'a>(
                &'a self,
                outer: O::Rows<'a>,
                len: usize,
            ) -> <Self::Path<O> as GroupRows>::Rows<'a> {
                let outer = Aligned::new((outer, self.members.rows(len)));
                self.inner.path_rows::<Both<O, M>>(outer, len)
            }

            #[inline]
            fn path_rows_mut<'a, O: GroupRows<Key = K> + 'a>(
                &'a mut self,
                outer: O::RowsMut<'a>,
                len: usize,
            ) -> <Self::Path<O> as GroupRows>::RowsMut<'a> {
                let outer = Aligned::new((outer, self.members.rows_mut(len)));
                self.inner.path_rows_mut::<Both<O, M>>(outer, len)
            }

            #[inline]
            fn refresh_level<O: SwapRows>(&mut self, outer: &mut O, key: K, position: usize) {
                // Outside this level's prefix, `key` is outside every prefix inside it.
                if position < self.len {
                    let outer = &mut Chain(outer, &mut self.members);
                    self.inner.refresh_level(outer, key, position);
                }
            }

            #[inline]
            fn leave_level<O: SwapRows>(&mut self, outer: &mut O, position: usize) -> usize {
                self.inner.leave_level(&mut Chain(outer, &mut self.members), position)
            }
        }
    )+};
}

deeper_level!(2 from 1, 3 from 2, 4 from 3, 5 from 4, 6 from 5, 7 from 6);

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    Group<M, X, N, O>
{
    /// A handle to member `I` of level `D` of the family (level 1 is the nested level, level 2
    /// the one inside it) that changes its values freely and its keys only through the family.
    /// See [`LevelMemberMut`].
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    /// let mut family = Group::new((set(&[1, 2, 3]),))
    ///     .nest(Nested::new((set(&[1, 2]),)).nest(Nested::new((SparseMap::<u32, char>::new(),))));
    /// family.level_member_mut::<2, 0>().insert(2, 'b');
    /// family.level_member_mut::<2, 0>().insert(3, 'c'); // 3 is not in level 1: not in level 2
    /// assert_eq!(family.nested().nested().keys(), &[2]);
    /// family.assert_invariants();
    /// ```
    #[inline]
    pub fn level_member_mut<const D: usize, const I: usize>(
        &mut self,
    ) -> LevelMemberMut<'_, M, X, N, D, I, O>
    where
        N: Level<M::Key, D, Members: Nth<I, Storage: Columnar<Key = M::Key>>>,
    {
        LevelMemberMut { group: self }
    }

    /// A handle to excluded storage `I` of level `D` of the family whose `insert` and `remove`
    /// keep the family aligned. See [`LevelExcludedMut`].
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    /// let inner = Nested::with_excluded((set(&[1, 2]),), (SparseSet::<u32>::new(),));
    /// let mut family = Group::new((set(&[1, 2]),)).nest(Nested::new((set(&[1, 2]),)).nest(inner));
    /// family.level_excluded_mut::<2, 0>().insert(1, ());
    /// assert_eq!(family.nested().nested().keys(), &[2]);
    /// assert_eq!(family.nested().len(), 2); // level 1 keeps it
    /// ```
    #[inline]
    pub fn level_excluded_mut<const D: usize, const I: usize>(
        &mut self,
    ) -> LevelExcludedMut<'_, M, X, N, D, I, O>
    where
        N: Level<M::Key, D, Excluded: Nth<I, Storage: Storage<Key = M::Key>>>,
    {
        LevelExcludedMut { group: self }
    }

    /// Level `D`'s values, mutably (level 1 is the nested level, as
    /// [`nested_mut`](Group::nested_mut) gives it): a [`LevelMut`] with `get_mut`, `iter_mut`,
    /// `columns_mut`, `rows_mut`, and a place in a query as a mutable member. Its rows are
    /// every level's members from the group's inward (`(((a,), (b,)), (c,))` for level 2).
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let map = |rows: &[(u32, i32)]| rows.iter().copied().collect::<SparseMap<u32, i32>>();
    /// let level = Nested::new((map(&[(1, 1), (2, 2)]),)).nest(Nested::new((map(&[(1, 100)]),)));
    /// let mut family = Group::new((map(&[(1, 0), (2, 0)]),)).nest(level);
    /// if let Some((((a,), (b,)), (c,))) = family.level_mut::<2>().get_mut(1) {
    ///     *a = *b + *c;
    /// }
    /// assert_eq!(family.members().0[1], 101);
    /// ```
    #[inline]
    pub fn level_mut<const D: usize>(&mut self) -> LevelMut<'_, M, X, N, D, O>
    where
        N: Level<M::Key, D>,
    {
        LevelMut { family: self }
    }

    /// After a change to level `D`'s storages alone: `key` joins or leaves its prefix (and
    /// those inside it) as it now qualifies. One lookup finds it in the group's prefix
    /// (outside it, it is in no level's), then each level's own storages are looked up.
    pub(super) fn refresh_level<const D: usize>(&mut self, key: M::Key)
    where
        N: Level<M::Key, D>,
    {
        if let Some(position) = self.get_index_of(key) {
            let outer = &mut Reporting(&mut self.members, &mut self.observer);
            self.nested.refresh_level(outer, key, position);
        }
    }

    /// After member `I` of level `D` replaced the value of `key`'s slot in place: if that slot
    /// sits in the level's prefix and the other members hold another key there (an older
    /// version of `key`), the row leaves the level's prefix.
    #[cold]
    pub(super) fn realign_level<const D: usize, const I: usize>(&mut self, key: M::Key)
    where
        N: Level<M::Key, D, Members: Nth<I, Storage: Columnar<Key = M::Key>>>,
    {
        let Some(position) = self.nested.level_members().nth().get_index_of(key) else { return };
        // Every other storage of the row is unchanged and aligned: the group's first member
        // speaks for them.
        if position < self.nested.level_len() && self.members.first_keys()[position] != key {
            self.nested
                .leave_level(&mut Reporting(&mut self.members, &mut self.observer), position);
        }
    }
}

/// The handles of a family's nested level (level 1), by the names that say "nested".
impl<M, X, M2, X2, N3, O> Group<M, X, Nested<M2, X2, N3>, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key>,
    N3: Nest<M::Key>,
{
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
    pub fn nested_member_mut<const I: usize>(
        &mut self,
    ) -> NestedMemberMut<'_, M, X, M2, X2, I, N3, O>
    where
        M2: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        self.level_member_mut::<1, I>()
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
    pub fn nested_excluded_mut<const I: usize>(
        &mut self,
    ) -> NestedExcludedMut<'_, M, X, M2, X2, I, N3, O>
    where
        X2: Nth<I, Storage: Storage<Key = M::Key>>,
    {
        self.level_excluded_mut::<1, I>()
    }
}

/// A mutable handle to member `I` of level `D` of a group's family (level 1 is the nested
/// level, level 2 the one inside it), from [`Group::level_member_mut`] or
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
pub struct LevelMemberMut<'g, M, X, N, const D: usize, const I: usize, O = ()> {
    pub(super) group: &'g mut Group<M, X, N, O>,
}

/// The handle to member `I` of a group's nested level (level 1 of its family).
pub type NestedMemberMut<'g, M, X, M2, X2, const I: usize, N3 = (), O = ()> =
    LevelMemberMut<'g, M, X, Nested<M2, X2, N3>, 1, I, O>;

impl<M, X, N, const D: usize, const I: usize, O> Deref for LevelMemberMut<'_, M, X, N, D, I, O>
where
    M: GroupRows,
    O: Observer<M::Key, ()>,
    N: Level<M::Key, D, Members: Nth<I>>,
{
    type Target = MemberOf<N, M::Key, D, I>;

    #[inline]
    fn deref(&self) -> &MemberOf<N, M::Key, D, I> {
        self.group.nested.level_members().nth()
    }
}

impl<M, X, N, const D: usize, const I: usize, O> LevelMemberMut<'_, M, X, N, D, I, O>
where
    M: GroupRows,
    O: Observer<M::Key, ()>,
    N: Level<M::Key, D, Members: Nth<I, Storage: Observed>>,
{
    /// This storage's observer, mutably: to drain or clear what it collected. The rows, and so
    /// the family, are untouched.
    ///
    /// Computes in **O(1)** time.
    #[inline]
    pub fn observer_mut(&mut self) -> &mut <MemberOf<N, M::Key, D, I> as Observed>::Observer {
        self.group.nested.level_members_mut().nth_mut().observer_mut()
    }
}

impl<M, X, N, const D: usize, const I: usize, O> LevelMemberMut<'_, M, X, N, D, I, O>
where
    M: GroupRows,
    O: Observer<M::Key, ()>,
    N: Level<M::Key, D, Members: Nth<I, Storage: TrackedStorage>>,
{
    /// This storage's change ticks, mutably: to advance its clock. The rows, and so the
    /// family, are untouched.
    ///
    /// Computes in **O(1)** time.
    #[inline]
    pub fn ticks_mut(&mut self) -> &mut <MemberOf<N, M::Key, D, I> as TrackedStorage>::Ticks {
        self.group.nested.level_members_mut().nth_mut().ticks_mut()
    }
}

impl<M, X, N, const D: usize, const I: usize, O> LevelMemberMut<'_, M, X, N, D, I, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key> + Level<M::Key, D, Members: Nth<I, Storage: Columnar<Key = M::Key>>>,
{
    fn storage_mut(&mut self) -> &mut MemberOf<N, M::Key, D, I> {
        self.group.nested.level_members_mut().nth_mut()
    }

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
        value: MemberValue<N, M::Key, D, I>,
    ) -> Option<MemberValue<N, M::Key, D, I>> {
        match self.try_insert(key, value) {
            Ok(value) => value,
            Err(error) => fail_insert::<MemberOf<N, M::Key, D, I>, _>(key, error),
        }
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
        value: MemberValue<N, M::Key, D, I>,
    ) -> Result<Option<MemberValue<N, M::Key, D, I>>, Error> {
        // The member refuses an older version before it changes. A newer version replacing an
        // aligned older one in place leaves a row whose keys differ: it leaves the nested
        // prefix. Then `key` joins if it now qualifies. Nothing in between runs the caller's
        // code, so nothing can unwind there, unless a storage reports to an observer.
        if M::OBSERVES || N::OBSERVES {
            // The member's hook runs after its insert and may panic: the prefixes are
            // repaired all the same, while unwinding.
            let mut state = (&mut *self.group, None);
            then(
                &mut state,
                |(group, put)| *put = Some(group.put_level_member::<D, I>(key, value)),
                |(group, put)| {
                    if put.is_none() {
                        group.realign_level::<D, I>(key);
                    }
                    group.refresh_level::<D>(key);
                },
            );
            return state.1.unwrap_or(Ok(None));
        }
        let replaced = self.group.put_level_member::<D, I>(key, value)?;
        self.group.refresh_level::<D>(key);
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
    pub fn remove(&mut self, key: M::Key) -> Option<MemberValue<N, M::Key, D, I>> {
        if M::OBSERVES || N::OBSERVES {
            // A hook may panic while the row leaves the prefix or this member: the row leaves
            // both all the same, while unwinding.
            let mut state = (&mut *self.group, None);
            then(
                &mut state,
                |(group, removed)| *removed = Some(Self::remove_from(group, key)),
                |(group, removed)| {
                    if removed.is_none() {
                        drop(Self::remove_from(group, key));
                    }
                },
            );
            return state.1.flatten();
        }
        Self::remove_from(self.group, key)
    }

    /// [`remove`](Self::remove) on `group`.
    #[inline]
    fn remove_from(
        group: &mut Group<M, X, N, O>,
        key: M::Key,
    ) -> Option<MemberValue<N, M::Key, D, I>> {
        let mut position = group.nested.level_members().nth().get_index_of(key)?;
        if position < group.nested.level_len() {
            // In the level's prefix: at `position` in every member of it and of the levels
            // around it. Out of the prefix first (to its end, and out of the levels inside
            // it); the levels around it keep it.
            let outer = &mut Reporting(&mut group.members, &mut group.observer);
            position = group.nested.leave_level(outer, position);
        }
        group
            .nested
            .level_members_mut()
            .nth_mut()
            .swap_remove_index(position)
            .map(|(_, value)| value)
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
    pub fn get_mut(&mut self, key: M::Key) -> Option<MemberMut<'_, N, M::Key, D, I>> {
        Storage::get_mut(self.storage_mut(), key)
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
    pub fn get_index_mut(&mut self, index: usize) -> Option<KeyedMut<'_, M, N, D, I>> {
        Storage::get_index_mut(self.storage_mut(), index)
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
    pub fn columns_mut(&mut self) -> <MemberOf<N, M::Key, D, I> as Columnar>::ColumnsMut<'_> {
        Columnar::columns_mut(self.storage_mut())
    }
}

/// A mutable handle to excluded storage `I` of level `D` of a group's family, from
/// [`Group::level_excluded_mut`] or [`Group::nested_excluded_mut`]: `insert` and `remove` keep
/// the family aligned. It dereferences to the storage (`&S`).
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
pub struct LevelExcludedMut<'g, M, X, N, const D: usize, const I: usize, O = ()> {
    pub(super) group: &'g mut Group<M, X, N, O>,
}

/// The handle to excluded storage `I` of a group's nested level (level 1 of its family).
pub type NestedExcludedMut<'g, M, X, M2, X2, const I: usize, N3 = (), O = ()> =
    LevelExcludedMut<'g, M, X, Nested<M2, X2, N3>, 1, I, O>;

impl<M, X, N, const D: usize, const I: usize, O> Deref for LevelExcludedMut<'_, M, X, N, D, I, O>
where
    M: GroupRows,
    O: Observer<M::Key, ()>,
    N: Level<M::Key, D, Excluded: Nth<I>>,
{
    type Target = ExcludedOf<N, M::Key, D, I>;

    #[inline]
    fn deref(&self) -> &ExcludedOf<N, M::Key, D, I> {
        self.group.nested.level_excluded().nth()
    }
}

impl<M, X, N, const D: usize, const I: usize, O> LevelExcludedMut<'_, M, X, N, D, I, O>
where
    M: GroupRows,
    O: Observer<M::Key, ()>,
    N: Level<M::Key, D, Excluded: Nth<I, Storage: Observed>>,
{
    /// This storage's observer, mutably: to drain or clear what it collected. The rows, and so
    /// the family, are untouched.
    ///
    /// Computes in **O(1)** time.
    #[inline]
    pub fn observer_mut(&mut self) -> &mut <ExcludedOf<N, M::Key, D, I> as Observed>::Observer {
        self.group.nested.level_excluded_mut().nth_mut().observer_mut()
    }
}

impl<M, X, N, const D: usize, const I: usize, O> LevelExcludedMut<'_, M, X, N, D, I, O>
where
    M: GroupRows,
    O: Observer<M::Key, ()>,
    N: Level<M::Key, D, Excluded: Nth<I, Storage: TrackedStorage>>,
{
    /// This storage's change ticks, mutably: to advance its clock. The rows, and so the
    /// family, are untouched.
    ///
    /// Computes in **O(1)** time.
    #[inline]
    pub fn ticks_mut(&mut self) -> &mut <ExcludedOf<N, M::Key, D, I> as TrackedStorage>::Ticks {
        self.group.nested.level_excluded_mut().nth_mut().ticks_mut()
    }
}

impl<M, X, N, const D: usize, const I: usize, O> LevelExcludedMut<'_, M, X, N, D, I, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key> + Level<M::Key, D, Excluded: Nth<I, Storage: Storage<Key = M::Key>>>,
{
    fn storage_mut(&mut self) -> &mut ExcludedOf<N, M::Key, D, I> {
        self.group.nested.level_excluded_mut().nth_mut()
    }

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
        value: ExcludedValue<N, M::Key, D, I>,
    ) -> Option<ExcludedValue<N, M::Key, D, I>> {
        match self.try_insert(key, value) {
            Ok(value) => value,
            Err(error) => fail_insert::<ExcludedOf<N, M::Key, D, I>, _>(key, error),
        }
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
        value: ExcludedValue<N, M::Key, D, I>,
    ) -> Result<Option<ExcludedValue<N, M::Key, D, I>>, Error> {
        // The insert runs none of the caller's code (the value it replaces is returned), so the
        // repair follows it directly: an older version it displaced may join, `key` leaves.
        if M::OBSERVES || N::OBSERVES {
            // A member's hook may panic in the repair's moves: they finish while unwinding.
            let mut state = (&mut *self.group, None);
            then(
                &mut state,
                |(group, put)| *put = Some(group.put_level_excluded::<D, I>(key, value)),
                |(group, _)| group.refresh_level::<D>(key),
            );
            return state.1.unwrap_or(Ok(None));
        }
        let replaced = self.group.put_level_excluded::<D, I>(key, value)?;
        self.group.refresh_level::<D>(key);
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
    pub fn remove(&mut self, key: M::Key) -> Option<ExcludedValue<N, M::Key, D, I>> {
        if M::OBSERVES || N::OBSERVES {
            // A member's hook may panic in the repair's moves: they finish while unwinding.
            let mut state = (&mut *self.group, None);
            then(
                &mut state,
                |(group, removed)| {
                    *removed = group.nested.level_excluded_mut().nth_mut().remove(key);
                },
                |(group, _)| group.refresh_level::<D>(key),
            );
            return state.1;
        }
        let removed = self.storage_mut().remove(key);
        self.group.refresh_level::<D>(key);
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
    pub fn get_mut(
        &mut self,
        key: M::Key,
    ) -> Option<<ExcludedOf<N, M::Key, D, I> as Storage>::Mut<'_>> {
        Storage::get_mut(self.storage_mut(), key)
    }
}
