//! Runs one workload for one contender in a loop, for profilers (`perf record`,
//! `valgrind --tool=callgrind --toggle-collect=*measured*`).
//!
//! ```text
//! cargo run --manifest-path benches/Cargo.toml --release --bin profile -- get_existing sparse-soa [repetitions]
//! ```
//!
//! Workloads: `get_existing`, `contains_existing`, `update`, `remove`, `insert_dense_asc`,
//! `insert_step100_asc`. Contenders: `sparse-soa`, `bevy`, `fxhashmap`, `btreemap`.
//! Prints the operations run, so instruction counts divide into a per-operation cost.

#![allow(
    clippy::cast_precision_loss,
    reason = "benchmark values are made from keys and counts; their exact value does not matter"
)]

use std::collections::BTreeMap;
use std::hint::black_box;

use sparse_soa::SparseMap;
use sparse_soa_bench::{
    BenchMap, Bevy, Fx, Position, SEED, dense_ascending, random_permutation, step_ascending,
};

const N: u32 = 100_000;

/// The timed part: one pass of `workload` over `map`. Never inlined, so a profiler can isolate it.
#[inline(never)]
fn measured<M: BenchMap<Position>>(workload: &str, map: &mut M, keys: &[u32]) -> f32 {
    let mut sum = 0.0;
    match workload {
        "get_existing" => {
            for &key in keys {
                if let Some(position) = map.lookup(black_box(key)) {
                    sum += position.x;
                }
            }
        }
        "contains_existing" => {
            sum = keys.iter().filter(|&&key| map.has(black_box(key))).count() as f32;
        }
        "update" => {
            for &key in keys {
                if let Some(position) = map.lookup_mut(black_box(key)) {
                    position.x += 1.0;
                }
            }
        }
        "remove" => {
            for &key in keys {
                if let Some(position) = map.take(black_box(key)) {
                    sum += position.x;
                }
            }
        }
        _ => {
            for &key in keys {
                map.put(black_box(key), Position::from_key(key));
            }
        }
    }
    sum
}

fn run<M: BenchMap<Position>>(workload: &str, repetitions: u32) {
    let probes = random_permutation(N, SEED);
    let (stored, keys) = match workload {
        "insert_dense_asc" => (Vec::new(), dense_ascending(N)),
        "insert_step100_asc" => (Vec::new(), step_ascending(N, 100)),
        "get_existing" | "contains_existing" | "update" | "remove" => (dense_ascending(N), probes),
        other => panic!("unknown workload `{other}`"),
    };
    let mut total = 0.0;
    for _ in 0..repetitions {
        let mut map = M::empty();
        for &key in &stored {
            map.put(key, Position::from_key(key));
        }
        total += measured(workload, &mut map, &keys);
        black_box(&map);
    }
    println!(
        "{} {workload}: {} operations (checksum {total})",
        M::NAME,
        u64::from(repetitions) * keys.len() as u64
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, workload, contender, rest @ ..] = args.as_slice() else {
        eprintln!("usage: profile WORKLOAD CONTENDER [REPETITIONS]");
        std::process::exit(2);
    };
    let repetitions =
        rest.first().map_or(10, |value| value.parse().expect("a number of repetitions"));
    match contender.as_str() {
        "sparse-soa" => run::<SparseMap<u32, Position>>(workload, repetitions),
        "bevy" => run::<Bevy<Position>>(workload, repetitions),
        "fxhashmap" => run::<Fx<Position>>(workload, repetitions),
        "btreemap" => run::<BTreeMap<u32, Position>>(workload, repetitions),
        other => panic!("unknown contender `{other}`"),
    }
}
