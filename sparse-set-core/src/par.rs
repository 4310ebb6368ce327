//! Parallel iteration with [rayon](https://docs.rs/rayon) (feature `rayon`): over a storage's
//! columns, a [`Group`]'s aligned prefix, and a query split over its driver.
//!
//! ```
//! use rayon::prelude::*;
//! use sparse_set_core::{Group, SparseMap};
//!
//! let positions: SparseMap<u32, f32> = (0..10_000).map(|key| (key, 0.0)).collect();
//! let velocities: SparseMap<u32, f32> = (0..10_000).step_by(2).map(|key| (key, 1.0)).collect();
//! let mut moving = Group::new((positions, velocities));
//!
//! moving.par_iter_mut().for_each(|(_, (position, velocity))| *position += *velocity);
//! assert_eq!(moving.members().0.values().iter().sum::<f32>(), 5_000.0);
//! ```
//!
//! # How the work is split
//!
//! Everything parallel here is one [`ParRows`]: [`Rows`] cut in two with
//! [`Rows::split_at`] as often as rayon asks, each half walked by one thread. `split_at` cuts
//! every slice (the keys and every column of every member) at the same position, so every
//! chunk keeps its columns in lockstep, and each thread holds `&mut` to disjoint sub-slices:
//! the borrow checker proves there is no data race, with no `unsafe`.
//!
//! | what | how | item |
//! |---|---|---|
//! | a [`SparseMap`] | `map.par_iter()`, `map.par_iter_mut()` (rayon's traits) | `(K, &V)`, `(K, &mut V)` |
//! | a derived storage | `storage.par_iter()`, `storage.par_iter_mut()`, and its `columns()` / `columns_mut()` with `into_par_iter()` | `(K, {Name}Ref)`, `(K, {Name}Mut)` |
//! | a [`SparseSet`] | `set.par_iter()` | `K` |
//! | a [`Group`] | [`Group::par_iter`], [`Group::par_iter_mut`] | `(K, (views...))` |
//! | a [`query`](crate::query()) | [`Query::par_for_each`]: split over its driver (a storage or a group), the others probed; only the first member may be mutable, and when it is and another member drives, sequential | `(K, (views...))` |
//!
//! A query's chunks are its driver's rows cut with [`SplitFetch`] (a storage's columns, a
//! group's prefix), each walked by the sequential loop, the other members' fetches copied to
//! every thread ([`SharedFetch`], [`FirstFetch`]).
//!
//! A query with several mutable members has no parallel form. Its driver's rows can be split
//! safely, but a probed member is reached by key, one element per driving element: handing
//! each thread `&mut` to the elements of its keys needs the argument that distinct keys have
//! distinct positions, which the borrow checker cannot see and only `unsafe` code could
//! express. The crate has none. Put such storages in a [`Group`] instead: its prefix splits
//! like one storage.
//!
//! # `Send` and `Sync`
//!
//! Every storage here ([`SparseSet`], [`SparseMap`], [`Entities`](crate::Entities), derived
//! storages, [`Group`]) owns its data in `Vec`s and boxed pages, with no interior mutability
//! and no pointers of its own, so it is `Send` when its keys and values are `Send` and `Sync`
//! when they are `Sync` (the compiler derives both; nothing is implemented by hand). Reading
//! from several threads takes `&S`, hence `S: Sync`; writing takes the chunks `&mut` of
//! [`ParRows`], hence `Send` rows.

use rayon::iter::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer, bridge};
use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

use crate::dense::DenseIndex;
use crate::group::{Group, GroupExcluded, GroupMembers, GroupRows, Nest};
use crate::group::{GroupFetch, GroupFetchMut};
use crate::key::Key;
#[cfg(doc)]
use crate::map;
use crate::map::SparseMap;
use crate::observe::Observer;
use crate::query::{
    Exclude, ExcludeFetch, Fetches, FetchesView, ForEach, Members, MutFetch, OptionalFetch, Query,
    RefFetch, SplitFetch,
};
use crate::rows::Rows;
use crate::set::SparseSet;
use crate::storage::Columnar;

/// A parallel iterator over [`Rows`]: each key with its row view, the rows split into chunks
/// that keep every column in lockstep. Indexed: `zip`, `enumerate`, `chunks` and `collect` into a
/// `Vec` keep the dense order.
///
/// ```
/// use rayon::prelude::*;
/// use sparse_set_core::SparseMap;
///
/// let mut map: SparseMap<u32, u64> = (0..1000).map(|key| (key, 0)).collect();
/// map.par_iter_mut().for_each(|(key, value)| *value = u64::from(key) * 2);
/// let keys: Vec<u32> = map.par_iter().map(|(key, _)| key).collect();
/// assert_eq!(keys, map.keys());
/// assert_eq!(map[999], 1998);
/// ```
#[derive(Clone, Debug)]
pub struct ParRows<R> {
    rows: R,
}

impl<R: Rows> ParRows<R> {
    /// A parallel iterator over `rows`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use rayon::prelude::*;
    /// use sparse_set_core::par::ParRows;
    /// use sparse_set_core::SparseMap;
    ///
    /// let mut map: SparseMap<u32, u8> = (0..100).map(|key| (key, 1)).collect();
    /// ParRows::new(map.columns_mut()).for_each(|(_, value)| *value += 1);
    /// assert!(map.values().iter().all(|&value| value == 2));
    /// ```
    pub fn new(rows: R) -> Self {
        ParRows { rows }
    }
}

impl<R> ParRows<R>
where
    R: Rows + Send,
    R::Key: Send,
    R::Row: Send,
{
    /// Calls `f` with every key and row, in parallel: the rows are cut into one chunk per
    /// thread of the current pool ([`Rows::split_at`], every column at the same position) and
    /// each chunk is walked as the sequential iterator walks it.
    ///
    /// This shadows [`ParallelIterator::for_each`], which splits adaptively and calls `f`
    /// through rayon's consumers. Measured on the development machine (2 cores, 1,000,000
    /// entities of a group, a closure of four square roots per row), that path left `f` as a
    /// call per row, 3x slower than the sequential walk; here `f` is inlined into one loop per
    /// chunk. Rows of a storage cost alike, so equal chunks balance; for uneven work use
    /// rayon's adaptors (`.map(..)`, `.with_max_len(..)`), which take the general path.
    ///
    /// Computes in **O(len / threads)** time per thread.
    ///
    /// ```
    /// use sparse_set_core::par::ParRows;
    /// use sparse_set_core::SparseMap;
    ///
    /// let mut map: SparseMap<u32, u64> = (0..1000).map(|key| (key, 1)).collect();
    /// ParRows::new(map.columns_mut()).for_each(|(key, value)| *value += u64::from(key));
    /// assert_eq!(map[999], 1000);
    /// ```
    pub fn for_each<F>(self, f: F)
    where
        F: Fn((R::Key, R::Row)) + Sync + Send,
    {
        walk_split(self.rows, rayon::current_num_threads(), &f);
    }
}

/// Walks `rows` in `pieces` chunks, as evenly as rows allow, on rayon's threads: one loop for
/// every chunk, so `f` is inlined into it.
fn walk_split<R, F>(rows: R, pieces: usize, f: &F)
where
    R: Rows + Send,
    F: Fn((R::Key, R::Row)) + Sync,
{
    /// Below this many rows a chunk is not split further: a thread's wake-up costs more.
    const MIN_CHUNK: usize = 1024;
    if pieces <= 1 || rows.len() < 2 * MIN_CHUNK {
        for row in rows.into_rows() {
            f(row);
        }
        return;
    }
    let front = pieces / 2;
    let mid = rows.len() * front / pieces;
    let (a, b) = rows.split_at(mid);
    rayon::join(|| walk_split(a, front, f), || walk_split(b, pieces - front, f));
}

impl<R> ParallelIterator for ParRows<R>
where
    R: Rows + Send,
    R::Key: Send,
    R::Row: Send,
{
    type Item = (R::Key, R::Row);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.rows.len())
    }
}

impl<R> IndexedParallelIterator for ParRows<R>
where
    R: Rows + Send,
    R::Key: Send,
    R::Row: Send,
{
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(RowsProducer { rows: self.rows })
    }
}

/// The producer behind [`ParRows`]: rows that rayon splits and walks.
struct RowsProducer<R> {
    rows: R,
}

impl<R> Producer for RowsProducer<R>
where
    R: Rows + Send,
    R::Key: Send,
    R::Row: Send,
{
    type Item = (R::Key, R::Row);
    type IntoIter = R::Iter;

    fn into_iter(self) -> R::Iter {
        self.rows.into_rows()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (front, back) = self.rows.split_at(index);
        (RowsProducer { rows: front }, RowsProducer { rows: back })
    }
}

impl<M: GroupRows, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> Group<M, X, N, O> {
    /// A parallel iterator over the aligned keys with the views of every member: the prefix
    /// split into chunks, each walked as [`iter`](Group::iter) walks all of it.
    ///
    /// Computes in **O(1)** time; the walk in **O(len / threads)**.
    ///
    /// ```
    /// use rayon::prelude::*;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u32> = (0..100).map(|key| (key, key)).collect();
    /// let b: SparseMap<u32, u32> = (0..100).rev().map(|key| (key, 1)).collect();
    /// let group = Group::new((a, b));
    /// let total: u32 = group.par_iter().map(|(_, (a, b))| a * b).sum();
    /// assert_eq!(total, 4950);
    /// ```
    pub fn par_iter(&self) -> ParRows<M::Rows<'_>> {
        ParRows::new(self.rows())
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    Group<M, X, N, O>
{
    /// A parallel iterator over the aligned keys with the mutable views of every member.
    ///
    /// Computes in **O(1)** time; the walk in **O(len / threads)**.
    ///
    /// ```
    /// use rayon::prelude::*;
    /// use sparse_set_core::{Group, SparseMap};
    ///
    /// let a: SparseMap<u32, u32> = (0..100).map(|key| (key, 0)).collect();
    /// let b: SparseMap<u32, u32> = (0..100).map(|key| (key, key)).collect();
    /// let mut group = Group::new((a, b));
    /// group.par_iter_mut().for_each(|(_, (a, b))| *a = *b + 1);
    /// assert_eq!(group.members().0[99], 100);
    /// ```
    pub fn par_iter_mut(&mut self) -> ParRows<M::RowsMut<'_>> {
        ParRows::new(self.rows_mut())
    }
}

impl<'a, M, X, N, O> IntoParallelIterator for &'a Group<M, X, N, O>
where
    M: GroupRows,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    ParRows<M::Rows<'a>>: ParallelIterator,
{
    type Iter = ParRows<M::Rows<'a>>;
    type Item = <ParRows<M::Rows<'a>> as ParallelIterator>::Item;

    fn into_par_iter(self) -> Self::Iter {
        self.par_iter()
    }
}

impl<'a, M, X, N, O> IntoParallelIterator for &'a mut Group<M, X, N, O>
where
    M: GroupMembers,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<M::Key>,
    N: Nest<M::Key>,
    ParRows<M::RowsMut<'a>>: ParallelIterator,
{
    type Iter = ParRows<M::RowsMut<'a>>;
    type Item = <ParRows<M::RowsMut<'a>> as ParallelIterator>::Item;

    fn into_par_iter(self) -> Self::Iter {
        self.par_iter_mut()
    }
}

impl<'a, K: Key + Send + Sync, V: Sync, D: DenseIndex> IntoParallelIterator
    for &'a SparseMap<K, V, D>
{
    type Iter = ParRows<crate::map::Columns<'a, K, V>>;
    type Item = (K, &'a V);

    /// The keys and values in parallel, each pair as [`SparseMap::iter`] yields it.
    fn into_par_iter(self) -> Self::Iter {
        ParRows::new(self.columns())
    }
}

impl<'a, K: Key + Send + Sync, V: Send, D: DenseIndex> IntoParallelIterator
    for &'a mut SparseMap<K, V, D>
{
    type Iter = ParRows<crate::map::ColumnsMut<'a, K, V>>;
    type Item = (K, &'a mut V);

    /// The keys and mutable values in parallel, each pair as [`SparseMap::iter_mut`] yields
    /// it.
    fn into_par_iter(self) -> Self::Iter {
        ParRows::new(self.columns_mut())
    }
}

impl<'a, K: Key + Send + Sync, V: Sync> IntoParallelIterator for crate::map::Columns<'a, K, V> {
    type Iter = ParRows<Self>;
    type Item = (K, &'a V);

    fn into_par_iter(self) -> Self::Iter {
        ParRows::new(self)
    }
}

impl<'a, K: Key + Send + Sync, V: Send> IntoParallelIterator for crate::map::ColumnsMut<'a, K, V> {
    type Iter = ParRows<Self>;
    type Item = (K, &'a mut V);

    fn into_par_iter(self) -> Self::Iter {
        ParRows::new(self)
    }
}

impl<'a, K: Key + Send + Sync, D: DenseIndex> IntoParallelIterator for &'a SparseSet<K, D> {
    type Iter = rayon::iter::Copied<rayon::slice::Iter<'a, K>>;
    type Item = K;

    /// The keys in parallel.
    fn into_par_iter(self) -> Self::Iter {
        self.as_slice().into_par_iter().copied()
    }
}

/// A query's fetches cut at their driver for a parallel walk: the driver's rows split (a
/// [`SplitFetch`]), every other member's fetch is copied, one set per thread. Implemented for
/// tuples of 1 to 8 fetches whose members after the first are shared (`&S`, `optional(&S)`,
/// `&Group`: [`SharedFetch`]); the first may be mutable, and then only it can drive a split (it
/// has no copy). A second mutable member does not compile (the [module docs](self) say why).
pub trait SplitDriver: Sized {
    /// The fetches with member `driver`'s rows before `mid`, and those with its rows from
    /// `mid` on, every other member copied into both; the fetches back, unchanged, if the
    /// first member is mutable and does not drive.
    ///
    /// # Errors
    ///
    /// The fetches themselves, when they cannot be cut at `driver`.
    fn split_driver(self, driver: usize, mid: usize) -> Result<(Self, Self), Self>;

    /// Whether [`split_driver`](Self::split_driver) cuts at `driver`.
    fn splits_at(&self, driver: usize) -> bool;
}

/// The fetch of a member a parallel query copies to each thread, or splits when it drives: a
/// shared one (`&S`, `optional(&S)`, `&Group`). A mutable member has no copy, so only the first
/// member may be mutable (and then drives the split).
#[diagnostic::on_unimplemented(
    message = "a parallel query copies every member but the first to each thread, so only its first member may be mutable",
    label = "`par_for_each` needs this member shared",
    note = "`{Self}` is the fetch of a mutable member after the first: borrow it shared (`&s`), or run `for_each`; storages changed together can share a `Group`, whose prefix splits like one storage"
)]
pub trait SharedFetch: SplitFetch + Clone {}

impl<'a, S: Columnar> SharedFetch for RefFetch<'a, S> where S::Columns<'a>: Clone {}
impl<F: SharedFetch> SharedFetch for OptionalFetch<F> {}
impl<'a, M: GroupRows> SharedFetch for GroupFetch<'a, M> where M::Rows<'a>: Clone {}

/// The fetch of a parallel query's first member: split when it drives, copied when another
/// member does, which only a shared one can be.
pub trait FirstFetch: SplitFetch {
    /// Whether the fetch is shared, so that [`copied`](Self::copied) gives a copy.
    const SHARED: bool;

    /// A copy for another thread; `None` for a mutable member.
    fn copied(&self) -> Option<Self>;
}

impl<T: SharedFetch> FirstFetch for T {
    const SHARED: bool = true;

    #[inline]
    fn copied(&self) -> Option<Self> {
        Some(self.clone())
    }
}

impl<S: Columnar> FirstFetch for MutFetch<'_, S> {
    const SHARED: bool = false;

    #[inline]
    fn copied(&self) -> Option<Self> {
        None
    }
}

impl<M: GroupRows> FirstFetch for GroupFetchMut<'_, M> {
    const SHARED: bool = false;

    #[inline]
    fn copied(&self) -> Option<Self> {
        None
    }
}

macro_rules! split_driver {
    ($($member:ident $i:tt)*) => {
        #[allow(non_snake_case, reason = "the bindings are named after the tuple's type parameters")]
        impl<First: FirstFetch, $($member: SharedFetch),*> SplitDriver for (First, $($member,)*) {
            #[inline]
            fn split_driver(self, driver: usize, mid: usize) -> Result<(Self, Self), Self> {
                let first_copy = if driver == 0 {
                    None
                } else {
                    match self.0.copied() {
                        Some(copy) => Some(copy),
                        None => return Err(self),
                    }
                };
                let first = match first_copy {
                    Some(copy) => (copy, self.0),
                    None => self.0.split_at(mid),
                };
                $(
                    let $member = if driver == $i {
                        self.$i.split_at(mid)
                    } else {
                        (self.$i.clone(), self.$i)
                    };
                )*
                Ok(((first.0, $($member.0,)*), (first.1, $($member.1,)*)))
            }

            #[inline]
            fn splits_at(&self, driver: usize) -> bool {
                driver == 0 || First::SHARED
            }
        }
    };
}

split_driver!();
split_driver!(B 1);
split_driver!(B 1 C 2);
split_driver!(B 1 C 2 E 3);
split_driver!(B 1 C 2 E 3 G 4);
split_driver!(B 1 C 2 E 3 G 4 H 5);
split_driver!(B 1 C 2 E 3 G 4 H 5 I 6);
split_driver!(B 1 C 2 E 3 G 4 H 5 I 6 J 7);

/// Fewer driver rows than this are walked by one thread: below it the split costs more than it
/// saves.
const MIN_ROWS_PER_THREAD: usize = 1024;

impl<M: Members, W: Exclude<M::Key>> Query<M, W> {
    /// Calls `f` with every key held by all required members and by none of the filters'
    /// storages, and each member's view, **in parallel** on rayon's threads.
    ///
    /// The driver is chosen as for [`for_each`](Self::for_each): the smallest required member
    /// (or the one [`drive_by`](Self::drive_by) names). Its rows are cut into one chunk per
    /// thread of the current pool, each walked by the sequential loop on its own thread, the
    /// other members probed by key.
    ///
    /// The first member may be borrowed mutably (`&mut S`, or a `&mut Group`); the others are
    /// shared (`&S`, `optional(&S)`, a `&Group`), every member `Sync` and every view `Send`: a
    /// second mutable member does not compile. A mutable first member has no copy for each
    /// thread, so when another member drives, the query **runs sequentially**, as `for_each`:
    /// walking the bigger first member on every thread instead would probe more keys than the
    /// sequential walk visits (measured on the development machine, 2 threads, the move system
    /// over 1,000,000 positions of which half have a velocity: 1.45x the sequential time), and
    /// splitting the smaller member would hand each thread mutable views of the first reached
    /// by key, which needs `unsafe` (the [module docs](self)). With the `rayon` feature.
    ///
    /// Computes in **O(n / threads)** lookups per probed member, for the driver's n keys.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap, SparseSet};
    ///
    /// let mut positions: SparseMap<u32, f32> = (0..1000).map(|key| (key, 0.0)).collect();
    /// let velocities: SparseMap<u32, f32> = (0..1000).map(|key| (key, 1.0)).collect();
    /// let frozen: SparseSet<u32> = [0, 2].into_iter().collect();
    /// query((&mut positions, &velocities)).without(&frozen).par_for_each(|_, (position, velocity)| {
    ///     *position += velocity;
    /// });
    /// assert_eq!(positions.values().iter().sum::<f32>(), 998.0);
    /// ```
    pub fn par_for_each<F>(self, f: F)
    where
        M::Fetches: ForEach + SplitDriver + Send,
        W::Fetch: Send + Sync,
        F: for<'v> Fn(M::Key, <M::Fetches as FetchesView<'v>>::Views) + Sync + Send,
    {
        let Some(driver) = self.driver() else { return };
        let (members, without) = self.into_parts();
        let fetches = members.into_fetches();
        let without = without.into_fetch();
        let len = fetches.driver_len(driver);
        let chunks = if fetches.splits_at(driver) {
            rayon::current_num_threads().min(len / MIN_ROWS_PER_THREAD).max(1)
        } else {
            1
        };
        walk_chunks(fetches, Part { driver, len, chunks }, without, &f);
    }
}

/// The part of a parallel query's driver one call of [`walk_chunks`] walks.
#[derive(Clone, Copy)]
struct Part {
    driver: usize,
    /// The driver's rows in this part.
    len: usize,
    /// Into how many chunks to cut them.
    chunks: usize,
}

/// Walks `part` of the driver's rows in `fetches`, its chunks split between the two sides of
/// a `rayon::join`.
fn walk_chunks<Fs, W, F>(fetches: Fs, part: Part, without: W, f: &F)
where
    Fs: ForEach + SplitDriver + Send,
    W: ExcludeFetch<Fs::Key> + Copy + Send + Sync,
    F: for<'v> Fn(Fs::Key, <Fs as FetchesView<'v>>::Views) + Sync,
{
    let Part { driver, len, chunks } = part;
    if chunks <= 1 {
        fetches.for_each_key(driver, without, f);
        return;
    }
    let front_chunks = chunks / 2;
    let mid = len * front_chunks / chunks;
    match fetches.split_driver(driver, mid) {
        Ok((front, back)) => {
            let front_part = Part { driver, len: mid, chunks: front_chunks };
            let back_part = Part { driver, len: len - mid, chunks: chunks - front_chunks };
            rayon::join(
                || walk_chunks(front, front_part, without, f),
                || walk_chunks(back, back_part, without, f),
            );
        }
        // Not cut at this driver (checked before): walked whole, as the sequential loop.
        Err(fetches) => fetches.for_each_key(driver, without, f),
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use rayon::prelude::*;

    use super::*;
    use crate::query::{self, query};

    /// A pool of two threads, so that every split really runs on another thread.
    fn pool() -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap()
    }

    #[test]
    fn parallel_group_iteration_gives_the_sequential_results() {
        let a: SparseMap<u32, u64> =
            (0..5000).map(|key| (key * 7 % 5000, u64::from(key))).collect();
        let b: SparseMap<u32, u64> =
            (0..5000).filter(|key| key % 3 != 0).map(|key| (key, 1)).collect();
        let excluded: SparseSet<u32> = (0..5000).filter(|key| key % 5 == 0).collect();
        let mut sequential = Group::with_excluded((a, b), (excluded,));
        let mut parallel = sequential.clone();
        for (key, (a, b)) in sequential.iter_mut() {
            *a = *a * 3 + *b + u64::from(key);
        }
        pool().install(|| {
            parallel.par_iter_mut().for_each(|(key, (a, b))| *a = *a * 3 + *b + u64::from(key));
        });
        assert_eq!(sequential.members().0, parallel.members().0);
        parallel.assert_invariants();
        let walked: Vec<(u32, (&u64, &u64))> = pool().install(|| parallel.par_iter().collect());
        let expected: Vec<(u32, (&u64, &u64))> = parallel.iter().collect();
        assert_eq!(walked, expected, "the indexed iterator keeps the prefix order");
    }

    #[test]
    fn parallel_query_gives_the_sequential_results() {
        let mut a: SparseMap<u32, i64> = (0..4000).map(|key| (key, i64::from(key))).collect();
        let b: SparseMap<u32, i64> = (0..4000).rev().step_by(3).map(|key| (key, 2)).collect();
        let tag: SparseSet<u32> = (0..4000).filter(|key| key % 7 == 0).collect();
        let mut expected = a.clone();
        query((&mut expected, &b, query::optional(&tag))).for_each(|_, (a, b, tag)| {
            *a = *a * b + i64::from(tag.is_some());
        });
        pool().install(|| {
            query((&mut a, &b, query::optional(&tag))).par_for_each(|_, (a, b, tag)| {
                *a = *a * b + i64::from(tag.is_some());
            });
        });
        assert_eq!(a, expected);
        a.assert_invariants();
    }

    #[test]
    fn for_each_visits_every_row_once_whatever_the_pool() {
        for threads in [1, 2, 3, 5] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            for len in [0_u32, 1, 2047, 2048, 10_007] {
                let mut map: SparseMap<u32, u32> = (0..len).rev().map(|key| (key, 0)).collect();
                pool.install(|| ParRows::new(map.columns_mut()).for_each(|(key, v)| *v += key + 1));
                assert!(
                    map.iter().all(|(key, &value)| value == key + 1),
                    "{threads} threads, {len} rows"
                );
            }
        }
    }

    #[test]
    fn chunks_of_a_map_stay_in_lockstep() {
        let mut map: SparseMap<u32, u32> = (0..3000).rev().map(|key| (key, 0)).collect();
        pool().install(|| map.par_iter_mut().with_max_len(7).for_each(|(key, value)| *value = key));
        assert!(map.iter().all(|(key, &value)| key == value));
        let keys: Vec<u32> = pool().install(|| map.par_iter().map(|(key, _)| key).collect());
        assert_eq!(keys, map.keys());
        let set: SparseSet<u32> = map.keys().iter().copied().collect();
        let sum: u64 = pool().install(|| set.par_iter().map(u64::from).sum());
        assert_eq!(sum, (0..3000).sum::<u64>());
    }
}
