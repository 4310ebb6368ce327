//! Lookups through a query: the views of one key (`get`, `get_mut`), of several distinct keys at
//! once (`get_many`, `get_many_mut`), and of a list of keys (`iter_many`, `for_each_many`),
//! each applying the query's filters exactly as iteration does.
//!
//! A lookup finds the key's **slot** in every member (its dense position, or for an optional
//! member maybe none), one lookup per member, and checks the filters; the views are then made
//! from the slots. Several mutable views of one storage at once come from its columns split
//! at the slots (no `unsafe`): the slots of distinct keys are distinct.

use core::fmt;

use crate::key::Key;
use crate::query::Query;
use crate::query::exclude::Exclude;
use crate::query::member::{Member, Optional, SameKey, past_rows};
use crate::query::tuple::Members;
use crate::rows::Rows;
use crate::storage::Columnar;

/// What a lookup through a query needs of one member: where it holds a key, and its views
/// there. Implemented for every [`Member`]: `&S`, `&mut S`, [`optional`](crate::query::optional)
/// members and groups; the methods are the query's plumbing.
pub trait MemberLookup: Member {
    /// Where the member holds a key: a dense position, or for an optional member maybe none.
    type Slot: Copy;
    /// The member's read-only view of one element ([`Query::get`]).
    type Read<'r>
    where
        Self: 'r;

    /// Where the member holds `key`; `None` when a required member lacks it.
    fn slot_of(&self, key: Self::Key) -> Option<Self::Slot>;

    /// The read-only view at `slot`.
    ///
    /// # Panics
    ///
    /// If `slot` is past the storage's rows, which only a `Key` implemented wrongly can make a
    /// lookup return.
    fn read_at(&self, slot: Self::Slot) -> Self::Read<'_>;
}

/// The view of one element a [`MemberLookup`] lends for `'v` ([`Query::get_mut`]): mutable for
/// `&mut S`. (`Bound` is never named: its default, `&'v Self`, states that the member outlives
/// `'v` wherever the trait is used for every `'v`.)
pub trait MemberView<'v, Bound = &'v Self>: MemberLookup {
    /// The view.
    type View;

    /// The view at `slot`.
    ///
    /// # Panics
    ///
    /// As [`MemberLookup::read_at`].
    fn view_at(&'v mut self, slot: Self::Slot) -> Self::View;

    /// The views at several slots at once, `None` where no slot is given. The slots given must
    /// be distinct (the slots of distinct keys are); a repeated one gets `None`.
    fn views_at<const N: usize>(
        &'v mut self,
        slots: [Option<Self::Slot>; N],
    ) -> [Option<Self::View>; N];
}

/// The rows at `positions` of `rows`, split off one by one: several rows of one storage at once,
/// mutable ones included. `None` where no position is given, where a position repeats (the
/// second time) or is past the rows.
pub(crate) fn rows_at<R: Rows, const N: usize>(
    rows: R,
    positions: [Option<usize>; N],
) -> [Option<R::Row>; N] {
    let mut order: [usize; N] = core::array::from_fn(|index| index);
    order.sort_unstable_by_key(|&index| positions[index]);
    let mut found: [Option<R::Row>; N] = core::array::from_fn(|_| None);
    let mut rest = Some(rows);
    // The position of `rest`'s first row in `rows`.
    let mut start = 0;
    for index in order {
        let Some(position) = positions[index] else { continue };
        let Some(skip) = position.checked_sub(start) else { continue };
        let Some(tail) = rest.take() else { break };
        if skip >= tail.len() {
            break;
        }
        let (_, tail) = tail.split_at(skip);
        let (row, tail) = tail.split_at(1);
        found[index] = row.into_rows().next().map(|(_, row)| row);
        rest = Some(tail);
        start = position + 1;
    }
    found
}

impl<'a, S: Columnar> MemberLookup for &'a S {
    type Slot = usize;
    type Read<'r>
        = S::Ref<'a>
    where
        Self: 'r;

    #[inline]
    fn slot_of(&self, key: S::Key) -> Option<usize> {
        S::get_index_of(self, key)
    }

    #[inline]
    fn read_at(&self, slot: usize) -> S::Ref<'a> {
        let storage: &'a S = self;
        match S::get_index(storage, slot) {
            Some((_, view)) => view,
            None => past_rows(slot),
        }
    }
}

impl<'a, S: Columnar> MemberView<'_> for &'a S {
    type View = S::Ref<'a>;

    #[inline]
    fn view_at(&mut self, slot: usize) -> S::Ref<'a> {
        self.read_at(slot)
    }

    #[inline]
    fn views_at<const N: usize>(&mut self, slots: [Option<usize>; N]) -> [Option<S::Ref<'a>>; N] {
        slots.map(|slot| slot.map(|slot| self.read_at(slot)))
    }
}

impl<S: Columnar> MemberLookup for &mut S {
    type Slot = usize;
    type Read<'r>
        = S::Ref<'r>
    where
        Self: 'r;

    #[inline]
    fn slot_of(&self, key: S::Key) -> Option<usize> {
        S::get_index_of(self, key)
    }

    #[inline]
    fn read_at(&self, slot: usize) -> S::Ref<'_> {
        match S::get_index(self, slot) {
            Some((_, view)) => view,
            None => past_rows(slot),
        }
    }
}

impl<'v, S: Columnar> MemberView<'v> for &mut S {
    type View = S::Mut<'v>;

    #[inline]
    fn view_at(&'v mut self, slot: usize) -> S::Mut<'v> {
        match S::get_index_mut(self, slot) {
            Some((_, view)) => view,
            None => past_rows(slot),
        }
    }

    #[inline]
    fn views_at<const N: usize>(
        &'v mut self,
        slots: [Option<usize>; N],
    ) -> [Option<S::Mut<'v>>; N] {
        rows_at(Columnar::columns_mut(&mut **self), slots)
    }
}

impl<M: MemberLookup> MemberLookup for Optional<M> {
    type Slot = Option<M::Slot>;
    type Read<'r>
        = Option<M::Read<'r>>
    where
        Self: 'r;

    #[inline]
    fn slot_of(&self, key: M::Key) -> Option<Option<M::Slot>> {
        Some(self.0.slot_of(key))
    }

    #[inline]
    fn read_at(&self, slot: Option<M::Slot>) -> Option<M::Read<'_>> {
        slot.map(|slot| self.0.read_at(slot))
    }
}

impl<'v, M: MemberView<'v>> MemberView<'v> for Optional<M> {
    type View = Option<M::View>;

    #[inline]
    fn view_at(&'v mut self, slot: Option<M::Slot>) -> Option<M::View> {
        slot.map(|slot| self.0.view_at(slot))
    }

    #[inline]
    fn views_at<const N: usize>(
        &'v mut self,
        slots: [Option<Option<M::Slot>>; N],
    ) -> [Option<Option<M::View>>; N] {
        let mut views = self.0.views_at(slots.map(Option::flatten)).into_iter();
        // Each asked key gets its view if the member holds it, `None` inside if not.
        slots.map(|slot| {
            let view = views.next().flatten();
            slot.map(|_| view)
        })
    }
}

/// What a lookup through a query needs of its members, side by side: a tuple of
/// [`MemberLookup`]s. Implemented for every tuple of [`Members`] whose members look up; the
/// methods are the query's plumbing.
pub trait MembersLookup: Members {
    /// Every member's slot for one key.
    type Slots: Copy;
    /// Every member's read-only view of one key, as a tuple ([`Query::get`]).
    type Reads<'r>
    where
        Self: 'r;

    /// Every member's slot for `key`, if every required member holds it.
    fn slots_of(&self, key: Self::Key) -> Option<Self::Slots>;

    /// Every member's read-only view at `slots`.
    fn reads(&self, slots: Self::Slots) -> Self::Reads<'_>;
}

/// Every member's view of one key lent for `'v`, mutable for members borrowed mutably
/// ([`Query::get_mut`]). (`Bound` is never named: its default, `&'v Self`, states that the
/// members outlive `'v` wherever the trait is used for every `'v`.)
pub trait MembersView<'v, Bound = &'v Self>: MembersLookup {
    /// Every member's view, as a tuple.
    type Views;

    /// Every member's view at `slots`.
    fn views(&'v mut self, slots: Self::Slots) -> Self::Views;

    /// Every member's views at several keys' slots at once; the keys must be distinct.
    fn views_many<const N: usize>(&'v mut self, slots: [Self::Slots; N]) -> [Self::Views; N];
}

/// A view a lookup of distinct keys found: every key asked was found, so every slot given has
/// its view.
#[inline]
fn found<T>(view: Option<T>) -> T {
    match view {
        Some(view) => view,
        None => unreachable!("the slots of distinct keys are distinct, and each one has its row"),
    }
}

macro_rules! lookup_tuple {
    ($($member:ident $i:tt),+) => {
        impl<K: Key, $($member: MemberLookup),+> MembersLookup for ($($member,)+)
        where
            ($($member,)+): Members<Key = K>,
            $($member::Key: SameKey<K>,)+
        {
            type Slots = ($($member::Slot,)+);
            type Reads<'r> = ($($member::Read<'r>,)+) where Self: 'r;

            #[inline]
            fn slots_of(&self, key: K) -> Option<Self::Slots> {
                Some(($(self.$i.slot_of(SameKey::from_key(key))?,)+))
            }

            #[inline]
            fn reads(&self, slots: Self::Slots) -> Self::Reads<'_> {
                ($(self.$i.read_at(slots.$i),)+)
            }
        }

        impl<'v, K: Key, $($member: MemberView<'v>),+> MembersView<'v> for ($($member,)+)
        where
            ($($member,)+): Members<Key = K>,
            $($member::Key: SameKey<K>,)+
        {
            type Views = ($($member::View,)+);

            #[inline]
            fn views(&'v mut self, slots: Self::Slots) -> Self::Views {
                ($(self.$i.view_at(slots.$i),)+)
            }

            #[allow(non_snake_case, reason = "each member's views, named as its type")]
            fn views_many<const N: usize>(&'v mut self, slots: [Self::Slots; N]) -> [Self::Views; N] {
                $(let mut $member = self.$i.views_at(slots.map(|slots| Some(slots.$i))).into_iter();)+
                core::array::from_fn(|_| ($(found($member.next().flatten()),)+))
            }
        }
    };
}

lookup_tuple!(A 0);
lookup_tuple!(A 0, B 1);
lookup_tuple!(A 0, B 1, C 2);
lookup_tuple!(A 0, B 1, C 2, E 3);
lookup_tuple!(A 0, B 1, C 2, E 3, G 4);
lookup_tuple!(A 0, B 1, C 2, E 3, G 4, H 5);
lookup_tuple!(A 0, B 1, C 2, E 3, G 4, H 5, I 6);
lookup_tuple!(A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7);

/// Why a lookup of several keys through a query failed: [`Query::get_many`],
/// [`Query::try_get_many_mut`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LookupError {
    /// The key at `position` of the keys asked is not one the query visits: a required
    /// member lacks it, or a filter skips it.
    Missing {
        /// Its position among the keys asked.
        position: usize,
    },
    /// The keys at `first` and `second` of the keys asked are the same key: one element's
    /// mutable views cannot be handed out twice.
    Repeated {
        /// The first position.
        first: usize,
        /// The second position.
        second: usize,
    },
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LookupError::Missing { position } => write!(
                f,
                "key {position} of the keys asked is not visited by the query: a required member lacks it, or a filter skips it"
            ),
            LookupError::Repeated { first, second } => write!(
                f,
                "keys {first} and {second} of the keys asked are the same key: mutable views of one element cannot be handed out twice"
            ),
        }
    }
}

impl core::error::Error for LookupError {}

/// Why [`Query::single`] or [`Query::single_mut`] found no row to lend: the query visits no key,
/// or more than one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SingleError {
    /// The query visits no key.
    Empty,
    /// The query visits more than one key.
    Multiple,
}

impl fmt::Display for SingleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SingleError::Empty => "the query visits no key, where exactly one was expected",
            SingleError::Multiple => {
                "the query visits more than one key, where exactly one was expected"
            }
        })
    }
}

impl core::error::Error for SingleError {}

impl<M: MembersLookup, W: Exclude<M::Key>> Query<M, W> {
    /// Every member's slot for `key`, if the query visits it: every required member holds it
    /// and no filter skips it.
    #[inline]
    fn slots_of(&self, key: M::Key) -> Option<M::Slots> {
        let slots = self.members.slots_of(key)?;
        if self.without.holds(key) {
            return None;
        }
        Some(slots)
    }

    /// Whether the query visits `key`: every required member holds it and no filter skips it
    /// (`EnTT`'s `view.contains(e)`).
    ///
    /// Computes in **O(1)** time: one lookup per member and filtered storage.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap, SparseSet};
    ///
    /// let positions: SparseMap<u32, f32> = [(1, 0.0), (2, 0.0)].into_iter().collect();
    /// let frozen: SparseSet<u32> = [2].into_iter().collect();
    /// let query = query((&positions,)).without(&frozen);
    /// assert!(query.contains(1));
    /// assert!(!query.contains(2) && !query.contains(3));
    /// ```
    #[inline]
    #[must_use]
    pub fn contains(&self, key: M::Key) -> bool {
        self.slots_of(key).is_some()
    }

    /// The read-only views of `key` in every member, if the query visits it (bevy's
    /// `query.get(e)`, `EnTT`'s `view.get(e)`); an optional member's view is `None` where it
    /// lacks the key.
    ///
    /// Computes in **O(1)** time: one lookup per member and filtered storage.
    ///
    /// ```
    /// use sparse_set_core::{query, query::optional, SparseMap};
    ///
    /// let mut positions: SparseMap<u32, f32> = [(1, 1.0), (2, 2.0)].into_iter().collect();
    /// let names: SparseMap<u32, &str> = [(2, "player")].into_iter().collect();
    /// let query = query((&mut positions, optional(&names)));
    /// assert_eq!(query.get(2), Some((&2.0, Some(&"player"))));
    /// assert_eq!(query.get(1), Some((&1.0, None)));
    /// assert_eq!(query.get(3), None);
    /// ```
    #[inline]
    #[must_use]
    pub fn get(&self, key: M::Key) -> Option<M::Reads<'_>> {
        let slots = self.slots_of(key)?;
        Some(self.members.reads(slots))
    }

    /// The one key the query visits, with every member's read-only view (bevy's
    /// `query.single()`): "the player", when one entity carries the player's tag.
    ///
    /// It walks the query until it finds a second key (so **O(n)** in the worst case, like
    /// iteration), then looks the one key up. It takes `&mut self` because walking a query
    /// borrows its members as iteration does.
    ///
    /// # Errors
    ///
    /// [`SingleError::Empty`] when the query visits no key, [`SingleError::Multiple`] when it
    /// visits more than one.
    ///
    /// ```
    /// use sparse_set_core::{query, query::SingleError, SparseMap, SparseSet};
    ///
    /// let positions: SparseMap<u32, f32> = [(1, 1.0), (2, 2.0), (3, 3.0)].into_iter().collect();
    /// let player: SparseSet<u32> = [2].into_iter().collect();
    /// let mut players = query((&positions,)).with(&player);
    /// assert_eq!(players.single(), Ok((2, (&2.0,))));
    /// assert_eq!(query((&positions,)).single(), Err(SingleError::Multiple));
    /// ```
    pub fn single(&mut self) -> Result<(M::Key, M::Reads<'_>), SingleError> {
        let key = self.single_key()?;
        self.get(key).map(|reads| (key, reads)).ok_or(SingleError::Empty)
    }

    /// The one key the query visits, with every member's view, mutable for members borrowed
    /// mutably (bevy's `query.single_mut()`): "move the camera to the player".
    ///
    /// Computes as [`single`](Self::single).
    ///
    /// # Errors
    ///
    /// [`SingleError::Empty`] when the query visits no key, [`SingleError::Multiple`] when it
    /// visits more than one.
    ///
    /// ```
    /// use sparse_set_core::{query, query::SingleError, SparseMap, SparseSet};
    ///
    /// let mut positions: SparseMap<u32, f32> = [(1, 1.0), (2, 2.0)].into_iter().collect();
    /// let camera: SparseSet<u32> = [1].into_iter().collect();
    /// let target = positions[2];
    /// let mut cameras = query((&mut positions,)).with(&camera);
    /// if let Ok((_, (position,))) = cameras.single_mut() {
    ///     *position = target;
    /// }
    /// assert_eq!(positions[1], 2.0);
    /// let empty = SparseSet::<u32>::new();
    /// assert_eq!(query((&mut positions,)).with(&empty).single_mut().err(), Some(SingleError::Empty));
    /// ```
    pub fn single_mut(&mut self) -> Result<(M::Key, <M as MembersView<'_>>::Views), SingleError>
    where
        M: for<'v> MembersView<'v>,
    {
        let key = self.single_key()?;
        self.get_mut(key).map(|views| (key, views)).ok_or(SingleError::Empty)
    }

    /// The one key the query visits: the walk stops at the second.
    fn single_key(&mut self) -> Result<M::Key, SingleError> {
        let mut walk = self.iter();
        let key = walk.next_key().ok_or(SingleError::Empty)?;
        match walk.next_key() {
            Some(_) => Err(SingleError::Multiple),
            None => Ok(key),
        }
    }

    /// The views of `key` in every member, mutable for members borrowed mutably, if the query
    /// visits it (bevy's `query.get_mut(e)`).
    ///
    /// Computes in **O(1)** time: one lookup per member and filtered storage.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let mut health: SparseMap<u32, i32> = [(1, 10), (2, 20)].into_iter().collect();
    /// let damage: SparseMap<u32, i32> = [(2, 5)].into_iter().collect();
    /// let mut query = query((&mut health, &damage));
    /// if let Some((health, damage)) = query.get_mut(2) {
    ///     *health -= damage;
    /// }
    /// assert!(query.get_mut(1).is_none()); // no damage: not visited
    /// assert_eq!(health[2], 15);
    /// ```
    #[inline]
    pub fn get_mut(&mut self, key: M::Key) -> Option<<M as MembersView<'_>>::Views>
    where
        M: for<'v> MembersView<'v>,
    {
        let slots = self.slots_of(key)?;
        Some(self.members.views(slots))
    }

    /// The read-only views of every key of `keys`, in their order (bevy's `query.get_many`).
    /// A key may repeat.
    ///
    /// Computes in **O(N)** time: one lookup per key, member and filtered storage.
    ///
    /// # Errors
    ///
    /// [`LookupError::Missing`] with the position of the first key the query does not visit.
    ///
    /// ```
    /// use sparse_set_core::{query, query::LookupError, SparseMap};
    ///
    /// let positions: SparseMap<u32, f32> = [(1, 1.0), (2, 2.0)].into_iter().collect();
    /// let query = query((&positions,));
    /// assert_eq!(query.get_many([2, 1]), Ok([(&2.0,), (&1.0,)]));
    /// assert_eq!(query.get_many([1, 7]), Err(LookupError::Missing { position: 1 }));
    /// ```
    pub fn get_many<const N: usize>(
        &self,
        keys: [M::Key; N],
    ) -> Result<[M::Reads<'_>; N], LookupError> {
        let slots = self.slots_of_all(keys)?;
        Ok(slots.map(|slots| self.members.reads(slots)))
    }

    /// The views of every key of `keys` at once, mutable for members borrowed mutably, in
    /// their order (bevy's `query.get_many_mut`): the keys must be distinct.
    ///
    /// Computes in **O(N²)** key comparisons and **O(N)** lookups per member.
    ///
    /// # Errors
    ///
    /// [`LookupError::Repeated`] for the first two positions that hold the same key;
    /// [`LookupError::Missing`] for the first key the query does not visit. Nothing is lent
    /// then.
    ///
    /// ```
    /// use sparse_set_core::{query, query::LookupError, SparseMap};
    ///
    /// let mut health: SparseMap<u32, i32> = [(1, 10), (2, 20)].into_iter().collect();
    /// let mut query = query((&mut health,));
    /// // The player hits the monster and the monster hits back.
    /// let [(player,), (monster,)] = query.try_get_many_mut([1, 2]).unwrap();
    /// std::mem::swap(player, monster);
    /// assert_eq!(query.try_get_many_mut([1, 1]).unwrap_err(), LookupError::Repeated { first: 0, second: 1 });
    /// assert_eq!(health[1], 20);
    /// ```
    pub fn try_get_many_mut<const N: usize>(
        &mut self,
        keys: [M::Key; N],
    ) -> Result<[<M as MembersView<'_>>::Views; N], LookupError>
    where
        M: for<'v> MembersView<'v>,
    {
        for second in 1..N {
            if let Some(first) = keys[..second].iter().position(|&key| key == keys[second]) {
                return Err(LookupError::Repeated { first, second });
            }
        }
        let slots = self.slots_of_all(keys)?;
        Ok(self.members.views_many(slots))
    }

    /// [`try_get_many_mut`](Self::try_get_many_mut), which panics instead of returning an
    /// error.
    ///
    /// Computes in **O(N²)** key comparisons and **O(N)** lookups per member.
    ///
    /// # Panics
    ///
    /// If two keys are the same, or the query does not visit one of them, with the message of
    /// the [`LookupError`].
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let mut score: SparseMap<u32, u32> = [(1, 5), (2, 7)].into_iter().collect();
    /// let mut query = query((&mut score,));
    /// let [(a,), (b,)] = query.get_many_mut([1, 2]);
    /// *a += *b;
    /// assert_eq!(score[1], 12);
    /// ```
    #[track_caller]
    pub fn get_many_mut<const N: usize>(
        &mut self,
        keys: [M::Key; N],
    ) -> [<M as MembersView<'_>>::Views; N]
    where
        M: for<'v> MembersView<'v>,
    {
        match self.try_get_many_mut(keys) {
            Ok(views) => views,
            Err(error) => panic!("get_many_mut: {error}"),
        }
    }

    /// Every key's slots, or the first that is missing.
    fn slots_of_all<const N: usize>(
        &self,
        keys: [M::Key; N],
    ) -> Result<[M::Slots; N], LookupError> {
        let mut slots = [None; N];
        for (position, (key, slot)) in keys.into_iter().zip(&mut slots).enumerate() {
            *slot = Some(self.slots_of(key).ok_or(LookupError::Missing { position })?);
        }
        Ok(slots.map(found))
    }

    /// An iterator over the keys of `keys` the query visits, in their order, with each
    /// member's read-only view (bevy's `query.iter_many`); keys it does not visit are skipped,
    /// and a key may repeat.
    ///
    /// Computes in **O(1)** time per key: one lookup per member and filtered storage.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let names: SparseMap<u32, &str> = [(1, "ann"), (2, "bo"), (3, "cy")].into_iter().collect();
    /// let query = query((&names,));
    /// let picked: Vec<&str> = query.iter_many([3, 9, 1]).map(|(_, (name,))| *name).collect();
    /// assert_eq!(picked, ["cy", "ann"]);
    /// ```
    pub fn iter_many<I: IntoIterator<Item = M::Key>>(
        &self,
        keys: I,
    ) -> IterMany<'_, M, W, I::IntoIter> {
        IterMany { query: self, keys: keys.into_iter() }
    }

    /// Calls `f` with every key of `keys` the query visits, in their order, and each member's
    /// view, mutable for members borrowed mutably; keys it does not visit are skipped, and a
    /// key may repeat (each call's views end before the next).
    ///
    /// Computes in **O(1)** time per key: one lookup per member and filtered storage.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let mut health: SparseMap<u32, i32> = [(1, 10), (2, 20)].into_iter().collect();
    /// // Two hits on 2, one on an entity that has no health.
    /// query((&mut health,)).for_each_many([2, 5, 2], |_, (health,)| *health -= 3);
    /// assert_eq!(health[2], 14);
    /// ```
    pub fn for_each_many<I, F>(&mut self, keys: I, mut f: F)
    where
        I: IntoIterator<Item = M::Key>,
        M: for<'v> MembersView<'v>,
        F: for<'v> FnMut(M::Key, <M as MembersView<'v>>::Views),
    {
        for key in keys {
            if let Some(slots) = self.slots_of(key) {
                f(key, self.members.views(slots));
            }
        }
    }
}

/// The iterator of [`Query::iter_many`]: the keys of a list that the query visits, with each
/// member's read-only view.
pub struct IterMany<'q, M: MembersLookup, W, I> {
    query: &'q Query<M, W>,
    keys: I,
}

impl<'q, M: MembersLookup, W: Exclude<M::Key>, I: Iterator<Item = M::Key>> Iterator
    for IterMany<'q, M, W, I>
{
    type Item = (M::Key, M::Reads<'q>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let query = self.query;
        self.keys.by_ref().find_map(|key| Some((key, query.get(key)?)))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.keys.size_hint().1)
    }
}

impl<M: MembersLookup, W, I: fmt::Debug> fmt::Debug for IterMany<'_, M, W, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IterMany").field("keys", &self.keys).finish_non_exhaustive()
    }
}
