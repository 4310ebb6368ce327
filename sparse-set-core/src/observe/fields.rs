//! Change ticks per field: [`FieldTicks`], what a derived storage keeps for the fields marked
//! `#[sparse_soa(track)]`. It is row-level [`Ticks`] (when each row was added and last changed,
//! and the clock) plus one column of change stamps per tracked field, 4 bytes a row each, all
//! moved in lockstep with the rows.
//!
//! # Invariant
//!
//! The row-level ticks keep the invariant of [`Ticks`]; every field's stamps have the storage's
//! length, entry `i` belonging to the row at dense position `i`, and are swept with the row
//! stamps, so they too stay within [`MAX_AGE`](super::MAX_AGE) + `REBASE` of `now`. A row's
//! row-level change stamp is at least as new as any of its field stamps: a write stamps the
//! fields it reaches and the row.

use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use crate::error::Error;
use crate::observe::Observer;
use crate::observe::ticks::{Since, Tick, Ticks, clamp, stamp_removed, stamp_written};
use crate::permutation::Permutation;
use crate::set::Removed;

/// Change ticks of a derived storage's `N` tracked fields (`#[sparse_soa(track)]`), with the
/// row-level [`Ticks`] they share a clock with. A derived storage holds one and reports to it
/// like to an [`Observer`]; a write through a field's own column stamps that field alone.
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
/// assert!(ticks.rows().changed_at_since(0, seen));
/// ```
#[derive(Clone)]
pub struct FieldTicks<const N: usize> {
    rows: Ticks,
    changed: [Vec<u32>; N],
    all_changed: [u32; N],
}

impl<const N: usize> FieldTicks<N> {
    /// A clock at tick 1, with no rows. Does not allocate.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub const fn new() -> Self {
        let rows = Ticks::new();
        // As old as a stamp can be: no summary write yet.
        let never = rows.now().get().wrapping_sub(super::MAX_AGE);
        Self { rows, changed: [const { Vec::new() }; N], all_changed: [never; N] }
    }

    /// The row-level ticks: when each row was added, and when a tracked field of it last
    /// changed. What `changed_since`, `added_since` and the query filter `changed` read.
    ///
    /// Computes in **O(1)** time.
    #[inline]
    #[must_use]
    pub const fn rows(&self) -> &Ticks {
        &self.rows
    }

    /// The tick changes are stamped with now.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub const fn now(&self) -> Tick {
        self.rows.now()
    }

    /// The tick the last [`advance`](Self::advance) ended.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub const fn previous(&self) -> Tick {
        self.rows.previous()
    }

    /// Ends the current tick and returns it: changes from now on are newer than it.
    ///
    /// Computes in **O(1)** amortised time: every 2^29 advances it sweeps the stamps, O(len).
    pub fn advance(&mut self) -> Tick {
        self.advance_by(1)
    }

    /// Moves the clock on by `ticks` at once, and returns the tick that was current.
    ///
    /// Computes in **O(1)** time, plus a sweep of the stamps, O(len × fields), each time the
    /// clock passes a multiple of 2^29.
    pub fn advance_by(&mut self, ticks: u32) -> Tick {
        let (changed, all_changed) = (&mut self.changed, &mut self.all_changed);
        self.rows.advance_by_sweeping(ticks, |now| {
            for (stamps, all) in changed.iter_mut().zip(all_changed.iter_mut()) {
                for stamp in stamps.iter_mut() {
                    clamp(now, stamp);
                }
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
        self.rows.newer(self.changed[field][index], since)
            || self.rows.newer(self.all_changed[field], since)
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
        Since::from_stamps(keys, &self.changed[field], self.all_changed[field], &self.rows, since)
    }

    /// Field `field` of the rows in `rows` was handed out mutably: stamps it, and the rows.
    /// Every row at once takes one summary stamp per field, in O(1).
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
        stamp_written(&mut self.changed[field], &mut self.all_changed[field], rows.clone(), now);
        Observer::<(), ()>::written(&mut self.rows, rows);
    }

    /// Reserves room for exactly `capacity` rows in every stamp column: what a bounded storage
    /// does once, so that its stamps never allocate afterwards.
    ///
    /// # Errors
    ///
    /// `Error::AllocFailed` if the memory cannot be had.
    pub fn try_reserve_exact(&mut self, capacity: usize) -> Result<(), Error> {
        self.rows.try_reserve_exact(capacity)?;
        for stamps in &mut self.changed {
            crate::error::try_reserve_exact(stamps, capacity)?;
        }
        Ok(())
    }

    /// Reserves room for `additional` more rows in every stamp column: what the storage's
    /// `try_reserve` does beside its columns.
    ///
    /// # Errors
    ///
    /// `Error::CapacityOverflow` or `Error::AllocFailed`, as `Vec`s reserving fallibly.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        self.rows.try_reserve(additional)?;
        for stamps in &mut self.changed {
            crate::error::try_reserve(stamps, additional)?;
        }
        Ok(())
    }

    /// Releases the stamp columns' spare capacity: what the storage's `shrink_to_fit` does.
    pub fn shrink_to_fit(&mut self) {
        self.rows.shrink_to_fit();
        for stamps in &mut self.changed {
            crate::error::shrink(stamps);
        }
    }

    /// Bytes of heap memory the stamps hold: 8 bytes a row for the row-level ticks and 4 per
    /// tracked field, times the capacity.
    #[must_use]
    pub fn allocated_bytes(&self) -> usize {
        self.rows.allocated_bytes()
            + self.changed.iter().map(crate::error::vec_bytes).sum::<usize>()
    }

    /// How many rows the clock stamps: the storage's length.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the clock stamps no row.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Checks the invariant against a storage of `len` rows; panics describing what is broken.
    #[doc(hidden)]
    pub fn assert_invariants(&self, len: usize) {
        self.rows.assert_invariants(len);
        for (field, stamps) in self.changed.iter().enumerate() {
            assert_eq!(stamps.len(), len, "field {field}'s ticks for {len} rows");
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
        Observer::<K, V>::attached(&mut self.rows, keys, bound);
        let now = self.now().get();
        for stamps in &mut self.changed {
            stamps.clear();
            if let Some(capacity) = bound {
                stamps.reserve_exact(capacity);
            }
            stamps.resize(keys.len(), now);
        }
    }

    #[inline]
    fn inserted(&mut self, key: K, index: usize, value: &V) {
        self.rows.inserted(key, index, value);
        let now = self.now().get();
        for stamps in &mut self.changed {
            stamps.push(now);
        }
    }

    #[inline]
    fn replaced(&mut self, key: K, index: usize, old: &V, new: &V) {
        self.rows.replaced(key, index, old, new);
        let now = self.now().get();
        for stamps in &mut self.changed {
            stamps[index] = now;
        }
    }

    #[inline]
    fn removed(&mut self, key: K, value: &V, removed: Removed<K>) {
        for stamps in &mut self.changed {
            stamp_removed(stamps, &removed);
        }
        self.rows.removed(key, value, removed);
    }

    #[inline]
    fn written(&mut self, rows: Range<usize>) {
        let now = self.now().get();
        for (stamps, all) in self.changed.iter_mut().zip(&mut self.all_changed) {
            stamp_written(stamps, all, rows.clone(), now);
        }
        Observer::<K, V>::written(&mut self.rows, rows);
    }

    #[inline]
    fn swapped(&mut self, a: usize, b: usize) {
        Observer::<K, V>::swapped(&mut self.rows, a, b);
        for stamps in &mut self.changed {
            stamps.swap(a, b);
        }
    }

    fn permuted(&mut self, permutation: &Permutation) {
        Observer::<K, V>::permuted(&mut self.rows, permutation);
        for stamps in &mut self.changed {
            permutation.apply(stamps);
        }
    }
}
