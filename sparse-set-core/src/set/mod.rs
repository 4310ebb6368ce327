//! [`SparseSet`]: the sparse index that every storage in this crate is built on.
//!
//! # Invariant
//!
//! A sparse slot stores a dense position plus one; zero means empty. For every dense position
//! `i < len`: `sparse[dense[i].sparse_slot()] == i + 1`, and every other slot is zero. So no two
//! keys in the set share a slot, `len <= D::MAX_LEN` (positions `0..MAX_LEN` fit as `1..=MAX`),
//! and for a bounded set `len <= capacity` and every slot is below `key_limit`.
//!
//! A lookup reads the slot; for keys whose slot identifies them ([`Key::SLOT_IS_KEY`]: the
//! integers) a non-zero slot is the answer. For keys whose slot and version identify them
//! ([`Key::SLOT_AND_VERSION_ARE_KEY`]: an [`Entity`](crate::Entity)) the set keeps each slot's
//! version beside its value in the sparse prefix (slots from 0 up), and compares it; for other
//! keys, and outside the prefix, the dense key at that position is compared. For every key in
//! a slot of the prefix, the version beside the slot is `key.version()`; an empty slot of the
//! prefix keeps the version of the newest key it held, and the graves (see "Stale keys" below)
//! keep no slot of the prefix and none newer than the key that holds its slot.
//!
//! # Why `clear` is O(len), not O(1)
//!
//! Without the "every other slot is zero" half of the invariant, `clear` could be O(1): stale
//! slots would be harmless if every lookup confirmed the slot against the dense side
//! (Briggs–Torczon). Measured on the development machine (AMD EPYC, 100,000 `u32` keys looked up
//! in random order), that confirmation read costs `contains` 2.5 ns instead of 1.4 ns, and at
//! 1,000,000 keys 5 ns instead of 2.3 ns: lookups are far more frequent than clears, so the set
//! resets the slots of its keys instead. That makes `clear` (and `truncate`, `drain`) cost
//! O(keys removed), still independent of the key space and of the memory allocated.
//!
//! [`SparseSet::assert_invariants`] checks all of it; the tests call it after every step.
//!
//! # Generational keys: the generation beside the slot
//!
//! For an [`Entity`](crate::Entity), a lookup that read the slot and then the dense key to
//! compare generations made two dependent loads, and a separate array of versions beside the
//! slots two independent ones on two cache lines. The sparse prefix of a set whose keys say
//! their slot and version identify them ([`Key::SLOT_AND_VERSION_ARE_KEY`]) keeps each slot's
//! version in the words right after its value (see the `pages` module's `prefix.rs`): one
//! load answers "is this key here, and where". Integer keys keep one word per slot and pay
//! nothing. A key outside the prefix (a thinly used page, a page of the hash lane) is found
//! through its slot and then its dense key: a rarer lane, out of line and `#[cold]`, so that a
//! caller's loop keeps its registers on the prefix's path. Callers that read a slice of the
//! set's length at the answer (`SparseMap::get`, a derived storage's `get`) ask for the position
//! below the slice's length: a versioned key's lookup answers `usize::MAX` on a miss instead of
//! `None`, so that the miss and the slice's bound check are one comparison; an integer key's
//! answers `None` (a miss past the largest key then leaves the caller's loop at once, without
//! meeting the hit's path again).
//!
//! # Stale keys
//!
//! A slot keeps the version of the newest key stored in it, also once that key is removed, so
//! inserting an older version of a key the slot has held is refused ([`Error::StaleKey`]),
//! whether the slot is held or empty: a handle kept past a despawn cannot come back, as with
//! slotmap's `SecondaryMap`. A slot of the prefix keeps it beside its value; a slot outside the
//! prefix that a removal empties leaves it in the set's **graves** (the `graves` module: a paged
//! array of their own, from slot to version, allocated at the first such removal and moved into
//! the prefix's cells when their page joins it). So a versioned set's memory follows the slots
//! it has held, not only those it holds (4 bytes a slot where they are dense, as in a prefix);
//! a bounded set's key range is all prefix, and it never allocates graves.
//! [`shrink_to_fit`](SparseSet::shrink_to_fit) moves the versions of the emptied slots of the
//! prefix pages it releases into the graves. Two cases forget: a grave whose memory cannot be
//! had (a removal never fails, so it keeps no version there), and a set saved and loaded (the
//! `serde` feature), which knows the versions of the keys it holds only. There an older version
//! is refused only while a newer one holds the slot. A world's insertions (`#[derive(World)]`)
//! check every `Entity` against its allocator, which closes those windows too.
//!
//! # Observer
//!
//! A set reports every change to its observer `O` (see [`observe`](crate::observe)), with `()`
//! for values, after the set is consistent again: a key pushed (`inserted`) or replaced in its
//! slot by a newer version (`replaced`), removed (`removed`; `truncate`, `clear`, `drain` and
//! `retain` one key at a time), swapped (`swapped`, also inside `retain` and `sort_as`), or
//! sorted (one `permuted`). With `O = ()` every report is an empty call and the bulk paths stay
//! bulk, so the index inside every other storage has the code it would have without them.

mod capacity;
mod fresh;
mod graves;
mod insert;
mod iter;
mod probe;
mod remove;
mod reorder;
#[cfg(test)]
mod tests;
mod ticks;
mod traits;

use alloc::vec::Vec;

use crate::dense::DenseIndex;
use crate::error::{Error, fail, fail_bounded, try_reserve_exact};
use crate::hint;
use crate::key::Key;
use crate::observe::Observer;
use crate::pages::{Pages, Prefix, Spot};
use graves::Graves;

pub use crate::removed::{Moved, Removed};
pub use iter::{Drain, IntoIter, Iter, KeyRows, Keys};
pub use probe::{Probe, Quick};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bounds {
    capacity: usize,
    key_limit: usize,
}

/// A set of integer-like keys with **O(1)** insert, remove and lookup and iteration over a plain
/// slice: a dense `Vec<K>` of the keys plus a paged sparse array from each key's slot to its
/// position in that `Vec`.
///
/// `K` is the key ([`Key`]: the unsigned integers and [`Entity`](crate::Entity)); `D` the
/// [`DenseIndex`] width each sparse slot stores, which also bounds the number of elements; `O`
/// the [`Observer`] told of every change (`()`, the default, listens to nothing and takes no
/// room). A set with an observer has the same methods but is not a
/// [`Storage`](crate::Storage): queries and worlds read a set as the plain index of a storage,
/// so a tag with events that joins them is a [`SparseMap<K, (), D, O>`](crate::SparseMap).
///
/// The dense order is insertion order until a removal, which moves the last key into the gap
/// ([`remove`](Self::remove) is a swap-remove). That makes the set a good work queue: keys added
/// while walking it by position are visited later.
///
/// | operation | cost |
/// |---|---|
/// | `insert`, `remove`, `contains`, `get_index_of` | O(1) (insert amortised; may allocate a page) |
/// | `clear`, `truncate`, `drain` | O(keys removed), never O(key space) |
/// | iteration, `retain` | O(len) |
/// | sorting | O(len log len) |
/// | `shrink_to_fit` | O(allocated sparse slots) |
///
/// ```
/// use sparse_set_core::SparseSet;
///
/// let mut set = SparseSet::<u32>::new();
/// assert!(set.insert(42));
/// assert!(set.insert(7));
/// assert!(!set.insert(42)); // already there
/// assert!(set.contains(7));
/// assert_eq!(set.as_slice(), &[42, 7]);
/// assert!(set.remove(42)); // swap-remove: 7 moves to position 0
/// assert_eq!(set.as_slice(), &[7]);
/// ```
pub struct SparseSet<K = u32, D: DenseIndex = u32, O = ()> {
    sparse: Pages<D>,
    dense: Vec<K>,
    bounds: Option<Bounds>,
    observer: O,
    /// The versions of the slots emptied outside the prefix (a versioned set's only).
    graves: Graves,
}

/// An empty slot outside a set's prefix, found by [`SparseSet::get_index_or_vacancy`] for the
/// insert that follows ([`SparseSet::try_insert_vacant`]): one search of the directory serves
/// both.
#[derive(Clone, Copy)]
pub(crate) struct Vacancy {
    /// Where the slot is in the pages.
    place: Spot,
    /// The set's length when the slot was found, to check that nothing changed since.
    len: usize,
}

impl<K: Key, D: DenseIndex> SparseSet<K, D> {
    /// An empty set. Does not allocate.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let set = SparseSet::<u32>::new();
    /// assert!(set.is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self::with_observer(())
    }

    /// An empty set with room for `capacity` keys before the dense side reallocates. Sparse
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
    /// # use sparse_set_core::SparseSet;
    /// let set = SparseSet::<u32>::with_capacity(100);
    /// assert!(set.capacity() >= 100);
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
    /// use sparse_set_core::{Error, SparseSet};
    ///
    /// assert!(SparseSet::<u64, usize>::try_with_capacity(100).is_ok());
    /// let err = SparseSet::<u64, usize>::try_with_capacity(usize::MAX).unwrap_err();
    /// assert_eq!(err, Error::CapacityOverflow);
    /// ```
    pub fn try_with_capacity(capacity: usize) -> Result<Self, Error> {
        let mut set = Self::new();
        try_reserve_exact(&mut set.dense, capacity.min(D::MAX_LEN))?;
        Ok(set)
    }

    /// A set of fixed size that never allocates after this call: it holds at most `capacity`
    /// keys, each with a sparse index below `key_limit`.
    ///
    /// Everything is allocated here: `capacity` dense positions and the sparse pages covering
    /// `0..key_limit`. Past either bound the `try_` calls return an error and the plain calls
    /// panic, leaving the set unchanged. `reserve` and `shrink_to_fit` do nothing, and no sort
    /// allocates, except with an observer ([`observed_by`](Self::observed_by)): a sort then
    /// reports one [`Permutation`](crate::Permutation), which it allocates, and removal events
    /// kept past `capacity` removals between clears grow.
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
    /// use sparse_set_core::{Error, SparseSet};
    ///
    /// let mut set = SparseSet::<u32, u8>::bounded(2, 128);
    /// set.insert(1);
    /// set.insert(2);
    /// assert_eq!(set.try_insert(3), Err(Error::Full { capacity: 2 }));
    /// assert_eq!(set.as_slice(), &[1, 2]);
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
    /// ([`Key::SLOTS`]: 256 for `u8` keys, 2^32 for `u32` and [`Entity`](crate::Entity));
    /// [`Error::CapacityOverflow`] if the sparse pages covering `0..key_limit` would need more
    /// than `isize::MAX` bytes (all three checked before anything is allocated, so a huge
    /// `key_limit` fails at once); [`Error::AllocFailed`] if the memory cannot be had.
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseSet};
    ///
    /// let err = SparseSet::<u32, u8>::try_bounded(300, 1000).unwrap_err();
    /// assert_eq!(err, Error::DenseIndexOverflow { width: "u8", max_len: 255 });
    /// let err = SparseSet::<u32>::try_bounded(8, usize::MAX).unwrap_err();
    /// assert_eq!(err, Error::BoundPastKeys { bound: usize::MAX as u64, slots: 1 << 32 });
    /// let err = SparseSet::<u64>::try_bounded(8, usize::MAX).unwrap_err();
    /// assert_eq!(err, Error::CapacityOverflow);
    /// assert_eq!(SparseSet::<u8>::bounded(8, 256).key_limit(), Some(256)); // every `u8` key
    /// ```
    pub fn try_bounded(capacity: usize, key_limit: usize) -> Result<Self, Error> {
        if capacity > D::MAX_LEN {
            return Err(Error::DenseIndexOverflow { width: D::NAME, max_len: D::MAX_LEN });
        }
        Self::check_reachable(key_limit)?;
        // Decided before anything is allocated: the pages `key_limit` implies, then the keys;
        // then every allocation is made before a word is written.
        Pages::<D>::check_full_below(key_limit as u64, Self::STRIDE)?;
        let mut dense = Vec::new();
        try_reserve_exact(&mut dense, capacity)?;
        let sparse = Pages::try_bounded(key_limit as u64, K::SLOT_AND_VERSION_ARE_KEY)?;
        Ok(Self {
            sparse,
            dense,
            bounds: Some(Bounds { capacity, key_limit }),
            observer: (),
            graves: Graves::new(),
        })
    }

    /// `Err(BoundPastKeys)` if `key_limit` is past the slots keys of type `K` take
    /// ([`Key::SLOTS`]): a bounded set never allocates for slots no key can take.
    fn check_reachable(key_limit: usize) -> Result<(), Error> {
        let bound = key_limit as u64;
        if bound > K::SLOTS {
            return Err(Error::BoundPastKeys { bound, slots: K::SLOTS });
        }
        Ok(())
    }

    /// The bytes a bounded storage of this index allocates up front: what
    /// [`try_bounded`](Self::try_bounded)`(capacity, key_limit)` takes (the dense keys, and the
    /// sparse prefix over the key range, with the versions beside its slots for keys that keep
    /// one), plus `capacity` elements of each column whose element size `columns` lists.
    /// Allocates nothing: what a storage's `try_bounded` asks before it allocates.
    ///
    /// # Errors
    ///
    /// As `try_bounded`, for the bounds alone: [`Error::DenseIndexOverflow`] if `capacity`
    /// exceeds [`DenseIndex::MAX_LEN`], [`Error::CapacityOverflow`] if the total is more than
    /// the address space has.
    pub(crate) fn bounded_bytes(
        capacity: usize,
        key_limit: usize,
        columns: &[usize],
    ) -> Result<usize, Error> {
        if capacity > D::MAX_LEN {
            return Err(Error::DenseIndexOverflow { width: D::NAME, max_len: D::MAX_LEN });
        }
        Self::check_reachable(key_limit)?;
        let pages = Pages::<D>::full_below_bytes(key_limit as u64, Self::STRIDE)?;
        core::iter::once(size_of::<K>())
            .chain(columns.iter().copied())
            .try_fold(pages, |bytes, size| capacity.checked_mul(size)?.checked_add(bytes))
            .filter(|&bytes| isize::try_from(bytes).is_ok())
            .ok_or(Error::CapacityOverflow)
    }

    /// The set's lookup state for a loop that looks up many keys: see [`Probe`].
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    ///
    /// let set: SparseSet<u32> = [4, 8].into_iter().collect();
    /// let probe = set.probe();
    /// assert_eq!([4, 8, 9].map(|key| probe.get_index_of(key)), [Some(0), Some(1), None]);
    /// ```
    #[inline]
    #[must_use]
    pub fn probe(&self) -> Probe<'_, K, D> {
        Probe::new(self)
    }

    /// [`get_index_of`](Self::get_index_of), out of line: what a [`Probe`] calls for keys past
    /// the prefix.
    #[inline(never)]
    pub(crate) fn get_index_of_cold(&self, key: K) -> Option<usize> {
        self.get_index_of(key)
    }
}

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> SparseSet<K, D, O> {
    /// Words per slot of the sparse prefix: the value, and for a versioned key its version
    /// beside it. A constant, so every lookup's arithmetic folds.
    pub(crate) const STRIDE: usize = Prefix::<D>::stride_for(K::SLOT_AND_VERSION_ARE_KEY);

    /// An empty set that reports every change to `observer` (see [`observe`](crate::observe)):
    /// a key inserted, replaced by a newer version, removed, swapped or sorted. Its values are
    /// `()`, so hooks see `&()`. Does not allocate. The observer is taken as it is and told
    /// nothing (this is a `const fn`), so give it fresh, as `new` or `default` makes it; one
    /// that followed another storage (from [`into_unobserved`](Self::into_unobserved)) goes
    /// through [`observed_by`](SparseSet::observed_by), which tells it the keys it now follows.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::observe::Removals;
    ///
    /// let mut frozen = SparseSet::<u32, u32, _>::with_observer(Removals::new());
    /// frozen.insert(1);
    /// frozen.remove(1);
    /// assert_eq!(frozen.observer().keys(), &[1]);
    /// ```
    #[must_use]
    pub const fn with_observer(observer: O) -> Self {
        Self {
            sparse: Pages::new(K::SLOT_AND_VERSION_ARE_KEY),
            dense: Vec::new(),
            bounds: None,
            observer,
            graves: Graves::new(),
        }
    }

    /// The same set, reporting from now on to `observer`, which is told the keys the set holds
    /// already and, for a bounded set, its capacity ([`Observer::attached`]). Keeps the set's
    /// memory and bounds; the old observer is dropped.
    ///
    /// Computes in **O(1)** time, plus what `attached` costs.
    ///
    /// # Panics
    ///
    /// If the observer's `attached` panics: the observers of this crate reserve their room
    /// there (for the rows it is told of and, for a bounded set, its capacity), and panic if
    /// that memory cannot be had.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::observe::Journal;
    ///
    /// let mut set = SparseSet::<u32>::bounded(100, 100).observed_by(Journal::bounded(1024));
    /// set.insert(1);
    /// assert_eq!(set.observer().patch().dirty_rows(), 1);
    /// assert_eq!(set.capacity(), 100);
    /// ```
    #[must_use]
    pub fn observed_by<P: Observer<K, ()>>(self, mut observer: P) -> SparseSet<K, D, P> {
        let bound = self.bounds.map(|bounds| bounds.capacity);
        observer.attached(&self.dense, bound);
        self.swap_observer(observer).0
    }

    /// The set without its observer, and the observer. Keeps the set's memory and bounds.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::observe::Removals;
    ///
    /// let mut set = SparseSet::<u32, u32, Removals<u32>>::default();
    /// set.insert(1);
    /// set.remove(1);
    /// let (set, removals) = set.into_unobserved();
    /// assert_eq!(removals.keys(), &[1]);
    /// assert!(set.is_empty());
    /// ```
    #[must_use]
    pub fn into_unobserved(self) -> (SparseSet<K, D>, O) {
        self.swap_observer(())
    }

    /// The same keys and memory with `observer`, and the observer the set had.
    fn swap_observer<P>(self, observer: P) -> (SparseSet<K, D, P>, O) {
        let set = SparseSet {
            sparse: self.sparse,
            dense: self.dense,
            bounds: self.bounds,
            observer,
            graves: self.graves,
        };
        (set, self.observer)
    }

    /// The set's observer.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::observe::Removals;
    ///
    /// let set = SparseSet::<u32, u32, Removals<u32>>::default();
    /// assert!(set.observer().is_empty());
    /// ```
    #[inline]
    #[must_use]
    pub fn observer(&self) -> &O {
        &self.observer
    }

    /// The set's observer, mutably: to drain or clear what it collected. The set's keys cannot
    /// be reached through it.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::observe::Removals;
    ///
    /// let mut set = SparseSet::<u32, u32, Removals<u32>>::default();
    /// set.insert(1);
    /// set.remove(1);
    /// set.observer_mut().clear();
    /// assert!(set.observer().is_empty());
    /// ```
    #[inline]
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.observer
    }

    /// The number of keys.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let set: SparseSet<u32> = [1, 5].into_iter().collect();
    /// assert_eq!(set.len(), 2);
    /// ```
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.dense.len()
    }

    /// Whether the set has no keys.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// assert!(SparseSet::<u32>::new().is_empty());
    /// ```
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.dense.is_empty()
    }

    /// How many keys the set holds before the dense side reallocates; for a bounded set, its
    /// fixed capacity.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// assert_eq!(SparseSet::<u32>::bounded(8, 64).capacity(), 8);
    /// ```
    #[must_use]
    pub fn capacity(&self) -> usize {
        match self.bounds {
            Some(bounds) => bounds.capacity,
            None => self.dense.capacity().min(D::MAX_LEN),
        }
    }

    /// `capacity() - len()`: how many more keys fit without reallocating (for a bounded set,
    /// at all).
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set = SparseSet::<u32>::bounded(8, 64);
    /// set.insert(3);
    /// assert_eq!(set.remaining_capacity(), 7);
    /// ```
    #[must_use]
    pub fn remaining_capacity(&self) -> usize {
        self.capacity() - self.len()
    }

    /// The exclusive bound on sparse indices of a bounded set; `None` for a growable set.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// assert_eq!(SparseSet::<u32>::bounded(8, 64).key_limit(), Some(64));
    /// assert_eq!(SparseSet::<u32>::new().key_limit(), None);
    /// ```
    #[must_use]
    pub fn key_limit(&self) -> Option<usize> {
        self.bounds.map(|bounds| bounds.key_limit)
    }

    /// Whether `key` is in the set.
    ///
    /// Computes in **O(1)** time: the sparse slot (with an `Entity`'s generation beside it, in
    /// the prefix), then the dense key it points at for a key its slot does not name (an
    /// `Entity` outside the prefix, a [`Key`] whose `SLOT_IS_KEY` is false).
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let set: SparseSet<u32> = [3].into_iter().collect();
    /// assert!(set.contains(3));
    /// assert!(!set.contains(4));
    /// ```
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "a wrapper of `get_index_of`, inlined as it is")]
    #[must_use]
    pub fn contains(&self, key: K) -> bool {
        self.get_index_of(key).is_some()
    }

    /// Asks the processor for `key`'s cell of the sparse index, so that an insert or lookup of
    /// `key` soon after finds it in the cache; changes nothing. A row of a world asks this of
    /// each of its storages before it puts any component, so that their cells (one random
    /// cache line each) are fetched together rather than one miss after another. A key past
    /// the index's flat prefix is not asked for.
    #[inline]
    pub(crate) fn prefetch(&self, key: K) {
        let at = usize::try_from(key.sparse_slot()).unwrap_or(usize::MAX);
        if let Some([word, ..]) = self.sparse.prefix_cell(at, Self::STRIDE) {
            hint::prefetch(word);
        }
    }

    /// The dense position of `key`, if it is in the set.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let set: SparseSet<u32> = [8, 9].into_iter().collect();
    /// assert_eq!(set.get_index_of(9), Some(1));
    /// assert_eq!(set.get_index_of(10), None);
    /// ```
    // `always`: left to itself LLVM stops inlining this into callers' loops once the compact
    // page scan is inlined below it, and the call then makes the loops spill their registers
    // (measured: `SparseMap::get` 2.3 ns inlined, 7 ns called).
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "measured: a call here makes callers' lookup loops spill registers, `get` 2.3 -> 7 ns"
    )]
    #[must_use]
    pub fn get_index_of(&self, key: K) -> Option<usize> {
        let slot = key.sparse_slot();
        if K::SLOT_AND_VERSION_ARE_KEY {
            let at = usize::try_from(slot).unwrap_or(usize::MAX);
            if let Some(cell) = self.sparse.prefix_cell(at, Self::STRIDE) {
                // The slot and its version side by side: one load, no dense key to wait for.
                let position = cell[0].to_usize().checked_sub(1)?;
                return (Prefix::<D>::version_in(cell) == key.version()).then_some(position);
            }
            return self.get_index_of_outside_prefix(key);
        }
        let position = self.position_of_slot(slot)?;
        if K::SLOT_IS_KEY {
            debug_assert!(
                self.dense.get(position) == Some(&key),
                "key {key:?} is looked up in a sparse slot that holds {}, but its type claims \
                 `Key::SLOT_IS_KEY` (see \"Implementing `Key` wrongly\" in the `Key` docs)",
                self.dense.get(position).map_or("no key".into(), |held| alloc::format!("{held:?}")),
            );
            return Some(position);
        }
        match self.dense.get(position) {
            Some(&found) if found == key => Some(position),
            _ => None,
        }
    }

    /// [`get_index_of`](Self::get_index_of) with `usize::MAX` for a key not in the set: for a
    /// caller that reads a slice of the set's length at the answer (`slice.get(usize::MAX)` is
    /// `None`), so that a miss and the slice's bound check are one branch. In the prefix, a
    /// versioned key whose version matches an empty cell reads its value 0 less one, `usize::MAX`.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "as `get_index_of`, in callers' lookup loops")]
    pub(crate) fn get_index_of_or_max(&self, key: K) -> usize {
        if K::SLOT_AND_VERSION_ARE_KEY {
            let at = usize::try_from(key.sparse_slot()).unwrap_or(usize::MAX);
            if let Some(cell) = self.sparse.prefix_cell(at, Self::STRIDE) {
                if Prefix::<D>::version_in(cell) != key.version() {
                    return usize::MAX;
                }
                return cell[0].to_usize().wrapping_sub(1);
            }
            return self.get_index_of_outside_prefix(key).unwrap_or(usize::MAX);
        }
        self.get_index_of(key).unwrap_or(usize::MAX)
    }

    /// [`get_index_of`](Self::get_index_of), answered only below `len`: for a caller that reads
    /// a slice of `len` elements at the answer, so that the slice's bound check is the lookup's.
    ///
    /// A versioned key reads through [`get_index_of_or_max`](Self::get_index_of_or_max), whose
    /// miss (`usize::MAX`) and the comparison with `len` are one branch. Any other key reads
    /// through `get_index_of` and its own branches (measured, a loop of `SparseMap::get` with
    /// `u32` keys past the largest one: through the sentinel the miss's paths met again before
    /// the comparison, 15 instructions a key and three taken jumps, 3.2x to 3.6x bevy's
    /// `SparseSet` in time; this way 10 instructions and about 1.5x). Reading an integer key's
    /// prefix cell first, as the sentinel does, saved one instruction on a held key (18 against
    /// 19) and cost four on a random one past the prefix (116 against 112): not kept.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "as `get_index_of`, in callers' lookup loops")]
    pub(crate) fn get_index_below(&self, key: K, len: usize) -> Option<usize> {
        if K::SLOT_AND_VERSION_ARE_KEY {
            let index = self.get_index_of_or_max(key);
            return (index < len).then_some(index);
        }
        self.get_index_of(key).filter(|&index| index < len)
    }

    /// [`get_index_of`](Self::get_index_of) of a versioned key outside the prefix (a rare lane,
    /// out of line): the slot, then the dense key, compared whole.
    ///
    /// `cold`: a caller's loop then keeps its values in registers on the prefix's path and
    /// saves them around this call only (measured, a loop of `SparseMap::get` summing a field:
    /// 25 instructions a key without it, 20 with it and the sentinel of
    /// [`get_index_of_or_max`](Self::get_index_of_or_max); a key past the prefix pays the
    /// saves, 61 to 71).
    #[cold]
    #[inline(never)]
    fn get_index_of_outside_prefix(&self, key: K) -> Option<usize> {
        let position = self.position_of_slot(key.sparse_slot())?;
        match self.dense.get(position) {
            Some(&found) if found == key => Some(position),
            _ => None,
        }
    }

    /// The key held in `key`'s sparse slot, whichever version of it that is (for an
    /// [`Entity`](crate::Entity): the entity of the same index, any generation).
    #[inline]
    pub(crate) fn slot_holder(&self, key: K) -> Option<K> {
        let position = self.position_of_slot(key.sparse_slot())?;
        self.dense.get(position).copied()
    }

    /// The key held in `key`'s sparse slot if it is another version of `key` (what an insert of
    /// `key` replaces or refuses).
    #[inline]
    pub(crate) fn other_version(&self, key: K) -> Option<K> {
        self.slot_holder(key).filter(|&held| held != key)
    }

    /// The position of the key that holds `slot`, whichever key that is.
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "measured: a call here makes callers' lookup loops spill registers, `get` 2.3 -> 7 ns"
    )]
    fn position_of_slot(&self, slot: u64) -> Option<usize> {
        self.sparse.get_in(slot, Self::STRIDE).to_usize().checked_sub(1)
    }

    /// The key at dense position `index`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let set: SparseSet<u32> = [8, 9].into_iter().collect();
    /// assert_eq!(set.get_index(0), Some(8));
    /// assert_eq!(set.get_index(2), None);
    /// ```
    #[inline]
    #[must_use]
    pub fn get_index(&self, index: usize) -> Option<K> {
        self.dense.get(index).copied()
    }

    /// The keys in dense order.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let set: SparseSet<u32> = [8, 9].into_iter().collect();
    /// assert_eq!(set.as_slice(), &[8, 9]);
    /// ```
    #[inline]
    #[must_use]
    pub fn as_slice(&self) -> &[K] {
        &self.dense
    }

    /// Iterates over the keys in dense order.
    ///
    /// Computes in **O(1)** time per step.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let set: SparseSet<u32> = [8, 9].into_iter().collect();
    /// assert_eq!(set.iter().sum::<u32>(), 17);
    /// ```
    pub fn iter(&self) -> Iter<'_, K> {
        Iter::new(&self.dense)
    }

    /// Checks every invariant in the module docs; panics describing the first one broken.
    ///
    /// Computes in **O(len)** time. Meant for tests: call it after each operation. It checks in release builds
    /// too (the checks are `assert!`, not `debug_assert!`).
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let set: SparseSet<u32> = [4, 2].into_iter().collect();
    /// set.assert_invariants();
    /// ```
    #[doc(hidden)]
    pub fn assert_invariants(&self) {
        let len = self.dense.len();
        assert!(len <= D::MAX_LEN, "{len} keys exceed what `{}` addresses", D::NAME);
        if let Some(bounds) = self.bounds {
            assert!(
                len <= bounds.capacity,
                "{len} keys exceed the bounded capacity {}",
                bounds.capacity
            );
            assert!(
                self.dense.capacity() >= bounds.capacity,
                "a bounded set lost its dense capacity"
            );
        }
        for (position, &key) in self.dense.iter().enumerate() {
            let slot = key.sparse_slot();
            if let Some(bounds) = self.bounds {
                assert!(
                    slot < bounds.key_limit as u64,
                    "key {key:?} is past the key limit {}",
                    bounds.key_limit
                );
            }
            let stored = self.sparse.get(slot).to_usize();
            assert_eq!(
                stored,
                position + 1,
                "slot of key {key:?} does not point at its position {position}"
            );
            if K::SLOT_AND_VERSION_ARE_KEY {
                if let Some(at) =
                    usize::try_from(slot).ok().filter(|&at| at < self.sparse.prefix_slots())
                {
                    let kept = self.sparse.prefix_version(at);
                    assert_eq!(kept, key.version(), "the version kept beside {key:?} is {kept}");
                }
                let buried = self.graves.version(slot);
                assert!(buried <= key.version(), "{key:?} holds a slot whose grave is {buried}");
            }
        }
        assert_eq!(self.sparse.check(), len, "slots that no key holds are not all zero");
        self.graves.check(self.sparse.prefix_slots(), K::SLOT_AND_VERSION_ARE_KEY);
    }
}
