//! [`LevelMut`] ([`NestedMut`] for level 1): a level's values, mutably, as iterators, columns,
//! lookups and a mutable member of a query. Its rows are the group's members' views followed by
//! each level's own down to it, typed as [`Both`] of the owned member tuples
//! ([`Level::Path`]), so that the view's row types do not depend on how long the view is
//! borrowed.

#[cfg(doc)]
use crate::group::both::Both;
use crate::group::{
    Group, GroupExcluded, GroupFetchMut, GroupMembers, GroupRows, Level, Nest, Nested,
};
use crate::observe::Observer;
use crate::query::member::past_rows;
use crate::query::{ExactMember, Member, MemberLookup, MemberView, rows_at};
use crate::rows::Rows;

/// The rows of level `D` inside `N`: the group's members' views, then each level's own.
type PathOf<N, M, const D: usize> = <N as Level<<M as GroupRows>::Key, D>>::Path<M>;

/// Level `D` of a [`Group`]'s family (level 1 is the nested level), its values borrowed
/// mutably: from [`Group::level_mut`] or [`Group::nested_mut`]. Its keys and their order
/// change only through the family.
///
/// ```
/// use sparse_set_core::group::Nested;
/// use sparse_set_core::{Group, SparseMap};
///
/// let a: SparseMap<u32, i32> = [(1, 1), (2, 2)].into_iter().collect();
/// let b: SparseMap<u32, i32> = [(2, 20)].into_iter().collect();
/// let mut family = Group::new((a,)).nest(Nested::new((b,)));
/// let mut nested = family.nested_mut();
/// assert_eq!(nested.keys(), &[2]);
/// if let Some(((a,), (b,))) = nested.get_mut(2) {
///     *a += *b;
/// }
/// assert_eq!(family.members().0[2], 22);
/// ```
///
/// A level deeper in, with the rows of every level around it:
///
/// ```
/// use sparse_set_core::group::Nested;
/// use sparse_set_core::{Group, SparseMap, query};
///
/// let map = |rows: &[(u32, i32)]| rows.iter().copied().collect::<SparseMap<u32, i32>>();
/// let level = Nested::new((map(&[(1, 10), (2, 20)]),)).nest(Nested::new((map(&[(2, 5)]),)));
/// let mut family = Group::new((map(&[(1, 0), (2, 0), (3, 0)]),)).nest(level);
/// let mut innermost = family.level_mut::<2>();
/// for (_, (((a,), (b,)), (c,))) in innermost.iter_mut() {
///     *a = *b + *c;
/// }
/// query((&mut innermost,)).for_each(|_, ((_, (c,)),)| *c = 0);
/// assert_eq!(family.members().0[2], 25);
/// assert_eq!(family.nested().nested().get(2), Some((((&25,), (&20,)), (&0,))));
/// ```
pub struct LevelMut<'g, M, X, N, const D: usize, O = ()> {
    pub(super) family: &'g mut Group<M, X, N, O>,
}

/// The nested level of a [`Group`] (level 1 of its family), its values borrowed mutably.
pub type NestedMut<'g, M, X, M2, X2, N3 = (), O = ()> =
    LevelMut<'g, M, X, Nested<M2, X2, N3>, 1, O>;

impl<M, X, N, const D: usize, O> LevelMut<'_, M, X, N, D, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key> + Level<M::Key, D>,
{
    /// The number of keys in the nested prefix.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// assert_eq!(nested.len(), 2);
    /// ```
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.family.nested_level().level_len()
    }

    /// Whether the nested prefix is empty.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// assert!(!nested.is_empty());
    /// ```
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The keys of the nested prefix, in the order every member of both levels holds them.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// let mut keys = nested.keys().to_vec();
    /// keys.sort_unstable();
    /// assert_eq!(keys, [1, 3]);
    /// ```
    #[inline]
    #[must_use]
    pub fn keys(&self) -> &[M::Key] {
        &self.family.keys()[..self.len()]
    }

    /// The position of `key` in the nested prefix (the same in every member of both levels).
    ///
    /// Computes in **O(1)** time: one lookup.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// assert!(nested.get_index_of(3).is_some_and(|position| position < 2));
    /// assert_eq!(nested.get_index_of(2), None); // in the group's prefix, not the nested one
    /// ```
    #[inline]
    #[must_use]
    pub fn get_index_of(&self, key: M::Key) -> Option<usize> {
        self.family.get_index_of(key).filter(|&position| position < self.len())
    }

    /// Whether `key` is in the nested prefix.
    ///
    /// Computes in **O(1)** time: one lookup.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// assert!(nested.contains(1) && !nested.contains(2));
    /// ```
    #[inline]
    #[must_use]
    pub fn contains(&self, key: M::Key) -> bool {
        self.get_index_of(key).is_some()
    }

    /// The views of `key`'s row, if it is in the nested prefix.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// assert_eq!(nested.get(3), Some(((&3,), (&30,))));
    /// ```
    #[inline]
    #[must_use]
    pub fn get(&self, key: M::Key) -> Option<<PathOf<N, M, D> as GroupRows>::Refs<'_>> {
        let position = self.get_index_of(key)?;
        let family = &*self.family;
        family.nested.path_views::<M>(family.members.views(position)?, position)
    }

    /// The mutable views of `key`'s row, if it is in the nested prefix.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// if let Some(((a,), (b,))) = nested.get_mut(1) {
    ///     *a += *b;
    /// }
    /// assert_eq!(family.members().0[1], 11);
    /// ```
    #[inline]
    pub fn get_mut(&mut self, key: M::Key) -> Option<<PathOf<N, M, D> as GroupRows>::Muts<'_>> {
        let position = self.get_index_of(key)?;
        let family = &mut *self.family;
        family.nested.path_views_mut::<M>(family.members.views_mut(position)?, position)
    }

    /// Every column of both levels' members over the nested prefix.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// let ((a,), (b,)) = nested.columns();
    /// assert_eq!((a.values.len(), b.values.len()), (2, 2));
    /// assert_eq!(a.keys, b.keys);
    /// ```
    #[inline]
    #[must_use]
    pub fn columns(&self) -> <PathOf<N, M, D> as GroupRows>::Columns<'_> {
        let len = self.len();
        let family = &*self.family;
        family.nested.path_columns::<M>(family.members.columns(len), len)
    }

    /// Every column of both levels' members over the nested prefix, mutably (the keys
    /// read-only).
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// let ((a,), (b,)) = nested.columns_mut();
    /// for (a, b) in a.values.iter_mut().zip(b.values.iter()) {
    ///     *a = *b;
    /// }
    /// assert_eq!((family.members().0[1], family.members().0[3]), (10, 30));
    /// ```
    #[inline]
    pub fn columns_mut(&mut self) -> <PathOf<N, M, D> as GroupRows>::ColumnsMut<'_> {
        let len = self.len();
        let family = &mut *self.family;
        family.nested.path_columns_mut::<M>(family.members.columns_mut(len), len)
    }

    /// The nested prefix as [`Rows`].
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// use sparse_set_core::Rows;
    /// assert_eq!(nested.rows().len(), 2);
    /// ```
    #[inline]
    #[must_use]
    pub fn rows(&self) -> <PathOf<N, M, D> as GroupRows>::Rows<'_> {
        let len = self.len();
        let family = &*self.family;
        family.nested.path_rows::<M>(family.members.rows(len), len)
    }

    /// The nested prefix as mutable [`Rows`].
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// use sparse_set_core::Rows;
    /// for (_, ((a,), _)) in nested.rows_mut().into_rows() {
    ///     *a = 0;
    /// }
    /// assert_eq!(family.members().0[2], 2); // outside the nested prefix
    /// ```
    #[inline]
    pub fn rows_mut(&mut self) -> <PathOf<N, M, D> as GroupRows>::RowsMut<'_> {
        let len = self.len();
        let family = &mut *self.family;
        family.nested.path_rows_mut::<M>(family.members.rows_mut(len), len)
    }

    /// Iterates over the nested prefix's keys with the views of both levels' members.
    ///
    /// Computes in **O(1)** time per step, with no lookups.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// let sum: i32 = nested.iter().map(|(_, ((a,), (b,)))| a + b).sum();
    /// assert_eq!(sum, 44);
    /// ```
    #[inline]
    pub fn iter(&self) -> <<PathOf<N, M, D> as GroupRows>::Rows<'_> as Rows>::Iter {
        self.rows().into_rows()
    }

    /// Iterates over the nested prefix's keys with the mutable views of both levels' members.
    ///
    /// Computes in **O(1)** time per step, with no lookups.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 1), (2, 2), (3, 3)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(3, 30), (1, 10)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// let mut nested = family.nested_mut();
    /// for (_, (_, (b,))) in nested.iter_mut() {
    ///     *b = -*b;
    /// }
    /// assert_eq!(family.nested().members().inner().0[3], -30);
    /// ```
    #[inline]
    pub fn iter_mut(&mut self) -> <<PathOf<N, M, D> as GroupRows>::RowsMut<'_> as Rows>::Iter {
        self.rows_mut().into_rows()
    }
}

/// A level as a mutable member of a query: its prefix drives (or is probed, one lookup), and
/// its view is every member's of every level down to it.
impl<'a, 'g, M, X, N, const D: usize, O> Member for &'a mut LevelMut<'g, M, X, N, D, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key> + Level<M::Key, D>,
{
    type Key = M::Key;
    type Fetch = GroupFetchMut<'a, PathOf<N, M, D>>;
    type Reborrow<'q>
        = &'q mut LevelMut<'g, M, X, N, D, O>
    where
        Self: 'q;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        LevelMut::len(self)
    }

    #[inline]
    fn into_fetch(self) -> GroupFetchMut<'a, PathOf<N, M, D>> {
        let len = self.len();
        let family = &mut *self.family;
        let (index, outer) = family.members.index_and_rows_mut(len);
        GroupFetchMut::new(index, family.nested.path_rows_mut::<M>(outer, len))
    }

    #[inline]
    fn reborrow(&mut self) -> &mut LevelMut<'g, M, X, N, D, O> {
        self
    }

    #[inline]
    fn address(&self) -> *const () {
        core::ptr::from_ref::<Group<M, X, N, O>>(self.family).cast()
    }
}

/// A level's prefix drives over its whole length: a one-member query of it knows its length.
impl<M, X, N, const D: usize, O> ExactMember for &mut LevelMut<'_, M, X, N, D, O> {}

impl<M, X, N, const D: usize, O> MemberLookup for &mut LevelMut<'_, M, X, N, D, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key> + Level<M::Key, D>,
{
    type Slot = usize;
    type Read<'r>
        = <PathOf<N, M, D> as GroupRows>::Refs<'r>
    where
        Self: 'r;

    #[inline]
    fn slot_of(&self, key: M::Key) -> Option<usize> {
        self.get_index_of(key)
    }

    #[inline]
    fn read_at(&self, slot: usize) -> <PathOf<N, M, D> as GroupRows>::Refs<'_> {
        let family = &*self.family;
        let row =
            family.members.views(slot).and_then(|outer| family.nested.path_views::<M>(outer, slot));
        row.unwrap_or_else(|| past_rows(slot))
    }
}

impl<'v, M, X, L, const D: usize> MemberView<'v> for &mut LevelMut<'_, M, X, L, D>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    L: Nest<M::Key> + Level<M::Key, D>,
{
    type View = <PathOf<L, M, D> as GroupRows>::Muts<'v>;

    #[inline]
    fn view_at(&'v mut self, slot: usize) -> Self::View {
        let family = &mut *self.family;
        let row = match family.members.views_mut(slot) {
            Some(outer) => family.nested.path_views_mut::<M>(outer, slot),
            None => None,
        };
        row.unwrap_or_else(|| past_rows(slot))
    }

    #[inline]
    fn views_at<const N: usize>(
        &'v mut self,
        slots: [Option<usize>; N],
    ) -> [Option<Self::View>; N] {
        rows_at(self.rows_mut(), slots)
    }
}

impl<'a, M, X, N, const D: usize, O> IntoIterator for &'a LevelMut<'_, M, X, N, D, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key> + Level<M::Key, D>,
{
    type Item = (M::Key, <PathOf<N, M, D> as GroupRows>::Refs<'a>);
    type IntoIter = <<PathOf<N, M, D> as GroupRows>::Rows<'a> as Rows>::Iter;

    /// Iterates over the level's prefix with every member's view: [`LevelMut::iter`].
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, M, X, N, const D: usize, O> IntoIterator for &'a mut LevelMut<'_, M, X, N, D, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key> + Level<M::Key, D>,
{
    type Item = (M::Key, <PathOf<N, M, D> as GroupRows>::Muts<'a>);
    type IntoIter = <<PathOf<N, M, D> as GroupRows>::RowsMut<'a> as Rows>::Iter;

    /// Iterates over the level's prefix with every member's mutable view:
    /// [`LevelMut::iter_mut`].
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}
