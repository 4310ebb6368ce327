//! The paged sparse array: slot -> stored value (zero = empty), allocated in pages around the
//! slots in use, for any slot from 0 to `u64::MAX`.
//!
//! # Layout
//!
//! A slot belongs to page `slot >> 9` at offset `slot & 511`. Pages live in two arenas, so a new
//! page is a push onto a `Vec`, not an allocation of its own:
//!
//! - **full** pages: a plain array of [`PAGE_LEN`] values (2 KiB with `u32`), read in one load;
//! - **compact** pages: up to [`COMPACT_LEN`] (offset, value) pairs (48 bytes with `u32`), read
//!   by a branch-free scan. Every page starts compact, so keys spread thinly (one per page, as
//!   random or hashed ids are) cost one compact page each, not 2 KiB. The page turns full when
//!   its (`COMPACT_LEN` + 1)-th slot arrives; `release_empty_pages` (`shrink_to_fit`) turns
//!   full pages with few slots back into compact ones and drops empty pages.
//!
//! One **directory** maps a page number to an [`Entry`]: a full page's arena index, a compact
//! page's arena index tagged with [`COMPACT`], or [`EMPTY`] (an index past every full page, so a
//! missing page reads as zero through the full-page path's bounds check, with no extra branch
//! and no scan). The directory has two lanes for one mapping:
//!
//! - a **flat lane**, `flat[page]`, for page numbers below `flat.len()`; it grows only while it
//!   costs at most [`FLAT_PER_PAGE`] entries per page in use (or [`FLAT_MIN`] entries), so keys
//!   from 0 up (entity ids, indices) are found by two plain loads, as in a flat sparse array;
//! - a **hash lane** (open addressing, linear probing) for every page number at or past
//!   `flat.len()`: random `u32` and `u64` keys, hashed ids, keys near `u64::MAX`. Its size follows
//!   the pages in it, never the largest key.
//!
//! Every lookup (hit or miss, any page form, any key) is inlined into the caller: the lane test,
//! the entry, the page. The branches it takes depend on the key distribution (flat or hashed,
//! full or compact), not on the individual key, so they predict well.
//!
//! # Generational keys: the generation stays on the dense side, for now
//!
//! For an [`Entity`](crate::Entity) a lookup reads the slot, then the dense key to compare
//! generations: two dependent loads. Keeping the generation in the slot (as `EnTT` keeps the
//! version in its sparse entries) saves the second. Measured with a model of both layouts on
//! the development machine (2-core AMD EPYC; dense indices 0..n stored in shuffled order,
//! looked up in random order; best of 30 runs):
//!
//! | n | `contains` hit | stale miss | `get` hit | slot bytes |
//! |---|---|---|---|---|
//! | 100,000 | 2.95 -> 1.71 ns | 2.98 -> 1.36 ns | 3.66 -> 2.73 ns | 4 -> 8 |
//! | 1,000,000 | 8.96 -> 4.79 ns | 8.49 -> 4.20 ns | 12.81 -> 8.59 ns | 4 -> 8 |
//!
//! It wins, at twice the sparse memory for generational keys. It is not adopted yet because
//! the slot's type must then depend on the key type: an associated type on [`Key`](crate::Key)
//! that every user implementation would have to name, or a generation stored for integer keys
//! too (doubling their pages, and a `u8` width's 1-byte slot). Doing it without either is the
//! next step for this module.
//!
//! # Invariants
//!
//! Checked, all of them, by [`Pages::check`], which `SparseSet::assert_invariants` calls.
//!
//! 1. Every page number appears at most once in the directory: in the flat lane if it is below
//!    `flat.len()`, else in the hash lane.
//! 2. Every entry other than [`EMPTY`] names an arena page that no other entry names. Full pages
//!    are all named (`full` has no holes, and fewer than `EMPTY` pages); compact pages are named,
//!    or are one of the `compact_holes` left behind when a compact page turned full.
//! 3. The holes hold no slot; every compact page's used offsets are distinct and below
//!    `PAGE_LEN`, with a non-zero value; unused entries have the offset [`VACANT`] and the value
//!    zero. `flat_named` counts the flat lane's entries other than `EMPTY`.
//! 4. The hash lane holds `hash.len` entries, fewer than 3/4 of its buckets, each reachable from
//!    its home bucket without crossing a vacant one.
//!
//! The number of pages in use is derived (`full.len() + compact.len() - compact_holes`), not
//! counted at each site that changes it.

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

/// A directory entry: a full page's index, or `COMPACT | index` for a compact page.
type Entry = u32;
/// The tag bit of a compact page's entry.
const COMPACT: Entry = 1 << 31;
/// No page: a full-page index past the end of the full arena, which never grows this far.
const EMPTY: Entry = COMPACT - 1;
/// The flat lane may always cover this many pages (16 KiB of entries).
const FLAT_MIN: usize = 4096;
/// Beyond `FLAT_MIN`, the flat lane covers at most this many page numbers per page in use.
const FLAT_PER_PAGE: usize = 8;
/// The page number no page has (page numbers are below 2^55): marks a vacant hash bucket.
const NO_PAGE: u64 = u64::MAX;

/// The page number and the offset within the page of `slot`.
#[inline(always)]
#[expect(clippy::inline_always, reason = "two shifts on every lookup's path")]
const fn split(slot: u64) -> (u64, usize) {
    (slot >> PAGE_BITS, (slot as usize) & (PAGE_LEN - 1))
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

    /// The same slots as a full page.
    fn as_full(&self) -> [D; PAGE_LEN] {
        let mut values = [D::ZERO; PAGE_LEN];
        for (&at, &stored) in self.offsets.iter().zip(&self.values) {
            if at != VACANT {
                values[usize::from(at)] = stored;
            }
        }
        values
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

/// The hash lane of the directory: page number -> entry, open addressing with linear probing.
/// The table is a power of two long and less than 3/4 full; it is empty (no allocation) until
/// the first page lands past the flat lane. Page numbers and entries are kept in two arrays, so
/// a probe reads 8 bytes per bucket and a bucket costs 12.
#[derive(Clone, Debug)]
struct HashLane {
    /// The page number of each bucket, `NO_PAGE` when vacant.
    pages: Vec<u64>,
    /// The entry of each bucket's page.
    entries: Vec<Entry>,
    /// The number of pages in the table.
    len: usize,
    /// The smallest page number in the table; `NO_PAGE` when it is empty.
    min_page: u64,
}

impl HashLane {
    const fn new() -> Self {
        Self { pages: Vec::new(), entries: Vec::new(), len: 0, min_page: NO_PAGE }
    }

    /// The home bucket of `page`: Fibonacci hashing, so runs of page numbers spread out.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of hashed keys")]
    fn home(&self, page: u64) -> usize {
        // A non-empty table has at least 8 buckets, so the shift is below 64.
        let bits = self.pages.len().trailing_zeros();
        (page.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
    }

    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of hashed keys")]
    fn get(&self, page: u64) -> Entry {
        match self.find(page) {
            Some(at) => self.entries[at],
            None => EMPTY,
        }
    }

    /// The bucket holding `page`, if any.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of hashed keys")]
    fn find(&self, page: u64) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let mask = self.pages.len() - 1;
        let mut at = self.home(page);
        loop {
            match self.pages[at] {
                found if found == page => return Some(at),
                NO_PAGE => return None,
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// Makes room for one more page without exceeding the load limit.
    fn reserve_one(&mut self) -> Result<(), Error> {
        if (self.len + 1) * 4 < self.pages.len() * 3 {
            return Ok(());
        }
        let buckets = self.pages.len().checked_mul(2).ok_or(Error::CapacityOverflow)?.max(8);
        *self = self.rebuilt(buckets, |_| true)?;
        Ok(())
    }

    /// A table of `buckets` buckets holding every entry whose page `keep` accepts.
    fn rebuilt(&self, buckets: usize, mut keep: impl FnMut(u64) -> bool) -> Result<Self, Error> {
        let mut table = Self::new();
        try_reserve_exact(&mut table.pages, buckets)?;
        try_reserve_exact(&mut table.entries, buckets)?;
        table.pages.resize(buckets, NO_PAGE);
        table.entries.resize(buckets, EMPTY);
        for (page, entry) in self.iter() {
            if keep(page) {
                table.put(page, entry);
            }
        }
        Ok(table)
    }

    /// Inserts or overwrites `page`; the table must have room (`reserve_one`).
    fn put(&mut self, page: u64, entry: Entry) {
        let mask = self.pages.len() - 1;
        let mut at = self.home(page);
        loop {
            if self.pages[at] == page {
                self.entries[at] = entry;
                return;
            }
            if self.pages[at] == NO_PAGE {
                self.pages[at] = page;
                self.entries[at] = entry;
                self.len += 1;
                self.min_page = self.min_page.min(page);
                return;
            }
            at = (at + 1) & mask;
        }
    }

    fn iter(&self) -> impl Iterator<Item = (u64, Entry)> + '_ {
        let buckets = self.pages.iter().zip(&self.entries);
        buckets.filter(|&(&page, _)| page != NO_PAGE).map(|(&page, &entry)| (page, entry))
    }

    fn allocated_bytes(&self) -> usize {
        self.pages.capacity() * size_of::<u64>() + self.entries.capacity() * size_of::<Entry>()
    }
}

/// Where a page is, for the write paths.
enum Found {
    Full(usize),
    Compact(usize),
    Missing,
}

/// The sparse side of a set. See the module docs for the layout and the invariants.
#[derive(Clone, Debug)]
pub(crate) struct Pages<D: DenseIndex> {
    /// The flat lane: the entry of every page number below its length.
    flat: Vec<Entry>,
    /// The hash lane: the entries of page numbers from `flat.len()` up.
    hash: HashLane,
    /// The full-page arena.
    full: Vec<[D; PAGE_LEN]>,
    /// The compact-page arena.
    compact: Vec<Compact<D>>,
    /// Compact pages that turned full and are named by no entry (all empty).
    compact_holes: usize,
    /// How many pages the flat lane names: its density decides whether it may grow.
    flat_named: usize,
}

impl<D: DenseIndex> Default for Pages<D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<D: DenseIndex> Pages<D> {
    pub(crate) const fn new() -> Self {
        Self {
            flat: Vec::new(),
            hash: HashLane::new(),
            full: Vec::new(),
            compact: Vec::new(),
            compact_holes: 0,
            flat_named: 0,
        }
    }

    /// The directory entry of `page`.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every lookup's path; see `Pages::get`")]
    fn entry(&self, page: u64) -> Entry {
        match usize::try_from(page).ok().and_then(|page| self.flat.get(page)) {
            Some(&entry) => entry,
            None => self.hash.get(page),
        }
    }

    /// The value stored in `slot`: zero if it is empty or its page is missing.
    ///
    /// `always`: see `SparseSet::get_index_of`; the whole path, misses included, is inlined.
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "measured: a call here makes callers' lookup loops spill registers, `get` 2.3 -> 7 ns"
    )]
    pub(crate) fn get(&self, slot: u64) -> D {
        let (page, offset) = split(slot);
        let entry = self.entry(page);
        // Compact entries and `EMPTY` fail this bounds check: the full-page path is one test.
        if let Some(full) = self.full.get(entry as usize) {
            return full[offset];
        }
        if entry > EMPTY {
            return self.compact[(entry & !COMPACT) as usize].get(offset);
        }
        D::ZERO
    }

    /// Where the page of `page` number lives.
    #[inline]
    fn find(&self, page: u64) -> Found {
        match self.entry(page) {
            EMPTY => Found::Missing,
            entry if entry < COMPACT => Found::Full(entry as usize),
            entry => Found::Compact((entry & !COMPACT) as usize),
        }
    }

    /// Overwrites `slot`, which must hold a non-zero value, with another non-zero value.
    #[inline]
    pub(crate) fn set(&mut self, slot: u64, value: D) {
        let (page, offset) = split(slot);
        match self.find(page) {
            Found::Full(index) => self.full[index][offset] = value,
            Found::Compact(index) => {
                let compact = &mut self.compact[index];
                match compact.position(offset) {
                    Some(at) => compact.values[at] = value,
                    None => unreachable!("slot {slot} of a compact page is not occupied"),
                }
            }
            Found::Missing => unreachable!("sparse page of slot {slot} is missing"),
        }
    }

    /// Reads `slot` and zeroes it, in one lookup; zero if it was empty or its page is missing.
    /// Never allocates.
    #[inline]
    pub(crate) fn take(&mut self, slot: u64) -> D {
        let (page, offset) = split(slot);
        match self.find(page) {
            Found::Full(index) => core::mem::replace(&mut self.full[index][offset], D::ZERO),
            Found::Compact(index) => {
                let compact = &mut self.compact[index];
                match compact.position(offset) {
                    Some(at) => {
                        compact.offsets[at] = VACANT;
                        core::mem::replace(&mut compact.values[at], D::ZERO)
                    }
                    None => D::ZERO,
                }
            }
            Found::Missing => D::ZERO,
        }
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
        match self.find(page) {
            Found::Full(index) => {
                self.full[index][offset] = value;
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

    /// Turns the full compact page `index` (of page number `page`) into a full page holding its
    /// slots and `offset` = `value`. The compact page becomes a hole.
    #[cold]
    fn grow_compact(
        &mut self,
        page: u64,
        index: usize,
        offset: usize,
        value: D,
    ) -> Result<(), Error> {
        let full = self.full.len();
        let entry = Entry::try_from(full).ok().filter(|&entry| entry < EMPTY);
        let entry = entry.ok_or(Error::CapacityOverflow)?;
        try_reserve(&mut self.full, 1)?;
        let mut values = self.compact[index].as_full();
        values[offset] = value;
        self.full.push(values);
        self.compact[index] = Compact::EMPTY;
        self.compact_holes += 1;
        self.set_entry(page, entry);
        Ok(())
    }

    /// Adds a compact page for page number `page` holding `offset` = `value`.
    #[cold]
    fn add_compact(&mut self, page: u64, offset: usize, value: D) -> Result<(), Error> {
        let entry = Entry::try_from(self.compact.len()).ok().filter(|&index| index < COMPACT);
        let entry = entry.ok_or(Error::CapacityOverflow)? | COMPACT;
        try_reserve(&mut self.compact, 1)?;
        self.reserve_entry(page, 1)?;
        let mut compact = Compact::EMPTY;
        compact.try_insert(offset, value);
        self.compact.push(compact);
        self.add_entry(page, entry);
        Ok(())
    }

    /// Makes room in the directory for `page` (whose entry is `EMPTY`) when `new_pages` more
    /// pages are in use: grows the flat lane over it if the lane may cover it, else makes room
    /// in the hash lane. After `Ok`, `set_entry(page, _)` cannot fail.
    fn reserve_entry(&mut self, page: u64, new_pages: usize) -> Result<(), Error> {
        let pages = self.page_count() + new_pages;
        let limit = FLAT_MIN.max(pages.saturating_mul(FLAT_PER_PAGE));
        match usize::try_from(page) {
            Ok(page) if page < self.flat.len() => Ok(()),
            Ok(page) if page < limit && self.flat_is_dense() => {
                // The lane ends right after the pages in use, so a miss past the largest key
                // always takes the same path; its capacity grows geometrically.
                let len = page + 1;
                let grow = len - self.flat.len();
                if self.flat.capacity() < len {
                    let doubled = grow.max(self.flat.len()).min(limit - self.flat.len());
                    try_reserve(&mut self.flat, doubled)?;
                }
                // Entries of the pages the flat lane now covers move over from the hash lane.
                let covered = |page: u64| page < len as u64;
                let moving = self.hash.min_page < len as u64;
                let rest = if moving {
                    Some(self.hash.rebuilt(self.hash.pages.len(), |page| !covered(page))?)
                } else {
                    None
                };
                self.flat.resize(len, EMPTY);
                if let Some(rest) = rest {
                    for (page, entry) in self.hash.iter() {
                        if covered(page) {
                            self.flat[page as usize] = entry;
                            self.flat_named += 1;
                        }
                    }
                    self.hash = rest;
                }
                Ok(())
            }
            _ => self.hash.reserve_one(),
        }
    }

    /// Whether the flat lane may grow: it is within its free size, or at least one in
    /// `2 * FLAT_PER_PAGE` of the page numbers it covers has a page. Keys spread thinly over a
    /// wide range (random or hashed ids) keep it small; keys from 0 up grow it.
    fn flat_is_dense(&self) -> bool {
        self.flat.len() < FLAT_MIN || self.flat_named * 2 * FLAT_PER_PAGE >= self.flat.len()
    }

    /// Names the new page `page` (whose entry is `EMPTY`) with `entry`; its lane has room
    /// (`reserve_entry`).
    fn add_entry(&mut self, page: u64, entry: Entry) {
        if usize::try_from(page).is_ok_and(|page| page < self.flat.len()) {
            self.flat_named += 1;
        }
        self.set_entry(page, entry);
    }

    /// Points `page`'s entry at `entry`; its lane has room (`reserve_entry`).
    fn set_entry(&mut self, page: u64, entry: Entry) {
        match usize::try_from(page).ok().and_then(|page| self.flat.get_mut(page)) {
            Some(slot) => *slot = entry,
            None => self.hash.put(page, entry),
        }
    }

    /// Adds full pages covering slots `0..limit` (bounded sets), so that inserting below `limit`
    /// never allocates; pages already there are turned full. On `Err` nothing has changed.
    pub(crate) fn allocate_full_below(&mut self, limit: u64) -> Result<(), Error> {
        let pages = Self::check_full_below(limit)?;
        let mut rebuilt = Self::new();
        try_reserve_exact(&mut rebuilt.full, pages)?;
        try_reserve_exact(&mut rebuilt.flat, pages)?;
        for page in 0..pages {
            let mut values = [D::ZERO; PAGE_LEN];
            match self.find(page as u64) {
                Found::Full(index) => values = self.full[index],
                Found::Compact(index) => values = self.compact[index].as_full(),
                Found::Missing => {}
            }
            rebuilt.flat.push(page as Entry);
            rebuilt.flat_named += 1;
            rebuilt.full.push(values);
        }
        // Pages at or past `limit` (the set is empty when bounded sets call this, but keep them).
        for (page, entry) in self.entries() {
            if page >= pages as u64 {
                rebuilt.adopt(page, self.page_values(entry))?;
            }
        }
        *self = rebuilt;
        Ok(())
    }

    /// The number of full pages covering slots `0..limit`, or `Err(CapacityOverflow)` if they
    /// (and their flat entries) need more memory than the address space has or more pages
    /// than an entry addresses. Allocates nothing.
    pub(crate) fn check_full_below(limit: u64) -> Result<usize, Error> {
        let pages = usize::try_from(limit.div_ceil(PAGE_LEN as u64))
            .ok()
            .filter(|&pages| pages < COMPACT as usize)
            .ok_or(Error::CapacityOverflow)?;
        pages
            .checked_mul(size_of::<[D; PAGE_LEN]>() + size_of::<Entry>())
            .filter(|&bytes| isize::try_from(bytes).is_ok())
            .ok_or(Error::CapacityOverflow)?;
        Ok(pages)
    }

    /// Every (page number, entry) of the directory, in no particular order.
    fn entries(&self) -> impl Iterator<Item = (u64, Entry)> + '_ {
        let flat = self.flat.iter().enumerate().map(|(page, &entry)| (page as u64, entry));
        flat.chain(self.hash.iter()).filter(|&(_, entry)| entry != EMPTY)
    }

    /// The slots of the page an entry names.
    fn page_values(&self, entry: Entry) -> PageValues<'_, D> {
        if entry < COMPACT {
            PageValues::Full(&self.full[entry as usize])
        } else {
            PageValues::Compact(&self.compact[(entry & !COMPACT) as usize])
        }
    }

    /// Adds page number `page` holding `values`, in the smallest form that fits them; nothing
    /// if they are all zero.
    fn adopt(&mut self, page: u64, values: PageValues<'_, D>) -> Result<(), Error> {
        let compact = match values {
            PageValues::Compact(compact) => Some(*compact),
            PageValues::Full(values) => Compact::from_full(values),
        };
        match compact {
            Some(compact) if compact.len() == 0 => Ok(()),
            Some(compact) => {
                try_reserve(&mut self.compact, 1)?;
                self.reserve_entry(page, 1)?;
                let entry = self.compact.len() as Entry | COMPACT;
                self.compact.push(compact);
                self.add_entry(page, entry);
                Ok(())
            }
            None => {
                let PageValues::Full(values) = values else { unreachable!("a compact page fits") };
                try_reserve(&mut self.full, 1)?;
                self.reserve_entry(page, 1)?;
                let entry = self.full.len() as Entry;
                self.full.push(*values);
                self.add_entry(page, entry);
                Ok(())
            }
        }
    }

    /// Releases every page whose slots are all zero, turns full pages with few slots in use
    /// compact, drops the holes, and sizes the directory to the pages left. If the memory for
    /// the rebuilt pages cannot be had, nothing changes.
    pub(crate) fn release_empty_pages(&mut self) {
        let mut pages: Vec<(u64, Entry)> = Vec::new();
        if pages.try_reserve_exact(self.page_count()).is_err() {
            return;
        }
        pages.extend(self.entries());
        pages.sort_unstable_by_key(|&(page, _)| page);
        let mut rebuilt = Self::new();
        for &(page, entry) in &pages {
            if rebuilt.adopt(page, self.page_values(entry)).is_err() {
                return;
            }
        }
        rebuilt.flat.shrink_to_fit();
        rebuilt.full.shrink_to_fit();
        rebuilt.compact.shrink_to_fit();
        *self = rebuilt;
    }

    /// The number of pages in use.
    pub(crate) fn page_count(&self) -> usize {
        self.full.len() + self.compact.len() - self.compact_holes
    }

    /// Bytes held by the sparse side: both arenas and both directory lanes.
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.full.capacity() * size_of::<[D; PAGE_LEN]>()
            + self.compact.capacity() * size_of::<Compact<D>>()
            + self.flat.capacity() * size_of::<Entry>()
            + self.hash.allocated_bytes()
    }

    /// Checks every invariant in the module docs and returns the number of non-zero slots (the
    /// set's `len`, by its invariant); panics describing the first one broken.
    pub(crate) fn check(&self) -> usize {
        // 1. Each page number once, in its lane.
        for (page, entry) in self.hash.iter() {
            assert!(
                page >= self.flat.len() as u64,
                "page {page} is in the hash lane but below the flat lane's end {}",
                self.flat.len()
            );
            assert_ne!(entry, EMPTY, "the hash lane holds an empty entry for page {page}");
        }
        let named = self.flat.iter().filter(|&&entry| entry != EMPTY).count();
        assert_eq!(named, self.flat_named, "the flat lane names {named} pages");
        // 4. The hash lane's count, load and probe chains.
        let min_page = self.hash.iter().map(|(page, _)| page).min().unwrap_or(NO_PAGE);
        assert_eq!(min_page, self.hash.min_page, "the hash lane's smallest page is miscounted");
        let counted = self.hash.iter().count();
        assert_eq!(counted, self.hash.len, "the hash lane counts {} entries", self.hash.len);
        assert!(
            self.hash.pages.is_empty() || self.hash.len * 4 < self.hash.pages.len() * 3,
            "the hash lane is over its load limit"
        );
        for (page, _) in self.hash.iter() {
            assert!(self.hash.find(page).is_some(), "page {page} is unreachable in the hash lane");
        }
        // 2. Each arena page named at most once; full pages all named.
        let mut full_named = alloc::vec![false; self.full.len()];
        let mut compact_named = alloc::vec![false; self.compact.len()];
        for (page, entry) in self.entries() {
            let (named, index) = if entry < COMPACT {
                (&mut full_named, entry as usize)
            } else {
                (&mut compact_named, (entry & !COMPACT) as usize)
            };
            assert!(index < named.len(), "page {page} names a page past its arena");
            assert!(!named[index], "two pages share arena page {index}");
            named[index] = true;
        }
        assert!(full_named.iter().all(|&named| named), "a full page is named by no entry");
        assert!(self.full.len() < EMPTY as usize, "the full arena reaches `EMPTY`");
        let unnamed = compact_named.iter().filter(|&&named| !named).count();
        assert_eq!(unnamed, self.compact_holes, "compact holes miscounted");
        // 3. Compact pages well formed; the holes empty.
        for (index, compact) in self.compact.iter().enumerate() {
            let mut seen = [false; PAGE_LEN];
            for (&at, &value) in compact.offsets.iter().zip(&compact.values) {
                if at == VACANT {
                    assert_eq!(value, D::ZERO, "a vacant compact entry holds a value");
                    continue;
                }
                let at = usize::from(at);
                assert!(at < PAGE_LEN, "compact offset {at} is past the page");
                assert!(!seen[at], "compact page {index} holds offset {at} twice");
                seen[at] = true;
                assert_ne!(value, D::ZERO, "a used compact entry holds zero");
            }
            if !compact_named[index] {
                assert_eq!(compact.len(), 0, "a hole holds a slot");
            }
        }
        // The count of non-zero slots.
        let full: usize =
            self.full.iter().map(|page| page.iter().filter(|&&v| v != D::ZERO).count()).sum();
        full + self.compact.iter().map(Compact::len).sum::<usize>()
    }
}

/// The slots of one page, in whichever form it has.
#[derive(Clone, Copy)]
enum PageValues<'a, D> {
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
        pages.check();
    }

    #[test]
    fn a_page_starts_compact_and_turns_full_on_its_ninth_slot() {
        let mut pages = Pages::<u32>::new();
        let slots: Vec<u64> = (0..COMPACT_LEN as u64).map(|i| i * 7).collect();
        insert_all(&mut pages, &slots);
        assert_eq!((pages.full.len(), pages.compact.len()), (0, 1));
        pages.insert(500, 99).unwrap();
        assert_eq!((pages.full.len(), pages.compact_holes), (1, 1));
        for (value, &slot) in (1..).zip(&slots) {
            assert_eq!(pages.get(slot), value);
        }
        assert_eq!((pages.get(500), pages.get(1)), (99, 0));
        assert_eq!(pages.check(), COMPACT_LEN + 1);
        assert_eq!(pages.page_count(), 1);
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
        assert_eq!((pages.full.len(), pages.compact.len(), pages.hash.len), (0, 1, 0));
        assert_eq!(pages.page_count(), 1);
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
    fn the_flat_lane_grows_over_dense_pages_and_takes_their_entries_from_the_hash_lane() {
        let mut pages = Pages::<u32>::new();
        // Page numbers past the free flat size first: they land in the hash lane.
        let far = (FLAT_MIN as u64 + 10) << PAGE_BITS;
        insert_all(&mut pages, &[far]);
        assert_eq!((pages.flat.len(), pages.hash.len), (0, 1));
        // Then pages from 0 up, dense enough for the flat lane to grow past `far`'s page.
        let dense: Vec<u64> =
            (0..(FLAT_MIN as u64 + 100)).map(|page| (page << PAGE_BITS) + 1).collect();
        for &slot in &dense {
            pages.insert(slot, 7).unwrap();
        }
        pages.check();
        assert!(pages.flat.len() > FLAT_MIN + 10, "{}", pages.flat.len());
        assert_eq!(pages.hash.len, 0, "the far page moved to the flat lane");
        assert_eq!(pages.get(far), 1);
    }

    #[test]
    fn thinly_spread_pages_keep_the_flat_lane_small() {
        let mut pages = Pages::<u32>::new();
        // One page in every 64 page numbers: too thin for the flat lane past its free size.
        let count = if cfg!(miri) { 1_000 } else { 10_000 };
        let slots: Vec<u64> = (0..count).map(|i| (i * 64) << PAGE_BITS).collect();
        insert_all(&mut pages, &slots);
        assert!(pages.flat.len() <= FLAT_MIN, "{}", pages.flat.len());
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
        assert_eq!((pages.full.len(), pages.compact.len()), (3, 0));
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
