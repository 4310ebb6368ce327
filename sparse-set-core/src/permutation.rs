//! Reordering several arrays the same way: a permutation computed once, applied to each.

use alloc::vec::Vec;
use core::cmp::Ordering;

/// A reordering of dense positions: after it is applied, position `new` holds what position
/// `order()[new]` held before.
///
/// Sorting an index and the arrays that run parallel to it ("columns") works in two steps: sort
/// the positions once (the comparator may read any column), then apply the one permutation to
/// the index ([`SparseSet::apply_permutation`](crate::SparseSet::apply_permutation)) and to every
/// column ([`Permutation::apply`]). Applying costs **O(n)** swaps per array, and a comparator that
/// panics does so before anything has moved.
///
/// ```
/// use sparse_set_core::{Permutation, SparseSet};
///
/// let mut ids: SparseSet<u32> = [30, 10, 20].into_iter().collect();
/// let mut names = vec!["thirty", "ten", "twenty"]; // runs parallel to `ids`
///
/// let keys = ids.as_slice();
/// let perm = Permutation::sorted_by(keys.len(), |a, b| keys[a].cmp(&keys[b]));
/// ids.apply_permutation(&perm);
/// perm.apply(&mut names);
///
/// assert_eq!(ids.as_slice(), &[10, 20, 30]);
/// assert_eq!(names, ["ten", "twenty", "thirty"]);
/// assert_eq!(ids.get_index_of(20), Some(1));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permutation {
    order: Vec<usize>,
    /// The swaps that carry out `order` in place, in sequence.
    swaps: Vec<(usize, usize)>,
}

impl Permutation {
    /// The permutation that stably sorts positions `0..len` by `compare`.
    ///
    /// Computes in **O(n log n)** time and allocates **O(n)** memory.
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// let values = [3, 1, 2];
    /// let perm = Permutation::sorted_by(3, |a, b| values[a].cmp(&values[b]));
    /// assert_eq!(perm.order(), &[1, 2, 0]);
    /// ```
    pub fn sorted_by(len: usize, mut compare: impl FnMut(usize, usize) -> Ordering) -> Self {
        let mut order: Vec<usize> = (0..len).collect();
        order.sort_by(|&a, &b| compare(a, b));
        Self::from_order(order)
    }

    /// The permutation that sorts positions `0..len` by `compare`, not necessarily stably:
    /// positions that compare equal may end up in any order. Unlike the stable sort it needs no
    /// scratch memory beyond the permutation itself.
    ///
    /// Computes in **O(n log n)** time and allocates **O(n)** memory.
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// let values = [3, 1, 2];
    /// let perm = Permutation::sorted_unstable_by(3, |a, b| values[a].cmp(&values[b]));
    /// assert_eq!(perm.order(), &[1, 2, 0]);
    /// ```
    pub fn sorted_unstable_by(
        len: usize,
        mut compare: impl FnMut(usize, usize) -> Ordering,
    ) -> Self {
        let mut order: Vec<usize> = (0..len).collect();
        order.sort_unstable_by(|&a, &b| compare(a, b));
        Self::from_order(order)
    }

    /// The permutation that stably sorts positions `0..len` by the key `f` extracts.
    ///
    /// Computes in **O(n log n)** time and allocates **O(n)** memory.
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// let values = [3, 1, 2];
    /// let perm = Permutation::sorted_by_key(3, |i| values[i]);
    /// assert_eq!(perm.order(), &[1, 2, 0]);
    /// ```
    pub fn sorted_by_key<T: Ord>(len: usize, mut f: impl FnMut(usize) -> T) -> Self {
        Self::sorted_by(len, |a, b| f(a).cmp(&f(b)))
    }

    /// Builds a permutation from `order`, where `order[new]` is the old position of what ends up
    /// at `new`; `None` unless `order` holds each of `0..order.len()` exactly once.
    ///
    /// Computes in **O(n)** time.
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// assert!(Permutation::from_vec(vec![2, 0, 1]).is_some());
    /// assert!(Permutation::from_vec(vec![0, 0, 1]).is_none());
    /// ```
    #[must_use]
    pub fn from_vec(order: Vec<usize>) -> Option<Self> {
        let mut seen = alloc::vec![false; order.len()];
        for &old in &order {
            if core::mem::replace(seen.get_mut(old)?, true) {
                return None;
            }
        }
        Some(Self::from_order(order))
    }

    fn from_order(order: Vec<usize>) -> Self {
        let mut visited = alloc::vec![false; order.len()];
        let mut swaps = Vec::new();
        for start in 0..order.len() {
            if visited[start] {
                continue;
            }
            let mut at = start;
            loop {
                visited[at] = true;
                let from = order[at];
                if from == start {
                    break;
                }
                swaps.push((at, from));
                at = from;
            }
        }
        Self { order, swaps }
    }

    /// The old position of what lands at each new position.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// let perm = Permutation::from_vec(vec![1, 0]).unwrap();
    /// assert_eq!(perm.order(), &[1, 0]);
    /// ```
    #[must_use]
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The number of positions permuted.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// assert_eq!(Permutation::sorted_by_key(4, |i| i).len(), 4);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the permutation is of zero positions.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// assert!(Permutation::sorted_by_key(0, |i| i).is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Calls `swap(a, b)` for each swap of positions that carries out the permutation, in
    /// order: what [`apply`](Self::apply) does to a slice, for arrays that are not one (several
    /// storages moved together, each through its own `swap_indices`).
    ///
    /// Computes in **O(n)** time with at most `n - 1` calls; never allocates.
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// let perm = Permutation::from_vec(vec![2, 0, 1]).unwrap();
    /// let mut items = vec!['a', 'b', 'c'];
    /// perm.for_each_swap(|a, b| items.swap(a, b));
    /// assert_eq!(items, ['c', 'a', 'b']);
    /// ```
    pub fn for_each_swap(&self, mut swap: impl FnMut(usize, usize)) {
        for &(a, b) in &self.swaps {
            swap(a, b);
        }
    }

    /// Reorders `items` in place: afterwards `items[new]` is what `items[order()[new]]` was.
    ///
    /// Computes in **O(n)** time with at most `n - 1` swaps; never allocates.
    ///
    /// # Panics
    ///
    /// If `items.len()` differs from [`len`](Self::len); `items` is then left untouched.
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// let perm = Permutation::from_vec(vec![2, 0, 1]).unwrap();
    /// let mut items = ['a', 'b', 'c'];
    /// perm.apply(&mut items);
    /// assert_eq!(items, ['c', 'a', 'b']);
    /// ```
    pub fn apply<T>(&self, items: &mut [T]) {
        assert_eq!(
            items.len(),
            self.order.len(),
            "permutation of {} positions applied to a slice of length {}",
            self.order.len(),
            items.len()
        );
        for &(a, b) in &self.swaps {
            items.swap(a, b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    #[test]
    fn apply_matches_the_order_for_every_permutation_of_four() {
        let mut count = 0;
        // Every candidate of 4^4, keeping the 4! that are permutations: simple enough to trust.
        for a in 0..4 {
            for b in 0..4 {
                for c in 0..4 {
                    for d in 0..4 {
                        let candidate = vec![a, b, c, d];
                        let Some(perm) = Permutation::from_vec(candidate.clone()) else { continue };
                        count += 1;
                        let mut items = [10_usize, 11, 12, 13];
                        perm.apply(&mut items);
                        let expected: Vec<usize> = candidate.iter().map(|&old| 10 + old).collect();
                        assert_eq!(items.to_vec(), expected, "order {candidate:?}");
                    }
                }
            }
        }
        assert_eq!(count, 24);
    }
}
