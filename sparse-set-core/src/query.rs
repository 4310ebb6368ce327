//! Queries: walking the keys several storages have in common, with a view into each.
//!
//! [`query`] takes a tuple of up to 8 **members**, each a storage borrowed shared (`&S`, its view
//! is `S::Ref`), mutably (`&mut S`, its view is `S::Mut`) or optionally ([`optional`]`(&S)` or
//! `optional(&mut S)`, its view an `Option`). Any [`Storage`] can be a member: a
//! [`SparseMap`](crate::SparseMap), a derived storage, a user's own type, and a
//! [`SparseSet`](crate::SparseSet) used as a tag (its view is `()`). [`Query::without`] adds
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
//! A member that is driven by another storage is looked up by key, so the cost per element is
//! one lookup per member: see the crate's costs table. Storages that are always used together
//! iterate fastest when they hold their keys in the same order (insert them together).

use crate::key::Key;
use crate::storage::Storage;

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
    Query { members, without: () }
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

/// A query: its members, and the storages whose keys it skips. Made by [`query`].
#[derive(Debug)]
pub struct Query<M, W> {
    members: M,
    without: W,
}

/// An optional query member, made by [`optional`].
#[derive(Debug, Clone, Copy)]
pub struct Optional<M>(M);

impl<M: Members, W: Exclude<M::Key>> Query<M, W> {
    /// Skips every key stored in `excluded`: a storage borrowed shared (`&S`), or a tuple of 1
    /// to 8 of them. Called again, it replaces the earlier exclusion.
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
    pub fn without<X: Exclude<M::Key>>(self, excluded: X) -> Query<M, X> {
        Query { members: self.members, without: excluded }
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
    pub fn for_each<F>(mut self, f: F)
    where
        M: ForEach,
        F: for<'v> FnMut(M::Key, <M as MembersView<'v>>::Views),
    {
        self.members.for_each_key(&self.without, f);
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
        let cursor = Cursor::new(&self.members);
        QueryIter { members: &mut self.members, without: &self.without, cursor }
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

/// The iterator of [`Query::iter`]: each item borrows it, so call [`next`](Self::next) in a
/// `while let` loop.
#[derive(Debug)]
pub struct QueryIter<'q, M, W> {
    members: &'q mut M,
    without: &'q W,
    cursor: Cursor,
}

impl<M: Members, W: Exclude<M::Key>> QueryIter<'_, M, W> {
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
    #[allow(clippy::should_implement_trait, reason = "a lending iterator: items borrow it")]
    pub fn next<'v>(&'v mut self) -> Option<(M::Key, <M as MembersView<'v>>::Views)>
    where
        M: MembersView<'v>,
    {
        // Locate first, then view: the views borrow the members until the next call.
        let slots = self.cursor.advance(&*self.members, self.without)?;
        self.members.views(slots)
    }

    /// Bounds on the number of elements left: at most the driver's keys not yet visited.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap};
    ///
    /// let mut a: SparseMap<u32, i32> = [(1, 5), (2, 6)].into_iter().collect();
    /// let mut query = query((&mut a,));
    /// assert_eq!(query.iter().size_hint(), (0, Some(2)));
    /// ```
    #[must_use]
    pub fn size_hint(&self) -> (usize, Option<usize>) {
        self.cursor.size_hint(&*self.members)
    }
}

/// Where an iteration over a query stands: its driver and the driver's next dense position.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    driver: Option<usize>,
    next: usize,
}

impl Cursor {
    fn new<M: Members>(members: &M) -> Self {
        Cursor { driver: members.driver(), next: 0 }
    }

    /// The next matching key and every member's slot for it; `None` once the driver's keys are
    /// exhausted.
    #[inline]
    fn advance<M: Members, W: Exclude<M::Key>>(
        &mut self,
        members: &M,
        without: &W,
    ) -> Option<(M::Key, M::Slots)> {
        let driver = self.driver?;
        while self.next < members.member_len(driver) {
            let index = self.next;
            self.next += 1;
            if let Some(slots) = members.locate_driven(driver, index, without) {
                return Some(slots);
            }
        }
        None
    }

    /// At most the driver's keys not yet visited are left.
    fn size_hint<M: Members>(&self, members: &M) -> (usize, Option<usize>) {
        let left = self.driver.map_or(0, |driver| members.member_len(driver) - self.next);
        (0, Some(left))
    }
}

/// The std iterator of a query whose members are all shared: `for (key, views) in query(..)`.
#[derive(Debug, Clone)]
pub struct SharedIter<M, W> {
    members: M,
    without: W,
    cursor: Cursor,
}

impl<M: SharedMembers, W: Exclude<M::Key>> IntoIterator for Query<M, W> {
    type Item = (M::Key, M::Items);
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
        let cursor = Cursor::new(&self.members);
        SharedIter { members: self.members, without: self.without, cursor }
    }
}

impl<M: SharedMembers, W: Exclude<M::Key>> Iterator for SharedIter<M, W> {
    type Item = (M::Key, M::Items);

    fn next(&mut self) -> Option<Self::Item> {
        let slots = self.cursor.advance(&self.members, &self.without)?;
        self.members.items(slots)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.cursor.size_hint(&self.members)
    }
}

/// One query member: a storage borrowed shared (`&S`) or mutably (`&mut S`), or an
/// [`Optional`] one. Implemented for those three forms over every [`Storage`]; the methods are
/// the query's plumbing. Its views are in [`MemberView`].
pub trait Member {
    /// The key type of the storage.
    type Key: Key;
    /// Where the member holds a key: a dense position, or for optional members maybe none.
    type Slot: Copy;

    /// Whether keys this member lacks are skipped (`false` for [`Optional`] members).
    const REQUIRED: bool;

    /// The number of keys stored; what a required member drives with.
    fn len(&self) -> usize;

    /// Whether nothing is stored.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key at dense position `index`.
    fn key_at(&self, index: usize) -> Option<Self::Key>;

    /// The slot of the driver's element at dense position `index`.
    fn driven_slot(index: usize) -> Self::Slot;

    /// Where `key` is held; `None` when a required member lacks it.
    fn locate(&self, key: Self::Key) -> Option<Self::Slot>;
}

/// The key type of one query member, checked against the first member's `K`: how a query's
/// members are required to share one key type, with a message that says what to do when they
/// do not. Implemented for every key type with itself (`K: SameKey<K>`), and nothing else.
#[diagnostic::on_unimplemented(
    message = "a query's members do not share one key type: a storage keyed by `{Self}` is among members keyed by `{K}`",
    label = "keyed by `{Self}`, not `{K}`",
    note = "every member of a query must have the key type of the first member",
    note = "a derived storage is keyed by `u32` unless its struct says otherwise: for `Entity` keys, add `#[sparse_soa(key = Entity)]` to the struct"
)]
pub trait SameKey<K> {
    /// The key, as the first member's key type (the same type).
    fn into_key(self) -> K;

    /// A key of the first member's type, as this one (the same type).
    fn from_key(key: K) -> Self;
}

impl<K> SameKey<K> for K {
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the identity")]
    fn into_key(self) -> K {
        self
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the identity")]
    fn from_key(key: K) -> K {
        key
    }
}

/// The view of a [`Member`] borrowed for `'v`. (`Bound` is never named: its default,
/// `&'v Self`, states that the member outlives `'v` wherever the trait is used for every `'v`.)
pub trait MemberView<'v, Bound = &'v Self>: Member {
    /// The view of one element handed to the query's user.
    type View;

    /// The view at `slot`; `None` only if the storage disagrees with its own key index.
    fn view(&'v mut self, slot: Self::Slot) -> Option<Self::View>;
}

/// A query member that is a shared borrow, so its views can outlive one step.
pub trait SharedMember: Member + Copy {
    /// The view of one element, for the whole borrow.
    type Item;

    /// The view at `slot`, for the whole borrow; `None` only if the storage disagrees with its
    /// own key index.
    fn item(self, slot: Self::Slot) -> Option<Self::Item>;
}

/// The plumbing shared by `&S` and `&mut S`.
macro_rules! storage_member {
    ($($mutability:ident)?) => {
        impl<S: Storage> Member for &$($mutability)? S {
            type Key = S::Key;
            type Slot = usize;

            const REQUIRED: bool = true;

            #[inline]
            fn len(&self) -> usize {
                S::len(self)
            }

            #[inline]
            fn key_at(&self, index: usize) -> Option<S::Key> {
                S::as_sparse_set(self).get_index(index)
            }

            #[inline]
            fn driven_slot(index: usize) -> usize {
                index
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the lookup of a probed member, in the loop")]
            fn locate(&self, key: S::Key) -> Option<usize> {
                S::as_sparse_set(self).get_index_of(key)
            }
        }
    };
}

storage_member!();
storage_member!(mut);

impl<'v, S: Storage> MemberView<'v> for &S {
    type View = S::Ref<'v>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> Option<S::Ref<'v>> {
        S::get_index(self, slot).map(|(_, view)| view)
    }
}

impl<'v, S: Storage> MemberView<'v> for &mut S {
    type View = S::Mut<'v>;

    #[inline]
    fn view(&'v mut self, slot: usize) -> Option<S::Mut<'v>> {
        S::get_index_mut(self, slot).map(|(_, view)| view)
    }
}

impl<'a, S: Storage> SharedMember for &'a S {
    type Item = S::Ref<'a>;

    #[inline]
    fn item(self, slot: usize) -> Option<S::Ref<'a>> {
        S::get_index(self, slot).map(|(_, view)| view)
    }
}

impl<M: Member<Slot = usize>> Member for Optional<M> {
    type Key = M::Key;
    type Slot = Option<usize>;

    const REQUIRED: bool = false;

    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    fn key_at(&self, index: usize) -> Option<M::Key> {
        self.0.key_at(index)
    }

    #[inline]
    fn driven_slot(index: usize) -> Option<usize> {
        Some(index)
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookup of a probed member, in the loop")]
    fn locate(&self, key: M::Key) -> Option<Option<usize>> {
        Some(self.0.locate(key))
    }
}

impl<'v, M: MemberView<'v, Slot = usize>> MemberView<'v> for Optional<M> {
    type View = Option<M::View>;

    #[inline]
    fn view(&'v mut self, slot: Option<usize>) -> Option<Option<M::View>> {
        match slot {
            Some(slot) => self.0.view(slot).map(Some),
            None => Some(None),
        }
    }
}

impl<M: SharedMember<Slot = usize>> SharedMember for Optional<M> {
    type Item = Option<M::Item>;

    #[inline]
    fn item(self, slot: Option<usize>) -> Option<Option<M::Item>> {
        match slot {
            Some(slot) => self.0.item(slot).map(Some),
            None => Some(None),
        }
    }
}

/// Storages whose keys a query skips: `()` (none), `&S` for any [`Storage`], or a tuple of 1 to 8
/// of them.
pub trait Exclude<K: Key> {
    /// Whether any of the storages holds `key`.
    fn holds(&self, key: K) -> bool;
}

impl<K: Key> Exclude<K> for () {
    #[inline]
    fn holds(&self, _: K) -> bool {
        false
    }
}

impl<S: Storage> Exclude<S::Key> for &S {
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookup of an excluded storage, in the loop")]
    fn holds(&self, key: S::Key) -> bool {
        S::as_sparse_set(self).contains(key)
    }
}

/// A tuple of query members with one key type: what [`query`] takes. Implemented for tuples of 1
/// to 8 [`Member`]s; the methods are the query's plumbing. Its views are in [`MembersView`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of query members: a query takes a tuple of 1 to 8 storages",
    label = "not 1 to 8 query members",
    note = "write the members as a tuple of 1 to 8 borrowed storages, all with one key type: `query((&mut positions, &velocities))`, or `query((&positions,))` for one",
    note = "more than 8? query 8 of them, or group storages that are always used together (`Group`) and pass the group as one member"
)]
pub trait Members {
    /// The key type every member shares.
    type Key: Key;
    /// Every member's slot for one key.
    type Slots: Copy;

    /// The index of the member that drives: the smallest required one.
    fn driver(&self) -> Option<usize>;

    /// The number of keys in member `member`.
    fn member_len(&self, member: usize) -> usize;

    /// The key of the driver's element at `index` and every member's slot for it, if every
    /// required member holds the key and no excluded storage does.
    fn locate_driven<W: Exclude<Self::Key>>(
        &self,
        driver: usize,
        index: usize,
        without: &W,
    ) -> Option<(Self::Key, Self::Slots)>;
}

/// The views of a tuple of [`Members`] borrowed for `'v`. (`Bound` is never named: its default,
/// `&'v Self`, states that the members outlive `'v` wherever the trait is used for every `'v`.)
pub trait MembersView<'v, Bound = &'v Self>: Members {
    /// Every member's view for one key, as a tuple.
    type Views;

    /// Every member's view at `slots`.
    fn views(&'v mut self, slots: (Self::Key, Self::Slots)) -> Option<(Self::Key, Self::Views)>;
}

/// The loops of [`Query::for_each`], one per driver.
pub trait ForEach: Members + for<'v> MembersView<'v> {
    /// Calls `f` for every matching key.
    fn for_each_key<W, F>(&mut self, without: &W, f: F)
    where
        W: Exclude<Self::Key>,
        F: for<'v> FnMut(Self::Key, <Self as MembersView<'v>>::Views);

    /// The loop of [`for_each_key`](Self::for_each_key) with member `D` driving: `D` is a
    /// constant, so every test of it folds away and each probed member costs one lookup.
    #[doc(hidden)]
    fn drive<const D: usize, W, F>(&mut self, without: &W, f: &mut F)
    where
        W: Exclude<Self::Key>,
        F: for<'v> FnMut(Self::Key, <Self as MembersView<'v>>::Views);
}

/// A tuple of shared query members: its views can outlive one step, so a query over it is a std
/// [`Iterator`].
pub trait SharedMembers: Members + Copy {
    /// Every member's view for one key, for the whole borrow.
    type Items;

    /// Every member's view at `slots`, for the whole borrow.
    fn items(self, slots: (Self::Key, Self::Slots)) -> Option<(Self::Key, Self::Items)>;
}

macro_rules! members_tuple {
    ($($member:ident $i:tt $view:ident),+) => {
        // `A`, the first member, names the key type; the others are checked against it through
        // `MemberOf`, whose message says what to do when they disagree.
        impl<K: Key, $($member: Member),+> Members for ($($member,)+)
        where
            A: Member<Key = K>,
            $($member::Key: SameKey<K>,)+
        {
            type Key = K;
            type Slots = ($($member::Slot,)+);

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
            fn member_len(&self, member: usize) -> usize {
                match member {
                    $($i => self.$i.len(),)+
                    _ => 0,
                }
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "one step of the loop")]
            fn locate_driven<W: Exclude<K>>(
                &self,
                driver: usize,
                index: usize,
                without: &W,
            ) -> Option<(K, Self::Slots)> {
                let key = match driver {
                    $($i => self.$i.key_at(index).map(SameKey::into_key),)+
                    _ => None,
                }?;
                let slots = ($(
                    if $i == driver {
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
        }

        impl<'v, K: Key, $($member: MemberView<'v, Key = K>),+> MembersView<'v> for ($($member,)+) {
            type Views = ($($member::View,)+);

            #[inline]
            fn views(&'v mut self, (key, slots): (K, Self::Slots)) -> Option<(K, Self::Views)> {
                Some((key, ($(self.$i.view(slots.$i)?,)+)))
            }
        }

        impl<K: Key, $($member),+> ForEach for ($($member,)+)
        where
            $($member: Member<Key = K> + for<'v> MemberView<'v>,)+
        {
            #[inline]
            fn for_each_key<W, F>(&mut self, without: &W, mut f: F)
            where
                W: Exclude<K>,
                F: for<'v> FnMut(K, <Self as MembersView<'v>>::Views),
            {
                match self.driver() {
                    $(Some($i) => self.drive::<$i, W, F>(without, &mut f),)+
                    _ => {}
                }
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "one copy of the loop per driver")]
            fn drive<const D: usize, W, F>(&mut self, without: &W, f: &mut F)
            where
                W: Exclude<K>,
                F: for<'v> FnMut(K, <Self as MembersView<'v>>::Views),
            {
                for index in 0..self.member_len(D) {
                    let Some((key, slots)) = self.locate_driven(D, index, without) else {
                        continue;
                    };
                    if let ($(Some($view),)+) = ($(self.$i.view(slots.$i),)+) {
                        f(key, ($($view,)+));
                    }
                }
            }
        }

        impl<K: Key, $($member: SharedMember<Key = K>),+> SharedMembers for ($($member,)+) {
            type Items = ($($member::Item,)+);

            #[inline]
            fn items(self, (key, slots): (K, Self::Slots)) -> Option<(K, Self::Items)> {
                Some((key, ($(self.$i.item(slots.$i)?,)+)))
            }
        }

        impl<K: Key, $($member: Exclude<K>),+> Exclude<K> for ($($member,)+) {
            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the lookups of excluded storages, in the loop")]
            fn holds(&self, key: K) -> bool {
                $(self.$i.holds(key))||+
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
