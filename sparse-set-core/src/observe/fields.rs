//! Change ticks per field: [`FieldTicks`], what a derived storage keeps for the fields marked
//! `#[sparse_soa(track)]`: when each row was added, and one column of change stamps per tracked
//! field, 4 bytes a row each, all moved in lockstep with the rows, on a clock of their own.
//!
//! # Invariant
//!
//! `added` and every field's stamps have the storage's length, entry `i` belonging to the row at
//! dense position `i`, also while a hook unwinds, and every stamp is at most
//! [`MAX_AGE`](super::MAX_AGE) + `REBASE` ticks older than the clock (the clock's sweep reaches
//! them), as for [`Ticks`]. A row changed when one of its tracked fields did; a new row counts as
//! changed in every field.

use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use crate::error::Error;
use crate::observe::Observer;
use crate::observe::ticks::{RowChanges, Since, Tick, Ticks, clamp, stamp_removed, stamp_written};
use crate::permutation::Permutation;
use crate::removed::Removed;

/// Change ticks of a derived storage's `N` tracked fields (`#[sparse_soa(track)]`): when each
/// row was added, and when each tracked field of it last changed. A derived storage holds one
/// and reports every row event to it like to an [`Observer`]; a write through a field's own
/// column stamps that field alone.
///
/// ```
/// use sparse_set_core::observe::{FieldTicks, Observer};
///
/// let mut ticks = FieldTicks::<2>::new();
/// Observer::<u32, ()>::inserted(&mut ticks, 7, 0, &());
/// let seen = ticks.advance();
/// ticks.written_field(1, 0..1);
/// assert!(ticks.field_changed_at_since(1, 0, seen));
/// assert!(!ticks.field_changed_at_since(0, 0, seen));
/// assert!(ticks.changes().changed_at_since(0, seen));
/// ```
pub struct FieldTicks<const N: usize> {
    /// The clock: a `Ticks` that stamps no row.
    clock: Ticks,
    added: Vec<u32>,
    changed: [Vec<u32>; N],
    all_changed: [u32; N],
}

impl<const N: usize> FieldTicks<N> {
    /// Bytes the stamps take a row: 4 for when it was added and 4 per tracked field. A bounded
    /// storage counts them with its columns when it checks its bounds.
    pub const ROW_BYTES: usize = (N + 1) * size_of::<u32>();

    /// A clock at tick 1, with no rows. Does not allocate.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub const fn new() -> Self {
        let clock = Ticks::new();
        // As old as a stamp can be: no summary write yet.
        let never = clock.now().get().wrapping_sub(super::MAX_AGE);
        Self {
            clock,
            added: Vec::new(),
            changed: [const { Vec::new() }; N],
            all_changed: [never; N],
        }
    }

    /// The tick changes are stamped with now.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub const fn now(&self) -> Tick {
        self.clock.now()
    }

    /// The tick the last [`advance`](Self::advance) ended.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub const fn previous(&self) -> Tick {
        self.clock.previous()
    }

    /// Ends the current tick and returns it: changes from now on are newer than it.
    ///
    /// Computes in **O(1)** amortised time: every 2^29 advances it sweeps the stamps, O(len).
    pub fn advance(&mut self) -> Tick {
        self.advance_by(1)
    }

    /// Moves the clock on by `ticks` at once, and returns the tick that was current. A `ticks`
    /// of 0 moves it by 1, as [`advance`](Self::advance): the changes after the call are newer
    /// than the tick returned.
    ///
    /// Computes in **O(1)** time, plus a sweep of the stamps, O(len × fields), each time the
    /// clock passes a multiple of 2^29.
    pub fn advance_by(&mut self, ticks: u32) -> Tick {
        let (added, changed, all_changed) =
            (&mut self.added, &mut self.changed, &mut self.all_changed);
        self.clock.advance_by_sweeping(ticks, |now| {
            for stamp in added.iter_mut().chain(changed.iter_mut().flatten()) {
                clamp(now, stamp);
            }
            for all in all_changed.iter_mut() {
                clamp(now, all);
            }
        })
    }

    /// Whether field `field` of the row at dense position `index` changed after `since`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// # Panics
    ///
    /// If `field` or `index` is out of bounds.
    #[inline]
    #[must_use]
    #[track_caller]
    pub fn field_changed_at_since(&self, field: usize, index: usize, since: Tick) -> bool {
        self.clock.newer(self.changed[field][index], since)
            || self.clock.newer(self.all_changed[field], since)
    }

    /// The keys (the storage's, `keys`) of the rows whose field `field` changed after `since`,
    /// in dense order.
    ///
    /// Computes in **O(1)** time; the iterator runs in O(len).
    ///
    /// # Panics
    ///
    /// If `field` is out of bounds.
    #[must_use]
    #[track_caller]
    pub fn field_changed_since<'a, K>(
        &'a self,
        keys: &'a [K],
        field: usize,
        since: Tick,
    ) -> Since<'a, K> {
        let column = core::slice::from_ref(&self.changed[field]);
        let summary = core::slice::from_ref(&self.all_changed[field]);
        Since::new(keys, column, summary, &self.clock, since)
    }

    /// The keys (the storage's, `keys`) of the rows of which a tracked field changed after
    /// `since` (added counts), in dense order.
    ///
    /// Computes in **O(1)** time; the iterator runs in O(len × fields).
    #[must_use]
    pub fn rows_changed_since<'a, K>(&'a self, keys: &'a [K], since: Tick) -> Since<'a, K> {
        Since::new(keys, &self.changed, &self.all_changed, &self.clock, since)
    }

    /// The keys (the storage's, `keys`) of the rows added after `since`, in dense order.
    ///
    /// Computes in **O(1)** time; the iterator runs in O(len).
    #[must_use]
    pub fn rows_added_since<'a, K>(&'a self, keys: &'a [K], since: Tick) -> Since<'a, K> {
        Since::new(keys, core::slice::from_ref(&self.added), &[], &self.clock, since)
    }

    /// The row changes (a change of any tracked field), as the query filter reads them.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub fn changes(&self) -> RowChanges<'_> {
        RowChanges::new(&self.changed, &self.all_changed, &self.clock)
    }

    /// Field `field` of the rows in `rows` was handed out mutably: stamps it. Every row at once
    /// takes one summary stamp, in O(1).
    ///
    /// Computes in **O(1)** time for one row or every row, O(rows) otherwise.
    ///
    /// # Panics
    ///
    /// If `field` or `rows` is out of bounds.
    #[inline]
    #[track_caller]
    pub fn written_field(&mut self, field: usize, rows: Range<usize>) {
        let now = self.now().get();
        stamp_written(&mut self.changed[field], &mut self.all_changed[field], rows, now);
    }

    /// Every stamp column, the row's `added` first.
    fn columns_mut(&mut self) -> impl Iterator<Item = &mut Vec<u32>> {
        core::iter::once(&mut self.added).chain(&mut self.changed)
    }

    /// Reserves room for exactly `capacity` rows in every stamp column: what a bounded storage
    /// does once, so that its stamps never allocate afterwards.
    ///
    /// # Errors
    ///
    /// `Error::AllocFailed` if the memory cannot be had.
    pub fn try_reserve_exact(&mut self, capacity: usize) -> Result<(), Error> {
        self.columns_mut()
            .try_for_each(|stamps| crate::error::try_reserve_exact(stamps, capacity))?;
        self.clock.bounded = true;
        Ok(())
    }

    /// Reserves room for `additional` more rows in every stamp column: what the storage's
    /// `try_reserve` does beside its columns.
    ///
    /// # Errors
    ///
    /// `Error::CapacityOverflow` or `Error::AllocFailed`, as `Vec`s reserving fallibly.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        self.columns_mut().try_for_each(|stamps| crate::error::try_reserve(stamps, additional))
    }

    /// Releases the stamp columns' spare capacity: what the storage's `shrink_to_fit` does.
    pub fn shrink_to_fit(&mut self) {
        self.columns_mut().for_each(crate::error::shrink);
    }

    /// Bytes of heap memory the stamps hold: 4 bytes a row for when it was added and 4 per
    /// tracked field, times the capacity.
    #[must_use]
    pub fn allocated_bytes(&self) -> usize {
        core::iter::once(&self.added).chain(&self.changed).map(crate::error::vec_bytes).sum()
    }

    /// How many rows the clock stamps: the storage's length.
    #[must_use]
    pub fn len(&self) -> usize {
        self.added.len()
    }

    /// Whether the clock stamps no row.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
    }

    /// Checks the invariant against a storage of `len` rows; panics describing what is broken.
    #[doc(hidden)]
    pub fn assert_invariants(&self, len: usize) {
        self.clock.assert_invariants(0);
        assert_eq!(self.added.len(), len, "added ticks for {len} rows");
        for (field, stamps) in self.changed.iter().enumerate() {
            assert_eq!(stamps.len(), len, "field {field}'s ticks for {len} rows");
        }
        let now = self.now().get();
        let bound = super::MAX_AGE + super::ticks::REBASE;
        let stamps =
            self.added.iter().chain(self.changed.iter().flatten()).chain(&self.all_changed);
        for &stamp in stamps {
            assert!(now.wrapping_sub(stamp) <= bound, "a stamp older than the bound");
        }
    }
}

impl<const N: usize> Clone for FieldTicks<N> {
    /// A copy; the copy of a bounded storage's stamps, which reserved its capacity when it
    /// was made, keeps that room, so it never allocates either.
    ///
    /// # Panics
    ///
    /// If the memory cannot be had.
    fn clone(&self) -> Self {
        Self {
            clock: self.clock.clone(),
            added: crate::error::clone_with_room(&self.added, self.clock.bounded),
            changed: self
                .changed
                .each_ref()
                .map(|stamps| crate::error::clone_with_room(stamps, self.clock.bounded)),
            all_changed: self.all_changed,
        }
    }
}

impl<const N: usize> Default for FieldTicks<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> fmt::Debug for FieldTicks<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FieldTicks")
            .field("now", &self.now())
            .field("fields", &N)
            .field("rows", &self.len())
            .finish_non_exhaustive()
    }
}

/// Row events reach every tracked field: a new or replaced row, or a row handed out whole,
/// stamps them all.
impl<K, V, const N: usize> Observer<K, V> for FieldTicks<N> {
    fn attached(&mut self, keys: &[K], bound: Option<usize>) {
        let now = self.now().get();
        // Attaching is no `try_` call: a failed allocation panics, never aborts.
        let room = bound.unwrap_or(0).max(keys.len());
        self.clock.bounded = bound.is_some();
        for stamps in self.columns_mut() {
            stamps.clear();
            crate::error::reserve_exact_or_fail(stamps, room);
            stamps.resize(keys.len(), now);
        }
    }

    #[inline]
    fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        FieldTicks::try_reserve(self, additional)
    }

    #[inline]
    fn spare_rows(&self) -> usize {
        let room = |stamps: &Vec<u32>| stamps.capacity() - stamps.len();
        self.changed.iter().fold(room(&self.added), |least, stamps| least.min(room(stamps)))
    }

    #[inline]
    fn inserted(&mut self, _key: K, _index: usize, _value: &V) {
        let now = self.now().get();
        // The storage reserved the room first (`try_reserve`).
        for stamps in self.columns_mut() {
            stamps.push(now);
        }
    }

    #[inline]
    fn replaced(&mut self, _key: K, index: usize, _old: &V, _new: &V) {
        let now = self.now().get();
        for stamps in &mut self.changed {
            stamps[index] = now;
        }
    }

    #[inline]
    fn renewed(&mut self, _key: K, index: usize, _old: &V, _new: &V) {
        // A new key in an old row: added, and every field changed, as a new row would be.
        let now = self.now().get();
        for stamps in self.columns_mut() {
            stamps[index] = now;
        }
    }

    #[inline]
    fn removed(&mut self, _key: K, _value: &V, removed: Removed<K>) {
        for stamps in self.columns_mut() {
            stamp_removed(stamps, &removed);
        }
    }

    #[inline]
    fn written(&mut self, rows: Range<usize>) {
        let now = self.now().get();
        for (stamps, all) in self.changed.iter_mut().zip(&mut self.all_changed) {
            stamp_written(stamps, all, rows.clone(), now);
        }
    }

    #[inline]
    fn swapped(&mut self, a: usize, b: usize) {
        for stamps in self.columns_mut() {
            stamps.swap(a, b);
        }
    }

    fn permuted(&mut self, permutation: &Permutation) {
        for stamps in self.columns_mut() {
            permutation.apply(stamps);
        }
    }
}
