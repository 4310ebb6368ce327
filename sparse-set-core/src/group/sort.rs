//! Sorting a group. The stable sorts compute one [`Permutation`] of the aligned prefix from the
//! keys and views and then apply it to every member through `swap_indices`, so a comparator
//! that panics does so before anything has moved. The unstable sorts run the in-place
//! introsort (`permutation::sort_in_place`) whose every swap moves every member at once, so
//! they allocate nothing (a group of bounded storages stays allocation-free) and a comparator
//! that panics leaves the prefix aligned, in the order the swaps so far made.

#[cfg(doc)]
use crate::error::Error;
use core::cmp::Ordering;

use crate::group::{Group, GroupExcluded, GroupExcludedMut, GroupMembers, GroupRows, Nested};
use crate::permutation::{Permutation, sort_in_place};

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Group<M, X> {
    /// Sorts the aligned prefix (stably) with a comparator of two keys and their views in every
    /// member; every column of every member moves in lockstep, and the prefix stays aligned.
    /// Keys outside the prefix do not move.
    ///
    /// The order is computed first and then applied to each member, so a comparator that
    /// panics does so before anything has moved.
    ///
    /// Computes in **O(len log len)** time and **O(len)** swaps per member; allocates
    /// **O(len)** memory.
    ///
    /// # Panics
    ///
    /// If the comparison panics, or the permutation's memory cannot be had (with the message of
    /// [`Error::AllocFailed`]): before anything has moved.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 30), (2, 10), (3, 20)].into_iter().collect();
    /// let b: SparseMap<u32, char> = [(3, 'c'), (2, 'b'), (1, 'a')].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// group.sort_by(|_, (a, _), _, (b, _)| a.cmp(b));
    /// assert_eq!(group.keys(), &[2, 3, 1]);
    /// assert_eq!(group.members().1.values(), &['b', 'c', 'a']);
    /// ```
    pub fn sort_by<F>(&mut self, mut compare: F)
    where
        F: FnMut(&M::Key, M::Refs<'_>, &M::Key, M::Refs<'_>) -> core::cmp::Ordering,
    {
        let permutation = {
            let (members, keys) = (&self.members, self.keys());
            Permutation::sorted_by(self.len, |a, b| {
                compare(&keys[a], members.view(a), &keys[b], members.view(b))
            })
        };
        self.apply(&permutation);
    }

    /// Sorts the aligned prefix (unstably) with a comparator of two keys and their views; as
    /// [`sort_by`](Self::sort_by), but elements that compare equal may be reordered, and it
    /// sorts in place: it allocates nothing.
    ///
    /// If the comparison panics, the prefix stays aligned, in the order the swaps so far made.
    ///
    /// Computes in **O(len log len)** time and **O(len log len)** swaps per member; allocates
    /// nothing.
    ///
    /// # Panics
    ///
    /// If the comparison panics.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 30), (2, 10)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(1, 0), (2, 0)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// group.sort_unstable_by(|_, (a, _), _, (b, _)| a.cmp(b));
    /// assert_eq!(group.keys(), &[2, 1]);
    /// ```
    pub fn sort_unstable_by<F>(&mut self, mut compare: F)
    where
        F: FnMut(&M::Key, M::Refs<'_>, &M::Key, M::Refs<'_>) -> core::cmp::Ordering,
    {
        sort_in_place(
            &mut self.members,
            self.len,
            |members, a, b| {
                let keys = members.first_keys();
                compare(&keys[a], members.view(a), &keys[b], members.view(b)).is_lt()
            },
            M::swap,
        );
    }

    /// Sorts the aligned prefix (stably) by the key `f` extracts from each key and its views;
    /// as [`sort_by`](Self::sort_by).
    ///
    /// Computes in **O(len log len)** time and **O(len)** swaps per member; allocates
    /// **O(len)** memory.
    ///
    /// # Panics
    ///
    /// If the comparison panics, or the permutation's memory cannot be had (with the message of
    /// [`Error::AllocFailed`]): before anything has moved.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 30), (2, 10)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(1, 0), (2, 0)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// group.sort_by_key(|_, (a, _)| -a);
    /// assert_eq!(group.keys(), &[1, 2]);
    /// ```
    pub fn sort_by_key<T: Ord, F>(&mut self, mut f: F)
    where
        F: FnMut(&M::Key, M::Refs<'_>) -> T,
    {
        let permutation = {
            let (members, keys) = (&self.members, self.keys());
            Permutation::sorted_by_key(self.len, |i| f(&keys[i], members.view(i)))
        };
        self.apply(&permutation);
    }

    /// Sorts the aligned prefix by key, ascending, in place: it allocates nothing.
    ///
    /// Computes in **O(len log len)** time and **O(len log len)** swaps per member; allocates
    /// nothing.
    ///
    /// # Panics
    ///
    /// If the keys' comparison panics; the prefix stays aligned.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let a: SparseSet<u32> = [3, 1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [2, 3, 1].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// group.sort_keys();
    /// assert_eq!(group.keys(), &[1, 2, 3]);
    /// ```
    pub fn sort_keys(&mut self)
    where
        M::Key: Ord,
    {
        sort_in_place(
            &mut self.members,
            self.len,
            |members, a, b| {
                let keys = members.first_keys();
                keys[a] < keys[b]
            },
            M::swap,
        );
    }

    /// Applies `permutation` (of the prefix) to every member.
    fn apply(&mut self, permutation: &Permutation) {
        debug_assert_eq!(permutation.len(), self.len);
        permutation.for_each_swap(|a, b| self.members.swap(a, b));
    }
}

/// The views of one row of a nested level: the group's members', then the level's own.
type NestedRefs<'a, M, M2> = (<M as GroupRows>::Refs<'a>, <M2 as GroupRows>::Refs<'a>);

/// The sorts of a nested level's prefix. They move the group's members in the same swaps as the
/// level's own, within the nested prefix, so both prefixes stay aligned; the group's prefix
/// past the nested one does not move. (The group's own prefix cannot be sorted while it has a
/// nested level: that would scatter the level's rows.)
impl<M, X, M2, X2> Group<M, X, Nested<M2, X2>>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key>,
{
    /// Sorts the nested level's prefix (stably) with a comparator of two keys and their views
    /// (the group's members', then the level's own); as [`Group::sort_by`].
    ///
    /// Computes in **O(n log n)** time for the nested prefix's n keys and **O(n)** swaps per
    /// member of both levels; allocates **O(n)** memory.
    ///
    /// # Panics
    ///
    /// If the comparison panics, or the permutation's memory cannot be had (with the message of
    /// [`Error::AllocFailed`]): before anything has moved.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 30), (2, 10), (3, 20)].into_iter().collect();
    /// let b: SparseMap<u32, ()> = [(1, ()), (2, ())].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// family.sort_nested_by(|_, ((a,), _), _, ((b,), _)| a.cmp(b));
    /// assert_eq!(family.nested().keys(), &[2, 1]);
    /// assert_eq!(&family.keys()[..2], &[2, 1]);
    /// ```
    pub fn sort_nested_by<F>(&mut self, mut compare: F)
    where
        F: FnMut(&M::Key, NestedRefs<'_, M, M2>, &M::Key, NestedRefs<'_, M, M2>) -> Ordering,
    {
        let (members, nested) = (&self.members, &self.nested.members);
        let keys = members.first_keys();
        let permutation = Permutation::sorted_by(self.nested_len(), |a, b| {
            compare(
                &keys[a],
                (members.view(a), nested.view(a)),
                &keys[b],
                (members.view(b), nested.view(b)),
            )
        });
        self.apply_nested(&permutation);
    }

    /// Sorts the nested level's prefix (unstably, in place: it allocates nothing) with a
    /// comparator of two keys and their views; as [`Group::sort_unstable_by`].
    ///
    /// If the comparison panics, both prefixes stay aligned, in the order the swaps so far
    /// made.
    ///
    /// Computes in **O(n log n)** time and swaps per member of both levels; allocates nothing.
    ///
    /// # Panics
    ///
    /// If the comparison panics.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 30), (2, 10)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(1, 0), (2, 0)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// family.sort_nested_unstable_by(|_, ((a,), _), _, ((b,), _)| a.cmp(b));
    /// assert_eq!(family.nested().keys(), &[2, 1]);
    /// ```
    pub fn sort_nested_unstable_by<F>(&mut self, mut compare: F)
    where
        F: FnMut(&M::Key, NestedRefs<'_, M, M2>, &M::Key, NestedRefs<'_, M, M2>) -> Ordering,
    {
        let len = self.nested_len();
        sort_in_place(
            &mut (&mut self.members, &mut self.nested.members),
            len,
            |(members, nested), a, b| {
                let keys = members.first_keys();
                let (row_a, row_b) =
                    ((members.view(a), nested.view(a)), (members.view(b), nested.view(b)));
                compare(&keys[a], row_a, &keys[b], row_b).is_lt()
            },
            |(members, nested), a, b| {
                members.swap(a, b);
                nested.swap(a, b);
            },
        );
    }

    /// Sorts the nested level's prefix (stably) by the key `f` extracts from each key and its
    /// views; as [`sort_nested_by`](Self::sort_nested_by).
    ///
    /// Computes in **O(n log n)** time and **O(n)** swaps per member of both levels; allocates
    /// **O(n)** memory.
    ///
    /// # Panics
    ///
    /// If `f` or the comparison panics, or the permutation's memory cannot be had: before
    /// anything has moved.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 0), (2, 0)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(1, 5), (2, 4)].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// family.sort_nested_by_key(|_, (_, (b,))| *b);
    /// assert_eq!(family.nested().keys(), &[2, 1]);
    /// ```
    pub fn sort_nested_by_key<T: Ord, F>(&mut self, mut f: F)
    where
        F: FnMut(&M::Key, NestedRefs<'_, M, M2>) -> T,
    {
        let (members, nested) = (&self.members, &self.nested.members);
        let keys = members.first_keys();
        let permutation = Permutation::sorted_by_key(self.nested_len(), |i| {
            f(&keys[i], (members.view(i), nested.view(i)))
        });
        self.apply_nested(&permutation);
    }

    /// Sorts the nested level's prefix by key, ascending, in place: it allocates nothing.
    ///
    /// Computes in **O(n log n)** time and swaps per member of both levels; allocates nothing.
    ///
    /// # Panics
    ///
    /// If the keys' comparison panics; both prefixes stay aligned.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let a: SparseSet<u32> = [3, 1, 2].into_iter().collect();
    /// let b: SparseSet<u32> = [2, 3, 1].into_iter().collect();
    /// let mut family = Group::new((a,)).nest(Nested::new((b,)));
    /// family.sort_nested_keys();
    /// assert_eq!(family.nested().keys(), &[1, 2, 3]);
    /// ```
    pub fn sort_nested_keys(&mut self)
    where
        M::Key: Ord,
    {
        let len = self.nested_len();
        sort_in_place(
            &mut (&mut self.members, &mut self.nested.members),
            len,
            |(members, _), a, b| {
                let keys = members.first_keys();
                keys[a] < keys[b]
            },
            |(members, nested), a, b| {
                members.swap(a, b);
                nested.swap(a, b);
            },
        );
    }

    /// Applies `permutation` (of the nested prefix) to every member of both levels.
    fn apply_nested(&mut self, permutation: &Permutation) {
        debug_assert_eq!(permutation.len(), self.nested_len());
        permutation.for_each_swap(|a, b| {
            self.members.swap(a, b);
            self.nested.members.swap(a, b);
        });
    }
}
