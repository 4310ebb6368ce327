//! Turns a benchmark run into the results page: reads criterion's `estimates.json` files, the
//! memory and compile-time reports and the run's notes, writes `BENCHMARKS.md` and an SVG chart.
//!
//! ```text
//! cargo run --manifest-path benches/Cargo.toml --release --bin report -- [CRITERION_DIR] [BENCHMARKS_MD] [CHART_SVG]
//! ```
//!
//! Defaults: `target/criterion`, `BENCHMARKS.md`, `benches/results/chart.svg`. The memory report,
//! compile-time report and run notes are read from `CRITERION_DIR/sparse-soa/` (`memory.tsv`,
//! `compile.tsv`, `run.txt`), where `benches/run.sh` puts them. Two hand-written sections are
//! included as they are: `benches/ANALYSIS.md` (the missed targets) and `benches/TEST_COMMAND.md`
//! (the test command's build time, the last section).

#![allow(
    clippy::cast_precision_loss,
    reason = "benchmark values are made from keys and counts; their exact value does not matter"
)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use plotters::prelude::*;
use serde_json::Value;

/// ns per operation, by group then function.
type Results = BTreeMap<String, BTreeMap<String, f64>>;

fn collect(dir: &Path, results: &mut Results) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name == "new") {
                read_one(&path, results);
            } else {
                collect(&path, results);
            }
        }
    }
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

fn read_one(dir: &Path, results: &mut Results) {
    let (Some(benchmark), Some(estimates)) =
        (read_json(&dir.join("benchmark.json")), read_json(&dir.join("estimates.json")))
    else {
        return;
    };
    let (Some(group), Some(function), Some(mean)) = (
        benchmark["group_id"].as_str(),
        benchmark["function_id"].as_str(),
        estimates["mean"]["point_estimate"].as_f64(),
    ) else {
        return;
    };
    let elements = benchmark["throughput"]["Elements"].as_f64().unwrap_or(1.0);
    results.entry(group.to_owned()).or_default().insert(function.to_owned(), mean / elements);
}

/// A target of the benchmark issue: `numerator` time / `denominator` time at most `max`.
struct Target {
    what: &'static str,
    group: &'static str,
    numerator: &'static str,
    denominator: &'static str,
    max: f64,
}

const TARGETS: &[Target] = &[
    Target {
        what: "get existing vs bevy",
        group: "get_existing/100000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.0,
    },
    Target {
        what: "get existing vs FxHashMap",
        group: "get_existing/100000",
        numerator: "sparse-soa",
        denominator: "fxhashmap",
        max: 0.5,
    },
    Target {
        what: "get existing vs BTreeMap",
        group: "get_existing/100000",
        numerator: "sparse-soa",
        denominator: "btreemap",
        max: 0.04,
    },
    Target {
        what: "contains existing vs bevy",
        group: "contains_existing/100000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.0,
    },
    Target {
        what: "contains existing vs FxHashMap",
        group: "contains_existing/100000",
        numerator: "sparse-soa",
        denominator: "fxhashmap",
        max: 0.5,
    },
    Target {
        what: "contains existing vs BTreeMap",
        group: "contains_existing/100000",
        numerator: "sparse-soa",
        denominator: "btreemap",
        max: 0.04,
    },
    Target {
        what: "get missing (past end) vs bevy",
        group: "get_missing_past_end/100000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.2,
    },
    Target {
        what: "contains missing (past end) vs bevy",
        group: "contains_missing_past_end/100000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.2,
    },
    Target {
        what: "get missing (empty page) vs bevy",
        group: "get_missing_empty_page/100000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.2,
    },
    Target {
        what: "contains missing (empty page) vs bevy",
        group: "contains_missing_empty_page/100000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.2,
    },
    Target {
        what: "get missing (sparse page) vs bevy",
        group: "get_missing_sparse_page/100000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.2,
    },
    Target {
        what: "contains missing (sparse page) vs bevy",
        group: "contains_missing_sparse_page/100000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.2,
    },
    Target {
        what: "get existing vs bevy at 1,000,000 (full)",
        group: "get_existing/1000000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.0,
    },
    Target {
        what: "contains existing vs bevy at 1,000,000 (full)",
        group: "contains_existing/1000000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.0,
    },
    Target {
        what: "insert step-512 ascending vs BTreeMap",
        group: "insert_step512_asc/100000",
        numerator: "sparse-soa",
        denominator: "btreemap",
        max: 1.0,
    },
    Target {
        what: "insert step-512 ascending vs FxHashMap",
        group: "insert_step512_asc/100000",
        numerator: "sparse-soa",
        denominator: "fxhashmap",
        max: 3.0,
    },
    Target {
        what: "insert step-4096 ascending vs BTreeMap",
        group: "insert_step4096_asc/100000",
        numerator: "sparse-soa",
        denominator: "btreemap",
        max: 1.0,
    },
    Target {
        what: "insert step-4096 ascending vs FxHashMap",
        group: "insert_step4096_asc/100000",
        numerator: "sparse-soa",
        denominator: "fxhashmap",
        max: 3.0,
    },
    Target {
        what: "3-field derived insert vs SparseMap",
        group: "insert_random/100000",
        numerator: "sparse-soa-derive",
        denominator: "sparse-soa",
        max: 1.2,
    },
    Target {
        what: "3-field derived remove vs SparseMap",
        group: "remove/100000",
        numerator: "sparse-soa-derive",
        denominator: "sparse-soa",
        max: 1.2,
    },
    Target {
        what: "update vs BTreeMap",
        group: "update/100000",
        numerator: "sparse-soa",
        denominator: "btreemap",
        max: 0.015,
    },
    Target {
        what: "insert dense ascending vs bevy",
        group: "insert_dense_asc/100000",
        numerator: "sparse-soa",
        denominator: "bevy",
        max: 1.0,
    },
    Target {
        what: "insert step-100 ascending vs BTreeMap",
        group: "insert_step100_asc/100000",
        numerator: "sparse-soa",
        denominator: "btreemap",
        max: 1.0,
    },
    Target {
        what: "insert step-100 descending vs BTreeMap",
        group: "insert_step100_desc/100000",
        numerator: "sparse-soa",
        denominator: "btreemap",
        max: 1.0,
    },
    Target {
        what: "remove vs std HashMap",
        group: "remove/100000",
        numerator: "sparse-soa",
        denominator: "std-hashmap",
        max: 0.5,
    },
    Target {
        what: "remove_with_info: 8 fields vs 1 field",
        group: "remove_with_info/100000",
        numerator: "sparse-soa-8-fields",
        denominator: "sparse-soa-1-field",
        max: 8.0,
    },
    Target {
        what: "sum one column vs plain Vec<f32>",
        group: "iter_sum_f32/100000",
        numerator: "sparse-soa",
        denominator: "vec-f32",
        max: 1.05,
    },
    Target {
        what: "one field of a 64-byte component vs array of structs",
        group: "iter_sum_64b_field/100000",
        numerator: "sparse-soa",
        denominator: "aos-vec",
        max: 0.3,
    },
    Target {
        what: "intersection 50% vs BTreeMap",
        group: "intersection_50pct/100000",
        numerator: "sparse-soa",
        denominator: "btreemap",
        max: 0.13,
    },
    Target {
        what: "mixed vs BTreeMap",
        group: "mixed/100000",
        numerator: "sparse-soa",
        denominator: "btreemap",
        max: 0.08,
    },
    Target {
        what: "move system: query vs bevy sparse-set query",
        group: "systems_move/100000",
        numerator: "sparse-soa",
        denominator: "bevy-sparse",
        max: 1.0,
    },
    Target {
        what: "move system: query vs shipyard",
        group: "systems_move/100000",
        numerator: "sparse-soa",
        denominator: "shipyard",
        max: 1.0,
    },
    Target {
        what: "move system: query vs the same loop by hand",
        group: "systems_move/100000",
        numerator: "sparse-soa",
        denominator: "sparse-soa-hand",
        max: 1.1,
    },
    Target {
        what: "accelerate system (2 mutable of 3): query vs bevy sparse-set query",
        group: "systems_accelerate/100000",
        numerator: "sparse-soa",
        denominator: "bevy-sparse",
        max: 1.0,
    },
    Target {
        what: "accelerate system (2 mutable of 3): query vs shipyard",
        group: "systems_accelerate/100000",
        numerator: "sparse-soa",
        denominator: "shipyard",
        max: 1.0,
    },
    Target {
        what: "accelerate system (2 mutable of 3): query vs the same loop by hand",
        group: "systems_accelerate/100000",
        numerator: "sparse-soa",
        denominator: "sparse-soa-hand",
        max: 1.1,
    },
    Target {
        what: "move system over a group vs bevy table query, 100,000",
        group: "systems_grouped/100000",
        numerator: "sparse-soa-group",
        denominator: "bevy-table",
        max: 1.0,
    },
    Target {
        what: "move system over a group vs plain Vec<f32> columns, 100,000",
        group: "systems_grouped/100000",
        numerator: "sparse-soa-group",
        denominator: "vec-floor",
        max: 1.2,
    },
    Target {
        what: "move system over a group vs bevy table query, 1,000,000",
        group: "systems_grouped/1000000",
        numerator: "sparse-soa-group",
        denominator: "bevy-table",
        max: 1.0,
    },
    Target {
        what: "move system over a group vs plain Vec<f32> columns, 1,000,000",
        group: "systems_grouped/1000000",
        numerator: "sparse-soa-group",
        denominator: "vec-floor",
        max: 1.2,
    },
    Target {
        what: "move system over a group, 2 threads vs 1, 1,000,000",
        group: "systems_parallel/1000000",
        numerator: "sparse-soa-group-par",
        denominator: "sparse-soa-group",
        max: 0.6,
    },
    Target {
        what: "insert into a grouped storage vs an ungrouped one, 100,000",
        group: "systems_grouped_churn/100000",
        numerator: "insert-grouped",
        denominator: "insert-ungrouped",
        max: 3.0,
    },
    Target {
        what: "remove into a grouped storage vs an ungrouped one, 100,000",
        group: "systems_grouped_churn/100000",
        numerator: "remove-grouped",
        denominator: "remove-ungrouped",
        max: 3.0,
    },
    Target {
        what: "insert into a grouped storage vs an ungrouped one, 1,000,000",
        group: "systems_grouped_churn/1000000",
        numerator: "insert-grouped",
        denominator: "insert-ungrouped",
        max: 3.0,
    },
    Target {
        what: "remove into a grouped storage vs an ungrouped one, 1,000,000",
        group: "systems_grouped_churn/1000000",
        numerator: "remove-grouped",
        denominator: "remove-ungrouped",
        max: 3.0,
    },
    Target {
        what: "remove + insert, steady state, grouped vs ungrouped, 100,000",
        group: "systems_grouped_cycle/100000",
        numerator: "grouped",
        denominator: "ungrouped",
        max: 3.0,
    },
    Target {
        what: "remove + insert, steady state, grouped vs ungrouped, 1,000,000",
        group: "systems_grouped_cycle/1000000",
        numerator: "grouped",
        denominator: "ungrouped",
        max: 3.0,
    },
    Target {
        what: "intersection 50% through a query vs bevy's SparseSet probed by hand",
        group: "intersection_50pct/100000",
        numerator: "sparse-soa-query",
        denominator: "bevy",
        max: 1.0,
    },
    Target {
        what: "Entity get vs slotmap SecondaryMap, 100,000",
        group: "get_entity/100000",
        numerator: "sparse-soa",
        denominator: "slotmap-secondary",
        max: 1.2,
    },
    Target {
        what: "Entity contains vs slotmap SecondaryMap, 100,000",
        group: "contains_entity/100000",
        numerator: "sparse-soa",
        denominator: "slotmap-secondary",
        max: 1.2,
    },
    Target {
        what: "Entity get vs sparsey query_one().get, 100,000",
        group: "get_entity/100000",
        numerator: "sparse-soa",
        denominator: "sparsey",
        max: 1.0,
    },
    Target {
        what: "Entity get vs slotmap SecondaryMap, 1,000,000",
        group: "get_entity/1000000",
        numerator: "sparse-soa",
        denominator: "slotmap-secondary",
        max: 1.2,
    },
    Target {
        what: "Entity contains vs slotmap SecondaryMap, 1,000,000",
        group: "contains_entity/1000000",
        numerator: "sparse-soa",
        denominator: "slotmap-secondary",
        max: 1.2,
    },
    Target {
        what: "Entity get vs sparsey query_one().get, 1,000,000",
        group: "get_entity/1000000",
        numerator: "sparse-soa",
        denominator: "sparsey",
        max: 1.0,
    },
    Target {
        what: "move system: query vs bevy sparse-set query, 100,000",
        group: "systems_move/100000",
        numerator: "sparse-soa",
        denominator: "bevy-sparse",
        max: 1.0,
    },
    Target {
        what: "move system: query vs shipyard, 100,000",
        group: "systems_move/100000",
        numerator: "sparse-soa",
        denominator: "shipyard",
        max: 1.0,
    },
    Target {
        what: "move system: query vs sparsey query_all, 100,000",
        group: "systems_move/100000",
        numerator: "sparse-soa",
        denominator: "sparsey",
        max: 1.0,
    },
    Target {
        what: "accelerate system (2 mutable of 3): query vs bevy sparse-set query, 100,000",
        group: "systems_accelerate/100000",
        numerator: "sparse-soa",
        denominator: "bevy-sparse",
        max: 1.0,
    },
    Target {
        what: "accelerate system (2 mutable of 3): query vs shipyard, 100,000",
        group: "systems_accelerate/100000",
        numerator: "sparse-soa",
        denominator: "shipyard",
        max: 1.0,
    },
    Target {
        what: "accelerate system (2 mutable of 3): query vs sparsey query_all, 100,000",
        group: "systems_accelerate/100000",
        numerator: "sparse-soa",
        denominator: "sparsey",
        max: 1.0,
    },
    Target {
        what: "move system: query vs bevy sparse-set query, 1,000,000",
        group: "systems_move/1000000",
        numerator: "sparse-soa",
        denominator: "bevy-sparse",
        max: 1.0,
    },
    Target {
        what: "move system: query vs shipyard, 1,000,000",
        group: "systems_move/1000000",
        numerator: "sparse-soa",
        denominator: "shipyard",
        max: 1.0,
    },
    Target {
        what: "move system: query vs sparsey query_all, 1,000,000",
        group: "systems_move/1000000",
        numerator: "sparse-soa",
        denominator: "sparsey",
        max: 1.0,
    },
    Target {
        what: "accelerate system (2 mutable of 3): query vs bevy sparse-set query, 1,000,000",
        group: "systems_accelerate/1000000",
        numerator: "sparse-soa",
        denominator: "bevy-sparse",
        max: 1.0,
    },
    Target {
        what: "accelerate system (2 mutable of 3): query vs shipyard, 1,000,000",
        group: "systems_accelerate/1000000",
        numerator: "sparse-soa",
        denominator: "shipyard",
        max: 1.0,
    },
    Target {
        what: "accelerate system (2 mutable of 3): query vs sparsey query_all, 1,000,000",
        group: "systems_accelerate/1000000",
        numerator: "sparse-soa",
        denominator: "sparsey",
        max: 1.0,
    },
    Target {
        what: "move system: the lending iterator vs for_each",
        group: "systems_move/100000",
        numerator: "sparse-soa-iter",
        denominator: "sparse-soa",
        max: 1.15,
    },
    Target {
        what: "move system, a sum: the std iterator vs for_each",
        group: "systems_move/100000",
        numerator: "sparse-soa-std-iter",
        denominator: "sparse-soa-sum",
        max: 1.15,
    },
    Target {
        what: "move system inlined into a frame vs in a function of its own",
        group: "systems_move_inline/100000",
        numerator: "sparse-soa",
        denominator: "sparse-soa-own-fn",
        max: 1.2,
    },
    Target {
        what: "move system inlined into a frame vs bevy's sparse-set query the same way",
        group: "systems_move_inline/100000",
        numerator: "sparse-soa",
        denominator: "bevy-sparse",
        max: 1.0,
    },
    Target {
        what: "spawn 3 components one by one vs bevy's spawn loop",
        group: "spawn_rows/100000",
        numerator: "sparse-soa",
        denominator: "bevy-table",
        max: 1.0,
    },
    Target {
        what: "spawn with 2 of 3 grouped vs bevy's spawn_batch into a table",
        group: "spawn_batch/100000",
        numerator: "sparse-soa-grouped",
        denominator: "bevy-table",
        max: 1.0,
    },
    Target {
        what: "spawn_batch vs sparsey's extend",
        group: "spawn_batch/100000",
        numerator: "sparse-soa",
        denominator: "sparsey",
        max: 1.0,
    },
    Target {
        what: "spawn_batch vs shipyard's bulk_add_entity",
        group: "spawn_batch/100000",
        numerator: "sparse-soa",
        denominator: "shipyard",
        max: 1.5,
    },
    Target {
        what: "spawn_batch into a group vs sparsey's grouped extend",
        group: "spawn_batch/100000",
        numerator: "sparse-soa-grouped",
        denominator: "sparsey-grouped",
        max: 1.0,
    },
    Target {
        what: "despawn vs bevy's despawn",
        group: "despawn_rows/100000",
        numerator: "sparse-soa",
        denominator: "bevy-table",
        max: 1.0,
    },
    Target {
        what: "grouped despawn + respawn vs bevy's tables",
        group: "respawn_grouped/100000",
        numerator: "sparse-soa-grouped",
        denominator: "bevy-table",
        max: 1.0,
    },
    Target {
        what: "nested family despawn + respawn vs sparsey's group family",
        group: "respawn_nested/100000",
        numerator: "sparse-soa-nested",
        denominator: "sparsey-nested",
        max: 1.0,
    },
    Target {
        what: "one change to a nested level vs sparsey's group family",
        group: "cycle_nested/100000",
        numerator: "sparse-soa-nested",
        denominator: "sparsey-nested",
        max: 1.0,
    },
    Target {
        what: "family of three levels despawn + respawn vs sparsey's family of three groups",
        group: "respawn_deep/100000",
        numerator: "sparse-soa-deep",
        denominator: "sparsey-deep",
        max: 1.0,
    },
    Target {
        what: "one change to the innermost of three levels vs sparsey's family",
        group: "cycle_deep/100000",
        numerator: "sparse-soa-deep",
        denominator: "sparsey-deep",
        max: 1.0,
    },
    Target {
        what: "parallel move system (positions first) vs its sequential form, 100,000",
        group: "systems_parallel/100000",
        numerator: "sparse-soa-move-query-par",
        denominator: "sparse-soa-move-query",
        max: 1.0,
    },
    Target {
        what: "parallel move system (positions first) vs bevy's sparse-set par_iter, 100,000",
        group: "systems_parallel/100000",
        numerator: "sparse-soa-move-query-par",
        denominator: "bevy-sparse-par",
        max: 1.0,
    },
    Target {
        what: "parallel move system (positions first) vs its sequential form, 1,000,000",
        group: "systems_parallel/1000000",
        numerator: "sparse-soa-move-query-par",
        denominator: "sparse-soa-move-query",
        max: 1.0,
    },
    Target {
        what: "parallel move system (positions first) vs bevy's sparse-set par_iter, 1,000,000",
        group: "systems_parallel/1000000",
        numerator: "sparse-soa-move-query-par",
        denominator: "bevy-sparse-par",
        max: 1.0,
    },
    Target {
        what: "query.get vs bevy's QueryState::get (sparse sets)",
        group: "query_get/100000",
        numerator: "sparse-soa",
        denominator: "bevy-sparse",
        max: 1.0,
    },
    Target {
        what: "query.get vs bevy's QueryState::get (tables)",
        group: "query_get/100000",
        numerator: "sparse-soa",
        denominator: "bevy-table",
        max: 1.0,
    },
    Target {
        what: "clear + refill: key space 10,000,000 (full) or 100,000 (quick) vs 1,000",
        group: "clear_refill_1000_keys",
        numerator: "10000000",
        denominator: "1000",
        max: 1.25,
    },
    Target {
        what: "move journal on: remove all of 10,000 keys vs no observer",
        group: "events_remove/10000",
        numerator: "sparse-soa-journal",
        denominator: "sparse-soa",
        max: 1.2,
    },
    Target {
        what: "move journal on: remove all of 1,000,000 keys vs no observer",
        group: "events_remove/1000000",
        numerator: "sparse-soa-journal",
        denominator: "sparse-soa",
        max: 1.1,
    },
    Target {
        what: "move journal on: insert 100,000 keys vs no observer",
        group: "events_insert/100000",
        numerator: "sparse-soa-journal",
        denominator: "sparse-soa",
        max: 1.1,
    },
    Target {
        what: "change ticks on: streaming get_mut update vs no ticks",
        group: "ticks_update/100000",
        numerator: "sparse-soa-ticks",
        denominator: "sparse-soa",
        max: 1.3,
    },
    Target {
        what: "change ticks on: get_mut update in dense order vs no ticks",
        group: "ticks_update_in_order/100000",
        numerator: "sparse-soa-ticks",
        denominator: "sparse-soa",
        max: 1.3,
    },
    Target {
        what: "changed_since scan vs bevy's Query<Entity, Changed<T>>",
        group: "ticks_changed_scan/100000",
        numerator: "sparse-soa-ticks",
        denominator: "bevy-table",
        max: 0.5,
    },
    Target {
        what: "write-and-stamp loop over every row vs bevy's Mut<T> loop",
        group: "ticks_write_all/100000",
        numerator: "sparse-soa-ticks",
        denominator: "bevy-table",
        max: 1.0,
    },
];

/// The workloads in the order of the issue, with a sentence each.
const WORKLOADS: &[(&str, &str)] = &[
    (
        "insert_dense_asc",
        "Insert keys `0..n` in ascending order into an empty storage (value: `Position`, 12 bytes).",
    ),
    ("insert_random", "Insert a random permutation of `0..n`."),
    (
        "insert_step100_asc",
        "Insert `0, 100, 200, …` (n keys) ascending: a key space of 100·n. The flat arrays \
         (`bevy`, `vec-option`, `slotmap-secondary`) are not timed past a key space of \
         10,000,000 slots (`FLAT_KEY_SPACE`): at 1,000,000 keys one of their passes writes \
         0.8 to 1.6 GB of fresh memory. The memory table measures them.",
    ),
    ("insert_step100_desc", "The same keys, descending (the flat arrays as above)."),
    (
        "insert_step512_asc",
        "Insert `0, 512, 1024, …` (n keys) ascending: every key starts a sparse page. The flat \
         arrays are not timed (a key space of 51,200,000).",
    ),
    (
        "insert_step4096_asc",
        "Insert `0, 4096, 8192, …` (n keys) ascending: one key per eight pages. The flat arrays \
         are not timed (a key space of 409,600,000).",
    ),
    ("insert_string", "Insert a random permutation of `0..n` with a value that owns a `String`."),
    ("get_existing", "Look up every stored key (`0..n`) in random order, reading one field."),
    ("get_missing", "The even keys below 2n are stored; look up the odd ones in random order."),
    ("contains_existing", "`contains` for every stored key, random order."),
    ("contains_missing", "`contains` for absent keys between stored ones, random order."),
    (
        "get_missing_past_end",
        "Keys `0..n` are stored; look up `n..2n` (past the largest key) in random order.",
    ),
    ("contains_missing_past_end", "`contains` for keys past the largest stored key, random order."),
    (
        "get_missing_empty_page",
        "Every other 512-key page is full; look up keys in the empty pages, random order.",
    ),
    ("contains_missing_empty_page", "`contains` for keys in pages no key uses, random order."),
    (
        "get_missing_sparse_page",
        "Keys `0, 100, 200, …` are stored (about five per page); look up the keys halfway between.",
    ),
    (
        "contains_missing_sparse_page",
        "`contains` for absent keys in thinly used pages, random order.",
    ),
    (
        "get_entity",
        "`Entity`-keyed: look up every live entity in random order (every slot used twice, so generations differ), reading one field. `bevy-index-only` is keyed by the index alone, without a generation check.",
    ),
    ("contains_entity", "`contains` for every live entity, random order."),
    (
        "contains_entity_stale",
        "`contains` for the despawned first occupant of every slot: a stale handle, refused by its generation.",
    ),
    ("update", "`get_mut` every stored key in random order and write one field."),
    ("remove", "Remove every key of a full storage (`0..n`) in random order."),
    ("remove_string", "The same with a value that owns a `String`."),
    (
        "remove_with_info",
        "Remove every key in random order from an index with 1, 4 or 8 `f32` columns kept in lockstep.",
    ),
    ("iter_sum_f32", "Sum one `f32` column of n elements."),
    ("iter_sum_64b_field", "Sum the `x` field of n 64-byte components."),
    ("iter_x_plus_vx", "`x += vx` over n elements: one column into another."),
    ("iter_keys_and_column", "Visit every key with its `f32` value."),
    (
        "intersection_50pct",
        "Two storages of n keys sharing half of them: walk the common keys, reading both values.",
    ),
    ("intersection_1pct", "Two storages of n keys sharing 1% of them."),
    ("intersection_1to10", "n/10 keys against n keys that include them."),
    (
        "mixed",
        "n operations on a half-full storage, each uniformly insert, remove, get or contains of a key below n.",
    ),
    (
        "clear_refill_1000_keys",
        "Clear a storage, then insert the same 1,000 random keys again; the size in the group name is the key space.",
    ),
    (
        "systems_move",
        "The move system over n entities (each has a 3-`f32` position, half a velocity, a tenth are frozen; fixed seed): every unfrozen entity with a velocity moves. Per operation = per entity of the world. `sparse-soa` is a query (`for_each`), `sparse-soa-iter` its lending iterator, `sparse-soa-hand` the same storages walked by hand; bevy's queries over table and sparse-set components, shipyard's views, sparsey's `query_all`. `sparse-soa-std-iter` and `sparse-soa-sum` sum the moved positions through the std iterator and through `for_each`: equal work, to compare the two.",
    ),
    (
        "systems_move_inline",
        "The move system written inline in a frame function, as a game's main loop body, beside a second query summing velocities, a loop counting frozen entities, a frame counter and a short `Vec` of statistics. `sparse-soa-own-fn` calls the move system as a function of its own from the same frame.",
    ),
    (
        "systems_accelerate",
        "Three storages, two of them mutable: every entity with a position, a velocity and an acceleration (a quarter of them) gains the acceleration, then moves.",
    ),
    (
        "systems_grouped",
        "The move system over a `Group` of positions and velocities with frozen entities excluded: its aligned prefix is exactly the entities that move, walked as plain slices (`sparse-soa-group`: the group's iterator; `-columns`: its column slices zipped by hand). `vec-floor` is one plain `Vec<f32>` per field holding just the moving entities. Per operation = per entity of the world.",
    ),
    (
        "systems_parallel",
        "The grouped move system on 2 threads (rayon) beside our sequential walk; bevy's `par_iter_mut` over tables and shipyard's `par_iter` with 2 threads; `vec-floor-par` splits the plain columns in two halves with `rayon::join`, the best any split can do; `sparse-soa-query-par` is a parallel query over ungrouped storages (velocities drive, positions probed).",
    ),
    (
        "systems_parallel_compute",
        "A system that computes per entity (four rounds of a square root and a division) over the same group, sequential and on 2 threads.",
    ),
    (
        "systems_grouped_churn",
        "Insert a velocity for every entity (spawn order), or remove every velocity (random order), in a grouped storage (positions and velocities grouped, frozen excluded: each insert joins the aligned prefix and each remove leaves it) and in an ungrouped one. Per operation = per insert or remove.",
    ),
    (
        "systems_grouped_cycle",
        "Steady state: a random tenth of the entities lose their velocity and get it back, every iteration, in the grouped storage and in an ungrouped one. Per operation = per remove or insert.",
    ),
    (
        "churn_frame",
        "One frame over 100,000 live entities: despawn 10,000 at random, spawn 10,000 (per operation = per spawn or despawn).",
    ),
    (
        "spawn_rows",
        "Spawn n entities one by one into an empty world, each with 3 components (a 3-`f32` position, velocity and acceleration): `#[derive(World)]`'s `spawn` (`-grouped`: positions and velocities in a `Group`), bevy's `spawn` (table and sparse-set components), sparsey's `create`, shipyard's `add_entity`.",
    ),
    (
        "spawn_batch",
        "The same n entities through each crate's batch form: our `spawn_batch`, bevy's `spawn_batch`, sparsey's `extend` (`-grouped`: into a group of positions and velocities), shipyard's `bulk_add_entity`.",
    ),
    ("despawn_rows", "Despawn all n entities of a full world, in random order."),
    (
        "respawn_grouped",
        "Steady state on 100,000 live entities with positions and velocities grouped (ours a `Group`, sparsey's group, bevy's tables): each iteration despawns 10,000 random live entities and spawns 10,000 new ones. Per operation = per despawn or spawn.",
    ),
    (
        "respawn_nested",
        "The same steady state with accelerations in a group nested inside the group of positions and velocities (ours a `Nested` level, sparsey's family of `(Pos, Vel)` and `(Pos, Vel, Acc)`), against the flat group with accelerations beside it (`-flat`, `sparsey-grouped`) and one group of all three (`-wide`). Per operation = per despawn or spawn.",
    ),
    (
        "cycle_nested",
        "Steady state on 100,000 entities with all three components: a random tenth lose their acceleration and get it back, every iteration. The cost of one change to the nested level (`-nested`, `sparsey-nested`), to the third member of one wide group (`-wide`), or to an ungrouped storage. Per operation = per remove or insert.",
    ),
    (
        "respawn_deep",
        "`respawn_nested`'s steady state with a fourth component, a spin, in a level nested inside the accelerations' (ours a `Nested` level inside the `Nested` level, sparsey's family of `(Pos, Vel)`, `(Pos, Vel, Acc)` and `(Pos, Vel, Acc, Spin)`), against our two-level family with the spins beside it (`-nested-beside`). Per operation = per despawn or spawn.",
    ),
    (
        "cycle_deep",
        "Steady state on 100,000 entities with all four components: a random tenth lose their spin and get it back, every iteration. The cost of one change to the innermost of three levels (`-deep`, `sparsey-deep`), or to an ungrouped storage. Per operation = per remove or insert.",
    ),
    (
        "events_insert",
        "Insert n random keys into an empty `SparseMap<u32, Position>` with room for them: without an observer (`sparse-soa`), with a hook that counts its events (`-hook`), with a move journal (`-journal`, attached while the map was empty, its memory kept from the run before as frame after frame).",
    ),
    (
        "events_remove",
        "Remove every key of a full `SparseMap<u32, Position>` in random order, with the same observers and with removal events (`-removals`).",
    ),
    (
        "events_iterate",
        "Write every value through `values_mut` and sum a field, without an observer and with a journal (one `written` event per pass).",
    ),
    (
        "events_mirror",
        "One frame on 100,000 rows (1% of the keys leave and come back, 1% of the rows written through `get_mut`), then a `Vec` mirror catches up: from the journal's patch (`-journal-patch`) or by copying every row (`-full-upload`). Per operation = per row of the map.",
    ),
    (
        "ticks_update",
        "Change ticks: `get_mut` of every row in random order, one write each: a map without ticks, one with `Ticks` (each write stamps its row), and bevy's `Query::get_mut` by `Entity` over a table component.",
    ),
    (
        "ticks_update_in_order",
        "As `ticks_update`, with the rows visited in dense order: the values and the stamps are read as streams, and the stamp costs its store alone.",
    ),
    (
        "ticks_write_all",
        "Write every row through the value slice: ours stamps one summary tick, bevy's `Mut<T>` stamps each row.",
    ),
    (
        "ticks_changed_scan",
        "Find the 10% of rows changed since a tick: `changed_since` against bevy's `Query<Entity, Changed<T>>`. Per operation = per row scanned.",
    ),
];

fn format_ns(ns: f64) -> String {
    if ns >= 100.0 {
        format!("{ns:.0}")
    } else if ns >= 10.0 {
        format!("{ns:.1}")
    } else {
        format!("{ns:.2}")
    }
}

fn size_of_group(group: &str) -> u64 {
    group.rsplit('/').next().and_then(|size| size.parse().ok()).unwrap_or(0)
}

fn workload_tables(results: &Results, out: &mut String) {
    for &(workload, description) in WORKLOADS {
        let mut groups: Vec<(&String, &BTreeMap<String, f64>)> =
            results.iter().filter(|(group, _)| group.split('/').next() == Some(workload)).collect();
        if groups.is_empty() {
            continue;
        }
        groups.sort_by_key(|(group, _)| size_of_group(group));
        let _ = writeln!(out, "### `{workload}`\n\n{description}\n");
        for (group, functions) in groups {
            let reference = functions
                .get("sparse-soa")
                .or_else(|| functions.get("sparse-soa-1-field"))
                .or_else(|| functions.get("sparse-soa-group"))
                .or_else(|| functions.get("sparse-soa-grouped"))
                .or_else(|| functions.get("sparse-soa-nested"))
                .or_else(|| functions.get("sparse-soa-deep"))
                .copied();
            let _ = writeln!(out, "`{group}`\n");
            let _ = writeln!(
                out,
                "| contender | ns/op | contender time / sparse-soa time |\n|---|---:|---:|"
            );
            let mut rows: Vec<(&String, &f64)> = functions.iter().collect();
            rows.sort_by(|a, b| a.1.total_cmp(b.1));
            for (function, &ns) in rows {
                let ratio =
                    reference.map_or_else(|| "–".to_owned(), |base| format!("{:.2}", ns / base));
                let name = if function.starts_with("sparse-soa") {
                    format!("**{function}**")
                } else {
                    function.clone()
                };
                let _ = writeln!(out, "| {name} | {} | {ratio} |", format_ns(ns));
            }
            out.push('\n');
        }
    }
}

/// Panics if two targets share a label: the table would show two rows a reader cannot tell apart.
fn check_labels() {
    let twice = TARGETS.iter().enumerate().find_map(|(i, target)| {
        TARGETS[..i].iter().any(|earlier| earlier.what == target.what).then_some(target.what)
    });
    if let Some(what) = twice {
        panic!("two targets are labelled {what:?}: add what tells them apart (a size, a peer)");
    }
}

fn target_table(results: &Results, out: &mut String) -> (usize, usize) {
    let _ = writeln!(out, "| target | measured | limit | |\n|---|---:|---:|---|");
    let (mut met, mut total) = (0, 0);
    for target in TARGETS {
        let ratio = if target.group == "clear_refill_1000_keys" {
            let of = |space: &str| {
                results.get(&format!("{}/{space}", target.group))?.get("sparse-soa").copied()
            };
            of(target.numerator)
                .or_else(|| of("100000"))
                .zip(of(target.denominator))
                .map(|(a, b)| a / b)
        } else {
            results.get(target.group).and_then(|functions| {
                Some(functions.get(target.numerator)? / functions.get(target.denominator)?)
            })
        };
        let (measured, verdict) = match ratio {
            Some(ratio) => {
                total += 1;
                if ratio <= target.max {
                    met += 1;
                    (format!("{ratio:.3}"), "met")
                } else {
                    (format!("{ratio:.3}"), "**missed**")
                }
            }
            None => ("not run".to_owned(), "–"),
        };
        let _ = writeln!(out, "| {} | {measured} | {} | {verdict} |", target.what, target.max);
    }
    out.push('\n');
    (met, total)
}

/// Contender, live elements, bytes (`None`: not measurable).
type MemoryRow = (String, usize, Option<usize>);

fn memory_table(dir: &Path, out: &mut String) {
    let Ok(text) = fs::read_to_string(dir.join("memory.tsv")) else {
        out.push_str("Not measured in this run.\n\n");
        return;
    };
    let mut by_pattern: BTreeMap<usize, (String, Vec<MemoryRow>)> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [pattern, contender, elements, bytes] = fields.as_slice() else { continue };
        let index = order.iter().position(|p| p == pattern).unwrap_or_else(|| {
            order.push((*pattern).to_owned());
            order.len() - 1
        });
        by_pattern.entry(index).or_insert_with(|| ((*pattern).to_owned(), Vec::new())).1.push((
            (*contender).to_owned(),
            elements.parse().unwrap_or(0),
            bytes.parse().ok(),
        ));
    }
    for (pattern, rows) in by_pattern.values() {
        let _ = writeln!(
            out,
            "**{pattern}**\n\n| contender | live elements | bytes | bytes per element |\n|---|---:|---:|---:|"
        );
        for (contender, elements, bytes) in rows {
            let (bytes, per) = match bytes {
                Some(bytes) => {
                    (bytes.to_string(), format!("{:.1}", *bytes as f64 / (*elements).max(1) as f64))
                }
                None => ("n/a".to_owned(), "n/a".to_owned()),
            };
            let name = if contender.starts_with("sparse-soa") {
                format!("**{contender}**")
            } else {
                contender.clone()
            };
            let _ = writeln!(out, "| {name} | {elements} | {bytes} | {per} |");
        }
        out.push('\n');
    }
}

fn compile_table(dir: &Path, out: &mut String) {
    let Ok(text) = fs::read_to_string(dir.join("compile.tsv")) else {
        out.push_str("Not measured in this run (`benches/run.sh full` measures it).\n\n");
        return;
    };
    out.push_str("| crate (50 derived structs) | clean build, s | rebuild after touching the file, s |\n|---|---:|---:|\n");
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        if let [name, clean, touched] = fields.as_slice() {
            let _ = writeln!(out, "| {name} | {clean} | {touched} |");
        }
    }
    out.push('\n');
}

/// The workloads and contenders the chart shows.
const CHART_GROUPS: &[(&str, &str)] = &[
    ("get_existing/100000", "get"),
    ("contains_existing/100000", "contains"),
    ("update/100000", "update"),
    ("insert_dense_asc/100000", "insert dense"),
    ("insert_step100_asc/100000", "insert step 100"),
    ("remove/100000", "remove"),
    ("intersection_50pct/100000", "intersect 50%"),
    ("mixed/100000", "mixed"),
];
const CHART_CONTENDERS: &[(&str, RGBColor)] = &[
    ("sparse-soa", RGBColor(214, 39, 40)),
    ("bevy", RGBColor(31, 119, 180)),
    ("fxhashmap", RGBColor(44, 160, 44)),
    ("std-hashmap", RGBColor(148, 103, 189)),
    ("btreemap", RGBColor(255, 127, 14)),
];

fn chart(results: &Results, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let root = SVGBackend::new(path, (960, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let groups = CHART_GROUPS.len();
    let bars = CHART_CONTENDERS.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "ns per operation, 100,000 elements (log scale, lower is better)",
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..groups as f64, (0.3_f64..300.0).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(groups * 2 + 1)
        .x_label_formatter(&|x| {
            let index = (x - 0.5).round();
            let at_centre = (x - 0.5 - index).abs() < 1e-6;
            match CHART_GROUPS
                .iter()
                .enumerate()
                .find(|&(i, _)| at_centre && (i as f64 - index).abs() < 0.5)
            {
                Some((_, (_, label))) => (*label).to_owned(),
                None => String::new(),
            }
        })
        .y_desc("ns/op")
        .draw()?;
    let width = 0.8 / bars as f64;
    for (bar, &(contender, color)) in CHART_CONTENDERS.iter().enumerate() {
        let rects: Vec<Rectangle<(f64, f64)>> = CHART_GROUPS
            .iter()
            .enumerate()
            .filter_map(|(index, (group, _))| {
                let ns = *results.get(*group)?.get(contender)?;
                let left = index as f64 + 0.1 + bar as f64 * width;
                Some(Rectangle::new(
                    [(left, 0.3), (left + width * 0.9, ns.clamp(0.3, 300.0))],
                    color.filled(),
                ))
            })
            .collect();
        chart
            .draw_series(rects)?
            .label(contender)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let criterion = PathBuf::from(args.first().map_or("target/criterion", String::as_str));
    let page = PathBuf::from(args.get(1).map_or("BENCHMARKS.md", String::as_str));
    let chart_path = PathBuf::from(args.get(2).map_or("benches/results/chart.svg", String::as_str));
    let extra = criterion.join("sparse-soa");
    check_labels();

    let mut results = Results::new();
    collect(&criterion, &mut results);
    assert!(!results.is_empty(), "no criterion results under {}", criterion.display());

    if let Err(error) = chart(&results, &chart_path) {
        panic!("cannot draw {}: {error}", chart_path.display());
    }
    let notes = fs::read_to_string(extra.join("run.txt")).unwrap_or_default();
    let chart_link = pathdiff(&chart_path, page.parent().unwrap_or(Path::new(".")));
    let mut out = String::new();
    out.push_str("# Benchmarks\n\n");
    out.push_str(
        "Generated by `benches/run.sh` from one run of the criterion suite in `benches/`: every\n",
    );
    out.push_str(
        "contender measured side by side in the same process, same keys, same seed. Smaller is\n",
    );
    out.push_str("better; a ratio above 1 means the contender is slower than sparse-soa.\n\n");
    let _ = writeln!(out, "![ns per operation]({chart_link})\n");
    out.push_str("## The run\n\n");
    if notes.is_empty() {
        out.push_str("No run notes found.\n\n");
    } else {
        let _ = writeln!(out, "```text\n{}\n```\n", notes.trim_end());
        let busy = notes
            .lines()
            .filter(|line| line.starts_with("load"))
            .filter_map(|line| {
                line.split(':').nth(1)?.split_whitespace().next()?.parse::<f64>().ok()
            })
            .fold(0.0_f64, f64::max);
        if busy >= 0.5 {
            let _ = writeln!(
                out,
                "The machine was not quiet during this run (1-minute load up to {busy:.2} on 2 cores, \
                 the benchmark's own thread included): single numbers can be off by tens of percent; \
                 ratios within one group were measured seconds apart and are more robust. Rerun on a \
                 quiet machine before quoting a number.\n"
            );
        }
    }
    out.push_str("## How to run\n\n");
    out.push_str("```sh\nbenches/run.sh quick   # 100,000 elements (lookups also 1,000,000), short measurements: about 12 minutes on 2 cores\n");
    out.push_str("benches/run.sh full    # adds the 1,000,000-element sizes and the compile-time report\n```\n\n");
    out.push_str(
        "Both regenerate this page and the chart. `benches/README.md` names every group and\n",
    );
    out.push_str("contender, for scripts that read `target/criterion/` directly.\n\n");
    out.push_str("## Targets\n\nRatio = sparse-soa time / peer time, from the run above.\n\n");
    let (met, total) = target_table(&results, &mut out);
    let _ = writeln!(out, "{met} of {total} measured targets met.\n");
    // The hand-written explanation of missed targets, kept beside the benches.
    let analysis = page.parent().unwrap_or(Path::new(".")).join("benches/ANALYSIS.md");
    if let Ok(text) = fs::read_to_string(&analysis) {
        let _ = writeln!(out, "{}\n", text.trim_end());
    }
    out.push_str("## Time per operation\n\n");
    workload_tables(&results, &mut out);
    out.push_str("## Memory\n\nHeap bytes held after building the storage (`Position` values, 12 bytes), counted by a\n");
    out.push_str("global allocator in the `memory` bench. `n/a`: the contender cannot hold the keys (slotmap\n");
    out.push_str("reserves slot `u32::MAX`; flat arrays would need tens of GiB) or has no `shrink_to_fit`.\n\n");
    memory_table(&extra, &mut out);
    out.push_str("## Compile time\n\n");
    compile_table(&extra, &mut out);
    // The hand-written measurements of the test command (`cargo test --workspace`), kept beside
    // the benches: they come from timing the build, not from criterion.
    let test_command = page.parent().unwrap_or(Path::new(".")).join("benches/TEST_COMMAND.md");
    if let Ok(text) = fs::read_to_string(&test_command) {
        let _ = writeln!(out, "{}", text.trim_end());
    }
    fs::write(&page, out)
        .unwrap_or_else(|error| panic!("cannot write {}: {error}", page.display()));
    println!("wrote {} and {} ({met}/{total} targets met)", page.display(), chart_path.display());
}

/// `path` relative to `base` when it lies under it; otherwise `path` unchanged.
fn pathdiff(path: &Path, base: &Path) -> String {
    let base = if base.as_os_str().is_empty() { Path::new(".") } else { base };
    match (path.canonicalize(), base.canonicalize()) {
        (Ok(path), Ok(base)) => path
            .strip_prefix(&base)
            .map_or_else(|_| path.display().to_string(), |relative| relative.display().to_string()),
        _ => path.display().to_string(),
    }
}
