//! Shared pieces of the benchmarks: key streams, value types and one small trait that every
//! contender implements, so each workload is written once and run against all of them.
//!
//! Every key stream comes from a fixed seed, so every contender sees the same keys in the same
//! order, run after run.

#![allow(
    clippy::cast_precision_loss,
    reason = "benchmark values are made from keys and counts; their exact value does not matter"
)]
#![allow(
    clippy::inline_always,
    reason = "the lookup methods of every contender: the harness must not add a call to any of them"
)]
#![allow(
    clippy::implicit_hasher,
    reason = "the contender is std's HashMap with its default hasher, on purpose"
)]

use std::collections::{BTreeMap, HashMap};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};
use rustc_hash::FxHashMap;
use slotmap::{DefaultKey, Key as _, KeyData, SecondaryMap, SparseSecondaryMap};
use sparse_soa::{SparseMap, SparseSet, SparseSoa};

/// The seed of every key stream.
pub const SEED: u64 = 0x5EED_50A5_1234_5678;

/// A small, fast, deterministic generator (`SplitMix64`): the benchmarks need the same stream
/// everywhere, not cryptographic quality.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `bound` (`bound > 0`), by multiply-shift.
    pub fn below(&mut self, bound: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(bound)) >> 32) as u32
    }

    /// Shuffles `items` in place (Fisher–Yates).
    ///
    /// # Panics
    ///
    /// If `items` holds more than `u32::MAX` elements.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(u32::try_from(i + 1).expect("fewer than 2^32 items")) as usize;
            items.swap(i, j);
        }
    }
}

/// Whether `SPARSE_SOA_BENCH_MODE=quick`: every measurement shortened, the larger sizes skipped.
#[must_use]
pub fn quick() -> bool {
    std::env::var("SPARSE_SOA_BENCH_MODE").is_ok_and(|mode| mode == "quick")
}

/// The criterion group `{workload}/{size}`, reporting time per one of `ops` elements: 10
/// samples over 0.6 s in quick mode; criterion's 100 samples over 2 s after 1 s of warm-up in
/// full mode (criterion's default 5 s and 3 s would take the suite past two hours on 2 cores).
pub fn group<'a>(
    c: &'a mut Criterion,
    workload: &str,
    size: u32,
    ops: u32,
) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(format!("{workload}/{size}"));
    group.throughput(Throughput::Elements(u64::from(ops)));
    if quick() {
        group.sample_size(10);
        group.warm_up_time(std::time::Duration::from_millis(200));
        group.measurement_time(std::time::Duration::from_millis(600));
    } else {
        group.warm_up_time(std::time::Duration::from_secs(1));
        group.measurement_time(std::time::Duration::from_secs(2));
    }
    group
}

/// [`group`] for a workload whose every pass builds its storages afresh (inserts, spawns and
/// despawns of a whole world, a journal's removes): at 1,000,000 elements and more it takes 10
/// samples in full mode too. One such pass takes from 0.1 s to several seconds where the first
/// touch of a page is slow (a virtualised machine), and criterion's 100 samples of a flat array
/// over a sparse key space took over ten minutes for one contender, which kept the full run
/// from fitting a working session.
pub fn rebuilt_group<'a>(
    c: &'a mut Criterion,
    workload: &str,
    size: u32,
    ops: u32,
) -> BenchmarkGroup<'a, WallTime> {
    let mut group = group(c, workload, size, ops);
    if size >= 1_000_000 {
        group.sample_size(10);
    }
    group
}

/// The largest key space a flat contender ([`BenchMap::FLAT`]) is timed over: 10,000,000 slots,
/// 120 MB of `Option<Position>`. Past it one pass of such a contender writes hundreds of
/// megabytes to gigabytes of fresh memory (the `insert_step100_*` rows at 1,000,000 keys, the
/// `insert_step512_asc` and `insert_step4096_asc` rows), and takes from seconds to over a
/// minute where the first touch of a page is slow: 10 samples of one such cell took 16 minutes
/// on a virtualised machine. The memory table still measures those contenders at every key space.
pub const FLAT_KEY_SPACE: u32 = 10_000_000;

/// `0, 1, …, n - 1`.
#[must_use]
pub fn dense_ascending(n: u32) -> Vec<u32> {
    (0..n).collect()
}

/// A random permutation of `0..n`, from the fixed seed.
#[must_use]
pub fn random_permutation(n: u32, seed: u64) -> Vec<u32> {
    let mut keys = dense_ascending(n);
    Rng::new(seed).shuffle(&mut keys);
    keys
}

/// `0, step, 2 * step, …`: `n` keys.
#[must_use]
pub fn step_ascending(n: u32, step: u32) -> Vec<u32> {
    (0..n).map(|i| i * step).collect()
}

/// The keys of [`step_ascending`] in descending order.
#[must_use]
pub fn step_descending(n: u32, step: u32) -> Vec<u32> {
    let mut keys = step_ascending(n, step);
    keys.reverse();
    keys
}

/// A value with an `f32` field `x`, which the lookup and update workloads read and write.
pub trait HasX {
    /// The field.
    fn x(&self) -> f32;
    /// The field, mutably.
    fn x_mut(&mut self) -> &mut f32;
}

/// The 12-byte component of most workloads. The derive makes `PositionSoa`, the sparse-soa
/// struct-of-arrays storage.
#[derive(SparseSoa, Clone, Copy, Debug, Default, PartialEq)]
pub struct Position {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
    /// z.
    pub z: f32,
}

impl Position {
    /// A position made from a key, so values differ.
    #[must_use]
    pub fn from_key(key: u32) -> Self {
        let f = key as f32;
        Self { x: f, y: f * 0.5, z: -f }
    }
}

impl HasX for Position {
    #[inline]
    fn x(&self) -> f32 {
        self.x
    }
    #[inline]
    fn x_mut(&mut self) -> &mut f32 {
        &mut self.x
    }
}

/// A 64-byte component: where array-of-structs iteration of one field pays for the other 60 bytes.
#[derive(SparseSoa, Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Big {
    /// The field the iteration workloads read.
    pub x: f32,
    /// The rest of the 64 bytes.
    pub rest: [f32; 15],
}

impl Big {
    /// A value made from a key.
    #[must_use]
    pub fn from_key(key: u32) -> Self {
        Self { x: key as f32, rest: [1.0; 15] }
    }
}

/// A component that owns heap memory, so insert and remove pay for moving and dropping it.
#[derive(SparseSoa, Clone, Debug, Default, PartialEq)]
pub struct Named {
    /// The owned part.
    pub name: String,
    /// A plain field.
    pub id: u32,
}

impl Named {
    /// A value made from a key.
    #[must_use]
    pub fn from_key(key: u32) -> Self {
        Self { name: format!("entity-{key}"), id: key }
    }
}

/// The map operations every contender offers, keyed by `u32`.
///
/// Each method is inlined in every implementation (the lookups `#[inline(always)]`: a wrapper
/// LLVM declines to inline would add a call per operation to whichever contender's lookup is
/// largest), so the benchmark loops compile to the contender's own code with nothing in between.
pub trait BenchMap<V>: Sized {
    /// The contender's name: the criterion function name.
    const NAME: &'static str;
    /// Whether the contender is a flat array over the key space (a slot for every key up to the
    /// largest): its memory and its inserts follow the largest key, not the number of keys.
    const FLAT: bool = false;
    /// An empty map.
    fn empty() -> Self;
    /// Stores `value` under `key`.
    fn put(&mut self, key: u32, value: V);
    /// The value under `key`.
    fn lookup(&self, key: u32) -> Option<&V>;
    /// The value under `key`, mutably.
    fn lookup_mut(&mut self, key: u32) -> Option<&mut V>;
    /// Field `x` of the value under `key`: what the lookup workloads read.
    #[inline(always)]
    fn x_of(&self, key: u32) -> Option<f32>
    where
        V: HasX,
    {
        self.lookup(key).map(HasX::x)
    }
    /// Adds `dx` to field `x` of the value under `key`; returns whether it was there.
    #[inline(always)]
    fn add_x(&mut self, key: u32, dx: f32) -> bool
    where
        V: HasX,
    {
        self.lookup_mut(key).map(|value| *value.x_mut() += dx).is_some()
    }
    /// Whether `key` is stored.
    fn has(&self, key: u32) -> bool;
    /// Removes `key`.
    fn take(&mut self, key: u32) -> Option<V>;
    /// Removes everything, keeping what the contender keeps on `clear`.
    fn wipe(&mut self);
    /// The number of stored values.
    fn count(&self) -> usize;
}

impl<V> BenchMap<V> for SparseMap<u32, V> {
    const NAME: &'static str = "sparse-soa";
    #[inline]
    fn empty() -> Self {
        SparseMap::new()
    }
    #[inline]
    fn put(&mut self, key: u32, value: V) {
        self.insert(key, value);
    }
    #[inline(always)]
    fn lookup(&self, key: u32) -> Option<&V> {
        self.get(key)
    }
    #[inline(always)]
    fn lookup_mut(&mut self, key: u32) -> Option<&mut V> {
        self.get_mut(key)
    }
    #[inline(always)]
    fn has(&self, key: u32) -> bool {
        self.contains_key(key)
    }
    #[inline]
    fn take(&mut self, key: u32) -> Option<V> {
        self.remove(key)
    }
    #[inline]
    fn wipe(&mut self) {
        self.clear();
    }
    #[inline]
    fn count(&self) -> usize {
        self.len()
    }
}

macro_rules! impl_std_map {
    ($map:ident, $name:literal) => {
        impl<V> BenchMap<V> for $map<u32, V> {
            const NAME: &'static str = $name;
            #[inline]
            fn empty() -> Self {
                $map::default()
            }
            #[inline]
            fn put(&mut self, key: u32, value: V) {
                self.insert(key, value);
            }
            #[inline(always)]
            fn lookup(&self, key: u32) -> Option<&V> {
                self.get(&key)
            }
            #[inline(always)]
            fn lookup_mut(&mut self, key: u32) -> Option<&mut V> {
                self.get_mut(&key)
            }
            #[inline(always)]
            fn has(&self, key: u32) -> bool {
                self.contains_key(&key)
            }
            #[inline]
            fn take(&mut self, key: u32) -> Option<V> {
                self.remove(&key)
            }
            #[inline]
            fn wipe(&mut self) {
                self.clear();
            }
            #[inline]
            fn count(&self) -> usize {
                self.len()
            }
        }
    };
}

impl_std_map!(HashMap, "std-hashmap");
impl_std_map!(BTreeMap, "btreemap");

/// `rustc_hash::FxHashMap` (a `HashMap` with another hasher, so it gets its own wrapper).
#[derive(Default)]
pub struct Fx<V>(pub FxHashMap<u32, V>);

impl<V> BenchMap<V> for Fx<V> {
    const NAME: &'static str = "fxhashmap";
    #[inline]
    fn empty() -> Self {
        Self(FxHashMap::default())
    }
    #[inline]
    fn put(&mut self, key: u32, value: V) {
        self.0.insert(key, value);
    }
    #[inline(always)]
    fn lookup(&self, key: u32) -> Option<&V> {
        self.0.get(&key)
    }
    #[inline(always)]
    fn lookup_mut(&mut self, key: u32) -> Option<&mut V> {
        self.0.get_mut(&key)
    }
    #[inline(always)]
    fn has(&self, key: u32) -> bool {
        self.0.contains_key(&key)
    }
    #[inline]
    fn take(&mut self, key: u32) -> Option<V> {
        self.0.remove(&key)
    }
    #[inline]
    fn wipe(&mut self) {
        self.0.clear();
    }
    #[inline]
    fn count(&self) -> usize {
        self.0.len()
    }
}

/// `Vec<Option<V>>` indexed by key, grown on demand.
pub struct VecOption<V> {
    /// The slots.
    pub slots: Vec<Option<V>>,
    len: usize,
}

impl<V> BenchMap<V> for VecOption<V> {
    const NAME: &'static str = "vec-option";
    const FLAT: bool = true;
    #[inline]
    fn empty() -> Self {
        Self { slots: Vec::new(), len: 0 }
    }
    #[inline]
    fn put(&mut self, key: u32, value: V) {
        let index = key as usize;
        if index >= self.slots.len() {
            self.slots.resize_with(index + 1, || None);
        }
        if self.slots[index].replace(value).is_none() {
            self.len += 1;
        }
    }
    #[inline(always)]
    fn lookup(&self, key: u32) -> Option<&V> {
        self.slots.get(key as usize)?.as_ref()
    }
    #[inline(always)]
    fn lookup_mut(&mut self, key: u32) -> Option<&mut V> {
        self.slots.get_mut(key as usize)?.as_mut()
    }
    #[inline(always)]
    fn has(&self, key: u32) -> bool {
        self.slots.get(key as usize).is_some_and(Option::is_some)
    }
    #[inline]
    fn take(&mut self, key: u32) -> Option<V> {
        let taken = self.slots.get_mut(key as usize)?.take();
        self.len -= usize::from(taken.is_some());
        taken
    }
    #[inline]
    fn wipe(&mut self) {
        self.slots.clear();
        self.len = 0;
    }
    #[inline]
    fn count(&self) -> usize {
        self.len
    }
}

/// `bevy_ecs::storage::SparseSet`.
pub struct Bevy<V: 'static>(pub bevy_ecs::storage::SparseSet<u32, V>);

impl<V: 'static> BenchMap<V> for Bevy<V> {
    const NAME: &'static str = "bevy";
    const FLAT: bool = true;
    #[inline]
    fn empty() -> Self {
        Self(bevy_ecs::storage::SparseSet::new())
    }
    #[inline]
    fn put(&mut self, key: u32, value: V) {
        self.0.insert(key, value);
    }
    #[inline(always)]
    fn lookup(&self, key: u32) -> Option<&V> {
        self.0.get(key)
    }
    #[inline(always)]
    fn lookup_mut(&mut self, key: u32) -> Option<&mut V> {
        self.0.get_mut(key)
    }
    #[inline(always)]
    fn has(&self, key: u32) -> bool {
        self.0.contains(key)
    }
    #[inline]
    fn take(&mut self, key: u32) -> Option<V> {
        self.0.remove(key)
    }
    #[inline]
    fn wipe(&mut self) {
        self.0.clear();
    }
    #[inline]
    fn count(&self) -> usize {
        self.0.len()
    }
}

/// The slotmap key whose slot index is `key` (version 1: the first occupant of the slot).
#[inline]
#[must_use]
pub fn slot_key(key: u32) -> DefaultKey {
    KeyData::from_ffi((1 << 32) | u64::from(key)).into()
}

macro_rules! impl_slotmap_secondary {
    ($map:ident, $name:literal, $flat:literal) => {
        impl<V> BenchMap<V> for $map<DefaultKey, V> {
            const NAME: &'static str = $name;
            const FLAT: bool = $flat;
            #[inline]
            fn empty() -> Self {
                $map::new()
            }
            #[inline]
            fn put(&mut self, key: u32, value: V) {
                self.insert(slot_key(key), value);
            }
            #[inline(always)]
            fn lookup(&self, key: u32) -> Option<&V> {
                self.get(slot_key(key))
            }
            #[inline(always)]
            fn lookup_mut(&mut self, key: u32) -> Option<&mut V> {
                self.get_mut(slot_key(key))
            }
            #[inline(always)]
            fn has(&self, key: u32) -> bool {
                self.contains_key(slot_key(key))
            }
            #[inline]
            fn take(&mut self, key: u32) -> Option<V> {
                self.remove(slot_key(key))
            }
            #[inline]
            fn wipe(&mut self) {
                self.clear();
            }
            #[inline]
            fn count(&self) -> usize {
                self.len()
            }
        }
    };
}

impl_slotmap_secondary!(SecondaryMap, "slotmap-secondary", true);
impl_slotmap_secondary!(SparseSecondaryMap, "slotmap-sparse-secondary", false);

/// The layout `#[derive(SparseSoa)]` generates for a one-field struct: a [`SparseSet`] index and
/// one column beside it, kept in lockstep through [`SparseSet::remove_with_info`].
pub struct SetAndColumn<V> {
    /// The key index.
    pub set: SparseSet<u32>,
    /// The values, in the set's dense order.
    pub column: Vec<V>,
}

impl<V> BenchMap<V> for SetAndColumn<V> {
    const NAME: &'static str = "sparse-soa-set-column";
    #[inline]
    fn empty() -> Self {
        Self { set: SparseSet::new(), column: Vec::new() }
    }
    #[inline]
    fn put(&mut self, key: u32, value: V) {
        let (index, _) = self.set.insert_full(key);
        if index == self.column.len() {
            self.column.push(value);
        } else {
            self.column[index] = value;
        }
    }
    #[inline(always)]
    fn lookup(&self, key: u32) -> Option<&V> {
        self.column.get(self.set.get_index_of(key)?)
    }
    #[inline(always)]
    fn lookup_mut(&mut self, key: u32) -> Option<&mut V> {
        self.column.get_mut(self.set.get_index_of(key)?)
    }
    #[inline(always)]
    fn has(&self, key: u32) -> bool {
        self.set.contains(key)
    }
    #[inline]
    fn take(&mut self, key: u32) -> Option<V> {
        let removed = self.set.remove_with_info(key)?;
        Some(self.column.swap_remove(removed.index))
    }
    #[inline]
    fn wipe(&mut self) {
        self.set.clear();
        self.column.clear();
    }
    #[inline]
    fn count(&self) -> usize {
        self.set.len()
    }
}

/// Visits every stored entry in the contender's own iteration order.
pub trait Visit<V> {
    /// Calls `f` with every key and value.
    fn visit(&self, f: impl FnMut(u32, &V));
}

impl<V> Visit<V> for SparseMap<u32, V> {
    #[inline]
    fn visit(&self, mut f: impl FnMut(u32, &V)) {
        for (&key, value) in self.keys().iter().zip(self.values()) {
            f(key, value);
        }
    }
}

impl<V> Visit<V> for SetAndColumn<V> {
    #[inline]
    fn visit(&self, mut f: impl FnMut(u32, &V)) {
        for (&key, value) in self.set.as_slice().iter().zip(&self.column) {
            f(key, value);
        }
    }
}

impl<V> Visit<V> for Bevy<V> {
    #[inline]
    fn visit(&self, mut f: impl FnMut(u32, &V)) {
        for (&key, value) in self.0.iter() {
            f(key, value);
        }
    }
}

impl<V> Visit<V> for HashMap<u32, V> {
    #[inline]
    fn visit(&self, mut f: impl FnMut(u32, &V)) {
        for (&key, value) in self {
            f(key, value);
        }
    }
}

impl<V> Visit<V> for Fx<V> {
    #[inline]
    fn visit(&self, mut f: impl FnMut(u32, &V)) {
        for (&key, value) in &self.0 {
            f(key, value);
        }
    }
}

impl<V> Visit<V> for BTreeMap<u32, V> {
    #[inline]
    fn visit(&self, mut f: impl FnMut(u32, &V)) {
        for (&key, value) in self {
            f(key, value);
        }
    }
}

impl<V> Visit<V> for VecOption<V> {
    #[inline]
    fn visit(&self, mut f: impl FnMut(u32, &V)) {
        for (key, slot) in self.slots.iter().enumerate() {
            if let Some(value) = slot {
                f(key as u32, value);
            }
        }
    }
}

impl<V> Visit<V> for SecondaryMap<DefaultKey, V> {
    #[inline]
    fn visit(&self, mut f: impl FnMut(u32, &V)) {
        for (key, value) in self {
            f(key.data().as_ffi() as u32, value);
        }
    }
}

impl<V> Visit<V> for SparseSecondaryMap<DefaultKey, V> {
    #[inline]
    fn visit(&self, mut f: impl FnMut(u32, &V)) {
        for (key, value) in self {
            f(key.data().as_ffi() as u32, value);
        }
    }
}

/// `#[derive(SparseSoa)]` storages as contenders: `insert`, `get`, `get_mut`, `remove`, `clear`.
macro_rules! impl_derived {
    ($storage:ident, $value:ty) => {
        impl BenchMap<$value> for $storage {
            const NAME: &'static str = "sparse-soa-derive";
            #[inline]
            fn empty() -> Self {
                $storage::new()
            }
            #[inline]
            fn put(&mut self, key: u32, value: $value) {
                self.insert(key, value);
            }
            /// A derived storage hands out a struct of field references, never `&$value`: the
            /// workloads read through [`BenchMap::x_of`], which this storage overrides.
            fn lookup(&self, _key: u32) -> Option<&$value> {
                unreachable!("derived storages are read through x_of")
            }
            fn lookup_mut(&mut self, _key: u32) -> Option<&mut $value> {
                unreachable!("derived storages are written through add_x")
            }
            #[inline(always)]
            fn has(&self, key: u32) -> bool {
                self.contains_key(key)
            }
            #[inline]
            fn take(&mut self, key: u32) -> Option<$value> {
                self.remove(key)
            }
            #[inline]
            fn wipe(&mut self) {
                self.clear();
            }
            #[inline]
            fn count(&self) -> usize {
                self.len()
            }
        }
    };
}

impl_derived!(NamedSoa, Named);

impl BenchMap<Position> for PositionSoa {
    const NAME: &'static str = "sparse-soa-derive";
    #[inline]
    fn empty() -> Self {
        PositionSoa::new()
    }
    #[inline]
    fn put(&mut self, key: u32, value: Position) {
        self.insert(key, value);
    }
    /// A derived storage hands out a struct of field references, never `&Position`: the
    /// workloads read through [`BenchMap::x_of`], which this storage overrides.
    fn lookup(&self, _key: u32) -> Option<&Position> {
        unreachable!("derived storages are read through x_of")
    }
    fn lookup_mut(&mut self, _key: u32) -> Option<&mut Position> {
        unreachable!("derived storages are written through add_x")
    }
    #[inline(always)]
    fn x_of(&self, key: u32) -> Option<f32> {
        self.get(key).map(|position| *position.x)
    }
    #[inline(always)]
    fn add_x(&mut self, key: u32, dx: f32) -> bool {
        self.get_mut(key).map(|position| *position.x += dx).is_some()
    }
    #[inline(always)]
    fn has(&self, key: u32) -> bool {
        self.contains_key(key)
    }
    #[inline]
    fn take(&mut self, key: u32) -> Option<Position> {
        self.remove(key)
    }
    #[inline]
    fn wipe(&mut self) {
        self.clear();
    }
    #[inline]
    fn count(&self) -> usize {
        self.len()
    }
}

impl Visit<Position> for PositionSoa {
    #[inline]
    fn visit(&self, mut f: impl FnMut(u32, &Position)) {
        let columns = self.columns();
        for (i, &key) in columns.keys.iter().enumerate() {
            f(key, &Position { x: columns.x[i], y: columns.y[i], z: columns.z[i] });
        }
    }
}
