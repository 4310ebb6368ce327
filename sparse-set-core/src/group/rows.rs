//! Whole rows through a group: a world that stores several components of one key at once puts
//! each into its member (or excluded storage) without touching the prefix, then finishes the
//! row once, so that a row which completes the group is written straight to the end of the
//! aligned prefix: the members are not probed for it, and nothing is swapped when the members
//! hold no key past the prefix.
//!
//! Between a put and [`finish_row`](Group::finish_row) the prefix may miss a key that
//! qualifies (it was put but not finished); every other part of the invariant holds. The
//! caller finishes every group it put into before it returns, also while unwinding.

use alloc::vec::Vec;
use core::ops::Range;

use crate::error::Error;
use crate::group::level::{ExcludedValue, MemberValue};
use crate::group::{Group, GroupExcluded, GroupMembers, Level, Nest, Nth};
use crate::observe::Observer;
use crate::storage::{Columnar, Storage, reserve_for_batch};

type NthOf<T, const I: usize> = <T as Nth<I>>::Storage;

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    Group<M, X, N, O>
{
    /// Stores `value` under `key` in member `I`, leaving the prefix as it was (or shorter):
    /// [`finish_row`](Self::finish_row) must follow. Returns the value it replaced.
    ///
    /// A fresh key is pushed past the prefix; a held one is replaced in place, which keeps the
    /// prefix aligned unless the slot held an older version of `key` at an aligned position:
    /// that row then leaves the prefix (found only when a value was replaced, so the common
    /// case makes one lookup, the storage's own).
    ///
    /// # Errors
    ///
    /// As the member's `try_insert`, or the group's observer's `try_reserve` (room for `key`
    /// to join); nothing changed then.
    pub(crate) fn put_member<const I: usize>(
        &mut self,
        key: M::Key,
        value: <NthOf<M, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<M, I> as Storage>::Value>, Error>
    where
        M: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        // `key` may join when the row is finished: the group's observer's room first, so a
        // failed allocation is this call's error, the group unchanged.
        self.reserve_observer_row()?;
        let replaced = self.members.nth_mut().try_insert(key, value)?;
        if replaced.is_some() {
            self.realign_member::<I>(key);
        }
        Ok(replaced)
    }

    /// Asks the processor for the cells of member `I`'s sparse index that a row of `key` will
    /// write (`SparseSet::prefetch`): `key`'s own, and that of the member's first key past the
    /// prefix, which a row completing the group displaces from the prefix's end (a random line
    /// when the member holds keys outside the group, such as sparks without a velocity).
    /// Changes nothing.
    #[inline]
    pub(crate) fn prefetch_member<const I: usize>(&self, key: M::Key)
    where
        M: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        let member = self.members.nth().as_sparse_set();
        member.prefetch(key);
        if let Some(&displaced) = member.as_slice().get(self.len) {
            member.prefetch(displaced);
        }
    }

    /// After member `I` replaced the value of `key`'s slot in place: if that slot sits in the
    /// prefix and the other members hold another key there (an older version of `key`, which
    /// member `I` no longer holds), the row leaves the prefix.
    #[cold]
    pub(crate) fn realign_member<const I: usize>(&mut self, key: M::Key)
    where
        M: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        let Some(position) = self.members.nth().get_index_of(key) else { return };
        if position < self.len && !self.members.same_key_at(position) {
            self.leave_at(position);
        }
    }

    /// Undoes [`put_member`](Self::put_member) for a row that failed: puts `replaced` back, or
    /// removes `key` from member `I` if it held nothing (it is then past the prefix, so the
    /// swap-remove moves no aligned key).
    pub(crate) fn take_back_member<const I: usize>(
        &mut self,
        key: M::Key,
        replaced: Option<<NthOf<M, I> as Storage>::Value>,
    ) where
        M: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        take_back(self.members.nth_mut(), key, replaced);
    }

    /// Stores `value` under `key` in excluded storage `I`; [`finish_row`](Self::finish_row)
    /// must follow (it takes `key` out of the prefix). Returns the value it replaced.
    ///
    /// # Errors
    ///
    /// As the storage's `try_insert`, or the group's observer's `try_reserve` (room for the
    /// older version to join); nothing changed then.
    pub(crate) fn put_excluded<const I: usize>(
        &mut self,
        key: M::Key,
        value: <NthOf<X, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<X, I> as Storage>::Value>, Error>
    where
        X: Nth<I, Storage: Storage<Key = M::Key>>,
    {
        // A newer version of a held key replaces it: the older one is no longer excluded, and
        // may now join.
        let held = self.excluded.nth().as_sparse_set().other_version(key);
        if held.is_some() {
            self.reserve_observer_row()?;
        }
        let replaced = self.excluded.nth_mut().try_insert(key, value)?;
        if let Some(held) = held {
            self.refresh(held);
        }
        Ok(replaced)
    }

    /// Undoes [`put_excluded`](Self::put_excluded) for a row that failed.
    pub(crate) fn take_back_excluded<const I: usize>(
        &mut self,
        key: M::Key,
        replaced: Option<<NthOf<X, I> as Storage>::Value>,
    ) where
        X: Nth<I, Storage: Storage<Key = M::Key>>,
    {
        take_back(self.excluded.nth_mut(), key, replaced);
    }

    /// Room for `additional` more keys in member `I`: a hint, so a failure is left for the
    /// puts to report.
    pub(crate) fn reserve_member<const I: usize>(&mut self, additional: usize, slots: Range<u64>)
    where
        M: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        reserve_for_batch(self.members.nth_mut(), additional, slots);
    }

    /// Room for `additional` more keys in excluded storage `I`, as a hint.
    pub(crate) fn reserve_excluded<const I: usize>(&mut self, additional: usize, slots: Range<u64>)
    where
        X: Nth<I, Storage: Storage<Key = M::Key>>,
    {
        reserve_for_batch(self.excluded.nth_mut(), additional, slots);
    }

    /// How many of `keys`, from the first, member `I` can store as new rows
    /// (`Storage::fresh_run_len`).
    pub(crate) fn member_run_len<const I: usize>(&self, keys: &[M::Key]) -> usize
    where
        M: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        self.members.nth().fresh_run_len(keys)
    }

    /// Stores a run of new rows in member `I`, as measured by its run length, leaving the
    /// prefix as it was: [`finish_rows`](Group::finish_rows) must follow. New keys are past
    /// every prefix, and no other version of them is held, so nothing else needs repair.
    pub(crate) fn put_member_run<const I: usize>(
        &mut self,
        keys: &[M::Key],
        values: &mut Vec<<NthOf<M, I> as Storage>::Value>,
    ) where
        M: Nth<I, Storage: Columnar<Key = M::Key>>,
    {
        self.members.nth_mut().push_fresh_run(keys, values);
    }

    /// How many of `keys`, from the first, excluded storage `I` can store as new rows
    /// (`Storage::fresh_run_len`).
    pub(crate) fn excluded_run_len<const I: usize>(&self, keys: &[M::Key]) -> usize
    where
        X: Nth<I, Storage: Storage<Key = M::Key>>,
    {
        self.excluded.nth().fresh_run_len(keys)
    }

    /// Stores a run of new rows in excluded storage `I`, as measured by its run length, leaving the
    /// prefix as it was: [`finish_rows`](Group::finish_rows) must follow. New keys are past
    /// every prefix, and no other version of them is held, so nothing else needs repair.
    pub(crate) fn put_excluded_run<const I: usize>(
        &mut self,
        keys: &[M::Key],
        values: &mut Vec<<NthOf<X, I> as Storage>::Value>,
    ) where
        X: Nth<I, Storage: Storage<Key = M::Key>>,
    {
        self.excluded.nth_mut().push_fresh_run(keys, values);
    }

    /// Ends a row: `key` joins or leaves the prefix as it now qualifies, and the invariant
    /// holds again.
    ///
    /// The common case, a key just pushed to every member: each member's last key is `key`,
    /// so its positions are known without a lookup, and it moves to the end of the prefix
    /// (no swap at all when the members hold nothing past the prefix). Otherwise every member
    /// is looked up, as after any change.
    pub(crate) fn finish_row(&mut self, key: M::Key) {
        if let Some(positions) = self.members.last_positions(key) {
            if M::first(positions) >= self.len && !self.excluded.holds(key) {
                self.join(key, positions);
                return;
            }
        }
        self.refresh(key);
    }

    /// Ends a run of rows, `keys` in order, as [`finish_row`](Self::finish_row) ends each.
    ///
    /// The common case, a run of new keys just pushed to every member (a batch of whole rows):
    /// every member's keys end with the run, so each key's positions are known without a
    /// lookup, and each joins the prefix in order with at most one swap per member. Otherwise
    /// every key is repaired on its own.
    pub(crate) fn finish_rows(&mut self, keys: &[M::Key]) {
        let mut rest = keys;
        if self.members.ends_with(keys) {
            for (i, &key) in keys.iter().enumerate() {
                // Joining keys only swap positions at or before this key's, which every later
                // key of the run is past: their positions still hold.
                let positions = self.members.positions_from_end(keys.len() - i);
                if M::first(positions) < self.len || self.excluded.holds(key) {
                    rest = &keys[i..];
                    break;
                }
                self.join(key, positions);
                rest = &keys[i + 1..];
            }
        }
        for &key in rest {
            self.refresh(key);
        }
    }
}

/// Whole rows through the levels of a family: as through the group's own members and excluded
/// storages, with [`finish_row`](Group::finish_row) repairing every prefix.
impl<M, X, N, O> Group<M, X, N, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key>,
{
    /// Stores `value` under `key` in member `I` of level `D`, leaving every prefix as it was
    /// (or shorter): [`finish_row`](Self::finish_row) must follow. Returns the value it
    /// replaced.
    ///
    /// # Errors
    ///
    /// As the member's `try_insert`; nothing changed then.
    pub(crate) fn put_level_member<const D: usize, const I: usize>(
        &mut self,
        key: M::Key,
        value: MemberValue<N, M::Key, D, I>,
    ) -> Result<Option<MemberValue<N, M::Key, D, I>>, Error>
    where
        N: Level<M::Key, D, Members: Nth<I, Storage: Columnar<Key = M::Key>>>,
    {
        let replaced = self.nested.level_members_mut().nth_mut().try_insert(key, value)?;
        if replaced.is_some() {
            self.realign_level::<D, I>(key);
        }
        Ok(replaced)
    }

    /// Undoes [`put_level_member`](Self::put_level_member) for a row that failed.
    pub(crate) fn take_back_level_member<const D: usize, const I: usize>(
        &mut self,
        key: M::Key,
        replaced: Option<MemberValue<N, M::Key, D, I>>,
    ) where
        N: Level<M::Key, D, Members: Nth<I, Storage: Columnar<Key = M::Key>>>,
    {
        take_back(self.nested.level_members_mut().nth_mut(), key, replaced);
    }

    /// Room for `additional` more keys in member `I` of level `D`, as a hint.
    pub(crate) fn reserve_level_member<const D: usize, const I: usize>(
        &mut self,
        additional: usize,
        slots: Range<u64>,
    ) where
        N: Level<M::Key, D, Members: Nth<I, Storage: Columnar<Key = M::Key>>>,
    {
        reserve_for_batch(self.nested.level_members_mut().nth_mut(), additional, slots);
    }

    /// How many of `keys`, from the first, member `I` of level `D` can store as new rows
    /// (`Storage::fresh_run_len`).
    pub(crate) fn level_member_run_len<const D: usize, const I: usize>(
        &self,
        keys: &[M::Key],
    ) -> usize
    where
        N: Level<M::Key, D, Members: Nth<I, Storage: Columnar<Key = M::Key>>>,
    {
        self.nested.level_members().nth().fresh_run_len(keys)
    }

    /// Stores a run of new rows in member `I` of level `D`, as measured by its run length,
    /// leaving every prefix as it was: [`finish_rows`](Group::finish_rows) must follow. New
    /// keys are past every prefix, and no other version of them is held, so nothing else
    /// needs repair.
    pub(crate) fn put_level_member_run<const D: usize, const I: usize>(
        &mut self,
        keys: &[M::Key],
        values: &mut Vec<MemberValue<N, M::Key, D, I>>,
    ) where
        N: Level<M::Key, D, Members: Nth<I, Storage: Columnar<Key = M::Key>>>,
    {
        self.nested.level_members_mut().nth_mut().push_fresh_run(keys, values);
    }

    /// Stores `value` under `key` in excluded storage `I` of level `D`;
    /// [`finish_row`](Self::finish_row) must follow. Returns the value it replaced.
    ///
    /// # Errors
    ///
    /// As the storage's `try_insert`; nothing changed then.
    pub(crate) fn put_level_excluded<const D: usize, const I: usize>(
        &mut self,
        key: M::Key,
        value: ExcludedValue<N, M::Key, D, I>,
    ) -> Result<Option<ExcludedValue<N, M::Key, D, I>>, Error>
    where
        N: Level<M::Key, D, Excluded: Nth<I, Storage: Storage<Key = M::Key>>>,
    {
        let storage = self.nested.level_excluded_mut().nth_mut();
        let held = storage.as_sparse_set().other_version(key);
        let replaced = storage.try_insert(key, value)?;
        if let Some(held) = held {
            self.refresh_level::<D>(held);
        }
        Ok(replaced)
    }

    /// Undoes [`put_level_excluded`](Self::put_level_excluded) for a row that failed.
    pub(crate) fn take_back_level_excluded<const D: usize, const I: usize>(
        &mut self,
        key: M::Key,
        replaced: Option<ExcludedValue<N, M::Key, D, I>>,
    ) where
        N: Level<M::Key, D, Excluded: Nth<I, Storage: Storage<Key = M::Key>>>,
    {
        take_back(self.nested.level_excluded_mut().nth_mut(), key, replaced);
    }

    /// Room for `additional` more keys in excluded storage `I` of level `D`, as a hint.
    pub(crate) fn reserve_level_excluded<const D: usize, const I: usize>(
        &mut self,
        additional: usize,
        slots: Range<u64>,
    ) where
        N: Level<M::Key, D, Excluded: Nth<I, Storage: Storage<Key = M::Key>>>,
    {
        reserve_for_batch(self.nested.level_excluded_mut().nth_mut(), additional, slots);
    }

    /// How many of `keys`, from the first, excluded storage `I` of level `D` can store as new
    /// rows (`Storage::fresh_run_len`).
    pub(crate) fn level_excluded_run_len<const D: usize, const I: usize>(
        &self,
        keys: &[M::Key],
    ) -> usize
    where
        N: Level<M::Key, D, Excluded: Nth<I, Storage: Storage<Key = M::Key>>>,
    {
        self.nested.level_excluded().nth().fresh_run_len(keys)
    }

    /// Stores a run of new rows in excluded storage `I` of level `D`, as measured by its run
    /// length, leaving every prefix as it was: [`finish_rows`](Group::finish_rows) must follow.
    pub(crate) fn put_level_excluded_run<const D: usize, const I: usize>(
        &mut self,
        keys: &[M::Key],
        values: &mut Vec<ExcludedValue<N, M::Key, D, I>>,
    ) where
        N: Level<M::Key, D, Excluded: Nth<I, Storage: Storage<Key = M::Key>>>,
    {
        self.nested.level_excluded_mut().nth_mut().push_fresh_run(keys, values);
    }
}

/// Undoes a put of a row that failed: puts `replaced` back, or removes `key` if the storage held
/// nothing before (it is then past every prefix, so the swap-remove moves no aligned key).
fn take_back<S: Storage>(storage: &mut S, key: S::Key, replaced: Option<S::Value>) {
    match replaced {
        // The key is held: replaced in place, nothing moves, and nothing can fail.
        Some(value) => drop(storage.try_insert(key, value)),
        None => drop(storage.remove(key)),
    }
}
