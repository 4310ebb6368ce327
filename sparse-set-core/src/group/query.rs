//! A group as one member of a query: the aligned prefix drives (or is probed, one lookup), and
//! its view is every member's view. This is `EnTT`'s partial-owning group: the group's own members
//! without lookups, the query's other members probed.

use crate::group::{Group, GroupExcluded, GroupMembers};
use crate::query::{Member, MemberView, SharedMember};

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Member for &Group<M, X> {
    type Key = M::Key;
    type Slot = usize;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn key_at(&self, index: usize) -> Option<M::Key> {
        self.keys().get(index).copied()
    }

    #[inline]
    fn driven_slot(index: usize) -> usize {
        index
    }

    #[inline]
    fn locate(&self, key: M::Key) -> Option<usize> {
        self.index_of(key)
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Member for &mut Group<M, X> {
    type Key = M::Key;
    type Slot = usize;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn key_at(&self, index: usize) -> Option<M::Key> {
        self.keys().get(index).copied()
    }

    #[inline]
    fn driven_slot(index: usize) -> usize {
        index
    }

    #[inline]
    fn locate(&self, key: M::Key) -> Option<usize> {
        self.index_of(key)
    }
}

impl<'v, M: GroupMembers, X: GroupExcluded<M::Key>> MemberView<'v> for &Group<M, X> {
    type View = M::Refs<'v>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> Option<M::Refs<'v>> {
        self.members.views(slot)
    }
}

impl<'v, M: GroupMembers, X: GroupExcluded<M::Key>> MemberView<'v> for &mut Group<M, X> {
    type View = M::Muts<'v>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> Option<M::Muts<'v>> {
        self.members.views_mut(slot)
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> SharedMember for &'a Group<M, X> {
    type Item = M::Refs<'a>;

    #[inline]
    fn item(self, slot: usize) -> Option<M::Refs<'a>> {
        self.members.views(slot)
    }
}
