//! The coalesced view of a [`Journal`](crate::observe::Journal): [`Patch`], the rows a copy
//! mirror copies, as ranges ([`DirtyRanges`]) or one by one ([`DirtyRows`]).
//!
//! # Invariant
//!
//! The rows yielded are the set bits below `fresh`, then every row from `fresh` to `len`, each
//! once, ascending; ranges are disjoint and never adjacent.

use core::iter::FusedIterator;
use core::ops::Range;

/// The coalesced view of a [`Journal`](crate::observe::Journal): the rows a copy mirror copies to catch up.
#[derive(Clone, Copy, Debug)]
pub struct Patch<'a> {
    /// The dirty bits of the rows below `fresh`.
    dirty: &'a [u64],
    /// Every row from here to `len` was pushed: dirty.
    fresh: usize,
    len: usize,
}

impl<'a> Patch<'a> {
    /// The patch of `dirty` bits below `fresh`, the pushed rows from `fresh` to `len`.
    pub(super) fn new(dirty: &'a [u64], fresh: usize, len: usize) -> Self {
        debug_assert!(fresh <= len && dirty.len() <= fresh.div_ceil(64));
        Self { dirty, fresh, len }
    }

    /// The storage's length: the mirror's length after the patch.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Journal;
    /// assert_eq!(Journal::<u32>::new().patch().len(), 0);
    /// ```
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the storage is empty.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Journal;
    /// assert!(Journal::<u32>::new().patch().is_empty());
    /// ```
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many rows the mirror copies: at most [`len`](Self::len).
    ///
    /// Computes in **O(len / 64)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Journal;
    /// assert_eq!(Journal::<u32>::new().patch().dirty_rows(), 0);
    /// ```
    #[must_use]
    pub fn dirty_rows(&self) -> usize {
        let marked = (0..self.dirty.len())
            .map(|word| word_at(self.dirty, self.fresh, word).count_ones() as usize)
            .sum::<usize>();
        marked + (self.len - self.fresh)
    }

    /// Whether every row is dirty: a full upload costs what the patch does.
    ///
    /// Computes in **O(len / 64)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Journal;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Journal<u32>>::default();
    /// map.insert(1, 0);
    /// assert!(map.observer().patch().is_everything());
    /// ```
    #[must_use]
    pub fn is_everything(&self) -> bool {
        self.dirty_rows() == self.len
    }

    /// The dirty rows as ascending, disjoint, non-adjacent ranges: one copy each.
    ///
    /// Computes in **O(len / 64 + ranges)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Journal;
    /// assert_eq!(Journal::<u32>::new().patch().ranges().count(), 0);
    /// ```
    #[must_use]
    pub fn ranges(&self) -> DirtyRanges<'a> {
        DirtyRanges { rows: self.rows() }
    }

    /// The dirty rows one by one, ascending: a scatter list.
    ///
    /// Computes in **O(len / 64 + dirty rows)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Journal;
    /// assert_eq!(Journal::<u32>::new().patch().rows().count(), 0);
    /// ```
    #[must_use]
    pub fn rows(&self) -> DirtyRows<'a> {
        let bits = if self.dirty.is_empty() { 0 } else { word_at(self.dirty, self.fresh, 0) };
        DirtyRows {
            words: self.dirty,
            fresh: self.fresh,
            word: 0,
            bits,
            tail: self.fresh..self.len,
        }
    }
}

/// Word `word` of the dirty bits below `fresh`, without the bits at or past it.
#[inline]
fn word_at(words: &[u64], fresh: usize, word: usize) -> u64 {
    let bits = words[word];
    let end = fresh - word * 64;
    if end < 64 { bits & ((1 << end) - 1) } else { bits }
}

/// The dirty rows of a [`Patch`], one by one, ascending.
#[derive(Clone, Debug)]
pub struct DirtyRows<'a> {
    words: &'a [u64],
    fresh: usize,
    word: usize,
    bits: u64,
    /// The pushed rows, after the marked ones.
    tail: Range<usize>,
}

impl DirtyRows<'_> {
    /// Moves to the next word with a set bit; `false` when the marked rows are done.
    #[inline]
    fn load(&mut self) -> bool {
        while self.bits == 0 {
            if self.word + 1 >= self.words.len() {
                return false;
            }
            self.word += 1;
            self.bits = word_at(self.words, self.fresh, self.word);
        }
        true
    }
}

impl Iterator for DirtyRows<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if !self.load() {
            return self.tail.next();
        }
        let bit = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.word * 64 + bit)
    }
}

impl FusedIterator for DirtyRows<'_> {}

/// The dirty rows of a [`Patch`] as ascending ranges.
#[derive(Clone, Debug)]
pub struct DirtyRanges<'a> {
    rows: DirtyRows<'a>,
}

impl Iterator for DirtyRanges<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let rows = &mut self.rows;
        if !rows.load() {
            let tail = core::mem::replace(&mut rows.tail, 0..0);
            return (!tail.is_empty()).then_some(tail);
        }
        // The run of set bits from the lowest one, within this word and on through the next.
        let first = rows.bits.trailing_zeros();
        let run = (!(rows.bits >> first)).trailing_zeros().min(64 - first);
        let start = rows.word * 64 + first as usize;
        let mut end = start + run as usize;
        if first + run < 64 {
            rows.bits &= !(((1u64 << run) - 1) << first);
        } else {
            rows.bits = 0;
            while rows.word + 1 < rows.words.len() {
                rows.word += 1;
                let bits = word_at(rows.words, rows.fresh, rows.word);
                let run = (!bits).trailing_zeros();
                end += run as usize;
                if run < 64 {
                    rows.bits = bits & !((1u64 << run) - 1);
                    break;
                }
            }
        }
        // A run that reaches the pushed rows goes on through them.
        let end = end.min(rows.fresh);
        if end == rows.fresh && !rows.tail.is_empty() {
            let tail = core::mem::replace(&mut rows.tail, 0..0);
            return Some(start..tail.end);
        }
        Some(start..end)
    }
}

impl FusedIterator for DirtyRanges<'_> {}
