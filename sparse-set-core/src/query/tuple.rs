//! Tuples of query members, and the loops that walk them.
//!
//! [`Members`] is what [`query`](crate::query::query) takes: a tuple of 1 to 8 [`Member`]s
//! sharing one key type. Before a walk they become [`Fetches`], every member's
//! [`Fetch`] side by side, and the walk is specialised for its driver: the driver is a const
//! generic of [`Fetches::locate_driven`], so every test of it folds away and each probed member
//! costs one lookup through its probe.

use crate::key::Key;
use crate::query::exclude::ExcludeFetch;
use crate::query::member::{Fetch, FetchItem, FetchView, Member, SameKey};

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

    /// The index of the member that drives: the smallest required one.
    fn driver(&self) -> Option<usize>;

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

    /// The number of keys member `driver` walks when it drives.
    fn driver_len(&self, driver: usize) -> usize;

    /// The key of driver `D`'s element at `index` and every member's slot for it, if every
    /// required member holds the key and no excluded storage does.
    fn locate_driven<const D: usize, W: ExcludeFetch<Self::Key>>(
        &self,
        index: usize,
        without: &W,
    ) -> Option<(Self::Key, Self::Slots)>;

    /// The first match at or past driver position `*next`, with member `driver` driving;
    /// `*next` moves past it. The driver is picked once per call, and the loop is the one
    /// specialised for it.
    fn advance<W: ExcludeFetch<Self::Key>>(
        &self,
        driver: usize,
        next: &mut usize,
        without: &W,
    ) -> Option<(Self::Key, Self::Slots)>;
}

/// The views of [`Fetches`] lent for `'v`. (`Bound` is never named: its default, `&'v Self`,
/// states that the fetches outlive `'v` wherever the trait is used for every `'v`.)
pub trait FetchesView<'v, Bound = &'v Self>: Fetches {
    /// Every member's view for one key, as a tuple.
    type Views;

    /// Every member's view at `slots`.
    fn views(&'v mut self, slots: Self::Slots) -> Option<Self::Views>;
}

/// The views of [`Fetches`] of shared members, which last as long as the borrows: a query of
/// those is a std [`Iterator`].
pub trait FetchesItem: Fetches {
    /// Every member's view for one key, for the whole borrow.
    type Items;

    /// Every member's view at `slots`, for the whole borrow.
    fn items(&self, slots: Self::Slots) -> Option<Self::Items>;
}

/// The loops of [`Query::for_each`](crate::query::Query::for_each), one per driver.
pub trait ForEach: Fetches + for<'v> FetchesView<'v> {
    /// Calls `f` for every matching key, with member `driver` driving.
    fn for_each_key<W, F>(&mut self, driver: usize, without: &W, f: F)
    where
        W: ExcludeFetch<Self::Key>,
        F: for<'v> FnMut(Self::Key, <Self as FetchesView<'v>>::Views);

    /// The loop of [`for_each_key`](Self::for_each_key) with member `D` driving: `D` is a
    /// constant, so every test of it folds away.
    #[doc(hidden)]
    fn drive<const D: usize, W, F>(&mut self, without: &W, f: &mut F)
    where
        W: ExcludeFetch<Self::Key>,
        F: for<'v> FnMut(Self::Key, <Self as FetchesView<'v>>::Views);
}

macro_rules! members_tuple {
    ($($member:ident $i:tt $view:ident),+) => {
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

            #[inline]
            fn driver_len(&self, driver: usize) -> usize {
                match driver {
                    $($i => self.$i.keys().len(),)+
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

            #[inline]
            fn advance<W: ExcludeFetch<K>>(
                &self,
                driver: usize,
                next: &mut usize,
                without: &W,
            ) -> Option<(K, Self::Slots)> {
                match driver {
                    $($i => {
                        let len = self.$i.keys().len();
                        while *next < len {
                            let index = *next;
                            *next += 1;
                            if let Some(found) = self.locate_driven::<$i, W>(index, without) {
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
            fn views(&'v mut self, slots: Self::Slots) -> Option<Self::Views> {
                Some(($(self.$i.view(slots.$i)?,)+))
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
            fn items(&self, slots: Self::Slots) -> Option<Self::Items> {
                Some(($(self.$i.item(slots.$i)?,)+))
            }
        }

        impl<K: Key, $($member),+> ForEach for ($($member,)+)
        where
            A: Fetch<Key = K>,
            $($member: Fetch + for<'v> FetchView<'v>, $member::Key: SameKey<K>,)+
        {
            #[inline]
            fn for_each_key<W, F>(&mut self, driver: usize, without: &W, mut f: F)
            where
                W: ExcludeFetch<K>,
                F: for<'v> FnMut(K, <Self as FetchesView<'v>>::Views),
            {
                match driver {
                    $($i => self.drive::<$i, W, F>(without, &mut f),)+
                    _ => {}
                }
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "one copy of the loop per driver")]
            fn drive<const D: usize, W, F>(&mut self, without: &W, f: &mut F)
            where
                W: ExcludeFetch<K>,
                F: for<'v> FnMut(K, <Self as FetchesView<'v>>::Views),
            {
                for index in 0..self.driver_len(D) {
                    let Some((key, slots)) = self.locate_driven::<D, W>(index, without) else {
                        continue;
                    };
                    if let ($(Some($view),)+) = ($(self.$i.view(slots.$i),)+) {
                        f(key, ($($view,)+));
                    }
                }
            }
        }
    };
}

members_tuple!(A 0 va);
members_tuple!(A 0 va, B 1 vb);
members_tuple!(A 0 va, B 1 vb, C 2 vc);
members_tuple!(A 0 va, B 1 vb, C 2 vc, E 3 ve);
members_tuple!(A 0 va, B 1 vb, C 2 vc, E 3 ve, G 4 vg);
members_tuple!(A 0 va, B 1 vb, C 2 vc, E 3 ve, G 4 vg, H 5 vh);
members_tuple!(A 0 va, B 1 vb, C 2 vc, E 3 ve, G 4 vg, H 5 vh, I 6 vi);
members_tuple!(A 0 va, B 1 vb, C 2 vc, E 3 ve, G 4 vg, H 5 vh, I 6 vi, J 7 vj);
