//! Reordering a map: `retain`, swaps and sorts. The keys move through the set's engines and the
//! values follow every move, so the map's invariant holds also while unwinding.

use core::cmp::Ordering;

use crate::dense::DenseIndex;
use crate::key::Key;
use crate::map::SparseMap;
use crate::observe::Observer;
use crate::permutation::Permutation;
#[cfg(doc)]
use crate::set::SparseSet;
use crate::storage::Columnar;

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> SparseMap<K, V, D, O> {
    /// Keeps only the elements for which `keep` returns `true`, visiting each element exactly
    /// once in dense order; `keep` may change the value. Kept elements keep their relative order.
    /// An observer hears every row written first (`keep` is handed each value mutably), then
    /// each removal.
    ///
    /// If `keep` panics, the map stays consistent and still holds every element (in an
    /// unspecified order). If dropping a removed value panics, the map already holds exactly
    /// the kept elements and the other removed values are still dropped.
    ///
    /// Computes in **O(len)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, u32> = (0..6).map(|key| (key, key * 10)).collect();
    /// map.retain(|key, value| {
    ///     *value += 1;
    ///     key % 2 == 0
    /// });
    /// assert_eq!(map.keys(), &[0, 2, 4]);
    /// assert_eq!(map.values(), &[1, 21, 41]);
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(K, &mut V) -> bool) {
        if O::OBSERVES {
            // `keep` sees every value mutably: all count as written. Then the same moves, each
            // reported, and the rejected tail popped row by row.
            self.observer.written(0..self.len());
            let mut kept = 0;
            for read in 0..self.len() {
                if keep(self.set.as_slice()[read], &mut self.values[read]) {
                    if kept != read {
                        self.swap_indices(kept, read);
                    }
                    kept += 1;
                }
            }
            self.truncate(kept);
            return;
        }
        let kept = self.set.retain_with(
            &mut self.values,
            |values, index, key| keep(key, &mut values[index]),
            |values, a, b| values.swap(a, b),
        );
        // The set is already truncated, and `Vec::truncate` shortens before it drops.
        self.values.truncate(kept);
    }

    /// Swaps the elements at dense positions `a` and `b`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// # Panics
    ///
    /// If `a` or `b` is out of bounds; the map is then unchanged.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
    /// map.swap_indices(0, 1);
    /// assert_eq!(map.keys(), &[2, 1]);
    /// assert_eq!(map.values(), &['b', 'a']);
    /// ```
    #[track_caller]
    pub fn swap_indices(&mut self, a: usize, b: usize) {
        self.set.swap_indices(a, b);
        self.values.swap(a, b);
        self.observer.swapped(a, b);
    }

    /// Sorts the elements (stable) with a comparator that sees both keys and both values.
    ///
    /// Keys and values are reordered by one [`Permutation`], computed before anything moves: if
    /// `compare` panics the map is unchanged.
    ///
    /// Computes in **O(len log len)** time and allocates **O(len)** memory, also for a bounded
    /// map (the unstable sorts of a map without an observer allocate nothing).
    ///
    /// # Panics
    ///
    /// If `compare` panics, or the permutation's memory cannot be had: the map is then
    /// unchanged.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(1, 'c'), (2, 'a'), (3, 'b')].into_iter().collect();
    /// map.sort_by(|_, a, _, b| a.cmp(b));
    /// assert_eq!(map.keys(), &[2, 3, 1]);
    /// assert_eq!(map.get_index_of(1), Some(2));
    /// ```
    pub fn sort_by(&mut self, mut compare: impl FnMut(&K, &V, &K, &V) -> Ordering) {
        let (keys, values) = (self.set.as_slice(), &self.values);
        let permutation = Permutation::sorted_by(keys.len(), |a, b| {
            compare(&keys[a], &values[a], &keys[b], &values[b])
        });
        self.apply_permutation(&permutation);
    }

    /// Sorts the elements (unstable) with a comparator that sees both keys and both values, in
    /// place: elements that compare equal may be reordered, and nothing is allocated (a
    /// bounded map stays allocation-free). A map with an [`Observer`] sorts through one
    /// [`Permutation`] of `len` positions instead, which it reports.
    ///
    /// Keys and values are swapped together
    /// ([`SparseSet::sort_unstable_with`]), so if `compare` panics the map holds the same
    /// elements, each key with its value, in some order.
    ///
    /// Computes in **O(len log len)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, u32> = [(1, 30), (2, 10), (3, 20)].into_iter().collect();
    /// map.sort_unstable_by(|_, a, _, b| b.cmp(a));
    /// assert_eq!(map.values(), &[30, 20, 10]);
    /// assert_eq!(map.keys(), &[1, 3, 2]);
    /// ```
    pub fn sort_unstable_by(&mut self, mut compare: impl FnMut(&K, &V, &K, &V) -> Ordering) {
        if O::OBSERVES {
            // An observer hears of one permutation, not of each swap.
            let (keys, values) = (self.set.as_slice(), &self.values);
            let permutation = Permutation::sorted_unstable_by(keys.len(), |a, b| {
                compare(&keys[a], &values[a], &keys[b], &values[b])
            });
            self.apply_permutation(&permutation);
            return;
        }
        self.set.sort_unstable_with(
            &mut self.values,
            |values, keys, a, b| compare(&keys[a], &values[a], &keys[b], &values[b]),
            |values, a, b| values.swap(a, b),
        );
    }

    /// Sorts the elements (stable) by the key `f` extracts from each key and value.
    ///
    /// Computes in **O(len log len)** time and allocates **O(len)** memory.
    ///
    /// # Panics
    ///
    /// If `f` panics, or the permutation's memory cannot be had: the map is then unchanged.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, &str> =
    ///     [(1, "ccc"), (2, "a"), (3, "bb")].into_iter().collect();
    /// map.sort_by_key(|_, name| name.len());
    /// assert_eq!(map.keys(), &[2, 3, 1]);
    /// ```
    pub fn sort_by_key<T: Ord>(&mut self, mut f: impl FnMut(&K, &V) -> T) {
        self.sort_by(|ka, va, kb, vb| f(ka, va).cmp(&f(kb, vb)));
    }

    /// Sorts the elements by key, ascending, in place: no allocation (but see
    /// [`sort_unstable_by`](Self::sort_unstable_by) for a map with an [`Observer`]).
    ///
    /// Computes in **O(len log len)** time. If `K::cmp` panics, see
    /// [`sort_unstable_by`](Self::sort_unstable_by).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(3, 'c'), (1, 'a'), (2, 'b')].into_iter().collect();
    /// map.sort_keys();
    /// assert_eq!(map.keys(), &[1, 2, 3]);
    /// assert_eq!(map.values(), &['a', 'b', 'c']);
    /// ```
    pub fn sort_keys(&mut self)
    where
        K: Ord,
    {
        // Keys are unique, so the unstable sort gives the one ascending order.
        self.sort_unstable_by(|a, _, b, _| a.cmp(b));
    }

    /// Reorders keys and values by the same permutation. Cannot panic: the lengths match.
    fn apply_permutation(&mut self, permutation: &Permutation) {
        self.set.apply_permutation(permutation);
        permutation.apply(&mut self.values);
        self.observer.permuted(permutation);
    }

    /// Reorders the map to follow `order` (`EnTT`'s `sort_as`): the keys of `order` that the map
    /// holds move to the front with their values, in the order they have in `order`; the
    /// other elements follow, in an unspecified order. Returns how many moved to the front.
    /// See [`Columnar::sort_as`].
    ///
    /// Computes in **O(`order.len()`)** time; allocates nothing.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b'), (3, 'c')].into_iter().collect();
    /// assert_eq!(map.sort_as(&[3, 2]), 2);
    /// assert_eq!(&map.values()[..2], &['c', 'b']);
    /// ```
    pub fn sort_as(&mut self, order: &[K]) -> usize {
        Columnar::sort_as(self, order)
    }
}
