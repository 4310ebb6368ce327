//! The paged sparse array: slot -> dense position, allocated in pages around the slots in use.
//!
//! Layout: a slot is split into `chunk | page | offset`. A page holds [`PAGE_LEN`] dense positions
//! (2 KiB with `u32`), a chunk holds [`CHUNK_LEN`] page pointers and so covers 2^20 slots. Chunks
//! for slots below 2^32 sit in a flat directory (`near`, at most 4,096 pointers, grown to the
//! highest chunk used); chunks above that (64-bit keys only) live in an ordered map (`far`) that
//! the hot path never touches unless it is needed.
//!
//! So a lookup is three dependent reads of small, hot arrays plus the slot itself, memory follows
//! the pages touched (1,000 keys spread one per 4,096 cost 1,000 pages = 2 MiB, not 16 MiB), and
//! growing never copies a page: only the directory of chunk pointers is reallocated.
//!
//! Pages start zeroed and are never cleaned: a slot's value means something only when the dense
//! side confirms it (see the invariant in `set.rs`), so stale values are harmless.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::{DenseIndex, Error};

/// log2 of the slots in one page.
const PAGE_BITS: u32 = 9;
/// Slots in one page.
pub(crate) const PAGE_LEN: usize = 1 << PAGE_BITS;
/// log2 of the pages in one chunk.
const CHUNK_BITS: u32 = 11;
/// Pages in one chunk.
const CHUNK_LEN: usize = 1 << CHUNK_BITS;
/// Slots below `1 << NEAR_BITS` are reached through the flat directory.
const NEAR_BITS: u32 = 32;
/// The most chunks the flat directory holds.
const NEAR_CHUNKS: usize = 1 << (NEAR_BITS - PAGE_BITS - CHUNK_BITS);

type Page<D> = Box<[D; PAGE_LEN]>;
type Chunk<D> = Box<[Option<Page<D>>; CHUNK_LEN]>;

#[inline]
const fn split(slot: usize) -> (usize, usize, usize) {
    (slot >> (PAGE_BITS + CHUNK_BITS), (slot >> PAGE_BITS) & (CHUNK_LEN - 1), slot & (PAGE_LEN - 1))
}

/// The sparse side of a set. See the module docs for the layout.
#[derive(Clone, Debug)]
pub(crate) struct Pages<D: DenseIndex> {
    near: Vec<Option<Chunk<D>>>,
    far: BTreeMap<usize, Chunk<D>>,
    page_count: usize,
}

impl<D: DenseIndex> Default for Pages<D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<D: DenseIndex> Pages<D> {
    pub(crate) const fn new() -> Self {
        Self { near: Vec::new(), far: BTreeMap::new(), page_count: 0 }
    }

    /// The value stored in `slot`, or `None` if its page was never allocated.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> Option<D> {
        let (chunk, page, offset) = split(slot);
        let chunk = match self.near.get(chunk) {
            Some(chunk) => chunk.as_ref()?,
            None => return self.get_far(slot),
        };
        Some(chunk[page].as_ref()?[offset])
    }

    #[cold]
    #[inline(never)]
    fn get_far(&self, slot: usize) -> Option<D> {
        let (chunk, page, offset) = split(slot);
        Some(self.far.get(&chunk)?[page].as_ref()?[offset])
    }

    /// Overwrites `slot`, whose page must exist (it holds a key of the set).
    #[inline]
    pub(crate) fn set(&mut self, slot: usize, value: D) {
        let (chunk, page, offset) = split(slot);
        let chunk = if chunk < self.near.len() {
            self.near[chunk].as_mut()
        } else {
            self.far.get_mut(&chunk)
        };
        match chunk.and_then(|chunk| chunk[page].as_mut()) {
            Some(page) => page[offset] = value,
            None => unreachable!("sparse page of slot {slot} is missing"),
        }
    }

    /// The slot's entry, allocating its chunk and page if they are missing.
    #[inline]
    pub(crate) fn entry(&mut self, slot: usize) -> Result<&mut D, Error> {
        let (chunk, page, offset) = split(slot);
        let Self { near, far, page_count } = self;
        let chunk = chunk_or_insert(near, far, chunk)?;
        let page = match &mut chunk[page] {
            Some(page) => page,
            missing @ None => {
                let fresh = new_page::<D>()?;
                *page_count += 1;
                missing.insert(fresh)
            }
        };
        Ok(&mut page[offset])
    }

    /// Allocates every page covering slots `0..limit` (bounded sets).
    pub(crate) fn allocate_below(&mut self, limit: usize) -> Result<(), Error> {
        let mut slot = 0;
        while slot < limit {
            self.entry(slot)?;
            slot = match slot.checked_add(PAGE_LEN) {
                Some(next) => next,
                None => break,
            };
        }
        Ok(())
    }

    /// Releases every page for which `in_use(slot)` is false for all its slots, then every chunk
    /// left without pages.
    pub(crate) fn retain_pages(&mut self, mut in_use: impl FnMut(usize, D) -> bool) {
        let mut released = 0;
        let mut sweep = |base_chunk: usize, chunk: &mut Chunk<D>| -> bool {
            let mut any = false;
            for (page_index, page) in chunk.iter_mut().enumerate() {
                let Some(values) = page else { continue };
                let base = (base_chunk << (PAGE_BITS + CHUNK_BITS)) | (page_index << PAGE_BITS);
                if values.iter().enumerate().any(|(offset, &value)| in_use(base | offset, value)) {
                    any = true;
                } else {
                    *page = None;
                    released += 1;
                }
            }
            any
        };
        for (index, chunk) in self.near.iter_mut().enumerate() {
            if let Some(pages) = chunk {
                if !sweep(index, pages) {
                    *chunk = None;
                }
            }
        }
        self.far.retain(|&index, chunk| sweep(index, chunk));
        while matches!(self.near.last(), Some(None)) {
            self.near.pop();
        }
        self.near.shrink_to_fit();
        self.page_count -= released;
    }

    /// The number of allocated pages.
    pub(crate) fn page_count(&self) -> usize {
        self.page_count
    }

    /// Bytes held by the sparse side: pages, chunks and the directory.
    pub(crate) fn allocated_bytes(&self) -> usize {
        let chunks = self.near.iter().flatten().count() + self.far.len();
        self.page_count * size_of::<[D; PAGE_LEN]>()
            + chunks * size_of::<[Option<Page<D>>; CHUNK_LEN]>()
            + self.near.capacity() * size_of::<Option<Chunk<D>>>()
    }
}

fn chunk_or_insert<'a, D: DenseIndex>(
    near: &'a mut Vec<Option<Chunk<D>>>,
    far: &'a mut BTreeMap<usize, Chunk<D>>,
    chunk: usize,
) -> Result<&'a mut Chunk<D>, Error> {
    if chunk < NEAR_CHUNKS {
        if chunk >= near.len() {
            near.try_reserve(chunk + 1 - near.len())?;
            near.resize_with(chunk + 1, || None);
        }
        match &mut near[chunk] {
            Some(chunk) => Ok(chunk),
            missing @ None => Ok(missing.insert(new_chunk::<D>()?)),
        }
    } else {
        match far.entry(chunk) {
            alloc::collections::btree_map::Entry::Occupied(entry) => Ok(entry.into_mut()),
            alloc::collections::btree_map::Entry::Vacant(entry) => {
                Ok(entry.insert(new_chunk::<D>()?))
            }
        }
    }
}

fn new_page<D: DenseIndex>() -> Result<Page<D>, Error> {
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

    #[test]
    fn slots_far_apart_share_nothing_but_the_directory() {
        let mut pages = Pages::<u32>::new();
        *pages.entry(0).unwrap() = 1;
        *pages.entry(u32::MAX as usize).unwrap() = 2;
        assert_eq!(pages.get(0), Some(1));
        assert_eq!(pages.get(u32::MAX as usize), Some(2));
        assert_eq!(pages.get(PAGE_LEN), None);
        assert_eq!(pages.page_count(), 2);
        assert!(pages.allocated_bytes() < 100 * 1024, "{}", pages.allocated_bytes());
    }

    #[cfg(target_pointer_width = "64")]
    #[test]
    fn slots_beyond_32_bits_use_the_far_map() {
        let mut pages = Pages::<u8>::new();
        *pages.entry(usize::MAX).unwrap() = 7;
        *pages.entry(1 << 40).unwrap() = 8;
        assert_eq!(pages.get(usize::MAX), Some(7));
        assert_eq!(pages.get(1 << 40), Some(8));
        assert_eq!(pages.get((1 << 40) + PAGE_LEN), None);
        assert!(pages.near.is_empty());
        pages.set(1 << 40, 9);
        assert_eq!(pages.get(1 << 40), Some(9));
        pages.retain_pages(|slot, _| slot == usize::MAX);
        assert_eq!(pages.page_count(), 1);
        assert_eq!(pages.far.len(), 1);
    }

    #[test]
    fn retain_pages_releases_empty_chunks_and_trims_the_directory() {
        let mut pages = Pages::<u16>::new();
        *pages.entry(3).unwrap() = 1;
        *pages.entry(50_000_000).unwrap() = 1;
        pages.retain_pages(|slot, _| slot == 3);
        assert_eq!(pages.page_count(), 1);
        assert_eq!(pages.near.len(), 1);
        assert_eq!(pages.get(50_000_000), None);
    }
}
