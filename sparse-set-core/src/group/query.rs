//! A group as one member of a query: the aligned prefix drives (or is probed, one lookup), and
//! its view is every member's view. This is `EnTT`'s partial-owning group: the group's own members
//! without lookups, the query's other members probed.

use crate::group::{Group, GroupExcluded, GroupMembers, GroupRows};
use crate::observe::Observer;
#[cfg(feature = "rayon")]
use crate::query::SplitFetch;
use crate::query::member::past_rows;
use crate::query::{
    ExactMember, Exclude, ExcludeFetch, Fetch, FetchItem, FetchView, Member, MemberLookup,
    MemberView, rows_at,
};
use crate::rows::Rows;
use crate::set::{Quick, SparseSet};

/// The [`Fetch`] of a group borrowed shared: its first member's key index (which answers the
/// group's lookups, within the prefix) and every member's columns over the aligned prefix.
pub struct GroupFetch<'a, M: GroupRows + 'a> {
    index: &'a SparseSet<M::Key, M::FirstDense>,
    rows: M::Rows<'a>,
}

/// The [`Fetch`] of a group borrowed mutably: its first member's key index and every member's
/// columns over the aligned prefix, mutable.
pub struct GroupFetchMut<'a, M: GroupRows + 'a> {
    index: &'a SparseSet<M::Key, M::FirstDense>,
    rows: M::RowsMut<'a>,
}

impl<'a, M: GroupRows, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> Member
    for &'a Group<M, X, N, O>
{
    type Key = M::Key;
    type Fetch = GroupFetch<'a, M>;
    type Reborrow<'q>
        = &'a Group<M, X, N, O>
    where
        Self: 'q;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn into_fetch(self) -> GroupFetch<'a, M> {
        let (index, rows) = self.members.index_and_rows(self.len);
        GroupFetch { index, rows }
    }

    #[inline]
    fn reborrow(&mut self) -> &'a Group<M, X, N, O> {
        self
    }

    #[inline]
    fn address(&self) -> *const () {
        core::ptr::from_ref::<Group<M, X, N, O>>(*self).cast()
    }
}

impl<'a, M: GroupMembers, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> Member
    for &'a mut Group<M, X, N, O>
{
    type Key = M::Key;
    type Fetch = GroupFetchMut<'a, M>;
    type Reborrow<'q>
        = &'q mut Group<M, X, N, O>
    where
        Self: 'q;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn into_fetch(self) -> GroupFetchMut<'a, M> {
        let (index, rows) = self.members.index_and_rows_mut(self.len);
        GroupFetchMut { index, rows }
    }

    #[inline]
    fn reborrow(&mut self) -> &mut Group<M, X, N, O> {
        self
    }

    #[inline]
    fn address(&self) -> *const () {
        core::ptr::from_ref::<Group<M, X, N, O>>(&**self).cast()
    }
}

impl<'a, M: GroupRows> GroupFetchMut<'a, M> {
    /// The fetch of rows whose first part's keys `index` answers for.
    #[inline]
    pub(super) fn new(index: &'a SparseSet<M::Key, M::FirstDense>, rows: M::RowsMut<'a>) -> Self {
        GroupFetchMut { index, rows }
    }
}

/// A group drives over its whole prefix: a one-member query of it knows its length.
impl<M, X, N, O> ExactMember for &Group<M, X, N, O> {}
impl<M, X, N, O> ExactMember for &mut Group<M, X, N, O> {}

macro_rules! group_fetch {
    ($fetch:ident) => {
        impl<'a, M: GroupRows> Fetch for $fetch<'a, M> {
            type Key = M::Key;
            type Slot = usize;
            // A group answers every lookup in its first member's index, within the prefix: the
            // full lookup (when another member asks) needs the index and the prefix's length.
            type Locator = (&'a SparseSet<M::Key, M::FirstDense>, usize);

            #[inline]
            fn keys(&self) -> &[M::Key] {
                self.rows.keys()
            }

            #[inline]
            fn driven_slot(index: usize) -> usize {
                index
            }

            #[inline]
            fn locator(&self) -> (&'a SparseSet<M::Key, M::FirstDense>, usize) {
                (self.index, self.rows.len())
            }

            #[inline]
            fn locate_quick(&self, key: M::Key) -> Quick<usize> {
                Quick::from(Self::locate_slow(self.locator(), key))
            }

            #[inline]
            fn locate_slow(
                (index, len): (&'a SparseSet<M::Key, M::FirstDense>, usize),
                key: M::Key,
            ) -> Option<usize> {
                index.get_index_of(key).filter(|&position| position < len)
            }
        }

        /// Split for a parallel query's driver: each half walks its part of the prefix.
        #[cfg(feature = "rayon")]
        impl<'a, M: GroupRows> SplitFetch for $fetch<'a, M> {
            #[inline]
            fn split_at(self, mid: usize) -> (Self, Self) {
                let (front, back) = self.rows.split_at(mid);
                (
                    $fetch { index: self.index, rows: front },
                    $fetch { index: self.index, rows: back },
                )
            }
        }
    };
}

group_fetch!(GroupFetch);
group_fetch!(GroupFetchMut);

/// A shared group's fetch is shared borrows: each thread of a parallel query gets its own copy.
impl<'a, M: GroupRows> Clone for GroupFetch<'a, M>
where
    M::Rows<'a>: Clone,
{
    fn clone(&self) -> Self {
        GroupFetch { index: self.index, rows: self.rows.clone() }
    }
}

impl<'v, 'a, M: GroupRows> FetchView<'v> for GroupFetch<'a, M> {
    type View = M::Refs<'a>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> M::Refs<'a> {
        M::row_of(&self.rows, slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'a, M: GroupRows> FetchItem for GroupFetch<'a, M> {
    type Item = M::Refs<'a>;

    #[inline]
    fn item(&self, slot: usize) -> M::Refs<'a> {
        M::row_of(&self.rows, slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'v, M: GroupRows> FetchView<'v> for GroupFetchMut<'_, M> {
    type View = M::Muts<'v>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> M::Muts<'v> {
        M::row_of_mut(&mut self.rows, slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'a, M: GroupRows, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> MemberLookup
    for &'a Group<M, X, N, O>
{
    type Slot = usize;
    type Read<'r>
        = M::Refs<'a>
    where
        Self: 'r;

    #[inline]
    fn slot_of(&self, key: M::Key) -> Option<usize> {
        self.get_index_of(key)
    }

    #[inline]
    fn read_at(&self, slot: usize) -> M::Refs<'a> {
        let group: &'a Group<M, X, N, O> = self;
        group.members.views(slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'a, M: GroupRows, X: GroupExcluded<M::Key>, L, O: Observer<M::Key, ()>> MemberView<'_>
    for &'a Group<M, X, L, O>
{
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

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> MemberLookup
    for &mut Group<M, X, N, O>
{
    type Slot = usize;
    type Read<'r>
        = M::Refs<'r>
    where
        Self: 'r;

    #[inline]
    fn slot_of(&self, key: M::Key) -> Option<usize> {
        self.get_index_of(key)
    }

    #[inline]
    fn read_at(&self, slot: usize) -> M::Refs<'_> {
        self.members.views(slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'v, M: GroupMembers, X: GroupExcluded<M::Key>, L, O: Observer<M::Key, ()>> MemberView<'v>
    for &mut Group<M, X, L, O>
{
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
impl<'a, M: GroupRows, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> Exclude<M::Key>
    for &'a Group<M, X, N, O>
{
    type Fetch = &'a Group<M, X, N, O>;

    #[inline]
    fn into_fetch(self) -> &'a Group<M, X, N, O> {
        self
    }
}

impl<M: GroupRows, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> ExcludeFetch<M::Key>
    for &Group<M, X, N, O>
{
    #[inline]
    fn holds(&self, key: M::Key) -> bool {
        self.contains(key)
    }
}
