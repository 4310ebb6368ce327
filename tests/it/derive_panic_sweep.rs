//! Panic safety at every step for a derived storage: every mutating call runs once per counted
//! call it makes (a field's `Clone` or `Drop`, a comparison, a predicate, an iterator step),
//! with that call panicking ([`sweep`]). After each run the invariant checker passes, every
//! column has the keys' length, every row is still its key's, nothing was dropped twice and,
//! once the storage is dropped, nothing is left alive.
//!
//! A storage with a journal and a tracked field is swept too: its field ticks and its journal
//! stay in lockstep with the rows.
//!
//! Run with `--nocapture` to see how many calls each sweep reached.

use sparse_soa::{SparseSoa, Storage};
use sparse_soa_test_support::keys::OrdKey;
use sparse_soa_test_support::panics::{Ticking, Tracked, compare, reached, sweep, tick};

/// Rows per storage: past the in-place sort's insertion-sort threshold (16); under miri, fewer
/// (every sweep still reaches every call).
const LEN: u32 = if cfg!(miri) { 10 } else { 40 };

/// Two counted fields around one that is not (a `String`, which allocates when cloned).
#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = OrdKey)]
struct Row {
    a: Tracked,
    name: String,
    b: Tracked,
}

fn row(key: u32) -> Row {
    Row { a: Tracked::new(key), name: key.to_string(), b: Tracked::new(key + 1000) }
}

/// Keys `0..LEN` in a scrambled order, so that sorts have work.
fn rows() -> RowSoa {
    (0..LEN).map(|i| (i * 7 + 3) % LEN).map(|key| (OrdKey(key), row(key))).collect()
}

/// The storage is consistent, every column has the keys' length, every row is its key's.
fn check(rows: &RowSoa, _: bool) {
    Storage::assert_invariants(rows);
    let len = rows.keys().len();
    assert_eq!((rows.a().len(), rows.name().len(), rows.b().len()), (len, len, len));
    for (OrdKey(key), row) in rows {
        assert_eq!((row.a.label, row.b.label), (key, key + 1000), "row of {key} moved");
        assert_eq!(*row.name, key.to_string());
    }
}

/// A call on the storage.
type Op = fn(&mut RowSoa);

/// Each counted row is two counted values.
const PER_ROW: usize = 2;

#[test]
fn overwrites_and_removals_hand_rows_out_whole() {
    let ops: [(&str, Op); 8] = [
        ("insert over a row", |rows| drop(rows.insert(OrdKey(3), row(3)))),
        ("insert_full over a row", |rows| drop(rows.insert_full(OrdKey(4), row(4)))),
        ("try_insert over a row", |rows| drop(rows.try_insert(OrdKey(5), row(5)))),
        ("Storage::insert over a row", |rows| drop(Storage::insert(rows, OrdKey(6), row(6)))),
        ("remove", |rows| drop(rows.remove(OrdKey(7)))),
        ("remove_with_info", |rows| drop(rows.remove_with_info(OrdKey(7)))),
        ("swap_remove_index", |rows| drop(rows.swap_remove_index(1))),
        ("pop", |rows| drop(rows.pop())),
    ];
    for (name, op) in ops {
        assert_eq!(reached(name, sweep(rows, op, check)), PER_ROW, "{name}");
    }
}

#[test]
fn retain_drain_clear_and_truncate() {
    let removed = (0..LEN).filter(|key| key % 3 == 0).count();
    let calls = sweep(
        rows,
        |rows| {
            rows.retain(|OrdKey(key), _| {
                tick("a predicate");
                key % 3 != 0
            });
        },
        check,
    );
    assert_eq!(reached("retain", calls), LEN as usize + PER_ROW * removed);
    let calls = sweep(
        rows,
        |rows| {
            let mut drain = rows.drain();
            drop(drain.next());
            drop(drain.next());
            drop(drain);
        },
        |rows, panicked| {
            check(rows, panicked);
            assert!(rows.is_empty(), "a drain empties the storage whatever happens");
        },
    );
    assert_eq!(reached("drain", calls), PER_ROW * LEN as usize);
    let calls = sweep(rows, RowSoa::clear, |rows, panicked| {
        check(rows, panicked);
        assert!(rows.is_empty());
    });
    assert_eq!(reached("clear", calls), PER_ROW * LEN as usize);
    let calls = sweep(
        rows,
        |rows| rows.truncate(5),
        |rows, panicked| {
            check(rows, panicked);
            assert_eq!(rows.len(), 5);
        },
    );
    assert_eq!(reached("truncate", calls), PER_ROW * (LEN as usize - 5));
}

#[test]
fn stable_sorts_leave_the_storage_unchanged_when_they_panic() {
    let before = rows().keys().to_vec();
    let unchanged = |rows: &RowSoa, panicked: bool| {
        check(rows, panicked);
        if panicked {
            assert_eq!(rows.keys(), before.as_slice(), "documented: nothing moves");
        } else {
            // Both sorts order by the label modulo 5, which is the key's (see `check`).
            assert!(rows.keys().is_sorted_by_key(|OrdKey(key)| key % 5));
        }
    };
    let calls = sweep(
        rows,
        |rows| rows.sort_by(|_, a, _, b| compare(&(a.a.label % 5), &(b.a.label % 5))),
        unchanged,
    );
    assert!(reached("sort_by", calls) >= LEN as usize - 1);
    let calls = sweep(
        rows,
        |rows| {
            rows.sort_by_key(|_, row| {
                tick("a sort key");
                row.b.label % 5
            });
        },
        unchanged,
    );
    assert!(reached("sort_by_key", calls) >= LEN as usize);
}

#[test]
fn unstable_sorts_keep_every_row_whole_when_they_panic() {
    let calls = sweep(
        rows,
        |rows| rows.sort_unstable_by(|_, a, _, b| compare(&b.a.label, &a.a.label)),
        |rows, panicked| {
            check(rows, panicked);
            assert!(panicked || rows.keys().is_sorted_by(|a, b| a.0 >= b.0));
        },
    );
    assert!(reached("sort_unstable_by", calls) >= LEN as usize - 1);
    let calls = sweep(rows, RowSoa::sort_keys, |rows, panicked| {
        check(rows, panicked);
        assert!(panicked || rows.keys().is_sorted_by(|a, b| a.0 <= b.0));
    });
    assert!(reached("sort_keys", calls) >= LEN as usize - 1);
}

#[test]
fn a_clone_whose_field_clone_panics_drops_what_it_made() {
    for (name, op) in [
        ("clone", (|rows| check(&rows.clone(), false)) as Op),
        ("try_clone", |rows| check(&rows.try_clone().unwrap(), false)),
    ] {
        let calls = sweep(rows, op, check);
        assert_eq!(reached(name, calls), 2 * PER_ROW * LEN as usize, "clones, then drops");
    }
}

#[test]
fn extend_with_a_panicking_iterator_and_rows_that_panic_later() {
    // Half the pairs overwrite held keys (the old rows are dropped then), half are new.
    let pairs = || -> Vec<(OrdKey, Row)> {
        (LEN / 2..LEN + LEN / 2).map(|key| (OrdKey(key), row(key))).collect()
    };
    let calls = sweep(
        || (rows(), pairs()),
        |(rows, pairs)| rows.extend(Ticking(std::mem::take(pairs).into_iter())),
        |(rows, _), panicked| check(rows, panicked),
    );
    let steps = LEN as usize + 1;
    assert_eq!(reached("extend", calls), steps + PER_ROW * LEN as usize / 2);
    let calls = sweep(
        pairs,
        |pairs| check(&Ticking(std::mem::take(pairs).into_iter()).collect(), false),
        |_, _| {},
    );
    assert_eq!(reached("from_iter", calls), steps + PER_ROW * LEN as usize);
}

/// A storage with a journal and a tracked field: the field ticks and the journal stay in
/// lockstep with the rows whatever panics.
#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = OrdKey)]
struct Watched {
    #[sparse_soa(track)]
    a: Tracked,
    b: Tracked,
}

type WatchedRows = WatchedSoa<sparse_soa::observe::Journal<OrdKey>>;

fn watched() -> WatchedRows {
    let mut rows = WatchedSoa::with_observer(sparse_soa::observe::Journal::new());
    for key in (0..LEN).map(|i| (i * 7 + 3) % LEN) {
        rows.insert(OrdKey(key), Watched { a: Tracked::new(key), b: Tracked::new(key + 1000) });
    }
    rows
}

/// Consistent, every row its key's, the ticks one per row, and the journal, replayed from an
/// empty mirror, gives the keys.
fn check_watched(rows: &WatchedRows, _: bool) {
    Storage::assert_invariants(rows);
    rows.ticks().assert_invariants(rows.len());
    for (OrdKey(key), row) in rows {
        assert_eq!((row.a.label, row.b.label), (key, key + 1000), "row of {key} moved");
    }
    let mirror = sparse_soa_test_support::mirror::replay_keys(Vec::new(), rows.observer());
    assert_eq!(mirror.as_deref(), Some(rows.keys()), "the journal follows the rows");
}

#[test]
fn an_observed_tracked_storage_keeps_its_events_in_lockstep() {
    type WatchedOp = fn(&mut WatchedRows);
    let ops: [(&str, WatchedOp); 10] = [
        ("insert over a row", |rows| {
            drop(rows.insert(OrdKey(3), Watched { a: Tracked::new(3), b: Tracked::new(1003) }));
        }),
        ("remove", |rows| drop(rows.remove(OrdKey(7)))),
        ("swap_remove_index", |rows| drop(rows.swap_remove_index(1))),
        ("pop", |rows| drop(rows.pop())),
        ("retain", |rows| {
            rows.retain(|OrdKey(key), _| {
                tick("a predicate");
                key % 3 != 0
            });
        }),
        ("drain", |rows| {
            let mut drain = rows.drain();
            drop(drain.next());
            drop(drain);
        }),
        ("clear", WatchedRows::clear),
        ("truncate", |rows| rows.truncate(5)),
        ("sort_by", |rows| rows.sort_by(|_, a, _, b| compare(&(a.a.label % 5), &(b.a.label % 5)))),
        ("sort_unstable_by", |rows| {
            rows.sort_unstable_by(|_, a, _, b| compare(&b.a.label, &a.a.label));
        }),
    ];
    for (name, op) in ops {
        assert!(reached(name, sweep(watched, op, check_watched)) > 0, "{name}");
    }
}
