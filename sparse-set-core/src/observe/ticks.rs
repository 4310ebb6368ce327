//! Change ticks, opt-in per storage: [`Ticks`] is an [`Observer`] that stamps every row with
//! the tick it was added at and the tick it last changed at, 4 bytes each, moved in lockstep
//! with the rows. A storage without it pays nothing; asking one for changes does not compile
//! (the methods need [`Tracks`]).
//!
//! # Invariant
//!
//! `added` and `changed` have the storage's length, and entry `i` of each belongs to the row at
//! dense position `i`, also while a hook unwinds (every event lands after the storage is
//! consistent). Every stamp is at most [`MAX_AGE`] + `REBASE` ticks older than `now`, so ages
//! computed with wrapping subtraction never wrap: the clock sweeps the stamps each time it
//! passes a multiple of `REBASE`, pulling older ones up to `MAX_AGE`.
//!
//! A row's change tick is the newer of its own stamp and `all_changed`, the stamp a write to
//! every row at once (`values_mut`, `columns_mut`, a query's mutable member that visits every
//! row, or whose parallel walk splits the storage) sets in O(1).

use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use crate::error::{Error, clone_with_room, reserve_exact_or_fail, try_reserve};
use crate::observe::Observer;
use crate::permutation::Permutation;
use crate::removed::Removed;

/// How old a tick may be and still be told apart: 2^30 advances of the clock. An older stamp,
/// or an older tick given to `changed_since` or `added_since`, is read as this old: a tick held
/// longer (up to 2^32 advances, past which its `u32` wraps and it reads as young) finds the
/// changes of the last 2^30 advances only, not those made just after it.
pub const MAX_AGE: u32 = 1 << 30;

/// How often the clock sweeps old stamps up to [`MAX_AGE`]: every 2^29 advances.
pub(super) const REBASE: u32 = 1 << 29;

/// A point on a storage's change clock: what [`Ticks::advance`] returns, and what
/// `changed_since` and `added_since` compare with.
///
/// Every storage has a clock of its own, so a tick means something only to the storage that
/// gave it: given to another, it is not refused (it is a plain number there too) but answers
/// with rows that clock never meant. A system that reads the changes of several storages keeps
/// one tick per storage, or advances their clocks together.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tick(u32);

impl Tick {
    /// The raw value (it wraps around; compare ticks through a [`Ticks`] clock).
    ///
    /// ```
    /// # use sparse_set_core::observe::Ticks;
    /// let ticks = Ticks::new();
    /// assert_eq!(ticks.now().get(), 1);
    /// ```
    #[must_use]
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Debug for Tick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tick({})", self.0)
    }
}

/// Change ticks: the [`Observer`] that stamps each row with when it was added and when it last
/// changed. 8 bytes per row (two `u32`s).
///
/// The clock stands still until [`advance`](Self::advance) moves it: every change between two
/// advances gets the same stamp. A system remembers the tick `advance` returned and later asks
/// for the rows changed since (bevy's `last_run`):
///
/// ```
/// use sparse_set_core::SparseMap;
/// use sparse_set_core::observe::Ticks;
///
/// let mut health = SparseMap::<u32, u32, u32, Ticks>::default();
/// health.insert(1, 10);
/// health.insert(2, 20);
/// let seen = health.ticks_mut().advance(); // everything so far is seen
///
/// *health.get_mut(2).unwrap() -= 5; // changed
/// health.set_if_neq(1, 10); // equal: not a change
/// health.insert(3, 30); // added, so changed too
/// assert_eq!(health.changed_since(seen).collect::<Vec<_>>(), [2, 3]);
/// assert_eq!(health.added_since(seen).collect::<Vec<_>>(), [3]);
/// ```
///
/// A write to every row at once (`values_mut`, `iter_mut`, `columns_mut`) stamps one summary
/// tick in O(1) instead of each row, so the loop over the slice pays no per-row write; every row
/// then counts as changed. A query's mutable member stamps each row it visits (a `for_each` that
/// visits every row of its one required member stamps them at once). A group hands out a member's rows over
/// its aligned prefix: those rows are stamped one by one (O(prefix), a fill of 4 bytes a row),
/// unless the prefix is the whole member.
pub struct Ticks {
    added: Vec<u32>,
    changed: Vec<u32>,
    all_changed: u32,
    now: u32,
    /// The tick the last advance ended (0 before any: every stamp is newer).
    previous: u32,
    /// Whether the stamps' room was reserved for a bounded storage's capacity, which a clone
    /// keeps.
    pub(super) bounded: bool,
}

impl Ticks {
    /// A clock at tick 1, with no rows. Does not allocate.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Ticks;
    /// assert_eq!(Ticks::new().now().get(), 1);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        // `all_changed` starts as old as a stamp can be: no summary write yet.
        Self {
            added: Vec::new(),
            changed: Vec::new(),
            all_changed: 1u32.wrapping_sub(MAX_AGE),
            now: 1,
            previous: 0,
            bounded: false,
        }
    }

    /// The tick changes are stamped with now.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Ticks;
    /// let mut ticks = Ticks::new();
    /// let before = ticks.advance();
    /// assert_ne!(ticks.now(), before);
    /// ```
    #[must_use]
    pub const fn now(&self) -> Tick {
        Tick(self.now)
    }

    /// The tick the last [`advance`](Self::advance) ended: "since the last advance" is since
    /// this tick. Before any advance, a tick older than every stamp.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Ticks;
    /// let mut ticks = Ticks::new();
    /// let ended = ticks.advance();
    /// assert_eq!(ticks.previous(), ended);
    /// ```
    #[must_use]
    pub const fn previous(&self) -> Tick {
        Tick(self.previous)
    }

    /// Ends the current tick and returns it: changes from now on are newer than it.
    ///
    /// Computes in **O(1)** amortised time: every 2^29 advances it sweeps the stamps, O(len).
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Ticks>::default();
    /// map.insert(1, 0);
    /// let seen = map.ticks_mut().advance();
    /// assert_eq!(map.changed_since(seen).count(), 0);
    /// map.insert(1, 1);
    /// assert_eq!(map.changed_since(seen).count(), 1);
    /// ```
    pub fn advance(&mut self) -> Tick {
        self.advance_by(1)
    }

    /// Moves the clock on by `ticks` at once (a paused simulation catching up), and returns the
    /// tick that was current. A `ticks` of 0 moves it by 1, as [`advance`](Self::advance): the
    /// clock always moves, so that the changes after the call are newer than the tick returned.
    ///
    /// Computes in **O(1)** time, plus a sweep of the stamps, O(len), each time the clock
    /// passes a multiple of 2^29.
    ///
    /// ```
    /// # use sparse_set_core::observe::Ticks;
    /// let mut ticks = Ticks::new();
    /// let before = ticks.advance_by(1000);
    /// assert_eq!(ticks.now().get(), before.get() + 1000);
    /// ```
    pub fn advance_by(&mut self, ticks: u32) -> Tick {
        self.advance_by_sweeping(ticks, |_| {})
    }

    /// [`advance_by`](Self::advance_by), calling `sweep` with the new `now` after each sweep of
    /// the stamps: how stamps kept beside these (a derived storage's tracked fields) are swept
    /// with them.
    pub(super) fn advance_by_sweeping(&mut self, ticks: u32, mut sweep: impl FnMut(u32)) -> Tick {
        let before = self.now;
        self.previous = before;
        let mut left = ticks.max(1);
        while left > 0 {
            // One sweep per multiple of `REBASE` passed, so no stamp ages past the bound.
            let to_boundary = REBASE - self.now % REBASE;
            let step = left.min(to_boundary);
            self.now = self.now.wrapping_add(step);
            left -= step;
            if self.now % REBASE == 0 {
                self.rebase();
                sweep(self.now);
            }
        }
        Tick(before)
    }

    /// Pulls every stamp older than [`MAX_AGE`] up to it.
    fn rebase(&mut self) {
        let now = self.now;
        let clamp = |stamp: &mut u32| clamp(now, stamp);
        self.added.iter_mut().for_each(clamp);
        self.changed.iter_mut().for_each(clamp);
        clamp(&mut self.all_changed);
        clamp(&mut self.previous);
    }

    /// How many ticks ago `stamp` was, read as at most [`MAX_AGE`].
    #[inline]
    pub(super) fn age(&self, stamp: u32) -> u32 {
        self.now.wrapping_sub(stamp).min(MAX_AGE)
    }

    /// Whether `stamp` is newer than `since`.
    #[inline]
    pub(super) fn newer(&self, stamp: u32, since: Tick) -> bool {
        self.age(stamp) < self.age(since.0)
    }

    /// Whether the row at dense position `index` changed after `since` (added counts).
    ///
    /// Computes in **O(1)** time.
    ///
    /// # Panics
    ///
    /// If `index` is out of bounds.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Ticks>::default();
    /// let start = map.ticks_mut().advance();
    /// map.insert(5, 0);
    /// assert!(map.ticks().changed_at_since(0, start));
    /// ```
    #[inline]
    #[must_use]
    #[track_caller]
    pub fn changed_at_since(&self, index: usize, since: Tick) -> bool {
        self.newer(self.changed[index], since) || self.newer(self.all_changed, since)
    }

    /// Whether the row at dense position `index` was added after `since`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// # Panics
    ///
    /// If `index` is out of bounds.
    ///
    /// ```
    /// use sparse_set_core::SparseMap;
    /// use sparse_set_core::observe::Ticks;
    ///
    /// let mut map = SparseMap::<u32, u8, u32, Ticks>::default();
    /// map.insert(5, 0);
    /// let seen = map.ticks_mut().advance();
    /// assert!(!map.ticks().added_at_since(0, seen));
    /// ```
    #[inline]
    #[must_use]
    #[track_caller]
    pub fn added_at_since(&self, index: usize, since: Tick) -> bool {
        self.newer(self.added[index], since)
    }

    /// The keys (the storage's, `keys`) of the rows changed after `since` (added counts), in
    /// dense order: what a storage's `changed_since` returns.
    ///
    /// Computes in **O(1)** time; the iterator runs in O(len).
    #[must_use]
    pub fn rows_changed_since<'a, K>(&'a self, keys: &'a [K], since: Tick) -> Since<'a, K> {
        let summary = core::slice::from_ref(&self.all_changed);
        Since::new(keys, core::slice::from_ref(&self.changed), summary, self, since)
    }

    /// The keys (the storage's, `keys`) of the rows added after `since`, in dense order: what
    /// a storage's `added_since` returns.
    ///
    /// Computes in **O(1)** time; the iterator runs in O(len).
    #[must_use]
    pub fn rows_added_since<'a, K>(&'a self, keys: &'a [K], since: Tick) -> Since<'a, K> {
        Since::new(keys, core::slice::from_ref(&self.added), &[], self, since)
    }

    /// The row changes, as the query filter reads them.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub fn changes(&self) -> RowChanges<'_> {
        RowChanges::new(
            core::slice::from_ref(&self.changed),
            core::slice::from_ref(&self.all_changed),
            self,
        )
    }

    /// How many rows the clock stamps: the storage's length.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Ticks;
    /// assert_eq!(Ticks::new().len(), 0);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.changed.len()
    }

    /// Whether the clock stamps no row.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::observe::Ticks;
    /// assert!(Ticks::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty()
    }

    /// Checks the invariant against a storage of `len` rows; panics describing what is broken.
    #[doc(hidden)]
    pub fn assert_invariants(&self, len: usize) {
        assert_eq!(self.added.len(), len, "added ticks for {len} rows");
        assert_eq!(self.changed.len(), len, "changed ticks for {len} rows");
        let bound = MAX_AGE + REBASE;
        for &stamp in self.added.iter().chain(&self.changed).chain([&self.all_changed]) {
            assert!(self.now.wrapping_sub(stamp) <= bound, "a stamp older than the bound");
        }
    }
}

/// Pulls `stamp` up to [`MAX_AGE`] ticks before `now` if it is older.
#[inline]
pub(super) fn clamp(now: u32, stamp: &mut u32) {
    if now.wrapping_sub(*stamp) > MAX_AGE {
        *stamp = now.wrapping_sub(MAX_AGE);
    }
}

/// What a write of `rows` does to one column of change stamps `changed` with its summary stamp
/// `all_changed`: one row is stamped, every row at once sets the summary in O(1), and any other
/// range is stamped row by row.
#[inline]
pub(super) fn stamp_written(
    changed: &mut [u32],
    all_changed: &mut u32,
    rows: Range<usize>,
    now: u32,
) {
    if rows.end == rows.start + 1 {
        // Not `changed[rows.start]`: its panic wants the length in a register, where a
        // comparison with it in memory is one instruction less on every `get_mut`.
        match changed.get_mut(rows.start) {
            Some(stamp) => *stamp = now,
            None => past_the_stamps(),
        }
    } else if rows.start == 0 && rows.end == changed.len() {
        *all_changed = now;
    } else {
        changed[rows].fill(now);
    }
}

/// A row written past the column of stamps, which has the storage's length: a broken
/// invariant, out of the write path.
#[cold]
#[inline(never)]
#[track_caller]
fn past_the_stamps() -> ! {
    panic!("a row written past the change stamps of its storage, which has their length")
}

/// What a removal does to one column of stamps: a swap-remove, or (in a drain, which reports
/// `moved: None` for rows before the last) a truncation to the removed position.
#[inline]
pub(super) fn stamp_removed<K>(stamps: &mut Vec<u32>, removed: &Removed<K>) {
    if removed.moved.is_some() || removed.index + 1 == stamps.len() {
        stamps.swap_remove(removed.index);
    } else {
        stamps.truncate(removed.index);
    }
}

impl Default for Ticks {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Ticks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ticks")
            .field("now", &self.now)
            .field("rows", &self.len())
            .finish_non_exhaustive()
    }
}

impl Clone for Ticks {
    /// A copy; the copy of a bounded storage's ticks, which reserved the storage's capacity
    /// when attached, keeps that room, so it never allocates either.
    ///
    /// # Panics
    ///
    /// If the memory cannot be had.
    fn clone(&self) -> Self {
        Self {
            added: clone_with_room(&self.added, self.bounded),
            changed: clone_with_room(&self.changed, self.bounded),
            all_changed: self.all_changed,
            now: self.now,
            previous: self.previous,
            bounded: self.bounded,
        }
    }
}

impl<K, V> Observer<K, V> for Ticks {
    fn attached(&mut self, keys: &[K], bound: Option<usize>) {
        self.added.clear();
        self.changed.clear();
        // Attaching is no `try_` call: a failed allocation panics, never aborts.
        let room = bound.unwrap_or(0).max(keys.len());
        self.bounded = bound.is_some();
        reserve_exact_or_fail(&mut self.added, room);
        reserve_exact_or_fail(&mut self.changed, room);
        self.added.resize(keys.len(), self.now);
        self.changed.resize(keys.len(), self.now);
    }

    #[inline]
    fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        try_reserve(&mut self.added, additional)?;
        try_reserve(&mut self.changed, additional)
    }

    #[inline]
    fn spare_rows(&self) -> usize {
        let room = |stamps: &Vec<u32>| stamps.capacity() - stamps.len();
        room(&self.added).min(room(&self.changed))
    }

    #[inline]
    fn inserted(&mut self, _key: K, _index: usize, _value: &V) {
        // Whoever reports the row reserved its room first (`try_reserve`).
        self.added.push(self.now);
        self.changed.push(self.now);
    }

    #[inline]
    fn replaced(&mut self, _key: K, index: usize, _old: &V, _new: &V) {
        self.changed[index] = self.now;
    }

    #[inline]
    fn renewed(&mut self, _key: K, index: usize, _old: &V, _new: &V) {
        // A new key in an old row: added, as a new row would be.
        self.added[index] = self.now;
        self.changed[index] = self.now;
    }

    #[inline]
    fn removed(&mut self, _key: K, _value: &V, removed: Removed<K>) {
        stamp_removed(&mut self.added, &removed);
        stamp_removed(&mut self.changed, &removed);
    }

    #[inline]
    fn written(&mut self, rows: Range<usize>) {
        // One row, as `get_mut` hands out, is one stamp; every row at once is one summary
        // stamp, with no per-row write.
        stamp_written(&mut self.changed, &mut self.all_changed, rows, self.now);
    }

    #[inline]
    fn swapped(&mut self, a: usize, b: usize) {
        self.added.swap(a, b);
        self.changed.swap(a, b);
    }

    fn permuted(&mut self, permutation: &Permutation) {
        permutation.apply(&mut self.added);
        permutation.apply(&mut self.changed);
    }
}

/// An observer that holds [`Ticks`]: `Ticks` itself, or a tuple whose first element is. What
/// a storage's `changed_since`, `added_since` and the query filter `changed` need, so asking an
/// untracked storage for changes does not compile.
#[diagnostic::on_unimplemented(
    message = "this storage keeps no change ticks: its observer `{Self}` is not `Ticks`, nor a tuple with `Ticks` first",
    label = "asks for change ticks",
    note = "give the storage the `Ticks` observer (its observer type parameter: `SparseMap<K, V, D, Ticks>`, `SparseSet<K, D, Ticks>`, `PositionSoa<Ticks>`, or `(Ticks, ..)` first in a tuple), or mark fields of a derived struct `#[sparse_soa(track)]` for ticks per field"
)]
pub trait Tracks {
    /// The ticks.
    fn ticks(&self) -> &Ticks;
    /// The ticks, mutably (to [`advance`](Ticks::advance) the clock).
    fn ticks_mut(&mut self) -> &mut Ticks;
}

impl Tracks for Ticks {
    #[inline]
    fn ticks(&self) -> &Ticks {
        self
    }

    #[inline]
    fn ticks_mut(&mut self) -> &mut Ticks {
        self
    }
}

// Not listed in the error of an untracked storage: its note says what to write.
macro_rules! tracks_tuple {
    ($($name:ident),*) => {
        #[diagnostic::do_not_recommend]
        impl<$($name),*> Tracks for (Ticks, $($name,)*) {
            #[inline]
            fn ticks(&self) -> &Ticks {
                &self.0
            }

            #[inline]
            fn ticks_mut(&mut self) -> &mut Ticks {
                &mut self.0
            }
        }
    };
}

tracks_tuple!();
tracks_tuple!(B);
tracks_tuple!(B, C);
tracks_tuple!(B, C, E);

/// Which rows of a storage changed when, as the query filter
/// [`changed`](crate::query::Query::changed) reads them: one or more columns of change stamps
/// (one per tracked field of a derived storage), each with its summary stamp, on a clock.
#[derive(Clone, Copy)]
pub struct RowChanges<'a> {
    columns: &'a [Vec<u32>],
    summaries: &'a [u32],
    clock: &'a Ticks,
}

impl<'a> RowChanges<'a> {
    /// The change stamps `columns`, with their `summaries`, on the clock of `clock`.
    pub(super) fn new(columns: &'a [Vec<u32>], summaries: &'a [u32], clock: &'a Ticks) -> Self {
        debug_assert_eq!(columns.len(), summaries.len(), "a summary per column");
        Self { columns, summaries, clock }
    }

    /// The tick the clock's last [`advance`](Ticks::advance) ended.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub fn previous(&self) -> Tick {
        self.clock.previous()
    }

    /// Whether the row at dense position `index` changed after `since` (added counts).
    ///
    /// Computes in **O(1)** time per column.
    ///
    /// # Panics
    ///
    /// If `index` is out of bounds.
    #[inline]
    #[must_use]
    #[track_caller]
    pub fn changed_at_since(&self, index: usize, since: Tick) -> bool {
        let clock = self.clock;
        self.columns.iter().zip(self.summaries).any(|(column, &summary)| {
            clock.newer(column[index], since) || clock.newer(summary, since)
        })
    }
}

impl fmt::Debug for RowChanges<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RowChanges").field("columns", &self.columns.len()).finish_non_exhaustive()
    }
}

/// The keys of the rows changed (or added) since a tick, in dense order: what
/// `changed_since` and `added_since` return.
#[derive(Clone)]
pub struct Since<'a, K> {
    keys: &'a [K],
    /// Columns of stamps, one per row each: a row counts when any of its stamps is younger.
    columns: &'a [Vec<u32>],
    /// Every row counts (a summary stamp newer than the tick).
    all: bool,
    now: u32,
    /// How old the tick is: a row counts when its stamp is younger.
    age: u32,
    /// The next row to read (unless `all`: the start of the next block of rows).
    index: usize,
    /// Unless `all`: the rows of the block before `index` that count and are still to be
    /// yielded, one bit each (bit `i` for row `index - BLOCK + i`).
    pending: u64,
}

/// Rows the scan reads at a time, one bit each of a `u64`.
const BLOCK: usize = 64;

impl<'a, K> Since<'a, K> {
    /// The rows of `keys` with a stamp in one of `columns` newer than `since`, or all of them
    /// when one of `summaries` is, on the clock of `clock`.
    pub(super) fn new(
        keys: &'a [K],
        columns: &'a [Vec<u32>],
        summaries: &[u32],
        clock: &Ticks,
        since: Tick,
    ) -> Self {
        debug_assert!(columns.iter().all(|column| column.len() == keys.len()), "a stamp per row");
        let all = summaries.iter().any(|&summary| clock.newer(summary, since));
        Self { keys, columns, all, now: clock.now, age: clock.age(since.0), index: 0, pending: 0 }
    }
}

impl<K: Copy> Iterator for Since<'_, K> {
    type Item = K;

    #[inline]
    fn next(&mut self) -> Option<K> {
        if !self.all {
            // Every stamp is younger than `MAX_AGE` + `REBASE` < 2^31, so its wrapping age is
            // exact; and the tick's age is at most `MAX_AGE`, so reading older stamps as
            // `MAX_AGE` old (as `Ticks::newer` does) would change no answer.
            let (now, age) = (self.now, self.age);
            let young = move |stamp: u32| now.wrapping_sub(stamp) < age;
            // A block of rows at a time into a word of bits, with no branch per row (whether a
            // row counts is as unpredictable as the rows written): a row counts when any
            // column's bit is set. Then the set bits in order.
            while self.pending == 0 {
                let end = self.keys.len().min(self.index + BLOCK);
                if self.index >= end {
                    return None;
                }
                let rows = self.index..end;
                self.pending = self.columns.iter().fold(0, |bits, column| {
                    bits | column.get(rows.clone()).map_or(0, |block| block_bits(block, young))
                });
                self.index += BLOCK;
            }
            let row = self.index - BLOCK + self.pending.trailing_zeros() as usize;
            self.pending &= self.pending - 1;
            return self.keys.get(row).copied();
        }
        let key = *self.keys.get(self.index)?;
        self.index += 1;
        Some(key)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.keys.len().saturating_sub(self.index);
        let pending = self.pending.count_ones() as usize;
        (if self.all { left } else { pending }, Some(left + pending))
    }
}

/// Bit `i` set for each stamp `block[i]` that `young` accepts; `block` holds at most 64.
///
/// First one byte per stamp, 0 or 1, in a loop the compiler runs four stamps at a time; then
/// each 8 bytes, read as a little-endian `u64` (byte `k` at bit `8k`), gathered into 8 bits by
/// one multiply: times `Σ 2^(7j)` for `j` in 1..=8, byte `k` lands at bit `8k + 7(8 - k)` =
/// `56 + k`, and no two of the 64 products share a bit (`8k + 7j` is distinct for every pair),
/// so nothing carries into the top byte.
#[inline]
fn block_bits(block: &[u32], young: impl Fn(u32) -> bool) -> u64 {
    debug_assert!(block.len() <= BLOCK, "a block of at most 64 rows");
    let mut flags = [0_u8; BLOCK];
    for (flag, &stamp) in flags.iter_mut().zip(block) {
        *flag = u8::from(young(stamp));
    }
    let mut bits = 0;
    for (i, bytes) in flags.chunks_exact(8).enumerate() {
        let mut word = [0; 8];
        word.copy_from_slice(bytes);
        bits |= (u64::from_le_bytes(word).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i);
    }
    bits
}

impl<K: Copy> core::iter::FusedIterator for Since<'_, K> {}

impl<K: Copy + fmt::Debug> fmt::Debug for Since<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}
