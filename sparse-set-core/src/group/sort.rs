//! Sorting a group. The stable sorts compute one [`Permutation`] of the aligned prefix from the
//! keys and views and then apply it to every member through `swap_indices`, so a comparator
//! that panics does so before anything has moved. The unstable sorts run the in-place
//! introsort (`permutation::sort_in_place`) whose every swap moves every member at once, so
//! they allocate nothing (a group of bounded storages stays allocation-free) and a comparator
//! that panics leaves the prefix aligned, in the order the swaps so far made. A group with an
//! [`Observer`] sorts unstably through one [`Permutation`] instead (allocated), so that its
//! observer hears one permutation, not each swap. A member's own observer hears the swaps that
//! move that member's rows.

#[cfg(doc)]
use crate::error::Error;
use crate::group::tuples::Reporting;
use crate::observe::Observer;
use core::cmp::Ordering;

use crate::group::{
    Group, GroupExcluded, GroupExcludedMut, GroupMembers, GroupRows, Level, Nest, Nested,
};
use crate::permutation::{Permutation, sort_in_place};
use crate::query::member::past_rows;
use crate::unwind::then;

impl<M: GroupMembers, X: GroupExcluded<M::Key>, O: Observer<M::Key, ()>> Group<M, X, (), O> {
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
    /// sorts in place: it allocates nothing. A group with an [`Observer`] sorts through one
    /// [`Permutation`] of `len` positions instead (allocated), which it reports.
    ///
    /// If the comparison panics, the prefix stays aligned, in the order the swaps so far made.
    ///
    /// Computes in **O(len log len)** time and **O(len log len)** swaps per member; allocates
    /// nothing (an observed group: **O(len)** memory and **O(len)** swaps per member).
    ///
    /// # Panics
    ///
    /// If the comparison panics, or an observed group's permutation's memory cannot be had (with
    /// the message of [`Error::AllocFailed`]): before anything has moved.
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
        if O::OBSERVES {
            // An observer hears of one permutation, not of each swap.
            let permutation = {
                let (members, keys) = (&self.members, self.keys());
                Permutation::sorted_unstable_by(self.len, |a, b| {
                    compare(&keys[a], members.view(a), &keys[b], members.view(b))
                })
            };
            self.apply(&permutation);
            return;
        }
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

    /// Sorts the aligned prefix by key, ascending, in place: it allocates nothing. A group with
    /// an [`Observer`] sorts through one [`Permutation`] instead, as
    /// [`sort_unstable_by`](Self::sort_unstable_by) does.
    ///
    /// Computes in **O(len log len)** time and **O(len log len)** swaps per member; allocates
    /// nothing (an observed group: **O(len)** memory and **O(len)** swaps per member).
    ///
    /// # Panics
    ///
    /// If the keys' comparison panics (the prefix stays aligned), or an observed group's
    /// permutation's memory cannot be had (with the message of [`Error::AllocFailed`]).
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
        if O::OBSERVES {
            // Keys are unique: the unstable sort gives the one ascending order.
            self.sort_unstable_by(|a, _, b, _| a.cmp(b));
            return;
        }
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
        if M::OBSERVES {
            // A member's hook may panic between two swaps (the other members finish that
            // one): the prefix stays aligned, part of the way sorted, and the observer, which
            // cannot be told which part, is told to start again from the keys.
            let mut state = (&mut *self, false);
            then(
                &mut state,
                |(group, applied)| {
                    permutation.for_each_swap(|a, b| group.members.swap(a, b));
                    *applied = true;
                },
                |(group, applied)| {
                    if *applied {
                        group.observer.permuted(permutation);
                    } else {
                        let bound = group.bound();
                        group
                            .observer
                            .attached(group.members.first_keys().split_at(group.len).0, bound);
                    }
                },
            );
            return;
        }
        permutation.for_each_swap(|a, b| self.members.swap(a, b));
        self.observer.permuted(permutation);
    }
}

/// The views of one row of level `D` of the family inside `N`: every level's members', from the
/// group's inward.
type LevelRefs<'a, N, M, const D: usize> =
    <<N as Level<<M as GroupRows>::Key, D>>::Path<M> as GroupRows>::Refs<'a>;

/// The views of one row of a nested level: the group's members', then the level's own.
type NestedRefs<'a, M, M2> = (<M as GroupRows>::Refs<'a>, <M2 as GroupRows>::Refs<'a>);

/// The sorts of a family's innermost level (the only one whose prefix can move without
/// scattering a level inside it). They move the members of every level around it in the same
/// swaps, within the innermost prefix, so every prefix stays aligned; the prefixes around it
/// past the innermost one do not move. (The group's own prefix, or a level's with a level
/// inside it, cannot be sorted: that would scatter the levels inside.)
impl<M, X, N, O> Group<M, X, N, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key>,
{
    /// Sorts the prefix of level `D`, the family's innermost, (stably) with a comparator of two
    /// keys and their views (every level's members', from the group's inward); as
    /// [`Group::sort_by`].
    ///
    /// Computes in **O(n log n)** time for the level's n keys and **O(n)** swaps per member of
    /// every level; allocates **O(n)** memory.
    ///
    /// # Panics
    ///
    /// If the comparison panics, or the permutation's memory cannot be had (with the message of
    /// [`Error::AllocFailed`]): before anything has moved.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let map = |rows: &[(u32, i32)]| rows.iter().copied().collect::<SparseMap<u32, i32>>();
    /// let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    /// let level = Nested::new((set(&[1, 2, 3]),)).nest(Nested::new((map(&[(1, 9), (2, 8), (3, 7)]),)));
    /// let mut family = Group::new((set(&[1, 2, 3, 4]),)).nest(level);
    /// family.sort_level_by::<2, _>(|_, (_, (a,)), _, (_, (b,))| a.cmp(b));
    /// assert_eq!(family.nested().nested().keys(), &[3, 2, 1]);
    /// assert_eq!(&family.keys()[..3], &[3, 2, 1]);
    /// family.assert_invariants();
    /// ```
    pub fn sort_level_by<const D: usize, F>(&mut self, mut compare: F)
    where
        N: Level<M::Key, D, Inner = ()>,
        F: FnMut(&M::Key, LevelRefs<'_, N, M, D>, &M::Key, LevelRefs<'_, N, M, D>) -> Ordering,
    {
        let (members, nested) = (&self.members, &self.nested);
        let keys = members.first_keys();
        let row = |i| level_row::<M, N, D>(members, nested, i);
        let permutation = Permutation::sorted_by(nested.level_len(), |a, b| {
            compare(&keys[a], row(a), &keys[b], row(b))
        });
        self.apply_level::<D>(&permutation);
    }

    /// Sorts the prefix of level `D`, the family's innermost, (unstably, in place: it
    /// allocates nothing) with a comparator of two keys and their views; as
    /// [`Group::sort_unstable_by`].
    ///
    /// If the comparison panics, every prefix stays aligned, in the order the swaps so far
    /// made.
    ///
    /// Computes in **O(n log n)** time and swaps per member of every level; allocates nothing.
    ///
    /// # Panics
    ///
    /// If the comparison panics.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let map = |rows: &[(u32, i32)]| rows.iter().copied().collect::<SparseMap<u32, i32>>();
    /// let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    /// let level = Nested::new((set(&[1, 2]),)).nest(Nested::new((set(&[1, 2]),)));
    /// let mut family = Group::new((map(&[(1, 5), (2, 4)]),)).nest(level);
    /// family.sort_level_unstable_by::<2, _>(|_, (((a,), _), _), _, (((b,), _), _)| a.cmp(b));
    /// assert_eq!(family.nested().nested().keys(), &[2, 1]);
    /// ```
    pub fn sort_level_unstable_by<const D: usize, F>(&mut self, mut compare: F)
    where
        N: Level<M::Key, D, Inner = ()>,
        F: FnMut(&M::Key, LevelRefs<'_, N, M, D>, &M::Key, LevelRefs<'_, N, M, D>) -> Ordering,
    {
        let len = self.nested.level_len();
        sort_in_place(
            &mut (&mut self.members, &mut self.nested, &mut self.observer),
            len,
            |(members, nested, _), a, b| {
                let keys = members.first_keys();
                let (row_a, row_b) = (
                    level_row::<M, N, D>(members, nested, a),
                    level_row::<M, N, D>(members, nested, b),
                );
                compare(&keys[a], row_a, &keys[b], row_b).is_lt()
            },
            |(members, nested, observer), a, b| {
                if M::OBSERVES || N::OBSERVES {
                    // A hook may panic in the swap: the observer hears of it all the same.
                    nested.swap_path(&mut Reporting(&mut **members, &mut **observer), a, b);
                    return;
                }
                nested.swap_path(*members, a, b);
                observer.swapped(a, b);
            },
        );
    }

    /// Sorts the prefix of level `D`, the family's innermost, (stably) by the key `f` extracts
    /// from each key and its views; as [`sort_level_by`](Self::sort_level_by).
    ///
    /// Computes in **O(n log n)** time and **O(n)** swaps per member of every level; allocates
    /// **O(n)** memory.
    ///
    /// # Panics
    ///
    /// If `f` or the comparison panics, or the permutation's memory cannot be had: before
    /// anything has moved.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let map = |rows: &[(u32, i32)]| rows.iter().copied().collect::<SparseMap<u32, i32>>();
    /// let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    /// let level = Nested::new((set(&[1, 2]),)).nest(Nested::new((map(&[(1, 5), (2, 4)]),)));
    /// let mut family = Group::new((set(&[1, 2]),)).nest(level);
    /// family.sort_level_by_key::<2, _, _>(|_, (_, (c,))| *c);
    /// assert_eq!(family.nested().nested().keys(), &[2, 1]);
    /// ```
    pub fn sort_level_by_key<const D: usize, T: Ord, F>(&mut self, mut f: F)
    where
        N: Level<M::Key, D, Inner = ()>,
        F: FnMut(&M::Key, LevelRefs<'_, N, M, D>) -> T,
    {
        let (members, nested) = (&self.members, &self.nested);
        let keys = members.first_keys();
        let permutation = Permutation::sorted_by_key(nested.level_len(), |i| {
            f(&keys[i], level_row::<M, N, D>(members, nested, i))
        });
        self.apply_level::<D>(&permutation);
    }

    /// Sorts the prefix of level `D`, the family's innermost, by key, ascending, in place: it
    /// allocates nothing.
    ///
    /// Computes in **O(n log n)** time and swaps per member of every level; allocates nothing.
    ///
    /// # Panics
    ///
    /// If the keys' comparison panics; every prefix stays aligned.
    ///
    /// ```
    /// use sparse_set_core::group::Nested;
    /// use sparse_set_core::{Group, SparseSet};
    ///
    /// let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    /// let level = Nested::new((set(&[3, 1, 2]),)).nest(Nested::new((set(&[2, 3, 1]),)));
    /// let mut family = Group::new((set(&[1, 2, 3]),)).nest(level);
    /// family.sort_level_keys::<2>();
    /// assert_eq!(family.nested().nested().keys(), &[1, 2, 3]);
    /// ```
    pub fn sort_level_keys<const D: usize>(&mut self)
    where
        N: Level<M::Key, D, Inner = ()>,
        M::Key: Ord,
    {
        let len = self.nested.level_len();
        sort_in_place(
            &mut (&mut self.members, &mut self.nested, &mut self.observer),
            len,
            |(members, _, _), a, b| {
                let keys = members.first_keys();
                keys[a] < keys[b]
            },
            |(members, nested, observer), a, b| {
                if M::OBSERVES || N::OBSERVES {
                    // A hook may panic in the swap: the observer hears of it all the same.
                    nested.swap_path(&mut Reporting(&mut **members, &mut **observer), a, b);
                    return;
                }
                nested.swap_path(*members, a, b);
                observer.swapped(a, b);
            },
        );
    }

    /// Applies `permutation` (of level `D`'s prefix) to every member of every level down to it.
    fn apply_level<const D: usize>(&mut self, permutation: &Permutation)
    where
        N: Level<M::Key, D>,
    {
        debug_assert_eq!(permutation.len(), self.nested.level_len());
        let outer = &mut Reporting(&mut self.members, &mut self.observer);
        permutation.for_each_swap(|a, b| self.nested.swap_path(outer, a, b));
    }
}

/// The views at `index` (inside level `D`'s prefix) of every member from the group's to level
/// `D`'s.
#[inline]
fn level_row<'a, M: GroupMembers, N: Level<M::Key, D>, const D: usize>(
    members: &'a M,
    nested: &'a N,
    index: usize,
) -> LevelRefs<'a, N, M, D> {
    nested.path_views::<M>(members.view(index), index).unwrap_or_else(|| past_rows(index))
}

/// The sorts of a nested level's prefix. They move the group's members in the same swaps as the
/// level's own, within the nested prefix, so both prefixes stay aligned; the group's prefix
/// past the nested one does not move. (The group's own prefix cannot be sorted while it has a
/// nested level: that would scatter the level's rows.)
impl<M, X, M2, X2, O> Group<M, X, Nested<M2, X2>, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
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
        self.apply_level::<1>(&permutation);
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
            &mut (&mut self.members, &mut self.nested, &mut self.observer),
            len,
            |(members, nested, _), a, b| {
                let (keys, level) = (members.first_keys(), &nested.members);
                let (row_a, row_b) =
                    ((members.view(a), level.view(a)), (members.view(b), level.view(b)));
                compare(&keys[a], row_a, &keys[b], row_b).is_lt()
            },
            |(members, nested, observer), a, b| {
                if M::OBSERVES || M2::OBSERVES {
                    // A hook may panic in the swap: the observer hears of it all the same.
                    nested.swap_path(&mut Reporting(&mut **members, &mut **observer), a, b);
                    return;
                }
                nested.swap_path(*members, a, b);
                observer.swapped(a, b);
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
        self.apply_level::<1>(&permutation);
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
        self.sort_level_keys::<1>();
    }
}
