//! The iterators of [`SparseSet`]: [`Iter`], [`IntoIter`], [`Drain`]. Each yields the keys in
//! dense order.

use alloc::vec;
use core::convert::identity;
use core::fmt;
use core::iter::FusedIterator;
use core::slice;

use crate::key::Key;
use crate::rows::Rows;
#[cfg(doc)]
use crate::set::SparseSet;

/// Iterator over a set's keys in dense order: [`SparseSet::iter`].
///
/// ```
/// # use sparse_set_core::SparseSet;
/// let set: SparseSet<u32> = [8, 9, 10].into_iter().collect();
/// let mut iter = set.iter();
/// assert_eq!(iter.next(), Some(8));
/// assert_eq!(iter.as_slice(), &[9, 10]);
/// assert_eq!(iter.rev().collect::<Vec<_>>(), [10, 9]);
/// ```
pub struct Iter<'a, K> {
    inner: slice::Iter<'a, K>,
}

impl<'a, K> Iter<'a, K> {
    pub(super) fn new(keys: &'a [K]) -> Self {
        Self { inner: keys.iter() }
    }

    /// The keys not yet yielded, in dense order.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub fn as_slice(&self) -> &'a [K] {
        self.inner.as_slice()
    }
}

impl<K: Copy> Iterator for Iter<'_, K> {
    type Item = K;

    iterator_methods!(|&key| key);
}

impl<K: Copy> DoubleEndedIterator for Iter<'_, K> {
    double_ended_iterator_methods!(|&key| key);
}

impl<K: Copy> ExactSizeIterator for Iter<'_, K> {}
impl<K: Copy> FusedIterator for Iter<'_, K> {}

impl<K> Clone for Iter<'_, K> {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone() }
    }
}

impl<K: fmt::Debug> fmt::Debug for Iter<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Iter").field(&self.as_slice()).finish()
    }
}

/// Owning iterator over a set's keys in dense order: `SparseSet::into_iter`.
///
/// ```
/// # use sparse_set_core::SparseSet;
/// let set: SparseSet<u32> = [8, 9].into_iter().collect();
/// assert_eq!(set.into_iter().collect::<Vec<_>>(), [8, 9]);
/// ```
pub struct IntoIter<K> {
    inner: vec::IntoIter<K>,
}

impl<K> IntoIter<K> {
    pub(super) fn new(keys: alloc::vec::Vec<K>) -> Self {
        Self { inner: keys.into_iter() }
    }

    /// The keys not yet yielded, in dense order.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub fn as_slice(&self) -> &[K] {
        self.inner.as_slice()
    }
}

impl<K> Iterator for IntoIter<K> {
    type Item = K;

    iterator_methods!(identity);
}

impl<K> DoubleEndedIterator for IntoIter<K> {
    double_ended_iterator_methods!(identity);
}

impl<K> ExactSizeIterator for IntoIter<K> {}
impl<K> FusedIterator for IntoIter<K> {}

impl<K: Clone> Clone for IntoIter<K> {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone() }
    }
}

impl<K: fmt::Debug> fmt::Debug for IntoIter<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("IntoIter").field(&self.as_slice()).finish()
    }
}

/// Draining iterator over a set's keys in dense order: [`SparseSet::drain`]. The set is already
/// empty; keys not yet yielded are discarded with the iterator.
///
/// ```
/// # use sparse_set_core::SparseSet;
/// let mut set: SparseSet<u32> = [8, 9].into_iter().collect();
/// let mut drain = set.drain();
/// assert_eq!(drain.next(), Some(8));
/// drop(drain);
/// assert!(set.is_empty());
/// ```
pub struct Drain<'a, K> {
    inner: vec::Drain<'a, K>,
}

impl<'a, K> Drain<'a, K> {
    pub(super) fn new(inner: vec::Drain<'a, K>) -> Self {
        Self { inner }
    }

    /// The keys not yet yielded, in dense order.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub fn as_slice(&self) -> &[K] {
        self.inner.as_slice()
    }
}

impl<K> Iterator for Drain<'_, K> {
    type Item = K;

    iterator_methods!(identity);
}

impl<K> DoubleEndedIterator for Drain<'_, K> {
    double_ended_iterator_methods!(identity);
}

impl<K> ExactSizeIterator for Drain<'_, K> {}
impl<K> FusedIterator for Drain<'_, K> {}

impl<K: fmt::Debug> fmt::Debug for Drain<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Drain").field(&self.as_slice()).finish()
    }
}

/// The rows of a [`SparseSet`] seen as a tag: its keys, each with the empty view `()`. What
/// [`Columnar::columns`](crate::Columnar::columns) returns for a set, so that a tag can be a
/// [`Group`](crate::Group) member.
///
/// ```
/// use sparse_set_core::{Columnar, Rows, SparseSet};
///
/// let set: SparseSet<u32> = [4, 5].into_iter().collect();
/// let rows: Vec<(u32, ())> = set.columns().into_rows().collect();
/// assert_eq!(rows, [(4, ()), (5, ())]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Keys<'a, K> {
    /// The keys in dense order.
    pub keys: &'a [K],
}

impl<'a, K: Key> Rows for Keys<'a, K> {
    type Key = K;
    type Row = ();
    type Iter = KeyRows<'a, K>;

    #[inline]
    fn keys(&self) -> &[K] {
        self.keys
    }

    #[inline]
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (front, back) = self.keys.split_at(mid);
        (Keys { keys: front }, Keys { keys: back })
    }

    #[inline]
    fn into_rows(self) -> KeyRows<'a, K> {
        KeyRows { inner: self.keys.iter() }
    }
}

impl<'a, K: Key> IntoIterator for Keys<'a, K> {
    type Item = (K, ());
    type IntoIter = KeyRows<'a, K>;

    /// Yields each key with the empty view `()`.
    fn into_iter(self) -> KeyRows<'a, K> {
        Rows::into_rows(self)
    }
}

/// The iterator over the rows of a tag ([`Keys`]): each key with `()`.
#[derive(Clone, Debug)]
pub struct KeyRows<'a, K> {
    inner: slice::Iter<'a, K>,
}

impl<K: Copy> Iterator for KeyRows<'_, K> {
    type Item = (K, ());

    iterator_methods!(|&key| (key, ()));
}

impl<K: Copy> DoubleEndedIterator for KeyRows<'_, K> {
    double_ended_iterator_methods!(|&key| (key, ()));
}

impl<K: Copy> ExactSizeIterator for KeyRows<'_, K> {}
impl<K: Copy> FusedIterator for KeyRows<'_, K> {}
