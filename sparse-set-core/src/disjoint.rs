//! Several rows of one storage, mutably, at once (`get_disjoint_mut` of maps and derived
//! storages).
//!
//! # Invariant
//!
//! Distinct keys have distinct dense positions, so a column splits between them: every
//! position [`positions`] hands out is in bounds and named once, and [`rows_mut`] gives each
//! one the only reference to its element. No `unsafe`: the slice is split at each position in
//! ascending order.

use core::fmt;

use crate::dense::DenseIndex;
use crate::key::Key;
use crate::set::SparseSet;

/// The dense position of each of `keys` in `set` (`None` for a key not in it), in the order of
/// `keys`; no position appears twice.
///
/// Computes in **O(N²)** time for `N` keys (they are compared pairwise).
///
/// # Panics
///
/// If two of `keys` are equal, whether or not they are in the set.
#[track_caller]
pub fn positions<K: Key, D: DenseIndex, const N: usize>(
    set: &SparseSet<K, D>,
    keys: [K; N],
) -> [Option<usize>; N] {
    for (i, key) in keys.iter().enumerate() {
        if keys[..i].contains(key) {
            duplicate(key);
        }
    }
    let mut positions = keys.map(|key| set.get_index_of(key));
    // A second key at a position already named: only a `Key` implemented wrongly (see the
    // `Key` docs) does that. It gets `None` rather than an alias.
    for i in 0..N {
        if positions[i].is_some() && positions[..i].contains(&positions[i]) {
            positions[i] = None;
        }
    }
    positions
}

#[cold]
#[inline(never)]
#[track_caller]
fn duplicate(key: &impl fmt::Debug) -> ! {
    panic!("duplicate key {key:?} passed to get_disjoint_mut")
}

/// The elements of `column` at `positions` (distinct, in bounds: what [`positions`] returns),
/// mutably, in the order of `positions`.
///
/// Computes in **O(N log N)** time for `N` positions.
pub fn rows_mut<T, const N: usize>(
    column: &mut [T],
    mut positions: [Option<usize>; N],
) -> [Option<&mut T>; N] {
    let mut order: [usize; N] = core::array::from_fn(|place| place);
    order.sort_unstable_by_key(|&place| positions[place]);
    let mut rows: [Option<&mut T>; N] = core::array::from_fn(|_| None);
    let mut rest = column;
    let mut start = 0;
    for place in order {
        let Some(index) = positions[place].take() else { continue };
        // Ascending and distinct: each position is at or past `start`.
        let (head, tail) = core::mem::take(&mut rest).split_at_mut(index - start + 1);
        rows[place] = head.last_mut();
        rest = tail;
        start = index + 1;
    }
    rows
}
