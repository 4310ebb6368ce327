//! The traits of [`SparseMap`]: the standard ones (`Default`, `Clone`, `Debug`, `PartialEq`,
//! `Extend`, `FromIterator`, `Index`, `IndexMut`) and the crate's [`Storage`] and [`Columnar`].

use alloc::vec::Vec;
use core::fmt;
use core::ops::{Index, IndexMut, Range};

use crate::dense::DenseIndex;
use crate::error::{Error, fail};
use crate::key::Key;
use crate::map::{Columns, ColumnsMut, SparseMap};
use crate::observe::{Observed, Observer, ObserverWrites, RowWrites};
use crate::rows::Rows;
use crate::set::SparseSet;
use crate::storage::{Columnar, Storage};

impl<K: Key, V, D: DenseIndex, O: Observer<K, V> + Default> Default for SparseMap<K, V, D, O> {
    fn default() -> Self {
        Self::with_observer(O::default())
    }
}

impl<K: Key, V: Clone, D: DenseIndex, O: Observer<K, V> + Clone> Clone for SparseMap<K, V, D, O> {
    /// Clones keys and values; a bounded map's clone is bounded alike, with its values'
    /// capacity reserved.
    ///
    /// # Panics
    ///
    /// If `V::clone` panics (the values cloned so far are dropped, nothing leaks), or the
    /// memory cannot be had (with the message of the [`Error`] that
    /// [`try_clone`](SparseMap::try_clone) would return).
    #[track_caller]
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(value) => value,
            Err(error) => fail(error),
        }
    }
}

impl<K: Key, V: fmt::Debug, D: DenseIndex, O: Observer<K, V>> fmt::Debug for SparseMap<K, V, D, O> {
    /// Prints the map as `{key: value, ...}` in dense order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Two maps are equal when they hold the same keys with equal values, in any order.
impl<K: Key, V: PartialEq, D: DenseIndex, O: Observer<K, V>> PartialEq for SparseMap<K, V, D, O> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(key, value)| other.get(key) == Some(value))
    }
}

impl<K: Key, V: Eq, D: DenseIndex, O: Observer<K, V>> Eq for SparseMap<K, V, D, O> {}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> Extend<(K, V)> for SparseMap<K, V, D, O> {
    /// Inserts every pair; a later value for the same key replaces an earlier one.
    /// An [`Entity`](crate::Entity) of a newer generation counts as the same key: it replaces
    /// its older version's row (whose value is dropped), and an older version met after a
    /// newer one panics, as `insert` does ([`Error::StaleKey`]).
    ///
    /// # Panics
    ///
    /// As [`SparseMap::insert`].
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, pairs: I) {
        let pairs = pairs.into_iter();
        self.reserve(pairs.size_hint().0);
        for (key, value) in pairs {
            self.insert(key, value);
        }
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V> + Default> FromIterator<(K, V)>
    for SparseMap<K, V, D, O>
{
    /// Collects pairs into a new map; a later value for the same key replaces an earlier one.
    /// An [`Entity`](crate::Entity) of a newer generation counts as the same key: it replaces
    /// its older version's row (whose value is dropped), and an older version met after a
    /// newer one panics, as `insert` does ([`Error::StaleKey`]).
    ///
    /// # Panics
    ///
    /// As [`SparseMap::insert`].
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Self {
        let mut map = Self::default();
        map.extend(pairs);
        map
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> Index<K> for SparseMap<K, V, D, O> {
    type Output = V;

    /// The value of `key`.
    ///
    /// # Panics
    ///
    /// If `key` is not in the map.
    #[track_caller]
    fn index(&self, key: K) -> &V {
        match self.get(key) {
            Some(value) => value,
            None => panic!("key {key:?} is not in the map"),
        }
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> IndexMut<K> for SparseMap<K, V, D, O> {
    /// The value of `key`, mutably.
    ///
    /// # Panics
    ///
    /// If `key` is not in the map.
    #[track_caller]
    fn index_mut(&mut self, key: K) -> &mut V {
        match self.get_mut(key) {
            Some(value) => value,
            None => panic!("key {key:?} is not in the map"),
        }
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> Storage for SparseMap<K, V, D, O> {
    type Key = K;
    type Dense = D;
    type Value = V;
    type Ref<'a>
        = &'a V
    where
        Self: 'a;
    type Mut<'a>
        = &'a mut V
    where
        Self: 'a;

    fn as_sparse_set(&self) -> &SparseSet<K, D> {
        &self.set
    }

    fn get_index(&self, index: usize) -> Option<(K, &V)> {
        SparseMap::get_index(self, index)
    }

    fn get_index_mut(&mut self, index: usize) -> Option<(K, &mut V)> {
        SparseMap::get_index_mut(self, index)
    }

    #[inline]
    #[track_caller]
    fn insert(&mut self, key: K, value: V) -> Option<V> {
        SparseMap::insert(self, key, value)
    }

    #[inline]
    fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        SparseMap::try_reserve(self, additional)
    }

    #[inline]
    fn reserve_slots(&mut self, slots: Range<u64>) {
        SparseMap::reserve_slots(self, slots);
    }

    #[inline]
    fn shrink_to_fit(&mut self) {
        SparseMap::shrink_to_fit(self);
    }

    #[inline]
    fn fresh_run_len(&self, keys: &[K]) -> usize {
        // No more than the values' room, nor the room the observer keeps for rows' events.
        let room = (self.values.capacity() - self.values.len()).min(self.observer.spare_rows());
        self.set.fresh_run_len(&keys[..keys.len().min(room)])
    }

    #[inline]
    fn push_fresh_run(&mut self, keys: &[K], values: &mut Vec<V>) {
        let pushed = self.set.push_fresh_run(keys);
        debug_assert_eq!(pushed, keys.len(), "a run longer than `fresh_run_len` measured");
        let start = self.values.len();
        self.values.extend(values.drain(..pushed));
        if O::OBSERVES {
            for (index, &key) in (start..).zip(&keys[..pushed]) {
                self.observer.inserted(key, index, &self.values[index]);
            }
        }
    }

    #[inline]
    fn try_insert(&mut self, key: K, value: V) -> Result<Option<V>, Error> {
        SparseMap::try_insert(self, key, value)
    }

    fn remove(&mut self, key: K) -> Option<V> {
        SparseMap::remove(self, key)
    }

    fn get(&self, key: K) -> Option<&V> {
        SparseMap::get(self, key)
    }

    fn get_mut(&mut self, key: K) -> Option<&mut V> {
        SparseMap::get_mut(self, key)
    }

    fn assert_invariants(&self) {
        SparseMap::assert_invariants(self);
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> Columnar for SparseMap<K, V, D, O> {
    const OBSERVES: bool = O::OBSERVES;

    type Columns<'a>
        = Columns<'a, K, V>
    where
        Self: 'a;
    type ColumnsMut<'a>
        = ColumnsMut<'a, K, V>
    where
        Self: 'a;
    type Writes<'a>
        = ObserverWrites<'a, K, V, O>
    where
        Self: 'a;

    #[inline]
    fn columns(&self) -> Columns<'_, K, V> {
        SparseMap::columns(self)
    }

    #[inline]
    fn columns_mut(&mut self) -> ColumnsMut<'_, K, V> {
        SparseMap::columns_mut(self)
    }

    #[inline]
    fn index_and_columns_mut(&mut self) -> (&SparseSet<K, D>, ColumnsMut<'_, K, V>) {
        self.index_and_prefix_mut(self.values.len())
    }

    #[inline]
    fn index_columns_and_writes(
        &mut self,
    ) -> (&SparseSet<K, D>, ColumnsMut<'_, K, V>, ObserverWrites<'_, K, V, O>) {
        let keys = self.set.as_slice();
        let columns = ColumnsMut { keys, values: &mut self.values[..keys.len()] };
        (&self.set, columns, ObserverWrites::new(&mut self.observer))
    }

    #[inline]
    fn prefix_columns_mut(&mut self, len: usize) -> ColumnsMut<'_, K, V> {
        self.index_and_prefix_mut(len).1
    }

    #[inline]
    fn index_and_prefix_mut(&mut self, len: usize) -> (&SparseSet<K, D>, ColumnsMut<'_, K, V>) {
        // The prefix cut first (a `len` past the rows panics before the observer hears).
        let (index, columns, mut writes) = self.index_columns_and_writes();
        let prefix = columns.split_at(len).0;
        writes.written(0..len);
        (index, prefix)
    }

    #[inline]
    fn row<'a>(columns: &Columns<'a, K, V>, index: usize) -> Option<&'a V>
    where
        Self: 'a,
    {
        columns.values.get(index)
    }

    #[inline]
    fn row_mut<'v>(columns: &'v mut ColumnsMut<'_, K, V>, index: usize) -> Option<&'v mut V> {
        columns.values.get_mut(index)
    }

    #[inline]
    #[track_caller]
    fn swap_indices(&mut self, a: usize, b: usize) {
        SparseMap::swap_indices(self, a, b);
    }

    #[inline]
    fn swap_remove_index(&mut self, index: usize) -> Option<(K, V)> {
        SparseMap::swap_remove_index(self, index)
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> Observed for SparseMap<K, V, D, O> {
    type Observer = O;

    #[inline]
    fn observer(&self) -> &O {
        SparseMap::observer(self)
    }

    #[inline]
    fn observer_mut(&mut self) -> &mut O {
        SparseMap::observer_mut(self)
    }
}
