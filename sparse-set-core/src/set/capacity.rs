//! A set's memory: reserving and releasing it, what it holds, and copying it fallibly.

use alloc::vec::Vec;
use core::ops::Range;

use crate::dense::{DenseIndex, cap_rows};
use crate::error::{Error, fail, shrink, try_reserve, try_reserve_exact};
use crate::key::Key;
use crate::observe::Observer;
use crate::pages::Prefix;
use crate::set::SparseSet;

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> SparseSet<K, D, O> {
    /// Reserves room for `additional` more keys on the dense side (capped to what the dense
    /// width still addresses). Does nothing for a bounded set.
    ///
    /// Computes in **O(len)** time when it reallocates.
    ///
    /// # Panics
    ///
    /// If the new capacity needs more than `isize::MAX` bytes or the allocation fails, with the
    /// message of the [`Error`] that [`try_reserve`](Self::try_reserve) would return; the set
    /// is then unchanged.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set = SparseSet::<u32>::new();
    /// set.reserve(10);
    /// assert!(set.capacity() >= 10);
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
    /// (nothing is allocated); [`Error::AllocFailed`] if the memory cannot be had. The set is
    /// unchanged either way.
    ///
    /// `Ok` is not a promise of room for `additional` keys: as [`reserve`](Self::reserve), a
    /// bounded set reserves nothing and a request past what the dense width addresses is
    /// capped, so the insert past [`remaining_capacity`](Self::remaining_capacity) is the one
    /// that returns [`Error::Full`] or [`Error::DenseIndexOverflow`].
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set = SparseSet::<u32>::new();
    /// assert!(set.try_reserve(10).is_ok());
    /// ```
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        if self.bounds.is_none() {
            let additional = self.cap_additional(additional);
            try_reserve(&mut self.dense, additional)?;
            self.observer.try_reserve(additional)?;
        }
        Ok(())
    }

    /// A hint before inserting new keys that fill `slots` (their [`Key::sparse_slot`]s, such as
    /// a batch of entities just spawned): the sparse index's flat prefix is extended over them
    /// at once, so that each insert writes its slot with one store instead of growing the index
    /// page by page. It does so only where the set has room reserved for that many keys
    /// ([`reserve`](Self::reserve)), so the sparse memory it allocates follows a dense
    /// reservation already made, and only where those keys fill at least half of the slots it
    /// adds (a range far past the set's keys adds nothing). Otherwise, or for a bounded set
    /// (whose index is allocated whole), it does nothing. Never fails: an allocation it cannot
    /// make is left for the inserts to report.
    ///
    /// Computes in **O(slots added)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set = SparseSet::<u32>::new();
    /// set.reserve(1_000);
    /// set.reserve_slots(0..1_000);
    /// set.extend(0..1_000);
    /// assert_eq!(set.len(), 1_000);
    /// ```
    pub fn reserve_slots(&mut self, slots: Range<u64>) {
        let room = (self.dense.capacity() - self.dense.len()) as u64;
        if self.bounds.is_none() && slots.end.saturating_sub(slots.start) <= room {
            let prefix = self.sparse.prefix_slots();
            let joined = self.sparse.try_reserve_slots(slots.start, slots.end);
            // Pages holding keys joined the prefix, or pages that slots emptied before left
            // graves in: their slots get their versions.
            let grown = self.sparse.prefix_slots() > prefix;
            if K::SLOT_AND_VERSION_ARE_KEY
                && (joined == Ok(true) || (grown && !self.graves.is_unused()))
            {
                self.fill_versions(prefix);
            }
        }
    }

    /// Moves the versions of the empty slots of the prefix from slot `from` on into the graves:
    /// what [`shrink_to_fit`](Self::shrink_to_fit) does for the pages that leave the prefix,
    /// so that their slots go on refusing older keys. (If the pages stay, `fill_versions` moves
    /// the versions back.)
    fn bury_prefix_versions_from(&mut self, from: usize) {
        let graves = &mut self.graves;
        for (slot, cell) in (from as u64..).zip(self.sparse.prefix_cells_mut_from(from)) {
            let version = Prefix::version_in(cell);
            if cell[0] == D::ZERO && version != 0 {
                graves.bury(slot, version);
            }
        }
    }

    /// `additional`, capped to the keys the dense width still has room for: a narrow width
    /// never reserves room it cannot use.
    pub(crate) fn cap_additional(&self, additional: usize) -> usize {
        cap_rows::<D>(additional, self.dense.len())
    }

    /// Releases spare dense capacity and every sparse page that no key uses. Does nothing for
    /// a bounded set, which keeps its memory so it never allocates again.
    ///
    /// Shrinking moves memory into smaller allocations; where the allocator refuses one, that
    /// part keeps its memory (this never fails, and never aborts).
    ///
    /// A set of versioned keys (`Entity`) keeps the version of every slot it has emptied, so
    /// that it refuses older handles there (see "Stale keys" in the [`set`](crate::set) module
    /// docs): the versions of the prefix pages this releases move to where it keeps those of
    /// the other pages (4 bytes a slot where they lie dense), and those stay.
    ///
    /// Computes in **O(allocated sparse slots)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = (0..100_000).step_by(1000).collect();
    /// set.retain(|&key| key < 1000);
    /// set.shrink_to_fit();
    /// assert_eq!(set.sparse_pages(), 1);
    /// ```
    pub fn shrink_to_fit(&mut self) {
        if self.bounds.is_some() {
            return;
        }
        shrink(&mut self.dense);
        if K::SLOT_AND_VERSION_ARE_KEY {
            self.bury_prefix_versions_from(self.sparse.prefix_slots_kept_by_release());
        }
        self.sparse.release_empty_pages();
        // Pages that joined the prefix in the rebuild bring no versions: give them their keys'
        // (and their graves').
        self.fill_versions(0);
        self.graves.shrink();
    }

    /// The number of sparse pages allocated. Each covers 512 consecutive slots; a page with up to
    /// 8 keys is compact (48 bytes with `u32`), a fuller one is a plain array (2 KiB with `u32`).
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let set: SparseSet<u32> = [0, 1, 4096].into_iter().collect();
    /// assert_eq!(set.sparse_pages(), 2);
    /// ```
    #[must_use]
    pub fn sparse_pages(&self) -> usize {
        self.sparse.page_count()
    }

    /// Bytes of heap memory the set holds: its dense capacity plus every sparse page and page
    /// directory.
    ///
    /// Computes in **O(directory size)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let few: SparseSet<u32> = (0..5).collect();
    /// let many: SparseSet<u32> = (0..10_000).collect();
    /// assert!(few.allocated_bytes() < 512); // one compact page
    /// assert!(many.allocated_bytes() >= 10_000 * 2 * size_of::<u32>()); // full pages + keys
    /// ```
    #[must_use]
    pub fn allocated_bytes(&self) -> usize {
        self.dense.capacity() * size_of::<K>()
            + self.sparse.allocated_bytes()
            + self.graves.allocated_bytes()
    }

    /// The fallible twin of `clone`: a copy of the set, bounded alike (with its full capacity)
    /// if the set is bounded.
    ///
    /// Computes in **O(len + allocated sparse slots)** time.
    ///
    /// # Errors
    ///
    /// [`Error::AllocFailed`] if the memory cannot be had; nothing is allocated then.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let set: SparseSet<u32> = [4, 2].into_iter().collect();
    /// let copy = set.try_clone().unwrap();
    /// assert_eq!(copy.as_slice(), &[4, 2]);
    /// ```
    pub fn try_clone(&self) -> Result<Self, Error>
    where
        O: Clone,
    {
        let capacity = self.bounds.map_or(self.dense.len(), |bounds| bounds.capacity);
        let mut dense = Vec::new();
        try_reserve_exact(&mut dense, capacity)?;
        dense.extend_from_slice(&self.dense);
        Ok(Self {
            sparse: self.sparse.try_clone()?,
            dense,
            bounds: self.bounds,
            observer: self.observer.clone(),
            graves: self.graves.try_clone()?,
        })
    }
}
