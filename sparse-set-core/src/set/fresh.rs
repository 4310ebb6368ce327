//! Runs of new keys stored in one go: what a batch of whole rows checks in every storage
//! before it writes any, then writes (`fresh_run_len`, `push_fresh_run`).

use crate::dense::DenseIndex;
use crate::key::Key;
use crate::observe::Observer;
use crate::pages::Prefix;
use crate::set::{Bounds, SparseSet};

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> SparseSet<K, D, O> {
    /// How many of `keys`, from the first, [`push_fresh_run`](Self::push_fresh_run) would
    /// store: while each is new on [`try_insert`](Self::try_insert)'s common path (its slot in
    /// the sparse index's flat prefix and empty, not older than the version the slot has seen,
    /// within a bounded set's limits) and fits in the room reserved for keys. The keys must be
    /// distinct, as a batch of entities just spawned is. What a batch of whole rows checks in
    /// every storage before it writes any.
    ///
    /// Computes in **O(run)** time; reads one sparse cell per key.
    #[doc(hidden)]
    #[must_use]
    pub fn fresh_run_len(&self, keys: &[K]) -> usize {
        let len = self.dense.len();
        // No more than the keys' room, nor the room the observer keeps for rows' events.
        let room = (self.dense.capacity() - len).min(self.observer.spare_rows());
        let keys = &keys[..keys.len().min(room)];
        match consecutive_from(keys) {
            Some(first) => self.fresh_consecutive_len(first, keys),
            None => self.fresh_each_len(keys),
        }
    }

    /// [`fresh_run_len`](Self::fresh_run_len) of `keys` in any slots, no more of them than the
    /// room reserved for keys: one cell looked up and checked per key.
    pub(super) fn fresh_each_len(&self, keys: &[K]) -> usize {
        let len = self.dense.len();
        keys.iter()
            .enumerate()
            .take_while(|&(i, &key)| {
                let at = usize::try_from(key.sparse_slot()).unwrap_or(usize::MAX);
                self.sparse
                    .prefix_cell(at, Self::STRIDE)
                    .is_some_and(|cell| Self::takes_fresh_in(self.bounds, cell, key, len + i))
            })
            .count()
    }

    /// [`fresh_run_len`](Self::fresh_run_len) of `keys` whose slots are consecutive from
    /// `first` (a batch of entities just spawned), no more of them than the room reserved for
    /// keys. Their cells are one slice of the prefix, and positions and slots grow together, so
    /// each limit cuts the run at one place and the cells are checked a chunk at a time, with
    /// no early exit inside a chunk (the check vectorises).
    fn fresh_consecutive_len(&self, first: u64, keys: &[K]) -> usize {
        /// Keys checked together before the first one that is not new is looked for.
        const CHUNK: usize = 16;
        let len = self.dense.len();
        let Ok(at) = usize::try_from(first) else { return 0 };
        let mut run = keys.len().min(D::MAX_LEN.saturating_sub(len));
        if let Some(bounds) = self.bounds {
            run = run
                .min(bounds.capacity.saturating_sub(len))
                .min(bounds.key_limit.saturating_sub(at));
        }
        run = run.min(self.sparse.prefix_slots().saturating_sub(at));
        let Some(cells) = self.sparse.prefix_cells(at, run, Self::STRIDE) else { return 0 };
        let fresh = |(&key, cell): (&K, &[D])| Self::is_fresh_cell(cell, key);
        let mut checked = 0;
        for (keys, cells) in keys[..run].chunks(CHUNK).zip(cells.chunks(CHUNK * Self::STRIDE)) {
            let pairs = keys.iter().zip(cells.chunks_exact(Self::STRIDE));
            if !pairs.clone().fold(true, |all, pair| all & fresh(pair)) {
                return checked + pairs.take_while(|&pair| fresh(pair)).count();
            }
            checked += keys.len();
        }
        checked
    }

    /// Whether `key`, whose prefix cell is `cell`, is new on [`try_insert`](Self::try_insert)'s
    /// common path at dense `position`: the cell empty, the key not older than the version the
    /// slot has seen, and the position within `bounds` and the dense width. What a run of new
    /// keys checks per key when its slots are not consecutive.
    #[inline]
    fn takes_fresh_in(bounds: Option<Bounds>, cell: &[D], key: K, position: usize) -> bool {
        Self::is_fresh_cell(cell, key)
            && Self::check_room_for(bounds, position, key.sparse_slot()).is_ok()
    }

    /// Whether `cell` takes `key` as new: empty, and not holding a newer version than `key`'s.
    /// Both are compared with no branch between them, so a run's check vectorises.
    #[inline]
    fn is_fresh_cell(cell: &[D], key: K) -> bool {
        (cell[0] == D::ZERO)
            & (!K::SLOT_AND_VERSION_ARE_KEY || key.version() >= Prefix::version_in(cell))
    }

    /// Appends the run of new `keys` that [`fresh_run_len`](Self::fresh_run_len) measured, in
    /// order, each as [`try_insert`](Self::try_insert) would (one sparse cell written per key),
    /// without growing anything; returns how many it stored, which is `keys.len()` when the
    /// caller passed no more than the measured run. It checks the keys as it goes and stops at
    /// the first that is not new on the common path, so the set stays consistent whatever it is
    /// given.
    ///
    /// Computes in **O(run)** time; never allocates.
    #[doc(hidden)]
    pub fn push_fresh_run(&mut self, keys: &[K]) -> usize {
        let len = self.dense.len();
        let keys = &keys[..keys.len().min(self.dense.capacity() - len)];
        let pushed = match consecutive_from(keys) {
            Some(first) => self.write_fresh_consecutive(first, keys),
            None => self.write_fresh_each(keys),
        };
        self.dense.extend_from_slice(&keys[..pushed]);
        if O::OBSERVES {
            for (index, &key) in (len..).zip(&keys[..pushed]) {
                self.observer.inserted(key, index, &());
            }
        }
        pushed
    }

    /// Writes the cells of the new keys from the first of `keys` (slots consecutive from
    /// `first`), checked as [`fresh_consecutive_len`](Self::fresh_consecutive_len) checks them;
    /// returns how many. The keys themselves are left for the caller to push.
    fn write_fresh_consecutive(&mut self, first: u64, keys: &[K]) -> usize {
        let run = self.fresh_consecutive_len(first, keys);
        let len = self.dense.len();
        let Ok(at) = usize::try_from(first) else { return 0 };
        let Some(cells) = self.sparse.prefix_cells_mut(at, run, Self::STRIDE) else { return 0 };
        for ((cell, &key), position) in cells.chunks_exact_mut(Self::STRIDE).zip(keys).zip(len..) {
            Self::fill_cell(cell, key, position);
        }
        run
    }

    /// Writes the cells of the new keys from the first of `keys`, any slots, checking each;
    /// returns how many. The keys themselves are left for the caller to push.
    fn write_fresh_each(&mut self, keys: &[K]) -> usize {
        let len = self.dense.len();
        let bounds = self.bounds;
        let mut written = 0;
        for &key in keys {
            let position = len + written;
            let Some(cell) = self.sparse.prefix_cell_mut(key.sparse_slot(), Self::STRIDE) else {
                break;
            };
            if !Self::takes_fresh_in(bounds, cell, key, position) {
                break;
            }
            Self::fill_cell(cell, key, position);
            written += 1;
        }
        written
    }
}

/// The slot of the first of `keys` when their slots are consecutive from it, as a batch of
/// entities just spawned has; `None` for none or other slots. Checks every key with no early
/// exit, so the check vectorises.
pub(super) fn consecutive_from<K: Key>(keys: &[K]) -> Option<u64> {
    let first = keys.first()?.sparse_slot();
    let consecutive = (0_u64..)
        .zip(keys)
        .fold(true, |all, (i, key)| all & (key.sparse_slot().wrapping_sub(first) == i));
    consecutive.then_some(first)
}
