//! The paged sparse array: slot -> stored value (zero = empty), allocated in pages around the
//! slots in use, for any slot from 0 to `u64::MAX`.
//!
//! # Pages
//!
//! A slot belongs to page number `slot >> 9`, at offset `slot & 511`. A page has one of two
//! forms:
//!
//! - **compact**: up to [`COMPACT_LEN`] (offset, value) pairs, 48 bytes with `u32` values, read
//!   by a branch-free scan. Every page starts compact, so keys spread thinly (one per page, as
//!   random or hashed ids are) cost one compact page each, not 2 KiB. Compact pages live in one
//!   arena, a `Vec`, so a new page is a push (or reuses a freed entry), not an allocation;
//! - **full**: a plain array of [`PAGE_LEN`] values (2 KiB with `u32`), read in one load. A
//!   compact page turns full when its (`COMPACT_LEN` + 1)-th slot arrives, so each full page's
//!   own allocation is paid for by at least nine inserts. `release_empty_pages`
//!   (`shrink_to_fit`) turns full pages with few slots back into compact ones and drops empty
//!   pages.
//!
//! # The prefix
//!
//! Full pages from page 0 up without a gap are one flat array, the **prefix**: a slot there is
//! one load, as in a flat sparse array (bevy's, `EnTT`'s). A page joins it when it turns full
//! right after it (and the full pages that follow join too); it grows by doubling, so the
//! amortised cost per page is one copy. Keys from 0 up (entity ids, indices) end up there.
//! Bounded sets allocate their whole key range as the prefix, exactly, so they never allocate
//! after construction.
//!
//! # The directory
//!
//! Every other page is found through one mapping, page number -> page, in two lanes:
//!
//! - the **flat lane** covers page numbers below its length: `flat_full[n]` is the full page
//!   `n` (the hot path: the page pointer, then the slot, as in a flat sparse array), and
//!   `flat_compact[n]` names its compact page. The lane grows only while it costs at most
//!   [`FLAT_PER_PAGE`] page numbers per page in use (or [`FLAT_MIN`] page numbers), so keys from
//!   0 up (entity ids, indices) use it, and keys spread over a wide range cannot inflate it;
//! - the **hash lane** (open addressing, linear probing, Fibonacci hashing) holds every page
//!   number at or past the flat lane's end: random `u32` and `u64` keys, hashed ids, keys near
//!   `u64::MAX`. Its size follows the pages in it, never the largest key.
//!
//! Both lanes name pages by an [`Entry`]: `COMPACT | index` for a compact page, the index of a
//! full page in `hashed_full` (hash lane only), or [`EMPTY`]. `EMPTY` is past every full index
//! and has no `COMPACT` bit, so a missing page reads zero through the full-page bounds check.
//!
//! Every lookup (hit or miss, either form, any key) is inlined into the caller: no call, and
//! its branches depend on how the keys are distributed (prefix, flat or hashed, full or
//! compact), not on the individual key, so they predict well. `last` bounds the slots in use
//! while nothing is hashed, so a miss past the largest key is one comparison.
//!
//! Memory: pages touched (the prefix up to twice, while it grows), plus 12 bytes per flat page
//! number and about 21 to 43 bytes (16 per
//! bucket, at most 3/4 of them used) per hashed page. Nothing is sized by the largest key.
//!
//! How an [`Entity`](crate::Entity)'s generation is compared without reading the dense key: see
//! the `set` module's docs (its versions follow the prefix).
//!
//! # Invariants
//!
//! Checked, all of them, by [`Pages::check`], which `SparseSet::assert_invariants` calls.
//!
//! 0. The prefix is a whole number of pages; no page number of the prefix has an entry in the
//!    flat lane or the hash lane. `last` is `u64::MAX` if the hash lane holds a page, else the
//!    last slot of the prefix or of the flat lane, whichever is further (0 if neither has one).
//! 1. `flat_full` and `flat_compact` have the same length, the flat lane's. No page number has
//!    both a full page in `flat_full` and an entry other than `EMPTY` in `flat_compact`, and
//!    `flat_compact` holds only `EMPTY` and compact entries. `flat_named` counts the page
//!    numbers of the flat lane that have a page.
//! 2. The hash lane holds only page numbers at or past the flat lane's end and the prefix's,
//!    each at most once,
//!    never with `EMPTY`; `hash.len` counts them, fewer than 3/4 of the buckets, each reachable
//!    from its home bucket without crossing a vacant one; `hash.min_page` is the smallest.
//! 3. Every index of `hashed_full` is named by exactly one hash-lane entry. Every index of the
//!    compact arena is named by exactly one entry or listed once in `free`, not both.
//! 4. A compact page's used offsets are distinct and below `PAGE_LEN`, each with a non-zero
//!    value; its unused entries have the offset [`VACANT`] and the value zero. Free compact
//!    pages are all unused.
//!
//! The number of pages in use is derived (prefix pages + `flat_named` + `hash.len`).

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::dense::DenseIndex;
use crate::error::{Error, shrink, try_reserve, try_reserve_exact};

/// log2 of the slots in one page.
const PAGE_BITS: u32 = 9;
/// Slots in one page.
pub(crate) const PAGE_LEN: usize = 1 << PAGE_BITS;
/// The most slots a compact page holds.
const COMPACT_LEN: usize = 8;
/// The offset marking an unused entry of a compact page (offsets are below `PAGE_LEN`).
const VACANT: u16 = u16::MAX;

/// A directory entry: `COMPACT | index` for a compact page, a `hashed_full` index, or `EMPTY`.
type Entry = u32;
/// The tag bit of a compact page's entry.
const COMPACT: Entry = 1 << 31;
/// No page: an index past every full page (`hashed_full` never grows this long).
const EMPTY: Entry = COMPACT - 1;
/// The flat lane may always cover this many page numbers (12 KiB of directory).
const FLAT_MIN: usize = 1024;
/// Past `FLAT_MIN`, the flat lane covers at most this many page numbers per page in use.
const FLAT_PER_PAGE: usize = 4;
/// The page number no page has (page numbers are below 2^55): marks a vacant hash bucket.
const NO_PAGE: u64 = u64::MAX;

/// A full page.
type Full<D> = Box<[D; PAGE_LEN]>;

/// The page number and the offset within the page of `slot`.
#[inline(always)]
#[expect(clippy::inline_always, reason = "two shifts on every lookup's path")]
const fn split(slot: u64) -> (u64, usize) {
    (slot >> PAGE_BITS, (slot as usize) & (PAGE_LEN - 1))
}

/// The flat-lane index of page number `page`, or `usize::MAX` where `usize` is too narrow (no
/// flat lane is that long).
#[inline(always)]
#[expect(clippy::inline_always, reason = "on every lookup's path")]
fn flat_index(page: u64) -> usize {
    usize::try_from(page).unwrap_or(usize::MAX)
}

/// Up to `COMPACT_LEN` non-zero slots of a page, unordered; unused entries have offset `VACANT`
/// and value zero.
#[derive(Clone, Copy, Debug)]
struct Compact<D> {
    offsets: [u16; COMPACT_LEN],
    values: [D; COMPACT_LEN],
}

impl<D: DenseIndex> Compact<D> {
    const EMPTY: Self = Self { offsets: [VACANT; COMPACT_LEN], values: [D::ZERO; COMPACT_LEN] };

    /// Branch-free (masks, not jumps) so the scan vectorises and never mispredicts: at most one
    /// entry matches, so OR-ing the masked values yields it.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every lookup's path; see `Pages::get`")]
    fn get(&self, offset: usize) -> D {
        let mut found = 0;
        for (&at, &value) in self.offsets.iter().zip(&self.values) {
            let mask = usize::from(usize::from(at) == offset).wrapping_neg();
            found |= value.to_usize() & mask;
        }
        D::from_usize(found)
    }

    fn position(&self, offset: usize) -> Option<usize> {
        self.offsets.iter().position(|&at| usize::from(at) == offset)
    }

    fn len(&self) -> usize {
        self.offsets.iter().filter(|&&at| at != VACANT).count()
    }

    /// Stores a new slot; `false` if all entries are in use.
    fn try_insert(&mut self, offset: usize, value: D) -> bool {
        match self.position(usize::from(VACANT)) {
            Some(index) => {
                self.offsets[index] = offset as u16;
                self.values[index] = value;
                true
            }
            None => false,
        }
    }

    /// Copies its slots into `values`.
    fn fill(&self, values: &mut [D; PAGE_LEN]) {
        for (&at, &stored) in self.offsets.iter().zip(&self.values) {
            if at != VACANT {
                values[usize::from(at)] = stored;
            }
        }
    }

    /// Checks invariant 4 of the module docs: distinct offsets in the page, non-zero values,
    /// unused entries zero.
    fn check(&self) {
        let mut seen = [false; PAGE_LEN];
        for (&at, &value) in self.offsets.iter().zip(&self.values) {
            if at == VACANT {
                assert_eq!(value, D::ZERO, "an unused compact entry holds a value");
                continue;
            }
            let at = usize::from(at);
            assert!(at < PAGE_LEN, "compact offset {at} is past the page");
            assert!(!seen[at], "a compact page holds offset {at} twice");
            seen[at] = true;
            assert_ne!(value, D::ZERO, "a used compact entry holds zero");
        }
    }

    /// The non-zero slots of a full page, if there are at most `COMPACT_LEN` of them.
    fn from_full(values: &[D; PAGE_LEN]) -> Option<Self> {
        let mut compact = Self::EMPTY;
        let used = values.iter().enumerate().filter(|&(_, &value)| value != D::ZERO);
        for (index, (offset, &value)) in used.enumerate() {
            if index == COMPACT_LEN {
                return None;
            }
            compact.offsets[index] = offset as u16;
            compact.values[index] = value;
        }
        Some(compact)
    }
}

/// Appends a zeroed page to `prefix` (whose room the caller reserved) and returns it.
fn push_zeroed_page<D: DenseIndex>(prefix: &mut Vec<D>) -> &mut [D; PAGE_LEN] {
    let start = prefix.len();
    prefix.resize(start + PAGE_LEN, D::ZERO);
    (&mut prefix[start..]).try_into().unwrap_or_else(|_| unreachable!("a page has PAGE_LEN slots"))
}

/// A copy of `values`, allocated fallibly (`Vec::clone` aborts when memory cannot be had).
fn try_copy<T: Copy>(values: &[T]) -> Result<Vec<T>, Error> {
    let mut copy = Vec::new();
    try_reserve_exact(&mut copy, values.len())?;
    copy.extend_from_slice(values);
    Ok(copy)
}

/// A copy of a list of full pages, allocated fallibly.
fn try_copy_pages<D: DenseIndex>(pages: &[Option<Full<D>>]) -> Result<Vec<Option<Full<D>>>, Error> {
    let mut copy = Vec::new();
    try_reserve_exact(&mut copy, pages.len())?;
    for page in pages {
        copy.push(match page {
            Some(values) => {
                let mut full = new_full::<D>()?;
                full.copy_from_slice(&values[..]);
                Some(full)
            }
            None => None,
        });
    }
    Ok(copy)
}

/// A zeroed full page, allocated fallibly.
fn new_full<D: DenseIndex>() -> Result<Full<D>, Error> {
    let mut values = Vec::new();
    values.try_reserve_exact(PAGE_LEN)?;
    values.resize(PAGE_LEN, D::ZERO);
    Ok(values
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("a page has PAGE_LEN slots")))
}

/// One bucket of the hash lane.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    page: u64,
    entry: Entry,
}

const VACANT_BUCKET: Bucket = Bucket { page: NO_PAGE, entry: EMPTY };

/// The hash lane of the directory: page number -> entry. The table is a power of two long
/// (at least 8) and less than 3/4 full; it has no buckets at all while no page is in it, so a
/// lookup in an empty lane is one test.
#[derive(Debug)]
struct HashLane {
    buckets: Vec<Bucket>,
    /// The number of pages in the table.
    len: usize,
    /// The smallest page number in the table; `NO_PAGE` when it is empty.
    min_page: u64,
    /// The largest page number in the table; 0 when it is empty.
    max_page: u64,
}

impl HashLane {
    const fn new() -> Self {
        Self { buckets: Vec::new(), len: 0, min_page: NO_PAGE, max_page: 0 }
    }

    /// A copy, allocated fallibly.
    fn try_clone(&self) -> Result<Self, Error> {
        Ok(Self { buckets: try_copy(&self.buckets)?, ..*self })
    }

    /// An empty table with room for `pages` pages: no buckets if `pages` is zero.
    fn with_room(pages: usize) -> Result<Self, Error> {
        let mut table = Self::new();
        if pages > 0 {
            let mut buckets = 8_usize;
            while buckets * 3 <= pages * 4 {
                buckets = buckets.checked_mul(2).ok_or(Error::CapacityOverflow)?;
            }
            try_reserve_exact(&mut table.buckets, buckets)?;
            table.buckets.resize(buckets, VACANT_BUCKET);
        }
        Ok(table)
    }

    /// The home bucket of `page`: Fibonacci hashing, so runs of page numbers spread out.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of hashed keys")]
    fn home(&self, page: u64) -> usize {
        // A table with buckets has at least 8, so the shift is below 64.
        let bits = self.buckets.len().trailing_zeros();
        (page.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
    }

    /// The entry of `page`; `EMPTY` if it has none.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of hashed keys and of misses")]
    fn get(&self, page: u64) -> Entry {
        match self.find(page) {
            Some(at) => self.buckets[at].entry,
            None => EMPTY,
        }
    }

    /// The bucket holding `page`, if any.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of hashed keys and of misses")]
    fn find(&self, page: u64) -> Option<usize> {
        if self.buckets.is_empty() {
            return None;
        }
        let mask = self.buckets.len() - 1;
        let mut at = self.home(page);
        loop {
            match self.buckets[at].page {
                found if found == page => return Some(at),
                NO_PAGE => return None,
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// Makes room for one more page without exceeding the load limit.
    fn reserve_one(&mut self) -> Result<(), Error> {
        if (self.len + 1) * 4 < self.buckets.len() * 3 {
            return Ok(());
        }
        let mut table = Self::with_room(self.len + 1)?;
        for (page, entry) in self.iter() {
            table.put(page, entry);
        }
        *self = table;
        Ok(())
    }

    /// Inserts or overwrites `page`'s entry; the table must have room (`reserve_one`).
    fn put(&mut self, page: u64, entry: Entry) {
        let mask = self.buckets.len() - 1;
        let mut at = self.home(page);
        loop {
            let bucket = &mut self.buckets[at];
            if bucket.page == page {
                bucket.entry = entry;
                return;
            }
            if bucket.page == NO_PAGE {
                *bucket = Bucket { page, entry };
                self.len += 1;
                self.min_page = self.min_page.min(page);
                self.max_page = self.max_page.max(page);
                return;
            }
            at = (at + 1) & mask;
        }
    }

    fn iter(&self) -> impl Iterator<Item = (u64, Entry)> + '_ {
        self.buckets.iter().filter(|b| b.page != NO_PAGE).map(|b| (b.page, b.entry))
    }

    fn allocated_bytes(&self) -> usize {
        self.buckets.capacity() * size_of::<Bucket>()
    }

    /// Checks the table's part of invariant 2: its count, smallest page, load and size.
    fn check(&self) {
        let counted = self.iter().count();
        assert_eq!(counted, self.len, "the hash lane counts {} entries", self.len);
        let min_page = self.iter().map(|(page, _)| page).min().unwrap_or(NO_PAGE);
        assert_eq!(min_page, self.min_page, "the hash lane's smallest page is wrong");
        let max_page = self.iter().map(|(page, _)| page).max().unwrap_or(0);
        assert_eq!(max_page, self.max_page, "the hash lane's largest page is wrong");
        assert!(
            self.buckets.is_empty() || self.len * 4 < self.buckets.len() * 3,
            "the hash lane is over its load limit"
        );
        assert!(self.buckets.is_empty() || self.buckets.len().is_power_of_two());
    }
}

/// Where a page is, for the write paths.
#[derive(Clone, Copy)]
enum Found {
    /// Page `n` of the prefix.
    Prefix(usize),
    /// `flat_full[n]`.
    FlatFull(usize),
    /// `hashed_full[i]`.
    HashedFull(usize),
    /// `compact[i]`.
    Compact(usize),
    Missing,
}

impl Found {
    /// Where an entry other than a flat full page points.
    fn of(entry: Entry) -> Self {
        match entry {
            EMPTY => Found::Missing,
            entry if entry & COMPACT != 0 => Found::Compact((entry & !COMPACT) as usize),
            entry => Found::HashedFull(entry as usize),
        }
    }
}

/// The sparse side of a set. See the module docs for the layout and the invariants.
#[derive(Debug)]
pub(crate) struct Pages<D: DenseIndex> {
    /// Every slot past this is empty: the last slot of the prefix or of the flat lane's pages,
    /// whichever is further, while the hash lane is empty; `u64::MAX` otherwise. A miss past the
    /// largest key is one comparison.
    last: u64,
    /// The prefix: slots `0..prefix.len()` as one flat array, a whole number of pages, all full.
    prefix: Vec<D>,
    /// The flat lane's full pages, by page number.
    flat_full: Vec<Option<Full<D>>>,
    /// The flat lane's compact entries (or `EMPTY`), by page number.
    flat_compact: Vec<Entry>,
    /// How many page numbers of the flat lane have a page: its density decides whether it may
    /// grow.
    flat_named: usize,
    /// The page numbers from the flat lane's end up.
    hash: HashLane,
    /// The full pages the hash lane names (`None` only while pages move between lanes).
    hashed_full: Vec<Option<Full<D>>>,
    /// The compact-page arena.
    compact: Vec<Compact<D>>,
    /// Compact pages no entry names (all unused), reused before the arena grows.
    free: Vec<Entry>,
}

impl<D: DenseIndex> Default for Pages<D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<D: DenseIndex> Pages<D> {
    pub(crate) const fn new() -> Self {
        Self {
            last: 0,
            prefix: Vec::new(),
            flat_full: Vec::new(),
            flat_compact: Vec::new(),
            flat_named: 0,
            hash: HashLane::new(),
            hashed_full: Vec::new(),
            compact: Vec::new(),
            free: Vec::new(),
        }
    }

    /// A copy, allocated fallibly: on `Err` nothing is left allocated.
    pub(crate) fn try_clone(&self) -> Result<Self, Error> {
        Ok(Self {
            last: self.last,
            prefix: try_copy(&self.prefix)?,
            flat_full: try_copy_pages(&self.flat_full)?,
            flat_compact: try_copy(&self.flat_compact)?,
            flat_named: self.flat_named,
            hash: self.hash.try_clone()?,
            hashed_full: try_copy_pages(&self.hashed_full)?,
            compact: try_copy(&self.compact)?,
            free: try_copy(&self.free)?,
        })
    }

    /// The value stored in `slot`: zero if it is empty or its page is missing.
    ///
    /// `always`: see `SparseSet::get_index_of`. The whole path, misses included, is inlined: a
    /// slot past `last` is one comparison; a slot of the prefix is one load, as in a flat sparse array; a full page of the flat lane
    /// is the page pointer and the slot; anything else is one entry (flat or hashed) and `read`.
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "measured: a call here makes callers' lookup loops spill registers, `get` 2.3 -> 7 ns"
    )]
    pub(crate) fn get(&self, slot: u64) -> D {
        if slot > self.last {
            return D::ZERO;
        }
        if let Some(&value) = self.prefix.get(flat_index(slot)) {
            return value;
        }
        let (page, offset) = split(slot);
        let number = flat_index(page);
        let entry = match self.flat_full.get(number) {
            Some(Some(full)) => return full[offset],
            Some(None) => self.flat_compact.get(number).copied().unwrap_or(EMPTY),
            None => self.hash.get(page),
        };
        self.read(entry, offset)
    }

    /// Recomputes `last` after the prefix, the flat lane or the hash lane changed size.
    fn refresh_last(&mut self) {
        self.last = self.computed_last();
    }

    /// What `last` must be.
    fn computed_last(&self) -> u64 {
        if self.hash.len > 0 {
            return u64::MAX;
        }
        let flat = (self.flat_full.len() as u64).saturating_mul(PAGE_LEN as u64);
        flat.max(self.prefix.len() as u64).saturating_sub(1)
    }

    /// The slot at `offset` of the page `entry` names; zero for `EMPTY`.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every lookup's path; see `Pages::get`")]
    fn read(&self, entry: Entry, offset: usize) -> D {
        if entry == EMPTY {
            return D::ZERO;
        }
        if entry & COMPACT != 0 {
            return self
                .compact
                .get((entry & !COMPACT) as usize)
                .map_or(D::ZERO, |c| c.get(offset));
        }
        match self.hashed_full.get(entry as usize) {
            Some(Some(full)) => full[offset],
            _ => D::ZERO,
        }
    }

    /// Where page number `page` is.
    #[inline]
    fn find(&self, page: u64) -> Found {
        let number = flat_index(page);
        if number < self.prefix_pages() {
            return Found::Prefix(number);
        }
        match self.flat_full.get(number) {
            Some(Some(_)) => Found::FlatFull(number),
            Some(None) => Found::of(self.flat_compact[number]),
            None => Found::of(self.hash.get(page)),
        }
    }

    /// The slot at `offset` of the page at `found`, if the page has that slot in use (a full
    /// page has every slot).
    #[inline]
    fn slot_mut(&mut self, found: Found, offset: usize) -> Option<&mut D> {
        match found {
            Found::Prefix(number) => self.prefix.get_mut(number * PAGE_LEN + offset),
            Found::FlatFull(number) => {
                self.flat_full[number].as_mut().map(|full| &mut full[offset])
            }
            Found::HashedFull(index) => {
                self.hashed_full[index].as_mut().map(|full| &mut full[offset])
            }
            Found::Compact(index) => {
                let compact = &mut self.compact[index];
                compact.position(offset).map(|at| &mut compact.values[at])
            }
            Found::Missing => None,
        }
    }

    /// Overwrites `slot`, which must hold a non-zero value, with another non-zero value.
    ///
    /// A slot that is not in use is left empty instead: that happens only for a key whose
    /// `sparse_index` is not deterministic (see "Implementing `Key` wrongly" in the `Key`
    /// docs), and panicking here would leave a set's callers half-way through a change (a
    /// swap-remove whose columns have not moved yet, a sort's repair guard while unwinding).
    #[inline]
    pub(crate) fn set(&mut self, slot: u64, value: D) {
        if let Some(stored) = self.prefix.get_mut(flat_index(slot)) {
            *stored = value;
            return;
        }
        let (page, offset) = split(slot);
        if let Some(Some(full)) = self.flat_full.get_mut(flat_index(page)) {
            full[offset] = value;
            return;
        }
        if let Some(stored) = self.slot_mut(self.find(page), offset) {
            *stored = value;
        }
    }

    /// Reads `slot` and zeroes it, in one lookup; zero if it was empty or its page is missing.
    /// Never allocates.
    #[inline]
    pub(crate) fn take(&mut self, slot: u64) -> D {
        if let Some(stored) = self.prefix.get_mut(flat_index(slot)) {
            return core::mem::replace(stored, D::ZERO);
        }
        let (page, offset) = split(slot);
        if let Some(Some(full)) = self.flat_full.get_mut(flat_index(page)) {
            return core::mem::replace(&mut full[offset], D::ZERO);
        }
        let found = self.find(page);
        if let Found::Compact(index) = found {
            // A compact page frees the entry, so that its offset is unused again.
            let compact = &mut self.compact[index];
            return match compact.position(offset) {
                Some(at) => {
                    compact.offsets[at] = VACANT;
                    core::mem::replace(&mut compact.values[at], D::ZERO)
                }
                None => D::ZERO,
            };
        }
        self.slot_mut(found, offset).map_or(D::ZERO, |stored| core::mem::replace(stored, D::ZERO))
    }

    /// Zeroes `slot`. Never allocates.
    #[inline]
    pub(crate) fn clear(&mut self, slot: u64) {
        self.take(slot);
    }

    /// Gives the empty `slot` a non-zero value, adding its page (as a compact page) or turning a
    /// compact page full if needed. On `Err` nothing has changed.
    #[inline]
    pub(crate) fn insert(&mut self, slot: u64, value: D) -> Result<(), Error> {
        if let Some(stored) = self.prefix.get_mut(flat_index(slot)) {
            *stored = value;
            return Ok(());
        }
        let (page, offset) = split(slot);
        if let Some(Some(full)) = self.flat_full.get_mut(flat_index(page)) {
            full[offset] = value;
            return Ok(());
        }
        match self.find(page) {
            Found::Compact(index) => {
                if self.compact[index].try_insert(offset, value) {
                    Ok(())
                } else {
                    self.grow_compact(page, index, offset, value)
                }
            }
            Found::Missing => self.add_compact(page, offset, value),
            // A full page (of the lane the fast paths above did not cover): every slot is there.
            found => {
                if let Some(stored) = self.slot_mut(found, offset) {
                    *stored = value;
                }
                Ok(())
            }
        }
    }

    /// Turns compact page `index` (of page number `page`), which has no unused entry left, into
    /// a full page holding its slots and `offset` = `value`; the compact page is freed.
    #[cold]
    fn grow_compact(
        &mut self,
        page: u64,
        index: usize,
        offset: usize,
        value: D,
    ) -> Result<(), Error> {
        let number = flat_index(page);
        if number == self.prefix_pages() && number < self.flat_full.len() {
            // The page continues the prefix: it is appended there, and full pages after it
            // follow.
            try_reserve(&mut self.prefix, PAGE_LEN)?;
            try_reserve(&mut self.free, 1)?;
            let appended = push_zeroed_page(&mut self.prefix);
            self.compact[index].fill(appended);
            appended[offset] = value;
            self.free_compact(index);
            self.flat_compact[number] = EMPTY;
            self.flat_named -= 1;
            self.absorb_full_pages();
            return Ok(());
        }
        let mut full = new_full::<D>()?;
        self.compact[index].fill(&mut full);
        full[offset] = value;
        try_reserve(&mut self.free, 1)?;
        if number < self.flat_full.len() {
            self.flat_full[number] = Some(full);
            self.flat_compact[number] = EMPTY;
        } else {
            let entry = Entry::try_from(self.hashed_full.len()).ok().filter(|&entry| entry < EMPTY);
            let entry = entry.ok_or(Error::CapacityOverflow)?;
            try_reserve(&mut self.hashed_full, 1)?;
            self.hashed_full.push(Some(full));
            // The page is in the hash lane already: this overwrites, needing no room.
            self.hash.put(page, entry);
        }
        self.free_compact(index);
        Ok(())
    }

    /// Empties compact page `index`, which no entry names any more, onto the free list (whose
    /// room the caller reserved).
    fn free_compact(&mut self, index: usize) {
        self.compact[index] = Compact::EMPTY;
        self.free.push(index as Entry);
    }

    /// Adds a compact page for page number `page`, which has none, holding `offset` = `value`.
    #[inline(never)]
    fn add_compact(&mut self, page: u64, offset: usize, value: D) -> Result<(), Error> {
        let reuse = self.free.last().copied();
        if reuse.is_none() {
            if self.compact.len() >= EMPTY as usize {
                return Err(Error::CapacityOverflow);
            }
            try_reserve(&mut self.compact, 1)?;
        }
        self.reserve_entry(page)?;
        let mut compact = Compact::EMPTY;
        compact.try_insert(offset, value);
        let index = if let Some(index) = reuse {
            self.free.pop();
            self.compact[index as usize] = compact;
            index
        } else {
            self.compact.push(compact);
            (self.compact.len() - 1) as Entry
        };
        self.add_entry(page, COMPACT | index);
        Ok(())
    }

    /// The value of prefix slot `at`; zero past the prefix.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of generational keys")]
    pub(crate) fn prefix_get(&self, at: usize) -> D {
        self.prefix.get(at).copied().unwrap_or(D::ZERO)
    }

    /// The number of slots in the prefix.
    #[inline]
    pub(crate) fn prefix_len(&self) -> usize {
        self.prefix.len()
    }

    /// The number of pages in the prefix.
    #[inline]
    fn prefix_pages(&self) -> usize {
        self.prefix.len() / PAGE_LEN
    }

    /// Moves the flat lane's full pages that continue the prefix into it, while its memory can
    /// be had (a page that cannot move stays where it is, as valid as before).
    fn absorb_full_pages(&mut self) {
        loop {
            let number = self.prefix_pages();
            let Some(slot) = self.flat_full.get_mut(number) else { return };
            if slot.is_none() || try_reserve(&mut self.prefix, PAGE_LEN).is_err() {
                return;
            }
            if let Some(full) = slot.take() {
                self.prefix.extend_from_slice(&full[..]);
                self.flat_named -= 1;
            }
        }
    }

    /// Makes room in the directory for the new page number `page`: grows the flat lane over it
    /// if the lane may cover it, else makes room in the hash lane. After `Ok`, `add_entry(page,
    /// _)` cannot fail.
    fn reserve_entry(&mut self, page: u64) -> Result<(), Error> {
        let limit = FLAT_MIN.max((self.page_count() + 1).saturating_mul(FLAT_PER_PAGE));
        // Hashed pages the flat lane may now cover (keys inserted from the top down: their
        // first pages were too far out) move over. If that memory cannot be had, they stay.
        if self.hash.len > 0 && self.hash.max_page < limit as u64 && self.flat_is_dense() {
            let len = (self.hash.max_page as usize + 1).max(self.flat_full.len());
            let _stays_hashed = self.grow_flat(len);
        }
        match usize::try_from(page) {
            Ok(number) if number < self.flat_full.len() => Ok(()),
            Ok(number) if number < limit && self.flat_is_dense() => {
                // The lane ends right after the pages in use (its capacity grows
                // geometrically), so a miss past the largest key always takes the same path.
                self.grow_flat(number + 1)
            }
            _ => self.hash.reserve_one(),
        }
    }

    /// Whether the flat lane may grow: it is within its free size, or at least one in
    /// `2 * FLAT_PER_PAGE` of the page numbers it covers has a page (in the lane or the
    /// prefix). Keys spread thinly over a
    /// wide range (random or hashed ids) keep it small; keys from 0 up grow it.
    fn flat_is_dense(&self) -> bool {
        let pages = self.prefix_pages() + self.flat_named;
        self.flat_full.len() < FLAT_MIN || pages * 2 * FLAT_PER_PAGE >= self.flat_full.len()
    }

    /// Extends the flat lane to `len` page numbers, moving the hash lane's pages below `len`
    /// over. On `Err` nothing has changed.
    fn grow_flat(&mut self, len: usize) -> Result<(), Error> {
        let grow = len.saturating_sub(self.flat_full.len());
        try_reserve(&mut self.flat_full, grow)?;
        try_reserve(&mut self.flat_compact, grow)?;
        if self.hash.min_page < len as u64 {
            self.move_to_flat(len)?;
        }
        self.flat_full.resize_with(len, || None);
        self.flat_compact.resize(len, EMPTY);
        self.refresh_last();
        Ok(())
    }

    /// Moves the hash lane's pages below `len` into the flat lane, whose room is reserved. On
    /// `Err` nothing has changed.
    #[cold]
    fn move_to_flat(&mut self, len: usize) -> Result<(), Error> {
        // What stays in the hash lane is allocated before anything changes.
        let staying = self.hash.iter().filter(|&(page, _)| page >= len as u64);
        let (staying, staying_full) = staying.fold((0, 0), |(pages, full), (_, entry)| {
            (pages + 1, full + usize::from(entry & COMPACT == 0))
        });
        let mut rest = HashLane::with_room(staying)?;
        let mut rest_full = Vec::new();
        try_reserve_exact(&mut rest_full, staying_full)?;
        self.flat_full.resize_with(len, || None);
        self.flat_compact.resize(len, EMPTY);
        for (page, entry) in self.hash.iter() {
            let full =
                if entry & COMPACT == 0 { self.hashed_full[entry as usize].take() } else { None };
            if page < len as u64 {
                let number = page as usize;
                match full {
                    Some(full) => self.flat_full[number] = Some(full),
                    None => self.flat_compact[number] = entry,
                }
                self.flat_named += 1;
            } else {
                let entry = match full {
                    Some(full) => {
                        rest_full.push(Some(full));
                        (rest_full.len() - 1) as Entry
                    }
                    None => entry,
                };
                rest.put(page, entry);
            }
        }
        self.hash = rest;
        self.hashed_full = rest_full;
        Ok(())
    }

    /// Names the new page `page` with `entry`; its lane has room (`reserve_entry`).
    fn add_entry(&mut self, page: u64, entry: Entry) {
        if let Some(slot) = self.flat_compact.get_mut(flat_index(page)) {
            *slot = entry;
            self.flat_named += 1;
        } else {
            self.hash.put(page, entry);
            self.refresh_last();
        }
    }

    /// Adds full pages covering slots `0..limit` (bounded sets), so that inserting below `limit`
    /// never allocates; compact pages there turn full. On `Err`, the pages may have changed
    /// form, but every slot keeps its value.
    pub(crate) fn allocate_full_below(&mut self, limit: u64) -> Result<(), Error> {
        let pages = Self::check_full_below(limit)?;
        if pages <= self.prefix_pages() {
            return Ok(());
        }
        if pages > self.flat_full.len() {
            self.grow_flat(pages)?;
        }
        // The prefix over every page, allocated at once (so a huge limit fails before anything
        // else is), then filled from the pages it replaces.
        let mut prefix = Vec::new();
        try_reserve_exact(&mut prefix, pages * PAGE_LEN)?;
        try_reserve(&mut self.free, pages)?;
        prefix.extend_from_slice(&self.prefix);
        for number in self.prefix_pages()..pages {
            let values = push_zeroed_page(&mut prefix);
            if let Some(full) = self.flat_full[number].take() {
                values.copy_from_slice(&full[..]);
                self.flat_named -= 1;
            } else if let Found::Compact(index) = Found::of(self.flat_compact[number]) {
                self.compact[index].fill(values);
                self.free_compact(index);
                self.flat_compact[number] = EMPTY;
                self.flat_named -= 1;
            }
        }
        self.prefix = prefix;
        self.refresh_last();
        Ok(())
    }

    /// The number of full pages covering slots `0..limit`, or `Err(CapacityOverflow)` if they
    /// (and their directory) need more memory than the address space has. Allocates nothing.
    pub(crate) fn check_full_below(limit: u64) -> Result<usize, Error> {
        let pages = usize::try_from(limit.div_ceil(PAGE_LEN as u64)).ok();
        pages
            .filter(|&pages| {
                pages
                    .checked_mul(Self::FULL_PAGE_BYTES)
                    .is_some_and(|bytes| isize::try_from(bytes).is_ok())
            })
            .ok_or(Error::CapacityOverflow)
    }

    /// The bytes [`allocate_full_below`](Self::allocate_full_below) takes for slots
    /// `0..limit` in an empty sparse array: the pages and their directory entries. `Err` as
    /// [`check_full_below`](Self::check_full_below). Allocates nothing.
    #[cfg(feature = "serde")]
    pub(crate) fn full_below_bytes(limit: u64) -> Result<usize, Error> {
        Ok(Self::check_full_below(limit)? * Self::FULL_PAGE_BYTES)
    }

    /// What one page of the prefix costs: its slots, and its entry in the flat lane.
    const FULL_PAGE_BYTES: usize =
        size_of::<[D; PAGE_LEN]>() + size_of::<Option<Full<D>>>() + size_of::<Entry>();

    /// Every page number with a page, and the page's slots.
    fn pages(&self) -> impl Iterator<Item = (u64, PageRef<'_, D>)> + '_ {
        let prefix = self.prefix.chunks_exact(PAGE_LEN).enumerate().map(|(number, values)| {
            let values = values.try_into().unwrap_or_else(|_| unreachable!("whole pages"));
            (number as u64, PageRef::Full(values))
        });
        let flat = self.flat_full.iter().zip(&self.flat_compact).enumerate();
        let flat = flat.filter_map(|(number, (full, &entry))| {
            let page = match full {
                Some(full) => PageRef::Full(full),
                None => self.page_ref(entry)?,
            };
            Some((number as u64, page))
        });
        let hashed =
            self.hash.iter().filter_map(|(page, entry)| Some((page, self.page_ref(entry)?)));
        prefix.chain(flat).chain(hashed)
    }

    /// The page an entry other than `EMPTY` names.
    fn page_ref(&self, entry: Entry) -> Option<PageRef<'_, D>> {
        match Found::of(entry) {
            Found::Compact(index) => self.compact.get(index).map(PageRef::Compact),
            Found::HashedFull(index) => self.hashed_full.get(index)?.as_deref().map(PageRef::Full),
            Found::Prefix(_) | Found::FlatFull(_) | Found::Missing => None,
        }
    }

    /// Adds page number `page`, which has no page, holding `values` in the smallest form that
    /// fits them; nothing if they are all zero.
    fn adopt(&mut self, page: u64, values: PageRef<'_, D>) -> Result<(), Error> {
        let compact = match values {
            PageRef::Compact(compact) => Some(*compact),
            PageRef::Full(values) => Compact::from_full(values),
        };
        match compact {
            Some(compact) if compact.len() == 0 => Ok(()),
            Some(compact) => {
                try_reserve(&mut self.compact, 1)?;
                self.reserve_entry(page)?;
                self.compact.push(compact);
                self.add_entry(page, COMPACT | (self.compact.len() - 1) as Entry);
                Ok(())
            }
            None => {
                let PageRef::Full(values) = values else { unreachable!("a compact page fits") };
                if flat_index(page) == self.prefix_pages() {
                    try_reserve(&mut self.prefix, PAGE_LEN)?;
                    self.prefix.extend_from_slice(values);
                    self.refresh_last();
                    return Ok(());
                }
                let mut full = new_full::<D>()?;
                full.copy_from_slice(values);
                try_reserve(&mut self.hashed_full, 1)?;
                self.reserve_entry(page)?;
                let number = flat_index(page);
                if number < self.flat_full.len() {
                    self.flat_full[number] = Some(full);
                    self.flat_named += 1;
                } else {
                    self.hashed_full.push(Some(full));
                    self.hash.put(page, (self.hashed_full.len() - 1) as Entry);
                    self.refresh_last();
                }
                Ok(())
            }
        }
    }

    /// Releases every page whose slots are all zero, turns full pages with few slots in use
    /// compact, drops freed compact pages, and sizes the directory to the pages left. If the
    /// memory for the rebuilt pages cannot be had, nothing changes.
    pub(crate) fn release_empty_pages(&mut self) {
        let mut pages: Vec<(u64, PageRef<'_, D>)> = Vec::new();
        if pages.try_reserve_exact(self.page_count()).is_err() {
            return;
        }
        pages.extend(self.pages());
        pages.sort_unstable_by_key(|&(page, _)| page);
        let mut rebuilt = Self::new();
        for &(page, values) in &pages {
            if rebuilt.adopt(page, values).is_err() {
                return;
            }
        }
        drop(pages);
        shrink(&mut rebuilt.prefix);
        shrink(&mut rebuilt.flat_full);
        shrink(&mut rebuilt.flat_compact);
        shrink(&mut rebuilt.hashed_full);
        shrink(&mut rebuilt.compact);
        *self = rebuilt;
    }

    /// The number of pages in use.
    pub(crate) fn page_count(&self) -> usize {
        self.prefix_pages() + self.flat_named + self.hash.len
    }

    /// Bytes held by the sparse side: pages, arenas and both lanes of the directory.
    ///
    /// O(flat lane): full pages of the flat lane are counted.
    pub(crate) fn allocated_bytes(&self) -> usize {
        let full_pages = self.flat_full.iter().flatten().count() + self.hashed_full.len();
        full_pages * size_of::<[D; PAGE_LEN]>()
            + self.prefix.capacity() * size_of::<D>()
            + self.flat_full.capacity() * size_of::<Option<Full<D>>>()
            + self.flat_compact.capacity() * size_of::<Entry>()
            + self.hashed_full.capacity() * size_of::<Option<Full<D>>>()
            + self.compact.capacity() * size_of::<Compact<D>>()
            + self.free.capacity() * size_of::<Entry>()
            + self.hash.allocated_bytes()
    }

    /// Checks every invariant in the module docs and returns the number of non-zero slots (the
    /// set's `len`, by its invariant); panics describing the first one broken.
    pub(crate) fn check(&self) -> usize {
        // 0. The last slot and the prefix.
        assert_eq!(self.last, self.computed_last(), "`last` is stale");
        assert_eq!(self.prefix.len() % PAGE_LEN, 0, "the prefix ends inside a page");
        let prefix_pages = self.prefix_pages();
        for number in 0..prefix_pages.min(self.flat_full.len()) {
            assert!(
                self.flat_full[number].is_none() && self.flat_compact[number] == EMPTY,
                "page {number} is in the prefix and in the flat lane"
            );
        }
        // 1. The flat lane.
        let flat_len = self.flat_full.len();
        assert_eq!(flat_len, self.flat_compact.len(), "the flat lane's vectors differ in length");
        let mut compact_named = alloc::vec![false; self.compact.len()];
        let mut name = |page: u64, index: usize| {
            assert!(index < compact_named.len(), "page {page} names a compact page past the arena");
            assert!(!compact_named[index], "two pages share compact page {index}");
            compact_named[index] = true;
        };
        let mut named = 0;
        for (number, (full, &entry)) in self.flat_full.iter().zip(&self.flat_compact).enumerate() {
            assert!(
                entry == EMPTY || entry & COMPACT != 0,
                "flat page {number} has a non-compact entry {entry}"
            );
            assert!(full.is_none() || entry == EMPTY, "flat page {number} is full and compact");
            if entry != EMPTY {
                name(number as u64, (entry & !COMPACT) as usize);
            }
            named += usize::from(full.is_some() || entry != EMPTY);
        }
        assert_eq!(named, self.flat_named, "the flat lane names {named} pages");
        // 2. The hash lane.
        let mut full_named = alloc::vec![false; self.hashed_full.len()];
        for (page, entry) in self.hash.iter() {
            assert!(
                page >= flat_len.max(prefix_pages) as u64,
                "page {page} is in the hash lane but below the flat lane's or the prefix's end"
            );
            assert_eq!(
                self.hash.find(page).map(|at| self.hash.buckets[at].entry),
                Some(entry),
                "page {page} is unreachable in the hash lane, or twice in it"
            );
            match Found::of(entry) {
                Found::Compact(index) => name(page, index),
                Found::HashedFull(index) => {
                    assert!(
                        index < full_named.len(),
                        "page {page} names a full page past the list"
                    );
                    assert!(!full_named[index], "two pages share full page {index}");
                    assert!(self.hashed_full[index].is_some(), "page {page} names a moved page");
                    full_named[index] = true;
                }
                Found::Missing | Found::FlatFull(_) | Found::Prefix(_) => {
                    panic!("the hash lane holds page {page} empty")
                }
            }
        }
        self.hash.check();
        // 3. Every full page named once; every compact page named once or free once.
        assert!(full_named.iter().all(|&named| named), "a hashed full page is named by no entry");
        assert!(self.hashed_full.len() < EMPTY as usize, "the full list reaches `EMPTY`");
        for &index in &self.free {
            let index = index as usize;
            assert!(index < compact_named.len(), "free compact page {index} is past the arena");
            assert!(!compact_named[index], "compact page {index} is both named and free");
            compact_named[index] = true;
        }
        assert!(
            compact_named.iter().all(|&named| named),
            "a compact page is neither named nor free"
        );
        // 4. Compact pages well formed; free ones unused.
        self.compact.iter().for_each(Compact::check);
        for &index in &self.free {
            assert_eq!(self.compact[index as usize].len(), 0, "free compact page {index} is used");
        }
        self.pages()
            .map(|(_, page)| match page {
                PageRef::Full(values) => values.iter().filter(|&&value| value != D::ZERO).count(),
                PageRef::Compact(compact) => compact.len(),
            })
            .sum()
    }
}

/// The slots of one page, in whichever form it has.
#[derive(Clone, Copy)]
enum PageRef<'a, D> {
    Full(&'a [D; PAGE_LEN]),
    Compact(&'a Compact<D>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insert_all(pages: &mut Pages<u32>, slots: &[u64]) {
        for (value, &slot) in (1..).zip(slots) {
            pages.insert(slot, value).unwrap();
        }
        assert_eq!(pages.check(), slots.len());
    }

    #[test]
    fn a_page_starts_compact_and_turns_full_on_its_ninth_slot() {
        let mut pages = Pages::<u32>::new();
        let slots: Vec<u64> = (0..COMPACT_LEN as u64).map(|i| i * 7).collect();
        insert_all(&mut pages, &slots);
        assert!(pages.flat_full[0].is_none());
        assert_eq!(pages.compact.len(), 1);
        pages.insert(500, 99).unwrap();
        assert_eq!(pages.prefix.len(), PAGE_LEN, "page 0 turned full, as the prefix");
        assert!(pages.flat_full[0].is_none());
        assert_eq!(pages.free, [0], "the compact page is free for the next new page");
        for (value, &slot) in (1..).zip(&slots) {
            assert_eq!(pages.get(slot), value);
        }
        assert_eq!((pages.get(500), pages.get(1)), (99, 0));
        assert_eq!(pages.check(), COMPACT_LEN + 1);
        assert_eq!(pages.page_count(), 1);
        pages.insert(PAGE_LEN as u64, 5).unwrap();
        assert_eq!((pages.compact.len(), pages.free.len()), (1, 0), "the freed page is reused");
        assert_eq!(pages.check(), COMPACT_LEN + 2);
    }

    #[test]
    fn releasing_turns_sparse_full_pages_compact_and_drops_empty_ones() {
        let mut pages = Pages::<u32>::new();
        let slots: Vec<u64> = (0..100).collect();
        insert_all(&mut pages, &slots);
        pages.insert(5_000_000, 1).unwrap();
        pages.insert(1 << 50, 1).unwrap();
        for slot in 3..100 {
            pages.clear(slot);
        }
        pages.clear(5_000_000);
        pages.clear(1 << 50);
        pages.release_empty_pages();
        assert_eq!(pages.check(), 3);
        assert_eq!(pages.page_count(), 1);
        assert_eq!((pages.compact.len(), pages.hash.len, pages.flat_full.len()), (1, 0, 1));
        assert_eq!((pages.get(0), pages.get(1), pages.get(2), pages.get(3)), (1, 2, 3, 0));
    }

    #[test]
    fn slots_far_apart_share_nothing_but_the_directory() {
        let mut pages = Pages::<u32>::new();
        insert_all(&mut pages, &[0, u64::from(u32::MAX), u64::MAX, 1 << 40]);
        assert_eq!(pages.get(0), 1);
        assert_eq!(pages.get(u64::from(u32::MAX)), 2);
        assert_eq!(pages.get(u64::MAX), 3);
        assert_eq!(pages.get(1 << 40), 4);
        for missing in [PAGE_LEN as u64, (1 << 40) + 1, u64::MAX - 1, u64::MAX - PAGE_LEN as u64] {
            assert_eq!(pages.get(missing), 0, "slot {missing}");
        }
        assert_eq!(pages.page_count(), 4);
        assert_eq!(pages.hash.len, 3, "only page 0 is in the flat lane");
        assert!(pages.allocated_bytes() < 1024, "{}", pages.allocated_bytes());
    }

    #[test]
    fn slots_that_differ_in_their_high_bits_never_share_a_page() {
        // On a 32-bit target these would share a page if slots were `usize`.
        let mut pages = Pages::<u32>::new();
        insert_all(&mut pages, &[5, (1 << 32) + 5, (2 << 32) + 5]);
        assert_eq!((pages.get(5), pages.get((1 << 32) + 5), pages.get((2 << 32) + 5)), (1, 2, 3));
        assert_eq!(pages.take((1 << 32) + 5), 2);
        assert_eq!((pages.get(5), pages.get((1 << 32) + 5), pages.get((2 << 32) + 5)), (1, 0, 3));
        assert_eq!(pages.check(), 2);
    }

    #[test]
    fn hashed_pages_turn_full_and_move_to_the_flat_lane_when_it_grows_over_them() {
        let mut pages = Pages::<u32>::new();
        // A page number past the free flat size: it lands in the hash lane, and turns full.
        let far = (FLAT_MIN as u64 + 10) << PAGE_BITS;
        let far_slots: Vec<u64> = (0..=COMPACT_LEN as u64).map(|i| far + i).collect();
        insert_all(&mut pages, &far_slots);
        assert_eq!((pages.flat_full.len(), pages.hash.len, pages.hashed_full.len()), (0, 1, 1));
        // A second hashed page, compact, further out.
        let further = far + 4 * PAGE_LEN as u64;
        pages.insert(further, 77).unwrap();
        // Then pages from 0 up, dense enough for the flat lane to grow past `far`'s page.
        for page in 0..(FLAT_MIN as u64 + 12) {
            if page != FLAT_MIN as u64 + 10 {
                pages.insert((page << PAGE_BITS) + 1, 7).unwrap();
            }
        }
        pages.check();
        assert!(pages.flat_full.len() > FLAT_MIN + 10, "{}", pages.flat_full.len());
        assert!(pages.flat_full[FLAT_MIN + 10].is_some(), "the full page moved to the flat lane");
        for (value, &slot) in (1..).zip(&far_slots) {
            assert_eq!(pages.get(slot), value);
        }
        pages.set(far, 1234);
        assert_eq!(pages.get(far), 1234);
        assert_eq!(pages.get(further), 77);
        assert_eq!(pages.take(further), 77);
        assert_eq!(pages.get(further), 0);
    }

    #[test]
    fn full_pages_from_zero_up_join_the_prefix_in_any_order() {
        let mut pages = Pages::<u32>::new();
        // Page 1 turns full first (a boxed page of the flat lane), then page 0: the prefix takes
        // both. Page 3 stays boxed: page 2 is compact.
        let mut slots: Vec<u64> = (0..=COMPACT_LEN as u64).map(|i| PAGE_LEN as u64 + i).collect();
        slots.extend((0..=COMPACT_LEN as u64).map(|i| 3 * PAGE_LEN as u64 + i));
        slots.push(2 * PAGE_LEN as u64);
        insert_all(&mut pages, &slots);
        assert!(pages.prefix.is_empty() && pages.flat_full[1].is_some());
        let mut all = slots.clone();
        all.extend(0..=COMPACT_LEN as u64);
        for (value, &slot) in (1..).zip(&all).skip(slots.len()) {
            pages.insert(slot, value).unwrap();
        }
        assert_eq!(pages.check(), all.len());
        assert_eq!(pages.prefix.len(), 2 * PAGE_LEN);
        assert!(pages.flat_full[1].is_none() && pages.flat_full[3].is_some());
        assert_eq!(pages.page_count(), 4);
        for (value, &slot) in (1..).zip(&all) {
            assert_eq!(pages.get(slot), value, "slot {slot}");
        }
        pages.set(PAGE_LEN as u64, 1000);
        assert_eq!(pages.take(PAGE_LEN as u64), 1000);
        // Emptied down to one key, the prefix's second page turns compact on release.
        for &slot in &slots[1..=COMPACT_LEN] {
            pages.clear(slot);
        }
        pages.release_empty_pages();
        assert_eq!(pages.check(), all.len() - COMPACT_LEN - 1);
        assert_eq!(pages.prefix.len(), PAGE_LEN);
        assert_eq!(pages.get(0), (slots.len() + 1) as u32);
    }

    #[test]
    fn keys_from_zero_up_stay_in_the_prefix_past_the_free_flat_size() {
        let mut pages = Pages::<u32>::new();
        let count =
            if cfg!(miri) { 3 * PAGE_LEN as u64 } else { (FLAT_MIN as u64 + 10) << PAGE_BITS };
        for slot in 0..count {
            pages.insert(slot, 1).unwrap();
        }
        assert_eq!(pages.prefix.len() as u64, count, "every page is in the prefix");
        assert_eq!((pages.hash.len, pages.last), (0, count - 1));
        assert_eq!(pages.get(count), 0);
        assert_eq!(pages.check(), count as usize);
    }

    #[test]
    fn keys_from_the_top_down_end_in_the_prefix_too() {
        let mut pages = Pages::<u32>::new();
        let count =
            if cfg!(miri) { 3 * PAGE_LEN as u64 } else { (FLAT_MIN as u64 + 300) << PAGE_BITS };
        for (value, slot) in (1..).zip((0..count).rev()) {
            pages.insert(slot, value).unwrap();
        }
        assert_eq!(pages.check(), count as usize);
        assert_eq!(pages.prefix.len() as u64, count, "every page is in the prefix");
        assert_eq!(pages.hash.len, 0);
    }

    #[test]
    fn thinly_spread_pages_keep_the_flat_lane_small() {
        let mut pages = Pages::<u32>::new();
        // One page in every 64 page numbers: too thin for the flat lane past its free size.
        let count: u64 = if cfg!(miri) { 300 } else { 10_000 };
        let slots: Vec<u64> = (0..count).map(|i| (i * 64) << PAGE_BITS).collect();
        insert_all(&mut pages, &slots);
        assert!(pages.flat_full.len() <= FLAT_MIN, "{}", pages.flat_full.len());
        assert_eq!(pages.flat_named + pages.hash.len, count as usize);
        for (value, &slot) in (1..).zip(&slots) {
            assert_eq!(pages.get(slot), value);
            assert_eq!(pages.get(slot + 1), 0);
        }
    }

    #[test]
    fn bounded_pages_are_full_from_the_start() {
        let mut pages = Pages::<u8>::new();
        pages.insert(3, 1).unwrap();
        pages.allocate_full_below(3 * PAGE_LEN as u64 - 1).unwrap();
        assert_eq!(pages.page_count(), 3);
        assert_eq!(pages.prefix.len(), 3 * PAGE_LEN, "one flat array, as in a flat sparse set");
        assert_eq!(pages.prefix.capacity(), 3 * PAGE_LEN, "allocated exactly");
        assert!(pages.flat_full.iter().all(Option::is_none));
        assert_eq!(pages.free, [0]);
        assert_eq!(pages.get(3), 1, "values survive the conversion");
        assert_eq!(pages.check(), 1);
    }

    #[test]
    fn huge_bounds_fail_before_allocating() {
        assert_eq!(Pages::<u32>::check_full_below(u64::MAX), Err(Error::CapacityOverflow));
        assert_eq!(Pages::<u32>::check_full_below(1 << 62), Err(Error::CapacityOverflow));
        assert_eq!(Pages::<u32>::check_full_below(PAGE_LEN as u64 + 1), Ok(2));
    }
}
