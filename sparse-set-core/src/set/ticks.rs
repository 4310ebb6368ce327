//! Change ticks of a set whose observer [`Tracks`]: the keys added or replaced since a tick.
//! A set has no values to write, so a key changes when it is added, or replaced by a newer
//! version of itself.

use crate::dense::DenseIndex;
use crate::key::Key;
use crate::observe::{Observer, Since, Tick, Ticks, Tracks};
use crate::set::SparseSet;

// The bound is on each method, not on the block, as a map's (see `map/ticks.rs`).
impl<K: Key, D: DenseIndex, O: Observer<K, ()>> SparseSet<K, D, O> {
    /// The set's change ticks.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let set = SparseSet::<u32, u32, Ticks>::default();
    /// assert_eq!(set.ticks().now().get(), 1);
    /// ```
    #[inline]
    #[must_use]
    pub fn ticks(&self) -> &Ticks
    where
        O: Tracks,
    {
        self.observer().ticks()
    }

    /// The set's change ticks, mutably: to [`advance`](Ticks::advance) the clock.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::observe::{Journal, Ticks};
    ///
    /// // Ticks first in a tuple of observers.
    /// let mut set = SparseSet::<u32, u32, (Ticks, Journal<u32>)>::default();
    /// let start = set.ticks_mut().advance();
    /// assert_ne!(set.ticks().now(), start);
    /// ```
    #[inline]
    pub fn ticks_mut(&mut self) -> &mut Ticks
    where
        O: Tracks,
    {
        self.observer_mut().ticks_mut()
    }

    /// The keys changed after `since`, in dense order: added, or replaced by a newer version
    /// of themselves (an [`Entity`](crate::Entity) of a newer generation).
    ///
    /// Computes in **O(1)** time; the iterator runs in O(len).
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let mut frozen = SparseSet::<u32, u32, Ticks>::default();
    /// frozen.extend([1, 2]);
    /// let seen = frozen.ticks_mut().advance();
    /// frozen.insert(3);
    /// frozen.insert(1); // already there: no change
    /// assert_eq!(frozen.changed_since(seen).collect::<Vec<_>>(), [3]);
    /// ```
    #[must_use]
    pub fn changed_since(&self, since: Tick) -> Since<'_, K>
    where
        O: Tracks,
    {
        self.ticks().rows_changed_since(self.as_slice(), since)
    }

    /// The keys added after `since`, in dense order.
    ///
    /// Computes in **O(1)** time; the iterator runs in O(len).
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let mut frozen = SparseSet::<u32, u32, Ticks>::default();
    /// frozen.insert(1);
    /// let seen = frozen.ticks_mut().advance();
    /// frozen.insert(2);
    /// assert_eq!(frozen.added_since(seen).collect::<Vec<_>>(), [2]);
    /// ```
    #[must_use]
    pub fn added_since(&self, since: Tick) -> Since<'_, K>
    where
        O: Tracks,
    {
        self.ticks().rows_added_since(self.as_slice(), since)
    }
}
