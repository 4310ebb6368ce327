//! The paged sparse array: slot -> stored value, allocated in pages around the slots in use.
//!
//! A page holds [`PAGE_LEN`] values (2 KiB with `u32`) and is allocated zeroed the first time a
//! slot in it is written. Pages are reached through one of two directories:
//!
//! - slots below [`FLAT_LIMIT`] (2^24) through a flat vector of page pointers, grown to the
//!   highest page used (at most 32,768 pointers, 256 KiB): a lookup is the pointer, then the slot;
//! - larger slots through chunks of [`CHUNK_LEN`] page pointers (each chunk covers 2^20 slots),
//!   themselves in a vector of chunk pointers for slots below 2^32 and in an ordered map above
//!   (64-bit keys only). The hot path reaches this code only for such large keys.
//!
//! So memory follows the pages touched (1,000 keys spread one per 4,096 cost 1,000 pages, about
//! 2 MiB, not 16 MiB; keys near 0 and near `u32::MAX` cost a few pages and small directories),
//! and growing never copies or refills a page: only directories of pointers are reallocated.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::{DenseIndex, Error};

/// log2 of the slots in one page.
const PAGE_BITS: u32 = 9;
/// Slots in one page.
pub(crate) const PAGE_LEN: usize = 1 << PAGE_BITS;
/// Slots below this are reached through the flat page directory.
const FLAT_LIMIT: usize = 1 << 24;
/// log2 of the pages in one chunk.
const CHUNK_BITS: u32 = 11;
/// Pages in one chunk.
const CHUNK_LEN: usize = 1 << CHUNK_BITS;
/// Chunks below this index sit in the chunk vector; above it (slots of 2^32 and more) in a map.
const NEAR_CHUNKS: usize = 1 << (32 - PAGE_BITS - CHUNK_BITS);

type Page<D> = Box<[D; PAGE_LEN]>;
type Chunk<D> = Box<[Option<Page<D>>; CHUNK_LEN]>;

/// The sparse side of a set. See the module docs for the layout.
#[derive(Clone, Debug)]
pub(crate) struct Pages<D: DenseIndex> {
    /// Pages of slots below `FLAT_LIMIT`, by page number.
    flat: Vec<Option<Page<D>>>,
    /// Chunks of slots from `FLAT_LIMIT` up to 2^32, by chunk number.
    near: Vec<Option<Chunk<D>>>,
    /// Chunks of slots from 2^32 up.
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
        Self { flat: Vec::new(), near: Vec::new(), far: BTreeMap::new(), page_count: 0 }
    }

    /// The value stored in `slot`: zero if it was never written or its page is missing.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> D {
        match self.flat.get(slot >> PAGE_BITS) {
            Some(Some(page)) => page[slot & (PAGE_LEN - 1)],
            Some(None) => D::ZERO,
            None => self.get_beyond_flat(slot),
        }
    }

    #[cold]
    #[inline(never)]
    fn get_beyond_flat(&self, slot: usize) -> D {
        self.page(slot).map_or(D::ZERO, |page| page[slot & (PAGE_LEN - 1)])
    }

    /// The page holding `slot`, if allocated.
    fn page(&self, slot: usize) -> Option<&Page<D>> {
        if slot < FLAT_LIMIT {
            return self.flat.get(slot >> PAGE_BITS)?.as_ref();
        }
        let (chunk, page) =
            (slot >> (PAGE_BITS + CHUNK_BITS), (slot >> PAGE_BITS) & (CHUNK_LEN - 1));
        let chunk = if chunk < NEAR_CHUNKS {
            self.near.get(chunk)?.as_ref()?
        } else {
            self.far.get(&chunk)?
        };
        chunk[page].as_ref()
    }

    /// The page holding `slot`, mutably, if allocated.
    fn page_mut(&mut self, slot: usize) -> Option<&mut Page<D>> {
        if slot < FLAT_LIMIT {
            return self.flat.get_mut(slot >> PAGE_BITS)?.as_mut();
        }
        let (chunk, page) =
            (slot >> (PAGE_BITS + CHUNK_BITS), (slot >> PAGE_BITS) & (CHUNK_LEN - 1));
        let chunk = if chunk < NEAR_CHUNKS {
            self.near.get_mut(chunk)?.as_mut()?
        } else {
            self.far.get_mut(&chunk)?
        };
        chunk[page].as_mut()
    }

    /// Overwrites `slot`, whose page must exist (it holds, or held, a key of the set).
    #[inline]
    pub(crate) fn set(&mut self, slot: usize, value: D) {
        let page = match self.flat.get_mut(slot >> PAGE_BITS) {
            Some(Some(page)) => page,
            _ => match self.page_mut(slot) {
                Some(page) => page,
                None => unreachable!("sparse page of slot {slot} is missing"),
            },
        };
        page[slot & (PAGE_LEN - 1)] = value;
    }

    /// The slot's entry, allocating its page (and directories) if they are missing.
    #[inline]
    pub(crate) fn entry(&mut self, slot: usize) -> Result<&mut D, Error> {
        let Self { flat, near, far, page_count } = self;
        let holder = if slot < FLAT_LIMIT {
            let page = slot >> PAGE_BITS;
            if page >= flat.len() {
                flat.try_reserve(page + 1 - flat.len())?;
                flat.resize_with(page + 1, || None);
            }
            &mut flat[page]
        } else {
            let (chunk, page) =
                (slot >> (PAGE_BITS + CHUNK_BITS), (slot >> PAGE_BITS) & (CHUNK_LEN - 1));
            &mut chunk_or_insert(near, far, chunk)?[page]
        };
        let page = match holder {
            Some(page) => page,
            missing @ None => {
                let fresh = new_page::<D>()?;
                *page_count += 1;
                missing.insert(fresh)
            }
        };
        Ok(&mut page[slot & (PAGE_LEN - 1)])
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

    /// Releases every page whose slots are all zero, then every chunk left without pages, and
    /// trims the directories.
    pub(crate) fn release_empty_pages(&mut self) {
        fn sweep<D: DenseIndex>(pages: &mut [Option<Page<D>>], released: &mut usize) -> bool {
            let mut any = false;
            for page in pages {
                if page.as_ref().is_some_and(|values| values.iter().all(|&value| value == D::ZERO))
                {
                    *page = None;
                    *released += 1;
                }
                any |= page.is_some();
            }
            any
        }
        let mut released = 0;
        sweep(&mut self.flat, &mut released);
        for chunk in &mut self.near {
            if chunk.as_mut().is_some_and(|pages| !sweep(&mut pages[..], &mut released)) {
                *chunk = None;
            }
        }
        self.far.retain(|_, pages| sweep(&mut pages[..], &mut released));
        trim(&mut self.flat);
        trim(&mut self.near);
        self.page_count -= released;
    }

    /// Calls `f` with the first slot of every allocated page and the page's values.
    pub(crate) fn for_each_page(&self, mut f: impl FnMut(usize, &[D; PAGE_LEN])) {
        for (number, page) in self.flat.iter().enumerate() {
            if let Some(page) = page {
                f(number << PAGE_BITS, page);
            }
        }
        let near = self
            .near
            .iter()
            .enumerate()
            .filter_map(|(number, chunk)| Some((number, chunk.as_ref()?)));
        for (number, chunk) in near.chain(self.far.iter().map(|(&number, chunk)| (number, chunk))) {
            for (offset, page) in chunk.iter().enumerate() {
                if let Some(page) = page {
                    f((number << (PAGE_BITS + CHUNK_BITS)) | (offset << PAGE_BITS), page);
                }
            }
        }
    }

    /// The number of allocated pages.
    pub(crate) fn page_count(&self) -> usize {
        self.page_count
    }

    /// Bytes held by the sparse side: pages, chunks and directories.
    pub(crate) fn allocated_bytes(&self) -> usize {
        let chunks = self.near.iter().flatten().count() + self.far.len();
        self.page_count * size_of::<[D; PAGE_LEN]>()
            + chunks * size_of::<[Option<Page<D>>; CHUNK_LEN]>()
            + self.flat.capacity() * size_of::<Option<Page<D>>>()
            + self.near.capacity() * size_of::<Option<Chunk<D>>>()
    }
}

/// Drops trailing empty entries of a directory and its spare capacity.
fn trim<T>(directory: &mut Vec<Option<T>>) {
    while matches!(directory.last(), Some(None)) {
        directory.pop();
    }
    directory.shrink_to_fit();
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
    fn slots_far_apart_share_nothing_but_the_directories() {
        let mut pages = Pages::<u32>::new();
        *pages.entry(0).unwrap() = 1;
        *pages.entry(u32::MAX as usize).unwrap() = 2;
        assert_eq!(pages.get(0), 1);
        assert_eq!(pages.get(u32::MAX as usize), 2);
        assert_eq!(pages.get(PAGE_LEN), 0);
        assert_eq!(pages.get(FLAT_LIMIT + 5), 0);
        assert_eq!(pages.page_count(), 2);
        assert!(pages.allocated_bytes() < 100 * 1024, "{}", pages.allocated_bytes());
    }

    #[test]
    fn the_flat_directory_ends_where_the_chunks_begin() {
        let mut pages = Pages::<u16>::new();
        for slot in [FLAT_LIMIT - 1, FLAT_LIMIT, FLAT_LIMIT + PAGE_LEN] {
            *pages.entry(slot).unwrap() = 3;
        }
        assert_eq!(pages.flat.len(), FLAT_LIMIT >> PAGE_BITS);
        assert_eq!(pages.page_count(), 3);
        assert_eq!(pages.get(FLAT_LIMIT), 3);
        assert_eq!(pages.get(FLAT_LIMIT + 1), 0);
        pages.set(FLAT_LIMIT + 1, 4);
        assert_eq!(pages.get(FLAT_LIMIT + 1), 4);
    }

    #[cfg(target_pointer_width = "64")]
    #[test]
    fn slots_beyond_32_bits_use_the_far_map() {
        let mut pages = Pages::<u8>::new();
        *pages.entry(usize::MAX).unwrap() = 7;
        *pages.entry(1 << 40).unwrap() = 8;
        assert_eq!(pages.get(usize::MAX), 7);
        assert_eq!(pages.get(1 << 40), 8);
        assert_eq!(pages.get((1 << 40) + PAGE_LEN), 0);
        assert!(pages.near.is_empty() && pages.flat.is_empty());
        pages.set(1 << 40, 0);
        pages.release_empty_pages();
        assert_eq!(pages.page_count(), 1);
        assert_eq!(pages.far.len(), 1);
        assert_eq!(pages.get(usize::MAX), 7);
    }

    #[test]
    fn releasing_empty_pages_trims_the_directories() {
        let mut pages = Pages::<u16>::new();
        *pages.entry(3).unwrap() = 1;
        *pages.entry(5_000_000).unwrap() = 1;
        *pages.entry(50_000_000).unwrap() = 1;
        pages.set(5_000_000, 0);
        pages.set(50_000_000, 0);
        pages.release_empty_pages();
        assert_eq!(pages.page_count(), 1);
        assert_eq!(pages.flat.len(), 1);
        assert!(pages.near.is_empty());
        assert_eq!(pages.get(5_000_000), 0);
        assert_eq!(pages.get(3), 1);
    }
}
