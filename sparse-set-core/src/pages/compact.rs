//! A compact page: up to `COMPACT_LEN` (offset, value) pairs, read by a branch-free scan (the
//! module docs' invariant 4).

use crate::dense::DenseIndex;
use crate::pages::{COMPACT_LEN, PAGE_LEN, VACANT};

/// Up to `COMPACT_LEN` non-zero slots of a page, unordered; unused entries have offset `VACANT`
/// and value zero.
#[derive(Clone, Copy, Debug)]
pub(super) struct Compact<D> {
    pub(super) offsets: [u16; COMPACT_LEN],
    pub(super) values: [D; COMPACT_LEN],
}

impl<D: DenseIndex> Compact<D> {
    pub(super) const EMPTY: Self =
        Self { offsets: [VACANT; COMPACT_LEN], values: [D::ZERO; COMPACT_LEN] };

    /// Branch-free (masks, not jumps) so the scan vectorises and never mispredicts: at most one
    /// entry matches, so OR-ing the masked values yields it.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every lookup's path; see `Pages::get`")]
    pub(super) fn get(&self, offset: usize) -> D {
        let mut found = 0;
        for (&at, &value) in self.offsets.iter().zip(&self.values) {
            let mask = usize::from(usize::from(at) == offset).wrapping_neg();
            found |= value.to_usize() & mask;
        }
        D::from_usize(found)
    }

    pub(super) fn position(&self, offset: usize) -> Option<usize> {
        self.offsets.iter().position(|&at| usize::from(at) == offset)
    }

    pub(super) fn len(&self) -> usize {
        self.offsets.iter().filter(|&&at| at != VACANT).count()
    }

    /// Stores a new slot; `false` if all entries are in use.
    pub(super) fn try_insert(&mut self, offset: usize, value: D) -> bool {
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
    pub(super) fn fill(&self, values: &mut [D; PAGE_LEN]) {
        for (&at, &stored) in self.offsets.iter().zip(&self.values) {
            if at != VACANT {
                values[usize::from(at)] = stored;
            }
        }
    }

    /// Checks invariant 4 of the module docs: distinct offsets in the page, non-zero values,
    /// unused entries zero.
    pub(super) fn check(&self) {
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
    pub(super) fn from_full(values: &[D; PAGE_LEN]) -> Option<Self> {
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
