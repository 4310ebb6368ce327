//! [`Removed`] and [`Moved`]: what a swap-remove did to a dense array, as
//! [`SparseSet::remove_with_info`](crate::SparseSet::remove_with_info) returns it and as an
//! [`Observer`](crate::observe::Observer) hears of it. Plain data, below both.

/// What [`SparseSet::remove_with_info`](crate::SparseSet::remove_with_info) reports: where the removed key was, and which key moved
/// into its place.
///
/// Removal is a swap-remove: the last key moves into the vacated position. Arrays that run
/// parallel to the set stay in lockstep with `Vec::swap_remove(removed.index)`, or, for fixed
/// arrays, by copying position `moved.from` into `removed.index`.
///
/// ```
/// use sparse_set_core::{Moved, Removed, SparseSet};
///
/// let mut set: SparseSet<u32> = [10, 20, 30].into_iter().collect();
/// let info = set.remove_with_info(10).unwrap();
/// assert_eq!(info, Removed { index: 0, moved: Some(Moved { key: 30, from: 2 }) });
/// // Removing the last key moves nothing.
/// assert_eq!(set.remove_with_info(20).unwrap(), Removed { index: 1, moved: None });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Removed<K> {
    /// The dense position the removed key occupied.
    pub index: usize,
    /// The key moved into `index` to fill the gap; `None` when the removed key was last.
    pub moved: Option<Moved<K>>,
}

/// The key a swap-remove moved, and the position it came from (the old last position).
///
/// ```
/// use sparse_set_core::{Moved, SparseSet};
///
/// let mut set: SparseSet<u32> = [1, 2].into_iter().collect();
/// let moved = set.remove_with_info(1).unwrap().moved;
/// assert_eq!(moved, Some(Moved { key: 2, from: 1 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Moved<K> {
    /// The key now at the removed key's position.
    pub key: K,
    /// Where `key` was before: always the position just past the new end.
    pub from: usize,
}
