//! The versions a versioned set keeps for the slots outside its prefix that it has emptied, so
//! that it refuses an older version of a key there too (see "Stale keys" in the module docs).
//!
//! The prefix keeps a version beside each of its slots. Outside it (a page of at most a few
//! keys, a page the prefix has not reached, the hash lane) a slot holds only a dense position,
//! so a removal there leaves the removed key's version here: a paged sparse array of its own,
//! from slot to version, which follows the slots emptied, as the set's index follows the slots
//! held. `shrink_to_fit` buries here the versions of the emptied slots of the prefix pages it
//! releases. A set with no such removal, a set that is not versioned, and a bounded set (whose
//! prefix covers its whole key range) never allocate one.
//!
//! # Invariant
//!
//! Only a versioned set has graves. No grave lies in the set's prefix (a page that joins it
//! takes its graves' versions into its cells, `SparseSet::fill_versions`). Every grave's
//! version is non-zero (zero reads as none), and a slot that a key holds again has a grave no
//! newer than that key.

use alloc::vec::Vec;

use crate::error::{Error, try_reserve_exact};
use crate::pages::Pages;

/// See the module docs. Holds no pages (no allocation) until the first grave.
#[derive(Debug)]
pub(crate) struct Graves {
    /// None, or one paged array from slot to version: a `Vec` so that its allocation can fail
    /// without aborting.
    pages: Vec<Pages<u32>>,
}

impl Graves {
    /// No graves. Does not allocate.
    pub(crate) const fn new() -> Self {
        Self { pages: Vec::new() }
    }

    /// The version last removed from `slot` (zero if none is kept).
    #[inline]
    pub(crate) fn version(&self, slot: u64) -> u32 {
        self.pages.first().map_or(0, |pages| pages.get(slot))
    }

    /// Keeps `version` as the one last removed from `slot`, unless a newer one is kept. Where
    /// the memory for it cannot be had, keeps nothing: a removal never fails.
    #[cold]
    pub(crate) fn bury(&mut self, slot: u64, version: u32) {
        if version == 0 {
            return;
        }
        if self.pages.is_empty() {
            if try_reserve_exact(&mut self.pages, 1).is_err() {
                return;
            }
            self.pages.push(Pages::new(false));
        }
        let pages = &mut self.pages[0];
        let (kept, place) = pages.lookup_in(slot, 1);
        if kept == 0 {
            // A failed allocation keeps nothing, as above.
            pages.insert_at(place, version).ok();
        } else if kept < version {
            pages.set(slot, version);
        }
    }

    /// Takes the version kept for `slot` (zero if none), for a slot that joins the prefix.
    #[inline]
    pub(crate) fn take(&mut self, slot: u64) -> u32 {
        self.pages.first_mut().map_or(0, |pages| pages.take(slot))
    }

    /// Whether there are no graves' pages: none dug yet, or all released by
    /// [`shrink`](Self::shrink).
    #[inline]
    pub(crate) fn is_unused(&self) -> bool {
        self.pages.is_empty()
    }

    /// Releases the pages whose graves all moved into the prefix, and the graves' pages
    /// altogether when none is left (`shrink_to_fit`).
    pub(crate) fn shrink(&mut self) {
        if let Some(pages) = self.pages.first_mut() {
            pages.release_empty_pages();
            if pages.page_count() == 0 {
                self.pages = Vec::new();
            }
        }
    }

    /// A copy, allocated fallibly.
    pub(crate) fn try_clone(&self) -> Result<Self, Error> {
        let mut pages = Vec::new();
        if let Some(kept) = self.pages.first() {
            try_reserve_exact(&mut pages, 1)?;
            pages.push(kept.try_clone()?);
        }
        Ok(Self { pages })
    }

    /// Bytes held.
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.pages.capacity() * size_of::<Pages<u32>>()
            + self.pages.first().map_or(0, Pages::allocated_bytes)
    }

    /// Checks the pages' own invariants and that no grave lies below `prefix_slots` (slot by
    /// slot, so only where graves exist). The set checks each held slot's grave against its
    /// key.
    pub(crate) fn check(&self, prefix_slots: usize, versioned: bool) {
        let Some(pages) = self.pages.first() else { return };
        assert!(versioned, "a set that is not versioned keeps graves");
        pages.check();
        for slot in 0..prefix_slots as u64 {
            assert_eq!(pages.get(slot), 0, "slot {slot} of the prefix has a grave");
        }
    }
}
