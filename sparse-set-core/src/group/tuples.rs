//! The tuples a group is made of: [`GroupMembers`] (1 to 8 [`Columnar`] storages with one key
//! type) and [`GroupExcluded`] (`()` or 1 to 8 [`Storage`]s), element access by position
//! ([`Nth`]), and [`KeySet`], one storage's keys whatever its type. One macro writes them for
//! every tuple length.

use crate::dense::DenseIndex;
use crate::error::Error;
#[cfg(doc)]
use crate::group::Group;
use crate::key::Key;
use crate::observe::Observer;
use crate::rows::{Aligned, Rows};
use crate::set::SparseSet;
use crate::storage::{Columnar, Storage};
use crate::unwind::then;

/// The keys of one storage of a group, whatever the storage's type: what the group's plumbing
/// (and a world's `retain`) reads of a storage it names by its position.
pub trait KeySet<K> {
    /// The keys, in dense order.
    fn key_slice(&self) -> &[K];
    /// Whether `key` is among them.
    fn holds(&self, key: K) -> bool;
    /// Asks the processor for the memory a lookup of `key` reads first (its cell of the sparse
    /// index), so that a change soon after finds it in the cache; changes nothing. A world's
    /// `despawn` asks this of every storage it holds (a group's through its tuples, which ask
    /// each storage's index the same) before it removes the key from any, so that their cells
    /// (a random cache line each) are fetched together. Does nothing by default.
    #[inline]
    fn prefetch(&self, key: K) {
        let _ = key;
    }
    /// The capacity of a bounded storage (made by its `bounded`), which it never passes: what a
    /// group's observer reserves for its prefix. `None` for a storage that grows.
    #[inline]
    fn bound(&self) -> Option<usize> {
        None
    }
}

impl<S: Storage> KeySet<S::Key> for S {
    #[inline]
    fn key_slice(&self) -> &[S::Key] {
        Storage::keys(self)
    }

    #[inline]
    fn holds(&self, key: S::Key) -> bool {
        Storage::contains_key(self, key)
    }

    #[inline]
    fn prefetch(&self, key: S::Key) {
        Storage::as_sparse_set(self).prefetch(key);
    }

    #[inline]
    fn bound(&self) -> Option<usize> {
        let set = Storage::as_sparse_set(self);
        set.key_limit().map(|_| set.capacity())
    }
}

/// Element `I` of a tuple: how [`Group::member_mut`] and [`Group::excluded_mut`] name one
/// storage by its position. Implemented for tuples of 1 to 8 elements.
pub trait Nth<const I: usize> {
    /// The type of element `I`.
    type Storage;

    /// Element `I`.
    fn nth(&self) -> &Self::Storage;

    /// Element `I`, mutably.
    fn nth_mut(&mut self) -> &mut Self::Storage;
}

macro_rules! nth {
    ([$($all:ident)*] $i:tt $t:ident) => {
        impl<$($all),*> Nth<$i> for ($($all,)*) {
            type Storage = $t;

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "a field access")]
            fn nth(&self) -> &$t {
                &self.$i
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "a field access")]
            fn nth_mut(&mut self) -> &mut $t {
                &mut self.$i
            }
        }
    };
}

/// What a group reads of its members: a tuple of 1 to 8 [`Columnar`] storages with one key
/// type, or, for a [nested](crate::group::Nested) group, the members of both levels side by
/// side. The methods are the group's plumbing; [`GroupMembers`] adds the ones that move rows.
pub trait GroupRows {
    /// The key type every member shares.
    type Key: Key;
    /// Every member's dense position of one key.
    type Positions: Copy;
    /// Every member's shared view of one element, as a tuple.
    type Refs<'a>
    where
        Self: 'a;
    /// Every member's mutable view of one element, as a tuple.
    type Muts<'a>
    where
        Self: 'a;
    /// Every member's columns over the prefix, as a tuple.
    type Columns<'a>
    where
        Self: 'a;
    /// Every member's mutable columns over the prefix, as a tuple.
    type ColumnsMut<'a>
    where
        Self: 'a;
    /// Every member's columns over the prefix, as one [`Aligned`] set of rows.
    type Rows<'a>: Rows<Key = Self::Key, Row = Self::Refs<'a>>
    where
        Self: 'a;
    /// Every member's mutable columns over the prefix, as one [`Aligned`] set of rows.
    type RowsMut<'a>: Rows<Key = Self::Key, Row = Self::Muts<'a>>
    where
        Self: 'a;

    /// The dense index type of the first member, whose key index answers the group's lookups.
    type FirstDense: DenseIndex;

    /// The number of members.
    fn count(&self) -> usize;
    /// Member `member`'s keys, as a [`KeySet`]; `None` past the last member.
    fn part(&self, member: usize) -> Option<&dyn KeySet<Self::Key>>;
    /// Asks the processor for `key`'s cell in every member (as [`KeySet::prefetch`]); changes
    /// nothing.
    fn prefetch(&self, key: Self::Key);
    /// The keys of member `member` (of the first past the last).
    fn member_keys(&self, member: usize) -> &[Self::Key] {
        self.part(member).or_else(|| self.part(0)).map_or(&[], KeySet::key_slice)
    }
    /// Whether member `member` holds `key`.
    fn member_contains(&self, member: usize, key: Self::Key) -> bool {
        self.part(member).or_else(|| self.part(0)).is_some_and(|part| part.holds(key))
    }
    /// The index of the member with the fewest keys.
    fn smallest(&self) -> usize;
    /// The key at dense position `index` of member `member`.
    fn key_at(&self, member: usize, index: usize) -> Option<Self::Key> {
        self.member_keys(member).get(index).copied()
    }
    /// The keys of the first member.
    fn first_keys(&self) -> &[Self::Key];
    /// The first member's position of `key`.
    fn first_position(&self, key: Self::Key) -> Option<usize>;
    /// The first member's entry of `positions`.
    fn first(positions: Self::Positions) -> usize;
    /// Every member's position of `key`, if every member holds it.
    fn positions(&self, key: Self::Key) -> Option<Self::Positions>;
    /// Every member's position of `key` if it is every member's last key (as after pushing it
    /// to each): found without a lookup.
    fn last_positions(&self, key: Self::Key) -> Option<Self::Positions>;
    /// Whether every member holds the same key at `index` (which must be in every member).
    fn same_key_at(&self, index: usize) -> bool;
    /// Whether the key at `positions` can join a prefix of length `len`: in every member, its
    /// position is at or past `len` and inside the member.
    fn joinable(&self, positions: Self::Positions, len: usize) -> bool;
    /// Every member's view at `index` (which must be in every member).
    fn view(&self, index: usize) -> Self::Refs<'_>;
    /// Every member's view at `index`.
    fn views(&self, index: usize) -> Option<Self::Refs<'_>>;
    /// Every member's columns, cut to `len`.
    fn columns(&self, len: usize) -> Self::Columns<'_>;
    /// Every member's columns, cut to `len`, as rows.
    fn rows(&self, len: usize) -> Self::Rows<'_>;
    /// The first member's key index and every member's columns over the prefix, borrowed at
    /// once: what a query's fetch of the group holds.
    fn index_and_rows(
        &self,
        len: usize,
    ) -> (&SparseSet<Self::Key, Self::FirstDense>, Self::Rows<'_>);
    /// Every member's view of row `index` of `rows`.
    fn row_of<'a>(rows: &Self::Rows<'a>, index: usize) -> Option<Self::Refs<'a>>
    where
        Self: 'a;
    /// Every member's mutable view of row `index` of `rows`.
    fn row_of_mut<'v, 'a: 'v>(
        rows: &'v mut Self::RowsMut<'a>,
        index: usize,
    ) -> Option<Self::Muts<'v>>
    where
        Self: 'a;
    /// Checks every member's own invariants.
    fn assert_invariants(&self);
}

/// The members of a [`Group`]: a tuple of 1 to 8 [`Columnar`] storages with one key type. The
/// methods are the group's plumbing.
pub trait GroupMembers: GroupRows {
    /// Whether a member reports to an observer ([`Columnar::OBSERVES`]): then a move of a row
    /// goes on in every member while a member's hook panics.
    const OBSERVES: bool;
    /// Moves the key at `positions` to position `target` of every member.
    fn move_to(&mut self, positions: Self::Positions, target: usize);
    /// Whether every member's keys end with `run` (as after pushing the run to each).
    fn ends_with(&self, run: &[Self::Key]) -> bool;
    /// Every member's position `back` places before its end (`1` is the last): the positions
    /// of a key of a run [`ends_with`](Self::ends_with) found, without a lookup.
    fn positions_from_end(&self, back: usize) -> Self::Positions;
    /// Swaps positions `a` and `b` of every member.
    fn swap(&mut self, a: usize, b: usize);
    /// Removes `key` from every member (dropping the values); whether any held it.
    fn remove(&mut self, key: Self::Key) -> bool;
    /// Room for `additional` more rows in every member (`Storage::try_reserve`), in order; the
    /// keys are unchanged either way.
    ///
    /// # Errors
    ///
    /// The first failing member's; the members before it may have grown.
    fn try_reserve(&mut self, additional: usize) -> Result<(), Error>;
    /// Releases every member's spare memory (`Storage::shrink_to_fit`): the keys, their order
    /// and the values are unchanged.
    fn shrink_to_fit(&mut self);
    /// What [`take_aligned`](Self::take_aligned) takes out: every member's key and value.
    type Taken;
    /// Takes the row at `position` of an aligned prefix of `len` rows out of every member,
    /// leaving the prefix's other rows aligned in its first `len - 1` positions: a member that
    /// holds no key past the prefix swap-removes the row directly (its last row, aligned, fills
    /// the hole), any other swaps it to the prefix's end first. The caller shortens the prefix
    /// first, and drops what is taken once every storage is done (a value's `Drop` that panics
    /// then finds them aligned).
    fn take_aligned(&mut self, position: usize, len: usize) -> Self::Taken;
    /// Every member's mutable view at `index`.
    fn views_mut(&mut self, index: usize) -> Option<Self::Muts<'_>>;
    /// Every member's mutable columns, cut to `len`.
    fn columns_mut(&mut self, len: usize) -> Self::ColumnsMut<'_>;
    /// Every member's mutable columns, cut to `len`, as rows.
    fn rows_mut(&mut self, len: usize) -> Self::RowsMut<'_>;
    /// The first member's key index and every member's mutable columns over the prefix,
    /// borrowed at once.
    fn index_and_rows_mut(
        &mut self,
        len: usize,
    ) -> (&SparseSet<Self::Key, Self::FirstDense>, Self::RowsMut<'_>);
}

/// Rows that move in step: the members of one group, or of several levels of a family. What
/// the repair of a nested level moves in the levels around it.
#[doc(hidden)]
pub trait SwapRows {
    /// Whether a storage among them reports to an observer ([`Columnar::OBSERVES`]).
    const OBSERVES: bool;
    /// Swaps positions `a` and `b` of every member.
    fn swap_rows(&mut self, a: usize, b: usize);
}

impl<T: GroupMembers> SwapRows for T {
    const OBSERVES: bool = T::OBSERVES;

    #[inline]
    fn swap_rows(&mut self, a: usize, b: usize) {
        self.swap(a, b);
    }
}

/// The members of the levels around a nested level (`A`), then its own (`B`): what the levels
/// inside it move when they repair.
pub(crate) struct Chain<'a, A, B>(pub(crate) &'a mut A, pub(crate) &'a mut B);

impl<A: SwapRows, B: GroupMembers> SwapRows for Chain<'_, A, B> {
    const OBSERVES: bool = A::OBSERVES || B::OBSERVES;

    #[inline]
    fn swap_rows(&mut self, a: usize, b: usize) {
        if A::OBSERVES {
            // A hook of the levels around may panic: this level swaps all the same.
            then(self, |chain| chain.0.swap_rows(a, b), |chain| chain.1.swap(a, b));
            return;
        }
        self.0.swap_rows(a, b);
        self.1.swap(a, b);
    }
}

/// A group's members with its observer: every swap the levels inside the group make is a swap
/// of the group's aligned prefix, which the observer hears.
pub(crate) struct Reporting<'a, M, O>(pub(crate) &'a mut M, pub(crate) &'a mut O);

impl<M: GroupMembers, O: Observer<M::Key, ()>> SwapRows for Reporting<'_, M, O> {
    const OBSERVES: bool = M::OBSERVES || O::OBSERVES;

    #[inline]
    fn swap_rows(&mut self, a: usize, b: usize) {
        if M::OBSERVES && O::OBSERVES {
            // A member's hook may panic: the group's observer hears the swap all the same.
            then(self, |reporting| reporting.0.swap(a, b), |reporting| reporting.1.swapped(a, b));
            return;
        }
        self.0.swap(a, b);
        self.1.swapped(a, b);
    }
}

/// The excluded storages of a [`Group`]: `()` or a tuple of 1 to 8 [`Storage`]s keyed by `K`.
/// The methods are the group's plumbing.
pub trait GroupExcluded<K> {
    /// The number of storages.
    fn count(&self) -> usize;
    /// Storage `storage`'s keys, as a [`KeySet`]; `None` past the last.
    fn part(&self, storage: usize) -> Option<&dyn KeySet<K>>;
    /// The keys of storage `storage` (empty past the last).
    fn storage_keys(&self, storage: usize) -> &[K] {
        self.part(storage).map_or(&[], KeySet::key_slice)
    }
    /// Whether storage `storage` holds `key`.
    fn storage_contains(&self, storage: usize, key: K) -> bool {
        self.part(storage).is_some_and(|part| part.holds(key))
    }
    /// Whether any of the storages holds `key`.
    fn holds(&self, key: K) -> bool;
    /// Asks the processor for `key`'s cell in every storage (as [`KeySet::prefetch`]); changes
    /// nothing.
    fn prefetch(&self, key: K)
    where
        K: Copy;
    /// Checks every storage's own invariants.
    fn assert_invariants(&self);
}

/// The excluded storages of a [`Group`] that the group owns: their keys can be removed.
pub trait GroupExcludedMut<K>: GroupExcluded<K> {
    /// Removes `key` from every storage (dropping the values); whether any held it.
    fn remove(&mut self, key: K) -> bool;
    /// Releases every storage's spare memory (`Storage::shrink_to_fit`): the keys are
    /// unchanged.
    fn shrink_to_fit(&mut self);
}

impl<K> GroupExcluded<K> for () {
    #[inline]
    fn count(&self) -> usize {
        0
    }

    #[inline]
    fn part(&self, _: usize) -> Option<&dyn KeySet<K>> {
        None
    }

    #[inline]
    fn holds(&self, _: K) -> bool {
        false
    }

    #[inline]
    fn prefetch(&self, _: K) {}

    fn assert_invariants(&self) {}
}

impl<K> GroupExcludedMut<K> for () {
    #[inline]
    fn remove(&mut self, _: K) -> bool {
        false
    }

    #[inline]
    fn shrink_to_fit(&mut self) {}
}

// One invocation per tuple length: element access (`Nth`), the members' plumbing
// (`GroupMembers`) and the excluded storages' (`GroupExcluded`).
macro_rules! group_tuple {
    ($first:ident 0 $($member:ident $i:tt)*) => {
        group_tuple!(@nth [$first $($member)*] 0 $first $($i $member)*);

        impl<K: Key, $first: Columnar<Key = K>, $($member: Columnar<Key = K>),*> GroupRows
            for ($first, $($member,)*)
        {
            type Key = K;
            type Positions = (usize, $(group_tuple!(@usize $member),)*);
            type Refs<'a> = ($first::Ref<'a>, $($member::Ref<'a>,)*) where Self: 'a;
            type Muts<'a> = ($first::Mut<'a>, $($member::Mut<'a>,)*) where Self: 'a;
            type Columns<'a> = ($first::Columns<'a>, $($member::Columns<'a>,)*) where Self: 'a;
            type ColumnsMut<'a> = ($first::ColumnsMut<'a>, $($member::ColumnsMut<'a>,)*) where Self: 'a;
            type Rows<'a> = Aligned<Self::Columns<'a>> where Self: 'a;
            type RowsMut<'a> = Aligned<Self::ColumnsMut<'a>> where Self: 'a;
            type FirstDense = $first::Dense;

            #[inline]
            fn count(&self) -> usize {
                1 $(+ group_tuple!(@one $member))*
            }

            #[inline]
            fn part(&self, member: usize) -> Option<&dyn KeySet<K>> {
                match member {
                    0 => Some(&self.0),
                    $($i => Some(&self.$i),)*
                    _ => None,
                }
            }

            #[inline]
            fn prefetch(&self, key: K) {
                Storage::as_sparse_set(&self.0).prefetch(key);
                $(Storage::as_sparse_set(&self.$i).prefetch(key);)*
            }

            #[inline]
            #[allow(unused_mut, reason = "a group of one member has nothing to compare")]
            fn smallest(&self) -> usize {
                let mut best = (0, Storage::len(&self.0));
                $(
                    let len = Storage::len(&self.$i);
                    if len < best.1 {
                        best = ($i, len);
                    }
                )*
                best.0
            }

            #[inline]
            fn first_keys(&self) -> &[K] {
                Storage::keys(&self.0)
            }

            #[inline]
            fn first_position(&self, key: K) -> Option<usize> {
                Storage::get_index_of(&self.0, key)
            }

            #[inline]
            fn first(positions: Self::Positions) -> usize {
                positions.0
            }

            #[inline]
            fn positions(&self, key: K) -> Option<Self::Positions> {
                Some((Storage::get_index_of(&self.0, key)?, $(Storage::get_index_of(&self.$i, key)?,)*))
            }

            #[inline]
            fn last_positions(&self, key: K) -> Option<Self::Positions> {
                Some((
                    group_tuple!(@last self.0, key),
                    $(group_tuple!(@last self.$i, key),)*
                ))
            }

            #[inline]
            #[allow(unused_variables, reason = "a group of one member has nothing to compare")]
            fn same_key_at(&self, index: usize) -> bool {
                let first = Storage::keys(&self.0).get(index);
                true $(&& Storage::keys(&self.$i).get(index) == first)*
            }

            #[inline]
            fn joinable(&self, positions: Self::Positions, len: usize) -> bool {
                (len..Storage::len(&self.0)).contains(&positions.0)
                    $(&& (len..Storage::len(&self.$i)).contains(&positions.$i))*
            }

            #[inline]
            #[track_caller]
            fn view(&self, index: usize) -> Self::Refs<'_> {
                match self.views(index) {
                    Some(views) => views,
                    None => panic!("position {index} is past a member of the group"),
                }
            }

            #[inline]
            fn views(&self, index: usize) -> Option<Self::Refs<'_>> {
                Some((
                    Storage::get_index(&self.0, index)?.1,
                    $(Storage::get_index(&self.$i, index)?.1,)*
                ))
            }

            #[inline]
            fn columns(&self, len: usize) -> Self::Columns<'_> {
                (
                    Columnar::columns(&self.0).split_at(len).0,
                    $(Columnar::columns(&self.$i).split_at(len).0,)*
                )
            }

            #[inline]
            fn rows(&self, len: usize) -> Self::Rows<'_> {
                Aligned::new(self.columns(len))
            }

            #[inline]
            fn index_and_rows(&self, len: usize) -> (&SparseSet<K, $first::Dense>, Self::Rows<'_>) {
                (Storage::as_sparse_set(&self.0), self.rows(len))
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the view of one row, in a query's loop")]
            fn row_of<'a>(rows: &Self::Rows<'a>, index: usize) -> Option<Self::Refs<'a>>
            where
                Self: 'a,
            {
                let parts = rows.parts();
                Some(($first::row(&parts.0, index)?, $($member::row(&parts.$i, index)?,)*))
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the view of one row, in a query's loop")]
            fn row_of_mut<'v, 'a: 'v>(rows: &'v mut Self::RowsMut<'a>, index: usize) -> Option<Self::Muts<'v>>
            where
                Self: 'a,
            {
                let parts = rows.parts_mut();
                Some(($first::row_mut(&mut parts.0, index)?, $($member::row_mut(&mut parts.$i, index)?,)*))
            }

            fn assert_invariants(&self) {
                Storage::assert_invariants(&self.0);
                $(Storage::assert_invariants(&self.$i);)*
            }
        }

        impl<K: Key, $first: Columnar<Key = K>, $($member: Columnar<Key = K>),*> GroupMembers
            for ($first, $($member,)*)
        {
            #[inline]
            fn ends_with(&self, run: &[K]) -> bool {
                Storage::keys(&self.0).ends_with(run) $(&& Storage::keys(&self.$i).ends_with(run))*
            }

            #[inline]
            fn positions_from_end(&self, back: usize) -> Self::Positions {
                (Storage::len(&self.0) - back, $(Storage::len(&self.$i) - back,)*)
            }

            const OBSERVES: bool = $first::OBSERVES $(|| $member::OBSERVES)*;

            #[inline]
            fn move_to(&mut self, positions: Self::Positions, target: usize) {
                if <Self as GroupMembers>::OBSERVES {
                    // A hook may panic between two members: the others move all the same.
                    group_tuple!(@in_turn self, |members: &mut Self| group_tuple!(@move_to members.0, positions.0, target) $(, |members: &mut Self| group_tuple!(@move_to members.$i, positions.$i, target))*);
                    return;
                }
                group_tuple!(@move_to self.0, positions.0, target);
                $(group_tuple!(@move_to self.$i, positions.$i, target);)*
            }

            #[inline]
            fn swap(&mut self, a: usize, b: usize) {
                if <Self as GroupMembers>::OBSERVES {
                    // A hook may panic between two members: the others swap all the same.
                    group_tuple!(@in_turn self, |members: &mut Self| Columnar::swap_indices(&mut members.0, a, b) $(, |members: &mut Self| Columnar::swap_indices(&mut members.$i, a, b))*);
                    return;
                }
                Columnar::swap_indices(&mut self.0, a, b);
                $(Columnar::swap_indices(&mut self.$i, a, b);)*
            }

            fn remove(&mut self, key: K) -> bool {
                // Every storage, whichever held the key: all are asked.
                [
                    Storage::remove(&mut self.0, key).is_some(),
                    $(Storage::remove(&mut self.$i, key).is_some(),)*
                ]
                .contains(&true)
            }

            #[inline]
            fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
                Storage::try_reserve(&mut self.0, additional)?;
                $(Storage::try_reserve(&mut self.$i, additional)?;)*
                Ok(())
            }

            #[inline]
            fn shrink_to_fit(&mut self) {
                Storage::shrink_to_fit(&mut self.0);
                $(Storage::shrink_to_fit(&mut self.$i);)*
            }

            type Taken = (Option<(K, $first::Value)>, $(Option<(K, $member::Value)>,)*);

            #[inline]
            fn take_aligned(&mut self, position: usize, len: usize) -> Self::Taken {
                if <Self as GroupMembers>::OBSERVES {
                    // A hook may panic between two members, or between a member's swap and
                    // its removal: the rest is taken all the same (and dropped while
                    // unwinding).
                    let mut state: (&mut Self, Self::Taken) = (self, (None, $(group_tuple!(@none $member),)*));
                    group_tuple!(
                        @in_turn &mut state,
                        |state: &mut (&mut Self, Self::Taken)| group_tuple!(@take_into state, 0, position, len)
                        $(, |state: &mut (&mut Self, Self::Taken)| group_tuple!(@take_into state, $i, position, len))*
                    );
                    return state.1;
                }
                (
                    group_tuple!(@take_aligned self.0, position, len),
                    $(group_tuple!(@take_aligned self.$i, position, len),)*
                )
            }

            #[inline]
            fn views_mut(&mut self, index: usize) -> Option<Self::Muts<'_>> {
                Some((
                    Storage::get_index_mut(&mut self.0, index)?.1,
                    $(Storage::get_index_mut(&mut self.$i, index)?.1,)*
                ))
            }

            #[inline]
            fn columns_mut(&mut self, len: usize) -> Self::ColumnsMut<'_> {
                // The prefix alone: an observer hears a write of the rows handed out.
                (
                    Columnar::prefix_columns_mut(&mut self.0, len),
                    $(Columnar::prefix_columns_mut(&mut self.$i, len),)*
                )
            }

            #[inline]
            fn rows_mut(&mut self, len: usize) -> Self::RowsMut<'_> {
                Aligned::new(self.columns_mut(len))
            }

            #[inline]
            fn index_and_rows_mut(
                &mut self,
                len: usize,
            ) -> (&SparseSet<K, $first::Dense>, Self::RowsMut<'_>) {
                let (index, first) = Columnar::index_and_prefix_mut(&mut self.0, len);
                let columns = (first, $(Columnar::prefix_columns_mut(&mut self.$i, len),)*);
                (index, Aligned::new(columns))
            }
        }

        impl<K: Key, $first: Storage<Key = K>, $($member: Storage<Key = K>),*> GroupExcluded<K>
            for ($first, $($member,)*)
        {
            #[inline]
            fn count(&self) -> usize {
                1 $(+ group_tuple!(@one $member))*
            }

            #[inline]
            fn part(&self, storage: usize) -> Option<&dyn KeySet<K>> {
                match storage {
                    0 => Some(&self.0),
                    $($i => Some(&self.$i),)*
                    _ => None,
                }
            }

            #[inline]
            fn holds(&self, key: K) -> bool {
                Storage::contains_key(&self.0, key) $(|| Storage::contains_key(&self.$i, key))*
            }

            #[inline]
            fn prefetch(&self, key: K) {
                Storage::as_sparse_set(&self.0).prefetch(key);
                $(Storage::as_sparse_set(&self.$i).prefetch(key);)*
            }

            fn assert_invariants(&self) {
                Storage::assert_invariants(&self.0);
                $(Storage::assert_invariants(&self.$i);)*
            }
        }

        impl<K: Key, $first: Storage<Key = K>, $($member: Storage<Key = K>),*> GroupExcludedMut<K>
            for ($first, $($member,)*)
        {
            fn remove(&mut self, key: K) -> bool {
                // Every storage, whichever held the key: all are asked.
                [
                    Storage::remove(&mut self.0, key).is_some(),
                    $(Storage::remove(&mut self.$i, key).is_some(),)*
                ]
                .contains(&true)
            }

            #[inline]
            fn shrink_to_fit(&mut self) {
                Storage::shrink_to_fit(&mut self.0);
                $(Storage::shrink_to_fit(&mut self.$i);)*
            }
        }
    };
    (@nth $all:tt $($i:tt $t:ident)*) => {
        $(nth!($all $i $t);)*
    };
    (@last $storage:expr, $key:ident) => {
        match Storage::keys(&$storage) {
            [.., last] if *last == $key => Storage::len(&$storage) - 1,
            _ => return None,
        }
    };
    (@take_aligned $member:expr, $position:ident, $len:ident) => {{
        let last = $len - 1;
        if Storage::len(&$member) > $len && $position != last {
            // Keys past the prefix: its last row moves into the hole, and this one to its end.
            Columnar::swap_indices(&mut $member, $position, last);
            Columnar::swap_remove_index(&mut $member, last)
        } else {
            Columnar::swap_remove_index(&mut $member, $position)
        }
    }};
    (@move_to $member:expr, $position:expr, $target:ident) => {
        // A member whose keys all are in the prefix has the key there already.
        if $position != $target {
            Columnar::swap_indices(&mut $member, $position, $target);
        }
    };
    // Each step on `$state`, in order, each after the one before it returned or panicked.
    (@in_turn $state:expr, $step:expr) => {
        ($step)($state)
    };
    (@in_turn $state:expr, $step:expr, $($rest:expr),+) => {
        then($state, $step, |state| group_tuple!(@in_turn state, $($rest),+))
    };
    (@take_into $state:ident, $i:tt, $position:ident, $len:ident) => {{
        let last = $len - 1;
        if Storage::len(&$state.0.$i) > $len && $position != last {
            // As `@take_aligned`, the removal also while the swap's hook unwinds.
            then(
                $state,
                |state: &mut (&mut Self, Self::Taken)| {
                    Columnar::swap_indices(&mut state.0.$i, $position, last);
                },
                |state: &mut (&mut Self, Self::Taken)| {
                    state.1.$i = Columnar::swap_remove_index(&mut state.0.$i, last);
                },
            );
        } else {
            $state.1.$i = Columnar::swap_remove_index(&mut $state.0.$i, $position);
        }
    }};
    (@none $member:ident) => { None };
    (@usize $member:ident) => { usize };
    (@one $member:ident) => { 1 };
}

group_tuple!(A 0);
group_tuple!(A 0 B 1);
group_tuple!(A 0 B 1 C 2);
group_tuple!(A 0 B 1 C 2 E 3);
group_tuple!(A 0 B 1 C 2 E 3 G 4);
group_tuple!(A 0 B 1 C 2 E 3 G 4 H 5);
group_tuple!(A 0 B 1 C 2 E 3 G 4 H 5 I 6);
group_tuple!(A 0 B 1 C 2 E 3 G 4 H 5 I 6 J 7);
