//! Drop counting and panicking fields: whatever panics (a field's `Drop` or `Clone`, a
//! comparator, a `retain` predicate), nothing is dropped twice, nothing leaks, and every column
//! keeps the length of the key slice.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use sparse_soa::{SparseSoa, Storage};

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static DROPPED: RefCell<BTreeSet<u64>> = const { RefCell::new(BTreeSet::new()) };
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
}

/// A value that counts itself, notices a second drop, and panics on demand. Equal by label.
#[derive(Debug)]
struct Tracked {
    id: u64,
    label: u32,
    panic_on_drop: bool,
    panic_on_clone: bool,
}

impl Tracked {
    fn new(label: u32) -> Self {
        LIVE.with(|live| live.set(live.get() + 1));
        let id = NEXT_ID.with(|next| {
            next.set(next.get() + 1);
            next.get()
        });
        Tracked { id, label, panic_on_drop: false, panic_on_clone: false }
    }
}

impl PartialEq for Tracked {
    fn eq(&self, other: &Self) -> bool {
        self.label == other.label
    }
}

impl Clone for Tracked {
    fn clone(&self) -> Self {
        assert!(!self.panic_on_clone, "clone of {} panics", self.label);
        Tracked::new(self.label)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let first = DROPPED.with(|dropped| dropped.borrow_mut().insert(self.id));
        assert!(first, "{} dropped twice", self.id);
        LIVE.with(|live| live.set(live.get() - 1));
        assert!(!self.panic_on_drop || std::thread::panicking(), "drop of {} panics", self.label);
    }
}

fn live() -> usize {
    LIVE.with(Cell::get)
}

#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Row {
    a: Tracked,
    name: String,
    b: Tracked,
}

fn row(label: u32) -> Row {
    Row { a: Tracked::new(label), name: label.to_string(), b: Tracked::new(label + 1000) }
}

/// Keys 0..n, each row labelled by its key; `bomb` (if any) panics when its `a` is dropped or
/// cloned.
fn storage(n: u32, bomb: Option<u32>, on_clone: bool) -> RowSoa {
    let mut rows = RowSoa::new();
    for key in 0..n {
        let mut value = row(key);
        if bomb == Some(key) {
            value.a.panic_on_drop = !on_clone;
            value.a.panic_on_clone = on_clone;
        }
        rows.insert(key, value);
    }
    rows
}

/// Every key's row still belongs to it.
fn assert_rows_match_keys(rows: &RowSoa) {
    rows.assert_invariants();
    for (key, value) in rows {
        assert_eq!(value.a.label, key);
        assert_eq!(value.b.label, key + 1000);
        assert_eq!(*value.name, key.to_string());
    }
}

#[test]
fn ordinary_use_neither_leaks_nor_double_drops() {
    let before = live();
    {
        let mut rows = storage(10, None, false);
        assert_eq!(live(), before + 20);
        drop(rows.remove(3));
        drop(rows.insert(4, row(4)));
        drop(rows.insert(4, row(4)));
        rows.retain(|key, _| key % 2 == 0);
        rows.sort_by(|a, _, b, _| b.cmp(a));
        assert_eq!(rows.keys(), &[8, 6, 4, 2, 0]);
        assert_rows_match_keys(&rows);
        assert_eq!(rows.drain().take(2).count(), 2);
        let mut rows = storage(5, None, false);
        rows.truncate(2);
        assert_rows_match_keys(&rows);
        let copy = rows.clone();
        assert_eq!(copy, rows);
        drop(copy.into_iter().next());
        rows.clear();
        assert!(rows.is_empty());
    }
    assert_eq!(live(), before);
}

#[test]
fn panicking_drop_in_clear_still_clears_every_column() {
    let before = live();
    let mut rows = storage(6, Some(2), false);
    let result = catch_unwind(AssertUnwindSafe(|| rows.clear()));
    assert!(result.is_err());
    assert!(rows.is_empty());
    assert!(rows.a().is_empty() && rows.name().is_empty() && rows.b().is_empty());
    assert_rows_match_keys(&rows);
    drop(rows);
    assert_eq!(live(), before);
}

#[test]
fn panicking_drop_in_retain_keeps_the_kept_rows() {
    let before = live();
    let mut rows = storage(8, Some(3), false);
    let result = catch_unwind(AssertUnwindSafe(|| rows.retain(|key, _| key % 2 == 0)));
    assert!(result.is_err());
    assert_eq!(rows.keys(), &[0, 2, 4, 6]);
    assert_rows_match_keys(&rows);
    drop(rows);
    assert_eq!(live(), before);
}

#[test]
fn panicking_drop_in_truncate_truncates_every_column() {
    let before = live();
    let mut rows = storage(5, Some(3), false);
    let result = catch_unwind(AssertUnwindSafe(|| rows.truncate(2)));
    assert!(result.is_err());
    assert_eq!(rows.keys(), &[0, 1]);
    assert_rows_match_keys(&rows);
    drop(rows);
    assert_eq!(live(), before);
}

#[test]
fn panicking_drop_of_a_drained_row_leaves_the_storage_empty() {
    let before = live();
    let mut rows = storage(5, Some(3), false);
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut drain = rows.drain();
        drain.next();
        drop(drain); // drops rows 1..5, row 3 panics
    }));
    assert!(result.is_err());
    assert!(rows.is_empty());
    assert_rows_match_keys(&rows);
    rows.insert(9, row(9));
    assert_rows_match_keys(&rows);
    drop(rows);
    assert_eq!(live(), before);
}

#[test]
fn panicking_drop_of_the_whole_storage_drops_the_rest() {
    let before = live();
    let rows = storage(5, Some(1), false);
    assert!(catch_unwind(AssertUnwindSafe(|| drop(rows))).is_err());
    assert_eq!(live(), before);
}

#[test]
fn panicking_drop_of_a_returned_row_happens_outside_the_storage() {
    let before = live();
    let mut rows = storage(4, Some(0), false);
    // `remove` hands the row out; it panics only when the caller drops it.
    assert!(catch_unwind(AssertUnwindSafe(|| drop(rows.remove(0)))).is_err());
    assert_eq!(rows.keys(), &[3, 1, 2]);
    assert_rows_match_keys(&rows);
    drop(rows);
    assert_eq!(live(), before);
}

#[test]
fn panicking_clone_leaves_the_original_untouched() {
    let before = live();
    let rows = storage(5, Some(3), true);
    let result = catch_unwind(AssertUnwindSafe(|| rows.clone()));
    assert!(result.is_err());
    assert_eq!(rows.keys(), &[0, 1, 2, 3, 4]);
    assert_rows_match_keys(&rows);
    assert_eq!(live(), before + 10);
    drop(rows);
    assert_eq!(live(), before);
}

#[test]
fn panicking_comparator_moves_nothing() {
    let before = live();
    let mut rows = storage(6, None, false);
    let mut calls = 0;
    let result = catch_unwind(AssertUnwindSafe(|| {
        rows.sort_by(|a, _, b, _| {
            calls += 1;
            assert!(calls < 4, "comparator panics");
            b.cmp(a)
        });
    }));
    assert!(result.is_err());
    assert_eq!(rows.keys(), &[0, 1, 2, 3, 4, 5]);
    assert_rows_match_keys(&rows);

    let result = catch_unwind(AssertUnwindSafe(|| {
        rows.sort_by_key(|&key, _| -> u32 { panic!("key {key}") });
    }));
    assert!(result.is_err());
    assert_eq!(rows.keys(), &[0, 1, 2, 3, 4, 5]);
    assert_rows_match_keys(&rows);
    drop(rows);
    assert_eq!(live(), before);
}

#[test]
fn panicking_retain_predicate_removes_nothing() {
    let before = live();
    let mut rows = storage(6, None, false);
    let result = catch_unwind(AssertUnwindSafe(|| {
        rows.retain(|key, _| {
            assert!(key != 4, "predicate panics");
            key % 2 == 0
        });
    }));
    assert!(result.is_err());
    assert_eq!(rows.len(), 6);
    assert_rows_match_keys(&rows);
    drop(rows);
    assert_eq!(live(), before);
}
