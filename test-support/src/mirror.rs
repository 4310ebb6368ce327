//! Mirrors kept in sync through a [`Journal`], as the change-event tests, the panic sweep and
//! the fuzz target check them: a mirror of the keys replays the ordered changes, a copy mirror
//! of the values copies the patch. Each panics on a change that cannot apply to the mirror.
//! [`Recorder`] rebuilds the rows from the hooks alone.

use sparse_set_core::observe::{Change, Journal, Observer};
use sparse_set_core::{Permutation, Removed};

/// `keys` (the mirror's keys when the journal was last cleared) after the journal's ordered
/// changes; `None` when the journal asks for a resync.
///
/// # Panics
///
/// On a write past the mirror's end, or a permutation of another length than the mirror's.
pub fn replay_keys<K: Copy>(mut keys: Vec<K>, journal: &Journal<K>) -> Option<Vec<K>> {
    for change in journal.changes().ok()? {
        match change {
            Change::Push { key } => keys.push(key),
            Change::Replace { index, key } => keys[index] = key,
            Change::Write { rows } => assert!(rows.end <= keys.len(), "a write past the end"),
            Change::SwapRemove { index } => drop(keys.swap_remove(index)),
            Change::Swap { a, b } => keys.swap(a, b),
            Change::Permute { order } => {
                assert_eq!(order.len(), keys.len(), "a permutation of every row");
                keys = order.map(|old| keys[old]).collect();
            }
            Change::Truncate { len } => keys.truncate(len),
        }
    }
    Some(keys)
}

/// Brings `mirror` (the values when the journal was last cleared) up to `values` through the
/// journal's patch: resized to its length (new rows start as `fill`), then its dirty ranges
/// copied. Returns how many rows it copied.
///
/// # Panics
///
/// If the ranges and the scatter list of the patch disagree, or copy more than its dirty rows.
pub fn patch_values<K: Copy, V: Copy>(
    mirror: &mut Vec<V>,
    journal: &Journal<K>,
    values: &[V],
    fill: V,
) -> usize {
    let patch = journal.patch();
    mirror.resize(patch.len(), fill);
    let mut copied = 0;
    for rows in patch.ranges() {
        mirror[rows.clone()].copy_from_slice(&values[rows.clone()]);
        copied += rows.len();
    }
    assert_eq!(copied, patch.dirty_rows(), "the ranges copy the dirty rows");
    assert_eq!(patch.rows().count(), copied, "the scatter list and the ranges agree");
    copied
}

/// A hook's value as the [`Recorder`] keeps it: an owned copy of what the hook saw (a map's
/// value, or a derived storage's row view turned into the row).
pub trait Snapshot {
    /// The owned copy.
    type Owned: Copy + PartialEq + core::fmt::Debug;
    /// Copies the value.
    fn snapshot(&self) -> Self::Owned;
}

impl Snapshot for u64 {
    type Owned = u64;
    fn snapshot(&self) -> u64 {
        *self
    }
}

/// Rebuilds a storage's rows from its observer's events alone: what a hook-driven mirror holds.
/// A row handed out mutably is unknown (`None`) until an event says it again. Each event is
/// checked against the rows recorded so far (a push lands at the end, a removal names the key
/// and value the position held, the last row is the one that moves), so a wrong or missing
/// event fails at once or leaves rows that differ from the storage's.
#[derive(Clone, Debug)]
pub struct Recorder<K, T> {
    /// The rows in dense order: each key, with its value when known.
    pub rows: Vec<(K, Option<T>)>,
}

impl<K, T> Default for Recorder<K, T> {
    fn default() -> Self {
        Self { rows: Vec::new() }
    }
}

impl<K: Copy + PartialEq + core::fmt::Debug, T: Copy + PartialEq + core::fmt::Debug>
    Recorder<K, T>
{
    fn check(&self, index: usize, key: K, value: T) {
        let (recorded, known) = self.rows[index];
        assert_eq!(recorded, key, "the key at {index}");
        if let Some(known) = known {
            assert_eq!(known, value, "the value of {key:?}");
        }
    }

    /// Whether the recorded rows are `rows` (keys in order; values where known).
    pub fn matches(&self, rows: impl ExactSizeIterator<Item = (K, T)>) -> bool {
        self.rows.len() == rows.len()
            && self
                .rows
                .iter()
                .zip(rows)
                .all(|(&(key, known), (k, v))| key == k && known.is_none_or(|known| known == v))
    }
}

impl<K, V> Observer<K, V> for Recorder<K, V::Owned>
where
    K: Copy + PartialEq + core::fmt::Debug,
    V: Snapshot,
{
    fn inserted(&mut self, key: K, index: usize, value: &V) {
        assert_eq!(index, self.rows.len(), "a push lands at the end");
        self.rows.push((key, Some(value.snapshot())));
    }

    fn replaced(&mut self, key: K, index: usize, old: &V, new: &V) {
        self.check(index, key, old.snapshot());
        self.rows[index] = (key, Some(new.snapshot()));
    }

    fn removed(&mut self, key: K, value: &V, removed: Removed<K>) {
        match removed.moved {
            Some(moved) => {
                self.check(removed.index, key, value.snapshot());
                assert_eq!(moved.from, self.rows.len() - 1, "the last row moves");
                assert_eq!(self.rows[moved.from].0, moved.key);
                self.rows.swap_remove(removed.index);
            }
            // The rows from `index` on are gone: one row popped, or a drain (reported front to
            // back, the storage emptied first).
            None => {
                if removed.index < self.rows.len() {
                    self.check(removed.index, key, value.snapshot());
                    self.rows.truncate(removed.index);
                }
            }
        }
    }

    fn written(&mut self, rows: core::ops::Range<usize>) {
        for row in &mut self.rows[rows] {
            row.1 = None;
        }
    }

    fn swapped(&mut self, a: usize, b: usize) {
        self.rows.swap(a, b);
    }

    fn permuted(&mut self, permutation: &Permutation) {
        self.rows = permutation.order().iter().map(|&old| self.rows[old]).collect();
    }
}

impl Snapshot for () {
    type Owned = ();
    fn snapshot(&self) {}
}
