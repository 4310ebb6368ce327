//! [`Journal`]: the move journal a mirror drains. It records the storage's changes two ways at
//! once:
//!
//! - **in order** ([`Journal::changes`]), for mirrors that hold state of their own (a spatial
//!   index, a GPU buffer moved by copies): push, replace, write, swap-remove, swap, permute,
//!   truncate. Past its byte limit the journal drops them and says [`Resync`];
//! - **coalesced** ([`Journal::patch`]), for copy mirrors: one dirty bit per row, so a mirror
//!   copies the rows written or moved into since it last synced, and never more than a full
//!   upload.
//!
//! # Invariant
//!
//! With `mirror` the storage's rows when [`Journal::clear`] was last called (or when the journal
//! was attached to an empty storage):
//!
//! - unless [`resync`](Journal::is_resync) is set, replaying [`changes`](Journal::changes) on
//!   `mirror`'s keys gives the storage's keys;
//! - `len` is the storage's length and `fresh <= len`: every row at or past `fresh` was pushed
//!   since the mirror synced (a push costs no bit), and every row below `fresh` whose dirty bit
//!   is clear holds what `mirror` holds there. The bits cover every row below `fresh` (`clear`
//!   sizes them to the length, and `fresh` only falls until the next `clear`); bits at or past
//!   `fresh` mean nothing (rows that leave keep their bits; `clear` zeroes them);
//! - the recorded operations take at most `limit` bytes, and `resync` is set exactly when they
//!   would have taken more;
//! - the recorded operations are `ops[..count]`, and `count <= ops.len() <= max_ops`: the slots
//!   past `count` are room written ahead (a record is one comparison and a store), never more
//!   than the limit (and, when fixed, the allocation) allows.

mod changes;
mod patch;

use alloc::vec::Vec;
use core::fmt;
use core::mem::size_of;
use core::ops::Range;

use crate::error::{clone_with_room, fail, reserve_exact_or_fail, try_reserve, try_reserve_exact};
use crate::observe::Observer;
use crate::observe::journal::changes::{ORDER_PER_OP, Op};
use crate::permutation::Permutation;
use crate::removed::Removed;

pub use changes::{Change, Changes, Order, Resync};
pub use patch::{DirtyRanges, DirtyRows, Patch};

/// What a journal records by default before it asks for a resync: 1 MiB.
const DEFAULT_LIMIT: usize = 1 << 20;

/// The operations a growing journal makes room for at least.
const MIN_ROOM: usize = 16;

/// How many rows may lie between the writes one [`Change::Write`] covers: rows handed out one
/// by one in ascending order (a query's walk) with gaps of at most this are one operation.
const WRITE_GAP: u32 = 64;

/// A move journal: the [`Observer`] a mirror of a storage drains, through the ordered
/// [`changes`](Self::changes) or the coalesced [`patch`](Self::patch), then [`clear`s](Self::clear).
///
/// It holds the ordered operations up to a byte limit ([`new`](Self::new): 1 MiB), past which it
/// stops recording them and reports [`Resync`]; and one dirty bit per row, which never overflows.
/// An operation takes 12 bytes with `u32` keys and 16 with `u64` and
/// [`Entity`](crate::Entity) keys; a sort records one permutation at 6 bytes per row (8 with
/// `u64` and `Entity` keys: two positions an operation), and nothing when it moves no row.
///
/// ```
/// use sparse_set_core::SparseMap;
/// use sparse_set_core::observe::Journal;
///
/// let mut map = SparseMap::<u32, f32, u32, Journal<u32>>::default();
/// let mut mirror: Vec<f32> = Vec::new(); // stands in for a GPU buffer
///
/// map.insert(1, 1.0);
/// map.insert(2, 2.0);
/// map.insert(3, 3.0);
/// map.remove(1); // 3 moves into position 0
/// *map.get_mut(2).unwrap() = 20.0;
///
/// let patch = map.observer().patch();
/// mirror.resize(patch.len(), 0.0);
/// for rows in patch.ranges() {
///     mirror[rows.clone()].copy_from_slice(&map.values()[rows]);
/// }
/// map.observer_mut().clear();
/// assert_eq!(mirror, map.values());
/// ```
pub struct Journal<K> {
    /// The operations recorded, `ops[..count]`, then room written ahead.
    ops: Vec<Op<K>>,
    count: usize,
    limit: usize,
    /// How many operations fit the limit (and, when fixed, the capacity).
    max_ops: usize,
    /// Made by [`Journal::bounded`]: the operations never allocate past their capacity.
    fixed: bool,
    resync: bool,
    len: usize,
    /// Every row at or past it was pushed since the last clear.
    fresh: usize,
    dirty: Vec<u64>,
}

impl<K: Copy> Journal<K> {
    /// A journal that records up to 1 MiB of operations before it asks for a resync. Does not
    /// allocate.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Journal;
    /// let journal = Journal::<u32>::new();
    /// assert_eq!(journal.limit(), 1 << 20);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self::with_limit(DEFAULT_LIMIT)
    }

    /// A journal that records up to `bytes` of operations, then asks for a resync. Does not
    /// allocate.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Journal;
    ///
    /// let mut map = SparseMap::<u32, u8>::new().observed_by(Journal::with_limit(64));
    /// map.extend((0..100).map(|key| (key, 0)));
    /// assert!(map.observer().is_resync()); // 100 pushes take 1,200 bytes
    /// assert_eq!(map.observer().patch().dirty_rows(), 100); // the dirty bits are exact
    /// ```
    #[must_use]
    pub const fn with_limit(bytes: usize) -> Self {
        Self {
            ops: Vec::new(),
            count: 0,
            limit: bytes,
            max_ops: bytes / size_of::<Op<K>>(),
            fixed: false,
            resync: false,
            len: 0,
            fresh: 0,
            dirty: Vec::new(),
        }
    }

    /// A journal that allocates and writes room for `bytes` of operations here and never
    /// allocates for them again: past it, it asks for a resync. Attached to a bounded storage
    /// (through [`observed_by`](crate::SparseMap::observed_by)) it also sizes its dirty bits
    /// for the storage's capacity then, so it never allocates after that call.
    ///
    /// Computes in **O(`bytes`)** time.
    ///
    /// # Panics
    ///
    /// If the allocation fails.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Journal;
    ///
    /// let map = SparseMap::<u32, f32, u16>::bounded(1000, 1000).observed_by(Journal::bounded(4096));
    /// assert_eq!(map.observer().limit(), 4096);
    /// ```
    #[must_use]
    pub fn bounded(bytes: usize) -> Self {
        let mut journal = Self::with_limit(bytes);
        reserve_exact_or_fail(&mut journal.ops, journal.max_ops);
        journal.fixed = true;
        journal.open();
        journal.room(journal.max_ops);
        journal
    }

    /// How many bytes of operations the journal records before it asks for a resync.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Journal;
    /// assert_eq!(Journal::<u32>::with_limit(100).limit(), 100);
    /// ```
    #[must_use]
    pub const fn limit(&self) -> usize {
        self.limit
    }

    /// How many bytes the recorded operations take.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Journal;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Journal<u32>>::default();
    /// map.insert(1, 1);
    /// map.insert(2, 2);
    /// assert_eq!(map.observer().bytes(), 24); // two pushes of 12 bytes
    /// ```
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.count * size_of::<Op<K>>()
    }

    /// Whether the operations passed the limit since the last [`clear`](Self::clear) (or the
    /// journal was attached to a storage holding rows already): the ordered
    /// [`changes`](Self::changes) are gone, and a mirror that needs them rebuilds from the
    /// storage. The coalesced [`patch`](Self::patch) stays exact.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Journal;
    /// assert!(!Journal::<u32>::new().is_resync());
    /// ```
    #[must_use]
    pub const fn is_resync(&self) -> bool {
        self.resync
    }

    /// The storage's length, as the journal saw it last.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Journal;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Journal<u32>>::default();
    /// map.insert(7, 0);
    /// assert_eq!(map.observer().len(), 1);
    /// ```
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the storage is empty, as the journal saw it last.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Journal;
    /// assert!(Journal::<u32>::new().is_empty());
    /// ```
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The operations since the last [`clear`](Self::clear), in order; or [`Resync`] when they
    /// passed the limit.
    ///
    /// Computes in **O(1)** time; the iterator runs in O(operations).
    ///
    /// # Errors
    ///
    /// [`Resync`] when the operations passed the journal's limit, or it was attached to a
    /// storage holding rows: rebuild the mirror from the storage, then [`clear`](Self::clear).
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::{Change, Journal};
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Journal<u32>>::default();
    /// let mut mirror: Vec<u32> = Vec::new(); // the keys, as a mirror holds them
    /// map.insert(1, 0);
    /// map.insert(2, 0);
    /// map.remove(1);
    /// for change in map.observer().changes().unwrap() {
    ///     match change {
    ///         Change::Push { key } => mirror.push(key),
    ///         Change::SwapRemove { index } => { mirror.swap_remove(index); }
    ///         _ => unreachable!(),
    ///     }
    /// }
    /// assert_eq!(mirror, map.keys());
    /// ```
    pub fn changes(&self) -> Result<Changes<'_, K>, Resync> {
        if self.resync {
            Err(Resync { limit: self.limit })
        } else {
            Ok(Changes::new(self.recorded()))
        }
    }

    /// The coalesced view: which rows a copy mirror copies to catch up since the last
    /// [`clear`](Self::clear). Exact whatever the limit.
    ///
    /// Computes in **O(1)** time; its iterators run in O(len / 64 + dirty rows).
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Journal;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Journal<u32>>::default();
    /// map.extend((0..10).map(|key| (key, 0)));
    /// map.observer_mut().clear(); // the mirror holds all ten rows
    /// map.remove(3); // 9 moves into position 3
    /// map[5] = 1;
    /// let patch = map.observer().patch();
    /// assert_eq!(patch.len(), 9);
    /// assert_eq!(patch.ranges().collect::<Vec<_>>(), [3..4, 5..6]);
    /// assert_eq!(patch.rows().collect::<Vec<_>>(), [3, 5]);
    /// ```
    #[must_use]
    pub fn patch(&self) -> Patch<'_> {
        let words = self.fresh.div_ceil(64).min(self.dirty.len());
        Patch::new(&self.dirty[..words], self.fresh, self.len)
    }

    /// Marks the mirror in sync with the storage: drops the operations and the dirty bits, and
    /// the resync request. Keeps the memory.
    ///
    /// Computes in **O(operations + len / 64)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Journal;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Journal<u32>>::default();
    /// map.insert(1, 0);
    /// map.observer_mut().clear();
    /// assert_eq!(map.observer().changes().unwrap().count(), 0);
    /// assert_eq!(map.observer().patch().dirty_rows(), 0);
    /// ```
    pub fn clear(&mut self) {
        // The bits' room first, so a failed allocation panics with the journal unchanged.
        let words = self.len.div_ceil(64);
        let missing = words.saturating_sub(self.dirty.len());
        if let Err(error) = try_reserve(&mut self.dirty, missing) {
            fail(error);
        }
        self.count = 0;
        self.resync = false;
        self.open();
        // The bits cover every row below `fresh`, which only falls until the next clear: a
        // mark never needs to grow them. (Resized here, once a sync, as the storage grew.)
        self.dirty.clear();
        self.dirty.resize(words, 0);
        self.fresh = self.len;
    }

    /// Makes room for the operations the limit allows (and, when fixed, the capacity holds).
    fn open(&mut self) {
        self.max_ops = self.limit / size_of::<Op<K>>();
        if self.fixed {
            self.max_ops = self.max_ops.min(self.ops.capacity());
        }
    }

    /// The operations recorded since the last clear.
    fn recorded(&self) -> &[Op<K>] {
        &self.ops[..self.count]
    }

    /// The last operation recorded, to extend.
    #[inline]
    fn last_mut(&mut self) -> Option<&mut Op<K>> {
        self.ops.get_mut(self.count.checked_sub(1)?)
    }

    /// Records `op` unless that passes the limit (or the fixed capacity), which turns the
    /// journal into a resync request instead.
    #[inline]
    fn record(&mut self, op: Op<K>) {
        // Past the limit the room is gone and every operation comes here: it stops at the flag,
        // without the call.
        if self.count >= self.ops.len() && (self.resync || !self.room_for_one()) {
            return;
        }
        // Not `put`: its index would keep a bound check (and a panic path) in the loop.
        if let Some(slot) = self.ops.get_mut(self.count) {
            *slot = op;
            self.count += 1;
        }
    }

    /// [`room`](Self::room) for one more operation, out of the recording path.
    #[cold]
    #[inline(never)]
    fn room_for_one(&mut self) -> bool {
        self.room(1)
    }

    /// Writes `op` in the room [`room`](Self::room) made.
    fn put(&mut self, op: Op<K>) {
        self.ops[self.count] = op;
        self.count += 1;
    }

    /// Whether `count` more operations fit, writing room for them ahead; if not, drops the
    /// operations and asks for a resync. (After a resync the operations and their room are
    /// empty, and `max_ops` is zero until the next clear.)
    fn room(&mut self, count: usize) -> bool {
        let needed = self.count.saturating_add(count);
        if needed <= self.ops.len() {
            return true;
        }
        if needed > self.max_ops {
            self.ask_resync();
            return false;
        }
        // Doubling, as a `Vec`'s pushes grow; never past `max_ops`, which a fixed journal's
        // allocation holds.
        let room = needed.max(self.ops.len() * 2).max(MIN_ROOM).min(self.max_ops);
        // Memory the journal cannot have is a limit too: it asks for a resync, never aborts.
        let missing = room - self.ops.len();
        if try_reserve_exact(&mut self.ops, missing).is_err() {
            self.ask_resync();
            return false;
        }
        self.ops.resize(room, Op::Truncate(0));
        true
    }

    #[cold]
    fn ask_resync(&mut self) {
        self.resync = true;
        self.count = 0;
        self.ops.clear();
        self.max_ops = 0;
    }

    /// `index` as a recorded position. While the journal records, the storage is at most
    /// `u32::MAX` rows long (a push past it asks for a resync), so every position and every end
    /// of a range fits; once it stopped recording, the value does not matter.
    #[inline]
    #[expect(clippy::cast_possible_truncation, reason = "see above: it fits while it matters")]
    const fn at(index: usize) -> u32 {
        index as u32
    }

    #[inline]
    fn mark(&mut self, index: usize) {
        // A row past the bits is at or past `fresh`: dirty already.
        if let Some(bits) = self.dirty.get_mut(index / 64) {
            *bits |= 1 << (index % 64);
        }
    }

    fn mark_range(&mut self, rows: Range<usize>) {
        // Row by row inside the edge words, whole words between them.
        let mut index = rows.start;
        while index < rows.end {
            if index % 64 == 0 && rows.end - index >= 64 {
                if let Some(bits) = self.dirty.get_mut(index / 64) {
                    *bits = u64::MAX;
                }
                index += 64;
            } else {
                self.mark(index);
                index += 1;
            }
        }
    }
}

impl<K: Copy> Default for Journal<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Copy> Clone for Journal<K> {
    /// A copy; a [`bounded`](Journal::bounded) journal's copy has the same fixed room, reserved
    /// here.
    fn clone(&self) -> Self {
        let mut ops = Vec::new();
        reserve_exact_or_fail(&mut ops, if self.fixed { self.ops.capacity() } else { self.count });
        ops.extend_from_slice(self.recorded());
        let dirty = clone_with_room(&self.dirty, self.fixed);
        Self {
            ops,
            count: self.count,
            limit: self.limit,
            max_ops: self.max_ops,
            fixed: self.fixed,
            resync: self.resync,
            len: self.len,
            fresh: self.fresh,
            dirty,
        }
    }
}

impl<K: Copy + fmt::Debug> fmt::Debug for Journal<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Journal")
            .field("len", &self.len)
            .field("operations", &self.count)
            .field("bytes", &self.bytes())
            .field("limit", &self.limit)
            .field("resync", &self.resync)
            .finish_non_exhaustive()
    }
}

impl<K: Copy, V> Observer<K, V> for Journal<K> {
    fn attached(&mut self, keys: &[K], bound: Option<usize>) {
        self.clear();
        if let Some(capacity) = bound {
            let words = capacity.div_ceil(64);
            let missing = words.saturating_sub(self.dirty.len());
            reserve_exact_or_fail(&mut self.dirty, missing);
        }
        // The mirror cannot hold rows the journal never saw: it rebuilds, and every row counts as
        // pushed.
        if !keys.is_empty() {
            self.ask_resync();
        }
        self.len = keys.len();
        self.fresh = 0;
    }

    #[inline]
    fn inserted(&mut self, key: K, index: usize, _value: &V) {
        debug_assert_eq!(index, self.len, "a push lands at the end");
        if index >= u32::MAX as usize {
            // Positions past this one could not be recorded.
            self.ask_resync();
        }
        self.record(Op::Push(key));
        self.len = index + 1;
    }

    #[inline]
    fn replaced(&mut self, key: K, index: usize, _old: &V, _new: &V) {
        self.record(Op::Replace(Self::at(index), key));
        self.mark(index);
    }

    #[inline]
    fn removed(&mut self, _key: K, _value: &V, removed: Removed<K>) {
        match removed.moved {
            Some(moved) => {
                debug_assert_eq!(moved.from + 1, self.len, "the last row moves");
                self.record(Op::SwapRemove(Self::at(removed.index)));
                self.mark(removed.index);
                // The last row's position is the new length.
                self.len = moved.from;
                if moved.from < self.fresh {
                    self.fresh = moved.from;
                }
            }
            // The rows from `index` on are gone; during a drain the later rows are gone already.
            None if removed.index < self.len => {
                let position = Self::at(removed.index);
                match self.last_mut() {
                    // Pops in a row are one truncation.
                    Some(Op::Truncate(len)) if *len > position => *len = position,
                    _ => self.record(Op::Truncate(position)),
                }
                self.len = removed.index;
                self.fresh = self.fresh.min(self.len);
            }
            None => {}
        }
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "a row's event, in a query's loop")]
    fn written(&mut self, rows: Range<usize>) {
        if rows.is_empty() {
            return;
        }
        let (start, end) = (Self::at(rows.start), Self::at(rows.end));
        let len = self.len;
        match self.last_mut() {
            // A row written again, as a loop of `get_mut` on one key does.
            Some(Op::Write(a, b)) if *a <= start && end <= *b => {}
            // Rows after those written last and near them, as a query's walk hands them out
            // (its filters skip a few): one operation for the run, gaps included.
            Some(Op::Write(a, b)) if *a <= start && start <= b.saturating_add(WRITE_GAP) => {
                *b = end.max(*b);
            }
            // The row just pushed, handed out by the entry API: the push covers it.
            Some(Op::Push(_)) if rows.start + 1 == len && rows.end == len => {}
            _ => self.record(Op::Write(start, end)),
        }
        if rows.len() == 1 {
            self.mark(rows.start);
        } else {
            self.mark_range(rows);
        }
    }

    #[inline]
    fn swapped(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        self.record(Op::Swap(Self::at(a), Self::at(b)));
        self.mark(a);
        self.mark(b);
    }

    fn permuted(&mut self, permutation: &Permutation) {
        let order = permutation.order();
        let mut moved = 0;
        for (new, _) in order.iter().enumerate().filter(|&(new, &old)| new != old) {
            self.mark(new);
            moved += 1;
        }
        // A permutation that moves nothing (a sort of sorted rows) is not recorded.
        if moved == 0 || !self.room(1 + order.len().div_ceil(ORDER_PER_OP)) {
            return;
        }
        self.put(Op::Permute(Self::at(order.len())));
        for chunk in order.chunks(ORDER_PER_OP) {
            let mut pair = [0; ORDER_PER_OP];
            for (slot, &old) in pair.iter_mut().zip(chunk) {
                *slot = Self::at(old);
            }
            self.put(Op::Order(pair));
        }
    }
}

#[cfg(test)]
#[expect(clippy::single_range_in_vec_init, reason = "lists of written ranges")]
mod tests {
    use alloc::vec::Vec;

    use core::mem::size_of;

    use super::Journal;
    use crate::observe::Observer;
    use crate::observe::journal::changes::Op;
    use crate::permutation::Permutation;
    use crate::removed::Removed;

    /// A journal of `len` pushed rows, synced, then `written` rows marked.
    fn journal(len: usize, written: &[core::ops::Range<usize>]) -> Journal<u32> {
        let mut journal = Journal::new();
        for index in 0..len {
            Observer::<u32, ()>::inserted(&mut journal, 0, index, &());
        }
        journal.clear();
        for rows in written {
            Observer::<u32, ()>::written(&mut journal, rows.clone());
        }
        journal
    }

    /// The room written ahead stays between the operations recorded and the limit; resync is
    /// asked exactly when the operations pass the limit; a fixed journal never reallocates,
    /// also through a resync and the clear after it.
    #[test]
    fn the_room_stays_within_the_limit() {
        let op = size_of::<Op<u32>>();
        let steps = if cfg!(miri) { 40 } else { 400 };
        let mut state = 0x9E37_79B9_u32;
        let mut next = |below: usize| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as usize % below
        };
        for limit_ops in [0, 1, 2, 3, 5, 8, 13, 40] {
            for fixed in [false, true] {
                let bytes = limit_ops * op + next(op);
                let mut journal =
                    if fixed { Journal::<u32>::bounded(bytes) } else { Journal::with_limit(bytes) };
                let allocation = (journal.ops.as_ptr(), journal.ops.capacity());
                // Operations recorded (a permutation takes several) and the changes they read as.
                let (mut recorded, mut changes, mut len) = (0, 0, 0);
                for _ in 0..steps {
                    match next(8) {
                        0..=3 => {
                            Observer::<u32, ()>::inserted(&mut journal, 0, len, &());
                            len += 1;
                            recorded += 1;
                            changes += 1;
                        }
                        4 | 5 if len > 1 => {
                            let (a, b) = (next(len), next(len));
                            Observer::<u32, ()>::swapped(&mut journal, a, b);
                            recorded += usize::from(a != b);
                            changes += usize::from(a != b);
                        }
                        6 if len > 0 => {
                            let salt = next(len);
                            let permutation = Permutation::sorted_by_key(len, |i| i ^ salt);
                            Observer::<u32, ()>::permuted(&mut journal, &permutation);
                            // A permutation that moves nothing (a salt of 0) is not recorded.
                            let moves = salt != 0;
                            recorded += if moves { 1 + len.div_ceil(2) } else { 0 };
                            changes += usize::from(moves);
                        }
                        _ => {
                            journal.clear();
                            (recorded, changes) = (0, 0);
                        }
                    }
                    let case = (limit_ops, fixed, recorded);
                    assert!(journal.count <= journal.ops.len(), "{case:?}");
                    assert!(journal.ops.len() <= journal.max_ops, "{case:?}");
                    assert_eq!(journal.is_resync(), recorded > limit_ops, "{case:?}");
                    if !journal.is_resync() {
                        assert_eq!(journal.bytes(), recorded * op, "{case:?}");
                        assert_eq!(journal.changes().unwrap().count(), changes, "{case:?}");
                    }
                    if fixed {
                        assert_eq!((journal.ops.as_ptr(), journal.ops.capacity()), allocation);
                    }
                }
            }
        }
    }

    #[test]
    fn ranges_are_the_runs_of_the_rows() {
        let cases: [&[core::ops::Range<usize>]; 6] = [
            &[],
            &[0..1],
            &[3..64, 64..65],
            &[0..300],
            &[5..9, 63..129, 130..131, 191..192, 256..299],
            &[0..64, 128..192, 299..300],
        ];
        for written in cases {
            let journal = journal(300, written);
            let patch = journal.patch();
            let from_ranges: Vec<usize> = patch.ranges().flatten().collect();
            let rows: Vec<usize> = patch.rows().collect();
            let expected: Vec<usize> = {
                let mut rows: Vec<usize> = written.iter().cloned().flatten().collect();
                rows.sort_unstable();
                rows.dedup();
                rows
            };
            assert_eq!(rows, expected, "{written:?}");
            assert_eq!(from_ranges, expected, "{written:?}");
            assert_eq!(patch.dirty_rows(), expected.len());
            // Ranges are disjoint and never adjacent.
            let ranges: Vec<_> = patch.ranges().collect();
            assert!(ranges.windows(2).all(|pair| pair[0].end < pair[1].start), "{ranges:?}");
        }
    }

    #[test]
    fn rows_past_the_end_do_not_count() {
        let mut journal = journal(200, &[150..200]);
        for index in (100..200).rev() {
            let removed = Removed { index, moved: None };
            Observer::<u32, ()>::removed(&mut journal, 0, &(), removed);
        }
        assert_eq!(journal.patch().len(), 100);
        assert_eq!(journal.patch().dirty_rows(), 0);
        assert_eq!(journal.patch().ranges().count(), 0);
        // The rows come back: pushed, so dirty again.
        for index in 100..130 {
            Observer::<u32, ()>::inserted(&mut journal, 0, index, &());
        }
        assert_eq!(journal.patch().ranges().collect::<Vec<_>>(), [100..130]);
    }

    #[test]
    fn pushed_rows_join_the_run_before_them() {
        for (written, expected) in [
            (&[90..100][..], &[90..110][..]),
            (&[50..60][..], &[50..60, 100..110][..]),
            (&[][..], &[100..110][..]),
            (&[0..100][..], &[0..110][..]),
        ] {
            let mut journal = journal(100, written);
            for index in 100..110 {
                Observer::<u32, ()>::inserted(&mut journal, 0, index, &());
            }
            let patch = journal.patch();
            assert_eq!(patch.ranges().collect::<Vec<_>>(), expected, "{written:?}");
            let rows: Vec<usize> = expected.iter().cloned().flatten().collect();
            assert_eq!(patch.rows().collect::<Vec<_>>(), rows);
            assert_eq!(patch.dirty_rows(), rows.len());
        }
    }
}
