//! [`NestedMut`]: a nested level's values, mutably, as iterators, columns, lookups and a
//! mutable member of a query. Its rows are the group's members' views followed by the level's
//! own, read through [`Both`] of the owned member tuples, so that the view's row types do not
//! depend on how long the view is borrowed.

use crate::group::both::Both;
use crate::group::{
    Group, GroupExcluded, GroupExcludedMut, GroupFetchMut, GroupMembers, GroupRows, Nest, Nested,
};
use crate::query::member::past_rows;
use crate::query::{ExactMember, Member, MemberLookup, MemberView, rows_at};
use crate::rows::{Aligned, Rows};

/// The rows of a nested level: the group's members' views, then the level's own.
type Level<M, M2> = Both<M, M2>;

/// The nested level of a [`Group`], its values borrowed mutably: from
/// [`Group::nested_mut`]. Its keys and their order change only through the family.
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
pub struct NestedMut<'g, M, X, M2, X2, N3 = ()> {
    pub(super) family: &'g mut Group<M, X, Nested<M2, X2, N3>>,
}

impl<M, X, M2, X2, N3> NestedMut<'_, M, X, M2, X2, N3>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key>,
    N3: Nest<M::Key>,
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
        self.family.nested_len()
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
    /// assert!(nested.index_of(3).is_some_and(|position| position < 2));
    /// assert_eq!(nested.index_of(2), None); // in the group's prefix, not the nested one
    /// ```
    #[inline]
    #[must_use]
    pub fn index_of(&self, key: M::Key) -> Option<usize> {
        self.family.index_of(key).filter(|&position| position < self.len())
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
        self.index_of(key).is_some()
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
    pub fn get(&self, key: M::Key) -> Option<<Level<M, M2> as GroupRows>::Refs<'_>> {
        let position = self.index_of(key)?;
        Some((self.family.members.views(position)?, self.family.nested.members.views(position)?))
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
    pub fn get_mut(&mut self, key: M::Key) -> Option<<Level<M, M2> as GroupRows>::Muts<'_>> {
        let position = self.index_of(key)?;
        let family = &mut *self.family;
        Some((family.members.views_mut(position)?, family.nested.members.views_mut(position)?))
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
    pub fn columns(&self) -> <Level<M, M2> as GroupRows>::Columns<'_> {
        let len = self.len();
        (self.family.members.columns(len), self.family.nested.members.columns(len))
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
    pub fn columns_mut(&mut self) -> <Level<M, M2> as GroupRows>::ColumnsMut<'_> {
        let len = self.len();
        let family = &mut *self.family;
        (family.members.columns_mut(len), family.nested.members.columns_mut(len))
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
    pub fn rows(&self) -> <Level<M, M2> as GroupRows>::Rows<'_> {
        let len = self.len();
        Aligned::new((self.family.members.rows(len), self.family.nested.members.rows(len)))
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
    pub fn rows_mut(&mut self) -> <Level<M, M2> as GroupRows>::RowsMut<'_> {
        let len = self.len();
        let family = &mut *self.family;
        Aligned::new((family.members.rows_mut(len), family.nested.members.rows_mut(len)))
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
    pub fn iter(&self) -> <<Level<M, M2> as GroupRows>::Rows<'_> as Rows>::Iter {
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
    pub fn iter_mut(&mut self) -> <<Level<M, M2> as GroupRows>::RowsMut<'_> as Rows>::Iter {
        self.rows_mut().into_rows()
    }
}

/// The nested level as a mutable member of a query: its prefix drives (or is probed, one
/// lookup), and its view is every member's of both levels.
impl<'a, 'g, M, X, M2, X2, N3> Member for &'a mut NestedMut<'g, M, X, M2, X2, N3>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key>,
    N3: Nest<M::Key>,
{
    type Key = M::Key;
    type Fetch = GroupFetchMut<'a, Level<M, M2>>;
    type Reborrow<'q>
        = &'q mut NestedMut<'g, M, X, M2, X2, N3>
    where
        Self: 'q;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        NestedMut::len(self)
    }

    #[inline]
    fn into_fetch(self) -> GroupFetchMut<'a, Level<M, M2>> {
        let len = self.len();
        let family = &mut *self.family;
        let (index, outer) = family.members.index_and_rows_mut(len);
        let inner = family.nested.members.rows_mut(len);
        GroupFetchMut::new(index, Aligned::new((outer, inner)))
    }

    #[inline]
    fn reborrow(&mut self) -> &mut NestedMut<'g, M, X, M2, X2, N3> {
        self
    }

    #[inline]
    fn address(&self) -> *const () {
        core::ptr::from_ref::<Group<M, X, Nested<M2, X2, N3>>>(self.family).cast()
    }
}

/// The nested prefix drives over its whole length: a one-member query of it knows its length.
impl<M, X, M2, X2, N3> ExactMember for &mut NestedMut<'_, M, X, M2, X2, N3> {}

impl<M, X, M2, X2, N3> MemberLookup for &mut NestedMut<'_, M, X, M2, X2, N3>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key>,
    N3: Nest<M::Key>,
{
    type Slot = usize;
    type Read<'r>
        = <Level<M, M2> as GroupRows>::Refs<'r>
    where
        Self: 'r;

    #[inline]
    fn slot_of(&self, key: M::Key) -> Option<usize> {
        self.index_of(key)
    }

    #[inline]
    fn read_at(&self, slot: usize) -> <Level<M, M2> as GroupRows>::Refs<'_> {
        let family = &*self.family;
        match (family.members.views(slot), family.nested.members.views(slot)) {
            (Some(outer), Some(inner)) => (outer, inner),
            _ => past_rows(slot),
        }
    }
}

impl<'v, M, X, M2, X2, N3> MemberView<'v> for &mut NestedMut<'_, M, X, M2, X2, N3>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key>,
    N3: Nest<M::Key>,
{
    type View = <Level<M, M2> as GroupRows>::Muts<'v>;

    #[inline]
    fn view_at(&'v mut self, slot: usize) -> Self::View {
        let family = &mut *self.family;
        match (family.members.views_mut(slot), family.nested.members.views_mut(slot)) {
            (Some(outer), Some(inner)) => (outer, inner),
            _ => past_rows(slot),
        }
    }

    #[inline]
    fn views_at<const N: usize>(
        &'v mut self,
        slots: [Option<usize>; N],
    ) -> [Option<Self::View>; N] {
        rows_at(self.rows_mut(), slots)
    }
}
