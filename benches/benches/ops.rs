//! Time per operation of sparse-soa against the crates users would pick instead.
//!
//! Group = workload and size (`get_existing/100000`), function = contender (`sparse-soa`, `bevy`,
//! `fxhashmap`, …); `benches/README.md` lists them all. `SPARSE_SOA_BENCH_MODE=quick` shortens
//! every measurement and skips the 1,000,000-element sizes; `full` (the default) runs everything.

use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, Throughput};
use slotmap::{DefaultKey, SecondaryMap, SparseSecondaryMap};
use sparse_soa::SparseMap;
use sparse_soa_bench::{
    BenchMap, Bevy, Fx, Position, SEED, VecOption, dense_ascending, random_permutation,
    step_ascending, step_descending,
};

/// The element count of every workload.
const N: u32 = 100_000;
/// The larger size some workloads also run at in full mode.
const N_LARGE: u32 = 1_000_000;

fn quick() -> bool {
    std::env::var("SPARSE_SOA_BENCH_MODE").is_ok_and(|mode| mode == "quick")
}

fn sizes() -> Vec<u32> {
    if quick() { vec![N] } else { vec![N, N_LARGE] }
}

fn group<'a>(
    c: &'a mut Criterion,
    workload: &str,
    size: u32,
    ops: u32,
) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(format!("{workload}/{size}"));
    group.throughput(Throughput::Elements(u64::from(ops)));
    if quick() {
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(200));
        group.measurement_time(Duration::from_millis(600));
    }
    group
}

/// Runs `$body::<M>($($arg),*)` for every map contender that stores `$v`.
macro_rules! for_each_map {
    ($body:ident, $v:ty, $($arg:expr),*) => {{
        $body::<SparseMap<u32, $v>, $v>($($arg),*);
        $body::<Bevy<$v>, $v>($($arg),*);
        $body::<HashMap<u32, $v>, $v>($($arg),*);
        $body::<Fx<$v>, $v>($($arg),*);
        $body::<BTreeMap<u32, $v>, $v>($($arg),*);
        $body::<VecOption<$v>, $v>($($arg),*);
        $body::<SecondaryMap<DefaultKey, $v>, $v>($($arg),*);
        $body::<SparseSecondaryMap<DefaultKey, $v>, $v>($($arg),*);
    }};
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

fn insert_into<M: BenchMap<V>, V: Clone>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    keys: &[u32],
    values: &[V],
) {
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
            let mut g = group(c, workload, size, size);
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
                if let Some(position) = map.lookup(black_box(key)) {
                    sum += position.x;
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

fn lookups(c: &mut Criterion) {
    for size in sizes() {
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

criterion::criterion_group!(benches, insert, lookups);
criterion::criterion_main!(benches);
