//! Every path that changes the layout of the pages: a new compact page, a compact page turning
//! full (and joining the prefix), the flat lane growing over hashed pages, and the bounded sets'
//! pages allocated up front. Each reserves what it needs before it changes anything.

use alloc::vec::Vec;

use crate::dense::DenseIndex;
use crate::error::{Error, try_reserve, try_reserve_exact};
use crate::pages::compact::Compact;
use crate::pages::hash_lane::HashLane;
use crate::pages::{
    COMPACT, EMPTY, Entry, FLAT_MIN, FLAT_PER_PAGE, PAGE_BITS, PAGE_LEN, Pages, flat_index,
    new_full,
};

impl<D: DenseIndex> Pages<D> {
    /// Turns compact page `index` (of page number `page`), which has no unused entry left, into
    /// a full page holding its slots and `offset` = `value`; the compact page is freed.
    #[cold]
    pub(super) fn grow_compact(
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
            self.prefix.try_reserve_pages(1)?;
            try_reserve(&mut self.free, 1)?;
            let mut values = [D::ZERO; PAGE_LEN];
            self.compact[index].fill(&mut values);
            values[offset] = value;
            self.prefix.push_values(&values);
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
    pub(super) fn free_compact(&mut self, index: usize) {
        self.compact[index] = Compact::EMPTY;
        self.free.push(index as Entry);
    }

    /// Adds a compact page for page number `page`, which has none, holding `offset` = `value`.
    #[inline(never)]
    pub(super) fn add_compact(&mut self, page: u64, offset: usize, value: D) -> Result<(), Error> {
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

    /// Moves the flat lane's full pages that continue the prefix into it, while its memory can
    /// be had (a page that cannot move stays where it is, as valid as before).
    pub(super) fn absorb_full_pages(&mut self) {
        loop {
            let number = self.prefix_pages();
            let Some(slot) = self.flat_full.get_mut(number) else { return };
            if slot.is_none() || self.prefix.try_reserve_pages(1).is_err() {
                return;
            }
            if let Some(full) = slot.take() {
                self.prefix.push_values(&full);
                self.flat_named -= 1;
            }
        }
    }

    /// Extends the prefix over slots up to `end` (exclusive) for keys about to be inserted in
    /// `start..end`, when they fill at least half of the slots it adds: a batch of new keys
    /// (entity ids from 0 up) then writes each slot with one store, and the prefix grows once
    /// instead of page by page. Pages of the flat lane in the way join the prefix (a compact
    /// one turned full); nothing happens when a hashed page is in the way. Returns whether a
    /// page holding slots joined the prefix (the rest are empty). A hint: on `Err` nothing has
    /// changed.
    pub(crate) fn try_reserve_slots(&mut self, start: u64, end: u64) -> Result<bool, Error> {
        let from = self.prefix.slots() as u64;
        let keys = end.saturating_sub(start.max(from));
        let first = self.prefix_pages();
        let Ok(last) = usize::try_from(end.saturating_sub(1) >> PAGE_BITS) else {
            return Ok(false);
        };
        let pages = (last + 1).saturating_sub(first);
        let added = (pages as u64).saturating_mul(PAGE_LEN as u64);
        if pages == 0 || keys.saturating_mul(2) < added || self.hash.min_page <= last as u64 {
            return Ok(false);
        }
        self.prefix.try_reserve_pages(pages)?;
        try_reserve(&mut self.free, pages)?;
        let named = self.flat_named;
        for number in first..=last {
            if let Some(full) = self.flat_full.get_mut(number).and_then(Option::take) {
                self.prefix.push_values(&full);
                self.flat_named -= 1;
                continue;
            }
            if let Some(entry) = self.flat_compact.get_mut(number)
                && *entry != EMPTY
            {
                let index = (*entry & !COMPACT) as usize;
                *entry = EMPTY;
                let mut values = [D::ZERO; PAGE_LEN];
                self.compact[index].fill(&mut values);
                self.free_compact(index);
                self.flat_named -= 1;
                self.prefix.push_values(&values);
            } else {
                self.prefix.push_empty();
            }
        }
        self.absorb_full_pages();
        self.refresh_last();
        Ok(self.flat_named != named)
    }

    /// Makes room in the directory for the new page number `page`: grows the flat lane over it
    /// if the lane may cover it, else makes room in the hash lane. After `Ok`, `add_entry(page,
    /// _)` cannot fail.
    pub(super) fn reserve_entry(&mut self, page: u64) -> Result<(), Error> {
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
    pub(super) fn flat_is_dense(&self) -> bool {
        let pages = self.prefix_pages() + self.flat_named;
        self.flat_full.len() < FLAT_MIN || pages * 2 * FLAT_PER_PAGE >= self.flat_full.len()
    }

    /// Extends the flat lane to `len` page numbers, moving the hash lane's pages below `len`
    /// over. On `Err` nothing has changed.
    pub(super) fn grow_flat(&mut self, len: usize) -> Result<(), Error> {
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
    pub(super) fn move_to_flat(&mut self, len: usize) -> Result<(), Error> {
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
    pub(super) fn add_entry(&mut self, page: u64, entry: Entry) {
        if let Some(slot) = self.flat_compact.get_mut(flat_index(page)) {
            *slot = entry;
            self.flat_named += 1;
        } else {
            self.hash.put(page, entry);
            self.refresh_last();
        }
    }

    /// Pages whose prefix covers slots `0..limit` (a bounded set's whole key range), so that
    /// inserting below `limit` never allocates. Everything is reserved before a word is written:
    /// a `limit` the allocator cannot grant fails here, having touched no memory.
    pub(crate) fn try_bounded(limit: u64, versioned: bool) -> Result<Self, Error> {
        let mut pages = Self::new(versioned);
        let count = Self::check_full_below(limit, pages.prefix.stride())?;
        pages.prefix.try_reserve_pages_exact(count)?;
        for _ in 0..count {
            pages.prefix.push_empty();
        }
        pages.refresh_last();
        Ok(pages)
    }

    /// The number of full pages covering slots `0..limit`, or `Err(CapacityOverflow)` if they
    /// need more memory than the address space has, `stride` words per slot. Allocates nothing.
    pub(crate) fn check_full_below(limit: u64, stride: usize) -> Result<usize, Error> {
        let pages = usize::try_from(limit.div_ceil(PAGE_LEN as u64)).ok();
        pages
            .filter(|&pages| {
                pages
                    .checked_mul(PAGE_LEN * stride * size_of::<D>())
                    .is_some_and(|bytes| isize::try_from(bytes).is_ok())
            })
            .ok_or(Error::CapacityOverflow)
    }

    /// The bytes [`try_bounded`](Self::try_bounded) takes for slots `0..limit`, `stride` words
    /// per slot. `Err` as [`check_full_below`](Self::check_full_below). Allocates nothing.
    pub(crate) fn full_below_bytes(limit: u64, stride: usize) -> Result<usize, Error> {
        Ok(Self::check_full_below(limit, stride)? * PAGE_LEN * stride * size_of::<D>())
    }
}
