//! [`SparseMap`]: values stored beside a [`SparseSet`] index (array of structs), its entry API
//! (`entry.rs`) and its iterators (`iter.rs`).
//!
//! # Invariant
//!
//! `values.len() == set.len()`, and the value of the key at dense position `i` is `values[i]`.
//! Every method keeps it, also when it unwinds: a value's `Drop`, a comparator or a predicate
//! that panics, or an allocation that fails. To that end keys (which are `Copy`) are always
//! removed before values are dropped, since `Vec::truncate` and `Vec::clear` shorten the vector
//! before they drop anything; and a new key is added to the set first, then room is reserved for
//! its value, and if that fails the key is popped again before the call returns.
//!
//! [`SparseMap::assert_invariants`] checks the set's invariant and this one.

mod capacity;
mod entry;
mod iter;
mod reorder;
#[cfg(test)]
mod tests;
mod ticks;
mod traits;

use alloc::vec::Vec;
use core::marker::PhantomData;

use crate::dense::DenseIndex;
use crate::disjoint;
use crate::error::{Error, fail, fail_bounded, fail_insert, try_reserve_exact};
use crate::key::Key;
#[cfg(doc)]
use crate::permutation::Permutation;
use crate::removed::Removed;
use crate::set::{SparseSet, Vacancy};
use crate::storage::pop_down_to;
#[cfg(doc)]
use crate::storage::{Columnar, Storage};

pub use entry::{Entry, OccupiedEntry, VacantEntry};
pub use iter::{Columns, ColumnsMut, Drain, IntoIter, Iter, IterMut};

use crate::observe::{Observer, report_replacement};
use crate::unwind::report_drain;

/// A map from keys to values with **O(1)** insert, remove and lookup, whose values form one
/// dense slice.
///
/// The keys live in a [`SparseSet<K, D>`]; the values in a `Vec<V>` beside it, in the same dense
/// order, so [`keys`](Self::keys) and [`values`](Self::values) are plain slices and iteration
/// runs at slice speed. `D` is the [`DenseIndex`] width: it bounds the number of elements
/// (255 for `u8`) and sets the size of each sparse slot.
///
/// The dense order is insertion order until a removal: **[`remove`](Self::remove) is a
/// swap-remove**, it moves the last element into the gap.
///
/// `O` is the map's [`Observer`]: `()` (the default) hears nothing and costs nothing; another
/// hears of every change after it happens (hooks, a move journal for mirrors, change ticks,
/// removal events: see [`observe`](crate::observe) and [`with_observer`](Self::with_observer)).
///
/// A map holds one key per sparse slot. Keys that are not equal but share a slot (an
/// [`Entity`](crate::Entity) of the same index and another generation) are told apart on lookup;
/// inserting a newer one replaces an older one in place, and an older one is refused as stale:
/// see [`insert`](Self::insert).
///
/// | operation | cost |
/// |---|---|
/// | `insert`, `remove`, `get`, `get_mut`, `contains_key`, `entry` | O(1) (insert amortised) |
/// | `clear`, `truncate`, `drain` | O(removed elements): each value is dropped |
/// | iteration, `retain` | O(len) |
/// | sorting | O(len log len) |
///
/// ```
/// use sparse_set_core::SparseMap;
///
/// let mut names = SparseMap::<u32, &str>::new();
/// assert_eq!(names.insert(42, "answer"), None);
/// assert_eq!(names.insert(7, "seven"), None);
/// assert_eq!(names.insert(42, "forty-two"), Some("answer"));
/// assert_eq!(names[42], "forty-two");
/// assert_eq!(names.keys(), &[42, 7]);
/// assert_eq!(names.values(), &["forty-two", "seven"]);
///
/// // Swap-remove: the last element (7) moves into the vacated position.
/// assert_eq!(names.remove(42), Some("forty-two"));
/// assert_eq!(names.keys(), &[7]);
/// ```
pub struct SparseMap<K, V, D: DenseIndex = u32, O = ()> {
    set: SparseSet<K, D>,
    values: Vec<V>,
    observer: O,
}

impl<K: Key, V, D: DenseIndex> SparseMap<K, V, D> {
    /// An empty map. Does not allocate.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map = SparseMap::<u32, String>::new();
    /// assert!(map.is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self { set: SparseSet::new(), values: Vec::new(), observer: () }
    }

    /// An empty map with room for `capacity` elements before the dense side reallocates. Sparse
    /// pages are still allocated as keys arrive. A capacity past what the dense width addresses
    /// ([`DenseIndex::MAX_LEN`]) is capped to it.
    ///
    /// Computes in **O(1)** time (plus the allocation).
    ///
    /// # Panics
    ///
    /// If the capacity needs more than `isize::MAX` bytes, or the allocation fails; see
    /// [`try_with_capacity`](Self::try_with_capacity).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map = SparseMap::<u32, f32>::with_capacity(100);
    /// assert!(map.capacity() >= 100);
    /// ```
    #[must_use]
    #[track_caller]
    pub fn with_capacity(capacity: usize) -> Self {
        match Self::try_with_capacity(capacity) {
            Ok(value) => value,
            Err(error) => fail(error),
        }
    }

    /// The fallible twin of [`with_capacity`](Self::with_capacity).
    ///
    /// Computes in **O(1)** time (plus the allocation).
    ///
    /// # Errors
    ///
    /// [`Error::CapacityOverflow`] if the capacity needs more than `isize::MAX` bytes (nothing
    /// is allocated); [`Error::AllocFailed`] if the memory cannot be had.
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseMap};
    ///
    /// let map = SparseMap::<u32, u8, u8>::try_with_capacity(10_000).unwrap();
    /// assert_eq!(map.capacity(), 255); // a `u8` width holds at most 255 elements
    /// let err = SparseMap::<u64, u64, usize>::try_with_capacity(usize::MAX).unwrap_err();
    /// assert_eq!(err, Error::CapacityOverflow);
    /// ```
    pub fn try_with_capacity(capacity: usize) -> Result<Self, Error> {
        let mut map = Self::new();
        map.try_reserve(capacity)?;
        Ok(map)
    }

    /// A map of fixed size that never allocates after this call: it holds at most `capacity`
    /// elements, each with a key whose sparse index is below `key_limit`.
    ///
    /// Everything is allocated here: the keys, the values and the sparse pages covering
    /// `0..key_limit`. Past either bound the `try_` calls return an error and the plain calls
    /// panic, leaving the map unchanged. `reserve` and `shrink_to_fit` do nothing. Only the
    /// stable sorts (`sort_by`, `sort_by_key`) allocate, a [`Permutation`] of `len` positions;
    /// the unstable ones (`sort_unstable_by`, `sort_keys`) sort in place. With an observer
    /// ([`observed_by`](Self::observed_by)) every sort allocates the permutation it reports,
    /// and removal events kept past `capacity` removals between clears grow.
    ///
    /// Computes in **O(`capacity + key_limit`)** time.
    ///
    /// # Panics
    ///
    /// If `capacity` exceeds what `D` addresses ([`DenseIndex::MAX_LEN`]), or the allocation
    /// fails, with a message naming both bounds and the [`Error`] that
    /// [`try_bounded`](Self::try_bounded) would return.
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseMap};
    ///
    /// let mut map = SparseMap::<u32, &str, u8>::bounded(2, 128);
    /// map.insert(1, "one");
    /// map.insert(2, "two");
    /// assert_eq!(map.try_insert(3, "three"), Err(Error::Full { capacity: 2 }));
    /// assert_eq!(map.insert(2, "deux"), Some("two")); // overwriting needs no room
    /// assert_eq!(map.len(), 2);
    /// ```
    #[must_use]
    #[track_caller]
    pub fn bounded(capacity: usize, key_limit: usize) -> Self {
        match Self::try_bounded(capacity, key_limit) {
            Ok(value) => value,
            Err(error) => fail_bounded::<Self>(capacity, key_limit, error),
        }
    }

    /// The fallible twin of [`bounded`](Self::bounded).
    ///
    /// Computes in **O(`capacity + key_limit`)** time.
    ///
    /// # Errors
    ///
    /// [`Error::DenseIndexOverflow`] if `capacity` exceeds [`DenseIndex::MAX_LEN`];
    /// [`Error::BoundPastKeys`] if `key_limit` is past the slots keys of type `K` take
    /// ([`Key::SLOTS`]); [`Error::CapacityOverflow`] if the memory
    /// `capacity` and `key_limit` imply exceeds the address space (all three checked before
    /// anything is allocated); [`Error::AllocFailed`] if the memory cannot be had.
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseMap};
    ///
    /// let err = SparseMap::<u32, f32, u8>::try_bounded(300, 1000).unwrap_err();
    /// assert_eq!(err, Error::DenseIndexOverflow { width: "u8", max_len: 255 });
    /// assert!(SparseMap::<u32, f32, u8>::try_bounded(200, 1000).is_ok());
    /// ```
    pub fn try_bounded(capacity: usize, key_limit: usize) -> Result<Self, Error> {
        // Decided before anything is allocated; the values reserved (not written) before the
        // key index writes its pages, so a failure touches no memory.
        SparseSet::<K, D>::bounded_bytes(capacity, key_limit, &[size_of::<V>()])?;
        let mut values = Vec::new();
        try_reserve_exact(&mut values, capacity)?;
        let set = SparseSet::try_bounded(capacity, key_limit)?;
        Ok(Self { set, values, observer: () })
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> SparseMap<K, V, D, O> {
    /// An empty map that reports every change to `observer` (see [`observe`](crate::observe)).
    /// Does not allocate. The observer is taken as it is and told nothing (this is a
    /// `const fn`), so give it fresh, as `new` or `default` makes it; one that followed another
    /// storage (from [`into_unobserved`](Self::into_unobserved)) goes through
    /// [`observed_by`](SparseMap::observed_by), which tells it the keys it now follows.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Removals;
    ///
    /// let mut map = SparseMap::<u32, f32, u32, _>::with_observer(Removals::new());
    /// map.insert(1, 1.0);
    /// map.remove(1);
    /// assert_eq!(map.observer().keys(), &[1]);
    /// ```
    #[must_use]
    pub const fn with_observer(observer: O) -> Self {
        Self { set: SparseSet::new(), values: Vec::new(), observer }
    }

    /// The same map, reporting from now on to `observer`, which is told the rows the map holds
    /// already and, for a bounded map, its capacity ([`Observer::attached`]). Keeps the map's
    /// memory and bounds; the old observer is dropped.
    ///
    /// Computes in **O(1)** time, plus what `attached` costs.
    ///
    /// # Panics
    ///
    /// If the observer's `attached` panics: the observers of this crate reserve their room
    /// there (for the rows it is told of and, for a bounded map, its capacity), and panic if
    /// that memory cannot be had.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Journal;
    ///
    /// let mut map = SparseMap::<u32, u8>::bounded(100, 100).observed_by(Journal::bounded(1024));
    /// map.insert(1, 0);
    /// assert_eq!(map.observer().patch().dirty_rows(), 1);
    /// assert_eq!(map.capacity(), 100);
    /// ```
    #[must_use]
    pub fn observed_by<P: Observer<K, V>>(self, mut observer: P) -> SparseMap<K, V, D, P> {
        let bound = self.is_bounded().then(|| self.capacity());
        observer.attached(self.set.as_slice(), bound);
        SparseMap { set: self.set, values: self.values, observer }
    }

    /// The map without its observer, and the observer. Keeps the map's memory and bounds.
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
    /// let (map, removals) = map.into_unobserved();
    /// assert_eq!(removals.keys(), &[1]);
    /// assert!(map.is_empty());
    /// ```
    #[must_use]
    pub fn into_unobserved(self) -> (SparseMap<K, V, D>, O) {
        (SparseMap { set: self.set, values: self.values, observer: () }, self.observer)
    }

    /// The map's observer.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Removals;
    ///
    /// let map = SparseMap::<u32, u8, u32, Removals<u32>>::default();
    /// assert!(map.observer().is_empty());
    /// ```
    #[inline]
    #[must_use]
    pub fn observer(&self) -> &O {
        &self.observer
    }

    /// The map's observer, mutably: to drain or clear what it collected. The map's rows cannot
    /// be reached through it.
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
    #[inline]
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.observer
    }

    /// The value at dense position `index`, handed out mutably: reported as written. `None`
    /// past the end, where only a lookup with a wrong [`Key`] implementation lands (nothing is
    /// reported then).
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "the tail of `get_mut`, inlined as it is")]
    pub(crate) fn value_mut(&mut self, index: usize) -> Option<&mut V> {
        let value = self.values.get_mut(index)?;
        self.observer.written(index..index + 1);
        Some(value)
    }

    /// Puts `value` at dense position `index` (in bounds), now `key`'s row; returns the old value,
    /// after reporting the replacement: [`renewed`](Observer::renewed) when the row was an older
    /// version's of `key` (`renewed`), else [`replaced`](Observer::replaced).
    #[inline]
    pub(crate) fn replace_at(&mut self, key: K, index: usize, value: V, renewed: bool) -> V {
        let old = core::mem::replace(&mut self.values[index], value);
        report_replacement(&mut self.observer, key, index, &old, &self.values[index], renewed);
        old
    }

    /// Whether the map was made by [`bounded`](Self::bounded): then it never allocates.
    fn is_bounded(&self) -> bool {
        self.set.key_limit().is_some()
    }

    /// The number of elements.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(1, 'a'), (5, 'e')].into_iter().collect();
    /// assert_eq!(map.len(), 2);
    /// ```
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether the map has no elements.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// assert!(SparseMap::<u32, char>::new().is_empty());
    /// ```
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// How many elements the map holds before it reallocates; for a bounded map, its fixed
    /// capacity.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// assert_eq!(SparseMap::<u32, char>::bounded(8, 64).capacity(), 8);
    /// assert!(SparseMap::<u32, char>::with_capacity(8).capacity() >= 8);
    /// ```
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.set.capacity().min(self.values.capacity())
    }

    /// `capacity() - len()`: how many more elements fit without reallocating (for a bounded
    /// map, at all).
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map = SparseMap::<u32, char>::bounded(8, 64);
    /// map.insert(3, 'a');
    /// assert_eq!(map.remaining_capacity(), 7);
    /// ```
    #[must_use]
    pub fn remaining_capacity(&self) -> usize {
        self.capacity() - self.len()
    }

    /// The exclusive bound on sparse indices of a bounded map; `None` for a growable map.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// assert_eq!(SparseMap::<u32, char>::bounded(8, 64).key_limit(), Some(64));
    /// assert_eq!(SparseMap::<u32, char>::new().key_limit(), None);
    /// ```
    #[must_use]
    pub fn key_limit(&self) -> Option<usize> {
        self.set.key_limit()
    }

    /// Bytes of heap memory the map holds: its key index (dense keys, sparse pages and page
    /// directory) plus its values' capacity. Memory the values own themselves (a `String`'s
    /// text) is not counted.
    ///
    /// Computes in **O(directory size)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, u64> = (0..1000).map(|key| (key, 0)).collect();
    /// assert!(map.allocated_bytes() >= 1000 * (size_of::<u32>() + size_of::<u64>()));
    /// ```
    #[must_use]
    pub fn allocated_bytes(&self) -> usize {
        self.set.allocated_bytes() + self.values.capacity() * size_of::<V>()
    }

    /// Stores `value` under `key`; returns the value it replaced.
    ///
    /// A new key is appended at the end of the dense order; an existing key keeps its position
    /// and gets the new value.
    ///
    /// A map holds one key per sparse slot. If `key`'s slot is held by an older version of it
    /// (for an [`Entity`](crate::Entity): the same index, an older generation, so an entity that
    /// was despawned), that element is replaced in place: `key` takes its position, and its
    /// value is returned as `Some(old)`. If the slot holds a newer version, or has held one
    /// since emptied, `key` is stale: the call is refused ([`Error::StaleKey`]) and nothing
    /// changes, so a handle kept past a despawn never overwrites another entity's data nor
    /// comes back.
    ///
    /// Computes in **O(1)** amortised time; allocates when the dense side is full or `key` is the
    /// first in its sparse page (never for a bounded map).
    ///
    /// # Panics
    ///
    /// With a message naming `key` and the [`Error`] that [`try_insert`](Self::try_insert)
    /// would return (which names the limit); the map is then unchanged and `value` dropped.
    ///
    /// ```
    /// use core::num::NonZeroU32;
    /// use sparse_set_core::{Entity, SparseMap};
    ///
    /// let mut map = SparseMap::<u32, &str>::new();
    /// assert_eq!(map.insert(3, "a"), None);
    /// assert_eq!(map.insert(3, "b"), Some("a"));
    ///
    /// // A newer generation of the same slot displaces the older entity's value.
    /// let old = Entity::from_parts(0, NonZeroU32::new(1).unwrap());
    /// let new = Entity::from_parts(0, NonZeroU32::new(2).unwrap());
    /// let mut health = SparseMap::<Entity, u32>::new();
    /// health.insert(old, 10);
    /// assert_eq!(health.insert(new, 99), Some(10));
    /// assert_eq!(health.get(old), None);
    /// assert_eq!(health.keys(), &[new]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        self.insert_full(key, value).1
    }

    /// Stores `value` under `key`; returns its dense position and the value it replaced.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// As [`insert`](Self::insert).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map = SparseMap::<u32, char>::new();
    /// assert_eq!(map.insert_full(9, 'a'), (0, None));
    /// assert_eq!(map.insert_full(4, 'b'), (1, None));
    /// assert_eq!(map.insert_full(9, 'c'), (0, Some('a')));
    /// ```
    #[inline]
    #[track_caller]
    pub fn insert_full(&mut self, key: K, value: V) -> (usize, Option<V>) {
        match self.try_insert_full(key, value) {
            Ok(result) => result,
            Err(error) => fail_insert::<Self, _>(key, error),
        }
    }

    /// The fallible twin of [`insert`](Self::insert).
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// Leaving the map unchanged (and dropping `value`): [`Error::StaleKey`] when `key`'s slot
    /// holds or has held a newer version of it; [`Error::KeyOutOfRange`] and [`Error::Full`] when a new key
    /// does not fit a bounded map, [`Error::DenseIndexOverflow`] when a new key does not fit the
    /// dense width `D`, [`Error::CapacityOverflow`] or [`Error::AllocFailed`] when memory cannot
    /// be had.
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseMap};
    ///
    /// let mut map = SparseMap::<u32, char>::bounded(1, 16);
    /// assert_eq!(map.try_insert(3, 'a'), Ok(None));
    /// assert_eq!(map.try_insert(3, 'b'), Ok(Some('a')));
    /// assert_eq!(map.try_insert(4, 'c'), Err(Error::Full { capacity: 1 }));
    /// assert_eq!(map.try_insert(99, 'd'), Err(Error::KeyOutOfRange { index: 99, limit: 16 }));
    /// assert_eq!(map.values(), &['b']);
    /// ```
    #[inline]
    pub fn try_insert(&mut self, key: K, value: V) -> Result<Option<V>, Error> {
        self.try_insert_full(key, value).map(|(_, old)| old)
    }

    /// The fallible twin of [`insert_full`](Self::insert_full).
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// As [`try_insert`](Self::try_insert); the map is then unchanged.
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseMap};
    ///
    /// let mut map = SparseMap::<u32, char>::bounded(4, 16);
    /// assert_eq!(map.try_insert_full(5, 'a'), Ok((0, None)));
    /// assert_eq!(map.try_insert_full(16, 'b'), Err(Error::KeyOutOfRange { index: 16, limit: 16 }));
    /// ```
    pub fn try_insert_full(&mut self, key: K, value: V) -> Result<(usize, Option<V>), Error> {
        let (index, new) = self.set.try_insert_full(key)?;
        if index < self.values.len() {
            // `key` was present, or (`new`) took over the row of an older version of it: an
            // overwrite never allocates.
            return Ok((index, Some(self.replace_at(key, index, value, new))));
        }
        self.push_value(key, index, value)?;
        Ok((index, None))
    }

    /// Inserts `key`, absent, into the empty slot `vacancy` names (from
    /// `SparseSet::get_index_or_vacancy`, the map unchanged since): a vacant entry's insert,
    /// with no second search. Returns the key's position; on `Err` the map is unchanged.
    pub(crate) fn try_insert_vacant(
        &mut self,
        key: K,
        vacancy: Vacancy,
        value: V,
    ) -> Result<usize, Error> {
        let index = self.set.try_insert_vacant(key, vacancy)?;
        self.push_value(key, index, value)?;
        Ok(index)
    }

    /// Pushes the value of `key`, which the set has just pushed at `index`, and reports it.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "the tail of every insert of a new key")]
    fn push_value(&mut self, key: K, index: usize, value: V) -> Result<(), Error> {
        debug_assert_eq!(index, self.values.len());
        // A new key is last in the set, so a refusal undoes it (`undo_push`). A bounded map
        // reserved its values up front, so this never allocates there.
        // One more value never overflows the capacity (the set holds it already), so a refusal
        // here is a failed allocation.
        // The observer's room too (a `Ticks`' stamps), so its event allocates nothing.
        let reserved = self.values.try_reserve(1).map_err(Error::from);
        if let Err(error) = reserved.and_then(|()| self.observer.try_reserve(1)) {
            self.set.undo_push();
            return Err(error);
        }
        self.values.push(value);
        self.observer.inserted(key, index, &self.values[index]);
        Ok(())
    }

    /// Removes `key` and returns its value, by **swap-remove**: the last element moves into the
    /// vacated position, so the dense order of the remaining elements changes.
    ///
    /// Use [`remove_with_info`](Self::remove_with_info) to learn which element moved.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b'), (3, 'c')].into_iter().collect();
    /// assert_eq!(map.remove(1), Some('a'));
    /// assert_eq!(map.keys(), &[3, 2]); // 3 was last and moved to the front
    /// assert_eq!(map.remove(1), None);
    /// ```
    #[inline]
    pub fn remove(&mut self, key: K) -> Option<V> {
        self.remove_with_info(key).map(|(value, _)| value)
    }

    /// [`remove`](Self::remove) under indexmap's name for it: removes `key` by
    /// **swap-remove** and returns its value.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b'), (3, 'c')].into_iter().collect();
    /// assert_eq!(map.swap_remove(1), Some('a'));
    /// assert_eq!(map.keys(), &[3, 2]);
    /// ```
    #[inline]
    pub fn swap_remove(&mut self, key: K) -> Option<V> {
        self.remove(key)
    }

    /// Removes `key` by **swap-remove**; returns its value and where it was and which element
    /// moved into its place (see [`Removed`]).
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Moved, Removed, SparseMap};
    ///
    /// let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b'), (3, 'c')].into_iter().collect();
    /// let (value, info) = map.remove_with_info(1).unwrap();
    /// assert_eq!(value, 'a');
    /// assert_eq!(info, Removed { index: 0, moved: Some(Moved { key: 3, from: 2 }) });
    /// ```
    #[inline]
    pub fn remove_with_info(&mut self, key: K) -> Option<(V, Removed<K>)> {
        let removed = self.set.remove_with_info(key)?;
        let value = self.values.swap_remove(removed.index);
        self.observer.removed(key, &value, removed);
        Some((value, removed))
    }

    /// Removes the element at dense position `index` by **swap-remove**; returns its key and
    /// value, or `None` if `index` is out of bounds.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b'), (3, 'c')].into_iter().collect();
    /// assert_eq!(map.swap_remove_index(0), Some((1, 'a')));
    /// assert_eq!(map.keys(), &[3, 2]);
    /// assert_eq!(map.swap_remove_index(5), None);
    /// ```
    pub fn swap_remove_index(&mut self, index: usize) -> Option<(K, V)> {
        let key = self.set.get_index(index)?;
        let removed = self.set.remove_index(index);
        let value = self.values.swap_remove(index);
        self.observer.removed(key, &value, removed);
        Some((key, value))
    }

    /// Removes and returns the last element in dense order; nothing else moves.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
    /// assert_eq!(map.pop(), Some((2, 'b')));
    /// assert_eq!(map.keys(), &[1]);
    /// ```
    pub fn pop(&mut self) -> Option<(K, V)> {
        let key = self.set.pop()?;
        let value = self.values.pop();
        debug_assert!(value.is_some());
        let value = value?;
        let index = self.set.len();
        self.observer.removed(key, &value, Removed { index, moved: None });
        Some((key, value))
    }

    /// The value stored under `key`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// assert_eq!(map.get(1), Some(&'a'));
    /// assert_eq!(map.get(2), None);
    /// ```
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "a wrapper of `SparseSet::get_index_of`, inlined as it is"
    )]
    #[must_use]
    pub fn get(&self, key: K) -> Option<&V> {
        // The values are as many as the keys, so the bound check fails only for a miss.
        let index = self.set.get_index_below(key, self.values.len())?;
        Some(&self.values[index])
    }

    /// The value stored under `key`, mutably.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, u32> = [(1, 10)].into_iter().collect();
    /// if let Some(value) = map.get_mut(1) {
    ///     *value += 1;
    /// }
    /// assert_eq!(map[1], 11);
    /// ```
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "a wrapper of `SparseSet::get_index_of`, inlined as it is"
    )]
    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        // The values are as many as the keys, so no position the set answers fails the bound
        // check, and the set's miss (`usize::MAX`) always does. (Through `get_index_below`, as
        // `get` reads, the loop's paths meet again before the write: 19 instructions a key
        // in a loop of `get_mut` with `u32` keys this way, 22 that way.)
        self.value_mut(self.set.get_index_of_or_max(key))
    }

    /// The key as stored and its value.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// assert_eq!(map.get_key_value(1), Some((1, &'a')));
    /// assert_eq!(map.get_key_value(2), None);
    /// ```
    #[inline]
    #[must_use]
    pub fn get_key_value(&self, key: K) -> Option<(K, &V)> {
        self.get(key).map(|value| (key, value))
    }

    /// The dense position, key and value of `key`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
    /// assert_eq!(map.get_full(2), Some((1, 2, &'b')));
    /// ```
    #[inline]
    #[must_use]
    pub fn get_full(&self, key: K) -> Option<(usize, K, &V)> {
        let index = self.set.get_index_of(key)?;
        Some((index, key, &self.values[index]))
    }

    /// Whether `key` is in the map.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(1, 'a')].into_iter().collect();
    /// assert!(map.contains_key(1));
    /// assert!(!map.contains_key(2));
    /// ```
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "a wrapper of `SparseSet::get_index_of`, inlined as it is"
    )]
    #[must_use]
    pub fn contains_key(&self, key: K) -> bool {
        self.set.contains(key)
    }

    /// The dense position of `key`, if it is in the map.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(8, 'a'), (9, 'b')].into_iter().collect();
    /// assert_eq!(map.get_index_of(9), Some(1));
    /// assert_eq!(map.get_index_of(10), None);
    /// ```
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "a wrapper of `SparseSet::get_index_of`, inlined as it is"
    )]
    #[must_use]
    pub fn get_index_of(&self, key: K) -> Option<usize> {
        self.set.get_index_of(key)
    }

    /// The key and value at dense position `index`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(8, 'a'), (9, 'b')].into_iter().collect();
    /// assert_eq!(map.get_index(1), Some((9, &'b')));
    /// assert_eq!(map.get_index(2), None);
    /// ```
    #[inline]
    #[must_use]
    pub fn get_index(&self, index: usize) -> Option<(K, &V)> {
        Some((self.set.get_index(index)?, &self.values[index]))
    }

    /// The key and mutable value at dense position `index`. The key cannot be changed.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, u32> = [(8, 80)].into_iter().collect();
    /// let (key, value) = map.get_index_mut(0).unwrap();
    /// *value += key;
    /// assert_eq!(map[8], 88);
    /// ```
    #[inline]
    pub fn get_index_mut(&mut self, index: usize) -> Option<(K, &mut V)> {
        let key = self.set.get_index(index)?;
        Some((key, self.value_mut(index)?))
    }

    /// Mutable references to the values of several keys at once; `None` for a key not in the
    /// map.
    ///
    /// Computes in **O(N²)** time for `N` keys (they are compared pairwise).
    ///
    /// # Panics
    ///
    /// If two of `keys` are equal, whether or not they are in the map.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, u32> = [(1, 10), (2, 20)].into_iter().collect();
    /// let [a, b, c] = map.get_disjoint_mut([1, 2, 3]);
    /// core::mem::swap(a.unwrap(), b.unwrap());
    /// assert!(c.is_none());
    /// assert_eq!((map[1], map[2]), (20, 10));
    /// ```
    ///
    /// ```should_panic
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, u32> = [(1, 10)].into_iter().collect();
    /// let _ = map.get_disjoint_mut([1, 1]); // panics: duplicate key
    /// ```
    #[track_caller]
    pub fn get_disjoint_mut<const N: usize>(&mut self, keys: [K; N]) -> [Option<&mut V>; N] {
        let positions = disjoint::positions(&self.set, keys);
        for index in positions.into_iter().flatten() {
            self.observer.written(index..index + 1);
        }
        disjoint::rows_mut(&mut self.values, positions)
    }

    /// The keys in dense order, as a slice. Keys are never mutable from outside.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(8, 'a'), (9, 'b')].into_iter().collect();
    /// assert_eq!(map.keys(), &[8, 9]);
    /// ```
    #[inline]
    #[must_use]
    pub fn keys(&self) -> &[K] {
        self.set.as_slice()
    }

    /// The values in dense order, as a slice: `values()[i]` belongs to `keys()[i]`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(8, 'a'), (9, 'b')].into_iter().collect();
    /// assert_eq!(map.values(), &['a', 'b']);
    /// ```
    #[inline]
    #[must_use]
    pub fn values(&self) -> &[V] {
        &self.values
    }

    /// The values in dense order, as a mutable slice. Only the values can change: the slice has
    /// a fixed length and the keys stay where they are.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, f32> = [(8, 1.0), (9, 2.0)].into_iter().collect();
    /// for value in map.values_mut() {
    ///     *value *= 10.0;
    /// }
    /// assert_eq!(map.values(), &[10.0, 20.0]);
    /// ```
    #[inline]
    pub fn values_mut(&mut self) -> &mut [V] {
        self.observer.written(0..self.values.len());
        &mut self.values
    }

    /// The keys and the values, as two slices of one length: what a [`Group`](crate::Group)
    /// and parallel iteration work on.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(8, 'a'), (9, 'b')].into_iter().collect();
    /// let columns = map.columns();
    /// assert_eq!((columns.keys, columns.values), (&[8, 9][..], &['a', 'b'][..]));
    /// ```
    #[inline]
    #[must_use]
    pub fn columns(&self) -> Columns<'_, K, V> {
        // The values cut to the keys' length (which they have): one length for both.
        let keys = self.set.as_slice();
        Columns { keys, values: &self.values[..keys.len()] }
    }

    /// The keys, read-only, and the values, mutable, as two slices of one length.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, u32> = [(8, 1), (9, 2)].into_iter().collect();
    /// let columns = map.columns_mut();
    /// for (key, value) in columns.keys.iter().zip(columns.values) {
    ///     *value += key;
    /// }
    /// assert_eq!(map.values(), &[9, 11]);
    /// ```
    #[inline]
    pub fn columns_mut(&mut self) -> ColumnsMut<'_, K, V> {
        self.observer.written(0..self.values.len());
        let keys = self.set.as_slice();
        ColumnsMut { keys, values: &mut self.values[..keys.len()] }
    }

    /// The key index: which keys are stored, at which dense positions.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(8, 'a')].into_iter().collect();
    /// assert!(map.as_sparse_set().contains(8));
    /// ```
    #[inline]
    #[must_use]
    pub fn as_sparse_set(&self) -> &SparseSet<K, D> {
        &self.set
    }

    /// Iterates over the keys and values in dense order.
    ///
    /// Computes in **O(1)** time per step.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(8, 'a'), (9, 'b')].into_iter().collect();
    /// let pairs: Vec<(u32, &char)> = map.iter().collect();
    /// assert_eq!(pairs, [(8, &'a'), (9, &'b')]);
    /// ```
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter { inner: self.set.as_slice().iter().zip(&self.values) }
    }

    /// Iterates over the keys and mutable values in dense order.
    ///
    /// Computes in **O(1)** time per step.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, u32> = [(8, 1), (9, 2)].into_iter().collect();
    /// for (key, value) in map.iter_mut() {
    ///     *value += key;
    /// }
    /// assert_eq!(map.values(), &[9, 11]);
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, K, V> {
        self.observer.written(0..self.values.len());
        IterMut { inner: self.set.as_slice().iter().zip(&mut self.values) }
    }

    /// The entry of `key`, for reading, inserting or removing in place.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut counts = SparseMap::<u32, u32>::new();
    /// for key in [3, 5, 3, 3] {
    ///     *counts.entry(key).or_insert(0) += 1;
    /// }
    /// assert_eq!((counts[3], counts[5]), (3, 1));
    /// ```
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V, D, O> {
        // A key outside the prefix is searched for once: a vacant entry keeps where its slot is.
        match self.set.get_index_or_vacancy(key) {
            Ok(index) => Entry::Occupied(OccupiedEntry { map: self, index }),
            Err(vacancy) => Entry::Vacant(VacantEntry { map: self, key, vacancy }),
        }
    }

    /// The value of `key`, inserting `make()` first if `key` is absent. As an
    /// [`entry`](Self::entry)'s vacant insert, a row an older version of `key` still holds is
    /// replaced in place and its value dropped ([`insert`](Self::insert) returns it).
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// As [`insert`](Self::insert), when `key` is absent and refused (it does not fit, or is
    /// older than the version its slot holds).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut lists = SparseMap::<u32, Vec<u32>>::new();
    /// lists.get_or_insert_with(1, Vec::new).push(10);
    /// lists.get_or_insert_with(1, Vec::new).push(11);
    /// assert_eq!(lists[1], [10, 11]);
    /// ```
    #[track_caller]
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        self.entry(key).or_insert_with(make)
    }

    /// The fallible twin of [`get_or_insert_with`](Self::get_or_insert_with): the value of
    /// `key`, inserting `make()` first if `key` is absent.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// When `key` is absent and refused, as [`try_insert`](Self::try_insert): the map is then
    /// unchanged and the value `make` made is dropped.
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseMap};
    ///
    /// let mut lists = SparseMap::<u32, Vec<u32>>::bounded(1, 16);
    /// lists.try_get_or_insert_with(1, Vec::new)?.push(10);
    /// lists.try_get_or_insert_with(1, Vec::new)?.push(11);
    /// assert_eq!(lists[1], [10, 11]);
    /// assert_eq!(lists.try_get_or_insert_with(2, Vec::new), Err(Error::Full { capacity: 1 }));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn try_get_or_insert_with(
        &mut self,
        key: K,
        make: impl FnOnce() -> V,
    ) -> Result<&mut V, Error> {
        match self.entry(key) {
            Entry::Occupied(entry) => Ok(entry.into_mut()),
            Entry::Vacant(entry) => entry.try_insert(make()),
        }
    }

    /// Removes every element, yielding the keys and values in dense order.
    ///
    /// The map is empty as soon as this is called, even if the iterator is leaked (the values
    /// are then leaked too); values not yet yielded are dropped with the iterator. The map keeps
    /// its memory. A map with an observer reports every row's removal when `drain` is called,
    /// front to back, each with `moved: None` (every row from its position on is gone), before
    /// the rows are handed out; if a hook panics, the rows after it are still reported while
    /// the panic unwinds (a second panicking hook aborts, as in every bulk removal) and the map
    /// is emptied, dropping their values.
    ///
    /// Computes in **O(len)** time when called (each key's slot is reset, and with an observer
    /// each row reported), plus **O(1)** per element yielded or dropped.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(8, 'a'), (9, 'b')].into_iter().collect();
    /// assert_eq!(map.drain().collect::<Vec<_>>(), [(8, 'a'), (9, 'b')]);
    /// assert!(map.is_empty());
    /// ```
    pub fn drain(&mut self) -> Drain<'_, K, V, O> {
        if O::OBSERVES {
            // Every row's removal, front to back, while the rows are still there to be seen.
            report_drain(
                self,
                self.values.len(),
                |map, index| {
                    let (key, value) = (map.set.as_slice()[index], &map.values[index]);
                    map.observer.removed(key, value, Removed { index, moved: None });
                },
                |map| {
                    map.set.clear();
                    map.values.clear();
                },
            );
        }
        Drain { inner: self.set.drain().zip(self.values.drain(..)), observer: PhantomData }
    }

    /// Removes every element, dropping the values. Keeps all allocated memory.
    ///
    /// Computes in **O(len)** time (each value is dropped; **O(1)** if `V` needs no drop).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(8, 'a'), (9, 'b')].into_iter().collect();
    /// map.clear();
    /// assert!(map.is_empty());
    /// map.insert(9, 'c');
    /// assert_eq!(map.get_index_of(9), Some(0));
    /// ```
    pub fn clear(&mut self) {
        if O::OBSERVES {
            self.truncate(0);
        } else {
            self.set.clear();
            self.values.clear();
        }
    }

    /// Keeps the first `len` elements in dense order and drops the rest; nothing else moves.
    /// Does nothing if `len >= self.len()`.
    ///
    /// Computes in **O(removed elements)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b'), (3, 'c')].into_iter().collect();
    /// map.truncate(1);
    /// assert_eq!(map.keys(), &[1]);
    /// assert!(!map.contains_key(3));
    /// ```
    pub fn truncate(&mut self, len: usize) {
        if O::OBSERVES {
            // Row by row from the end, so that every removal is reported on a consistent map.
            pop_down_to(self, len);
        } else {
            self.set.truncate(len);
            self.values.truncate(len);
        }
    }

    /// Checks the set's invariants and that every key has exactly one value; panics describing
    /// the first one broken.
    ///
    /// Computes in **O(len)** time. Meant for tests: call it after each operation. It checks in release builds
    /// too (the checks are `assert!`, not `debug_assert!`).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, char> = [(4, 'a'), (2, 'b')].into_iter().collect();
    /// map.assert_invariants();
    /// ```
    #[doc(hidden)]
    pub fn assert_invariants(&self) {
        self.set.assert_invariants();
        assert_eq!(
            self.values.len(),
            self.set.len(),
            "the map has {} values for {} keys",
            self.values.len(),
            self.set.len()
        );
        if self.is_bounded() {
            assert!(
                self.values.capacity() >= self.set.capacity(),
                "a bounded map lost its value capacity"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Traits
