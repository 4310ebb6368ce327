//! The storages of a nested group's level as one group's: [`Both`] puts the outer level's
//! members (or excluded storages) beside the level's own, so that the level is read by the
//! same code that reads any group (`check.rs`, `query.rs`, the iterators and lookups of
//! `mod.rs`), and shared tuples (`&M`) stand in for owned ones, so that a view of the level
//! borrows the storages instead of owning them.
//!
//! `Both` has no public fields, no `Nth` and moves no rows: only the group that owns the
//! family changes keys.

use crate::group::tuples::{GroupExcluded, GroupRows, KeySet};
use crate::rows::Aligned;
use crate::set::SparseSet;

/// Two tuples of storages side by side, read as one: the outer level's (`A`) first, then the
/// level's own (`B`). What a [nested](crate::group::Nested) level's view is made of.
#[derive(Clone, Copy, Debug)]
pub struct Both<A, B> {
    outer: A,
    inner: B,
}

impl<A, B> Both<A, B> {
    /// The outer level's storages beside the level's own.
    pub(super) fn new(outer: A, inner: B) -> Self {
        Both { outer, inner }
    }

    /// The outer level's storages.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [2].into_iter().collect();
    /// let family = Group::new((a,)).nest(Nested::new((b,)));
    /// let nested = family.nested();
    /// assert_eq!(nested.members().outer().0.len(), 2); // the group's members
    /// ```
    #[inline]
    #[must_use]
    pub fn outer(&self) -> &A {
        &self.outer
    }

    /// The level's own storages.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let a: SparseSet<u32> = [1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [2].into_iter().collect();
    /// let family = Group::new((a,)).nest(Nested::new((b,)));
    /// let nested = family.nested();
    /// assert_eq!(nested.members().inner().0.len(), 1); // the level's own
    /// ```
    #[inline]
    #[must_use]
    pub fn inner(&self) -> &B {
        &self.inner
    }
}

impl<A: GroupRows, B: GroupRows<Key = A::Key>> GroupRows for Both<A, B> {
    type Key = A::Key;
    type Positions = (A::Positions, B::Positions);
    type Refs<'a>
        = (A::Refs<'a>, B::Refs<'a>)
    where
        Self: 'a;
    type Muts<'a>
        = (A::Muts<'a>, B::Muts<'a>)
    where
        Self: 'a;
    type Columns<'a>
        = (A::Columns<'a>, B::Columns<'a>)
    where
        Self: 'a;
    type ColumnsMut<'a>
        = (A::ColumnsMut<'a>, B::ColumnsMut<'a>)
    where
        Self: 'a;
    type Rows<'a>
        = Aligned<(A::Rows<'a>, B::Rows<'a>)>
    where
        Self: 'a;
    type RowsMut<'a>
        = Aligned<(A::RowsMut<'a>, B::RowsMut<'a>)>
    where
        Self: 'a;
    type FirstDense = A::FirstDense;

    #[inline]
    fn count(&self) -> usize {
        self.outer.count() + self.inner.count()
    }

    #[inline]
    fn prefetch(&self, key: Self::Key) {
        self.outer.prefetch(key);
        self.inner.prefetch(key);
    }

    #[inline]
    fn part(&self, member: usize) -> Option<&dyn KeySet<A::Key>> {
        match member.checked_sub(self.outer.count()) {
            None => self.outer.part(member),
            Some(member) => self.inner.part(member),
        }
    }

    #[inline]
    fn smallest(&self) -> usize {
        let outer = self.outer.smallest();
        let inner = self.inner.smallest();
        if self.inner.member_keys(inner).len() < self.outer.member_keys(outer).len() {
            self.outer.count() + inner
        } else {
            outer
        }
    }

    #[inline]
    fn first_keys(&self) -> &[A::Key] {
        self.outer.first_keys()
    }

    #[inline]
    fn first_position(&self, key: A::Key) -> Option<usize> {
        self.outer.first_position(key)
    }

    #[inline]
    fn first(positions: Self::Positions) -> usize {
        A::first(positions.0)
    }

    #[inline]
    fn positions(&self, key: A::Key) -> Option<Self::Positions> {
        Some((self.outer.positions(key)?, self.inner.positions(key)?))
    }

    #[inline]
    fn last_positions(&self, key: A::Key) -> Option<Self::Positions> {
        Some((self.outer.last_positions(key)?, self.inner.last_positions(key)?))
    }

    #[inline]
    fn same_key_at(&self, index: usize) -> bool {
        self.outer.same_key_at(index)
            && self.inner.same_key_at(index)
            && self.outer.key_at(0, index) == self.inner.key_at(0, index)
    }

    #[inline]
    fn joinable(&self, positions: Self::Positions, len: usize) -> bool {
        self.outer.joinable(positions.0, len) && self.inner.joinable(positions.1, len)
    }

    #[inline]
    fn view(&self, index: usize) -> Self::Refs<'_> {
        (self.outer.view(index), self.inner.view(index))
    }

    #[inline]
    fn views(&self, index: usize) -> Option<Self::Refs<'_>> {
        Some((self.outer.views(index)?, self.inner.views(index)?))
    }

    #[inline]
    fn columns(&self, len: usize) -> Self::Columns<'_> {
        (self.outer.columns(len), self.inner.columns(len))
    }

    #[inline]
    fn rows(&self, len: usize) -> Self::Rows<'_> {
        Aligned::new((self.outer.rows(len), self.inner.rows(len)))
    }

    #[inline]
    fn index_and_rows(&self, len: usize) -> (&SparseSet<A::Key, A::FirstDense>, Self::Rows<'_>) {
        let (index, outer) = self.outer.index_and_rows(len);
        (index, Aligned::new((outer, self.inner.rows(len))))
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the view of one row, in a query's loop")]
    fn row_of<'a>(rows: &Self::Rows<'a>, index: usize) -> Option<Self::Refs<'a>>
    where
        Self: 'a,
    {
        let (outer, inner) = rows.parts();
        Some((A::row_of(outer, index)?, B::row_of(inner, index)?))
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the view of one row, in a query's loop")]
    fn row_of_mut<'v, 'a: 'v>(
        rows: &'v mut Self::RowsMut<'a>,
        index: usize,
    ) -> Option<Self::Muts<'v>>
    where
        Self: 'a,
    {
        let (outer, inner) = rows.parts_mut();
        Some((A::row_of_mut(outer, index)?, B::row_of_mut(inner, index)?))
    }

    fn assert_invariants(&self) {
        self.outer.assert_invariants();
        self.inner.assert_invariants();
    }
}

impl<K: Copy, A: GroupExcluded<K>, B: GroupExcluded<K>> GroupExcluded<K> for Both<A, B> {
    #[inline]
    fn count(&self) -> usize {
        self.outer.count() + self.inner.count()
    }

    #[inline]
    fn part(&self, storage: usize) -> Option<&dyn KeySet<K>> {
        match storage.checked_sub(self.outer.count()) {
            None => self.outer.part(storage),
            Some(storage) => self.inner.part(storage),
        }
    }

    #[inline]
    fn holds(&self, key: K) -> bool {
        self.outer.holds(key) || self.inner.holds(key)
    }

    #[inline]
    fn prefetch(&self, key: K) {
        self.outer.prefetch(key);
        self.inner.prefetch(key);
    }

    fn assert_invariants(&self) {
        self.outer.assert_invariants();
        self.inner.assert_invariants();
    }
}

/// A shared tuple reads as the tuple does: every method forwards.
impl<T: GroupRows> GroupRows for &T {
    type Key = T::Key;
    type Positions = T::Positions;
    type Refs<'a>
        = T::Refs<'a>
    where
        Self: 'a;
    type Muts<'a>
        = T::Muts<'a>
    where
        Self: 'a;
    type Columns<'a>
        = T::Columns<'a>
    where
        Self: 'a;
    type ColumnsMut<'a>
        = T::ColumnsMut<'a>
    where
        Self: 'a;
    type Rows<'a>
        = T::Rows<'a>
    where
        Self: 'a;
    type RowsMut<'a>
        = T::RowsMut<'a>
    where
        Self: 'a;
    type FirstDense = T::FirstDense;

    #[inline]
    fn count(&self) -> usize {
        (**self).count()
    }

    #[inline]
    fn prefetch(&self, key: Self::Key) {
        (**self).prefetch(key);
    }

    #[inline]
    fn part(&self, member: usize) -> Option<&dyn KeySet<T::Key>> {
        (**self).part(member)
    }

    #[inline]
    fn smallest(&self) -> usize {
        (**self).smallest()
    }

    #[inline]
    fn first_keys(&self) -> &[T::Key] {
        (**self).first_keys()
    }

    #[inline]
    fn first_position(&self, key: T::Key) -> Option<usize> {
        (**self).first_position(key)
    }

    #[inline]
    fn first(positions: T::Positions) -> usize {
        T::first(positions)
    }

    #[inline]
    fn positions(&self, key: T::Key) -> Option<T::Positions> {
        (**self).positions(key)
    }

    #[inline]
    fn last_positions(&self, key: T::Key) -> Option<T::Positions> {
        (**self).last_positions(key)
    }

    #[inline]
    fn same_key_at(&self, index: usize) -> bool {
        (**self).same_key_at(index)
    }

    #[inline]
    fn joinable(&self, positions: T::Positions, len: usize) -> bool {
        (**self).joinable(positions, len)
    }

    #[inline]
    fn view(&self, index: usize) -> T::Refs<'_> {
        (**self).view(index)
    }

    #[inline]
    fn views(&self, index: usize) -> Option<T::Refs<'_>> {
        (**self).views(index)
    }

    #[inline]
    fn columns(&self, len: usize) -> T::Columns<'_> {
        (**self).columns(len)
    }

    #[inline]
    fn rows(&self, len: usize) -> T::Rows<'_> {
        (**self).rows(len)
    }

    #[inline]
    fn index_and_rows(&self, len: usize) -> (&SparseSet<T::Key, T::FirstDense>, T::Rows<'_>) {
        (**self).index_and_rows(len)
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the view of one row, in a query's loop")]
    fn row_of<'a>(rows: &T::Rows<'a>, index: usize) -> Option<T::Refs<'a>>
    where
        Self: 'a,
    {
        T::row_of(rows, index)
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the view of one row, in a query's loop")]
    fn row_of_mut<'v, 'a: 'v>(rows: &'v mut T::RowsMut<'a>, index: usize) -> Option<T::Muts<'v>>
    where
        Self: 'a,
    {
        T::row_of_mut(rows, index)
    }

    fn assert_invariants(&self) {
        (**self).assert_invariants();
    }
}

impl<K, T: GroupExcluded<K>> GroupExcluded<K> for &T {
    #[inline]
    fn count(&self) -> usize {
        (**self).count()
    }

    #[inline]
    fn part(&self, storage: usize) -> Option<&dyn KeySet<K>> {
        (**self).part(storage)
    }

    #[inline]
    fn holds(&self, key: K) -> bool {
        (**self).holds(key)
    }

    #[inline]
    fn prefetch(&self, key: K)
    where
        K: Copy,
    {
        (**self).prefetch(key);
    }

    fn assert_invariants(&self) {
        (**self).assert_invariants();
    }
}
