//! The prefix: the full pages from page 0 up without a gap, as one flat array, so that a slot
//! there is one load, as in a flat sparse array.
//!
//! In a **versioned** set (keys whose slot and version identify them: an
//! [`Entity`](crate::entity::Entity)) each slot is `stride` words side by side: the stored value,
//! then the version of the key last stored in the slot, in `D::VERSION_WORDS` words (one for
//! `u32` and `usize`, two for `u16`, four for `u8`). One cache line then answers "is this key
//! here, and where". The version stays when the slot is emptied, so the set can refuse an older
//! version of a key it has seen (a handle kept past a despawn); a page that joins the prefix
//! brings the versions the set kept for its empty slots elsewhere (its graves: see the `set`
//! module; zero where none). In any other set `stride` is 1.
//!
//! # Invariant
//!
//! `words.len()` is a whole number of pages of `stride` words each; `stride` is 1, or
//! `1 + D::VERSION_WORDS` in a versioned set, and never changes.

use alloc::vec::Vec;

use crate::dense::DenseIndex;
use crate::error::{Error, shrink, try_reserve, try_reserve_exact};
use crate::pages::PAGE_LEN;

/// The prefix's words, `stride` per slot. See the module docs.
#[derive(Debug)]
pub(crate) struct Prefix<D> {
    words: Vec<D>,
    /// Words per slot.
    stride: usize,
    /// `words.len() / stride`, kept so that no lookup divides.
    slots: usize,
}

/// The bits of a version that one word of `D` holds.
const fn word_bits<D>() -> u32 {
    let bits = size_of::<D>() * 8;
    if bits < 32 { bits as u32 } else { 32 }
}

impl<D: DenseIndex> Prefix<D> {
    /// An empty prefix, versioned or not. Does not allocate.
    pub(crate) const fn new(versioned: bool) -> Self {
        Self { words: Vec::new(), stride: Self::stride_for(versioned), slots: 0 }
    }

    /// The words per slot of a prefix, versioned or not.
    pub(crate) const fn stride_for(versioned: bool) -> usize {
        if versioned { 1 + D::VERSION_WORDS } else { 1 }
    }

    /// The words per slot.
    #[inline]
    pub(crate) fn stride(&self) -> usize {
        self.stride
    }

    /// Whether each slot keeps a version beside its value.
    #[inline]
    pub(crate) fn is_versioned(&self) -> bool {
        self.stride > 1
    }

    /// The number of slots.
    #[inline]
    pub(crate) fn slots(&self) -> usize {
        self.slots
    }

    /// The number of pages.
    #[inline]
    pub(crate) fn pages(&self) -> usize {
        self.slots() / PAGE_LEN
    }

    /// The words of slot `at`, for a caller that knows the stride as a constant (so the
    /// multiplication folds); `None` past the prefix.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every lookup's path; see `Pages::get`")]
    pub(crate) fn cell(&self, at: usize, stride: usize) -> Option<&[D]> {
        self.cells(at, 1, stride)
    }

    /// The words of slot `at`, mutably, for a caller that knows the stride as a constant;
    /// `None` past the prefix.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every insert's and removal's path")]
    pub(crate) fn cell_mut(&mut self, at: usize, stride: usize) -> Option<&mut [D]> {
        self.cells_mut(at, 1, stride)
    }

    /// The words of the `count` slots from `at` on, `stride` per slot, for a caller that knows
    /// the stride as a constant; `None` unless all of them are in the prefix.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "the body of `cell`, on every lookup's path")]
    pub(crate) fn cells(&self, at: usize, count: usize, stride: usize) -> Option<&[D]> {
        debug_assert_eq!(stride, self.stride, "a prefix read with another stride");
        let start = at.checked_mul(stride)?;
        self.words.get(start..start.checked_add(count.checked_mul(stride)?)?)
    }

    /// [`cells`](Self::cells), mutably.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "the body of `cell_mut`, on every insert's path")]
    pub(crate) fn cells_mut(&mut self, at: usize, count: usize, stride: usize) -> Option<&mut [D]> {
        debug_assert_eq!(stride, self.stride, "a prefix written with another stride");
        let start = at.checked_mul(stride)?;
        self.words.get_mut(start..start.checked_add(count.checked_mul(stride)?)?)
    }

    /// Keeps `version` in the words of a slot (`cell`, as [`cell_mut`](Self::cell_mut) returns
    /// it, of a versioned prefix).
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the insert path of versioned keys")]
    pub(crate) fn set_version_in(cell: &mut [D], version: u32) {
        let bits = word_bits::<D>();
        let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
        for (i, word) in cell[1..].iter_mut().enumerate() {
            *word = D::from_usize(((version >> (bits * i as u32)) & mask) as usize);
        }
    }

    /// Every word, `stride` per slot.
    #[inline]
    pub(crate) fn words(&self) -> &[D] {
        &self.words
    }

    /// The value of slot `at`, mutably; `None` past the prefix.
    #[inline]
    pub(crate) fn value_mut(&mut self, at: usize) -> Option<&mut D> {
        let start = at.checked_mul(self.stride)?;
        if start.checked_add(self.stride)? > self.words.len() {
            return None;
        }
        self.words.get_mut(start)
    }

    /// The version kept in the words of a slot (`cell`, as [`cell`](Self::cell) returns it).
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on the lookup path of versioned keys")]
    pub(crate) fn version_in(cell: &[D]) -> u32 {
        let bits = word_bits::<D>();
        let mut version = 0;
        for (i, word) in cell[1..].iter().enumerate() {
            version |= (word.to_usize() as u32) << (bits * i as u32);
        }
        version
    }

    /// The version kept for slot `at`: zero past the prefix, in a prefix that is not versioned,
    /// or for a slot no key has been stored in (as far as the set remembers).
    #[inline]
    pub(crate) fn version(&self, at: usize) -> u32 {
        if self.stride == 1 {
            return 0;
        }
        self.cell(at, self.stride).map_or(0, Self::version_in)
    }

    /// Keeps `version` for slot `at`; nothing past the prefix or in a prefix that is not
    /// versioned.
    #[inline]
    pub(crate) fn set_version(&mut self, at: usize, version: u32) {
        if self.stride == 1 {
            return;
        }
        if let Some(cell) = self.cell_mut(at, self.stride) {
            Self::set_version_in(cell, version);
        }
    }

    /// Makes room for `pages` more pages.
    pub(crate) fn try_reserve_pages(&mut self, pages: usize) -> Result<(), Error> {
        let words = pages.checked_mul(PAGE_LEN * self.stride).ok_or(Error::CapacityOverflow)?;
        try_reserve(&mut self.words, words)
    }

    /// Makes room for exactly `pages` more pages.
    pub(crate) fn try_reserve_pages_exact(&mut self, pages: usize) -> Result<(), Error> {
        let words = pages.checked_mul(PAGE_LEN * self.stride).ok_or(Error::CapacityOverflow)?;
        try_reserve_exact(&mut self.words, words)
    }

    /// Appends a page holding `values`, its versions zero; the caller reserved the room.
    pub(crate) fn push_values(&mut self, values: &[D; PAGE_LEN]) {
        self.slots += PAGE_LEN;
        if self.stride == 1 {
            self.words.extend_from_slice(values);
            return;
        }
        // Zeroed in one go, then each slot's value: no per-word push.
        let start = self.words.len();
        self.words.resize(start + PAGE_LEN * self.stride, D::ZERO);
        for (cell, &value) in self.words[start..].chunks_exact_mut(self.stride).zip(values) {
            cell[0] = value;
        }
    }

    /// Appends a page of empty slots, their versions zero, in one write; the caller reserved
    /// the room.
    pub(crate) fn push_empty(&mut self) {
        self.slots += PAGE_LEN;
        self.words.resize(self.words.len() + PAGE_LEN * self.stride, D::ZERO);
    }

    /// The words of every slot from `from` on, one `stride`-long chunk per slot.
    pub(crate) fn cells_mut_from(&mut self, from: usize) -> core::slice::ChunksExactMut<'_, D> {
        let start = from.saturating_mul(self.stride).min(self.words.len());
        self.words[start..].chunks_exact_mut(self.stride)
    }

    /// Appends a page given as a prefix page's words (`stride` per slot), versions included;
    /// the caller reserved the room.
    pub(crate) fn push_words(&mut self, words: &[D]) {
        debug_assert_eq!(words.len(), PAGE_LEN * self.stride);
        self.slots += PAGE_LEN;
        self.words.extend_from_slice(words);
    }

    /// Every page's words, in page order.
    pub(crate) fn pages_words(&self) -> impl Iterator<Item = &[D]> + '_ {
        self.words.chunks_exact(PAGE_LEN * self.stride)
    }

    /// A copy, allocated fallibly.
    pub(crate) fn try_clone(&self) -> Result<Self, Error> {
        let mut words = Vec::new();
        try_reserve_exact(&mut words, self.words.len())?;
        words.extend_from_slice(&self.words);
        Ok(Self { words, ..*self })
    }

    /// Gives back memory past the words in use (see [`shrink`]).
    pub(crate) fn shrink(&mut self) {
        shrink(&mut self.words);
    }

    /// The bytes allocated.
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.words.capacity() * size_of::<D>()
    }

    /// Checks the invariant of the module docs.
    pub(crate) fn check(&self) {
        assert!(self.stride == 1 || self.stride == 1 + D::VERSION_WORDS, "a wrong stride");
        assert_eq!(self.words.len() % (PAGE_LEN * self.stride), 0, "the prefix ends inside a page");
        assert_eq!(self.slots * self.stride, self.words.len(), "the prefix miscounts its slots");
    }
}
