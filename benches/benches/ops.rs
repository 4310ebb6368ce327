//! Time per operation of sparse-soa against the crates users would pick instead.
//!
//! Group = workload and size (`get_existing/100000`), function = contender (`sparse-soa`, `bevy`,
//! `fxhashmap`, …); `benches/README.md` lists them all. `SPARSE_SOA_BENCH_MODE=quick` shortens
//! every measurement and skips the 1,000,000-element sizes; `full` (the default) runs everything.

#![allow(
    clippy::extra_unused_type_parameters,
    reason = "every workload takes the value type, so that one macro can call them all"
)]
#![allow(
    clippy::cast_precision_loss,
    reason = "benchmark values are made from keys and counts; their exact value does not matter"
)]

use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion};
use slotmap::{DefaultKey, DenseSlotMap, SecondaryMap, SlotMap, SparseSecondaryMap};
use soa_derive::StructOfArray;
use sparse_soa::{Entities, Entity, SparseMap, SparseSoa};
use sparse_soa_bench::{
    BenchMap, Bevy, Big, BigSoa, FLAT_KEY_SPACE, Fx, Named, NamedSoa, Position, PositionSoa, Rng,
    SEED, SetAndColumn, VecOption, Visit, dense_ascending, group, quick, random_permutation,
    rebuilt_group, step_ascending, step_descending,
};

/// The element count of every workload.
const N: u32 = 100_000;
/// The larger size some workloads also run at in full mode.
const N_LARGE: u32 = 1_000_000;

fn sizes() -> Vec<u32> {
    if quick() { vec![N] } else { vec![N, N_LARGE] }
}

/// The sizes of the lookup workloads: 1,000,000 elements in quick mode too, because the targets
/// name both sizes and a lookup pass is short.
fn lookup_sizes() -> Vec<u32> {
    vec![N, N_LARGE]
}

/// Runs `$body::<M>($($arg),*)` for every map contender that stores `$v`.
macro_rules! for_each_map {
    ($body:ident, $v:ty, $($arg:expr),*) => {{
        $body::<SparseMap<u32, $v>, $v>($($arg),*);
        $body::<<$v as Derived>::Soa, $v>($($arg),*);
        $body::<Bevy<$v>, $v>($($arg),*);
        $body::<HashMap<u32, $v>, $v>($($arg),*);
        $body::<Fx<$v>, $v>($($arg),*);
        $body::<BTreeMap<u32, $v>, $v>($($arg),*);
        $body::<VecOption<$v>, $v>($($arg),*);
        $body::<SecondaryMap<DefaultKey, $v>, $v>($($arg),*);
        $body::<SparseSecondaryMap<DefaultKey, $v>, $v>($($arg),*);
    }};
}

/// The derived storage of a value type.
trait Derived {
    type Soa;
}
impl Derived for Position {
    type Soa = PositionSoa;
}
impl Derived for Named {
    type Soa = NamedSoa;
}
impl Derived for f32 {
    // `f32` has no derived storage; the one-column storage is the same layout.
    type Soa = SetAndColumn<f32>;
}

fn filled<M: BenchMap<V>, V>(keys: &[u32], make: impl Fn(u32) -> V) -> M {
    let mut map = M::empty();
    for &key in keys {
        map.put(key, make(key));
    }
    map
}

// ---------------------------------------------------------------------------------------------
// 1. insert

/// One contender's inserts of `keys`; a flat array is not timed past [`FLAT_KEY_SPACE`].
fn insert_into<M: BenchMap<V>, V: Clone>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    keys: &[u32],
    values: &[V],
) {
    if M::FLAT && keys.iter().any(|&key| key >= FLAT_KEY_SPACE) {
        return;
    }
    group.bench_function(M::NAME, |b| {
        b.iter_batched(
            || (M::empty(), values.to_vec()),
            |(mut map, values)| {
                for (&key, value) in keys.iter().zip(values) {
                    map.put(key, value);
                }
                map
            },
            BatchSize::LargeInput,
        );
    });
}

fn insert(c: &mut Criterion) {
    for size in sizes() {
        let streams: [(&str, Vec<u32>); 4] = [
            ("insert_dense_asc", dense_ascending(size)),
            ("insert_random", random_permutation(size, SEED)),
            ("insert_step100_asc", step_ascending(size, 100)),
            ("insert_step100_desc", step_descending(size, 100)),
        ];
        for (workload, keys) in &streams {
            let mut g = rebuilt_group(c, workload, size, size);
            let values: Vec<Position> = keys.iter().map(|&k| Position::from_key(k)).collect();
            for_each_map!(insert_into, Position, &mut g, keys, &values);
            g.finish();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 2. get and contains

fn get_keys<M: BenchMap<Position>>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    stored: &[u32],
    probes: &[u32],
) {
    let map: M = filled(stored, Position::from_key);
    group.bench_function(M::NAME, |b| {
        b.iter(|| {
            let mut sum = 0.0_f32;
            for &key in probes {
                if let Some(x) = map.x_of(black_box(key)) {
                    sum += x;
                }
            }
            sum
        });
    });
}

fn contains_keys<M: BenchMap<Position>>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    stored: &[u32],
    probes: &[u32],
) {
    let map: M = filled(stored, Position::from_key);
    group.bench_function(M::NAME, |b| {
        b.iter(|| probes.iter().filter(|&&key| map.has(black_box(key))).count());
    });
}

fn get_existing<M: BenchMap<Position>, V>(group: &mut BenchmarkGroup<'_, WallTime>, size: u32) {
    get_keys::<M>(group, &dense_ascending(size), &random_permutation(size, SEED));
}

fn contains_existing<M: BenchMap<Position>, V>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    size: u32,
) {
    contains_keys::<M>(group, &dense_ascending(size), &random_permutation(size, SEED));
}

/// The even keys below `2 * size` are stored; the odd ones are probed, in random order.
fn missing_keys(size: u32) -> (Vec<u32>, Vec<u32>) {
    let stored = step_ascending(size, 2);
    let probes = random_permutation(size, SEED).into_iter().map(|k| 2 * k + 1).collect();
    (stored, probes)
}

fn get_missing<M: BenchMap<Position>, V>(group: &mut BenchmarkGroup<'_, WallTime>, size: u32) {
    let (stored, probes) = missing_keys(size);
    get_keys::<M>(group, &stored, &probes);
}

fn contains_missing<M: BenchMap<Position>, V>(group: &mut BenchmarkGroup<'_, WallTime>, size: u32) {
    let (stored, probes) = missing_keys(size);
    contains_keys::<M>(group, &stored, &probes);
}

/// One key per sparse page (pages hold 512 slots): every insert starts a page. Only at
/// 100,000 keys and always with 10 samples. The flat arrays among the contenders are not timed
/// here (a key space of 51,200,000 and 409,600,000, past [`FLAT_KEY_SPACE`]): one of their
/// passes took from seconds to over a minute.
fn insert_one_per_page(c: &mut Criterion) {
    for (workload, step) in [("insert_step512_asc", 512), ("insert_step4096_asc", 4096)] {
        let keys = step_ascending(N, step);
        let mut g = group(c, workload, N, N);
        g.sample_size(10);
        let values: Vec<Position> = keys.iter().map(|&k| Position::from_key(k)).collect();
        for_each_map!(insert_into, Position, &mut g, &keys, &values);
        g.finish();
    }
}

/// The kinds of miss a sparse array meets, each as (workload, stored keys, probed keys): past
/// the largest key, in a page no key uses, and in a page that holds a few keys.
fn miss_kinds(size: u32) -> [(&'static str, Vec<u32>, Vec<u32>); 3] {
    let past_end = random_permutation(size, SEED).into_iter().map(|k| size + k).collect();
    // Pages of 512 slots, alternately used and empty; the probes fall in the empty ones.
    let page = |k: u32| (k / 512) * 1024 + k % 512;
    let used_pages = (0..size).map(page).collect();
    let empty_pages = random_permutation(size, SEED).into_iter().map(|k| page(k) + 512).collect();
    // Keys 100 apart leave about five keys in each page; the probes fall between them.
    let between = random_permutation(size, SEED).into_iter().map(|k| k * 100 + 50).collect();
    [
        ("missing_past_end", dense_ascending(size), past_end),
        ("missing_empty_page", used_pages, empty_pages),
        ("missing_sparse_page", step_ascending(size, 100), between),
    ]
}

fn get_keys_of<M: BenchMap<Position>, V>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    stored: &[u32],
    probes: &[u32],
) {
    get_keys::<M>(group, stored, probes);
}

fn contains_keys_of<M: BenchMap<Position>, V>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    stored: &[u32],
    probes: &[u32],
) {
    contains_keys::<M>(group, stored, probes);
}

fn misses(c: &mut Criterion) {
    for size in lookup_sizes() {
        for (kind, stored, probes) in miss_kinds(size) {
            let mut g = group(c, &format!("get_{kind}"), size, size);
            for_each_map!(get_keys_of, Position, &mut g, &stored, &probes);
            g.finish();
            let mut g = group(c, &format!("contains_{kind}"), size, size);
            for_each_map!(contains_keys_of, Position, &mut g, &stored, &probes);
            g.finish();
        }
    }
}

fn lookups(c: &mut Criterion) {
    for size in lookup_sizes() {
        let mut g = group(c, "get_existing", size, size);
        for_each_map!(get_existing, Position, &mut g, size);
        g.finish();
        let mut g = group(c, "contains_existing", size, size);
        for_each_map!(contains_existing, Position, &mut g, size);
        g.finish();
    }
    let mut g = group(c, "get_missing", N, N);
    for_each_map!(get_missing, Position, &mut g, N);
    g.finish();
    let mut g = group(c, "contains_missing", N, N);
    for_each_map!(contains_missing, Position, &mut g, N);
    g.finish();
}

// ---------------------------------------------------------------------------------------------
// 1b. insert and remove of a value that owns heap memory

fn insert_named(c: &mut Criterion) {
    let keys = random_permutation(N, SEED);
    let values: Vec<Named> = keys.iter().map(|&k| Named::from_key(k)).collect();
    let mut g = group(c, "insert_string", N, N);
    for_each_map!(insert_into, Named, &mut g, &keys, &values);
    g.finish();
}

/// `Entity`-keyed lookups: the generation check is part of every hit and miss. Every slot has
/// been used twice, so generations are not all the first one; `stale` probes the handles of the
/// first occupants.
fn entity_lookups(c: &mut Criterion) {
    for size in lookup_sizes() {
        let mut entities = Entities::new();
        let first: Vec<Entity> = (0..size).map(|_| entities.spawn()).collect();
        for &entity in &first {
            entities.despawn(entity);
        }
        let live: Vec<Entity> = (0..size).map(|_| entities.spawn()).collect();
        let order = random_permutation(size, SEED);
        let probes: Vec<Entity> = order.iter().map(|&i| live[i as usize]).collect();
        let stale: Vec<Entity> = order.iter().map(|&i| first[i as usize]).collect();
        let ours: SparseMap<Entity, Position> =
            live.iter().map(|&entity| (entity, Position::from_key(entity.index()))).collect();

        // slotmap: the same history in a primary map, then a secondary map on its keys.
        let mut primary: SlotMap<DefaultKey, ()> = SlotMap::new();
        let first_keys: Vec<DefaultKey> = (0..size).map(|_| primary.insert(())).collect();
        for &key in &first_keys {
            primary.remove(key);
        }
        let live_keys: Vec<DefaultKey> = (0..size).map(|_| primary.insert(())).collect();
        let mut secondary: SecondaryMap<DefaultKey, Position> = SecondaryMap::new();
        for (i, &key) in (0..).zip(&live_keys) {
            secondary.insert(key, Position::from_key(i));
        }
        let key_probes: Vec<DefaultKey> = order.iter().map(|&i| live_keys[i as usize]).collect();
        let key_stale: Vec<DefaultKey> = order.iter().map(|&i| first_keys[i as usize]).collect();

        // bevy's sparse set keyed by the entity's index: no generation check at all, the floor.
        let mut bevy = Bevy::<Position>::empty();
        for &entity in &live {
            bevy.put(entity.index(), Position::from_key(entity.index()));
        }
        let index_probes: Vec<u32> = probes.iter().map(|entity| entity.index()).collect();

        // sparsey: its own allocator, with the same history (spawn, despawn all, spawn again),
        // probed in the same order.
        let mut sparsey_world = sparsey::World::builder().register::<Position>().build();
        let sparsey_first: Vec<sparsey::Entity> =
            (0..size).map(|_| sparsey_world.create(())).collect();
        for &entity in &sparsey_first {
            sparsey_world.destroy(entity);
        }
        let sparsey_live: Vec<sparsey::Entity> = (0..size)
            .map(|_| {
                let entity = sparsey_world.create(());
                sparsey_world.insert(entity, (Position::from_key(entity.index),));
                entity
            })
            .collect();
        let sparsey_probes: Vec<sparsey::Entity> =
            order.iter().map(|&i| sparsey_live[i as usize]).collect();
        let sparsey_stale: Vec<sparsey::Entity> =
            order.iter().map(|&i| sparsey_first[i as usize]).collect();

        let mut g = group(c, "get_entity", size, size);
        g.bench_function("sparse-soa", |b| {
            b.iter(|| {
                probes.iter().filter_map(|&e| ours.get(black_box(e)).map(|p| p.x)).sum::<f32>()
            });
        });
        g.bench_function("slotmap-secondary", |b| {
            b.iter(|| {
                key_probes
                    .iter()
                    .filter_map(|&k| secondary.get(black_box(k)).map(|p| p.x))
                    .sum::<f32>()
            });
        });
        g.bench_function("bevy-index-only", |b| {
            b.iter(|| index_probes.iter().filter_map(|&k| bevy.x_of(black_box(k))).sum::<f32>());
        });
        g.bench_function("sparsey", |b| {
            b.iter(|| {
                let mut positions = sparsey_world.query_one::<&Position>();
                sparsey_probes
                    .iter()
                    .filter_map(|&e| positions.get(black_box(e)).map(|p| p.x))
                    .sum::<f32>()
            });
        });
        g.finish();

        for (workload, ours_probes, their_probes, sparsey_probes) in [
            ("contains_entity", &probes, &key_probes, &sparsey_probes),
            ("contains_entity_stale", &stale, &key_stale, &sparsey_stale),
        ] {
            let mut g = group(c, workload, size, size);
            g.bench_function("sparse-soa", |b| {
                b.iter(|| ours_probes.iter().filter(|&&e| ours.contains_key(black_box(e))).count());
            });
            g.bench_function("slotmap-secondary", |b| {
                b.iter(|| {
                    their_probes.iter().filter(|&&k| secondary.contains_key(black_box(k))).count()
                });
            });
            if workload == "contains_entity" {
                g.bench_function("bevy-index-only", |b| {
                    b.iter(|| index_probes.iter().filter(|&&k| bevy.has(black_box(k))).count());
                });
            }
            g.bench_function("sparsey", |b| {
                b.iter(|| {
                    let positions = sparsey_world.query_one::<&Position>();
                    sparsey_probes.iter().filter(|&&e| positions.contains(black_box(e))).count()
                });
            });
            g.finish();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. update

fn update_existing<M: BenchMap<Position>, V>(group: &mut BenchmarkGroup<'_, WallTime>, size: u32) {
    let mut map: M = filled(&dense_ascending(size), Position::from_key);
    let probes = random_permutation(size, SEED);
    group.bench_function(M::NAME, |b| {
        b.iter(|| {
            for &key in &probes {
                map.add_x(black_box(key), 1.0);
            }
        });
    });
}

fn update(c: &mut Criterion) {
    let mut g = group(c, "update", N, N);
    for_each_map!(update_existing, Position, &mut g, N);
    g.finish();
}

// ---------------------------------------------------------------------------------------------
// 4. remove

fn remove_all<M: BenchMap<V>, V: Clone>(group: &mut BenchmarkGroup<'_, WallTime>, values: &[V]) {
    let size = u32::try_from(values.len()).expect("small");
    let stored = dense_ascending(size);
    let probes = random_permutation(size, SEED);
    group.bench_function(M::NAME, |b| {
        b.iter_batched(
            || {
                let mut map = M::empty();
                for (&key, value) in stored.iter().zip(values) {
                    map.put(key, value.clone());
                }
                (map, Vec::with_capacity(probes.len()))
            },
            |(mut map, mut out)| {
                for &key in &probes {
                    if let Some(value) = map.take(key) {
                        out.push(value);
                    }
                }
                (map, out)
            },
            BatchSize::LargeInput,
        );
    });
}

/// Structs of 1, 4 and 8 `f32` fields, derived: `remove_with_info` moves every column.
#[derive(SparseSoa, Clone, Copy, Default)]
struct Fields1 {
    a: f32,
}

#[derive(SparseSoa, Clone, Copy, Default)]
struct Fields4 {
    a: f32,
    b: f32,
    c: f32,
    d: f32,
}

#[derive(SparseSoa, Clone, Copy, Default)]
struct Fields8 {
    a: f32,
    b: f32,
    c: f32,
    d: f32,
    e: f32,
    f: f32,
    g: f32,
    h: f32,
}

macro_rules! remove_with_info_of {
    ($group:expr, $storage:ident, $value:expr, $name:literal) => {{
        let stored = dense_ascending(N);
        let probes = random_permutation(N, SEED);
        $group.bench_function($name, |b| {
            b.iter_batched(
                || {
                    let mut storage = $storage::new();
                    for &key in &stored {
                        storage.insert(key, $value(key as f32));
                    }
                    storage
                },
                |mut storage| {
                    let mut sum = 0.0;
                    for &key in &probes {
                        if let Some((value, removed)) = storage.remove_with_info(key) {
                            sum += value.a + removed.index as f32;
                        }
                    }
                    (storage, sum)
                },
                BatchSize::LargeInput,
            );
        });
    }};
}

fn remove(c: &mut Criterion) {
    let positions: Vec<Position> = (0..N).map(Position::from_key).collect();
    let mut g = group(c, "remove", N, N);
    for_each_map!(remove_all, Position, &mut g, &positions);
    g.finish();
    let named: Vec<Named> = (0..N).map(Named::from_key).collect();
    let mut g = group(c, "remove_string", N, N);
    for_each_map!(remove_all, Named, &mut g, &named);
    g.finish();
    // One group, one function per field count: the cost of keeping C columns in lockstep.
    let mut g = group(c, "remove_with_info", N, N);
    remove_with_info_of!(g, Fields1Soa, |v| Fields1 { a: v }, "sparse-soa-1-field");
    remove_with_info_of!(
        g,
        Fields4Soa,
        |v| Fields4 { a: v, b: v, c: v, d: v },
        "sparse-soa-4-fields"
    );
    remove_with_info_of!(
        g,
        Fields8Soa,
        |v| Fields8 { a: v, b: v, c: v, d: v, e: v, f: v, g: v, h: v },
        "sparse-soa-8-fields"
    );
    g.finish();
}

// ---------------------------------------------------------------------------------------------
// 5. iterate

/// The two-column struct, derived by sparse-soa (the `soa_derive` twin is `Particle`: both derives
/// generate a `…Ref` type, so one struct cannot carry both).
#[derive(SparseSoa, Clone, Copy, Debug, Default)]
struct Body {
    x: f32,
    vx: f32,
}

#[derive(StructOfArray, Clone, Copy, Debug, Default)]
struct Particle {
    x: f32,
    vx: f32,
}

#[derive(StructOfArray, Clone, Copy, Debug, Default)]
struct Wide {
    x: f32,
    rest: [f32; 15],
}

/// Sums into eight independent accumulators, so the loop is bound by memory and loads rather
/// than by the latency of one chain of float additions. Every contender goes through this same
/// function.
#[inline]
fn sum<'a>(mut values: impl Iterator<Item = &'a f32>) -> f32 {
    let mut lanes = [0.0_f32; 8];
    'outer: loop {
        for lane in &mut lanes {
            match values.next() {
                Some(&x) => *lane += x,
                None => break 'outer,
            }
        }
    }
    lanes.iter().sum()
}

fn iterate_sum(c: &mut Criterion, size: u32) {
    let keys = dense_ascending(size);
    let mut g = group(c, "iter_sum_f32", size, size);
    let soa: PositionSoa =
        keys.iter().map(|&k| (k, Position { x: k as f32, y: 0.0, z: 0.0 })).collect();
    g.bench_function("sparse-soa", |b| b.iter(|| sum(black_box(&soa).x().iter())));
    let map: SparseMap<u32, f32> = filled(&keys, |k| k as f32);
    g.bench_function("sparse-soa-map", |b| b.iter(|| sum(black_box(map.values()).iter())));
    let plain: Vec<f32> = keys.iter().map(|&k| k as f32).collect();
    g.bench_function("vec-f32", |b| b.iter(|| sum(black_box(&plain).iter())));
    let bevy: Bevy<f32> = filled(&keys, |k| k as f32);
    g.bench_function("bevy", |b| b.iter(|| sum(black_box(&bevy.0).values())));
    let hash: Fx<f32> = filled(&keys, |k| k as f32);
    g.bench_function("fxhashmap", |b| b.iter(|| sum(black_box(&hash.0).values())));
    let tree: BTreeMap<u32, f32> = filled(&keys, |k| k as f32);
    g.bench_function("btreemap", |b| b.iter(|| sum(black_box(&tree).values())));
    let slots: VecOption<f32> = filled(&keys, |k| k as f32);
    g.bench_function("vec-option", |b| b.iter(|| sum(black_box(&slots.slots).iter().flatten())));
    let secondary: SecondaryMap<DefaultKey, f32> = filled(&keys, |k| k as f32);
    g.bench_function("slotmap-secondary", |b| b.iter(|| sum(black_box(&secondary).values())));
    g.finish();

    // One field of a 64-byte component: columns against an array of structs.
    let mut g = group(c, "iter_sum_64b_field", size, size);
    let soa: BigSoa = keys.iter().map(|&k| (k, Big::from_key(k))).collect();
    g.bench_function("sparse-soa", |b| b.iter(|| sum(black_box(&soa).x().iter())));
    let aos: Vec<Big> = keys.iter().map(|&k| Big::from_key(k)).collect();
    g.bench_function("aos-vec", |b| b.iter(|| sum(black_box(&aos).iter().map(|big| &big.x))));
    let map: SparseMap<u32, Big> = filled(&keys, Big::from_key);
    g.bench_function("sparse-soa-map", |b| {
        b.iter(|| sum(black_box(map.values()).iter().map(|big| &big.x)));
    });
    let bevy: Bevy<Big> = filled(&keys, Big::from_key);
    g.bench_function("bevy", |b| b.iter(|| sum(black_box(&bevy.0).values().map(|big| &big.x))));
    let mut wide = WideVec::new();
    for &k in &keys {
        let big = Big::from_key(k);
        wide.push(Wide { x: big.x, rest: big.rest });
    }
    g.bench_function("soa-derive", |b| b.iter(|| sum(black_box(&wide.x).iter())));
    g.finish();
}

fn iterate_two_columns(c: &mut Criterion, size: u32) {
    let keys = dense_ascending(size);
    let mut g = group(c, "iter_x_plus_vx", size, size);
    let mut bodies: BodySoa =
        keys.iter().map(|&k| (k, Body { x: k as f32, vx: k as f32 * 0.5 })).collect();
    g.bench_function("sparse-soa", |b| {
        b.iter(|| {
            let columns = bodies.columns_mut();
            for (x, vx) in columns.x.iter_mut().zip(columns.vx.iter()) {
                *x += vx;
            }
        });
    });
    let mut soa = ParticleVec::new();
    for &k in &keys {
        soa.push(Particle { x: k as f32, vx: k as f32 * 0.5 });
    }
    g.bench_function("soa-derive", |b| {
        b.iter(|| {
            for (x, vx) in soa.x.iter_mut().zip(&soa.vx) {
                *x += vx;
            }
        });
    });
    let mut aos: Vec<Particle> =
        keys.iter().map(|&k| Particle { x: k as f32, vx: k as f32 * 0.5 }).collect();
    g.bench_function("aos-vec", |b| {
        b.iter(|| {
            for particle in &mut aos {
                particle.x += particle.vx;
            }
        });
    });
    let mut bevy: Bevy<Particle> = filled(&keys, |k| Particle { x: k as f32, vx: k as f32 * 0.5 });
    g.bench_function("bevy", |b| {
        b.iter(|| {
            for particle in bevy.0.values_mut() {
                particle.x += particle.vx;
            }
        });
    });
    let mut hash: Fx<Particle> = filled(&keys, |k| Particle { x: k as f32, vx: k as f32 * 0.5 });
    g.bench_function("fxhashmap", |b| {
        b.iter(|| {
            for particle in hash.0.values_mut() {
                particle.x += particle.vx;
            }
        });
    });
    g.finish();
}

fn visit_keys<M: BenchMap<f32> + Visit<f32>, V>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    size: u32,
) {
    let map: M = filled(&dense_ascending(size), |k| k as f32);
    group.bench_function(M::NAME, |b| {
        b.iter(|| {
            let mut acc = 0.0_f32;
            black_box(&map).visit(|key, &value| acc += key as f32 * value);
            acc
        });
    });
}

fn iterate(c: &mut Criterion) {
    for size in sizes() {
        iterate_sum(c, size);
    }
    iterate_two_columns(c, N);
    let mut g = group(c, "iter_keys_and_column", N, N);
    for_each_map!(visit_keys, f32, &mut g, N);
    g.finish();
}

// ---------------------------------------------------------------------------------------------
// 6. intersection

fn intersect<M: BenchMap<Position> + Visit<Position>, V>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    a_keys: &[u32],
    b_keys: &[u32],
) {
    let a: M = filled(a_keys, Position::from_key);
    let b: M = filled(b_keys, Position::from_key);
    let (small, large) = if a.count() <= b.count() { (&a, &b) } else { (&b, &a) };
    // sparse-soa's own entry is `join::intersection`; this loop over its slices is the other way.
    let name = if M::NAME == "sparse-soa" { "sparse-soa-slices" } else { M::NAME };
    group.bench_function(name, |bench| {
        bench.iter(|| {
            let mut acc = 0.0_f32;
            small.visit(|key, p| {
                if let Some(q) = large.x_of(key) {
                    acc += p.x + q;
                }
            });
            acc
        });
    });
}

fn intersection(c: &mut Criterion) {
    let shuffled = random_permutation(2 * N, SEED);
    let cases: [(&str, Vec<u32>, Vec<u32>); 3] = [
        // Two sets of N keys sharing N/2.
        (
            "intersection_50pct",
            shuffled[..N as usize].to_vec(),
            shuffled[N as usize / 2..N as usize * 3 / 2].to_vec(),
        ),
        // Two sets of N keys sharing N/100.
        (
            "intersection_1pct",
            shuffled[..N as usize].to_vec(),
            shuffled[N as usize * 99 / 100..N as usize * 199 / 100].to_vec(),
        ),
        // N/10 keys against N keys holding all of them.
        (
            "intersection_1to10",
            shuffled[..N as usize / 10].to_vec(),
            shuffled[..N as usize].to_vec(),
        ),
    ];
    for (workload, a, b) in &cases {
        let ops = u32::try_from(a.len().min(b.len())).expect("small");
        let mut g = group(c, workload, N, ops);
        let sa: SparseMap<u32, Position> = filled(a, Position::from_key);
        let sb: SparseMap<u32, Position> = filled(b, Position::from_key);
        g.bench_function("sparse-soa", |bench| {
            bench.iter(|| {
                sparse_soa::join::intersection(black_box(&sa), black_box(&sb))
                    .fold(0.0_f32, |acc, (_, p, q)| acc + p.x + q.y)
            });
        });
        intersect::<SparseMap<u32, Position>, Position>(&mut g, a, b);
        if *workload == "intersection_50pct" {
            // The query: the smaller storage drives, the other is probed.
            g.bench_function("sparse-soa-query", |bench| {
                bench.iter(|| {
                    let mut acc = 0.0_f32;
                    sparse_soa::query((black_box(&sa), black_box(&sb)))
                        .for_each(|_, (p, q)| acc += p.x + q.x);
                    acc
                });
            });
        }
        intersect::<Bevy<Position>, Position>(&mut g, a, b);
        intersect::<HashMap<u32, Position>, Position>(&mut g, a, b);
        intersect::<Fx<Position>, Position>(&mut g, a, b);
        intersect::<BTreeMap<u32, Position>, Position>(&mut g, a, b);
        intersect::<VecOption<Position>, Position>(&mut g, a, b);
        intersect::<SecondaryMap<DefaultKey, Position>, Position>(&mut g, a, b);
        g.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// 7. mixed

#[derive(Clone, Copy)]
enum Op {
    Insert(u32),
    Remove(u32),
    Get(u32),
    Contains(u32),
}

/// `size` operations, each uniformly one of insert, remove, get, contains, on a key below `size`.
fn op_stream(size: u32) -> Vec<Op> {
    let mut rng = Rng::new(SEED ^ 0x004D_4958_4544);
    (0..size)
        .map(|_| {
            let key = rng.below(size);
            match rng.below(4) {
                0 => Op::Insert(key),
                1 => Op::Remove(key),
                2 => Op::Get(key),
                _ => Op::Contains(key),
            }
        })
        .collect()
}

fn mixed_ops<M: BenchMap<Position>, V>(group: &mut BenchmarkGroup<'_, WallTime>, size: u32) {
    // Starts half full: every other key of a random permutation.
    let initial: Vec<u32> = random_permutation(size, SEED).into_iter().step_by(2).collect();
    let ops = op_stream(size);
    group.bench_function(M::NAME, |b| {
        b.iter_batched(
            || filled::<M, Position>(&initial, Position::from_key),
            |mut map| {
                let mut acc = 0.0_f32;
                for &op in &ops {
                    match op {
                        Op::Insert(key) => map.put(key, Position::from_key(key)),
                        Op::Remove(key) => acc += map.take(key).map_or(0.0, |p| p.x),
                        Op::Get(key) => acc += map.x_of(key).unwrap_or(0.0),
                        Op::Contains(key) => acc += f32::from(u8::from(map.has(key))),
                    }
                }
                (map, acc)
            },
            BatchSize::LargeInput,
        );
    });
}

fn mixed(c: &mut Criterion) {
    let mut g = group(c, "mixed", N, N);
    for_each_map!(mixed_ops, Position, &mut g, N);
    g.finish();
}

// ---------------------------------------------------------------------------------------------
// 8. clear and refill

fn clear_refill_in<M: BenchMap<Position>>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    key_space: u32,
) {
    let mut rng = Rng::new(SEED);
    let keys: Vec<u32> = (0..1_000).map(|_| rng.below(key_space)).collect();
    let mut map = M::empty();
    for &key in &keys {
        map.put(key, Position::from_key(key));
    }
    group.bench_function(M::NAME, |b| {
        b.iter(|| {
            map.wipe();
            for &key in &keys {
                map.put(key, Position::from_key(key));
            }
        });
    });
}

fn clear_refill(c: &mut Criterion) {
    let spaces: &[u32] = if quick() { &[1_000, 100_000] } else { &[1_000, 100_000, 10_000_000] };
    for &space in spaces {
        let mut g = group(c, "clear_refill_1000_keys", space, 1_000);
        clear_refill_in::<PositionSoa>(&mut g, space);
        clear_refill_in::<SparseMap<u32, Position>>(&mut g, space);
        clear_refill_in::<Bevy<Position>>(&mut g, space);
        clear_refill_in::<HashMap<u32, Position>>(&mut g, space);
        clear_refill_in::<Fx<Position>>(&mut g, space);
        clear_refill_in::<BTreeMap<u32, Position>>(&mut g, space);
        clear_refill_in::<VecOption<Position>>(&mut g, space);
        clear_refill_in::<SecondaryMap<DefaultKey, Position>>(&mut g, space);
        clear_refill_in::<SparseSecondaryMap<DefaultKey, Position>>(&mut g, space);
        g.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// 9. churn

const LIVE: usize = 100_000;
const CHURN: usize = 10_000;

/// `Position` as a shipyard component.
#[expect(dead_code, reason = "stored and dropped, never read: the workload is spawn and despawn")]
struct ShipyardPosition(Position);

impl shipyard::Component for ShipyardPosition {
    type Tracking = shipyard::track::Untracked;
}

/// One frame: despawn `CHURN` random live entities, then spawn `CHURN` new ones. `live` lists the
/// live handles; `despawn` and `spawn` are the contender's.
fn frame<S, H: Copy>(
    state: &mut S,
    rng: &mut Rng,
    live: &mut Vec<H>,
    despawn: impl Fn(&mut S, H),
    spawn: impl Fn(&mut S, u32) -> H,
) {
    for _ in 0..CHURN {
        let index = rng.below(u32::try_from(live.len()).expect("small")) as usize;
        despawn(state, live.swap_remove(index));
    }
    for i in 0..CHURN {
        live.push(spawn(state, i as u32));
    }
}

fn churn(c: &mut Criterion) {
    let mut g = group(
        c,
        "churn_frame",
        u32::try_from(LIVE).expect("small"),
        u32::try_from(2 * CHURN).expect("small"),
    );

    let mut state: (Entities, SparseMap<Entity, Position>) = (Entities::new(), SparseMap::new());
    let mut live: Vec<Entity> = (0..LIVE)
        .map(|i| {
            let entity = state.0.spawn();
            state.1.insert(entity, Position::from_key(i as u32));
            entity
        })
        .collect();
    let mut rng = Rng::new(SEED);
    g.bench_function("sparse-soa", |b| {
        b.iter(|| {
            frame(
                &mut state,
                &mut rng,
                &mut live,
                |(entities, positions), entity| {
                    entities.despawn(entity);
                    positions.remove(entity);
                },
                |(entities, positions), i| {
                    let entity = entities.spawn();
                    positions.insert(entity, Position::from_key(i));
                    entity
                },
            );
        });
    });

    let mut slots: DenseSlotMap<DefaultKey, Position> = DenseSlotMap::new();
    let mut live: Vec<DefaultKey> =
        (0..LIVE).map(|i| slots.insert(Position::from_key(i as u32))).collect();
    let mut rng = Rng::new(SEED);
    g.bench_function("slotmap-dense", |b| {
        b.iter(|| {
            frame(
                &mut slots,
                &mut rng,
                &mut live,
                |slots, key| {
                    slots.remove(key);
                },
                |slots, i| slots.insert(Position::from_key(i)),
            );
        });
    });

    let mut world = shipyard::World::new();
    let mut live: Vec<shipyard::EntityId> = (0..LIVE)
        .map(|i| world.add_entity(ShipyardPosition(Position::from_key(i as u32))))
        .collect();
    let mut rng = Rng::new(SEED);
    g.bench_function("shipyard", |b| {
        b.iter(|| {
            frame(
                &mut world,
                &mut rng,
                &mut live,
                |world, id| {
                    world.delete_entity(id);
                },
                |world, i| world.add_entity(ShipyardPosition(Position::from_key(i))),
            );
        });
    });
    g.finish();
}

criterion::criterion_group!(
    benches,
    insert,
    insert_one_per_page,
    lookups,
    misses,
    entity_lookups,
    update,
    remove,
    insert_named,
    iterate,
    intersection,
    mixed,
    clear_refill,
    churn
);
criterion::criterion_main!(benches);
