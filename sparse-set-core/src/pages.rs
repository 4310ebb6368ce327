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
//!   pages. Bounded sets use full pages from the start, so they never allocate after
//!   construction.
//!
//! # The directory
//!
//! One mapping, page number -> page, in two lanes:
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
//! its branches depend on how the keys are distributed (flat or hashed, full or compact), not
//! on the individual key, so they predict well.
//!
//! Memory: pages touched, plus 12 bytes per flat page number and about 21 to 43 bytes (16 per
//! bucket, at most 3/4 of them used) per hashed page. Nothing is sized by the largest key.
//!
//! Why an [`Entity`](crate::Entity)'s generation stays on the dense side: see the measurement in
//! the `set` module's docs.
//!
//! # Invariants
//!
//! Checked, all of them, by [`Pages::check`], which `SparseSet::assert_invariants` calls.
//!
//! 1. `flat_full` and `flat_compact` have the same length, the flat lane's. No page number has
//!    both a full page in `flat_full` and an entry other than `EMPTY` in `flat_compact`, and
//!    `flat_compact` holds only `EMPTY` and compact entries. `flat_named` counts the page
//!    numbers of the flat lane that have a page.
//! 2. The hash lane holds only page numbers at or past the flat lane's end, each at most once,
//!    never with `EMPTY`; `hash.len` counts them, fewer than 3/4 of the buckets, each reachable
//!    from its home bucket without crossing a vacant one; `hash.min_page` is the smallest.
//! 3. Every index of `hashed_full` is named by exactly one hash-lane entry. Every index of the
//!    compact arena is named by exactly one entry or listed once in `free`, not both.
//! 4. A compact page's used offsets are distinct and below `PAGE_LEN`, each with a non-zero
//!    value; its unused entries have the offset [`VACANT`] and the value zero. Free compact
//!    pages are all unused.
//!
//! The number of pages in use is derived (`flat_named + hash.len`).

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::error::{try_reserve, try_reserve_exact};
use crate::{DenseIndex, Error};

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
#[derive(Clone, Debug)]
struct HashLane {
    buckets: Vec<Bucket>,
    /// The number of pages in the table.
    len: usize,
    /// The smallest page number in the table; `NO_PAGE` when it is empty.
    min_page: u64,
}

impl HashLane {
    const fn new() -> Self {
        Self { buckets: Vec::new(), len: 0, min_page: NO_PAGE }
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
}

/// Where a page is, for the write paths.
#[derive(Clone, Copy)]
enum Found {
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
#[derive(Clone, Debug)]
pub(crate) struct Pages<D: DenseIndex> {
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
            flat_full: Vec::new(),
            flat_compact: Vec::new(),
            flat_named: 0,
            hash: HashLane::new(),
            hashed_full: Vec::new(),
            compact: Vec::new(),
            free: Vec::new(),
        }
    }

    /// The value stored in `slot`: zero if it is empty or its page is missing.
    ///
    /// `always`: see `SparseSet::get_index_of`. The whole path, misses included, is inlined: a
    /// full page of the flat lane is the page pointer and the slot; anything else is one entry
    /// (flat or hashed) and `read`.
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "measured: a call here makes callers' lookup loops spill registers, `get` 2.3 -> 7 ns"
    )]
    pub(crate) fn get(&self, slot: u64) -> D {
        let (page, offset) = split(slot);
        let number = flat_index(page);
        let entry = match self.flat_full.get(number) {
            Some(Some(full)) => return full[offset],
            Some(None) => self.flat_compact.get(number).copied().unwrap_or(EMPTY),
            None => self.hash.get(page),
        };
        self.read(entry, offset)
    }

    /// The slot at `offset` of the page `entry` names; zero for `EMPTY`.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every lookup's path; see `Pages::get`")]
    fn read(&self, entry: Entry, offset: usize) -> D {
        if entry & COMPACT != 0 {
            return self
                .compact
                .get((entry & !COMPACT) as usize)
                .map_or(D::ZERO, |c| c.get(offset));
        }
        // `EMPTY` fails this bounds check.
        match self.hashed_full.get(entry as usize) {
            Some(Some(full)) => full[offset],
            _ => D::ZERO,
        }
    }

    /// Where page number `page` is.
    #[inline]
    fn find(&self, page: u64) -> Found {
        let number = flat_index(page);
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
    #[inline]
    pub(crate) fn set(&mut self, slot: u64, value: D) {
        let (page, offset) = split(slot);
        if let Some(Some(full)) = self.flat_full.get_mut(flat_index(page)) {
            full[offset] = value;
            return;
        }
        match self.slot_mut(self.find(page), offset) {
            Some(stored) => *stored = value,
            None => unreachable!("sparse slot {slot} is not in use"),
        }
    }

    /// Reads `slot` and zeroes it, in one lookup; zero if it was empty or its page is missing.
    /// Never allocates.
    #[inline]
    pub(crate) fn take(&mut self, slot: u64) -> D {
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
        let (page, offset) = split(slot);
        if let Some(Some(full)) = self.flat_full.get_mut(flat_index(page)) {
            full[offset] = value;
            return Ok(());
        }
        match self.find(page) {
            Found::FlatFull(number) => {
                if let Some(full) = &mut self.flat_full[number] {
                    full[offset] = value;
                }
                Ok(())
            }
            Found::HashedFull(index) => {
                if let Some(full) = &mut self.hashed_full[index] {
                    full[offset] = value;
                }
                Ok(())
            }
            Found::Compact(index) => {
                if self.compact[index].try_insert(offset, value) {
                    Ok(())
                } else {
                    self.grow_compact(page, index, offset, value)
                }
            }
            Found::Missing => self.add_compact(page, offset, value),
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
        let mut full = new_full::<D>()?;
        self.compact[index].fill(&mut full);
        full[offset] = value;
        try_reserve(&mut self.free, 1)?;
        let number = flat_index(page);
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
        self.compact[index] = Compact::EMPTY;
        self.free.push(index as Entry);
        Ok(())
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

    /// Makes room in the directory for the new page number `page`: grows the flat lane over it
    /// if the lane may cover it, else makes room in the hash lane. After `Ok`, `add_entry(page,
    /// _)` cannot fail.
    fn reserve_entry(&mut self, page: u64) -> Result<(), Error> {
        let limit = FLAT_MIN.max((self.page_count() + 1).saturating_mul(FLAT_PER_PAGE));
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
    /// `2 * FLAT_PER_PAGE` of the page numbers it covers has a page. Keys spread thinly over a
    /// wide range (random or hashed ids) keep it small; keys from 0 up grow it.
    fn flat_is_dense(&self) -> bool {
        self.flat_full.len() < FLAT_MIN
            || self.flat_named * 2 * FLAT_PER_PAGE >= self.flat_full.len()
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
        match self.flat_compact.get_mut(flat_index(page)) {
            Some(slot) => {
                *slot = entry;
                self.flat_named += 1;
            }
            None => self.hash.put(page, entry),
        }
    }

    /// Adds full pages covering slots `0..limit` (bounded sets), so that inserting below `limit`
    /// never allocates; compact pages there turn full. On `Err`, the pages may have changed
    /// form, but every slot keeps its value.
    pub(crate) fn allocate_full_below(&mut self, limit: u64) -> Result<(), Error> {
        let pages = Self::check_full_below(limit)?;
        // Fail fast when the whole amount cannot be had, instead of allocating page after page.
        let mut probe: Vec<[D; PAGE_LEN]> = Vec::new();
        try_reserve_exact(&mut probe, pages)?;
        drop(probe);
        if pages > self.flat_full.len() {
            self.grow_flat(pages)?;
        }
        for number in 0..pages {
            if self.flat_full[number].is_some() {
                continue;
            }
            try_reserve(&mut self.free, 1)?;
            let mut full = new_full::<D>()?;
            match Found::of(self.flat_compact[number]) {
                Found::Compact(index) => {
                    self.compact[index].fill(&mut full);
                    self.compact[index] = Compact::EMPTY;
                    self.free.push(index as Entry);
                }
                _ => self.flat_named += 1,
            }
            self.flat_full[number] = Some(full);
            self.flat_compact[number] = EMPTY;
        }
        Ok(())
    }

    /// The number of full pages covering slots `0..limit`, or `Err(CapacityOverflow)` if they
    /// (and their directory) need more memory than the address space has. Allocates nothing.
    pub(crate) fn check_full_below(limit: u64) -> Result<usize, Error> {
        let pages = usize::try_from(limit.div_ceil(PAGE_LEN as u64)).ok();
        let per_page =
            size_of::<[D; PAGE_LEN]>() + size_of::<Option<Full<D>>>() + size_of::<Entry>();
        pages
            .filter(|&pages| {
                pages.checked_mul(per_page).is_some_and(|bytes| isize::try_from(bytes).is_ok())
            })
            .ok_or(Error::CapacityOverflow)
    }

    /// Every page number with a page, and the page's slots.
    fn pages(&self) -> impl Iterator<Item = (u64, PageRef<'_, D>)> + '_ {
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
        flat.chain(hashed)
    }

    /// The page an entry other than `EMPTY` names.
    fn page_ref(&self, entry: Entry) -> Option<PageRef<'_, D>> {
        match Found::of(entry) {
            Found::Compact(index) => self.compact.get(index).map(PageRef::Compact),
            Found::HashedFull(index) => self.hashed_full.get(index)?.as_deref().map(PageRef::Full),
            Found::FlatFull(_) | Found::Missing => None,
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
        rebuilt.flat_full.shrink_to_fit();
        rebuilt.flat_compact.shrink_to_fit();
        rebuilt.hashed_full.shrink_to_fit();
        rebuilt.compact.shrink_to_fit();
        *self = rebuilt;
    }

    /// The number of pages in use.
    pub(crate) fn page_count(&self) -> usize {
        self.flat_named + self.hash.len
    }

    /// Bytes held by the sparse side: pages, arenas and both lanes of the directory.
    ///
    /// O(flat lane): full pages of the flat lane are counted.
    pub(crate) fn allocated_bytes(&self) -> usize {
        let full_pages = self.flat_full.iter().flatten().count() + self.hashed_full.len();
        full_pages * size_of::<[D; PAGE_LEN]>()
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
                page >= flat_len as u64,
                "page {page} is in the hash lane but below the flat lane's end {flat_len}"
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
                Found::Missing | Found::FlatFull(_) => {
                    panic!("the hash lane holds page {page} empty")
                }
            }
        }
        let counted = self.hash.iter().count();
        assert_eq!(counted, self.hash.len, "the hash lane counts {} entries", self.hash.len);
        let min_page = self.hash.iter().map(|(page, _)| page).min().unwrap_or(NO_PAGE);
        assert_eq!(min_page, self.hash.min_page, "the hash lane's smallest page is wrong");
        assert!(
            self.hash.buckets.is_empty() || self.hash.len * 4 < self.hash.buckets.len() * 3,
            "the hash lane is over its load limit"
        );
        assert!(self.hash.buckets.len().is_power_of_two() || self.hash.buckets.is_empty());
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
        for (index, compact) in self.compact.iter().enumerate() {
            let mut seen = [false; PAGE_LEN];
            for (&at, &value) in compact.offsets.iter().zip(&compact.values) {
                if at == VACANT {
                    assert_eq!(value, D::ZERO, "an unused compact entry holds a value");
                    continue;
                }
                let at = usize::from(at);
                assert!(at < PAGE_LEN, "compact offset {at} is past the page");
                assert!(!seen[at], "compact page {index} holds offset {at} twice");
                seen[at] = true;
                assert_ne!(value, D::ZERO, "a used compact entry holds zero");
            }
        }
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
        assert!(pages.flat_full[0].is_some());
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
        assert!(pages.flat_full.iter().all(Option::is_some));
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
