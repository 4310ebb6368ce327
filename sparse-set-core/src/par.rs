//! Parallel iteration with [rayon](https://docs.rs/rayon) (feature `rayon`): over a storage's
//! columns, a [`Group`]'s aligned prefix, and a query whose first member drives.
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
//! | a [`query`](crate::query()) | [`Query::par_for_each`]: the first member drives and may be mutable, the others are shared and probed | `(K, (views...))` |
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
use crate::group::{Group, GroupExcluded, GroupMembers};
use crate::key::Key;
#[cfg(doc)]
use crate::map;
use crate::map::SparseMap;
use crate::query::{Exclude, ExcludeFetch, Fetch, FetchItem, Member, Query, SameKey};
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

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Group<M, X> {
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

impl<'a, M, X> IntoParallelIterator for &'a Group<M, X>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
    ParRows<M::Rows<'a>>: ParallelIterator,
{
    type Iter = ParRows<M::Rows<'a>>;
    type Item = <ParRows<M::Rows<'a>> as ParallelIterator>::Item;

    fn into_par_iter(self) -> Self::Iter {
        self.par_iter()
    }
}

impl<'a, M, X> IntoParallelIterator for &'a mut Group<M, X>
where
    M: GroupMembers,
    X: GroupExcluded<M::Key>,
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

/// The first member of a parallel query, which drives: a storage borrowed shared or mutably
/// whose columns split into chunks. Implemented for `&S` and `&mut S` of every [`Columnar`]
/// storage.
pub trait ParDriver {
    /// The key type.
    type Key: Key;
    /// The rows the driver splits.
    type Rows: Rows<Key = Self::Key>;

    /// The rows of every key of the driver.
    fn into_rows(self) -> Self::Rows;
}

impl<'a, S: Columnar> ParDriver for &'a S {
    type Key = S::Key;
    type Rows = S::Columns<'a>;

    fn into_rows(self) -> S::Columns<'a> {
        self.columns()
    }
}

impl<'a, S: Columnar> ParDriver for &'a mut S {
    type Key = S::Key;
    type Rows = S::ColumnsMut<'a>;

    fn into_rows(self) -> S::ColumnsMut<'a> {
        self.columns_mut()
    }
}

/// A tuple of query members that can run in parallel: a [`ParDriver`] first, then up to 7
/// shared members (`&S`, `optional(&S)` or `&Group`, whose fetches lend views for the whole
/// borrow), each `Sync`. Implemented for tuples of 1 to 8.
pub trait ParMembers {
    /// The key type every member shares.
    type Key: Key;
    /// Every member's view for one key.
    type Views;

    /// Calls `f` with every key of the driver held by all required members and by none of
    /// the excluded storages, in parallel.
    fn par_for_each<W, F>(self, without: &W, f: F)
    where
        W: ExcludeFetch<Self::Key> + Sync,
        F: Fn(Self::Key, Self::Views) + Sync + Send;
}

macro_rules! par_members {
    ($($member:ident $i:tt)*) => {
        #[allow(non_snake_case, reason = "the bindings are named after the tuple's type parameters")]
        impl<Driver, $($member),*> ParMembers for (Driver, $($member,)*)
        where
            Driver: ParDriver,
            Driver::Rows: Send,
            <Driver::Rows as Rows>::Row: Send,
            Driver::Key: Send + Sync,
            $(
                $member: Member,
                $member::Key: SameKey<Driver::Key>,
                $member::Fetch: FetchItem + Sync,
                <$member::Fetch as FetchItem>::Item: Send,
            )*
        {
            type Key = Driver::Key;
            type Views = (<Driver::Rows as Rows>::Row, $(<$member::Fetch as FetchItem>::Item,)*);

            fn par_for_each<W, F>(self, without: &W, f: F)
            where
                W: ExcludeFetch<Self::Key> + Sync,
                F: Fn(Self::Key, Self::Views) + Sync + Send,
            {
                let (driver, $($member,)*) = self;
                // Taken apart once, shared by every thread.
                $(let $member = $member.into_fetch();)*
                ParRows::new(driver.into_rows()).for_each(|(key, row)| {
                    if without.holds(key) {
                        return;
                    }
                    $(
                        let Some($member) = $member
                            .locate(SameKey::from_key(key))
                            .map(|slot| $member.item(slot))
                        else {
                            return;
                        };
                    )*
                    f(key, (row, $($member,)*));
                });
            }
        }
    };
}

par_members!();
par_members!(B 1);
par_members!(B 1 C 2);
par_members!(B 1 C 2 E 3);
par_members!(B 1 C 2 E 3 G 4);
par_members!(B 1 C 2 E 3 G 4 H 5);
par_members!(B 1 C 2 E 3 G 4 H 5 I 6);
par_members!(B 1 C 2 E 3 G 4 H 5 I 6 J 7);

impl<M: ParMembers, W: Exclude<M::Key>> Query<M, W>
where
    W::Fetch: Sync,
{
    /// Calls `f` with every key held by all required members and by none of the excluded
    /// storages, and each member's view, **in parallel** on rayon's threads.
    ///
    /// The **first member drives** (whatever the sizes: put the smallest first) and may be
    /// borrowed mutably; its rows are split into chunks, one per task. The other members are
    /// shared (`&S` or `optional(&S)`) and probed by key, one lookup each per element. Every
    /// member must be [`Sync`] and every view [`Send`]. With the `rayon` feature; see the
    /// [`par`](crate::par) module for why a query with several mutable members has no parallel
    /// form.
    ///
    /// Computes in **O(n / threads)** lookups per probed member, for the driver's n keys.
    ///
    /// ```
    /// use sparse_set_core::{query, SparseMap, SparseSet};
    ///
    /// let mut positions: SparseMap<u32, f32> = (0..1000).map(|key| (key, 0.0)).collect();
    /// let velocities: SparseMap<u32, f32> = (0..1000).step_by(2).map(|key| (key, 1.0)).collect();
    /// let frozen: SparseSet<u32> = [0, 2].into_iter().collect();
    /// query((&mut positions, &velocities)).without(&frozen).par_for_each(|_, (position, velocity)| {
    ///     *position += velocity;
    /// });
    /// assert_eq!(positions.values().iter().sum::<f32>(), 498.0);
    /// ```
    pub fn par_for_each<F>(self, f: F)
    where
        F: Fn(M::Key, M::Views) + Sync + Send,
    {
        let (members, without) = self.into_parts();
        members.par_for_each(&without.into_fetch(), f);
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
