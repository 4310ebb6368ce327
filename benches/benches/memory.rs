//! Heap bytes held by sparse-soa and its peers for a few key patterns, counted by a global
//! allocator that tracks every allocation of this process.
//!
//! Prints a Markdown table and, if `SPARSE_SOA_MEMORY_OUT` names a file, writes the same rows there
//! as tab-separated values (`pattern`, `contender`, `live elements`, `bytes`) for the results page.

#![allow(
    clippy::cast_precision_loss,
    reason = "benchmark values are made from keys and counts; their exact value does not matter"
)]

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::hint::black_box;

use rustc_hash::FxHashMap;
use slotmap::{DefaultKey, SecondaryMap, SparseSecondaryMap};
use sparse_soa::SparseMap;
use sparse_soa_bench::{BenchMap, Bevy, Fx, Position, PositionSoa, Rng, SEED, VecOption};
use sparse_soa_test_support::{CountingAlloc, live_bytes};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn live() -> usize {
    live_bytes()
}

/// One measured row.
struct Row {
    pattern: &'static str,
    contender: String,
    elements: usize,
    /// `None` when the contender cannot hold the pattern (it would need an absurd allocation).
    bytes: Option<usize>,
}

/// Bytes held by a map of `M` filled with `keys`, measured while it is alive.
fn held<M: BenchMap<Position>>(keys: &[u32]) -> (usize, usize) {
    let mut count = 0;
    let bytes = held_by(keys, M::empty, |map, key| {
        map.put(key, Position::from_key(key));
        count = map.count();
    });
    (count, bytes)
}

macro_rules! each_map {
    ($rows:ident, $pattern:expr, $keys:expr, $max_key:expr) => {{
        measure::<SparseMap<u32, Position>>(&mut $rows, $pattern, $keys, $max_key);
        measure::<PositionSoa>(&mut $rows, $pattern, $keys, $max_key);
        measure::<Bevy<Position>>(&mut $rows, $pattern, $keys, $max_key);
        measure::<HashMap<u32, Position>>(&mut $rows, $pattern, $keys, $max_key);
        measure::<Fx<Position>>(&mut $rows, $pattern, $keys, $max_key);
        measure::<BTreeMap<u32, Position>>(&mut $rows, $pattern, $keys, $max_key);
        measure::<VecOption<Position>>(&mut $rows, $pattern, $keys, $max_key);
        measure::<SecondaryMap<DefaultKey, Position>>(&mut $rows, $pattern, $keys, $max_key);
        measure::<SparseSecondaryMap<DefaultKey, Position>>(&mut $rows, $pattern, $keys, $max_key);
    }};
}

/// Contenders whose memory grows with the largest key (one slot per possible key).
fn flat_by_key(name: &str) -> bool {
    matches!(name, "bevy" | "vec-option" | "slotmap-secondary")
}

fn measure<M: BenchMap<Position>>(
    rows: &mut Vec<Row>,
    pattern: &'static str,
    keys: &[u32],
    max_key: u32,
) {
    // A flat array over four billion keys would need tens of GiB: reported, not attempted.
    let bytes =
        if flat_by_key(M::NAME) && max_key > 100_000_000 { None } else { Some(held::<M>(keys).1) };
    rows.push(Row { pattern, contender: M::NAME.to_owned(), elements: keys.len(), bytes });
}

/// Keys `0..1_000_000`, then 99% removed at random: the survivors.
fn survivors() -> (Vec<u32>, Vec<u32>) {
    let mut all: Vec<u32> = (0..1_000_000).collect();
    Rng::new(SEED).shuffle(&mut all);
    let removed = all.split_off(10_000);
    (all, removed)
}

/// Bytes after filling `0..1_000_000` and removing 99%, before and after the contender's shrink.
fn after_removal<M: BenchMap<Position>>(rows: &mut Vec<Row>, shrink: Option<fn(&mut M)>) {
    let (kept, removed) = survivors();
    let before = live();
    let mut map = M::empty();
    for key in 0..1_000_000 {
        map.put(key, Position::from_key(key));
    }
    for &key in &removed {
        map.take(key);
    }
    let elements = map.count();
    assert_eq!(elements, kept.len());
    let unshrunk = live() - before;
    let after_shrink = shrink.map(|shrink| {
        shrink(&mut map);
        live() - before
    });
    let contender = M::NAME.to_owned();
    rows.push(Row {
        pattern: "0..1M, 99% removed",
        contender: contender.clone(),
        elements,
        bytes: Some(unshrunk),
    });
    rows.push(Row {
        pattern: "0..1M, 99% removed, shrunk",
        contender,
        elements,
        bytes: after_shrink,
    });
    black_box(&map);
}

/// Bytes held by a map made by `empty` and filled with `keys` through `put`, measured while it
/// is alive.
fn held_by<K: Copy, M>(keys: &[K], empty: impl Fn() -> M, mut put: impl FnMut(&mut M, K)) -> usize {
    let before = live();
    let mut map = empty();
    for &key in keys {
        put(&mut map, key);
    }
    let bytes = live() - before;
    black_box(&map);
    bytes
}

/// The three rows of one random-key pattern: sparse-soa, `FxHashMap` and `BTreeMap`, values
/// `u32`.
fn random_rows<K: sparse_soa::Key + Ord>(keys: &[K]) -> [(&'static str, usize); 3] {
    [
        (
            "sparse-soa",
            held_by(keys, SparseMap::<K, u32>::new, |m, k| {
                m.insert(k, 1);
            }),
        ),
        (
            "fxhashmap",
            held_by(keys, FxHashMap::<K, u32>::default, |m, k| {
                m.insert(k, 1);
            }),
        ),
        (
            "btreemap",
            held_by(keys, BTreeMap::<K, u32>::new, |m, k| {
                m.insert(k, 1);
            }),
        ),
    ]
}

/// Uniformly random keys (hashed ids): sparse-soa beside the hash and tree maps, values `u32`.
fn random_keys(rows: &mut Vec<Row>) {
    let patterns: [(&'static str, bool, usize); 4] = [
        ("random u32 (1k keys)", true, 1_000),
        ("random u32 (100k keys)", true, 100_000),
        ("random u64 (1k keys)", false, 1_000),
        ("random u64 (100k keys)", false, 100_000),
    ];
    for (pattern, narrow, count) in patterns {
        let mut rng = Rng::new(SEED ^ count as u64);
        let mut keys: Vec<u64> = Vec::with_capacity(count);
        let mut seen = std::collections::HashSet::new();
        while keys.len() < count {
            let key = if narrow { rng.next_u64() >> 32 } else { rng.next_u64() };
            if seen.insert(key) {
                keys.push(key);
            }
        }
        let bytes = if narrow {
            random_rows(&keys.iter().map(|&key| key as u32).collect::<Vec<_>>())
        } else {
            random_rows(&keys)
        };
        for (contender, bytes) in bytes {
            rows.push(Row {
                pattern,
                contender: contender.to_owned(),
                elements: count,
                bytes: Some(bytes),
            });
        }
    }
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        // `cargo bench` probes harness-less targets with `--list`; nothing to list.
        return;
    }
    let mut rows = Vec::new();
    let dense: Vec<u32> = (0..100_000).collect();
    let step: Vec<u32> = (0..100_000).map(|i| i * 100).collect();
    let page: Vec<u32> = (0..1_000).map(|i| i * 4_096).collect();
    let ends: Vec<u32> = (0..500).chain(u32::MAX - 499..=u32::MAX).collect();
    each_map!(rows, "dense 0..100k", &dense, 99_999);
    each_map!(rows, "step 100 (100k keys)", &step, 9_999_900);
    each_map!(rows, "one per 4096 (1k keys)", &page, 999 * 4_096);
    // slotmap reserves slot index u32::MAX for its null key, so it cannot hold this pattern.
    rows.push(Row {
        pattern: "500 near 0 + 500 near u32::MAX",
        contender: "slotmap-secondary".into(),
        elements: 1000,
        bytes: None,
    });
    rows.push(Row {
        pattern: "500 near 0 + 500 near u32::MAX",
        contender: "slotmap-sparse-secondary".into(),
        elements: 1000,
        bytes: None,
    });
    measure::<SparseMap<u32, Position>>(
        &mut rows,
        "500 near 0 + 500 near u32::MAX",
        &ends,
        u32::MAX,
    );
    measure::<Bevy<Position>>(&mut rows, "500 near 0 + 500 near u32::MAX", &ends, u32::MAX);
    measure::<HashMap<u32, Position>>(&mut rows, "500 near 0 + 500 near u32::MAX", &ends, u32::MAX);
    measure::<Fx<Position>>(&mut rows, "500 near 0 + 500 near u32::MAX", &ends, u32::MAX);
    measure::<BTreeMap<u32, Position>>(
        &mut rows,
        "500 near 0 + 500 near u32::MAX",
        &ends,
        u32::MAX,
    );
    measure::<VecOption<Position>>(&mut rows, "500 near 0 + 500 near u32::MAX", &ends, u32::MAX);

    random_keys(&mut rows);

    after_removal::<SparseMap<u32, Position>>(&mut rows, Some(SparseMap::shrink_to_fit));
    after_removal::<PositionSoa>(&mut rows, Some(PositionSoa::shrink_to_fit));
    after_removal::<Bevy<Position>>(&mut rows, None);
    after_removal::<HashMap<u32, Position>>(&mut rows, Some(HashMap::shrink_to_fit));
    after_removal::<Fx<Position>>(&mut rows, Some(|map| map.0.shrink_to_fit()));
    after_removal::<BTreeMap<u32, Position>>(&mut rows, None);
    after_removal::<VecOption<Position>>(
        &mut rows,
        Some(|map| {
            while map.slots.last().is_some_and(Option::is_none) {
                map.slots.pop();
            }
            map.slots.shrink_to_fit();
        }),
    );
    after_removal::<SecondaryMap<DefaultKey, Position>>(&mut rows, None);
    after_removal::<SparseSecondaryMap<DefaultKey, Position>>(&mut rows, None);

    let mut table = String::from(
        "| pattern | contender | live elements | bytes | bytes per live element |\n|---|---|---:|---:|---:|\n",
    );
    let mut tsv = String::new();
    for row in &rows {
        let (bytes, per) = match row.bytes {
            Some(bytes) => {
                (bytes.to_string(), format!("{:.1}", bytes as f64 / row.elements as f64))
            }
            None => ("n/a".to_owned(), "n/a".to_owned()),
        };
        let _ = writeln!(
            table,
            "| {} | {} | {} | {bytes} | {per} |",
            row.pattern, row.contender, row.elements
        );
        let _ = writeln!(tsv, "{}\t{}\t{}\t{bytes}", row.pattern, row.contender, row.elements);
    }
    print!("{table}");
    if let Ok(path) = std::env::var("SPARSE_SOA_MEMORY_OUT") {
        std::fs::write(&path, tsv).unwrap_or_else(|error| panic!("cannot write {path}: {error}"));
    }
}
