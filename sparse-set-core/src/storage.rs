//! [`Storage`]: what every keyed storage (a [`SparseMap`](crate::SparseMap), a derived
//! struct-of-arrays storage) offers, so generic code such as [`join`](crate::join) can be written
//! once.

use alloc::vec::Vec;
use core::ops::Range;

use crate::dense::DenseIndex;
use crate::error::{Error, fail_insert};
use crate::key::Key;
use crate::observe::{NoWrites, RowChanges, RowWrites};
use crate::permutation::sort_as_with;
use crate::rows::Rows;
use crate::set::{Keys, SparseSet};

/// A storage of values keyed through a [`SparseSet`]: the value of the key at dense position `i`
/// lives at position `i` of the storage's own arrays.
///
/// Implemented by [`SparseMap`](crate::SparseMap) (`Ref` = `&V`), by every storage that
/// `#[derive(SparseSoa)]` generates (`Ref` = a struct of references to one element's fields)
/// and by [`SparseSet`] without an observer, a tag (`Value` and `Ref` = `()`).
/// The inherent methods of those types have the same names and meaning; the trait is for code
/// that is generic over the storage.
///
/// ```
/// use sparse_set_core::{SparseMap, Storage};
///
/// fn total<S: Storage<Key = u32>>(storage: &S, value: impl Fn(S::Ref<'_>) -> f32) -> f32 {
///     storage.keys().iter().filter_map(|&key| storage.get(key)).map(value).sum()
/// }
///
/// let mut heights = SparseMap::<u32, f32>::new();
/// heights.insert(3, 1.5);
/// heights.insert(9, 2.0);
/// assert_eq!(total(&heights, |height| *height), 3.5);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a storage",
    label = "not a storage",
    note = "a storage is a `SparseSet`, a `SparseMap`, a storage derived with `#[derive(SparseSoa)]` (`...Soa`), or a type of your own implementing `Storage`",
    note = "in a `#[derive(World)]` struct, mark a field that is not a storage `#[sparse_soa(skip)]`"
)]
pub trait Storage {
    /// The key type.
    type Key: Key;
    /// The dense index width of the key index.
    type Dense: DenseIndex;
    /// The owned value stored per key.
    type Value;
    /// A shared view of one stored value.
    type Ref<'a>
    where
        Self: 'a;
    /// A mutable view of one stored value.
    type Mut<'a>
    where
        Self: 'a;

    /// The key index: which keys are stored, at which dense positions.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let map: SparseMap<u32, char> = [(4, 'a')].into_iter().collect();
    /// assert!(Storage::as_sparse_set(&map).contains(4));
    /// ```
    fn as_sparse_set(&self) -> &SparseSet<Self::Key, Self::Dense>;

    /// The key and value at dense position `index`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let map: SparseMap<u32, char> = [(4, 'a'), (9, 'b')].into_iter().collect();
    /// assert_eq!(Storage::get_index(&map, 1), Some((9, &'b')));
    /// ```
    fn get_index(&self, index: usize) -> Option<(Self::Key, Self::Ref<'_>)>;

    /// The key and mutable value at dense position `index`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let mut map: SparseMap<u32, char> = [(4, 'a')].into_iter().collect();
    /// if let Some((_, value)) = Storage::get_index_mut(&mut map, 0) {
    ///     *value = 'z';
    /// }
    /// assert_eq!(map[4], 'z');
    /// ```
    fn get_index_mut(&mut self, index: usize) -> Option<(Self::Key, Self::Mut<'_>)>;

    /// Stores `value` under `key`; returns the value it replaced.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// With a message naming `key` and the [`Error`] that [`try_insert`](Self::try_insert)
    /// would return; the storage is then unchanged.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let mut map = SparseMap::<u32, char>::new();
    /// assert_eq!(Storage::insert(&mut map, 4, 'a'), None);
    /// assert_eq!(Storage::insert(&mut map, 4, 'b'), Some('a'));
    /// ```
    #[inline]
    #[track_caller]
    fn insert(&mut self, key: Self::Key, value: Self::Value) -> Option<Self::Value> {
        match self.try_insert(key, value) {
            Ok(replaced) => replaced,
            Err(error) => fail_insert::<Self, _>(key, error),
        }
    }

    /// The fallible twin of [`insert`](Self::insert): stores `value` under `key` and returns the
    /// value it replaced, or an [`Error`] that leaves the storage unchanged.
    ///
    /// One rule for every storage (sets, maps, derived storages): the value returned is the one
    /// held in `key`'s slot before the call, `key`'s own or an older version's (for an
    /// [`Entity`](crate::entity::Entity): the same index, an older generation, which is dead, so
    /// the newer key takes its place); `None` if the slot was empty. A set's value is `()`:
    /// `Some(())` says the slot was held.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// As the storage's inherent `try_insert`: [`Error::StaleKey`] for a key older than the
    /// version its slot holds or has held (see "Stale keys" in the [`set`](crate::set) module
    /// docs); for a new key, the limits of a bounded storage or of the dense width, or a failed
    /// allocation.
    ///
    /// ```
    /// use core::num::NonZeroU32;
    /// use sparse_set_core::{Entity, Error, SparseMap, SparseSet, Storage};
    ///
    /// let mut map = SparseMap::<u32, char>::bounded(1, 8);
    /// assert_eq!(Storage::try_insert(&mut map, 4, 'a'), Ok(None));
    /// assert_eq!(Storage::try_insert(&mut map, 5, 'b'), Err(Error::Full { capacity: 1 }));
    ///
    /// // A newer generation takes the slot of an older one, and returns what the older held.
    /// let (old, new) = (Entity::from_parts(3, NonZeroU32::MIN), Entity::from_parts(3, NonZeroU32::MIN.saturating_add(1)));
    /// let mut tag = SparseSet::<Entity>::new();
    /// let mut names = SparseMap::<Entity, &str>::new();
    /// Storage::insert(&mut tag, old, ());
    /// Storage::insert(&mut names, old, "old");
    /// assert_eq!(Storage::try_insert(&mut tag, new, ()), Ok(Some(())));
    /// assert_eq!(Storage::try_insert(&mut names, new, "new"), Ok(Some("old")));
    /// ```
    fn try_insert(
        &mut self,
        key: Self::Key,
        value: Self::Value,
    ) -> Result<Option<Self::Value>, Error>;

    /// Makes room for at least `additional` more values without reallocating: the storage's
    /// own `try_reserve`. A bounded storage, whose memory is all allocated when it is made,
    /// reserves nothing and succeeds. The default reserves nothing (a storage implemented
    /// outside this crate then grows as it is filled).
    ///
    /// Computes in **O(len)** time if it reallocates, O(1) otherwise.
    ///
    /// # Errors
    ///
    /// [`Error::CapacityOverflow`] or [`Error::AllocFailed`]; the storage is unchanged.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let mut map = SparseMap::<u32, char>::new();
    /// Storage::try_reserve(&mut map, 100).unwrap();
    /// assert!(map.capacity() >= 100);
    /// ```
    fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        let _ = additional;
        Ok(())
    }

    /// A hint before inserting new keys that fill `slots` (their [`Key::sparse_slot`]s, such as
    /// a batch of entities just spawned): the storage may lay its sparse index out for them at
    /// once, so that each insert writes its slot with one store instead of growing the index
    /// page by page. The storages of this crate do so only where room for that many keys is
    /// reserved ([`try_reserve`](Self::try_reserve)) and the keys fill at least half of the
    /// slots it adds, so memory still follows the keys. Never required, never fails (an
    /// allocation it cannot make is left for the inserts to report). The default does nothing.
    ///
    /// Computes in **O(slots added)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let mut map = SparseMap::<u32, char>::new();
    /// Storage::try_reserve(&mut map, 10_000).unwrap();
    /// Storage::reserve_slots(&mut map, 0..10_000);
    /// for key in 0..10_000 {
    ///     map.insert(key, 'a');
    /// }
    /// assert_eq!(map.len(), 10_000);
    /// ```
    fn reserve_slots(&mut self, slots: Range<u64>) {
        let _ = slots;
    }

    /// Releases spare memory, as the storage's own `shrink_to_fit` does (a bounded storage
    /// keeps its memory); the keys, their order and the values are unchanged. What a
    /// [`Group`](crate::Group)'s `shrink_to_fit` asks of each of its storages. The default
    /// does nothing.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let mut map: SparseMap<u32, char> = (0..1_000).map(|key| (key, 'a')).collect();
    /// map.retain(|key, _| key < 10);
    /// Storage::shrink_to_fit(&mut map);
    /// assert!(map.capacity() < 1_000);
    /// assert_eq!(map.keys(), (0..10).collect::<Vec<u32>>());
    /// ```
    fn shrink_to_fit(&mut self) {}

    /// How many of `keys` (distinct, such as entities just spawned), from the first,
    /// [`push_fresh_run`](Self::push_fresh_run) can store: each new to the storage on its
    /// insert's common path, with room already reserved for it in every column. What a batch of
    /// whole rows checks in every storage it names before it writes any. The default, zero,
    /// sends every row through [`try_insert`](Self::try_insert).
    #[doc(hidden)]
    fn fresh_run_len(&self, keys: &[Self::Key]) -> usize {
        let _ = keys;
        0
    }

    /// Stores the first `keys.len()` of `values` under `keys`, in order, as new rows at the
    /// end: `keys` is no longer than [`fresh_run_len`](Self::fresh_run_len) measured, so this
    /// cannot fail and never allocates. The values stored are drained from the front of
    /// `values`.
    #[doc(hidden)]
    fn push_fresh_run(&mut self, keys: &[Self::Key], values: &mut Vec<Self::Value>) {
        debug_assert!(keys.is_empty(), "the default `fresh_run_len` measures no run");
        let _ = values;
    }

    /// Removes `key` by swap-remove; returns its value.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let mut map: SparseMap<u32, char> = [(4, 'a'), (5, 'b')].into_iter().collect();
    /// assert_eq!(Storage::remove(&mut map, 4), Some('a'));
    /// assert_eq!(map.keys(), &[5]);
    /// ```
    fn remove(&mut self, key: Self::Key) -> Option<Self::Value>;

    /// The number of stored values.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let map: SparseMap<u32, char> = [(4, 'a')].into_iter().collect();
    /// assert_eq!(Storage::len(&map), 1);
    /// ```
    #[inline]
    fn len(&self) -> usize {
        self.as_sparse_set().len()
    }

    /// Whether nothing is stored.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// assert!(Storage::is_empty(&SparseMap::<u32, char>::new()));
    /// ```
    #[inline]
    fn is_empty(&self) -> bool {
        self.as_sparse_set().is_empty()
    }

    /// The keys in dense order.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let map: SparseMap<u32, char> = [(4, 'a'), (2, 'b')].into_iter().collect();
    /// assert_eq!(Storage::keys(&map), &[4, 2]);
    /// ```
    #[inline]
    fn keys(&self) -> &[Self::Key] {
        self.as_sparse_set().as_slice()
    }

    /// Whether `key` is stored.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let map: SparseMap<u32, char> = [(4, 'a')].into_iter().collect();
    /// assert!(Storage::contains_key(&map, 4));
    /// ```
    #[inline]
    fn contains_key(&self, key: Self::Key) -> bool {
        self.as_sparse_set().contains(key)
    }

    /// The dense position of `key`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let map: SparseMap<u32, char> = [(4, 'a'), (2, 'b')].into_iter().collect();
    /// assert_eq!(Storage::get_index_of(&map, 2), Some(1));
    /// ```
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "a wrapper of `SparseSet::get_index_of`, which is `inline(always)` for the same reason"
    )]
    fn get_index_of(&self, key: Self::Key) -> Option<usize> {
        self.as_sparse_set().get_index_of(key)
    }

    /// The value stored under `key`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let map: SparseMap<u32, char> = [(4, 'a')].into_iter().collect();
    /// assert_eq!(Storage::get(&map, 4), Some(&'a'));
    /// ```
    #[inline]
    fn get(&self, key: Self::Key) -> Option<Self::Ref<'_>> {
        let index = self.get_index_of(key)?;
        self.get_index(index).map(|(_, value)| value)
    }

    /// The value stored under `key`, mutably.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let mut map: SparseMap<u32, char> = [(4, 'a')].into_iter().collect();
    /// *Storage::get_mut(&mut map, 4).unwrap() = 'b';
    /// assert_eq!(map[4], 'b');
    /// ```
    #[inline]
    fn get_mut(&mut self, key: Self::Key) -> Option<Self::Mut<'_>> {
        let index = self.get_index_of(key)?;
        self.get_index_mut(index).map(|(_, value)| value)
    }

    /// Checks the storage's invariants (those of its key index, and that its own arrays have
    /// one element per key); panics describing the first one broken. It checks in release
    /// builds too.
    ///
    /// The default checks the key index alone; storages with arrays of their own override it.
    /// A trait method rather than an inherent one, so that it never takes a name a derived
    /// storage's column accessor could want.
    ///
    /// Computes in **O(len)** time. Meant for tests: call it after each operation.
    ///
    /// ```
    /// use sparse_set_core::{SparseMap, Storage};
    ///
    /// let map: SparseMap<u32, char> = [(4, 'a')].into_iter().collect();
    /// Storage::assert_invariants(&map);
    /// ```
    #[doc(hidden)]
    fn assert_invariants(&self) {
        self.as_sparse_set().assert_invariants();
    }
}

/// A [`SparseSet`] is the storage of a tag: it stores keys and nothing else, so its value and its
/// views are `()`. This is what lets a set take part in a [`query`](crate::query()) (as a member
/// whose view is `()`, or excluded) and in code generic over storages.
///
/// ```
/// use sparse_set_core::{query, SparseMap, SparseSet};
///
/// let speeds: SparseMap<u32, f32> = [(1, 2.0), (2, 3.0)].into_iter().collect();
/// let boosted: SparseSet<u32> = [2].into_iter().collect();
/// let mut fast = Vec::new();
/// query((&speeds, &boosted)).for_each(|key, (speed, ())| fast.push((key, speed * 2.0)));
/// assert_eq!(fast, [(2, 6.0)]);
/// ```
impl<K: Key, D: DenseIndex> Storage for SparseSet<K, D> {
    type Key = K;
    type Dense = D;
    type Value = ();
    type Ref<'a>
        = ()
    where
        Self: 'a;
    type Mut<'a>
        = ()
    where
        Self: 'a;

    #[inline]
    fn as_sparse_set(&self) -> &SparseSet<K, D> {
        self
    }

    #[inline]
    fn get_index(&self, index: usize) -> Option<(K, ())> {
        SparseSet::get_index(self, index).map(|key| (key, ()))
    }

    #[inline]
    fn get_index_mut(&mut self, index: usize) -> Option<(K, ())> {
        SparseSet::get_index(self, index).map(|key| (key, ()))
    }

    /// Stores `key`; returns `Some(())` if its slot was held: by `key`, or by an older version
    /// of it, which `key` replaces (the rule of [`Storage::try_insert`]).
    #[inline]
    fn try_insert(&mut self, key: K, (): ()) -> Result<Option<()>, Error> {
        let len = self.len();
        let (index, _) = SparseSet::try_insert_full(self, key)?;
        Ok((index < len).then_some(()))
    }

    #[inline]
    fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        SparseSet::try_reserve(self, additional)
    }

    #[inline]
    fn reserve_slots(&mut self, slots: Range<u64>) {
        SparseSet::reserve_slots(self, slots);
    }

    #[inline]
    fn shrink_to_fit(&mut self) {
        SparseSet::shrink_to_fit(self);
    }

    #[inline]
    fn fresh_run_len(&self, keys: &[K]) -> usize {
        SparseSet::fresh_run_len(self, keys)
    }

    #[inline]
    fn push_fresh_run(&mut self, keys: &[K], values: &mut Vec<()>) {
        let pushed = SparseSet::push_fresh_run(self, keys);
        debug_assert_eq!(pushed, keys.len(), "a run longer than `fresh_run_len` measured");
        values.drain(..pushed);
    }

    #[inline]
    fn remove(&mut self, key: K) -> Option<()> {
        SparseSet::remove(self, key).then_some(())
    }
}

/// A storage with change ticks: what the query filter
/// [`Query::changed`](crate::query::Query::changed) reads, and how a handle that shows a
/// storage read-only (a group's member handles, [`MemberMut`](crate::group::MemberMut) and the
/// others) still advances its clock. Implemented by every storage whose observer
/// [`Tracks`](crate::observe::Tracks), and by derived storages with tracked fields. Advancing
/// the clock never changes the rows.
///
/// ```
/// use sparse_set_core::observe::Ticks;
/// use sparse_set_core::{Group, SparseMap};
///
/// let tracked = SparseMap::<u32, u8, u32, Ticks>::default();
/// let mut group = Group::new((tracked, SparseMap::<u32, u8>::new()));
/// let seen = group.member_mut::<0>().ticks_mut().advance();
/// group.member_mut::<0>().insert(1, 0);
/// assert_eq!(group.members().0.changed_since(seen).collect::<Vec<_>>(), [1]);
/// ```
pub trait TrackedStorage: Storage {
    /// What keeps the ticks: [`Ticks`](crate::observe::Ticks) for a storage whose observer
    /// tracks, [`FieldTicks`](crate::observe::FieldTicks) for a derived storage with tracked
    /// fields.
    type Ticks;

    /// The storage's row changes.
    fn changes(&self) -> RowChanges<'_>;

    /// The change ticks: the clock, and when each row was added and last changed.
    fn ticks(&self) -> &Self::Ticks;

    /// The change ticks, mutably: to advance the clock.
    fn ticks_mut(&mut self) -> &mut Self::Ticks;
}

/// Room in `storage` for `additional` more values, most of them under new keys filling `slots`:
/// [`Storage::try_reserve`], then [`Storage::reserve_slots`]. A hint: a failed reservation is
/// left for the inserts to report.
pub(crate) fn reserve_for_batch<S: Storage + ?Sized>(
    storage: &mut S,
    additional: usize,
    slots: Range<u64>,
) {
    let _ = storage.try_reserve(additional);
    storage.reserve_slots(slots);
}

/// A [`Storage`] whose values lie in dense columns beside its keys: every column as a slice,
/// mutable without exposing its length, and positions that can be swapped in every column at
/// once. This is what a [`Group`](crate::Group) needs of its members, what
/// [`sort_as`](Self::sort_as) works on, and what parallel iteration splits.
///
/// Implemented by [`SparseMap`](crate::SparseMap) (one column: the values), by
/// [`SparseSet`](crate::SparseSet) (no column: a tag) and by every storage
/// `#[derive(SparseSoa)]` generates (one column per field). The inherent methods of those types
/// have the same names and meaning.
///
/// ```
/// use sparse_set_core::{Columnar, Rows, SparseMap};
///
/// fn total<S: Columnar<Key = u32>>(storage: &S) -> usize {
///     storage.columns().len()
/// }
///
/// let map: SparseMap<u32, char> = [(4, 'a'), (2, 'b')].into_iter().collect();
/// assert_eq!(total(&map), 2);
/// ```
pub trait Columnar: Storage {
    /// Whether a change of the rows may run code of the user's: an observer's hooks. A group
    /// then moves a row in every member also while a member's hook panics (see "A hook that
    /// panics" in [`observe`](crate::observe)); `false` only for a storage that reports to no
    /// observer, whose moves cannot panic between members.
    const OBSERVES: bool = true;

    /// Every column, shared, with the keys: its rows are [`Storage::Ref`] views.
    type Columns<'a>: Rows<Key = Self::Key, Row = Self::Ref<'a>>
    where
        Self: 'a;
    /// Every column, mutable, with the keys read-only: its rows are [`Storage::Mut`] views.
    type ColumnsMut<'a>: Rows<Key = Self::Key, Row = Self::Mut<'a>>
    where
        Self: 'a;
    /// What tells the storage's observer of each row a walk hands out of the columns of
    /// [`index_columns_and_writes`](Self::index_columns_and_writes): [`NoWrites`] for a
    /// storage without one.
    type Writes<'a>: RowWrites
    where
        Self: 'a;

    /// Every column, with the keys.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// let map: SparseMap<u32, char> = [(4, 'a')].into_iter().collect();
    /// let columns = Columnar::columns(&map);
    /// assert_eq!((columns.keys, columns.values), (&[4][..], &['a'][..]));
    /// ```
    fn columns(&self) -> Self::Columns<'_>;

    /// Every column, mutably, with the keys read-only. The slices cannot change length, so the
    /// storage stays consistent.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// let mut map: SparseMap<u32, char> = [(4, 'a')].into_iter().collect();
    /// Columnar::columns_mut(&mut map).values[0] = 'z';
    /// assert_eq!(map[4], 'z');
    /// ```
    fn columns_mut(&mut self) -> Self::ColumnsMut<'_>;

    /// The key index and every column, mutably, borrowed apart: what a loop that looks keys up
    /// in the index and changes the columns holds. The observer hears every row written, as
    /// for [`columns_mut`](Self::columns_mut) (a query tells it of the rows it visits alone,
    /// through [`index_columns_and_writes`](Self::index_columns_and_writes)).
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// type Map = SparseMap<u32, char>;
    /// let mut map: Map = [(4, 'a'), (2, 'b')].into_iter().collect();
    /// let (index, mut columns) = map.index_and_columns_mut();
    /// let row = index.get_index_of(2).unwrap();
    /// *Map::row_mut(&mut columns, row).unwrap() = 'z';
    /// assert_eq!(map[2], 'z');
    /// ```
    fn index_and_columns_mut(
        &mut self,
    ) -> (&SparseSet<Self::Key, Self::Dense>, Self::ColumnsMut<'_>);

    /// [`index_and_columns_mut`](Self::index_and_columns_mut), with what tells the observer of
    /// each row as the caller hands it out ([`RowWrites::written`]) instead of every row at
    /// once: what a query walks of a mutable member, so that a walk that visits a few rows of a
    /// large storage reports those alone. A storage whose observer hears of every row here
    /// returns [`NoWrites`].
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::observe::{Journal, RowWrites};
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// type Map = SparseMap<u32, char, u32, Journal<u32>>;
    /// let mut map: Map = Map::default();
    /// map.extend([(4, 'a'), (2, 'b'), (7, 'c')]);
    /// map.observer_mut().clear();
    /// let (index, mut columns, mut writes) = map.index_columns_and_writes();
    /// let row = index.get_index_of(2).unwrap();
    /// writes.written(row..row + 1);
    /// *Map::row_mut(&mut columns, row).unwrap() = 'z';
    /// assert_eq!(map.observer().patch().rows().collect::<Vec<_>>(), [1]); // not 0 and 2
    /// ```
    #[allow(
        clippy::type_complexity,
        reason = "three parts borrowed apart, a tuple as `index_and_columns_mut`'s pair"
    )]
    fn index_columns_and_writes(
        &mut self,
    ) -> (&SparseSet<Self::Key, Self::Dense>, Self::ColumnsMut<'_>, Self::Writes<'_>);

    /// The first `len` rows of every column, mutably, with their keys: what a
    /// [`Group`](crate::Group) hands out of a member over its aligned prefix. An observer hears
    /// a write of those rows alone, where [`columns_mut`](Self::columns_mut) reports every row.
    /// The default cuts `columns_mut`'s columns, so a storage whose observer hears writes
    /// overrides it.
    ///
    /// Computes in **O(1)** time, plus the observer's `written` for the rows (change ticks
    /// stamp them one by one unless `len` is the storage's length).
    ///
    /// # Panics
    ///
    /// If `len` is past the storage's length.
    ///
    /// ```
    /// use sparse_set_core::observe::Ticks;
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// let mut map = SparseMap::<u32, char, u32, Ticks>::default();
    /// map.extend([(4, 'a'), (2, 'b')]);
    /// let seen = map.observer_mut().advance();
    /// map.prefix_columns_mut(1).values[0] = 'z';
    /// assert_eq!(map.changed_since(seen).collect::<Vec<_>>(), [4]); // not 2
    /// ```
    #[inline]
    fn prefix_columns_mut(&mut self, len: usize) -> Self::ColumnsMut<'_> {
        self.columns_mut().split_at(len).0
    }

    /// [`prefix_columns_mut`](Self::prefix_columns_mut) with the key index beside it, borrowed
    /// apart, as [`index_and_columns_mut`](Self::index_and_columns_mut): what a query walks of
    /// a group's member. The default cuts `index_and_columns_mut`'s columns.
    ///
    /// Computes in **O(1)** time, plus the observer's `written`, as `prefix_columns_mut`.
    ///
    /// # Panics
    ///
    /// If `len` is past the storage's length.
    ///
    /// ```
    /// use sparse_set_core::observe::Ticks;
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// let mut map = SparseMap::<u32, char, u32, Ticks>::default();
    /// map.extend([(4, 'a'), (2, 'b')]);
    /// let seen = map.observer_mut().advance();
    /// let (_, columns) = map.index_and_prefix_mut(1);
    /// columns.values[0] = 'z';
    /// assert_eq!(map.changed_since(seen).collect::<Vec<_>>(), [4]); // not 2
    /// ```
    #[inline]
    fn index_and_prefix_mut(
        &mut self,
        len: usize,
    ) -> (&SparseSet<Self::Key, Self::Dense>, Self::ColumnsMut<'_>) {
        let (index, columns) = self.index_and_columns_mut();
        (index, columns.split_at(len).0)
    }

    /// Row `index` of `columns` (as [`columns`](Self::columns) made them), as the storage's
    /// shared view, for the columns' whole borrow; `None` past the last row.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// type Map = SparseMap<u32, char>;
    /// let map: Map = [(4, 'a'), (2, 'b')].into_iter().collect();
    /// let columns = map.columns();
    /// assert_eq!(Map::row(&columns, 1), Some(&'b'));
    /// ```
    fn row<'a>(columns: &Self::Columns<'a>, index: usize) -> Option<Self::Ref<'a>>
    where
        Self: 'a;

    /// Row `index` of `columns` (as [`columns_mut`](Self::columns_mut) made them), as the
    /// storage's mutable view, for the borrow of `columns`; `None` past the last row.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// type Map = SparseMap<u32, char>;
    /// let mut map: Map = [(4, 'a')].into_iter().collect();
    /// let mut columns = map.columns_mut();
    /// *Map::row_mut(&mut columns, 0).unwrap() = 'z';
    /// assert_eq!(map[4], 'z');
    /// ```
    fn row_mut<'v>(columns: &'v mut Self::ColumnsMut<'_>, index: usize) -> Option<Self::Mut<'v>>;

    /// Swaps the elements at dense positions `a` and `b`, in the keys and every column.
    ///
    /// Computes in **O(1)** time.
    ///
    /// # Panics
    ///
    /// If `a` or `b` is out of bounds; the storage is then unchanged.
    ///
    /// ```
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// let mut map: SparseMap<u32, char> = [(4, 'a'), (2, 'b')].into_iter().collect();
    /// Columnar::swap_indices(&mut map, 0, 1);
    /// assert_eq!(map.keys(), &[2, 4]);
    /// ```
    fn swap_indices(&mut self, a: usize, b: usize);

    /// Removes the element at dense position `index` by **swap-remove** (the last element moves
    /// into its place in every column); returns its key and value, or `None` if `index` is out
    /// of bounds.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// let mut map: SparseMap<u32, char> = [(4, 'a'), (2, 'b'), (7, 'c')].into_iter().collect();
    /// assert_eq!(Columnar::swap_remove_index(&mut map, 0), Some((4, 'a')));
    /// assert_eq!(map.keys(), &[7, 2]);
    /// ```
    fn swap_remove_index(&mut self, index: usize) -> Option<(Self::Key, Self::Value)>;

    /// Reorders the storage to follow `order` (`EnTT`'s `sort_as`): the keys of `order` that the
    /// storage holds move to the front, in the order they have in `order`; the other keys
    /// follow, in an unspecified order. Every column moves along. Returns how many keys moved
    /// to the front.
    ///
    /// Typical use: `velocities.sort_as(positions.keys())`, so that a walk over both visits
    /// their shared keys at the same positions in each. Keys of `order` that the storage does
    /// not hold are skipped; a key listed twice counts once.
    ///
    /// Computes in **O(`order.len()`)** time; allocates nothing.
    ///
    /// ```
    /// use sparse_set_core::{Columnar, SparseMap};
    ///
    /// let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')].into_iter().collect();
    /// let front = Columnar::sort_as(&mut map, &[4, 9, 2]);
    /// assert_eq!(front, 2);
    /// assert_eq!(&map.keys()[..2], &[4, 2]);
    /// assert_eq!(map[2], 'b');
    /// ```
    fn sort_as(&mut self, order: &[Self::Key]) -> usize {
        sort_as_with(self, order, Self::get_index_of, Self::swap_indices)
    }
}

/// A [`SparseSet`] is a tag: it has no column, so its rows are its keys alone.
impl<K: Key, D: DenseIndex> Columnar for SparseSet<K, D> {
    const OBSERVES: bool = false;

    type Columns<'a>
        = Keys<'a, K>
    where
        Self: 'a;
    type ColumnsMut<'a>
        = Keys<'a, K>
    where
        Self: 'a;
    type Writes<'a>
        = NoWrites
    where
        Self: 'a;

    #[inline]
    fn columns(&self) -> Keys<'_, K> {
        Keys { keys: self.as_slice() }
    }

    #[inline]
    fn columns_mut(&mut self) -> Keys<'_, K> {
        Keys { keys: self.as_slice() }
    }

    #[inline]
    fn index_and_columns_mut(&mut self) -> (&SparseSet<K, D>, Keys<'_, K>) {
        (self, Keys { keys: self.as_slice() })
    }

    #[inline]
    fn index_columns_and_writes(&mut self) -> (&SparseSet<K, D>, Keys<'_, K>, NoWrites) {
        (self, Keys { keys: self.as_slice() }, NoWrites)
    }

    #[inline]
    fn row<'a>(columns: &Keys<'a, K>, index: usize) -> Option<()>
    where
        Self: 'a,
    {
        (index < columns.keys.len()).then_some(())
    }

    #[inline]
    fn row_mut(columns: &mut Keys<'_, K>, index: usize) -> Option<()> {
        (index < columns.keys.len()).then_some(())
    }

    #[inline]
    #[track_caller]
    fn swap_indices(&mut self, a: usize, b: usize) {
        SparseSet::swap_indices(self, a, b);
    }

    #[inline]
    fn swap_remove_index(&mut self, index: usize) -> Option<(K, ())> {
        SparseSet::swap_remove_index(self, index).map(|key| (key, ()))
    }
}

/// Pops rows off the end of `storage` until it holds `len`, each removal reported to its
/// observer; a value's `Drop` or a hook that panics leaves the rest popped while unwinding.
/// How an observed storage truncates, a map or a derived one.
pub fn pop_down_to<S: Columnar>(storage: &mut S, len: usize) {
    /// Dropped while unwinding, it goes on popping down to `len`.
    struct Pop<'s, S: Columnar>(&'s mut S, usize);

    impl<S: Columnar> Pop<'_, S> {
        fn run(&mut self) {
            while let Some(last) = self.0.as_sparse_set().len().checked_sub(1) {
                if last < self.1 {
                    break;
                }
                self.0.swap_remove_index(last);
            }
        }
    }

    impl<S: Columnar> Drop for Pop<'_, S> {
        fn drop(&mut self) {
            self.run();
        }
    }

    Pop(storage, len).run();
}
