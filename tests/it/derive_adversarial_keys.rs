//! Adversarial `Key` implementations in derived storages: whatever the key does wrong (see
//! "Implementing `Key` wrongly" in the `Key` docs), every column keeps the length of the key
//! slice, no value is dropped twice, none leaks, and no call loops forever. The core's
//! `adversarial_keys` tests pin the same for sets, maps and groups, call by call.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use sparse_soa::SparseSoa;
use sparse_soa_test_support::keys::{Drifting, Liar, Stream, Twin};
use sparse_soa_test_support::panics::{Tracked, dropped_twice, live};

const STEPS: usize = if cfg!(miri) { 100 } else { 3_000 };

/// A derived storage keyed by `$key`, and a random workload of its calls, each caught if it
/// panics; returns the calls that panicked. After every call every column has the keys'
/// length and no value was dropped twice; at the end nothing is left alive.
macro_rules! workload {
    ($name:ident, $row:ident, $storage:ident, $key:ty, $make:expr) => {
        #[derive(SparseSoa, Clone, Debug)]
        #[sparse_soa(key = $key)]
        struct $row {
            a: Tracked,
            n: u32,
            b: Tracked,
        }

        fn $name() -> BTreeSet<&'static str> {
            let key = $make;
            let row = |n: u32| $row { a: Tracked::new(n), n, b: Tracked::new(n) };
            let before = live();
            let mut stream = Stream(7);
            let mut rows = $storage::new();
            let mut panicked = BTreeSet::new();
            for _ in 0..STEPS {
                let (k, k2) = (key(stream.next(40)), key(stream.next(40)));
                let (name, result): (&'static str, _) = match stream.next(12) {
                    0..=2 => (
                        "insert",
                        catch_unwind(AssertUnwindSafe(|| {
                            drop(rows.insert(k, row(1)));
                            drop(rows.try_insert(k2, row(2)));
                        })),
                    ),
                    3 | 4 => (
                        "remove",
                        catch_unwind(AssertUnwindSafe(|| {
                            drop(rows.remove(k));
                            drop(rows.swap_remove_index(3));
                            drop(rows.pop());
                        })),
                    ),
                    5 | 6 => (
                        "lookups",
                        catch_unwind(AssertUnwindSafe(|| {
                            _ = (rows.contains_key(k), rows.get_index_of(k2));
                            if let Some(row) = rows.get_mut(k) {
                                *row.n += 1;
                            }
                            _ = rows.get(k2).map(|row| *row.n);
                        })),
                    ),
                    7 => (
                        "retain, truncate",
                        catch_unwind(AssertUnwindSafe(|| {
                            rows.retain(|_, row| *row.n % 5 != 0);
                            rows.truncate(30);
                        })),
                    ),
                    8 => (
                        "sorts",
                        catch_unwind(AssertUnwindSafe(|| {
                            rows.sort_unstable_by(|a, _, b, _| a.cmp(b));
                            rows.sort_by(|a, _, b, _| b.cmp(a));
                            rows.sort_keys();
                        })),
                    ),
                    9 => (
                        "swap_indices, sort_as",
                        catch_unwind(AssertUnwindSafe(|| {
                            if rows.len() >= 2 {
                                rows.swap_indices(0, rows.len() - 1);
                            }
                            rows.sort_as(&[k, k2]);
                        })),
                    ),
                    10 => (
                        "clone, extend",
                        catch_unwind(AssertUnwindSafe(|| {
                            let copy = rows.clone();
                            assert_eq!(copy.a().len(), copy.keys().len());
                            rows.extend([(k, row(3)), (k2, row(4))]);
                            rows.shrink_to_fit();
                        })),
                    ),
                    _ => (
                        "drain",
                        catch_unwind(AssertUnwindSafe(|| {
                            if stream.next(10) == 0 {
                                rows.drain().take(3).for_each(drop);
                            }
                        })),
                    ),
                };
                if result.is_err() {
                    panicked.insert(name);
                }
                let len = rows.keys().len();
                assert_eq!((rows.a().len(), rows.n().len(), rows.b().len()), (len, len, len));
                assert_eq!(live() - before, 2 * len, "a value leaked in {name}");
                assert_eq!(dropped_twice(), 0);
            }
            drop(rows);
            assert_eq!(live(), before);
            panicked
        }
    };
}

workload!(liar, LiarRow, LiarRowSoa, Liar, Liar);
workload!(twin, TwinRow, TwinRowSoa, Twin, Twin);
workload!(drifting, DriftingRow, DriftingRowSoa, Drifting<false, false>, Drifting::<false, false>);
workload!(
    drifting_liar,
    DriftingLiarRow,
    DriftingLiarRowSoa,
    Drifting<true, true>,
    Drifting::<true, true>
);

#[test]
fn a_lying_slot_is_key_panics_in_lookups_with_debug_assertions_only() {
    let panicked = liar();
    let lookups = BTreeSet::from(["lookups", "swap_indices, sort_as"]);
    assert!(panicked.is_subset(&lookups), "{panicked:?}");
    assert_eq!(!panicked.is_empty(), cfg!(debug_assertions));
}

#[test]
fn a_lying_slot_and_version_are_key_never_panics() {
    assert_eq!(twin(), BTreeSet::new());
}

#[test]
fn a_nondeterministic_sparse_index_panics_nowhere() {
    assert_eq!(drifting(), BTreeSet::new());
}

#[test]
fn a_nondeterministic_sparse_index_with_lying_claims_panics_only_where_it_indexes() {
    let panicked = drifting_liar();
    // Lookups (with debug assertions), and a derived storage's `get` and `sort_as`, which
    // index the columns with the position found; inserts, removals, retain, sorts never.
    let allowed = BTreeSet::from(["lookups", "swap_indices, sort_as"]);
    assert!(panicked.is_subset(&allowed), "{panicked:?}");
}
