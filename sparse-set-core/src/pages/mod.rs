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
//! - the **hash lane** (open addressing, linear probing, Fibonacci hashing of the page number
//!   mixed with a seed each table draws at random, so keys cannot be chosen to collide) holds
//!   every page number at or past the flat lane's end: random `u32` and `u64` keys, hashed ids, keys
//!   near `u64::MAX`. Its size follows the pages in it, never the largest key.
//!
//! Both lanes name pages by an [`Entry`]: `COMPACT | index` for a compact page, the index of a
//! full page in `hashed_full` (hash lane only), or [`EMPTY`]. `EMPTY` is past every full index
//! and has no `COMPACT` bit, so a missing page reads zero through the full-page bounds check.
//!
//! A lookup's common lanes (the prefix, past `last`, a page number of the flat lane with a
//! full page or with no page) are inlined into the caller; the rare lanes (a compact page, the
//! hash lane) are a call, so that they do not take the caller's registers. Its branches depend
//! on how the keys are distributed (prefix, flat or hashed, full or compact), not on the
//! individual key, so they predict well. `last` bounds the slots in use
//! while nothing is hashed, so a miss past the largest key is one comparison after the
//! prefix's.
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
//!
//! # Files
//!
//! This module (`mod.rs`) holds the layout, every lookup and in-place write, and the checker;
//! `prefix.rs` the prefix (the full pages from page 0 up as one flat array, with the versions
//! of a versioned set beside its slots); `compact.rs` the compact page; `hash_lane.rs` the hash
//! lane of the directory; `grow.rs` every path that adds a page, turns one full, or grows a
//! lane (and the bounded sets' up-front allocation); `release.rs` what `shrink_to_fit` does to
//! the pages.

mod compact;
mod grow;
mod hash_lane;
mod prefix;
mod release;
#[cfg(test)]
mod tests;

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::dense::DenseIndex;
use crate::error::{Error, try_reserve_exact};

use compact::Compact;
use hash_lane::HashLane;
pub(crate) use prefix::Prefix;

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

/// A slot whose page has been found: a read of the slot and the insert that follows it
/// ([`Pages::lookup_in`], [`Pages::insert_at`]) share one search of the directory. Valid until
/// the pages change.
#[derive(Clone, Copy)]
pub(crate) struct Spot(Place);

/// Where a [`Spot`] is.
#[derive(Clone, Copy)]
enum Place {
    /// Slot `at` of the prefix.
    Prefix(usize),
    /// Offset `offset` of page number `page`, which is at `found`.
    Page { found: Found, page: u64, offset: usize },
}

/// The sparse side of a set. See the module docs for the layout and the invariants.
#[derive(Debug)]
pub(crate) struct Pages<D: DenseIndex> {
    /// Every slot past this is empty: the last slot of the prefix or of the flat lane's pages,
    /// whichever is further, while the hash lane is empty; `u64::MAX` otherwise. A miss past the
    /// largest key is one comparison.
    last: u64,
    /// The prefix: the slots of the full pages from page 0 up as one flat array (with each
    /// slot's version beside it in a versioned set).
    prefix: Prefix<D>,
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

impl<D: DenseIndex> Pages<D> {
    /// Empty pages; `versioned` keeps a version beside each slot of the prefix (see `Prefix`).
    pub(crate) const fn new(versioned: bool) -> Self {
        Self {
            last: 0,
            prefix: Prefix::new(versioned),
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
            prefix: self.prefix.try_clone()?,
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
    #[inline]
    pub(crate) fn get(&self, slot: u64) -> D {
        self.get_in(slot, self.prefix.stride())
    }

    /// [`get`](Self::get), for a caller that knows the prefix's stride as a constant.
    ///
    /// `always`: see `SparseSet::get_index_of`. The common lanes are inlined: a slot of the
    /// prefix is one load, as in a flat sparse array; a slot past `last` is one comparison; a
    /// full page of the flat lane is the page pointer and the slot; a page number of the flat
    /// lane with no page is the page pointer and the compact entry (measured, `contains` of keys
    /// in such pages: 38 instructions a key with the call, 28 without). The rare lanes (compact
    /// pages, the hash lane) are a call, so that they do not take the caller's registers.
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "measured: a call here makes callers' lookup loops spill registers, `get` 2.3 -> 7 ns"
    )]
    pub(crate) fn get_in(&self, slot: u64, stride: usize) -> D {
        let at = flat_index(slot);
        if stride == 1 {
            if let Some(&value) = self.prefix.cell(at, 1).and_then(<[D]>::first) {
                return value;
            }
        } else if let Some(cell) = self.prefix.cell(at, stride) {
            return cell[0];
        }
        if slot > self.last {
            return D::ZERO;
        }
        let (page, offset) = split(slot);
        let number = flat_index(page);
        match self.flat_full.get(number) {
            Some(Some(full)) => full[offset],
            // A page number of the flat lane without a full page: a miss (no call), or a
            // compact page.
            Some(None) => match self.flat_compact.get(number) {
                Some(&entry) if entry != EMPTY => self.read_rare(entry, offset),
                _ => D::ZERO,
            },
            None => self.get_hashed(page, offset),
        }
    }

    /// The value at `offset` of the page `entry` names (a compact page, or a full page of the
    /// hash lane): a rare lane, out of line.
    #[inline(never)]
    fn read_rare(&self, entry: Entry, offset: usize) -> D {
        self.read(entry, offset)
    }

    /// The value at `offset` of page number `page`, past the flat lane: a page of the hash lane;
    /// zero if missing. A rare lane, out of line.
    #[inline(never)]
    fn get_hashed(&self, page: u64, offset: usize) -> D {
        self.read(self.hash.get(page), offset)
    }

    /// The words of prefix slot `at` (`stride` of them, the caller's constant): the value,
    /// then the version, in a versioned set; `None` past the prefix.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "the lookup path of versioned keys")]
    pub(crate) fn prefix_cell(&self, at: usize, stride: usize) -> Option<&[D]> {
        self.prefix.cell(at, stride)
    }

    /// The words of the `count` prefix slots from `at` on, `stride` per slot; `None` unless all
    /// of them are in the prefix.
    #[inline]
    pub(crate) fn prefix_cells(&self, at: usize, count: usize, stride: usize) -> Option<&[D]> {
        self.prefix.cells(at, count, stride)
    }

    /// [`prefix_cells`](Self::prefix_cells), mutably.
    #[inline]
    pub(crate) fn prefix_cells_mut(
        &mut self,
        at: usize,
        count: usize,
        stride: usize,
    ) -> Option<&mut [D]> {
        self.prefix.cells_mut(at, count, stride)
    }

    /// One past the largest slot that can hold a value (`last` + 1): every key the index holds
    /// has its slot below it. `usize::MAX` once the hash lane holds a page.
    #[inline]
    pub(crate) fn slot_bound(&self) -> usize {
        usize::try_from(self.last).map_or(usize::MAX, |last| last.saturating_add(1))
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
        flat.max(self.prefix.slots() as u64).saturating_sub(1)
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
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "measured: with two callers of `lookup_in` LLVM calls this, an insert +8% instructions"
    )]
    fn find(&self, page: u64) -> Found {
        let number = flat_index(page);
        if number < self.prefix.pages() {
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
            Found::Prefix(number) => self.prefix.value_mut(number * PAGE_LEN + offset),
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
        if let Some(stored) = self.prefix.value_mut(flat_index(slot)) {
            *stored = value;
            return;
        }
        self.set_outside_prefix(slot, value);
    }

    /// [`set`](Self::set) for a caller that knows the prefix's stride as a constant: a slot in
    /// the prefix is one store, and every other lane is out of line.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every swap's and removal's path")]
    pub(crate) fn set_in(&mut self, slot: u64, value: D, stride: usize) {
        if let Some(cell) = self.prefix.cell_mut(flat_index(slot), stride) {
            cell[0] = value;
        } else {
            self.set_outside_prefix(slot, value);
        }
    }

    /// [`take`](Self::take) for a caller that knows the prefix's stride as a constant.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every removal's path")]
    pub(crate) fn take_in(&mut self, slot: u64, stride: usize) -> D {
        match self.prefix.cell_mut(flat_index(slot), stride) {
            Some(cell) => core::mem::replace(&mut cell[0], D::ZERO),
            None => self.take_outside_prefix(slot),
        }
    }

    /// The words of prefix slot `slot` (its value, then its version in a versioned set), for
    /// a caller that knows the stride as a constant; `None` outside the prefix.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every insert's path")]
    pub(crate) fn prefix_cell_mut(&mut self, slot: u64, stride: usize) -> Option<&mut [D]> {
        self.prefix.cell_mut(flat_index(slot), stride)
    }

    /// The words of every prefix slot from `from` on, one `stride`-long chunk per slot (its
    /// value, then its version in a versioned set).
    pub(crate) fn prefix_cells_mut_from(
        &mut self,
        from: usize,
    ) -> core::slice::ChunksExactMut<'_, D> {
        self.prefix.cells_mut_from(from)
    }

    /// [`set`](Self::set) past the prefix.
    #[inline(never)]
    fn set_outside_prefix(&mut self, slot: u64, value: D) {
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
        if let Some(stored) = self.prefix.value_mut(flat_index(slot)) {
            return core::mem::replace(stored, D::ZERO);
        }
        self.take_outside_prefix(slot)
    }

    /// [`take`](Self::take) past the prefix (`slot` must lie past it).
    #[inline(never)]
    pub(crate) fn take_outside_prefix(&mut self, slot: u64) -> D {
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

    /// Zeroes every slot of `slots`, which are all the slots holding a value (a set's keys): the
    /// sparse half of emptying a set. Never allocates; keeps every page.
    ///
    /// O(`slots`): when the compact arena has at most as many pages as there are slots, it is
    /// emptied page by page (a few stores each), and only slots outside compact pages are
    /// visited, so a slot in a hashed compact page costs no search of the hash lane; otherwise
    /// slot by slot.
    pub(crate) fn clear_all(&mut self, slots: impl ExactSizeIterator<Item = u64>) {
        if self.compact.len() > slots.len() {
            for slot in slots {
                self.clear(slot);
            }
            return;
        }
        for compact in &mut self.compact {
            *compact = Compact::EMPTY;
        }
        // Every compact page is empty now, so a slot holds a value only in the prefix or in a
        // full page; the hash lane is searched only if it names full pages.
        let hashed_full = !self.hashed_full.is_empty();
        for slot in slots {
            if let Some(stored) = self.prefix.value_mut(flat_index(slot)) {
                *stored = D::ZERO;
                continue;
            }
            let (page, offset) = split(slot);
            match self.flat_full.get_mut(flat_index(page)) {
                Some(Some(full)) => full[offset] = D::ZERO,
                None if hashed_full => {
                    if let Some(stored) = self.slot_mut(Found::of(self.hash.get(page)), offset) {
                        *stored = D::ZERO;
                    }
                }
                // A compact page (emptied above) or no page.
                Some(None) | None => {}
            }
        }
    }

    /// Gives the empty `slot` a non-zero value: [`insert_at`](Self::insert_at) of its spot.
    #[cfg(test)]
    pub(crate) fn insert(&mut self, slot: u64, value: D) -> Result<(), Error> {
        let (_, place) = self.lookup_in(slot, self.prefix.stride());
        self.insert_at(place, value)
    }

    /// The value stored in `slot` (zero if it is empty or its page is missing) and where it is,
    /// for an insert of the same slot: one search of the directory serves both. `stride` is the
    /// prefix's, a constant of the caller, as in [`get_in`](Self::get_in): a slot of the prefix
    /// is one load.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every insert's path past its common case")]
    pub(crate) fn lookup_in(&self, slot: u64, stride: usize) -> (D, Spot) {
        let at = flat_index(slot);
        if let Some(cell) = self.prefix.cell(at, stride) {
            return (cell[0], Spot(Place::Prefix(at)));
        }
        let (page, offset) = split(slot);
        let found = self.find(page);
        (self.value_at(found, offset), Spot(Place::Page { found, page, offset }))
    }

    /// The value at `offset` of the page at `found`, a page past the prefix: zero if the slot is
    /// empty or the page is missing.
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "measured: with two callers of `lookup_in` LLVM calls this, an insert +19% instructions"
    )]
    fn value_at(&self, found: Found, offset: usize) -> D {
        let full = match found {
            Found::FlatFull(number) => &self.flat_full[number],
            Found::HashedFull(index) => &self.hashed_full[index],
            Found::Compact(index) => return self.compact[index].get(offset),
            Found::Prefix(_) | Found::Missing => return D::ZERO,
        };
        full.as_ref().map_or(D::ZERO, |full| full[offset])
    }

    /// Gives the empty slot at `spot` a non-zero value, adding its page (as a compact page) or
    /// turning a compact page full if needed. `spot` must come from
    /// [`lookup_in`](Self::lookup_in) with no change to the pages since. On `Err` nothing has
    /// changed.
    #[inline]
    pub(crate) fn insert_at(&mut self, spot: Spot, value: D) -> Result<(), Error> {
        let (found, page, offset) = match spot.0 {
            Place::Prefix(at) => {
                if let Some(stored) = self.prefix.value_mut(at) {
                    *stored = value;
                }
                return Ok(());
            }
            Place::Page { found, page, offset } => (found, page, offset),
        };
        match found {
            Found::Compact(index) => {
                if self.compact[index].try_insert(offset, value) {
                    Ok(())
                } else {
                    self.grow_compact(page, index, offset, value)
                }
            }
            Found::Missing => self.add_compact(page, offset, value),
            // A full page: every slot is there.
            found => {
                if let Some(stored) = self.slot_mut(found, offset) {
                    *stored = value;
                }
                Ok(())
            }
        }
    }

    /// The prefix's words, `stride` per slot (see `Prefix`).
    #[inline]
    pub(crate) fn prefix_words(&self) -> &[D] {
        self.prefix.words()
    }

    /// The version kept for prefix slot `at` (zero if none; see `Prefix`).
    #[inline]
    pub(crate) fn prefix_version(&self, at: usize) -> u32 {
        self.prefix.version(at)
    }

    /// Keeps `version` for prefix slot `at`; nothing past the prefix or in a set that is not
    /// versioned.
    #[inline]
    pub(crate) fn set_prefix_version(&mut self, at: usize, version: u32) {
        self.prefix.set_version(at, version);
    }

    /// The number of slots in the prefix.
    #[inline]
    pub(crate) fn prefix_slots(&self) -> usize {
        self.prefix.slots()
    }

    /// The number of pages in the prefix.
    #[inline]
    fn prefix_pages(&self) -> usize {
        self.prefix.pages()
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
            + self.prefix.allocated_bytes()
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
        self.prefix.check();
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
        self.pages().map(|(_, page)| page.used()).sum()
    }
}

/// The slots of one page, in whichever form it has.
#[derive(Clone, Copy)]
enum PageRef<'a, D> {
    Full(&'a [D; PAGE_LEN]),
    /// A page of the prefix: its words, `stride` per slot, the value first.
    Prefix(&'a [D], usize),
    Compact(&'a Compact<D>),
}

impl<D: DenseIndex> PageRef<'_, D> {
    /// The page's values, as a full page holds them.
    fn values(&self) -> [D; PAGE_LEN] {
        let mut values = [D::ZERO; PAGE_LEN];
        match *self {
            PageRef::Full(full) => values.copy_from_slice(full),
            PageRef::Prefix(words, stride) => {
                for (value, cell) in values.iter_mut().zip(words.chunks_exact(stride)) {
                    *value = cell[0];
                }
            }
            PageRef::Compact(compact) => compact.fill(&mut values),
        }
        values
    }

    /// The number of slots in use.
    fn used(&self) -> usize {
        match *self {
            PageRef::Full(full) => full.iter().filter(|&&value| value != D::ZERO).count(),
            PageRef::Prefix(words, stride) => {
                words.chunks_exact(stride).filter(|cell| cell[0] != D::ZERO).count()
            }
            PageRef::Compact(compact) => compact.len(),
        }
    }
}
