//! The standard traits of [`SparseSet`]: `Default`, `Clone`, `Debug`, `PartialEq`, `Extend`,
//! `FromIterator`, `IntoIterator`.

use core::fmt;

use crate::dense::DenseIndex;
#[cfg(doc)]
use crate::error::Error;
use crate::error::fail;
use crate::key::Key;
use crate::observe::{Observed, Observer};
use crate::set::{IntoIter, Iter, SparseSet};

impl<K: Key, D: DenseIndex, O: Observer<K, ()> + Default> Default for SparseSet<K, D, O> {
    fn default() -> Self {
        Self::with_observer(O::default())
    }
}

impl<K: Key, D: DenseIndex, O: Observer<K, ()> + Clone> Clone for SparseSet<K, D, O> {
    /// A copy of the set; a bounded set's copy is bounded alike and has its full capacity, so it
    /// never allocates either.
    ///
    /// # Panics
    ///
    /// If the memory cannot be had, with the message of the [`Error`] that
    /// [`try_clone`](SparseSet::try_clone) would return.
    #[track_caller]
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(value) => value,
            Err(error) => fail(error),
        }
    }
}

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> fmt::Debug for SparseSet<K, D, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(&self.dense).finish()
    }
}

/// Two sets are equal when they hold the same keys, in any order.
impl<K: Key, D: DenseIndex, O: Observer<K, ()>> PartialEq for SparseSet<K, D, O> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|key| other.contains(key))
    }
}

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> Eq for SparseSet<K, D, O> {}

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> Extend<K> for SparseSet<K, D, O> {
    /// Inserts every key. An [`Entity`](crate::Entity) of a newer generation replaces its older
    /// version, and an older version met after a newer one panics, as `insert` does
    /// ([`Error::StaleKey`]).
    ///
    /// # Panics
    ///
    /// As [`SparseSet::insert`].
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        let keys = keys.into_iter();
        self.reserve(keys.size_hint().0);
        for key in keys {
            self.insert(key);
        }
    }
}

impl<K: Key, D: DenseIndex> FromIterator<K> for SparseSet<K, D> {
    /// Collects keys into a new set; a key met again is kept once, where it was first met. An
    /// [`Entity`](crate::Entity) of a newer generation replaces its older version there, and an
    /// older version met after a newer one panics, as `insert` does
    /// ([`Error::StaleKey`]).
    ///
    /// # Panics
    ///
    /// As [`SparseSet::insert`].
    fn from_iter<I: IntoIterator<Item = K>>(keys: I) -> Self {
        let mut set = Self::new();
        set.extend(keys);
        set
    }
}

impl<'a, K: Key, D: DenseIndex, O: Observer<K, ()>> IntoIterator for &'a SparseSet<K, D, O> {
    type Item = K;
    type IntoIter = Iter<'a, K>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> IntoIterator for SparseSet<K, D, O> {
    type Item = K;
    type IntoIter = IntoIter<K>;

    /// Yields the keys in dense order.
    fn into_iter(self) -> Self::IntoIter {
        IntoIter::new(self.dense)
    }
}

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> Observed for SparseSet<K, D, O> {
    type Observer = O;

    #[inline]
    fn observer(&self) -> &O {
        SparseSet::observer(self)
    }

    #[inline]
    fn observer_mut(&mut self) -> &mut O {
        SparseSet::observer_mut(self)
    }
}
