//! A group as one member of a query: the aligned prefix drives (or is probed, one lookup), and
//! its view is every member's view. This is `EnTT`'s partial-owning group: the group's own members
//! without lookups, the query's other members probed.

use crate::group::{Group, GroupExcluded, GroupMembers};
use crate::query::{Fetch, FetchItem, FetchView, Member};

/// The [`Fetch`] of a group borrowed shared or mutably: the group itself (its prefix is its
/// keys, its first member its index).
#[derive(Debug)]
pub struct GroupFetch<G>(G);

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> Member for &'a Group<M, X> {
    type Key = M::Key;
    type Fetch = GroupFetch<&'a Group<M, X>>;
    type Reborrow<'q>
        = &'a Group<M, X>
    where
        Self: 'q;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        GroupFetch(self)
    }

    #[inline]
    fn reborrow(&mut self) -> &'a Group<M, X> {
        self
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> Member for &'a mut Group<M, X> {
    type Key = M::Key;
    type Fetch = GroupFetch<&'a mut Group<M, X>>;
    type Reborrow<'q>
        = &'q mut Group<M, X>
    where
        Self: 'q;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        GroupFetch(self)
    }

    #[inline]
    fn reborrow(&mut self) -> &mut Group<M, X> {
        self
    }
}

macro_rules! group_fetch {
    ($($mutability:ident)?) => {
        impl<M: GroupMembers, X: GroupExcluded<M::Key>> Fetch for GroupFetch<&$($mutability)? Group<M, X>> {
            type Key = M::Key;
            type Slot = usize;

            #[inline]
            fn keys(&self) -> &[M::Key] {
                self.0.keys()
            }

            #[inline]
            fn driven_slot(index: usize) -> usize {
                index
            }

            #[inline]
            fn locate(&self, key: M::Key) -> Option<usize> {
                self.0.index_of(key)
            }
        }
    };
}

group_fetch!();
group_fetch!(mut);

impl<'v, 'a, M: GroupMembers, X: GroupExcluded<M::Key>> FetchView<'v>
    for GroupFetch<&'a Group<M, X>>
{
    type View = M::Refs<'a>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> Option<M::Refs<'a>> {
        self.0.members.views(slot)
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> FetchItem for GroupFetch<&'a Group<M, X>> {
    type Item = M::Refs<'a>;

    #[inline]
    fn item(&self, slot: usize) -> Option<M::Refs<'a>> {
        self.0.members.views(slot)
    }
}

impl<'v, M: GroupMembers, X: GroupExcluded<M::Key>> FetchView<'v> for GroupFetch<&mut Group<M, X>> {
    type View = M::Muts<'v>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> Option<M::Muts<'v>> {
        self.0.members.views_mut(slot)
    }
}
