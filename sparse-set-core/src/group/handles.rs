//! Mutable handles to one storage of a group: [`MemberMut`] changes a member's values freely and
//! its keys only through the group; [`ExcludedMut`] changes an excluded storage and keeps the
//! group aligned.

use core::ops::Deref;

use crate::error::{Error, fail, fail_insert};
use crate::group::{Group, GroupExcluded, GroupMembers, Nest, Nth};
use crate::observe::Observed;
use crate::observe::Observer;
use crate::storage::{Columnar, Storage, TrackedStorage};
use crate::unwind::then;

/// A mutable handle to one member of a [`Group`], from [`Group::member_mut`]: values change
/// freely, keys only through the group.
///
/// It dereferences to the member storage (`&S`), so every read-only method is available.
/// [`get_mut`](Self::get_mut), [`get_index_mut`](Self::get_index_mut) and
/// [`columns_mut`](Self::columns_mut) change values and never the keys or their order;
/// [`insert`](Self::insert) and [`remove`](Self::remove) change the member and keep the group
/// aligned. Nothing else that changes keys (`retain`, `sort_by`, `clear`, ...) is reachable.
///
/// ```
/// use sparse_set_core::{Group, SparseMap};
///
/// let a: SparseMap<u32, u8> = [(1, 7), (2, 8)].into_iter().collect();
/// let b: SparseMap<u32, u8> = [(2, 0)].into_iter().collect();
/// let mut group = Group::new((a, b));
/// let mut a = group.member_mut::<0>();
/// assert_eq!(a.len(), 2); // read-only methods of the storage
/// *a.get_mut(1).unwrap() += 1; // values
/// a.remove(2); // keys, through the group
/// assert!(group.is_empty());
/// ```
pub struct MemberMut<'g, M, X, const I: usize, N = (), O = ()> {
    pub(super) group: &'g mut Group<M, X, N, O>,
}

type NthOf<T, const I: usize> = <T as Nth<I>>::Storage;

impl<M, X, const I: usize, N, O> Deref for MemberMut<'_, M, X, I, N, O>
where
    M: GroupMembers + Nth<I>,
    O: Observer<M::Key, ()>,
{
    type Target = NthOf<M, I>;

    #[inline]
    fn deref(&self) -> &NthOf<M, I> {
        self.group.members.nth()
    }
}

impl<M, X, const I: usize, N, O> MemberMut<'_, M, X, I, N, O>
where
    M: GroupMembers + Nth<I, Storage: Observed>,
    O: Observer<M::Key, ()>,
{
    /// This storage's observer, mutably: to drain or clear what it collected (the handle shows
    /// the storage itself read-only). The rows, and so the group, are untouched.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::observe::Removals;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let observed = SparseMap::<u32, u8, u32, Removals<u32>>::default();
    /// let mut group = Group::new((observed, SparseMap::<u32, u8>::new()));
    /// group.member_mut::<0>().insert(1, 0);
    /// group.member_mut::<0>().remove(1);
    /// assert_eq!(group.members().0.observer().keys(), &[1]);
    /// group.member_mut::<0>().observer_mut().clear();
    /// assert!(group.members().0.observer().is_empty());
    /// ```
    #[inline]
    pub fn observer_mut(&mut self) -> &mut <NthOf<M, I> as Observed>::Observer {
        self.group.members.nth_mut().observer_mut()
    }
}

impl<M, X, const I: usize, N, O> MemberMut<'_, M, X, I, N, O>
where
    M: GroupMembers + Nth<I, Storage: TrackedStorage>,
    O: Observer<M::Key, ()>,
{
    /// This member's change ticks, mutably: to advance its clock (the storage itself
    /// read-only). A member whose observer [`Tracks`](crate::observe::Tracks) has them in its
    /// observer too; a derived storage with tracked fields only here. The rows, and so the
    /// group, are untouched.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::observe::Ticks;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let tracked = SparseMap::<u32, u8, u32, Ticks>::default();
    /// let mut group = Group::new((tracked, SparseMap::<u32, u8>::new()));
    /// group.member_mut::<0>().insert(1, 0);
    /// let seen = group.member_mut::<0>().ticks_mut().advance();
    /// assert_eq!(group.members().0.changed_since(seen).count(), 0);
    /// ```
    #[inline]
    pub fn ticks_mut(&mut self) -> &mut <NthOf<M, I> as TrackedStorage>::Ticks {
        self.group.members.nth_mut().ticks_mut()
    }
}

impl<M, X, const I: usize, N, O> MemberMut<'_, M, X, I, N, O>
where
    M: GroupMembers + Nth<I, Storage: Columnar<Key = M::Key>>,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key>,
{
    /// Stores `value` under `key` in this member; returns the value it replaced. If `key` is
    /// now held by every member and no excluded storage, it joins the aligned prefix.
    ///
    /// Computes in **O(1)** amortised time: the storage's insert, one lookup per storage of
    /// the group, at most one swap per member.
    ///
    /// # Panics
    ///
    /// As the member's `insert`; see [`try_insert`](Self::try_insert).
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let mut group = Group::new((SparseMap::<u32, u8>::new(), SparseMap::<u32, u8>::new()));
    /// group.member_mut::<0>().insert(4, 1);
    /// assert!(group.is_empty());
    /// group.member_mut::<1>().insert(4, 2);
    /// assert_eq!(group.keys(), &[4]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn insert(
        &mut self,
        key: M::Key,
        value: <NthOf<M, I> as Storage>::Value,
    ) -> Option<<NthOf<M, I> as Storage>::Value> {
        match self.try_insert(key, value) {
            Ok(value) => value,
            Err(error) => fail_insert::<NthOf<M, I>, _>(key, error),
        }
    }

    /// The fallible twin of [`insert`](Self::insert): on an error the member, and the group,
    /// are unchanged.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// As the member's `try_insert`: [`Error::StaleKey`], the limits of a bounded storage or
    /// of the dense width, a failed allocation.
    ///
    /// ```
    /// use sparse_set_core::{Error, Group, SparseMap};
    ///
    /// let mut group = Group::new((SparseMap::<u32, u8>::bounded(1, 8), SparseMap::<u32, u8>::new()));
    /// assert_eq!(group.member_mut::<0>().try_insert(3, 0), Ok(None));
    /// assert_eq!(group.member_mut::<0>().try_insert(4, 0), Err(Error::Full { capacity: 1 }));
    /// ```
    #[inline]
    pub fn try_insert(
        &mut self,
        key: M::Key,
        value: <NthOf<M, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<M, I> as Storage>::Value>, Error> {
        // The member refuses an older version before it changes; a newer version replacing an
        // aligned older one takes that row out of the prefix. Then `key` joins if it now
        // qualifies.
        if M::OBSERVES || N::OBSERVES {
            // A hook runs after the member's insert (or in the repair's moves) and may panic: the prefix is repaired
            // all the same, while unwinding.
            let mut state = (&mut *self.group, None);
            then(
                &mut state,
                |(group, put)| *put = Some(group.put_member::<I>(key, value)),
                |(group, put)| {
                    if put.is_none() {
                        group.realign_member::<I>(key);
                    }
                    group.finish_row(key);
                },
            );
            return state.1.unwrap_or(Ok(None));
        }
        let replaced = self.group.put_member::<I>(key, value)?;
        self.group.finish_row(key);
        Ok(replaced)
    }

    /// Removes `key` from this member by **swap-remove**; returns its value. If `key` was
    /// aligned it leaves the prefix first, so the other members stay aligned.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7), (2, 8)].into_iter().collect();
    /// let b: SparseMap<u32, u8> = [(1, 0), (2, 0)].into_iter().collect();
    /// let mut group = Group::new((a, b));
    /// assert_eq!(group.member_mut::<1>().remove(1), Some(0));
    /// assert_eq!(group.keys(), &[2]);
    /// assert_eq!(group.members().0.len(), 2);
    /// ```
    pub fn remove(&mut self, key: M::Key) -> Option<<NthOf<M, I> as Storage>::Value> {
        if M::OBSERVES || N::OBSERVES {
            // A hook may panic while the row leaves the prefixes or this member: the row
            // leaves both all the same, while unwinding.
            let mut state = (&mut *self.group, None);
            then(
                &mut state,
                |(group, removed)| *removed = Some(Self::remove_from(group, key)),
                |(group, removed)| {
                    if removed.is_none() {
                        drop(Self::remove_from(group, key));
                    }
                },
            );
            return state.1.flatten();
        }
        Self::remove_from(self.group, key)
    }

    /// [`remove`](Self::remove) on `group`.
    #[inline]
    fn remove_from(
        group: &mut Group<M, X, N, O>,
        key: M::Key,
    ) -> Option<<NthOf<M, I> as Storage>::Value> {
        let mut position = group.members.nth().get_index_of(key)?;
        if position < group.len {
            // Aligned: at `position` in every member. Out of the prefix first (to its end, in
            // every member); then removing it from this member changes no other key's standing,
            // so nothing needs repairing. The removal cannot panic: the caller drops the value.
            position = group.leave_at(position);
        }
        group.members.nth_mut().swap_remove_index(position).map(|(_, value)| value)
    }

    /// The mutable view of `key`'s element in this member.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let mut group = Group::new((a,));
    /// *group.member_mut::<0>().get_mut(1).unwrap() = 9;
    /// assert_eq!(group.members().0[1], 9);
    /// ```
    #[inline]
    pub fn get_mut(&mut self, key: M::Key) -> Option<<NthOf<M, I> as Storage>::Mut<'_>> {
        Storage::get_mut(self.group.members.nth_mut(), key)
    }

    /// The key and mutable view at dense position `index` of this member.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let mut group = Group::new((a,));
    /// if let Some((_, value)) = group.member_mut::<0>().get_index_mut(0) {
    ///     *value = 9;
    /// }
    /// assert_eq!(group.members().0[1], 9);
    /// ```
    #[inline]
    pub fn get_index_mut(
        &mut self,
        index: usize,
    ) -> Option<(M::Key, <NthOf<M, I> as Storage>::Mut<'_>)> {
        Storage::get_index_mut(self.group.members.nth_mut(), index)
    }

    /// Every column of this member, mutably, over all its keys (aligned or not); the keys
    /// read-only.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7), (2, 8)].into_iter().collect();
    /// let mut group = Group::new((a,));
    /// for value in group.member_mut::<0>().columns_mut().values {
    ///     *value += 1;
    /// }
    /// assert_eq!(group.members().0.values(), &[8, 9]);
    /// ```
    #[inline]
    pub fn columns_mut(&mut self) -> <NthOf<M, I> as Columnar>::ColumnsMut<'_> {
        Columnar::columns_mut(self.group.members.nth_mut())
    }
}

/// A mutable handle to one excluded storage of a [`Group`], from [`Group::excluded_mut`]:
/// `insert` and `remove` keep the group aligned (a key stored here leaves the prefix; one
/// removed from here may join it).
///
/// It dereferences to the storage (`&S`) for every read-only method.
///
/// ```
/// use sparse_set_core::{Group, SparseMap, SparseSet};
///
/// let a: SparseMap<u32, u8> = [(1, 7), (2, 8)].into_iter().collect();
/// let mut group = Group::with_excluded((a,), (SparseSet::<u32>::new(),));
/// let mut frozen = group.excluded_mut::<0>();
/// frozen.insert(2, ());
/// assert!(frozen.contains(2));
/// assert_eq!(group.keys(), &[1]);
/// group.excluded_mut::<0>().remove(2);
/// assert_eq!(group.len(), 2);
/// ```
pub struct ExcludedMut<'g, M, X, const I: usize, N = (), O = ()> {
    pub(super) group: &'g mut Group<M, X, N, O>,
}

impl<M, X, const I: usize, N, O> Deref for ExcludedMut<'_, M, X, I, N, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: Nth<I>,
{
    type Target = NthOf<X, I>;

    #[inline]
    fn deref(&self) -> &NthOf<X, I> {
        self.group.excluded.nth()
    }
}

impl<M, X, const I: usize, N, O> ExcludedMut<'_, M, X, I, N, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: Nth<I, Storage: Observed>,
{
    /// This excluded storage's observer, mutably: to drain or clear what it collected. The rows,
    /// and so the group, are untouched.
    ///
    /// Computes in **O(1)** time.
    #[inline]
    pub fn observer_mut(&mut self) -> &mut <NthOf<X, I> as Observed>::Observer {
        self.group.excluded.nth_mut().observer_mut()
    }
}

impl<M, X, const I: usize, N, O> ExcludedMut<'_, M, X, I, N, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: Nth<I, Storage: TrackedStorage>,
{
    /// This excluded storage's change ticks, mutably: to advance its clock. The rows, and so
    /// the group, are untouched.
    ///
    /// Computes in **O(1)** time.
    #[inline]
    pub fn ticks_mut(&mut self) -> &mut <NthOf<X, I> as TrackedStorage>::Ticks {
        self.group.excluded.nth_mut().ticks_mut()
    }
}

impl<M, X, const I: usize, N, O> ExcludedMut<'_, M, X, I, N, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key> + Nth<I, Storage: Storage<Key = M::Key>>,
    N: Nest<M::Key>,
{
    /// Stores `value` under `key` in this excluded storage; returns the value it replaced. An
    /// aligned `key` leaves the prefix.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// As the storage's `insert`; see [`try_insert`](Self::try_insert).
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let mut group = Group::with_excluded((a,), (SparseSet::<u32>::new(),));
    /// group.excluded_mut::<0>().insert(1, ());
    /// assert!(group.is_empty());
    /// ```
    #[inline]
    #[track_caller]
    pub fn insert(
        &mut self,
        key: M::Key,
        value: <NthOf<X, I> as Storage>::Value,
    ) -> Option<<NthOf<X, I> as Storage>::Value> {
        match self.try_insert(key, value) {
            Ok(value) => value,
            Err(error) => fail_insert::<NthOf<X, I>, _>(key, error),
        }
    }

    /// The fallible twin of [`insert`](Self::insert): on an error the storage, and the group,
    /// are unchanged.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// As the storage's `try_insert`.
    ///
    /// ```
    /// use sparse_set_core::{Error, Group, SparseMap, SparseSet};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let mut group = Group::with_excluded((a,), (SparseSet::<u32>::bounded(4, 4),));
    /// let err = group.excluded_mut::<0>().try_insert(9, ()).unwrap_err();
    /// assert_eq!(err, Error::KeyOutOfRange { index: 9, limit: 4 });
    /// ```
    pub fn try_insert(
        &mut self,
        key: M::Key,
        value: <NthOf<X, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<X, I> as Storage>::Value>, Error> {
        // A newer version of a held key replaces it: the older one is no longer excluded, and
        // may join (the group's observer's room first).
        let held = self.group.excluded.nth().as_sparse_set().other_version(key);
        if held.is_some() {
            self.group.reserve_observer_row()?;
        }
        self.group.change(None, [Some(key), held], |group| {
            group.excluded.nth_mut().try_insert(key, value)
        })
    }

    /// Removes `key` from this excluded storage (a swap-remove there); returns its value. If
    /// `key` now qualifies it joins the prefix.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap, SparseSet};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let hidden: SparseSet<u32> = [1].into_iter().collect();
    /// let mut group = Group::with_excluded((a,), (hidden,));
    /// assert_eq!(group.excluded_mut::<0>().remove(1), Some(()));
    /// assert_eq!(group.keys(), &[1]);
    /// ```
    pub fn remove(&mut self, key: M::Key) -> Option<<NthOf<X, I> as Storage>::Value> {
        // `key` may join: the group's observer's room first, so that a failed allocation
        // panics with the group unchanged.
        if let Err(error) = self.group.reserve_observer_row() {
            fail(error);
        }
        self.group.change(None, [Some(key), None], |group| group.excluded.nth_mut().remove(key))
    }

    /// The mutable view of `key`'s element in this storage.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u8> = [(1, 7)].into_iter().collect();
    /// let hidden: SparseMap<u32, u8> = [(2, 0)].into_iter().collect();
    /// let mut group = Group::with_excluded((a,), (hidden,));
    /// *group.excluded_mut::<0>().get_mut(2).unwrap() = 5;
    /// assert_eq!(group.excluded().0[2], 5);
    /// ```
    #[inline]
    pub fn get_mut(&mut self, key: M::Key) -> Option<<NthOf<X, I> as Storage>::Mut<'_>> {
        Storage::get_mut(self.group.excluded.nth_mut(), key)
    }
}
