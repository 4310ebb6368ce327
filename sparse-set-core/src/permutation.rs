//! Reordering several arrays the same way: a permutation computed once, applied to each.

use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::error::{fail, try_reserve_exact};

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
    /// Computes in **O(n log n)** time and allocates **O(n)** memory: the permutation itself,
    /// and no scratch space (ties are broken by position, so an unstable sort gives the stable
    /// order).
    ///
    /// # Panics
    ///
    /// If `compare` panics, or the permutation's memory cannot be had (with the message of
    /// [`Error::AllocFailed`](crate::Error::AllocFailed)): before anything the caller sorts has
    /// moved.
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// let values = [3, 1, 2];
    /// let perm = Permutation::sorted_by(3, |a, b| values[a].cmp(&values[b]));
    /// assert_eq!(perm.order(), &[1, 2, 0]);
    /// ```
    #[track_caller]
    pub fn sorted_by(len: usize, mut compare: impl FnMut(usize, usize) -> Ordering) -> Self {
        let mut order = positions(len);
        order.sort_unstable_by(|&a, &b| compare(a, b).then(a.cmp(&b)));
        Self::from_order(order)
    }

    /// The permutation that sorts positions `0..len` by `compare`, not necessarily stably:
    /// positions that compare equal may end up in any order. Unlike the stable sort it needs no
    /// scratch memory beyond the permutation itself.
    ///
    /// Computes in **O(n log n)** time and allocates **O(n)** memory.
    ///
    /// # Panics
    ///
    /// As [`sorted_by`](Self::sorted_by).
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// let values = [3, 1, 2];
    /// let perm = Permutation::sorted_unstable_by(3, |a, b| values[a].cmp(&values[b]));
    /// assert_eq!(perm.order(), &[1, 2, 0]);
    /// ```
    #[track_caller]
    pub fn sorted_unstable_by(
        len: usize,
        mut compare: impl FnMut(usize, usize) -> Ordering,
    ) -> Self {
        let mut order = positions(len);
        order.sort_unstable_by(|&a, &b| compare(a, b));
        Self::from_order(order)
    }

    /// The permutation that stably sorts positions `0..len` by the key `f` extracts.
    ///
    /// Computes in **O(n log n)** time and allocates **O(n)** memory.
    ///
    /// # Panics
    ///
    /// As [`sorted_by`](Self::sorted_by).
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// let values = [3, 1, 2];
    /// let perm = Permutation::sorted_by_key(3, |i| values[i]);
    /// assert_eq!(perm.order(), &[1, 2, 0]);
    /// ```
    #[track_caller]
    pub fn sorted_by_key<T: Ord>(len: usize, mut f: impl FnMut(usize) -> T) -> Self {
        Self::sorted_by(len, |a, b| f(a).cmp(&f(b)))
    }

    /// Builds a permutation from `order`, where `order[new]` is the old position of what ends up
    /// at `new`; `None` unless `order` holds each of `0..order.len()` exactly once.
    ///
    /// Computes in **O(n)** time.
    ///
    /// # Panics
    ///
    /// If the memory for checking `order` and for the swaps cannot be had, with the message of
    /// [`Error::AllocFailed`](crate::Error::AllocFailed).
    ///
    /// ```
    /// # use sparse_set_core::Permutation;
    /// assert!(Permutation::from_vec(vec![2, 0, 1]).is_some());
    /// assert!(Permutation::from_vec(vec![0, 0, 1]).is_none());
    /// ```
    #[must_use]
    #[track_caller]
    pub fn from_vec(order: Vec<usize>) -> Option<Self> {
        let mut seen = flags(order.len());
        for &old in &order {
            if core::mem::replace(seen.get_mut(old)?, true) {
                return None;
            }
        }
        Some(Self::from_order(order))
    }

    /// The swaps that carry out `order`, which must be a permutation.
    #[track_caller]
    fn from_order(order: Vec<usize>) -> Self {
        let mut visited = flags(order.len());
        // At most one swap per position: reserved up front, so `push` never reallocates.
        let mut swaps = Vec::new();
        try_reserve_exact(&mut swaps, order.len()).unwrap_or_else(|error| fail(error));
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
    #[track_caller]
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

/// `0..len` as a vector, allocated fallibly (panicking with the error's message on failure,
/// where `collect` would abort).
#[track_caller]
fn positions(len: usize) -> Vec<usize> {
    let mut order = Vec::new();
    try_reserve_exact(&mut order, len).unwrap_or_else(|error| fail(error));
    order.extend(0..len);
    order
}

/// `len` times `false`, allocated fallibly (as `positions`).
#[track_caller]
fn flags(len: usize) -> Vec<bool> {
    let mut flags = Vec::new();
    try_reserve_exact(&mut flags, len).unwrap_or_else(|error| fail(error));
    flags.resize(len, false);
    flags
}

/// Below this many positions the in-place sort uses insertion sort.
const INSERTION_LEN: usize = 16;

/// Sorts positions `0..len` in place, unstably, allocating nothing: `less(context, a, b)` says
/// whether what is now at `a` goes before what is now at `b`, and `swap(context, a, b)`
/// exchanges them (in every array the caller keeps in lockstep).
///
/// An introsort: quicksort with a median-of-three pivot and a partition that stops at equal
/// elements, insertion sort for short runs, and heapsort once the quicksort has recursed
/// `2 log2 len` deep, so **O(len log len)** comparisons and swaps whatever the input. It
/// recurses into the shorter side only, so the stack stays **O(log len)**. Whatever `less`
/// answers (even if it is not a strict weak order) it ends, and only ever passes positions below
/// `len`.
pub(crate) fn sort_in_place<C>(
    context: &mut C,
    len: usize,
    less: impl FnMut(&C, usize, usize) -> bool,
    swap: impl FnMut(&mut C, usize, usize),
) {
    let depth = 2 * (usize::BITS - len.leading_zeros());
    InPlace { context, less, swap }.sort(0, len, depth);
}

/// The state of [`sort_in_place`].
struct InPlace<'c, C, L, S> {
    context: &'c mut C,
    less: L,
    swap: S,
}

impl<C, L, S> InPlace<'_, C, L, S>
where
    L: FnMut(&C, usize, usize) -> bool,
    S: FnMut(&mut C, usize, usize),
{
    fn less(&mut self, a: usize, b: usize) -> bool {
        (self.less)(self.context, a, b)
    }

    fn swap(&mut self, a: usize, b: usize) {
        if a != b {
            (self.swap)(self.context, a, b);
        }
    }

    /// Sorts positions `lo..hi`.
    fn sort(&mut self, mut lo: usize, mut hi: usize, mut depth: u32) {
        while hi - lo > INSERTION_LEN {
            if depth == 0 {
                self.heapsort(lo, hi);
                return;
            }
            depth -= 1;
            let pivot = self.partition(lo, hi);
            if pivot - lo < hi - pivot {
                self.sort(lo, pivot, depth);
                lo = pivot + 1;
            } else {
                self.sort(pivot + 1, hi, depth);
                hi = pivot;
            }
        }
        self.insertion_sort(lo, hi);
    }

    /// Moves a pivot (the median of the first, middle and last elements) to its place in
    /// `lo..hi` (at least 3 long), with nothing after it below it and nothing before it above it;
    /// returns where it went.
    fn partition(&mut self, lo: usize, hi: usize) -> usize {
        let (mid, last) = (lo + (hi - lo) / 2, hi - 1);
        if self.less(mid, lo) {
            self.swap(mid, lo);
        }
        if self.less(last, mid) {
            self.swap(last, mid);
            if self.less(mid, lo) {
                self.swap(mid, lo);
            }
        }
        self.swap(lo, mid);
        // `lo + 1..i` holds nothing above the pivot, `j + 1..hi` nothing below it; both scans
        // stop at elements equal to it, so runs of equal elements split evenly.
        let (mut i, mut j) = (lo + 1, last);
        loop {
            while i <= j && self.less(i, lo) {
                i += 1;
            }
            while i <= j && self.less(lo, j) {
                j -= 1;
            }
            if i >= j {
                break;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
        // `j` is at least `lo` and holds nothing above the pivot.
        self.swap(lo, j);
        j
    }

    fn insertion_sort(&mut self, lo: usize, hi: usize) {
        for i in lo + 1..hi {
            let mut j = i;
            while j > lo && self.less(j, j - 1) {
                self.swap(j - 1, j);
                j -= 1;
            }
        }
    }

    fn heapsort(&mut self, lo: usize, hi: usize) {
        let len = hi - lo;
        for root in (0..len / 2).rev() {
            self.sift_down(lo, root, len);
        }
        for end in (1..len).rev() {
            self.swap(lo, lo + end);
            self.sift_down(lo, 0, end);
        }
    }

    /// Restores the max-heap below `root` of the heap at `lo` with `end` elements.
    fn sift_down(&mut self, lo: usize, mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && self.less(lo + child, lo + child + 1) {
                child += 1;
            }
            if !self.less(lo + root, lo + child) {
                return;
            }
            self.swap(lo + root, lo + child);
            root = child;
        }
    }
}

/// Moves the elements of `target` that `order` names to its front, in `order`'s order
/// (`EnTT`'s `sort_as`), through `position_of` (an element's current position, if present) and
/// `swap`; returns how many moved to the front. An element listed twice stays where its first
/// mention put it. O(`order.len()`); allocates nothing.
pub(crate) fn sort_as_with<S: ?Sized, T: Copy>(
    target: &mut S,
    order: &[T],
    position_of: impl Fn(&S, T) -> Option<usize>,
    mut swap: impl FnMut(&mut S, usize, usize),
) -> usize {
    let mut front = 0;
    for &element in order {
        if let Some(position) = position_of(target, element) {
            // An element already placed sits before `front`: listed twice, it stays.
            if position >= front {
                swap(target, position, front);
                front += 1;
            }
        }
    }
    front
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

    /// A small deterministic stream (xorshift), enough to shuffle test inputs.
    fn stream(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// Sorts `values` with `sort_in_place` (at `depth`), checking every position it passes.
    fn sorted_in_place(values: &[u32], depth: u32) -> Vec<u32> {
        let mut values = values.to_vec();
        let len = values.len();
        let mut sorter = InPlace {
            context: &mut values,
            less: |values: &Vec<u32>, a: usize, b: usize| values[a] < values[b],
            swap: |values: &mut Vec<u32>, a: usize, b: usize| values.swap(a, b),
        };
        sorter.sort(0, len, depth);
        values
    }

    #[test]
    fn sort_in_place_matches_the_std_sort() {
        let mut next = stream(0x9E37_79B9_7F4A_7C15);
        let long: u32 = if cfg!(miri) { 120 } else { 3000 };
        let mut inputs: Vec<Vec<u32>> = Vec::new();
        // Every sequence of up to 6 values from 0..3 (4 under miri): ties, runs, every order.
        let short: u32 = if cfg!(miri) { 4 } else { 6 };
        for len in 0..=short {
            for code in 0..3_u32.pow(len) {
                inputs.push((0..len).map(|digit| code / 3_u32.pow(digit) % 3).collect());
            }
        }
        for len in [17_u32, 33, 100, long] {
            inputs.push((0..len).collect());
            inputs.push((0..len).rev().collect());
            inputs.push((0..len).map(|i| i.min(len - i)).collect());
            inputs.push((0..len).map(|_| (next() % 4) as u32).collect());
            inputs.push((0..len).map(|_| next() as u32).collect());
        }
        for input in &inputs {
            let mut expected = input.clone();
            expected.sort_unstable();
            let depth = 2 * (usize::BITS - input.len().leading_zeros());
            assert_eq!(sorted_in_place(input, depth), expected, "{input:?}");
            // Depth 0: heapsort from the start.
            assert_eq!(sorted_in_place(input, 0), expected, "heapsort of {input:?}");
        }
    }

    #[test]
    fn sort_in_place_ends_and_keeps_every_element_with_a_comparator_that_lies() {
        for len in [0, 1, 2, 16, 17, 40, 500] {
            let mut values: Vec<usize> = (0..len).collect();
            let mut answers = stream(len as u64 + 1);
            sort_in_place(
                &mut values,
                len,
                |_, _, _| answers() % 2 == 0,
                |values, a, b| {
                    values.swap(a, b);
                },
            );
            values.sort_unstable();
            assert_eq!(values, (0..len).collect::<Vec<_>>());
        }
    }

    #[test]
    fn stable_permutations_keep_the_order_of_equal_elements() {
        let values = [2, 1, 2, 0, 1, 2, 0];
        let perm = Permutation::sorted_by(values.len(), |a, b| values[a].cmp(&values[b]));
        assert_eq!(perm.order(), &[3, 6, 1, 4, 0, 2, 5]);
        let perm = Permutation::sorted_by_key(values.len(), |i| core::cmp::Reverse(values[i]));
        assert_eq!(perm.order(), &[0, 2, 5, 1, 4, 3, 6]);
    }
}
