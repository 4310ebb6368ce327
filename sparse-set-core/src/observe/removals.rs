//! Removal events a system reads after the fact: [`Removals`] keeps the keys that left a
//! storage, [`RemovedValues`] the keys and a clone of their values. Both grow until cleared
//! explicitly; a storage that does not ask for them pays nothing. Attached to a bounded
//! storage, each reserves room for the storage's capacity of removals (for `RemovedValues`,
//! `capacity` keys and values: as much memory again as the storage's values): a frame loop
//! that clears them at least once every `capacity` removals allocates nothing
//! (`with_capacity` reserves room up front for any storage).
//!
//! # Invariant
//!
//! The events hold every row removed since the last `clear`, in the order the rows left.
//!
//! A row that a newer version of its key overwrites in place (an insert of a newer generation
//! of the same entity slot, which the storage reports as
//! [`renewed`](Observer::renewed)) is a replacement, not a removal: the older key is not
//! listed. A world despawns an entity from every storage before its slot is reused, so this
//! only happens to rows left behind by a despawn from the allocator alone.

use alloc::vec::{self, Vec};

use crate::error::{clone_with_room, push_or_fail, reserve_exact_or_fail};
use crate::observe::Observer;
use crate::removed::Removed;

/// The keys removed from a storage, in the order they left, until [`clear`ed](Self::clear):
/// bevy's `RemovedComponents` as an [`Observer`].
///
/// ```
/// use sparse_set_core::SparseMap;
/// use sparse_set_core::observe::Removals;
///
/// let mut map = SparseMap::<u32, &str, u32, Removals<u32>>::default();
/// map.insert(1, "one");
/// map.insert(2, "two");
/// map.remove(1);
/// map.retain(|_, _| false);
/// assert_eq!(map.observer().keys(), &[1, 2]);
/// let seen: Vec<u32> = map.observer_mut().drain().collect();
/// assert_eq!(seen, [1, 2]);
/// assert!(map.observer().is_empty());
/// ```
#[derive(Debug, PartialEq, Eq)]
pub struct Removals<K> {
    keys: Vec<K>,
}

impl<K> Removals<K> {
    /// No removals yet. Does not allocate.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Removals;
    /// assert!(Removals::<u32>::new().is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self { keys: Vec::new() }
    }

    /// No removals yet, with room for `capacity` of them before it allocates.
    ///
    /// Computes in **O(1)** time (plus the allocation).
    ///
    /// # Panics
    ///
    /// If the memory cannot be had (as `Vec::with_capacity`).
    ///
    /// ```
    /// # use sparse_set_core::observe::Removals;
    /// assert!(Removals::<u32>::with_capacity(64).is_empty());
    /// ```
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        Self { keys: Vec::with_capacity(capacity) }
    }

    /// The removed keys, oldest first.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Removals;
    /// assert_eq!(Removals::<u32>::new().keys(), &[] as &[u32]);
    /// ```
    #[must_use]
    pub fn keys(&self) -> &[K] {
        &self.keys
    }

    /// How many removals are held.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Removals;
    /// assert_eq!(Removals::<u32>::new().len(), 0);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no removal is held.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Removals;
    /// assert!(Removals::<u32>::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Forgets the removals held. Keeps the memory.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Removals;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Removals<u32>>::default();
    /// map.insert(1, 0);
    /// map.remove(1);
    /// map.observer_mut().clear();
    /// assert!(map.observer().is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.keys.clear();
    }

    /// Takes the removals out, oldest first, leaving none. Keeps the memory.
    ///
    /// Computes in **O(removals)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Removals;
    /// assert_eq!(Removals::<u32>::new().drain().count(), 0);
    /// ```
    pub fn drain(&mut self) -> vec::Drain<'_, K> {
        self.keys.drain(..)
    }
}

impl<K: Clone> Clone for Removals<K> {
    /// A copy with the same room: the copy of a bounded storage's removals, which reserved its
    /// capacity when attached, allocates no sooner than the original (a growable storage's
    /// list keeps the room its removals between two clears took).
    ///
    /// # Panics
    ///
    /// If the memory cannot be had.
    fn clone(&self) -> Self {
        Self { keys: clone_with_room(&self.keys, true) }
    }
}

impl<K> Default for Removals<K> {
    fn default() -> Self {
        Self::new()
    }
}

/// Attached to a bounded storage, reserves room for its capacity of removals.
impl<K: Copy, V> Observer<K, V> for Removals<K> {
    fn attached(&mut self, _keys: &[K], bound: Option<usize>) {
        if let Some(capacity) = bound {
            reserve_exact_or_fail(&mut self.keys, capacity);
        }
    }

    #[inline]
    fn removed(&mut self, key: K, _value: &V, _removed: Removed<K>) {
        push_or_fail(&mut self.keys, key);
    }
}

/// The keys removed from a storage with a clone of their values, in the order they left, until
/// [`clear`ed](Self::clear).
///
/// On a storage derived with `#[derive(SparseSoa)]` from `Position` (whose hooks see a
/// `PositionRef` view of each row), `RemovedValues<K, Position>` keeps a clone of each element:
/// the derive implements it when every field is `Clone` and the key is not one of the struct's
/// type parameters.
///
/// ```
/// use sparse_set_core::SparseMap;
/// use sparse_set_core::observe::RemovedValues;
///
/// let mut map = SparseMap::<u32, String, u32, RemovedValues<u32, String>>::default();
/// map.insert(1, "one".to_owned());
/// map.insert(2, "two".to_owned());
/// map.clear();
/// assert_eq!(map.observer().rows(), &[(2, "two".to_owned()), (1, "one".to_owned())]);
/// ```
#[derive(Debug, PartialEq, Eq)]
pub struct RemovedValues<K, V> {
    rows: Vec<(K, V)>,
}

impl<K, V> RemovedValues<K, V> {
    /// No removals yet. Does not allocate.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::RemovedValues;
    /// assert!(RemovedValues::<u32, f32>::new().is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self { rows: Vec::new() }
    }

    /// No removals yet, with room for `capacity` of them before it allocates.
    ///
    /// Computes in **O(1)** time (plus the allocation).
    ///
    /// # Panics
    ///
    /// If the memory cannot be had (as `Vec::with_capacity`).
    ///
    /// ```
    /// # use sparse_set_core::observe::RemovedValues;
    /// assert!(RemovedValues::<u32, f32>::with_capacity(64).is_empty());
    /// ```
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        Self { rows: Vec::with_capacity(capacity) }
    }

    /// The removed keys and values, oldest first.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::RemovedValues;
    /// assert!(RemovedValues::<u32, f32>::new().rows().is_empty());
    /// ```
    #[must_use]
    pub fn rows(&self) -> &[(K, V)] {
        &self.rows
    }

    /// How many removals are held.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::RemovedValues;
    /// assert_eq!(RemovedValues::<u32, f32>::new().len(), 0);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no removal is held.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::RemovedValues;
    /// assert!(RemovedValues::<u32, f32>::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Forgets the removals held, dropping their values. Keeps the memory.
    ///
    /// Computes in **O(removals)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::RemovedValues;
    /// let mut removed = RemovedValues::<u32, f32>::new();
    /// removed.clear();
    /// assert!(removed.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.rows.clear();
    }

    /// Takes the removals out, oldest first, leaving none. Keeps the memory.
    ///
    /// Computes in **O(removals)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::RemovedValues;
    /// assert_eq!(RemovedValues::<u32, f32>::new().drain().count(), 0);
    /// ```
    pub fn drain(&mut self) -> vec::Drain<'_, (K, V)> {
        self.rows.drain(..)
    }
}

impl<K, V> RemovedValues<K, V> {
    /// Records that `key` left with `value`: how the observer impls `#[derive(SparseSoa)]`
    /// writes (a derived storage's hook sees a view of the row, which it clones) record.
    #[doc(hidden)]
    #[inline]
    pub fn record(&mut self, key: K, value: V) {
        push_or_fail(&mut self.rows, (key, value));
    }

    /// What `attached` does: reserves room for a bounded storage's capacity of removals.
    #[doc(hidden)]
    pub fn reserve_for(&mut self, bound: Option<usize>) {
        if let Some(capacity) = bound {
            reserve_exact_or_fail(&mut self.rows, capacity);
        }
    }
}

impl<K: Clone, V: Clone> Clone for RemovedValues<K, V> {
    /// A copy with the same room, as [`Removals`]' clone.
    ///
    /// # Panics
    ///
    /// If the memory cannot be had, or `V::clone` panics.
    fn clone(&self) -> Self {
        Self { rows: clone_with_room(&self.rows, true) }
    }
}

impl<K, V> Default for RemovedValues<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

/// Attached to a bounded storage, reserves room for its capacity of removals.
impl<K: Copy, V: Clone> Observer<K, V> for RemovedValues<K, V> {
    fn attached(&mut self, _keys: &[K], bound: Option<usize>) {
        self.reserve_for(bound);
    }

    #[inline]
    fn removed(&mut self, key: K, value: &V, _removed: Removed<K>) {
        self.record(key, value.clone());
    }
}
