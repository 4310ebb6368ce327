//! A group as one member of a query: the aligned prefix drives (or is probed, one lookup), and
//! its view is every member's view. This is `EnTT`'s partial-owning group: the group's own members
//! without lookups, the query's other members probed.

use crate::group::{Group, GroupExcluded, GroupMembers};
use crate::query::member::past_rows;
use crate::query::{
    Exclude, ExcludeFetch, Fetch, FetchItem, FetchView, Member, MemberLookup, MemberView, rows_at,
};
use crate::set::Quick;

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
            // A group answers every lookup itself (one lookup in its first member).
            type Locator = ();

            #[inline]
            fn keys(&self) -> &[M::Key] {
                self.0.keys()
            }

            #[inline]
            fn driven_slot(index: usize) -> usize {
                index
            }

            #[inline]
            fn locator(&self) {}

            #[inline]
            fn locate_quick(&self, key: M::Key) -> Quick<usize> {
                Quick::from(self.0.index_of(key))
            }

            #[inline]
            fn locate_slow((): (), _: M::Key) -> Option<usize> {
                None
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
    fn view(&'v mut self, slot: usize) -> M::Refs<'a> {
        self.0.members.views(slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> FetchItem for GroupFetch<&'a Group<M, X>> {
    type Item = M::Refs<'a>;

    #[inline]
    fn item(&self, slot: usize) -> M::Refs<'a> {
        self.0.members.views(slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'v, M: GroupMembers, X: GroupExcluded<M::Key>> FetchView<'v> for GroupFetch<&mut Group<M, X>> {
    type View = M::Muts<'v>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> M::Muts<'v> {
        self.0.members.views_mut(slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> MemberLookup for &'a Group<M, X> {
    type Slot = usize;
    type Read<'r>
        = M::Refs<'a>
    where
        Self: 'r;

    #[inline]
    fn slot_of(&self, key: M::Key) -> Option<usize> {
        self.index_of(key)
    }

    #[inline]
    fn read_at(&self, slot: usize) -> M::Refs<'a> {
        let group: &'a Group<M, X> = self;
        group.members.views(slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> MemberView<'_> for &'a Group<M, X> {
    type View = M::Refs<'a>;

    #[inline]
    fn view_at(&mut self, slot: usize) -> M::Refs<'a> {
        self.read_at(slot)
    }

    #[inline]
    fn views_at<const N: usize>(&mut self, slots: [Option<usize>; N]) -> [Option<M::Refs<'a>>; N] {
        slots.map(|slot| slot.map(|slot| self.read_at(slot)))
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> MemberLookup for &mut Group<M, X> {
    type Slot = usize;
    type Read<'r>
        = M::Refs<'r>
    where
        Self: 'r;

    #[inline]
    fn slot_of(&self, key: M::Key) -> Option<usize> {
        self.index_of(key)
    }

    #[inline]
    fn read_at(&self, slot: usize) -> M::Refs<'_> {
        self.members.views(slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'v, M: GroupMembers, X: GroupExcluded<M::Key>> MemberView<'v> for &mut Group<M, X> {
    type View = M::Muts<'v>;

    #[inline]
    fn view_at(&'v mut self, slot: usize) -> M::Muts<'v> {
        self.members.views_mut(slot).unwrap_or_else(|| past_rows(slot))
    }

    #[inline]
    fn views_at<const N: usize>(
        &'v mut self,
        slots: [Option<usize>; N],
    ) -> [Option<M::Muts<'v>>; N] {
        let len = self.len;
        rows_at(self.members.rows_mut(len), slots)
    }
}

/// A group as a query's filter (in [`without`](crate::query::Query::without),
/// [`with`](crate::query::Query::with) or [`any_of`](crate::query::Query::any_of)): the keys
/// it holds are its aligned keys.
impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>> Exclude<M::Key> for &'a Group<M, X> {
    type Fetch = &'a Group<M, X>;

    #[inline]
    fn into_fetch(self) -> &'a Group<M, X> {
        self
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> ExcludeFetch<M::Key> for &Group<M, X> {
    #[inline]
    fn holds(&self, key: M::Key) -> bool {
        self.contains(key)
    }
}
