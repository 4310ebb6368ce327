//! The iterators of [`SparseMap`]: [`Iter`], [`IterMut`], [`IntoIter`], [`Drain`]. Each yields
//! keys and values in dense order.

use alloc::vec;
use core::convert::identity;
use core::fmt;
use core::iter::{FusedIterator, Zip};
use core::marker::PhantomData;
use core::slice;

use crate::dense::DenseIndex;
use crate::key::Key;
use crate::map::SparseMap;
use crate::observe::Observer;
use crate::rows::Rows;
use crate::set;

/// Iterator over a map's keys and values in dense order: [`SparseMap::iter`].
///
/// ```
/// # use sparse_set_core::SparseMap;
/// let map: SparseMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
/// let mut iter = map.iter();
/// assert_eq!(iter.len(), 2);
/// assert_eq!(iter.next_back(), Some((2, &'b')));
/// ```
pub struct Iter<'a, K, V> {
    pub(super) inner: Zip<slice::Iter<'a, K>, slice::Iter<'a, V>>,
}

impl<'a, K: Copy, V> Iterator for Iter<'a, K, V> {
    type Item = (K, &'a V);

    iterator_methods!(|(&key, value)| (key, value));
}

impl<K: Copy, V> DoubleEndedIterator for Iter<'_, K, V> {
    double_ended_iterator_methods!(|(&key, value)| (key, value));
}

impl<K: Copy, V> ExactSizeIterator for Iter<'_, K, V> {}
impl<K: Copy, V> FusedIterator for Iter<'_, K, V> {}

impl<K, V> Clone for Iter<'_, K, V> {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone() }
    }
}

impl<K: Copy + fmt::Debug, V: fmt::Debug> fmt::Debug for Iter<'_, K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}

/// Iterator over a map's keys and mutable values in dense order: [`SparseMap::iter_mut`].
///
/// ```
/// # use sparse_set_core::SparseMap;
/// let mut map: SparseMap<u32, u32> = [(1, 10), (2, 20)].into_iter().collect();
/// for (_, value) in map.iter_mut().rev() {
///     *value += 1;
/// }
/// assert_eq!(map.values(), &[11, 21]);
/// ```
pub struct IterMut<'a, K, V> {
    pub(super) inner: Zip<slice::Iter<'a, K>, slice::IterMut<'a, V>>,
}

impl<'a, K: Copy, V> Iterator for IterMut<'a, K, V> {
    type Item = (K, &'a mut V);

    iterator_methods!(|(&key, value)| (key, value));
}

impl<K: Copy, V> DoubleEndedIterator for IterMut<'_, K, V> {
    double_ended_iterator_methods!(|(&key, value)| (key, value));
}

impl<K: Copy, V> ExactSizeIterator for IterMut<'_, K, V> {}
impl<K: Copy, V> FusedIterator for IterMut<'_, K, V> {}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for IterMut<'_, K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IterMut").field("remaining", &self.inner.size_hint().0).finish()
    }
}

/// Owning iterator over a map's keys and values in dense order: `SparseMap::into_iter`.
///
/// ```
/// # use sparse_set_core::SparseMap;
/// let map: SparseMap<u32, String> = [(1, "a".to_owned())].into_iter().collect();
/// let pairs: Vec<(u32, String)> = map.into_iter().collect();
/// assert_eq!(pairs, [(1, "a".to_owned())]);
/// ```
pub struct IntoIter<K, V> {
    pub(super) inner: Zip<set::IntoIter<K>, vec::IntoIter<V>>,
}

impl<K, V> Iterator for IntoIter<K, V> {
    type Item = (K, V);

    iterator_methods!(identity);
}

impl<K, V> DoubleEndedIterator for IntoIter<K, V> {
    double_ended_iterator_methods!(identity);
}

impl<K, V> ExactSizeIterator for IntoIter<K, V> {}
impl<K, V> FusedIterator for IntoIter<K, V> {}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for IntoIter<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntoIter").field("remaining", &self.inner.size_hint().0).finish()
    }
}

/// Draining iterator over a map's keys and values in dense order: [`SparseMap::drain`].
///
/// The map is already empty; values not yet yielded are dropped with the iterator. A map's
/// [`Observer`] heard of every row's removal when `drain` was called, front to back, each with
/// no move, so a leaked iterator leaves it in step with the map.
///
/// ```
/// # use sparse_set_core::SparseMap;
/// let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
/// let mut drain = map.drain();
/// assert_eq!(drain.next(), Some((1, 'a')));
/// drop(drain); // drops 'b'
/// assert!(map.is_empty());
/// ```
pub struct Drain<'a, K: Copy, V, O: Observer<K, V> = ()> {
    pub(super) inner: Zip<set::Drain<'a, K>, vec::Drain<'a, V>>,
    /// The map's observer heard of every row when `drain` was called.
    pub(super) observer: PhantomData<&'a mut O>,
}

impl<K: Copy, V, O: Observer<K, V>> Iterator for Drain<'_, K, V, O> {
    type Item = (K, V);

    #[inline]
    fn next(&mut self) -> Option<(K, V)> {
        self.inner.next()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<K: Copy, V, O: Observer<K, V>> DoubleEndedIterator for Drain<'_, K, V, O> {
    #[inline]
    fn next_back(&mut self) -> Option<(K, V)> {
        self.inner.next_back()
    }
}

impl<K: Copy, V, O: Observer<K, V>> ExactSizeIterator for Drain<'_, K, V, O> {}
impl<K: Copy, V, O: Observer<K, V>> FusedIterator for Drain<'_, K, V, O> {}

impl<K: Copy + fmt::Debug, V: fmt::Debug, O: Observer<K, V>> fmt::Debug for Drain<'_, K, V, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Drain").field("remaining", &self.inner.size_hint().0).finish()
    }
}

impl<'a, K: Key, V, D: DenseIndex, O: Observer<K, V>> IntoIterator for &'a SparseMap<K, V, D, O> {
    type Item = (K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, K: Key, V, D: DenseIndex, O: Observer<K, V>> IntoIterator
    for &'a mut SparseMap<K, V, D, O>
{
    type Item = (K, &'a mut V);
    type IntoIter = IterMut<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> IntoIterator for SparseMap<K, V, D, O> {
    type Item = (K, V);
    type IntoIter = IntoIter<K, V>;

    /// Yields the keys and values in dense order. The observer is dropped and told nothing.
    fn into_iter(self) -> Self::IntoIter {
        IntoIter { inner: self.set.into_iter().zip(self.values) }
    }
}

/// A map's keys and values as two slices of one length: [`SparseMap::columns`]. Row `i` is
/// `(keys[i], &values[i])`.
///
/// ```
/// use sparse_set_core::{Rows, SparseMap};
///
/// let map: SparseMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
/// let pairs: Vec<(u32, &char)> = map.columns().into_iter().collect();
/// assert_eq!(pairs, [(1, &'a'), (2, &'b')]);
/// assert_eq!(map.columns().len(), 2);
/// ```
#[derive(Debug)]
pub struct Columns<'a, K, V> {
    /// The keys in dense order.
    pub keys: &'a [K],
    /// The values, `values[i]` belonging to `keys[i]`.
    pub values: &'a [V],
}

impl<K, V> Clone for Columns<'_, K, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K, V> Copy for Columns<'_, K, V> {}

/// A map's keys, read-only, and values, mutable, as two slices of one length:
/// [`SparseMap::columns_mut`].
///
/// ```
/// use sparse_set_core::SparseMap;
///
/// let mut map: SparseMap<u32, u32> = [(1, 10), (2, 20)].into_iter().collect();
/// for (key, value) in map.columns_mut() {
///     *value += key;
/// }
/// assert_eq!(map.values(), &[11, 22]);
/// ```
#[derive(Debug)]
pub struct ColumnsMut<'a, K, V> {
    /// The keys in dense order.
    pub keys: &'a [K],
    /// The values, `values[i]` belonging to `keys[i]`.
    pub values: &'a mut [V],
}

impl<'a, K: Key, V> Rows for Columns<'a, K, V> {
    type Key = K;
    type Row = &'a V;
    type Iter = Iter<'a, K, V>;

    #[inline]
    fn keys(&self) -> &[K] {
        self.keys
    }

    #[inline]
    fn len(&self) -> usize {
        self.keys.len().min(self.values.len())
    }

    #[inline]
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (keys, rest) = self.keys.split_at(mid);
        let (values, values_rest) = self.values.split_at(mid);
        (Columns { keys, values }, Columns { keys: rest, values: values_rest })
    }

    #[inline]
    fn into_rows(self) -> Iter<'a, K, V> {
        Iter { inner: self.keys.iter().zip(self.values.iter()) }
    }
}

impl<'a, K: Key, V> Rows for ColumnsMut<'a, K, V> {
    type Key = K;
    type Row = &'a mut V;
    type Iter = IterMut<'a, K, V>;

    #[inline]
    fn keys(&self) -> &[K] {
        self.keys
    }

    #[inline]
    fn len(&self) -> usize {
        self.keys.len().min(self.values.len())
    }

    #[inline]
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (keys, rest) = self.keys.split_at(mid);
        let (values, values_rest) = self.values.split_at_mut(mid);
        (ColumnsMut { keys, values }, ColumnsMut { keys: rest, values: values_rest })
    }

    #[inline]
    fn into_rows(self) -> IterMut<'a, K, V> {
        IterMut { inner: self.keys.iter().zip(self.values.iter_mut()) }
    }
}

impl<'a, K: Key, V> IntoIterator for Columns<'a, K, V> {
    type Item = (K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    /// Yields each key with its value, in dense order.
    fn into_iter(self) -> Iter<'a, K, V> {
        self.into_rows()
    }
}

impl<'a, K: Key, V> IntoIterator for ColumnsMut<'a, K, V> {
    type Item = (K, &'a mut V);
    type IntoIter = IterMut<'a, K, V>;

    /// Yields each key with its mutable value, in dense order.
    fn into_iter(self) -> IterMut<'a, K, V> {
        self.into_rows()
    }
}
