//! Change ticks of a map: the rows changed or added since a tick (for a map whose observer
//! [`Tracks`]), and the writes that decide what counts as a change (`set_if_neq`, and
//! `get_mut_untracked`, which reports nothing).

use crate::dense::DenseIndex;
use crate::key::Key;
use crate::map::SparseMap;
use crate::observe::{Observer, RowChanges, Since, Tick, Ticks, Tracks};
use crate::storage::TrackedStorage;

// The bound is on each method, not on the block: asking an untracked map for changes then
// reports `Tracks`' own message (rustc shows a block's unmet bound only as a missing method).
impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> SparseMap<K, V, D, O> {
    /// The map's change ticks.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let map = SparseMap::<u32, u8, u32, Ticks>::default();
    /// assert_eq!(map.ticks().now().get(), 1);
    /// ```
    #[inline]
    #[must_use]
    pub fn ticks(&self) -> &Ticks
    where
        O: Tracks,
    {
        self.observer().ticks()
    }

    /// The map's change ticks, mutably: to [`advance`](Ticks::advance) the clock.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::{Journal, Ticks};
    ///
    /// // Ticks first in a tuple of observers.
    /// let mut map = SparseMap::<u32, u8, u32, (Ticks, Journal<u32>)>::default();
    /// let start = map.ticks_mut().advance();
    /// assert_ne!(map.ticks().now(), start);
    /// ```
    #[inline]
    pub fn ticks_mut(&mut self) -> &mut Ticks
    where
        O: Tracks,
    {
        self.observer_mut().ticks_mut()
    }

    /// The keys of the rows changed after `since`, in dense order: written through `get_mut`
    /// and the other mutable accesses, replaced by an insert, or added.
    ///
    /// Computes in **O(1)** time; the iterator runs in O(len).
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let mut map = SparseMap::<u32, f32, u32, Ticks>::default();
    /// map.extend([(1, 1.0), (2, 2.0), (3, 3.0)]);
    /// let seen = map.ticks_mut().advance();
    /// map[3] += 1.0;
    /// assert_eq!(map.changed_since(seen).collect::<Vec<_>>(), [3]);
    /// for value in map.values_mut() {
    ///     *value *= 2.0; // one summary stamp: every row changed
    /// }
    /// assert_eq!(map.changed_since(seen).count(), 3);
    /// ```
    #[must_use]
    pub fn changed_since(&self, since: Tick) -> Since<'_, K>
    where
        O: Tracks,
    {
        self.ticks().rows_changed_since(self.keys(), since)
    }

    /// The keys of the rows added after `since`, in dense order. An insert over a present key
    /// is a change, not an addition; an [`Entity`](crate::Entity) that takes over the row an
    /// older generation of its slot left behind (despawned from the allocator alone, its rows
    /// never removed) is an addition ([`Observer::renewed`]).
    ///
    /// Computes in **O(1)** time; the iterator runs in O(len).
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let mut map = SparseMap::<u32, f32, u32, Ticks>::default();
    /// map.insert(1, 1.0);
    /// let seen = map.ticks_mut().advance();
    /// map.insert(2, 2.0);
    /// map.insert(1, 1.5); // replaced: changed, not added
    /// assert_eq!(map.added_since(seen).collect::<Vec<_>>(), [2]);
    /// ```
    #[must_use]
    pub fn added_since(&self, since: Tick) -> Since<'_, K>
    where
        O: Tracks,
    {
        self.ticks().rows_added_since(self.keys(), since)
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> SparseMap<K, V, D, O> {
    /// Replaces the value of `key` only if `value` differs from it; returns whether it did.
    /// A replacement is reported as one (to change ticks it is a change; an equal value is
    /// not, unlike a write through `get_mut`). Does nothing when `key` is absent.
    ///
    /// Computes in **O(1)** time, plus the comparison.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Ticks>::default();
    /// map.insert(1, 7);
    /// let seen = map.ticks_mut().advance();
    /// assert!(!map.set_if_neq(1, 7));
    /// assert_eq!(map.changed_since(seen).count(), 0);
    /// assert!(map.set_if_neq(1, 8));
    /// assert_eq!(map.changed_since(seen).count(), 1);
    /// assert!(!map.set_if_neq(2, 8)); // absent: nothing inserted
    /// ```
    pub fn set_if_neq(&mut self, key: K, value: V) -> bool
    where
        V: PartialEq,
    {
        let Some(index) = self.set.get_index_of(key) else { return false };
        if self.values[index] == value {
            return false;
        }
        self.replace_at(key, index, value, false);
        true
    }

    /// The value of `key`, mutably, **without reporting the write**: no change tick, no
    /// journal entry (bevy's `bypass_change_detection`). For writes that must not count, such
    /// as caches kept in the value; a mirror fed by a [`Journal`](crate::observe::Journal) does
    /// not see them.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Ticks>::default();
    /// map.insert(1, 0);
    /// let seen = map.ticks_mut().advance();
    /// *map.get_mut_untracked(1).unwrap() = 9;
    /// assert_eq!(map[1], 9);
    /// assert_eq!(map.changed_since(seen).count(), 0);
    /// ```
    #[inline]
    pub fn get_mut_untracked(&mut self, key: K) -> Option<&mut V> {
        let index = self.set.get_index_of(key)?;
        self.values.get_mut(index)
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V> + Tracks> TrackedStorage
    for SparseMap<K, V, D, O>
{
    type Ticks = Ticks;

    #[inline]
    fn changes(&self) -> RowChanges<'_> {
        SparseMap::ticks(self).changes()
    }

    #[inline]
    fn ticks(&self) -> &Ticks {
        SparseMap::ticks(self)
    }

    #[inline]
    fn ticks_mut(&mut self) -> &mut Ticks {
        SparseMap::ticks_mut(self)
    }
}
