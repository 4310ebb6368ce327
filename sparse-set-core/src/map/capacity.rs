//! A map's memory: reserving and releasing it, and copying it fallibly.

use alloc::vec::Vec;
use core::ops::Range;

use crate::dense::DenseIndex;
use crate::error::{Error, fail, shrink, try_reserve, try_reserve_exact};
use crate::key::Key;
use crate::map::SparseMap;
use crate::observe::Observer;

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> SparseMap<K, V, D, O> {
    /// Reserves room for `additional` more elements on the dense side. Does nothing for a
    /// bounded map.
    ///
    /// Computes in **O(len)** time when it reallocates.
    ///
    /// `additional` is capped to the elements the dense width still has room for, so a narrow
    /// width never reserves room it cannot use.
    ///
    /// # Panics
    ///
    /// If the new capacity needs more than `isize::MAX` bytes or the allocation fails, with the
    /// message of the [`Error`] that [`try_reserve`](Self::try_reserve) would return; the
    /// elements are then unchanged.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map = SparseMap::<u32, char>::new();
    /// map.reserve(10);
    /// assert!(map.capacity() >= 10);
    /// let mut small = SparseMap::<u32, [u8; 64], u8>::new();
    /// small.reserve(10_000);
    /// assert_eq!(small.capacity(), 255);
    /// ```
    #[track_caller]
    pub fn reserve(&mut self, additional: usize) {
        if let Err(error) = self.try_reserve(additional) {
            fail(error);
        }
    }

    /// The fallible twin of [`reserve`](Self::reserve).
    ///
    /// Computes in **O(len)** time when it reallocates.
    ///
    /// # Errors
    ///
    /// [`Error::CapacityOverflow`] if the new capacity needs more than `isize::MAX` bytes
    /// (nothing is allocated); [`Error::AllocFailed`] if the memory cannot be had. The
    /// elements are unchanged either way (the capacity of one side may have grown).
    ///
    /// `Ok` is not a promise of room for `additional` elements: as [`reserve`](Self::reserve),
    /// a bounded map reserves nothing and a request past what the dense width addresses is
    /// capped, so the insert past [`remaining_capacity`](Self::remaining_capacity) is the one
    /// that returns [`Error::Full`] or [`Error::DenseIndexOverflow`].
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseMap};
    ///
    /// let mut map = SparseMap::<u64, char, usize>::new();
    /// assert!(map.try_reserve(10).is_ok());
    /// assert_eq!(map.try_reserve(usize::MAX), Err(Error::CapacityOverflow));
    /// ```
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        if !self.is_bounded() {
            let additional = self.set.cap_additional(additional);
            self.set.try_reserve(additional)?;
            try_reserve(&mut self.values, additional)?;
            self.observer.try_reserve(additional)?;
        }
        Ok(())
    }

    /// A hint before inserting new keys that fill `slots` (their [`Key::sparse_slot`]s): lays
    /// the sparse index out over them where room for that many keys is reserved; see
    /// [`SparseSet::reserve_slots`](crate::SparseSet::reserve_slots). Never fails.
    ///
    /// Computes in **O(slots added)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    ///
    /// let mut map = SparseMap::<u32, char>::new();
    /// map.reserve(1_000);
    /// map.reserve_slots(0..1_000);
    /// map.extend((0..1_000).map(|key| (key, 'a')));
    /// assert_eq!(map.len(), 1_000);
    /// ```
    #[inline]
    pub fn reserve_slots(&mut self, slots: Range<u64>) {
        self.set.reserve_slots(slots);
    }

    /// Releases spare dense capacity and every sparse page that no key uses. Does nothing for a
    /// bounded map, which keeps its memory so it never allocates again. Where the allocator
    /// refuses a smaller allocation, that part keeps its memory: this never fails.
    ///
    /// Computes in **O(allocated sparse slots)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, u32> = (0..100_000).step_by(1000).map(|k| (k, k)).collect();
    /// map.retain(|key, _| key < 1000);
    /// map.shrink_to_fit();
    /// assert_eq!(map.as_sparse_set().sparse_pages(), 1);
    /// assert_eq!(map.capacity(), 1);
    /// ```
    pub fn shrink_to_fit(&mut self) {
        if !self.is_bounded() {
            self.set.shrink_to_fit();
            shrink(&mut self.values);
        }
    }

    /// The fallible twin of `clone`: a copy of the keys and values; a bounded map's copy is
    /// bounded alike, with its values' capacity reserved.
    ///
    /// Computes in **O(len + allocated sparse slots)** time.
    ///
    /// # Errors
    ///
    /// [`Error::AllocFailed`] if the map's own memory (keys, pages, the values' array) cannot
    /// be had; nothing is allocated then. `V::clone` allocates as it always does: a `String`
    /// value's clone aborts when memory cannot be had, as it would anywhere.
    ///
    /// # Panics
    ///
    /// If `V::clone` panics; the values cloned so far are dropped. If the observer's `clone`
    /// panics: the shipped observers that keep memory (`Ticks`, `Journal`, removal events)
    /// panic where theirs cannot be had.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let map: SparseMap<u32, String> = [(4, "four".to_string())].into_iter().collect();
    /// let copy = map.try_clone().unwrap();
    /// assert_eq!(copy[4], "four");
    /// ```
    pub fn try_clone(&self) -> Result<Self, Error>
    where
        V: Clone,
        O: Clone,
    {
        let set = self.set.try_clone()?;
        let mut values = Vec::new();
        let capacity = if self.is_bounded() { self.values.capacity() } else { self.values.len() };
        try_reserve_exact(&mut values, capacity)?;
        values.extend_from_slice(&self.values);
        Ok(Self { set, values, observer: self.observer.clone() })
    }
}
