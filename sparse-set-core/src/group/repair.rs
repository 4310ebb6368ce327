//! How a group's prefix is repaired: after every change of keys, each key the change touched
//! re-enters or leaves the aligned prefix as it now qualifies, and a key leaves the prefix before
//! anything can take it from one member alone. The repair runs right after the change, or in a
//! drop guard while unwinding if the change panics, so the invariant (see the [module
//! docs](super)) holds after every call, also one that panics.

use crate::error::fail;
use crate::group::tuples::Reporting;
use crate::group::{Group, GroupExcluded, GroupMembers, Nest};
use crate::observe::Observer;
use crate::removed::{Moved, Removed};
use crate::unwind::then;

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    Group<M, X, N, O>
{
    /// Moves `key` into or out of the prefix, as whether it qualifies says, and then into or
    /// out of the nested level's (a key leaves the nested level's prefix before this one's,
    /// and joins it after). Idempotent, and safe after any change: every change of keys ends
    /// with it.
    pub(super) fn refresh(&mut self, key: M::Key) {
        match self.members.positions(key) {
            Some(positions) if !self.excluded.holds(key) => {
                // Past the prefix in the first member means past it in every member, for keys
                // implemented as `Key` asks; `joinable` checks every member, so that a key that
                // is not (see "Implementing `Key` wrongly") never moves a swap out of bounds.
                let position = M::first(positions);
                if position >= self.len {
                    if self.members.joinable(positions, self.len) {
                        self.join(key, positions);
                    }
                } else {
                    let outer = &mut Reporting(&mut self.members, &mut self.observer);
                    self.nested.refresh(outer, key, position);
                }
            }
            _ => self.leave(key),
        }
    }

    /// Moves `key`, held past the prefix at `positions` in every member, to the prefix's end,
    /// which grows by it; reports it to the group's observer, then lets the nested level take
    /// it in as it qualifies. Every join of the prefix is this call.
    pub(super) fn join(&mut self, key: M::Key, positions: M::Positions) {
        if M::OBSERVES {
            // The prefix grows first, and the join is reported and carried inward also while
            // a member's hook that panicked during the move unwinds (the other members finish
            // the move): the key is in the prefix, and the observer and the nested level know.
            let target = self.len;
            self.len += 1;
            then(
                self,
                |group| group.members.move_to(positions, target),
                |group| group.joined(key, target),
            );
            return;
        }
        self.members.move_to(positions, self.len);
        self.len += 1;
        self.joined(key, self.len - 1);
    }

    /// After `key` joined the prefix at `position`: reports it, and lets the nested level take
    /// it in as it qualifies.
    #[inline]
    fn joined(&mut self, key: M::Key, position: usize) {
        // The observer's room for the event (a `Ticks`' stamps): every change that can make a
        // key join reserved it before it changed anything (`Group::reserve_observer_row`: a
        // put into a member, an excluded storage's removal or newer version), so this finds it;
        // where none did, a failed allocation panics here, never aborts.
        if O::OBSERVES {
            if let Err(error) = self.observer.try_reserve(1) {
                fail(error);
            }
        }
        self.observer.inserted(key, position, &());
        let outer = &mut Reporting(&mut self.members, &mut self.observer);
        self.nested.refresh(outer, key, position);
    }

    /// Moves `key` out of the prefix if it is there: swaps it with the prefix's last key in
    /// every member, and shortens the prefix.
    pub(super) fn leave(&mut self, key: M::Key) {
        if let Some(position) = self.get_index_of(key) {
            self.leave_at(position);
        }
    }

    /// Takes the key at `position` (below `len`) out of the prefix, and first out of the nested
    /// level's: swaps it with the prefix's last key in every member and shortens the prefix.
    /// Returns where it is now, the position just past the prefix, from which one member may
    /// drop it without touching the others.
    pub(super) fn leave_at(&mut self, position: usize) -> usize {
        debug_assert!(position < self.len, "position {position} is past the prefix");
        let outer = &mut Reporting(&mut self.members, &mut self.observer);
        let position = self.nested.leave_at(outer, position);
        self.len -= 1;
        if M::OBSERVES && O::OBSERVES {
            // A member's hook may panic during the swap (which the other members finish while
            // unwinding): the group's observer hears of the row leaving all the same.
            then(
                self,
                |group| {
                    if position != group.len {
                        group.members.swap(position, group.len);
                    }
                },
                |group| group.report_leave(position),
            );
            return self.len;
        }
        if position != self.len {
            self.members.swap(position, self.len);
        }
        if O::OBSERVES {
            let keys = self.members.first_keys();
            let moved =
                (position != self.len).then(|| Moved { key: keys[position], from: self.len });
            self.observer.removed(keys[self.len], &(), Removed { index: position, moved });
        }
        self.len
    }

    /// Tells the observer that the row now past the prefix left it from `position` (as
    /// `leave_at` does inline).
    fn report_leave(&mut self, position: usize) {
        let keys = self.members.first_keys();
        let moved = (position != self.len).then(|| Moved { key: keys[position], from: self.len });
        self.observer.removed(keys[self.len], &(), Removed { index: position, moved });
    }
}

/// Repairs the prefix for up to two keys: after a change to one storage of a group, each key
/// re-enters or leaves the prefix as it now qualifies. [`finish`](Self::finish) does it once
/// the change is made; dropped without it (the change panicked), it does it while unwinding.
struct Refresh<
    'g,
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key>,
    O: Observer<M::Key, ()>,
> {
    group: &'g mut Group<M, X, N, O>,
    keys: [Option<M::Key>; 2],
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    Refresh<'_, M, X, N, O>
{
    fn repair(&mut self) {
        if M::OBSERVES || N::OBSERVES {
            // A member's hook may panic in the repair's moves: each key is forgotten only once
            // its repair returns, so that the drop that follows carries an interrupted one
            // through (a repair is idempotent: it goes on from where the moves stopped).
            for index in 0..self.keys.len() {
                if let Some(key) = self.keys[index] {
                    self.group.refresh(key);
                    self.keys[index] = None;
                }
            }
            return;
        }
        // Taken first: if a repair panics (only a `Key` implemented wrongly makes a lookup
        // panic), the drop that follows does not start it again.
        for key in core::mem::take(&mut self.keys).into_iter().flatten() {
            self.group.refresh(key);
        }
    }

    /// Repairs the prefix in ordinary code, not in a destructor: a value the change returned is
    /// then dropped if the repair panics, where a destructor's panic would leak it (a returned
    /// value is not dropped when a destructor panics after it was made).
    fn finish(mut self) {
        self.repair();
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>> Drop
    for Refresh<'_, M, X, N, O>
{
    fn drop(&mut self) {
        self.repair();
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    Group<M, X, N, O>
{
    /// Runs `change` on the group with `leave` out of the prefix first (for changes that would
    /// take a key from one member alone), and the prefix repaired for `keys` afterwards, also
    /// if `change` panics.
    pub(super) fn change<R>(
        &mut self,
        leave: Option<M::Key>,
        keys: [Option<M::Key>; 2],
        change: impl FnOnce(&mut Self) -> R,
    ) -> R {
        if let Some(key) = leave {
            self.leave(key);
        }
        let guard = Refresh { group: self, keys };
        let result = change(guard.group);
        guard.finish();
        result
    }
}
