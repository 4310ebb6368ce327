//! The paged sparse array: slot -> stored value (zero = empty), allocated in pages around the
//! slots in use.
//!
//! # Pages
//!
//! A page covers [`PAGE_LEN`] consecutive slots and comes in two forms:
//!
//! - **compact**: up to [`COMPACT_LEN`] (offset, value) pairs, about 100 bytes. Every page starts
//!   like this, so keys spread thinly (one per 100 slots, one per 4,096) cost about 100 bytes of
//!   sparse memory per page touched, not 2 KiB;
//! - **full**: a plain array of `PAGE_LEN` values (2 KiB with `u32`). A compact page becomes full
//!   when its (`COMPACT_LEN` + 1)-th key arrives; `release_empty_pages` (`shrink_to_fit`) turns a
//!   full page with few keys back into a compact one. Bounded sets use full pages from the start,
//!   so they never allocate after construction.
//!
//! A lookup in a full page is one read; in a compact page, a branch-free scan of 16 offsets.
//!
//! # Directories
//!
//! - slots below [`FLAT_LIMIT`] (2^24) are reached through two flat vectors indexed by page
//!   number, grown to the highest page used (at most 32,768 entries): one of pointers to full
//!   pages, one of pointers to compact pages. A lookup in a full page is the pointer, then the
//!   slot: the hot path never looks at a page's form;
//! - larger slots through chunks of [`CHUNK_LEN`] pages (each chunk covers 2^20 slots), kept in a
//!   vector for slots below 2^32 and in a sorted list above (`u64` keys). Only such large keys
//!   take this path. Slots are `u64` on every target, so `u64` keys never share a slot where
//!   `usize` has 32 bits, and the sorted list reserves its room fallibly, so `try_` calls return
//!   `Err` on a failed allocation whatever the key.
//!
//! So memory follows the pages touched, and growing never copies or refills a page: only
//! directories of page pointers are reallocated.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::error::try_reserve_exact;
use crate::{DenseIndex, Error};

/// log2 of the slots in one page.
const PAGE_BITS: u32 = 9;
/// Slots in one page.
pub(crate) const PAGE_LEN: usize = 1 << PAGE_BITS;
/// The most slots a compact page holds.
const COMPACT_LEN: usize = 16;
/// Slots below this are reached through the flat page directory.
const FLAT_LIMIT: u64 = 1 << 24;
/// log2 of the pages in one chunk.
const CHUNK_BITS: u32 = 11;
/// Pages in one chunk.
const CHUNK_LEN: usize = 1 << CHUNK_BITS;
/// Chunks below this index sit in the chunk vector; above it (slots of 2^32 and more) in a sorted
/// list.
const NEAR_CHUNKS: u64 = 1 << (32 - PAGE_BITS - CHUNK_BITS);

/// The offset marking an unused entry of a compact page (offsets are below `PAGE_LEN`).
const VACANT: u16 = u16::MAX;

/// The offset of `slot` in its page (its low bits, so the cast loses nothing that matters).
#[inline]
const fn offset_of(slot: u64) -> usize {
    (slot as usize) & (PAGE_LEN - 1)
}

/// The flat-directory index of `slot`'s page; `None` past `usize` (32-bit targets).
#[inline]
fn number_of(slot: u64) -> Option<usize> {
    usize::try_from(slot >> PAGE_BITS).ok()
}

/// The chunk number of a slot past the flat region, and its page's index within the chunk.
#[inline]
const fn chunk_of(slot: u64) -> (u64, usize) {
    (slot >> (PAGE_BITS + CHUNK_BITS), ((slot >> PAGE_BITS) as usize) & (CHUNK_LEN - 1))
}

/// What a full page becomes when the set shrinks.
enum Shrunk<D> {
    /// No slot in use: release the page.
    Empty,
    /// Few enough slots to fit a compact page.
    Compact(Compact<D>),
    /// Stays full.
    Full,
}

/// Decides (and builds) what a full page shrinks to: the one rule for every directory.
fn shrink<D: DenseIndex>(values: &[D; PAGE_LEN]) -> Shrunk<D> {
    match values.iter().filter(|&&value| value != D::ZERO).count() {
        0 => Shrunk::Empty,
        occupied if occupied <= COMPACT_LEN => Shrunk::Compact(Compact::from_full(values)),
        _ => Shrunk::Full,
    }
}

/// Up to `COMPACT_LEN` non-zero slots of a page, unordered; unused entries have offset `VACANT`.
#[derive(Clone, Debug)]
struct Compact<D> {
    offsets: [u16; COMPACT_LEN],
    values: [D; COMPACT_LEN],
}

impl<D: DenseIndex> Compact<D> {
    fn new() -> Self {
        Self { offsets: [VACANT; COMPACT_LEN], values: [D::ZERO; COMPACT_LEN] }
    }

    /// Branch-free (masks, not jumps) so the scan vectorises and never mispredicts: at most one
    /// entry matches, so OR-ing the masked values yields it.
    #[inline]
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

    fn with(offset: usize, value: D) -> Self {
        let mut compact = Self::new();
        compact.offsets[0] = offset as u16;
        compact.values[0] = value;
        compact
    }

    /// The non-zero slots of a full page that has at most `COMPACT_LEN` of them.
    fn from_full(values: &[D; PAGE_LEN]) -> Self {
        let mut compact = Self::new();
        let used = values.iter().enumerate().filter(|&(_, &value)| value != D::ZERO);
        for (index, (offset, &value)) in used.enumerate() {
            compact.offsets[index] = offset as u16;
            compact.values[index] = value;
        }
        compact
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

    /// The same slots plus `offset` = `value`, as a full page: what a compact page with no
    /// vacancy left becomes.
    fn to_full_with(&self, offset: usize, value: D) -> Result<Box<[D; PAGE_LEN]>, Error> {
        let mut values = self.to_full()?;
        values[offset] = value;
        Ok(values)
    }

    /// The same slots as a full page.
    fn to_full(&self) -> Result<Box<[D; PAGE_LEN]>, Error> {
        let mut values = new_full::<D>()?;
        for (&at, &stored) in self.offsets.iter().zip(&self.values) {
            if at != VACANT {
                values[usize::from(at)] = stored;
            }
        }
        Ok(values)
    }
}

/// A page of the flat region or of a chunk, lent for one update.
enum PageMut<'a, D> {
    Full(&'a mut [D; PAGE_LEN]),
    Compact(&'a mut Compact<D>),
}

#[derive(Clone, Debug)]
enum Page<D> {
    Full(Box<[D; PAGE_LEN]>),
    /// A one-element array so that it can be allocated fallibly (through `Vec`) without unsafe.
    Compact(Box<[Compact<D>; 1]>),
}

impl<D: DenseIndex> Page<D> {
    #[inline]
    fn get(&self, offset: usize) -> D {
        match self {
            Page::Full(values) => values[offset],
            Page::Compact(compact) => compact[0].get(offset),
        }
    }

    /// Gives an empty slot a non-zero value; a full compact page becomes a full one.
    fn insert(&mut self, offset: usize, value: D) -> Result<(), Error> {
        match self {
            Page::Full(values) => values[offset] = value,
            Page::Compact(compact) => {
                if !compact[0].try_insert(offset, value) {
                    *self = Page::Full(compact[0].to_full_with(offset, value)?);
                }
            }
        }
        Ok(())
    }

    fn occupied(&self) -> usize {
        match self {
            Page::Full(values) => values.iter().filter(|&&value| value != D::ZERO).count(),
            Page::Compact(compact) => compact[0].len(),
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Page::Full(_) => size_of::<[D; PAGE_LEN]>(),
            Page::Compact(_) => size_of::<Compact<D>>(),
        }
    }

    /// Shrinks a full page with few slots in use to a compact one. Returns `false` if the page
    /// holds nothing (the caller releases it).
    fn compact(&mut self) -> bool {
        let Page::Full(values) = self else { return self.occupied() > 0 };
        match shrink(values) {
            Shrunk::Empty => false,
            Shrunk::Compact(compact) => {
                *self = Page::Compact(Box::new([compact]));
                true
            }
            Shrunk::Full => true,
        }
    }
}

type Chunk<D> = Box<[Option<Page<D>>; CHUNK_LEN]>;

/// The sparse side of a set. See the module docs for the layout.
#[derive(Clone, Debug)]
pub(crate) struct Pages<D: DenseIndex> {
    /// Full pages of slots below `FLAT_LIMIT`, by page number.
    flat: Vec<Option<Box<[D; PAGE_LEN]>>>,
    /// Compact pages of slots below `FLAT_LIMIT`, by page number; as long as `flat`, and never
    /// holding a page where `flat` does.
    flat_compact: Vec<Option<Box<[Compact<D>; 1]>>>,
    /// Chunks of slots from `FLAT_LIMIT` up to 2^32, by chunk number.
    near: Vec<Option<Chunk<D>>>,
    /// Chunks of slots from 2^32 up.
    far: Vec<(u64, Chunk<D>)>,
    page_count: usize,
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
            flat_compact: Vec::new(),
            near: Vec::new(),
            far: Vec::new(),
            page_count: 0,
        }
    }

    /// The value stored in `slot`: zero if it is empty or its page is missing.
    ///
    /// Full and compact pages of the flat region are handled inline; only slots past the flat
    /// directories take a call, marked cold so that callers' loops keep their registers.
    /// `always`: see `SparseSet::get_index_of`.
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "measured: a call here makes callers' lookup loops spill registers, `get` 2.3 -> 7 ns"
    )]
    pub(crate) fn get(&self, slot: u64) -> D {
        let number = number_of(slot).unwrap_or(usize::MAX);
        if let Some(Some(page)) = self.flat.get(number) {
            return page[offset_of(slot)];
        }
        match self.flat_compact.get(number) {
            Some(Some(compact)) => compact[0].get(offset_of(slot)),
            Some(None) => D::ZERO,
            None => self.get_beyond_flat(slot),
        }
    }

    /// `get` for slots past the flat directories: pages never allocated, or chunked pages.
    #[cold]
    #[inline(never)]
    fn get_beyond_flat(&self, slot: u64) -> D {
        if slot < FLAT_LIMIT {
            return D::ZERO;
        }
        let (chunk, page) = chunk_of(slot);
        let chunk = if chunk < NEAR_CHUNKS {
            self.near.get(chunk as usize).and_then(Option::as_ref)
        } else {
            far_position(&self.far, chunk).ok().map(|at| &self.far[at].1)
        };
        chunk
            .and_then(|chunk| chunk[page].as_ref())
            .map_or(D::ZERO, |page| page.get(offset_of(slot)))
    }

    /// Applies `f` to the page holding `slot`, which must be allocated (it holds, or held, a
    /// key).
    fn with_page<R>(&mut self, slot: u64, f: impl FnOnce(PageMut<'_, D>) -> R) -> R {
        if slot < FLAT_LIMIT {
            let number = (slot >> PAGE_BITS) as usize;
            if let Some(Some(page)) = self.flat.get_mut(number) {
                return f(PageMut::Full(page));
            }
            return match self.flat_compact.get_mut(number) {
                Some(Some(compact)) => f(PageMut::Compact(&mut compact[0])),
                _ => unreachable!("sparse page of slot {slot} is missing"),
            };
        }
        match self.page_beyond_flat(slot) {
            Page::Full(page) => f(PageMut::Full(page)),
            Page::Compact(compact) => f(PageMut::Compact(&mut compact[0])),
        }
    }

    #[cold]
    #[inline(never)]
    fn page_beyond_flat(&mut self, slot: u64) -> &mut Page<D> {
        let (chunk, page) = chunk_of(slot);
        let chunk = if chunk < NEAR_CHUNKS {
            self.near.get_mut(chunk as usize).and_then(Option::as_mut)
        } else {
            match far_position(&self.far, chunk) {
                Ok(at) => Some(&mut self.far[at].1),
                Err(_) => None,
            }
        };
        match chunk.and_then(|chunk| chunk[page].as_mut()) {
            Some(page) => page,
            None => unreachable!("sparse page of slot {slot} is missing"),
        }
    }

    /// Overwrites `slot`, which must hold a non-zero value, with another non-zero value.
    #[inline]
    pub(crate) fn set(&mut self, slot: u64, value: D) {
        if let Some(Some(page)) = number_of(slot).and_then(|number| self.flat.get_mut(number)) {
            page[offset_of(slot)] = value;
            return;
        }
        self.set_slow(slot, value);
    }

    /// `set` for compact pages and chunked pages.
    #[inline(never)]
    fn set_slow(&mut self, slot: u64, value: D) {
        self.with_page(slot, |page| match page {
            PageMut::Full(values) => values[offset_of(slot)] = value,
            PageMut::Compact(compact) => match compact.position(offset_of(slot)) {
                Some(index) => compact.values[index] = value,
                None => unreachable!("slot {slot} of a compact page is not occupied"),
            },
        });
    }

    /// Reads `slot` and zeroes it, in one lookup; zero if it was empty or its page is missing.
    /// Never allocates.
    #[inline]
    pub(crate) fn take(&mut self, slot: u64) -> D {
        if let Some(Some(page)) = number_of(slot).and_then(|number| self.flat.get_mut(number)) {
            return core::mem::replace(&mut page[offset_of(slot)], D::ZERO);
        }
        self.take_slow(slot)
    }

    /// `take` for compact pages, missing pages and chunked pages.
    #[inline(never)]
    fn take_slow(&mut self, slot: u64) -> D {
        let value = self.get(slot);
        if value != D::ZERO {
            self.clear(slot);
        }
        value
    }

    /// Zeroes `slot`, whose page must exist. Never allocates.
    #[inline]
    pub(crate) fn clear(&mut self, slot: u64) {
        if let Some(Some(page)) = number_of(slot).and_then(|number| self.flat.get_mut(number)) {
            page[offset_of(slot)] = D::ZERO;
            return;
        }
        self.clear_slow(slot);
    }

    /// `clear` for compact pages and chunked pages.
    #[inline(never)]
    fn clear_slow(&mut self, slot: u64) {
        self.with_page(slot, |page| match page {
            PageMut::Full(values) => values[offset_of(slot)] = D::ZERO,
            PageMut::Compact(compact) => {
                if let Some(index) = compact.position(offset_of(slot)) {
                    compact.offsets[index] = VACANT;
                    compact.values[index] = D::ZERO;
                }
            }
        });
    }

    /// Gives the empty `slot` a non-zero value, allocating its page (and directories) or turning
    /// a compact page full if needed.
    #[inline]
    pub(crate) fn insert(&mut self, slot: u64, value: D) -> Result<(), Error> {
        let offset = offset_of(slot);
        if slot >= FLAT_LIMIT {
            return self.insert_beyond_flat(slot, value);
        }
        let number = (slot >> PAGE_BITS) as usize;
        if let Some(Some(page)) = self.flat.get_mut(number) {
            page[offset] = value;
            return Ok(());
        }
        if number >= self.flat.len() {
            let grow = number + 1 - self.flat.len();
            self.flat.try_reserve(grow)?;
            self.flat_compact.try_reserve(grow)?;
            self.flat.resize_with(number + 1, || None);
            self.flat_compact.resize_with(number + 1, || None);
        }
        match &mut self.flat_compact[number] {
            Some(compact) => {
                if !compact[0].try_insert(offset, value) {
                    self.flat[number] = Some(compact[0].to_full_with(offset, value)?);
                    self.flat_compact[number] = None;
                }
            }
            missing @ None => {
                *missing = Some(try_box(Compact::with(offset, value))?);
                self.page_count += 1;
            }
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn insert_beyond_flat(&mut self, slot: u64, value: D) -> Result<(), Error> {
        let (chunk, page) = chunk_of(slot);
        match &mut chunk_or_insert(&mut self.near, &mut self.far, chunk)?[page] {
            Some(page) => page.insert(offset_of(slot), value),
            missing @ None => {
                *missing = Some(Page::Compact(try_box(Compact::with(offset_of(slot), value))?));
                self.page_count += 1;
                Ok(())
            }
        }
    }

    /// Allocates full pages covering slots `0..limit` (bounded sets), so that inserting below
    /// `limit` never allocates.
    pub(crate) fn allocate_full_below(&mut self, limit: u64) -> Result<(), Error> {
        let pages = Self::check_full_below(limit)?;
        // Fail fast when the whole amount cannot be had, instead of allocating page after page.
        let mut probe: Vec<[D; PAGE_LEN]> = Vec::new();
        try_reserve_exact(&mut probe, pages)?;
        drop(probe);
        for page_start in (0..limit).step_by(PAGE_LEN) {
            if page_start >= FLAT_LIMIT {
                let (chunk, page) = chunk_of(page_start);
                let holder = &mut chunk_or_insert(&mut self.near, &mut self.far, chunk)?[page];
                match holder {
                    Some(Page::Full(_)) => {}
                    Some(Page::Compact(compact)) => {
                        *holder = Some(Page::Full(compact[0].to_full()?));
                    }
                    None => {
                        *holder = Some(Page::Full(new_full::<D>()?));
                        self.page_count += 1;
                    }
                }
                continue;
            }
            let number = (page_start >> PAGE_BITS) as usize;
            if number >= self.flat.len() {
                self.flat.try_reserve(number + 1 - self.flat.len())?;
                self.flat_compact.try_reserve(number + 1 - self.flat_compact.len())?;
                self.flat.resize_with(number + 1, || None);
                self.flat_compact.resize_with(number + 1, || None);
            }
            if self.flat[number].is_none() {
                let full = if let Some(compact) = &self.flat_compact[number] {
                    let full = compact[0].to_full()?;
                    self.flat_compact[number] = None;
                    full
                } else {
                    self.page_count += 1;
                    new_full::<D>()?
                };
                self.flat[number] = Some(full);
            }
        }
        Ok(())
    }

    /// Releases every page whose slots are all zero, turns full pages with few slots in use
    /// compact, drops chunks left without pages, and trims the directories.
    pub(crate) fn release_empty_pages(&mut self) {
        fn sweep<D: DenseIndex>(pages: &mut [Option<Page<D>>], released: &mut usize) -> bool {
            let mut any = false;
            for holder in pages {
                if holder.as_mut().is_some_and(|page| !page.compact()) {
                    *holder = None;
                    *released += 1;
                }
                any |= holder.is_some();
            }
            any
        }
        let mut released = 0;
        for (full, compact) in self.flat.iter_mut().zip(&mut self.flat_compact) {
            if let Some(values) = full {
                match shrink(values) {
                    Shrunk::Empty => {
                        *full = None;
                        released += 1;
                    }
                    Shrunk::Compact(shrunk) => {
                        *compact = Some(Box::new([shrunk]));
                        *full = None;
                    }
                    Shrunk::Full => {}
                }
            } else if compact.as_ref().is_some_and(|page| page[0].len() == 0) {
                *compact = None;
                released += 1;
            }
        }
        for chunk in &mut self.near {
            if chunk.as_mut().is_some_and(|pages| !sweep(&mut pages[..], &mut released)) {
                *chunk = None;
            }
        }
        self.far.retain_mut(|(_, pages)| sweep(&mut pages[..], &mut released));
        while matches!((self.flat.last(), self.flat_compact.last()), (Some(None), Some(None))) {
            self.flat.pop();
            self.flat_compact.pop();
        }
        self.flat.shrink_to_fit();
        self.flat_compact.shrink_to_fit();
        trim(&mut self.near);
        self.page_count -= released;
    }

    fn chunk_pages(&self) -> impl Iterator<Item = &Page<D>> {
        let chunks = self.near.iter().flatten().chain(self.far.iter().map(|(_, chunk)| chunk));
        chunks.flat_map(|chunk| chunk.iter()).flatten()
    }

    /// The number of full pages covering slots `0..limit`, or `Err(CapacityOverflow)` if they
    /// need more memory than the address space has. Allocates nothing.
    pub(crate) fn check_full_below(limit: u64) -> Result<usize, Error> {
        let pages = usize::try_from(limit.div_ceil(PAGE_LEN as u64)).ok();
        pages
            .filter(|&pages| {
                pages
                    .checked_mul(size_of::<[D; PAGE_LEN]>() + size_of::<usize>())
                    .is_some_and(|bytes| isize::try_from(bytes).is_ok())
            })
            .ok_or(Error::CapacityOverflow)
    }

    /// The number of non-zero slots (`len` of the set, by the invariant). Also checks that no
    /// page number has both a full and a compact page.
    pub(crate) fn check(&self) -> usize {
        assert_eq!(self.flat.len(), self.flat_compact.len(), "flat directories differ in length");
        let mut occupied = 0;
        for (full, compact) in self.flat.iter().zip(&self.flat_compact) {
            match (full, compact) {
                (Some(values), None) => {
                    occupied += values.iter().filter(|&&value| value != D::ZERO).count();
                }
                (None, Some(compact)) => occupied += compact[0].len(),
                (None, None) => {}
                (Some(_), Some(_)) => panic!("a page is both full and compact"),
            }
        }
        occupied + self.chunk_pages().map(Page::occupied).sum::<usize>()
    }

    /// The number of allocated pages.
    pub(crate) fn page_count(&self) -> usize {
        self.page_count
    }

    /// Bytes held by the sparse side: pages, chunks and directories.
    pub(crate) fn allocated_bytes(&self) -> usize {
        let chunks = self.near.iter().flatten().count() + self.far.len();
        let full = self.flat.iter().flatten().count();
        let compact = self.flat_compact.iter().flatten().count();
        full * size_of::<[D; PAGE_LEN]>()
            + compact * size_of::<Compact<D>>()
            + self.chunk_pages().map(Page::bytes).sum::<usize>()
            + chunks * size_of::<[Option<Page<D>>; CHUNK_LEN]>()
            + self.flat.capacity() * size_of::<Option<Box<[D; PAGE_LEN]>>>()
            + self.flat_compact.capacity() * size_of::<Option<Box<[Compact<D>; 1]>>>()
            + self.near.capacity() * size_of::<Option<Chunk<D>>>()
            + self.far.capacity() * size_of::<(u64, Chunk<D>)>()
    }
}

/// Drops trailing empty entries of a directory and its spare capacity.
fn trim<T>(directory: &mut Vec<Option<T>>) {
    while matches!(directory.last(), Some(None)) {
        directory.pop();
    }
    directory.shrink_to_fit();
}

/// Where chunk number `chunk` is (`Ok`) or belongs (`Err`) in the sorted far list.
fn far_position<D>(far: &[(u64, Chunk<D>)], chunk: u64) -> Result<usize, usize> {
    far.binary_search_by_key(&chunk, |&(number, _)| number)
}

fn chunk_or_insert<'a, D: DenseIndex>(
    near: &'a mut Vec<Option<Chunk<D>>>,
    far: &'a mut Vec<(u64, Chunk<D>)>,
    chunk: u64,
) -> Result<&'a mut Chunk<D>, Error> {
    if chunk < NEAR_CHUNKS {
        let chunk = chunk as usize;
        if chunk >= near.len() {
            near.try_reserve(chunk + 1 - near.len())?;
            near.resize_with(chunk + 1, || None);
        }
        match &mut near[chunk] {
            Some(chunk) => Ok(chunk),
            missing @ None => Ok(missing.insert(new_chunk::<D>()?)),
        }
    } else {
        // A sorted list rather than a map: its room is reserved fallibly before anything
        // changes, so a failed allocation is an `Err`, never an abort.
        match far_position(far, chunk) {
            Ok(at) => Ok(&mut far[at].1),
            Err(at) => {
                far.try_reserve(1)?;
                far.insert(at, (chunk, new_chunk::<D>()?));
                Ok(&mut far[at].1)
            }
        }
    }
}

/// Boxes `value`, reporting allocation failure instead of aborting.
fn try_box<T>(value: T) -> Result<Box<[T; 1]>, Error> {
    let mut storage = Vec::new();
    storage.try_reserve_exact(1)?;
    storage.push(value);
    Ok(storage.into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!("one element")))
}

fn new_full<D: DenseIndex>() -> Result<Box<[D; PAGE_LEN]>, Error> {
    let mut values = Vec::new();
    values.try_reserve_exact(PAGE_LEN)?;
    values.resize(PAGE_LEN, D::ZERO);
    Ok(values
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("page has PAGE_LEN slots")))
}

fn new_chunk<D: DenseIndex>() -> Result<Chunk<D>, Error> {
    let mut pages = Vec::new();
    pages.try_reserve_exact(CHUNK_LEN)?;
    pages.resize_with(CHUNK_LEN, || None);
    Ok(pages
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("chunk has CHUNK_LEN pages")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insert_all(pages: &mut Pages<u32>, slots: &[usize]) {
        for (value, &slot) in (1..).zip(slots) {
            pages.insert(slot as u64, value).unwrap();
        }
    }

    #[test]
    fn a_page_starts_compact_and_turns_full_on_its_seventeenth_slot() {
        let mut pages = Pages::<u32>::new();
        let slots: Vec<usize> = (0..COMPACT_LEN).map(|i| i * 7).collect();
        insert_all(&mut pages, &slots);
        assert!(pages.flat[0].is_none() && pages.flat_compact[0].is_some());
        assert_eq!(
            pages.allocated_bytes(),
            size_of::<Compact<u32>>()
                + (pages.flat.capacity() + pages.flat_compact.capacity()) * size_of::<usize>()
        );
        pages.insert(500, 99).unwrap();
        assert!(pages.flat[0].is_some() && pages.flat_compact[0].is_none());
        for (value, &slot) in (1..).zip(&slots) {
            assert_eq!(pages.get(slot as u64), value);
        }
        assert_eq!(pages.get(500), 99);
        assert_eq!(pages.get(1), 0);
        assert_eq!(pages.check(), COMPACT_LEN + 1);
    }

    #[test]
    fn releasing_turns_sparse_full_pages_compact_and_drops_empty_ones() {
        let mut pages = Pages::<u32>::new();
        let slots: Vec<usize> = (0..100).collect();
        insert_all(&mut pages, &slots);
        pages.insert(5_000_000, 1).unwrap();
        pages.insert(50_000_000, 1).unwrap();
        for slot in 3..100_usize {
            pages.clear(slot as u64);
        }
        pages.clear(5_000_000);
        pages.clear(50_000_000);
        pages.release_empty_pages();
        assert!(pages.flat[0].is_none() && pages.flat_compact[0].is_some());
        assert_eq!(pages.flat.len(), 1);
        assert!(pages.near.is_empty());
        assert_eq!(pages.page_count(), 1);
        assert_eq!((pages.get(0), pages.get(1), pages.get(2), pages.get(3)), (1, 2, 3, 0));
    }

    #[test]
    fn slots_far_apart_share_nothing_but_the_directories() {
        let mut pages = Pages::<u32>::new();
        pages.insert(0, 1).unwrap();
        pages.insert(u64::from(u32::MAX), 2).unwrap();
        assert_eq!(pages.get(0), 1);
        assert_eq!(pages.get((u32::MAX as usize) as u64), 2);
        assert_eq!(pages.get((PAGE_LEN) as u64), 0);
        assert_eq!(pages.get(FLAT_LIMIT + 5), 0);
        assert_eq!(pages.page_count(), 2);
        assert!(pages.allocated_bytes() < 100 * 1024, "{}", pages.allocated_bytes());
    }

    #[test]
    fn the_flat_directory_ends_where_the_chunks_begin() {
        let mut pages = Pages::<u16>::new();
        for slot in [FLAT_LIMIT - 1, FLAT_LIMIT, FLAT_LIMIT + PAGE_LEN as u64] {
            pages.insert(slot, 3).unwrap();
        }
        assert_eq!(pages.flat.len() as u64, FLAT_LIMIT >> PAGE_BITS);
        assert_eq!(pages.page_count(), 3);
        assert_eq!(pages.get(FLAT_LIMIT), 3);
        assert_eq!(pages.get(FLAT_LIMIT + 1), 0);
        pages.set(FLAT_LIMIT, 4);
        assert_eq!(pages.get(FLAT_LIMIT), 4);
    }

    #[test]
    fn slots_beyond_32_bits_use_the_far_list_on_every_target() {
        let mut pages = Pages::<u8>::new();
        pages.insert(u64::MAX, 7).unwrap();
        pages.insert(1 << 40, 8).unwrap();
        pages.insert((1 << 40) + (1 << 32), 9).unwrap();
        assert_eq!(pages.get(u64::MAX), 7);
        assert_eq!(pages.get(1 << 40), 8);
        assert_eq!(pages.get((1 << 40) + (1 << 32)), 9);
        assert_eq!(pages.get((1 << 40) + PAGE_LEN as u64), 0);
        assert_eq!(pages.get(u64::MAX - (1 << 32)), 0, "shares its low 32 bits with u64::MAX");
        assert!(pages.near.is_empty() && pages.flat.is_empty());
        assert!(pages.far.windows(2).all(|pair| pair[0].0 < pair[1].0), "sorted by chunk");
        pages.clear(1 << 40);
        pages.release_empty_pages();
        assert_eq!(pages.page_count(), 2);
        assert_eq!(pages.far.len(), 2);
        assert_eq!(pages.get(u64::MAX), 7);
    }

    #[test]
    fn bounded_pages_are_full_from_the_start() {
        let mut pages = Pages::<u8>::new();
        pages.insert(3, 1).unwrap();
        pages.allocate_full_below(3 * PAGE_LEN as u64 - 1).unwrap();
        assert_eq!(pages.page_count(), 3);
        assert!(pages.flat.iter().all(Option::is_some));
        assert!(pages.flat_compact.iter().all(Option::is_none));
        assert_eq!(pages.get(3), 1, "values survive the conversion");
    }
}
