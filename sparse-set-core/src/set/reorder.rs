//! Reordering a set in bulk: the retain engine (`retain_with`: visit, swap forward, truncate),
//! the in-place sort engine (`sort_unstable_with`, an introsort whose every swap the caller's
//! columns follow), the stable sorts (in place, ties broken by the position each key's slot
//! still holds; through one [`Permutation`] when the set has an observer), and `sort_as`. Each
//! keeps the set's invariant: slots are re-pointed once, at the end or while unwinding.

use core::cmp::Ordering;

use crate::dense::DenseIndex;
use crate::error::fail_swap;
use crate::key::Key;
use crate::observe::Observer;
use crate::permutation::{Permutation, sort_as_with};
use crate::set::SparseSet;

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> SparseSet<K, D, O> {
    /// Keeps only the keys for which `keep` returns `true`, visiting each key exactly once in
    /// dense order. Kept keys keep their relative order.
    ///
    /// If `keep` panics the set stays consistent and holds every key not yet removed, in an
    /// unspecified order.
    ///
    /// Computes in **O(len)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = (0..6).collect();
    /// set.retain(|&key| key % 2 == 0);
    /// assert_eq!(set.as_slice(), &[0, 2, 4]);
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        self.retain_with(&mut (), |(), _, key| keep(&key), |(), _, _| ());
    }

    /// The retain engine, for a set with arrays kept beside it ("columns"): keeps only the keys
    /// for which `keep` returns `true` and moves the columns along. Returns the new length, to
    /// which the caller truncates its columns.
    ///
    /// Each dense position is visited once, in order: `keep(columns, index, key)` sees the
    /// element at `index` of every column (and may change it). A kept key that must move forward
    /// is swapped with the first removed one, and `swap(columns, a, b)` mirrors that swap in the
    /// columns. Then the set is truncated; the columns are not, so the caller decides how (for
    /// several columns, one that panics while dropping must not stop the others).
    ///
    /// If `keep` or `swap` panics, the set holds every key not yet removed, consistently, and
    /// has moved them exactly as the `swap` calls made so far said.
    ///
    /// This is what [`retain`](Self::retain), [`SparseMap::retain`](crate::SparseMap::retain)
    /// and the derived storages' `retain` are built on.
    ///
    /// Computes in **O(len)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    ///
    /// let mut ids: SparseSet<u32> = [1, 2, 3, 4].into_iter().collect();
    /// let mut names = vec!["one", "two", "three", "four"]; // runs parallel to `ids`
    /// let len = ids.retain_with(
    ///     &mut names,
    ///     |names, index, key| key % 2 == 0 && !names[index].is_empty(),
    ///     |names, a, b| names.swap(a, b),
    /// );
    /// names.truncate(len);
    /// assert_eq!(ids.as_slice(), &[2, 4]);
    /// assert_eq!(names, ["two", "four"]);
    /// ```
    pub fn retain_with<C: ?Sized>(
        &mut self,
        columns: &mut C,
        mut keep: impl FnMut(&mut C, usize, K) -> bool,
        mut swap: impl FnMut(&mut C, usize, usize),
    ) -> usize {
        let mut kept = 0;
        for read in 0..self.dense.len() {
            if keep(columns, read, self.dense[read]) {
                if kept != read {
                    self.swap_indices(kept, read);
                    swap(columns, kept, read);
                }
                kept += 1;
            }
        }
        self.truncate(kept);
        kept
    }

    /// Swaps the keys at dense positions `a` and `b`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// # Panics
    ///
    /// If `a` or `b` is out of bounds (the message names both and the length); the set is then
    /// unchanged.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 2].into_iter().collect();
    /// set.swap_indices(0, 1);
    /// assert_eq!(set.as_slice(), &[2, 1]);
    /// assert_eq!(set.get_index_of(1), Some(1));
    /// ```
    // The panic is a cold call, so the common path keeps `a`, `b` and the length in registers
    // (no message arguments stored); both keys are read before either slot is written, so a
    // write past the prefix (a call) does not make the second read check its bound again.
    #[inline]
    #[track_caller]
    pub fn swap_indices(&mut self, a: usize, b: usize) {
        let len = self.dense.len();
        if a >= len || b >= len {
            fail_swap(a, b, len);
        }
        self.dense.swap(a, b);
        let (key_a, key_b) = (self.dense[a], self.dense[b]);
        self.sparse.set_in(key_a.sparse_slot(), D::from_usize(a + 1), Self::STRIDE);
        self.sparse.set_in(key_b.sparse_slot(), D::from_usize(b + 1), Self::STRIDE);
        self.observer.swapped(a, b);
    }

    /// Sorts the keys (unstable) and re-points their slots. No allocation (but see
    /// [`sort_unstable_by`](Self::sort_unstable_by) for a set with an [`Observer`]).
    ///
    /// Computes in **O(len log len)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [3, 1, 2].into_iter().collect();
    /// set.sort_unstable();
    /// assert_eq!(set.as_slice(), &[1, 2, 3]);
    /// assert_eq!(set.get_index_of(3), Some(2));
    /// ```
    pub fn sort_unstable(&mut self)
    where
        K: Ord,
    {
        self.sort_unstable_by(K::cmp);
    }

    /// Sorts the keys: [`sort_unstable`](Self::sort_unstable) under the name every other
    /// storage gives its sort by key (`SparseMap::sort_keys`, a derived storage's and a
    /// group's), so that a tag sorts as they do. The keys are distinct, so a stable sort would
    /// give the same order; this one allocates nothing (but see
    /// [`sort_unstable_by`](Self::sort_unstable_by) for a set with an [`Observer`]).
    ///
    /// Computes in **O(len log len)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [3, 1, 2].into_iter().collect();
    /// set.sort_keys();
    /// assert_eq!(set.as_slice(), &[1, 2, 3]);
    /// ```
    pub fn sort_keys(&mut self)
    where
        K: Ord,
    {
        self.sort_unstable();
    }

    /// Sorts the keys with a comparator (unstable) and re-points their slots. A set with an
    /// [`Observer`] sorts through one [`Permutation`] of `len` positions instead (allocated),
    /// which it reports.
    ///
    /// Computes in **O(len log len)** time. If `compare` panics the keys are in some order and
    /// the set is consistent (unchanged, for a set with an observer).
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 3, 2].into_iter().collect();
    /// set.sort_unstable_by(|a, b| b.cmp(a));
    /// assert_eq!(set.as_slice(), &[3, 2, 1]);
    /// ```
    pub fn sort_unstable_by(&mut self, mut compare: impl FnMut(&K, &K) -> Ordering) {
        if O::OBSERVES {
            return self.sort_through(|keys| {
                Permutation::sorted_unstable_by(keys.len(), |a, b| compare(&keys[a], &keys[b]))
            });
        }
        let guard = Repoint(self);
        guard.0.dense.sort_unstable_by(compare);
    }

    /// Sorts the keys with a comparator (stable) and re-points their slots. No allocation.
    ///
    /// Keys that compare equal keep their order: ties are broken by the position each key had
    /// before the sort, which its slot still holds while the keys move (the slots are re-pointed
    /// once, at the end). So unlike `slice::sort_by`, this needs no scratch memory, and a
    /// bounded set stays allocation-free. A set with an [`Observer`] sorts through one
    /// [`Permutation`] instead (allocated), which it reports.
    ///
    /// Computes in **O(len log len)** time. If `compare` panics the keys are in some order and
    /// the set is consistent (unchanged, for a set with an observer).
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 3, 2, 13].into_iter().collect();
    /// set.sort_by(|a, b| (b % 10).cmp(&(a % 10)));
    /// assert_eq!(set.as_slice(), &[3, 13, 2, 1]); // 3 stays before 13
    /// ```
    pub fn sort_by(&mut self, mut compare: impl FnMut(&K, &K) -> Ordering) {
        if O::OBSERVES {
            return self.sort_through(|keys| {
                Permutation::sorted_by(keys.len(), |a, b| compare(&keys[a], &keys[b]))
            });
        }
        let guard = Repoint(self);
        let SparseSet { dense, sparse, .. } = &mut *guard.0;
        let before = |key: &K| sparse.get(key.sparse_slot());
        dense.sort_unstable_by(|a, b| compare(a, b).then_with(|| before(a).cmp(&before(b))));
    }

    /// Sorts the keys by an extracted key (stable) and re-points their slots. No allocation.
    ///
    /// Computes in **O(len log len)** time; see [`sort_by`](Self::sort_by).
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [15, 21, 4].into_iter().collect();
    /// set.sort_by_key(|&key| key % 10);
    /// assert_eq!(set.as_slice(), &[21, 4, 15]);
    /// ```
    pub fn sort_by_key<T: Ord>(&mut self, mut f: impl FnMut(&K) -> T) {
        self.sort_by(|a, b| f(a).cmp(&f(b)));
    }

    /// The sort engine, for a set with arrays kept beside it ("columns"): sorts the keys
    /// (unstably) and moves the columns along, in place, allocating nothing.
    ///
    /// `compare(columns, keys, a, b)` orders the elements now at positions `a` and `b` (it may
    /// read the keys and every column); each swap of two keys is mirrored in the columns by
    /// `swap(columns, a, b)`. The slots are re-pointed once, at the end. The algorithm is an
    /// introsort (quicksort, insertion sort for short runs, heapsort past a depth limit), so it
    /// stays **O(len log len)** whatever the input, and it ends and stays in bounds even if
    /// `compare` is not a total order.
    ///
    /// If `compare` panics, the set is consistent and holds the same keys, in the order the
    /// `swap` calls made so far say: columns that follow every swap stay in lockstep. (Each
    /// swap of two keys is made just before `swap` is called for it.)
    ///
    /// This is what [`SparseMap::sort_unstable_by`](crate::SparseMap::sort_unstable_by) and
    /// the derived storages' `sort_unstable_by` are built on.
    ///
    /// A set with an [`Observer`] sorts through one [`Permutation`] instead (allocated, computed
    /// before anything moves, so a `compare` that panics changes nothing), reported as one
    /// `permuted`; the keys and the columns follow its swaps together. If `swap` panics, keys and
    /// columns stay in lockstep as above, and the observer hears of nothing: a mirror of the
    /// set must then rebuild.
    ///
    /// Computes in **O(len log len)** time, with **O(len log len)** swaps.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    ///
    /// let mut ids: SparseSet<u32> = [1, 2, 3].into_iter().collect();
    /// let mut names = vec!["one", "two", "three"]; // runs parallel to `ids`
    /// ids.sort_unstable_with(
    ///     &mut names,
    ///     |names, _, a, b| names[a].cmp(names[b]),
    ///     |names, a, b| names.swap(a, b),
    /// );
    /// assert_eq!(names, ["one", "three", "two"]);
    /// assert_eq!(ids.as_slice(), &[1, 3, 2]);
    /// assert_eq!(ids.get_index_of(2), Some(2));
    /// ```
    pub fn sort_unstable_with<C: ?Sized>(
        &mut self,
        columns: &mut C,
        mut compare: impl FnMut(&C, &[K], usize, usize) -> Ordering,
        mut swap: impl FnMut(&mut C, usize, usize),
    ) {
        if O::OBSERVES {
            let keys = self.as_slice();
            let permutation =
                Permutation::sorted_unstable_by(keys.len(), |a, b| compare(columns, keys, a, b));
            {
                // Each swap of two keys just before the columns', as below.
                let guard = Repoint(self);
                let dense = &mut guard.0.dense;
                permutation.for_each_swap(|a, b| {
                    dense.swap(a, b);
                    swap(columns, a, b);
                });
            }
            self.observer.permuted(&permutation);
            return;
        }
        let guard = Repoint(self);
        let dense = &mut guard.0.dense;
        let len = dense.len();
        crate::permutation::sort_in_place(
            &mut (dense, columns),
            len,
            |(dense, columns), a, b| compare(columns, dense, a, b) == Ordering::Less,
            |(dense, columns), a, b| {
                dense.swap(a, b);
                swap(columns, a, b);
            },
        );
    }

    /// Reorders the set to follow `order` (`EnTT`'s `sort_as`): the keys of `order` that the set
    /// holds move to the front, in the order they have in `order`; the other keys follow, in
    /// an unspecified order. Returns how many keys moved to the front. See
    /// [`Columnar::sort_as`](crate::Columnar::sort_as).
    ///
    /// Computes in **O(`order.len()`)** time; allocates nothing.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 2, 3, 4].into_iter().collect();
    /// assert_eq!(set.sort_as(&[3, 1, 7]), 2);
    /// assert_eq!(&set.as_slice()[..2], &[3, 1]);
    /// ```
    pub fn sort_as(&mut self, order: &[K]) -> usize {
        sort_as_with(self, order, Self::get_index_of, Self::swap_indices)
    }

    /// Reorders the keys by `permutation` (see [`Permutation`]) and re-points their slots, so
    /// that arrays parallel to the set can follow with [`Permutation::apply`].
    ///
    /// Computes in **O(len)** time.
    ///
    /// # Panics
    ///
    /// If `permutation.len() != self.len()`; the set is then unchanged.
    ///
    /// ```
    /// use sparse_set_core::{Permutation, SparseSet};
    ///
    /// let mut set: SparseSet<u32> = [5, 6, 7].into_iter().collect();
    /// let reverse = Permutation::from_vec(vec![2, 1, 0]).unwrap();
    /// set.apply_permutation(&reverse);
    /// assert_eq!(set.as_slice(), &[7, 6, 5]);
    /// assert_eq!(set.get_index_of(7), Some(0));
    /// ```
    #[track_caller]
    pub fn apply_permutation(&mut self, permutation: &Permutation) {
        permutation.apply(&mut self.dense);
        self.repoint_all();
        self.observer.permuted(permutation);
    }

    /// How a set with an [`Observer`] sorts: through the one permutation `sorted` computes from
    /// the keys before any of them moves (so a comparator that panics leaves the set as it
    /// was), applied and reported as one [`permuted`](Observer::permuted).
    fn sort_through(&mut self, sorted: impl FnOnce(&[K]) -> Permutation) {
        let permutation = sorted(self.as_slice());
        self.apply_permutation(&permutation);
    }

    /// Points every key's slot at its position: restores the invariant after a reorder.
    fn repoint_all(&mut self) {
        for (position, key) in self.dense.iter().enumerate() {
            self.sparse.set(key.sparse_slot(), D::from_usize(position + 1));
        }
    }
}

/// Re-points every slot when dropped, so a sort whose comparator panics leaves the set
/// consistent.
struct Repoint<'a, K: Key, D: DenseIndex, O: Observer<K, ()>>(&'a mut SparseSet<K, D, O>);

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> Drop for Repoint<'_, K, D, O> {
    fn drop(&mut self) {
        self.0.repoint_all();
    }
}
