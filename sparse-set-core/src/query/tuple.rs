//! Tuples of query members, and the loops that walk them.
//!
//! [`Members`] is what [`query`](crate::query::query) takes: a tuple of 1 to 8 [`Member`]s
//! sharing one key type. Before a walk they become [`Fetches`], every member's
//! [`Fetch`] side by side, and the walk is specialised for its driver: the driver is a const
//! generic of [`Fetches::locate_driven`], so every test of it folds away and each probed member
//! costs one lookup through its probe.
//!
//! A walk answers a key without a call when every probed member and excluded storage holds its
//! slot in its sparse prefix; before `for_each`'s loop, [`ForEach::drive`] cuts all those
//! prefixes to the shortest ([`Fetches::narrow`]), so that one bound check answers for all of
//! them. Cutting changes no answer: a key past the cut is looked up in full.
//!
//! A step-by-step walk (the std and lending iterators) asks once, when it is made, whether it
//! can ever meet such a key ([`Fetches::never_asks`]): every key the driver holds has its slot
//! below the driver's `slot_bound`, so if every other member's and filter's prefix reaches that
//! bound, no lookup of the walk needs a call and the walk's loop has none (a call anywhere in
//! it makes the compiler keep the caller's values in memory across the whole loop). The
//! members are borrowed for the walk, so the answer holds until it ends; the loop checks it in
//! debug builds.

use crate::key::Key;
use crate::query::exclude::ExcludeFetch;
use crate::query::member::{Fetch, FetchItem, FetchView, Member, SameKey};
use crate::set::Quick;

/// How many keys in a row the outer loop of [`FetchesItem::fold_items`] answers without a call
/// before it goes back to its quick loop. Entering the quick loop moves the fetches in and out
/// by value, which a walk over keys past the prefixes would otherwise pay once per key (3.4x
/// slower than the lending iterator over keys spread across `u32`); a short run keeps that to
/// one entry per run.
const QUICK_RUN: usize = 16;

/// A tuple of query members with one key type: what [`query`](crate::query::query) takes.
/// Implemented for tuples of 1 to 8 [`Member`]s; the methods are the query's plumbing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of query members: a query takes a tuple of 1 to 8 storages",
    label = "not 1 to 8 query members",
    note = "write the members as a tuple of 1 to 8 borrowed storages, all with one key type: `query((&mut positions, &velocities))`, or `query((&positions,))` for one",
    note = "more than 8? query 8 of them, or group storages that are always used together (`Group`) and pass the group as one member"
)]
pub trait Members: Sized {
    /// The key type every member shares.
    type Key: Key;
    /// Every member's [`Fetch`], as a tuple.
    type Fetches: Fetches<Key = Self::Key>;
    /// Every member borrowed again, for a shorter walk.
    type Reborrow<'q>: Members<Key = Self::Key>
    where
        Self: 'q;

    /// Whether each member is required (not optional), in order.
    const REQUIRED: &'static [bool];

    /// The index of the member that drives: the smallest required one.
    fn driver(&self) -> Option<usize>;

    /// The first required member that borrows the storage at `address`.
    fn required_at(&self, address: *const ()) -> Option<usize>;

    /// Every member taken apart for a walk.
    fn into_fetches(self) -> Self::Fetches;

    /// Every member borrowed again.
    fn reborrow(&mut self) -> Self::Reborrow<'_>;
}

/// Every member's [`Fetch`] of one walk, side by side: the walk's lookups.
pub trait Fetches {
    /// The key type.
    type Key: Key;
    /// Every member's slot for one key.
    type Slots: Copy;

    /// Every member's [`Fetch::Locator`], as a tuple.
    type Locators: Copy;

    /// Every member's locator.
    fn locators(&self) -> Self::Locators;

    /// The key of driver `D`'s element at `index`.
    fn driver_key<const D: usize>(&self, index: usize) -> Option<Self::Key>;

    /// Every member's slot for `key`, the key of driver `D`'s element at `index`, by the full
    /// lookups (every lane of the sparse index), if every required member holds it and no
    /// excluded storage does. Out of line and cold: the step of a loop for a key past a prefix,
    /// which takes what it needs by value; the loop's common path keeps its state in
    /// registers, and the spills a call needs stay on the cold path.
    fn locate_slow<const D: usize, W: ExcludeFetch<Self::Key> + Copy>(
        locators: Self::Locators,
        without: W,
        key: Self::Key,
        index: usize,
    ) -> Option<Self::Slots>;

    /// The number of keys member `driver` walks when it drives.
    fn driver_len(&self, driver: usize) -> usize;

    /// Member `driver` is walked whole, every row handed out ([`Fetch::visits_all`]).
    fn driver_visits_all(&mut self, driver: usize);

    /// Cuts the sparse prefixes of every probed member (all but `driver`) and of `without` to
    /// the shortest among them, before a walk: a key is answered without a call only if every
    /// one of them holds its slot anyway, and with one length the loop checks the slot once
    /// for all of them. The answers stay the same.
    fn narrow<W: ExcludeFetch<Self::Key>>(&mut self, driver: usize, without: &mut W);

    /// The key of driver `D`'s element at `index` and every member's slot for it, if every
    /// required member holds the key and no excluded storage does.
    fn locate_driven<const D: usize, W: ExcludeFetch<Self::Key>>(
        &self,
        index: usize,
        without: &W,
    ) -> Option<(Self::Key, Self::Slots)>;

    /// [`locate_driven`](Self::locate_driven) answered without a call where every lookup can
    /// be (each key in its storages' sparse prefixes), else [`Quick::Ask`].
    fn locate_quick<const D: usize, W: ExcludeFetch<Self::Key>>(
        &self,
        index: usize,
        without: &W,
    ) -> Quick<(Self::Key, Self::Slots)>;

    /// One step of a walk: [`locate_quick`](Self::locate_quick), then
    /// [`locate_asked`](Self::locate_asked) where it asks.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "one step of the loop")]
    fn locate_step<const D: usize, W: ExcludeFetch<Self::Key> + Copy>(
        &self,
        index: usize,
        without: W,
    ) -> Option<(Self::Key, Self::Slots)> {
        match self.locate_quick::<D, W>(index, &without) {
            Quick::Found(found) => Some(found),
            Quick::Missing => None,
            Quick::Ask => self.locate_asked::<D, W>(index, without),
        }
    }

    /// The match at driver position `index`, a key [`locate_quick`](Self::locate_quick) asked
    /// about: the full lookups ([`locate_slow`](Self::locate_slow), a cold call).
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the rare step, its call kept cold")]
    fn locate_asked<const D: usize, W: ExcludeFetch<Self::Key> + Copy>(
        &self,
        index: usize,
        without: W,
    ) -> Option<(Self::Key, Self::Slots)> {
        let key = self.driver_key::<D>(index)?;
        let slots = Self::locate_slow::<D, W>(self.locators(), without, key, index)?;
        Some((key, Self::driven_at::<D>(slots, index)))
    }

    /// Whether a walk with member `driver` driving and `without` filtering never asks
    /// ([`Quick::Ask`]): every other member's and filter's sparse prefix reaches past the
    /// driver's largest slot, so every lookup is answered without a call.
    fn never_asks<W: ExcludeFetch<Self::Key>>(&self, driver: usize, without: &W) -> bool;

    /// The first match at or past driver position `*next` and before `end`, with member
    /// `driver` driving; `*next` moves past it. The driver is picked once per call, and the
    /// loop is the one specialised for it. `quick` is [`never_asks`](Self::never_asks), asked
    /// once when the walk began: then the loop makes no call, so a caller's loop around it keeps
    /// its own values in registers.
    fn advance<W: ExcludeFetch<Self::Key> + Copy>(
        &self,
        driver: usize,
        quick: bool,
        next: &mut usize,
        end: usize,
        without: &W,
    ) -> Option<(Self::Key, Self::Slots)>;

    /// `slots` with driver `D`'s slot made again from its position `index`: a step's two
    /// paths (the quick lookups and the cold call) then hand the views the same position,
    /// which the loop's bound has checked, so the driver's columns are read with no other
    /// check.
    #[doc(hidden)]
    fn driven_at<const D: usize>(slots: Self::Slots, index: usize) -> Self::Slots;

    /// [`locate_slow`](Self::locate_slow) from state a loop put aside before it started, by
    /// reference: out of line and cold (see [`ForEach::drive`]).
    #[doc(hidden)]
    #[cold]
    #[inline(never)]
    fn locate_cold<const D: usize, W: ExcludeFetch<Self::Key> + Copy>(
        cold: &(Self::Locators, W),
        key: Self::Key,
        index: usize,
    ) -> Option<Self::Slots> {
        Self::locate_slow::<D, W>(cold.0, cold.1, key, index)
    }

    /// The last match before driver position `*end` and at or past `next`, with member
    /// `driver` driving; `*end` moves down to it.
    fn advance_back<W: ExcludeFetch<Self::Key> + Copy>(
        &self,
        driver: usize,
        next: usize,
        end: &mut usize,
        without: &W,
    ) -> Option<(Self::Key, Self::Slots)>;
}

/// The views of [`Fetches`] lent for `'v`. (`Bound` is never named: its default, `&'v Self`,
/// states that the fetches outlive `'v` wherever the trait is used for every `'v`.)
pub trait FetchesView<'v, Bound = &'v Self>: Fetches {
    /// Every member's view for one key, as a tuple.
    type Views;

    /// Every member's view at `slots`.
    ///
    /// # Panics
    ///
    /// As [`FetchView::view`].
    fn views(&'v mut self, slots: Self::Slots) -> Self::Views;
}

/// The views of [`Fetches`] of shared members, which last as long as the borrows: a query of
/// those is a std [`Iterator`].
pub trait FetchesItem: Fetches + Sized {
    /// Every member's view for one key, for the whole borrow.
    type Items;

    /// Every member's view at `slots`, for the whole borrow.
    ///
    /// # Panics
    ///
    /// As [`FetchView::view`].
    fn items(&self, slots: Self::Slots) -> Self::Items;

    /// Folds every match from driver position `next` on into `init` with `g`, with member
    /// `driver` driving: what a std iterator's `fold` (and so `for_each`, `sum`, `collect`)
    /// runs, a loop specialised for the driver whose common case makes no call.
    fn fold_items<W, B, G>(self, driver: usize, next: usize, without: W, init: B, g: G) -> B
    where
        W: ExcludeFetch<Self::Key> + Copy,
        G: FnMut(B, (Self::Key, Self::Items)) -> B;

    /// The inner loop of [`fold_items`](Self::fold_items) with member `D` driving, from driver
    /// position `index` until the end or a key past a prefix. It makes no call, and runs out of
    /// line with the fetches and the accumulator by value, so all of them stay in registers.
    #[doc(hidden)]
    fn fold_quick<const D: usize, W, B, G>(
        self,
        index: usize,
        without: W,
        acc: B,
        g: &mut G,
    ) -> (Self, usize, B)
    where
        W: ExcludeFetch<Self::Key> + Copy,
        G: FnMut(B, (Self::Key, Self::Items)) -> B;
}

/// The loops of [`Query::for_each`](crate::query::Query::for_each), one per driver.
pub trait ForEach: Fetches + for<'v> FetchesView<'v> + Sized {
    /// Calls `f` for every matching key, with member `driver` driving.
    fn for_each_key<W, F>(self, driver: usize, without: W, f: F)
    where
        W: ExcludeFetch<Self::Key> + Copy,
        F: for<'v> FnMut(Self::Key, <Self as FetchesView<'v>>::Views);

    /// The loop of [`for_each_key`](Self::for_each_key) with member `D` driving: `D` is a
    /// constant, so every test of it folds away. It is inlined with `f` into the caller, so
    /// what `f` keeps of the caller's (a sum, a counter) stays in a register; the full lookups
    /// of a key past a prefix are a cold call, so the common path keeps the walk's state in
    /// registers.
    #[doc(hidden)]
    fn drive<const D: usize, W, F>(self, without: W, f: &mut F)
    where
        W: ExcludeFetch<Self::Key> + Copy,
        F: for<'v> FnMut(Self::Key, <Self as FetchesView<'v>>::Views);
}

macro_rules! members_tuple {
    ($($member:ident $i:tt),+) => {
        // `A`, the first member, names the key type; the others are checked against it through
        // `SameKey`, whose message says what to do when they disagree.
        impl<K: Key, $($member: Member),+> Members for ($($member,)+)
        where
            A: Member<Key = K>,
            $($member::Key: SameKey<K>,)+
        {
            type Key = K;
            type Fetches = ($($member::Fetch,)+);
            type Reborrow<'q> = ($($member::Reborrow<'q>,)+) where Self: 'q;

            const REQUIRED: &'static [bool] = &[$($member::REQUIRED),+];

            #[inline]
            fn driver(&self) -> Option<usize> {
                const {
                    assert!(
                        $($member::REQUIRED)||+,
                        "a query needs at least one member that is not optional to drive it"
                    );
                }
                let mut best: Option<(usize, usize)> = None;
                $(
                    if $member::REQUIRED {
                        let len = self.$i.len();
                        if best.is_none_or(|(_, smallest)| len < smallest) {
                            best = Some(($i, len));
                        }
                    }
                )+
                best.map(|(driver, _)| driver)
            }

            #[inline]
            fn required_at(&self, address: *const ()) -> Option<usize> {
                $(
                    if $member::REQUIRED && core::ptr::eq(self.$i.address(), address) {
                        return Some($i);
                    }
                )+
                None
            }

            #[inline]
            fn into_fetches(self) -> Self::Fetches {
                ($(self.$i.into_fetch(),)+)
            }

            #[inline]
            fn reborrow(&mut self) -> Self::Reborrow<'_> {
                ($(self.$i.reborrow(),)+)
            }
        }

        impl<K: Key, $($member: Fetch),+> Fetches for ($($member,)+)
        where
            A: Fetch<Key = K>,
            $($member::Key: SameKey<K>,)+
        {
            type Key = K;
            type Slots = ($($member::Slot,)+);
            type Locators = ($($member::Locator,)+);

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "before the loop")]
            fn locators(&self) -> Self::Locators {
                ($(self.$i.locator(),)+)
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "in the loop")]
            fn driver_key<const D: usize>(&self, index: usize) -> Option<K> {
                match D {
                    $($i => self.$i.keys().get(index).map(|&key| SameKey::into_key(key)),)+
                    _ => None,
                }
            }

            #[cold]
            #[inline(never)]
            fn locate_slow<const D: usize, W: ExcludeFetch<K> + Copy>(
                locators: Self::Locators,
                without: W,
                key: K,
                index: usize,
            ) -> Option<Self::Slots> {
                let slots = ($(
                    if $i == D {
                        $member::driven_slot(index)
                    } else {
                        $member::locate_slow(locators.$i, SameKey::from_key(key))?
                    },
                )+);
                if without.holds(key) {
                    return None;
                }
                Some(slots)
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "one step of the loop")]
            fn driven_at<const D: usize>(slots: Self::Slots, index: usize) -> Self::Slots {
                ($(if $i == D { $member::driven_slot(index) } else { slots.$i },)+)
            }

            #[inline]
            fn narrow<W: ExcludeFetch<K>>(&mut self, driver: usize, without: &mut W) {
                let mut slots = without.prefix_slots();
                $(
                    if $i != driver {
                        slots = slots.min(self.$i.prefix_slots());
                    }
                )+
                if slots == usize::MAX {
                    return;
                }
                $(
                    if $i != driver {
                        self.$i.narrow(slots);
                    }
                )+
                without.narrow(slots);
            }

            #[inline]
            fn driver_visits_all(&mut self, driver: usize) {
                match driver {
                    $($i => self.$i.visits_all(),)+
                    _ => {}
                }
            }

            #[inline]
            fn driver_len(&self, driver: usize) -> usize {
                match driver {
                    $($i => self.$i.driven_len(),)+
                    _ => 0,
                }
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "one step of the loop")]
            fn locate_driven<const D: usize, W: ExcludeFetch<K>>(
                &self,
                index: usize,
                without: &W,
            ) -> Option<(K, Self::Slots)> {
                let key: K = match D {
                    $($i => SameKey::into_key(*self.$i.keys().get(index)?),)+
                    _ => return None,
                };
                let slots = ($(
                    if $i == D {
                        $member::driven_slot(index)
                    } else {
                        self.$i.locate(SameKey::from_key(key))?
                    },
                )+);
                if without.holds(key) {
                    return None;
                }
                Some((key, slots))
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "one step of the loop")]
            fn locate_quick<const D: usize, W: ExcludeFetch<K>>(
                &self,
                index: usize,
                without: &W,
            ) -> Quick<(K, Self::Slots)> {
                let key: K = match D {
                    $($i => match self.$i.keys().get(index) {
                        Some(&key) => SameKey::into_key(key),
                        None => return Quick::Missing,
                    },)+
                    _ => return Quick::Missing,
                };
                let slots = ($(
                    if $i == D {
                        $member::driven_slot(index)
                    } else {
                        match self.$i.locate_quick(SameKey::from_key(key)) {
                            Quick::Found(slot) => slot,
                            Quick::Missing => return Quick::Missing,
                            Quick::Ask => return Quick::Ask,
                        }
                    },
                )+);
                match without.holds_quick(key) {
                    Some(false) => Quick::Found((key, slots)),
                    Some(true) => Quick::Missing,
                    None => Quick::Ask,
                }
            }

            #[inline]
            fn never_asks<W: ExcludeFetch<K>>(&self, driver: usize, without: &W) -> bool {
                let bound = match driver {
                    $($i => self.$i.slot_bound(),)+
                    _ => return false,
                };
                let mut slots = without.prefix_slots();
                $(
                    if $i != driver {
                        slots = slots.min(self.$i.prefix_slots());
                    }
                )+
                bound <= slots
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "an iterator's step: inlined into its loop")]
            fn advance<W: ExcludeFetch<K> + Copy>(
                &self,
                driver: usize,
                quick: bool,
                next: &mut usize,
                end: usize,
                without: &W,
            ) -> Option<(K, Self::Slots)> {
                match driver {
                    $($i => {
                        if quick {
                            // Bounded by the columns too, so the views read them unchecked.
                            let len = self.$i.driven_len().min(end);
                            while *next < len {
                                let index = *next;
                                *next += 1;
                                match self.locate_quick::<$i, W>(index, without) {
                                    Quick::Found(found) => return Some(found),
                                    Quick::Missing => {}
                                    Quick::Ask => debug_assert!(false, "a quick walk asked"),
                                }
                            }
                            return None;
                        }
                        let len = self.$i.keys().len().min(end);
                        while *next < len {
                            let index = *next;
                            *next += 1;
                            let found = self.locate_step::<$i, W>(index, *without);
                            if found.is_some() {
                                return found;
                            }
                        }
                        None
                    })+
                    _ => None,
                }
            }

            #[inline]
            fn advance_back<W: ExcludeFetch<K> + Copy>(
                &self,
                driver: usize,
                next: usize,
                end: &mut usize,
                without: &W,
            ) -> Option<(K, Self::Slots)> {
                match driver {
                    $($i => {
                        *end = (*end).min(self.$i.keys().len());
                        while *end > next {
                            *end -= 1;
                            if let Some(found) = self.locate_driven::<$i, W>(*end, without) {
                                return Some(found);
                            }
                        }
                        None
                    })+
                    _ => None,
                }
            }
        }

        impl<'v, K: Key, $($member: FetchView<'v>),+> FetchesView<'v> for ($($member,)+)
        where
            A: Fetch<Key = K>,
            $($member::Key: SameKey<K>,)+
        {
            type Views = ($($member::View,)+);

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the views of one step, in the loop")]
            fn views(&'v mut self, slots: Self::Slots) -> Self::Views {
                ($(self.$i.view(slots.$i),)+)
            }
        }

        impl<K: Key, $($member: FetchItem),+> FetchesItem for ($($member,)+)
        where
            A: Fetch<Key = K>,
            $($member::Key: SameKey<K>,)+
        {
            type Items = ($($member::Item,)+);

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the views of one step, in the loop")]
            fn items(&self, slots: Self::Slots) -> Self::Items {
                ($(self.$i.item(slots.$i),)+)
            }

            #[inline]
            fn fold_items<W, Acc, Fold>(
                self,
                driver: usize,
                next: usize,
                without: W,
                init: Acc,
                mut g: Fold,
            ) -> Acc
            where
                W: ExcludeFetch<K> + Copy,
                Fold: FnMut(Acc, (K, Self::Items)) -> Acc,
            {
                match driver {
                    $($i => {
                        let len = self.driver_len($i);
                        let (mut fetches, mut index, mut acc) = (self, next, init);
                        loop {
                            let (back, stopped, folded) =
                                fetches.fold_quick::<$i, W, Acc, Fold>(index, without, acc, &mut g);
                            (fetches, acc, index) = (back, folded, stopped);
                            // Keys past a prefix: the full lookups, out of line, until a run of
                            // keys answered without a call sends the walk back to the quick loop.
                            let mut quick = 0;
                            while index < len && quick < QUICK_RUN {
                                let found = match fetches.locate_quick::<$i, W>(index, &without) {
                                    Quick::Found(found) => {
                                        quick += 1;
                                        Some(found)
                                    }
                                    Quick::Missing => {
                                        quick += 1;
                                        None
                                    }
                                    Quick::Ask => {
                                        quick = 0;
                                        fetches.locate_asked::<$i, W>(index, without)
                                    }
                                };
                                if let Some((key, slots)) = found {
                                    acc = g(acc, (key, fetches.items(slots)));
                                }
                                index += 1;
                            }
                            if index >= len {
                                return acc;
                            }
                        }
                    })+
                    _ => init,
                }
            }

            #[inline(never)]
            fn fold_quick<const D: usize, W, Acc, Fold>(
                self,
                mut index: usize,
                without: W,
                mut acc: Acc,
                g: &mut Fold,
            ) -> (Self, usize, Acc)
            where
                W: ExcludeFetch<K> + Copy,
                Fold: FnMut(Acc, (K, Self::Items)) -> Acc,
            {
                let len = self.driver_len(D);
                while index < len {
                    match self.locate_quick::<D, W>(index, &without) {
                        Quick::Found((key, slots)) => acc = g(acc, (key, self.items(slots))),
                        Quick::Missing => {}
                        Quick::Ask => return (self, index, acc),
                    }
                    index += 1;
                }
                (self, len, acc)
            }
        }

        impl<K: Key, $($member),+> ForEach for ($($member,)+)
        where
            A: Fetch<Key = K>,
            $($member: Fetch + for<'v> FetchView<'v>, $member::Key: SameKey<K>,)+
        {
            #[inline]
            fn for_each_key<W, F>(self, driver: usize, without: W, mut f: F)
            where
                W: ExcludeFetch<K> + Copy,
                F: for<'v> FnMut(K, <Self as FetchesView<'v>>::Views),
            {
                match driver {
                    $($i => self.drive::<$i, W, F>(without, &mut f),)+
                    _ => {}
                }
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "one copy of the loop per driver")]
            fn drive<const D: usize, W, F>(self, without: W, f: &mut F)
            where
                W: ExcludeFetch<K> + Copy,
                F: for<'v> FnMut(K, <Self as FetchesView<'v>>::Views),
            {
                let len = self.driver_len(D);
                let (mut fetches, mut without) = (self, without);
                fetches.narrow(D, &mut without);
                // What the full lookups need, put aside once: the loop passes its address to
                // the cold call, so none of it holds a register of the loop.
                let cold = (fetches.locators(), without);
                for index in 0..len {
                    let found = match fetches.locate_quick::<D, W>(index, &without) {
                        Quick::Found(found) => Some(found),
                        Quick::Missing => None,
                        Quick::Ask => match fetches.driver_key::<D>(index) {
                            Some(key) => Self::locate_cold::<D, W>(&cold, key, index)
                                .map(|slots| (key, slots)),
                            None => None,
                        },
                    };
                    if let Some((key, slots)) = found {
                        let slots = Self::driven_at::<D>(slots, index);
                        f(key, ($(fetches.$i.view(slots.$i),)+));
                    }
                }
            }
        }
    };
}

members_tuple!(A 0);
members_tuple!(A 0, B 1);
members_tuple!(A 0, B 1, C 2);
members_tuple!(A 0, B 1, C 2, E 3);
members_tuple!(A 0, B 1, C 2, E 3, G 4);
members_tuple!(A 0, B 1, C 2, E 3, G 4, H 5);
members_tuple!(A 0, B 1, C 2, E 3, G 4, H 5, I 6);
members_tuple!(A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7);
