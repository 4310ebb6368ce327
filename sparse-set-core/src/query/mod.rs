//! Queries: walking the keys several storages have in common, with a view into each.
//!
//! [`query`] takes a tuple of up to 8 **members**, each a storage borrowed shared (`&S`, its view
//! is `S::Ref`), mutably (`&mut S`, its view is `S::Mut`) or optionally ([`optional`]`(&S)` or
//! `optional(&mut S)`, its view an `Option`). Any [`Columnar`] storage can be a member: a
//! [`SparseMap`](crate::SparseMap), a derived storage, a user's own type that implements
//! [`Columnar`], a [`Group`](crate::Group), and a [`SparseSet`](crate::SparseSet) used as a
//! tag (its view is `()`). [`Query::without`] adds
//! storages whose keys are skipped.
//!
//! ```
//! use sparse_set_core::{query, SparseMap, SparseSet};
//!
//! let mut positions: SparseMap<u32, f32> = (0..6).map(|key| (key, 0.0)).collect();
//! let velocities: SparseMap<u32, f32> = [(1, 1.0), (2, 2.0), (4, 4.0)].into_iter().collect();
//! let frozen: SparseSet<u32> = [2].into_iter().collect();
//!
//! query((&mut positions, &velocities)).without(&frozen).for_each(|_, (position, velocity)| {
//!     *position += velocity;
//! });
//! assert_eq!(positions.values(), &[0.0, 1.0, 0.0, 0.0, 4.0, 0.0]);
//! ```
//!
//! # How a query runs
//!
//! The smallest member that is not optional **drives**: the query walks its keys in dense order
//! and looks each one up in every other member (optional ones included) and in every excluded
//! storage. A key missing from a required member, or present in an excluded storage, is skipped.
//! A query over members of n₁ ≤ n₂ ≤ … elements therefore computes in **O(n₁)** lookups per
//! member; the order of its results is the driver's dense order.
//!
//! # Borrowing
//!
//! Each member is an ordinary borrow, so several distinct storages can be borrowed mutably in
//! one query, and the compiler refuses the same storage twice when one borrow is mutable
//! (`cannot borrow `positions` as mutable more than once at a time`). The views handed to the
//! closure of [`Query::for_each`] or by [`QueryIter::next`] live until the next element.
//!
//! # Two forms
//!
//! - [`Query::for_each`]: internal iteration; the loop is specialised for each possible driver
//!   and compiles to a plain loop over the driver's keys.
//! - [`Query::iter`]: an iterator you drive yourself with `while let Some(..) = iter.next()`.
//!   Its items borrow the iterator, so it is not a std [`Iterator`] (no two items' mutable views
//!   can be alive at once). Queries whose members are all shared are also [`IntoIterator`]: a
//!   plain `for` loop, and every adapter of [`Iterator`].
//!
//! # Lookups, filters, the driver
//!
//! [`Query::get`], [`Query::get_mut`], [`Query::contains`], [`Query::get_many`],
//! [`Query::get_many_mut`], [`Query::iter_many`] and [`Query::for_each_many`] answer for given
//! keys, one lookup per member each, with the same filters as iteration: [`Query::without`]
//! (skip keys a storage holds), [`Query::with`] (keep keys every storage holds, without
//! fetching them) and [`Query::any_of`] (keep keys one of them holds); filters add up.
//! [`Query::drive_by`] makes a chosen member drive, in its dense order.
//!
//! A member that is driven by another storage is looked up by key, so the cost per element is
//! one lookup per member: see the crate's costs table. Storages that are always used together
//! iterate fastest when they hold their keys in the same order (insert them together).

mod exclude;
mod lookup;
pub(crate) mod member;
#[cfg(test)]
mod tests;
mod tuple;

use core::fmt;

#[cfg(doc)]
use crate::storage::{Columnar, Storage};
pub use exclude::{
    AnyOf, AnyOfFetch, Changed, ChangedFetch, Exclude, ExcludeFetch, With, WithFetch,
};
pub(crate) use lookup::rows_at;
pub use lookup::{
    IterMany, LookupError, MemberLookup, MemberView, MembersLookup, MembersView, SingleError,
};
#[cfg(feature = "rayon")]
pub use member::SplitFetch;
pub use member::{
    Fetch, FetchItem, FetchView, Member, MutFetch, Optional, OptionalFetch, RefFetch, SameKey,
};
pub use tuple::{Fetches, FetchesItem, FetchesView, ForEach, Members};

/// Panics for a `drive_by` of a storage that no required member of the query borrows.
#[cold]
#[inline(never)]
#[track_caller]
fn not_a_driver(storage: crate::error::ShortName) -> ! {
    panic!(
        "drive_by: this `{storage}` is not a required member of the query (a query is driven by one of its required members; an optional member cannot drive)"
    )
}

/// A query over `members`, a tuple of 1 to 8 storages borrowed shared, mutably or
/// [`optional`]ly, all with the same key type. See the [module docs](self).
///
/// Computes in **O(1)** time; iterating computes in **O(n)** lookups per member, for the
/// smallest required member's n elements.
///
/// ```
/// use sparse_set_core::{query, SparseMap};
///
/// let mut health: SparseMap<u32, i32> = [(1, 10), (2, 20), (3, 30)].into_iter().collect();
/// let mut armour: SparseMap<u32, i32> = [(2, 5), (3, 1)].into_iter().collect();
/// let damage: SparseMap<u32, i32> = [(1, 4), (2, 8)].into_iter().collect();
///
/// // Two mutable storages and a shared one.
/// query((&mut health, &mut armour, &damage)).for_each(|_, (health, armour, damage)| {
///     let absorbed = (*armour).min(*damage);
///     *armour -= absorbed;
///     *health -= damage - absorbed;
/// });
/// assert_eq!(health.values(), &[10, 17, 30]);
/// assert_eq!(armour.values(), &[0, 1]);
/// ```
///
/// A query whose members are all [`optional`] has nothing to drive it: it fails to build, with
/// "a query needs at least one member that is not optional to drive it" (an error raised when
/// the query's code is generated, so `cargo build` reports it and `cargo check` does not).
#[must_use = "a query does nothing until it is iterated"]
pub fn query<M: Members>(members: M) -> Query<M, ()> {
    Query { members, without: (), driver: None }
}

/// Marks a query member as optional: keys it does not hold are still visited, and its view is an
/// `Option` (`None` for those keys), as bevy's `Option<&T>`.
///
/// Computes in **O(1)** time.
///
/// ```
/// use sparse_set_core::{query, query::optional, SparseMap};
///
/// let names: SparseMap<u32, &str> = [(1, "ann"), (2, "bo")].into_iter().collect();
/// let titles: SparseMap<u32, &str> = [(2, "dr")].into_iter().collect();
///
/// let mut shown = Vec::new();
/// query((&names, optional(&titles))).for_each(|_, (name, title)| {
///     shown.push(match title {
///         Some(title) => format!("{title} {name}"),
///         None => name.to_string(),
///     });
/// });
/// assert_eq!(shown, ["ann", "dr bo"]);
/// ```
pub fn optional<M: Member>(member: M) -> Optional<M> {
    Optional(member)
}

/// A query: its members, its filters, and the member chosen to drive if one was. Made by
/// [`query`].
#[derive(Debug)]
pub struct Query<M, W> {
    members: M,
    without: W,
    /// The member [`drive_by`](Query::drive_by) chose; else the smallest required one drives.
    driver: Option<usize>,
}

impl<M: Members, W: Exclude<M::Key>> Query<M, W> {
    /// Skips every key stored in `excluded`: a storage borrowed shared (`&S`), a group (its
    /// aligned keys), or a tuple of 1 to 8 of them (bevy's `Without<T>`, `EnTT`'s exclude
    /// list). Filters add up: called again, or after [`with`](Self::with) or
    /// [`any_of`](Self::any_of), it skips those keys too.
    ///
    /// A storage borrowed mutably by the query cannot be named here: the borrow checker refuses
    /// it (`cannot borrow ... as immutable because it is also borrowed as mutable`).
    ///
    /// Computes in **O(1)** time; iterating then costs one more lookup per excluded storage and
    /// element.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap, SparseSet};
    ///
    /// let alive: SparseSet<u32> = (0..5).collect();
    /// let frozen: SparseSet<u32> = [1].into_iter().collect();
    /// let dead: SparseSet<u32> = [3].into_iter().collect();
    ///
    /// let keys: Vec<u32> = query((&alive,)).without((&frozen, &dead)).into_iter().map(|(key, _)| key).collect();
    /// assert_eq!(keys, [0, 2, 4]);
    /// ```
    pub fn without<X: Exclude<M::Key>>(self, excluded: X) -> Query<M, (W, X)> {
        Query { members: self.members, without: (self.without, excluded), driver: self.driver }
    }

    /// Keeps only the keys that every one of `required` holds, without fetching them: a
    /// storage borrowed shared (`&S`), a group (its aligned keys), or a tuple of 1 to 8 of
    /// them (bevy's `With<T>`). A tag passed as a member does the same and hands out `()`;
    /// `with` also takes storages whose values the system does not read. Filters add up.
    ///
    /// Computes in **O(1)** time; iterating then costs one more lookup per storage and
    /// element.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap, SparseSet};
    ///
    /// let mut health: SparseMap<u32, i32> = [(1, 10), (2, 10), (3, 10)].into_iter().collect();
    /// let burning: SparseSet<u32> = [1, 3].into_iter().collect();
    /// let exposed: SparseSet<u32> = [2, 3].into_iter().collect();
    /// query((&mut health,)).with((&burning, &exposed)).for_each(|_, (health,)| *health -= 4);
    /// assert_eq!(health.values(), &[10, 10, 6]);
    /// ```
    pub fn with<Y: Exclude<M::Key>>(self, required: Y) -> Query<M, (W, With<Y>)> {
        Query {
            members: self.members,
            without: (self.without, With(required)),
            driver: self.driver,
        }
    }

    /// Keeps only the keys whose row in `storage` changed since its clock last
    /// [`advance`d](crate::observe::Ticks::advance) (added counts): bevy's `Changed<T>`, for a
    /// storage with change [`Ticks`](crate::observe::Ticks). The same as
    /// [`changed_since`](Self::changed_since) with the storage's
    /// [`previous`](crate::observe::Ticks::previous) tick. Borrow the storage shared, here and
    /// as a member if the system reads it. A storage without ticks does not compile here.
    /// Filters add up.
    ///
    /// Computes in **O(1)** time; iterating then costs one lookup in `storage` per element.
    ///
    /// ```
    /// use sparse_set_core::observe::Ticks;
    /// use sparse_set_core::{SparseMap, query};
    ///
    /// let mut positions = SparseMap::<u32, f32, u32, Ticks>::default();
    /// positions.extend([(1, 0.0), (2, 0.0), (3, 0.0)]);
    /// positions.ticks_mut().advance(); // a new frame
    /// positions[2] = 5.0;
    /// let moved: Vec<u32> = query((&positions,)).changed(&positions).into_iter().map(|(key, _)| key).collect();
    /// assert_eq!(moved, [2]);
    /// ```
    pub fn changed<S>(self, storage: &S) -> Query<M, (W, Changed<'_, S>)>
    where
        S: crate::storage::TrackedStorage<Key = M::Key>,
    {
        let since = storage.changes().previous();
        self.changed_since(storage, since)
    }

    /// Keeps only the keys whose row in `storage` changed after `since` (added counts): the
    /// filter [`changed`](Self::changed) with a tick of your own, such as the tick a system
    /// last ran at.
    ///
    /// Computes in **O(1)** time; iterating then costs one lookup in `storage` per element.
    ///
    /// ```
    /// use sparse_set_core::observe::Ticks;
    /// use sparse_set_core::{SparseMap, query};
    ///
    /// let mut positions = SparseMap::<u32, f32, u32, Ticks>::default();
    /// positions.extend([(1, 0.0), (2, 0.0), (3, 0.0)]);
    /// let drawn = positions.ticks_mut().advance();
    /// positions[2] = 5.0;
    /// positions.ticks_mut().advance(); // frames pass
    /// positions[3] = 1.0;
    /// let moved: Vec<u32> = query((&positions,)).changed_since(&positions, drawn).into_iter().map(|(key, _)| key).collect();
    /// assert_eq!(moved, [2, 3]);
    /// ```
    pub fn changed_since<S>(
        self,
        storage: &S,
        since: crate::observe::Tick,
    ) -> Query<M, (W, Changed<'_, S>)>
    where
        S: crate::storage::TrackedStorage<Key = M::Key>,
    {
        Query {
            members: self.members,
            without: (self.without, Changed { storage, since }),
            driver: self.driver,
        }
    }

    /// Keeps only the keys that at least one of `storages` holds, without fetching them: a
    /// tuple of 1 to 8 storages borrowed shared or groups (bevy's `Or<(With<A>, With<B>)>`).
    /// Filters add up.
    ///
    /// Computes in **O(1)** time; iterating then costs up to one more lookup per storage and
    /// element.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap, SparseSet};
    ///
    /// let names: SparseMap<u32, &str> = [(1, "ann"), (2, "bo"), (3, "cy")].into_iter().collect();
    /// let players: SparseSet<u32> = [1].into_iter().collect();
    /// let bosses: SparseSet<u32> = [3].into_iter().collect();
    /// let shown: Vec<&str> =
    ///     query((&names,)).any_of((&players, &bosses)).into_iter().map(|(_, (name,))| *name).collect();
    /// assert_eq!(shown, ["ann", "cy"]);
    /// ```
    pub fn any_of<Z: Exclude<M::Key>>(self, storages: Z) -> Query<M, (W, AnyOf<Z>)> {
        Query {
            members: self.members,
            without: (self.without, AnyOf(storages)),
            driver: self.driver,
        }
    }

    /// Makes the member that borrows `storage` drive: the query walks that storage's keys, in
    /// its dense order, and looks them up in the others (`EnTT`'s `view.use<T>()`). By default
    /// the smallest required member drives; choosing one is for a storage known to be small, or
    /// for iterating in the order of one storage (sort it first: "sort by depth, then draw").
    ///
    /// The member is found by address, so pass the storage the query borrows (a shared member
    /// can be named while the query holds it; for a mutable member, use
    /// [`drive_by_member`](Self::drive_by_member)).
    ///
    /// Computes in **O(members)** time; iterating then costs **O(n)** lookups per other member,
    /// for that storage's n keys.
    ///
    /// # Panics
    ///
    /// Here, before any iteration, if no required member borrows `storage` (it is not in the
    /// query, or only as an [`optional`] member, which cannot drive).
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let mut depth: SparseMap<u32, i32> = [(1, 5), (2, 1), (3, 9)].into_iter().collect();
    /// let sprites: SparseMap<u32, char> = [(3, 'c'), (1, 'a'), (2, 'b'), (4, 'd')].into_iter().collect();
    /// depth.sort_by(|_, a, _, b| a.cmp(b)); // back to front
    /// let drawn: String =
    ///     query((&depth, &sprites)).drive_by(&depth).into_iter().map(|(_, (_, sprite))| *sprite).collect();
    /// assert_eq!(drawn, "bac");
    /// ```
    #[must_use = "a query does nothing until it is iterated"]
    #[track_caller]
    pub fn drive_by<S: ?Sized>(mut self, storage: &S) -> Self {
        let address = core::ptr::from_ref(storage).cast::<()>();
        match self.members.required_at(address) {
            Some(member) => self.driver = Some(member),
            None => not_a_driver(crate::error::ShortName(core::any::type_name::<S>())),
        }
        self
    }

    /// Makes member `I` (its position in the members tuple) drive, as
    /// [`drive_by`](Self::drive_by) does for a storage: for a member borrowed mutably, which
    /// cannot be named again while the query holds it.
    ///
    /// Member `I` must exist and be required (not [`optional`]): anything else is refused when
    /// the program is built ("a query is driven by one of its required members").
    ///
    /// Computes in **O(1)** time; iterating then costs **O(n)** lookups per other member, for
    /// member `I`'s n keys.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let mut depth: SparseMap<u32, i32> = [(1, 5), (2, 1), (3, 9)].into_iter().collect();
    /// let sprites: SparseMap<u32, char> = [(3, 'c'), (1, 'a'), (2, 'b')].into_iter().collect();
    /// depth.sort_by(|_, a, _, b| a.cmp(b));
    /// let mut order = Vec::new();
    /// query((&mut depth, &sprites)).drive_by_member::<0>().for_each(|_, (z, sprite)| {
    ///     *z += 1;
    ///     order.push(*sprite);
    /// });
    /// assert_eq!(order, ['b', 'a', 'c']);
    /// ```
    ///
    /// An optional member cannot drive:
    ///
    /// ```compile_fail
    /// use sparse_set_core::{query, query::optional, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = SparseMap::new();
    /// let b: SparseMap<u32, i32> = SparseMap::new();
    /// query((&a, optional(&b))).drive_by_member::<1>().for_each(|_, _| {}); // error: member 1 is optional
    /// ```
    #[must_use = "a query does nothing until it is iterated"]
    pub fn drive_by_member<const I: usize>(mut self) -> Self {
        const {
            assert!(
                I < M::REQUIRED.len() && M::REQUIRED[I],
                "a query is driven by one of its required members: `drive_by_member::<I>` names member I, which must exist and not be optional"
            );
        }
        self.driver = Some(I);
        self
    }

    /// The member that drives: the one [`drive_by`](Self::drive_by) chose, else the smallest
    /// required one.
    #[inline]
    pub(crate) fn driver(&self) -> Option<usize> {
        self.driver.or_else(|| self.members.driver())
    }

    /// Calls `f` with every key held by all required members and by none of the excluded
    /// storages, and each member's view. Keys come in the driver's dense order.
    ///
    /// Computes in **O(n)** lookups per member and excluded storage, where n is the size of the
    /// smallest required member.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let mut positions: SparseMap<u32, f32> = [(1, 0.0), (2, 0.0)].into_iter().collect();
    /// let velocities: SparseMap<u32, f32> = [(2, 3.0)].into_iter().collect();
    /// query((&mut positions, &velocities)).for_each(|key, (position, velocity)| {
    ///     assert_eq!(key, 2);
    ///     *position += velocity;
    /// });
    /// assert_eq!(positions[2], 3.0);
    /// ```
    #[inline]
    pub fn for_each<F>(self, f: F)
    where
        M::Fetches: ForEach,
        F: for<'v> FnMut(M::Key, <M::Fetches as FetchesView<'v>>::Views),
    {
        let Some(driver) = self.driver() else { return };
        let mut fetches = self.members.into_fetches();
        if M::REQUIRED.iter().filter(|&&required| required).count() == 1 && W::NONE {
            // The driver alone decides: the walk hands out every row of it, which its observer
            // hears of at once.
            fetches.driver_visits_all(driver);
        }
        fetches.for_each_key(driver, self.without.into_fetch(), f);
    }

    /// An iterator over every key held by all required members and by none of the excluded
    /// storages, with each member's view; call [`next`](QueryIter::next) in a `while let` loop.
    ///
    /// Computes in **O(1)** time; the whole walk as [`for_each`](Self::for_each).
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let mut health: SparseMap<u32, i32> = [(1, 5), (2, 0)].into_iter().collect();
    /// let mut score: SparseMap<u32, i32> = [(1, 0), (2, 0)].into_iter().collect();
    /// let mut query = query((&mut health, &mut score));
    /// let mut iter = query.iter();
    /// while let Some((_, (health, score))) = iter.next() {
    ///     if *health > 0 {
    ///         *score += 1;
    ///     }
    /// }
    /// assert_eq!(score.values(), &[1, 0]);
    /// ```
    #[allow(
        clippy::iter_not_returning_iterator,
        reason = "a lending iterator: its items borrow it, which `Iterator` cannot express"
    )]
    pub fn iter(&mut self) -> QueryIter<'_, M, W> {
        let driver = self.driver();
        let members = self.members.reborrow();
        let fetches = members.into_fetches();
        let without = self.without.into_fetch();
        let (end, quick) = walk_start(&fetches, driver, &without);
        QueryIter { fetches, without, driver, quick, next: 0, end }
    }

    /// The members, given back.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let mut a: SparseMap<u32, i32> = [(1, 5)].into_iter().collect();
    /// let (a,) = query((&mut a,)).into_members();
    /// a.insert(2, 6);
    /// ```
    pub fn into_members(self) -> M {
        self.members
    }
}

impl<M, W> Query<M, W> {
    /// The members and the excluded storages, for the parallel forms.
    #[cfg(feature = "rayon")]
    pub(crate) fn into_parts(self) -> (M, W) {
        (self.members, self.without)
    }
}

/// The fetches a lending iterator over a query holds: the members borrowed for `'q`, taken
/// apart.
type FetchesOf<'q, M> = <<M as Members>::Reborrow<'q> as Members>::Fetches;

/// The iterator of [`Query::iter`]: each item borrows it, so call [`next`](Self::next) in a
/// `while let` loop. The driver is chosen once, when the iterator is made.
pub struct QueryIter<'q, M: Members + 'q, W: Exclude<M::Key>> {
    fetches: FetchesOf<'q, M>,
    without: W::Fetch,
    driver: Option<usize>,
    /// Whether every lookup of the walk is answered without a call
    /// ([`Fetches::never_asks`]), asked once when the walk began.
    quick: bool,
    /// The next driver position to look at.
    next: usize,
    /// The driver's length.
    end: usize,
}

impl<'q, M: Members + 'q, W: Exclude<M::Key>> QueryIter<'q, M, W> {
    /// The next key held by all required members and none of the excluded storages, with each
    /// member's view; `None` once the driver's keys are exhausted.
    ///
    /// Computes in **O(1)** amortised lookups per member (skipped keys included).
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let mut a: SparseMap<u32, i32> = [(1, 5), (2, 6)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(2, 1)].into_iter().collect();
    /// let mut query = query((&mut a, &b));
    /// let mut iter = query.iter();
    /// let (key, (a, b)) = iter.next().unwrap();
    /// *a += *b;
    /// assert_eq!(key, 2);
    /// assert!(iter.next().is_none());
    /// ```
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "an iterator's step: inlined into its loop")]
    #[allow(clippy::should_implement_trait, reason = "a lending iterator: items borrow it")]
    pub fn next<'v>(&'v mut self) -> Option<(M::Key, <FetchesOf<'q, M> as FetchesView<'v>>::Views)>
    where
        FetchesOf<'q, M>: FetchesView<'v>,
    {
        // Locate first, then view: the views borrow the fetches until the next call.
        let (key, slots) = self.locate_next()?;
        Some((key, self.fetches.views(slots)))
    }

    /// The next key the walk visits, without lending its views.
    #[inline]
    pub(crate) fn next_key(&mut self) -> Option<M::Key> {
        self.locate_next().map(|(key, _)| key)
    }

    /// The next match's key and slots; the walk moves past it.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "an iterator's step: inlined into its loop")]
    fn locate_next(&mut self) -> Option<(M::Key, <FetchesOf<'q, M> as Fetches>::Slots)> {
        self.fetches.advance(self.driver?, self.quick, &mut self.next, self.end, &self.without)
    }

    /// Bounds on the number of elements left: at most the driver's keys not yet visited,
    /// exactly those for a query of one required member and no filter.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap, SparseSet};
    ///
    /// let mut a: SparseMap<u32, i32> = [(1, 5), (2, 6)].into_iter().collect();
    /// let b: SparseSet<u32> = [1].into_iter().collect();
    /// assert_eq!(query((&mut a,)).iter().size_hint(), (2, Some(2)));
    /// assert_eq!(query((&mut a, &b)).iter().size_hint(), (0, Some(1)));
    /// ```
    #[must_use]
    pub fn size_hint(&self) -> (usize, Option<usize>) {
        hint::<M, W>(self.end - self.next)
    }
}

impl<'q, M: Members + 'q, W: Exclude<M::Key>> fmt::Debug for QueryIter<'q, M, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueryIter")
            .field("driver", &self.driver)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

/// Where a walk with `driver` driving ends, and whether it never asks
/// ([`Fetches::never_asks`]): what both iterators decide once, when they are made.
#[inline]
fn walk_start<F: Fetches, W: ExcludeFetch<F::Key>>(
    fetches: &F,
    driver: Option<usize>,
    without: &W,
) -> (usize, bool) {
    match driver {
        Some(driver) => (fetches.driver_len(driver), fetches.never_asks(driver, without)),
        None => (0, false),
    }
}

/// The size hint of a walk with `left` driver keys to look at: exact for one required member
/// and no filter, else at most `left`.
#[inline]
fn hint<M: Members, W: Exclude<M::Key>>(left: usize) -> (usize, Option<usize>) {
    let exact = M::REQUIRED.len() == 1 && M::REQUIRED[0] && W::NONE;
    (if exact { left } else { 0 }, Some(left))
}

/// The std iterator of a query whose members are all shared: `for (key, views) in query(..)`.
/// The driver is chosen once, when the iterator is made. It walks the driver from both ends
/// ([`DoubleEndedIterator`]), and knows its length ([`ExactSizeIterator`]) for one required
/// member and no filter.
pub struct SharedIter<M: Members, W: Exclude<M::Key>> {
    fetches: M::Fetches,
    without: W::Fetch,
    driver: Option<usize>,
    /// Whether every lookup of the walk is answered without a call
    /// ([`Fetches::never_asks`]), asked once when the walk began.
    quick: bool,
    /// The next driver position to look at from the front.
    next: usize,
    /// One past the next driver position to look at from the back.
    end: usize,
}

impl<M: Members, W: Exclude<M::Key>> IntoIterator for Query<M, W>
where
    M::Fetches: FetchesItem,
{
    type Item = (M::Key, <M::Fetches as FetchesItem>::Items);
    type IntoIter = SharedIter<M, W>;

    /// Iterates over a query whose members are all shared borrows (`&S` or
    /// `optional(&S)`), with views that live as long as those borrows.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 5), (2, 6)].into_iter().collect();
    /// let b: SparseMap<u32, i32> = [(2, 1), (3, 0)].into_iter().collect();
    /// let sums: Vec<i32> = query((&a, &b)).into_iter().map(|(_, (a, b))| a + b).collect();
    /// assert_eq!(sums, [7]);
    /// ```
    fn into_iter(self) -> Self::IntoIter {
        let driver = self.driver();
        let fetches = self.members.into_fetches();
        let without = self.without.into_fetch();
        let (end, quick) = walk_start(&fetches, driver, &without);
        SharedIter { fetches, without, driver, quick, next: 0, end }
    }
}

impl<M: Members, W: Exclude<M::Key>> Iterator for SharedIter<M, W>
where
    M::Fetches: FetchesItem,
{
    type Item = (M::Key, <M::Fetches as FetchesItem>::Items);

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "an iterator's step: inlined into its loop")]
    fn next(&mut self) -> Option<Self::Item> {
        let (key, slots) = self.fetches.advance(
            self.driver?,
            self.quick,
            &mut self.next,
            self.end,
            &self.without,
        )?;
        Some((key, self.fetches.items(slots)))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        hint::<M, W>(self.end - self.next)
    }

    /// The rest of the walk in the loop specialised for the driver, which makes no call for
    /// keys in the sparse prefixes: what `for_each`, `sum`, `collect` and the other consuming
    /// adapters run.
    #[inline]
    fn fold<B, G>(mut self, init: B, mut g: G) -> B
    where
        G: FnMut(B, Self::Item) -> B,
    {
        let Some(driver) = self.driver else { return init };
        if self.end < self.fetches.driver_len(driver) {
            // Walked from the back too: step by step up to where that walk stopped.
            let mut acc = init;
            for item in self.by_ref() {
                acc = g(acc, item);
            }
            return acc;
        }
        self.fetches.fold_items(driver, self.next, self.without, init, g)
    }
}

impl<M: Members, W: Exclude<M::Key>> DoubleEndedIterator for SharedIter<M, W>
where
    M::Fetches: FetchesItem,
{
    /// The last match not yet visited from either end, in the driver's dense order.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let a: SparseMap<u32, i32> = [(1, 5), (2, 6), (3, 7)].into_iter().collect();
    /// let keys: Vec<u32> = query((&a,)).into_iter().rev().map(|(key, _)| key).collect();
    /// assert_eq!(keys, [3, 2, 1]);
    /// ```
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let (key, slots) =
            self.fetches.advance_back(self.driver?, self.next, &mut self.end, &self.without)?;
        Some((key, self.fetches.items(slots)))
    }
}

/// A query of one required member and no filter visits every key of its member: its length is
/// known.
///
/// ```
/// use sparse_set_core::{query, SparseMap};
///
/// let a: SparseMap<u32, i32> = [(1, 5), (2, 6)].into_iter().collect();
/// assert_eq!(query((&a,)).into_iter().len(), 2);
/// ```
impl<A: Member + ExactMember> ExactSizeIterator for SharedIter<(A,), ()> where
    <(A,) as Members>::Fetches: FetchesItem
{
}

/// A query member that visits every key it holds when it drives alone: a storage or a group
/// (implemented beside the group's other query traits) borrowed shared or mutably (not an
/// [`optional`] one). What makes a one-member query an
/// [`ExactSizeIterator`].
pub trait ExactMember {}

impl<S: crate::storage::Columnar> ExactMember for &S {}
impl<S: crate::storage::Columnar> ExactMember for &mut S {}

impl<M: Members, W: Exclude<M::Key>> fmt::Debug for SharedIter<M, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedIter")
            .field("driver", &self.driver)
            .field("next", &self.next)
            .field("end", &self.end)
            .finish_non_exhaustive()
    }
}
