//! [`SparseMap`]: values stored beside a [`SparseSet`] index (array of structs).

use alloc::vec::Vec;
use core::ops::{Index, IndexMut};

use crate::set::fail;
use crate::{DenseIndex, Error, Key, Removed, SparseSet, Storage};

/// A map from keys to values with **O(1)** insert, remove and lookup, whose values form one
/// dense slice.
///
/// Invariant: `values.len() == set.len()`, and the value of the key at dense position `i` is
/// `values[i]`.
pub struct SparseMap<K, V, D: DenseIndex = u32> {
    set: SparseSet<K, D>,
    values: Vec<V>,
}

impl<K: Key, V, D: DenseIndex> SparseMap<K, V, D> {
    /// An empty map. Does not allocate.
    #[must_use]
    pub const fn new() -> Self {
        Self { set: SparseSet::new(), values: Vec::new() }
    }

    /// Stores `value` under `key`; returns the value it replaced.
    #[track_caller]
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        self.try_insert(key, value).unwrap_or_else(|error| fail(error))
    }

    /// The fallible twin of [`insert`](Self::insert).
    ///
    /// # Errors
    ///
    /// As [`SparseSet::try_insert`]; the map is unchanged and `value` is dropped.
    pub fn try_insert(&mut self, key: K, value: V) -> Result<Option<V>, Error> {
        self.values.try_reserve(1)?;
        let (index, new) = self.set.try_insert(key)?;
        if new && index == self.values.len() {
            self.values.push(value);
            Ok(None)
        } else {
            Ok(Some(core::mem::replace(&mut self.values[index], value)))
        }
    }

    /// Removes `key` by swap-remove; returns its value.
    pub fn remove(&mut self, key: K) -> Option<V> {
        self.remove_with_info(key).map(|(value, _)| value)
    }

    /// Removes `key` by swap-remove; returns its value and how the dense positions moved.
    pub fn remove_with_info(&mut self, key: K) -> Option<(V, Removed<K>)> {
        let removed = self.set.remove_with_info(key)?;
        Some((self.values.swap_remove(removed.index), removed))
    }

    /// The value stored under `key`.
    pub fn get(&self, key: K) -> Option<&V> {
        self.values.get(self.set.get_index_of(key)?)
    }

    /// The value stored under `key`, mutably.
    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        self.values.get_mut(self.set.get_index_of(key)?)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// The keys in dense order.
    pub fn keys(&self) -> &[K] {
        self.set.as_slice()
    }

    /// The values in dense order.
    pub fn values(&self) -> &[V] {
        &self.values
    }
}

impl<K: Key, V, D: DenseIndex> Default for SparseMap<K, V, D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Key, V, D: DenseIndex> FromIterator<(K, V)> for SparseMap<K, V, D> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = Self::new();
        for (key, value) in iter {
            map.insert(key, value);
        }
        map
    }
}

impl<K: Key, V, D: DenseIndex> Index<K> for SparseMap<K, V, D> {
    type Output = V;

    #[track_caller]
    fn index(&self, key: K) -> &V {
        match self.get(key) {
            Some(value) => value,
            None => panic!("key {key:?} is not in the map"),
        }
    }
}

impl<K: Key, V, D: DenseIndex> IndexMut<K> for SparseMap<K, V, D> {
    #[track_caller]
    fn index_mut(&mut self, key: K) -> &mut V {
        match self.get_mut(key) {
            Some(value) => value,
            None => panic!("key {key:?} is not in the map"),
        }
    }
}

impl<K: Key, V, D: DenseIndex> Storage for SparseMap<K, V, D> {
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
        Some((self.set.get_index(index)?, &self.values[index]))
    }

    fn get_index_mut(&mut self, index: usize) -> Option<(K, &mut V)> {
        Some((self.set.get_index(index)?, &mut self.values[index]))
    }

    fn insert(&mut self, key: K, value: V) -> Option<V> {
        SparseMap::insert(self, key, value)
    }

    fn remove(&mut self, key: K) -> Option<V> {
        SparseMap::remove(self, key)
    }
}
