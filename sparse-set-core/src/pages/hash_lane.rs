//! The hash lane of the directory: page number -> entry, by open addressing with linear probing
//! and Fibonacci hashing of the page number mixed with a seed, for every page number at or past
//! the flat lane's end (the module docs' invariant 2).
//!
//! Each table draws its own seed when it is made (from the process's random state with `std`,
//! else from the table's address and a counter) and hashes `page ^ seed`. Without it, page
//! numbers could be chosen to share one home bucket at every table size (a lattice of them
//! does), which turns every insert and lookup into a walk of the whole table: a denial of
//! service through untrusted keys, such as those a saved storage holds. The seed goes in by
//! `xor`, not by drawing the multiplier: a random multiplier is bad for some draws on runs of
//! page numbers (dozens of buckets a page), which the golden-ratio multiplier spreads evenly.

use alloc::vec::Vec;

use crate::error::{Error, try_reserve_exact};
use crate::pages::{EMPTY, Entry, NO_PAGE, try_copy};

/// One bucket of the hash lane.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bucket {
    pub(super) page: u64,
    pub(super) entry: Entry,
}

const VACANT_BUCKET: Bucket = Bucket { page: NO_PAGE, entry: EMPTY };

/// The hash lane of the directory: page number -> entry. The table is a power of two long
/// (at least 8) and less than 3/4 full; it has no buckets at all while no page is in it, so a
/// lookup in an empty lane is one test.
#[derive(Debug)]
pub(super) struct HashLane {
    pub(super) buckets: Vec<Bucket>,
    /// The number of pages in the table.
    pub(super) len: usize,
    /// The smallest page number in the table; `NO_PAGE` when it is empty.
    pub(super) min_page: u64,
    /// The largest page number in the table; 0 when it is empty.
    pub(super) max_page: u64,
    /// The seed mixed into every page number, drawn when the buckets were made.
    seed: u64,
}

impl HashLane {
    pub(super) const fn new() -> Self {
        Self { buckets: Vec::new(), len: 0, min_page: NO_PAGE, max_page: 0, seed: 0 }
    }

    /// A copy, allocated fallibly.
    pub(super) fn try_clone(&self) -> Result<Self, Error> {
        Ok(Self { buckets: try_copy(&self.buckets)?, ..*self })
    }

    /// An empty table with room for `pages` pages: no buckets if `pages` is zero.
    pub(super) fn with_room(pages: usize) -> Result<Self, Error> {
        let mut table = Self::new();
        if pages > 0 {
            let mut buckets = 8_usize;
            while buckets * 3 <= pages * 4 {
                buckets = buckets.checked_mul(2).ok_or(Error::CapacityOverflow)?;
            }
            try_reserve_exact(&mut table.buckets, buckets)?;
            table.buckets.resize(buckets, VACANT_BUCKET);
            table.seed = draw_seed(table.buckets.as_ptr().addr());
        }
        Ok(table)
    }

    /// The home bucket of `page`: Fibonacci hashing of `page ^ seed`, so runs of page numbers
    /// spread out, and chosen ones do not gather.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of hashed keys")]
    pub(super) fn home(&self, page: u64) -> usize {
        // A table with buckets has at least 8, so the shift is below 64.
        let bits = self.buckets.len().trailing_zeros();
        ((page ^ self.seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
    }

    /// The entry of `page`; `EMPTY` if it has none.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of hashed keys and of misses")]
    pub(super) fn get(&self, page: u64) -> Entry {
        match self.find(page) {
            Some(at) => self.buckets[at].entry,
            None => EMPTY,
        }
    }

    /// The bucket holding `page`, if any.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of hashed keys and of misses")]
    pub(super) fn find(&self, page: u64) -> Option<usize> {
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
    pub(super) fn reserve_one(&mut self) -> Result<(), Error> {
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
    pub(super) fn put(&mut self, page: u64, entry: Entry) {
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

    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, Entry)> + '_ {
        self.buckets.iter().filter(|b| b.page != NO_PAGE).map(|b| (b.page, b.entry))
    }

    pub(super) fn allocated_bytes(&self) -> usize {
        self.buckets.capacity() * size_of::<Bucket>()
    }

    /// Checks the table's part of invariant 2: its count, smallest page, load and size.
    pub(super) fn check(&self) {
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

/// A seed no one outside the process can predict: the process's random state (with `std`: the
/// keys of `std`'s `RandomState`, drawn from the system once per thread), else the table's
/// address and a counter, mixed (splitmix64's finalizer).
fn draw_seed(address: usize) -> u64 {
    let mut seed = (address as u64).rotate_left(32);
    #[cfg(target_has_atomic = "ptr")]
    {
        use core::sync::atomic::{AtomicUsize, Ordering};
        static TABLES: AtomicUsize = AtomicUsize::new(0);
        seed ^= TABLES.fetch_add(1, Ordering::Relaxed) as u64;
    }
    #[cfg(feature = "std")]
    {
        use core::hash::BuildHasher;
        seed ^= std::collections::hash_map::RandomState::new().hash_one(seed);
    }
    seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    seed = (seed ^ (seed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    seed = (seed ^ (seed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    seed ^ (seed >> 31)
}
