//! Adding keys to a set: the common case (an empty slot of the sparse prefix, one cell read
//! and written), the rarer lanes outside the prefix, and a slot held by another version of the
//! key. Every check that can refuse a key (its version, the bounds, memory) runs before the
//! first write, so a refused key leaves the set as it was; an accepted one leaves the invariant
//! of the [`set`](crate::set) module true before the observer hears of it.

use crate::dense::DenseIndex;
use crate::error::{Error, fail_insert};
use crate::key::{Key, check_not_stale};
use crate::observe::Observer;
use crate::pages::{Prefix, Spot};
use crate::set::{Bounds, SparseSet, Vacancy};

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> SparseSet<K, D, O> {
    /// Adds `key`; returns whether it was not already present.
    ///
    /// A set holds one key per sparse slot: if `key`'s slot is held by an older version of it
    /// (for an [`Entity`](crate::Entity): the same index, an older generation), that key is
    /// replaced in place and this returns `true`; if it holds a newer version, or has held one
    /// since emptied, `key` is stale and refused ([`Error::StaleKey`]).
    ///
    /// Computes in **O(1)** amortised time; allocates when the dense side is full or `key` is the
    /// first in its sparse page.
    ///
    /// # Panics
    ///
    /// With a message naming `key` and the [`Error`] that [`try_insert`](Self::try_insert)
    /// would return (which names the limit); the set is then unchanged.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set = SparseSet::<u32>::new();
    /// assert!(set.insert(1));
    /// assert!(!set.insert(1));
    /// ```
    #[inline]
    #[track_caller]
    pub fn insert(&mut self, key: K) -> bool {
        self.insert_full(key).1
    }

    /// Adds `key`; returns its dense position and whether it was not already present.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// As [`insert`](Self::insert).
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set = SparseSet::<u32>::new();
    /// assert_eq!(set.insert_full(5), (0, true));
    /// assert_eq!(set.insert_full(6), (1, true));
    /// assert_eq!(set.insert_full(5), (0, false));
    /// ```
    #[inline]
    #[track_caller]
    pub fn insert_full(&mut self, key: K) -> (usize, bool) {
        match self.try_insert_full(key) {
            Ok(result) => result,
            Err(error) => fail_insert::<Self, _>(key, error),
        }
    }

    /// The fallible twin of [`insert`](Self::insert): whether `key` was not already present.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// As [`try_insert_full`](Self::try_insert_full), leaving the set unchanged.
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseSet};
    ///
    /// let mut set = SparseSet::<u32>::bounded(1, 16);
    /// assert_eq!(set.try_insert(3), Ok(true));
    /// assert_eq!(set.try_insert(3), Ok(false));
    /// assert_eq!(set.try_insert(4), Err(Error::Full { capacity: 1 }));
    /// ```
    #[inline]
    pub fn try_insert(&mut self, key: K) -> Result<bool, Error> {
        self.try_insert_full(key).map(|(_, new)| new)
    }

    /// The fallible twin of [`insert_full`](Self::insert_full): the key's dense position and
    /// whether it was not already present.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// Leaving the set unchanged: [`Error::StaleKey`] when `key`'s slot holds or has held a
    /// newer version of it; and for a new key only, [`Error::KeyOutOfRange`] and [`Error::Full`] past a
    /// bounded set's limits, [`Error::DenseIndexOverflow`] when the set already holds
    /// `D::MAX_LEN` keys, [`Error::CapacityOverflow`] or [`Error::AllocFailed`] when memory
    /// cannot be had.
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseSet};
    ///
    /// let mut set = SparseSet::<u32>::bounded(1, 16);
    /// assert_eq!(set.try_insert_full(3), Ok((0, true)));
    /// assert_eq!(set.try_insert_full(3), Ok((0, false)));
    /// assert_eq!(set.try_insert_full(4), Err(Error::Full { capacity: 1 }));
    /// assert_eq!(set.try_insert_full(99), Err(Error::KeyOutOfRange { index: 99, limit: 16 }));
    /// ```
    #[inline]
    pub fn try_insert_full(&mut self, key: K) -> Result<(usize, bool), Error> {
        let slot = key.sparse_slot();
        let len = self.dense.len();
        // The common case, a new key whose slot is in the prefix and empty, with room for it:
        // one cell read and written (its value and, in a versioned set, its version). Growing
        // the keys is the rare path's.
        let room = len < self.dense.capacity();
        if let Some(cell) = self.sparse.prefix_cell_mut(slot, Self::STRIDE).filter(|_| room) {
            if cell[0] == D::ZERO {
                if K::SLOT_AND_VERSION_ARE_KEY {
                    let seen = Prefix::version_in(cell);
                    if key.version() < seen {
                        return Err(Error::StaleKey {
                            index: slot,
                            version: key.version(),
                            held: seen,
                        });
                    }
                }
                Self::check_room_for(self.bounds, len, slot)?;
                self.observer.try_reserve(1)?;
                Self::fill_cell(cell, key, len);
                self.dense.push(key);
                self.observer.inserted(key, len, &());
                return Ok((len, true));
            }
        }
        self.try_insert_outside_fast_path(key, slot)
    }

    /// Points `cell`, the prefix cell of `key`'s slot, at dense `position`, and keeps `key`'s
    /// version beside it in a versioned set.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every insert's path")]
    pub(super) fn fill_cell(cell: &mut [D], key: K, position: usize) {
        cell[0] = D::from_usize(position + 1);
        if K::SLOT_AND_VERSION_ARE_KEY {
            Prefix::set_version_in(cell, key.version());
        }
    }

    /// [`try_insert`](Self::try_insert) past its common case: a held slot, or a slot outside
    /// the prefix. Out of line, so that the common case inlines into its callers.
    #[inline(never)]
    fn try_insert_outside_fast_path(&mut self, key: K, slot: u64) -> Result<(usize, bool), Error> {
        // One search of the directory serves the lookup and the insert.
        let (value, place) = self.sparse.lookup_in(slot, Self::STRIDE);
        if let Some(position) = value.to_usize().checked_sub(1) {
            let Some(held) = self.dense.get_mut(position) else {
                return self.insert_into_stale_slot(key, slot);
            };
            if *held == key {
                return Ok((position, false));
            }
            check_not_stale(key, *held)?;
            *held = key;
            self.record_version(key, self.sparse.prefix_slots());
            self.observer.renewed(key, position, &(), &());
            return Ok((position, true));
        }
        self.insert_into_empty(key, slot, place).map(|position| (position, true))
    }

    /// Inserts `key`, whose `slot` is empty, at `place`, where [`Pages::lookup_in`] found that
    /// slot with no change to the pages since; returns its position. On `Err` nothing has
    /// changed.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "the tail of every insert past its common case")]
    fn insert_into_empty(&mut self, key: K, slot: u64, place: Spot) -> Result<usize, Error> {
        self.check_not_older_than_seen(key, slot)?;
        let position = self.dense.len();
        self.check_room(slot)?;
        // One more element never overflows the capacity (the dense width bounds `len`), so a
        // refusal here is a failed allocation.
        self.dense.try_reserve(1)?;
        self.observer.try_reserve(1)?;
        let prefix = self.sparse.prefix_slots();
        self.sparse.insert_at(place, D::from_usize(position + 1))?;
        self.dense.push(key);
        self.record_version(key, prefix);
        self.observer.inserted(key, position, &());
        Ok(position)
    }

    /// The position of `key`, or where it would go: `Err(Some(vacancy))` when its slot is empty
    /// and outside the prefix, for [`try_insert_vacant`](Self::try_insert_vacant), so that a
    /// map's entry searches the directory once; `Err(None)` when its slot is in the prefix (an
    /// insert there finds it with one load) or held by another key.
    #[inline]
    pub(crate) fn get_index_or_vacancy(&self, key: K) -> Result<usize, Option<Vacancy>> {
        let slot = key.sparse_slot();
        if self
            .sparse
            .prefix_cell(usize::try_from(slot).unwrap_or(usize::MAX), Self::STRIDE)
            .is_some()
        {
            return self.get_index_of(key).ok_or(None);
        }
        self.get_index_or_vacancy_outside_prefix(key, slot)
    }

    /// [`get_index_or_vacancy`](Self::get_index_or_vacancy) of a key outside the prefix: one
    /// search of the directory, then the dense key, compared whole.
    #[cold]
    #[inline(never)]
    fn get_index_or_vacancy_outside_prefix(
        &self,
        key: K,
        slot: u64,
    ) -> Result<usize, Option<Vacancy>> {
        let (value, place) = self.sparse.lookup_in(slot, Self::STRIDE);
        let Some(position) = value.to_usize().checked_sub(1) else {
            return Err(Some(Vacancy { place, len: self.dense.len() }));
        };
        match self.dense.get(position) {
            Some(&held) if held == key => Ok(position),
            _ => Err(None),
        }
    }

    /// Inserts `key`, absent, into the empty slot `vacancy` names: [`try_insert`](Self::try_insert)
    /// without its search. `vacancy` must come from
    /// [`get_index_or_vacancy`](Self::get_index_or_vacancy) of `key`, with no change to the set
    /// since (a map's vacant entry borrows the map mutably in between). Returns the key's
    /// position; on `Err` (as `try_insert`'s) nothing has changed.
    pub(crate) fn try_insert_vacant(&mut self, key: K, vacancy: Vacancy) -> Result<usize, Error> {
        debug_assert_eq!(
            vacancy.len,
            self.dense.len(),
            "the set changed since its vacancy was found"
        );
        self.insert_into_empty(key, key.sparse_slot(), vacancy.place)
    }

    /// Inserts `key` as new into `slot`, which points past the keys: a slot left behind by a key
    /// whose `sparse_index` is not deterministic (see "Implementing `Key` wrongly" in the
    /// [`Key`] docs). The slot is overwritten rather than read, so nothing indexes past the
    /// keys.
    #[cold]
    fn insert_into_stale_slot(&mut self, key: K, slot: u64) -> Result<(usize, bool), Error> {
        let position = self.dense.len();
        self.check_room(slot)?;
        self.dense.try_reserve(1)?;
        self.observer.try_reserve(1)?;
        self.sparse.set(slot, D::from_usize(position + 1));
        self.dense.push(key);
        self.record_version(key, self.sparse.prefix_slots());
        self.observer.inserted(key, position, &());
        Ok((position, true))
    }

    /// `Err(StaleKey)` if `key` is older than the version its empty `slot` last held: a
    /// versioned set keeps the newest version each slot has seen, held or not (in its prefix's
    /// cells or its graves), so that a handle kept past a despawn cannot come back.
    #[inline]
    fn check_not_older_than_seen(&self, key: K, slot: u64) -> Result<(), Error> {
        if !K::SLOT_AND_VERSION_ARE_KEY {
            return Ok(());
        }
        // Graves lie outside the prefix only, so at most one of the two is kept.
        let seen = self.sparse.prefix_version(usize::try_from(slot).unwrap_or(usize::MAX));
        let seen = seen.max(self.graves.version(slot));
        if key.version() < seen {
            return Err(Error::StaleKey { index: slot, version: key.version(), held: seen });
        }
        Ok(())
    }

    /// Keeps the version of `key`, just stored, beside its slot in the prefix; if the prefix has
    /// grown past `prefix` slots meanwhile (pages joined it), first gives the newly covered slots
    /// the versions of the keys they hold. Slots outside the prefix are looked up through the
    /// dense key instead, so nothing here can fail.
    #[inline]
    fn record_version(&mut self, key: K, prefix: usize) {
        if !K::SLOT_AND_VERSION_ARE_KEY {
            return;
        }
        if self.sparse.prefix_slots() > prefix {
            self.fill_versions(prefix);
        }
        let slot = usize::try_from(key.sparse_slot()).unwrap_or(usize::MAX);
        self.sparse.set_prefix_version(slot, key.version());
    }

    /// Gives every prefix slot from `from` up that holds a key that key's version:
    /// O(slots covered), so O(1) amortised per slot as the prefix grows.
    #[cold]
    pub(crate) fn fill_versions(&mut self, from: usize) {
        let dense = &self.dense;
        let graves = &mut self.graves;
        for (slot, cell) in (from as u64..).zip(self.sparse.prefix_cells_mut_from(from)) {
            // The slot joins the prefix: its grave, if any, moves into its cell.
            let buried = graves.take(slot);
            let position = cell[0].to_usize().checked_sub(1);
            // `get`: a slot pointing past the keys (see `insert_into_stale_slot`) has no key.
            if let Some(key) = position.and_then(|position| dense.get(position)) {
                Prefix::set_version_in(cell, key.version());
            } else if buried > Prefix::version_in(cell) {
                Prefix::set_version_in(cell, buried);
            }
        }
    }

    /// Checks that one more key with sparse index `slot` fits.
    #[inline]
    fn check_room(&self, slot: u64) -> Result<(), Error> {
        Self::check_room_for(self.bounds, self.dense.len(), slot)
    }

    /// [`check_room`](Self::check_room), given the set's bounds and length.
    #[inline]
    pub(super) fn check_room_for(
        bounds: Option<Bounds>,
        len: usize,
        slot: u64,
    ) -> Result<(), Error> {
        if let Some(bounds) = bounds {
            if slot >= bounds.key_limit as u64 {
                return Err(Error::KeyOutOfRange { index: slot, limit: bounds.key_limit as u64 });
            }
            if len >= bounds.capacity {
                return Err(Error::Full { capacity: bounds.capacity });
            }
        }
        if len >= D::MAX_LEN {
            return Err(Error::DenseIndexOverflow { width: D::NAME, max_len: D::MAX_LEN });
        }
        Ok(())
    }
}
