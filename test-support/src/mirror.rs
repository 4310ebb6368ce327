//! Mirrors kept in sync through a [`Journal`], as the change-event tests, the panic sweep and
//! the fuzz target check them: a mirror of the keys replays the ordered changes, a copy mirror
//! of the values copies the patch. Each panics on a change that cannot apply to the mirror.

use sparse_set_core::observe::{Change, Journal};

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
