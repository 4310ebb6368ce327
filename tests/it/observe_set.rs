//! Change events of a `SparseSet` (a tag with an observer), checked from the outside after
//! every step of random operations, as the map's are (`observe.rs`):
//!
//! - a hook recorder, which rebuilds the keys from the events alone, equals the set;
//! - a `Vec` of the keys replayed through the journal's ordered changes equals `as_slice()`,
//!   and a journal with a small limit asks for a resync exactly when the same operations,
//!   recorded without a limit, take more bytes than it;
//! - `Removals` holds exactly the keys that left;
//! - a column the caller keeps beside the set follows its retains and sorts.
//!
//! By hand: `size_of` without an observer, a newer generation replacing an older key, a sort
//! reported as one permutation, a panicking hook, a bounded set whose bounded journal never
//! allocates, change ticks, and moving between observers.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use proptest::prelude::*;
use sparse_soa::observe::{Change, Journal, Observed, Observer, Removals, Ticks};
use sparse_soa::{Entities, Entity, Permutation, Removed, SparseSet};
use sparse_soa_test_support::mirror::{Recorder, replay_keys};
use sparse_soa_test_support::{allocations_during, model};

/// The observers every case attaches: a journal with a small limit, its twin without one, the
/// recorder, and the removals.
type Observers = (Journal<u32>, Journal<u32>, Recorder<u32, ()>, Removals<u32>);

const LIMIT: usize = 240;

#[derive(Clone, Debug)]
enum Op {
    Insert(u32),
    Remove(u32),
    SwapRemoveIndex(usize),
    Pop,
    Retain(u32),
    RetainWith(u32),
    SortUnstable,
    SortBy,
    SortByKey,
    SortUnstableWith,
    SortAs(Vec<u32>),
    Reverse,
    Swap(usize, usize),
    Truncate(usize),
    Clear,
    Drain(usize),
    Extend(Vec<u32>),
    /// The mirror catches up and the journals are cleared.
    Sync,
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0..48_u32;
    prop_oneof![
        6 => key.clone().prop_map(Op::Insert),
        3 => key.clone().prop_map(Op::Remove),
        1 => (0..40_usize).prop_map(Op::SwapRemoveIndex),
        1 => Just(Op::Pop),
        1 => (2..5_u32).prop_map(Op::Retain),
        1 => (2..5_u32).prop_map(Op::RetainWith),
        1 => Just(Op::SortUnstable),
        1 => Just(Op::SortBy),
        1 => Just(Op::SortByKey),
        1 => Just(Op::SortUnstableWith),
        1 => prop::collection::vec(key.clone(), 0..10).prop_map(Op::SortAs),
        1 => Just(Op::Reverse),
        1 => (0..40_usize, 0..40_usize).prop_map(|(a, b)| Op::Swap(a, b)),
        1 => (0..40_usize).prop_map(Op::Truncate),
        1 => Just(Op::Clear),
        1 => (0..6_usize).prop_map(Op::Drain),
        1 => prop::collection::vec(key, 0..12).prop_map(Op::Extend),
        2 => Just(Op::Sync),
    ]
}

/// Applies `op`; `column` holds `key * 10` beside each key when the operation moves columns
/// (`retain_with`, `sort_unstable_with`), and is rebuilt from the keys otherwise.
fn apply(set: &mut SparseSet<u32, u32, Observers>, column: &mut Vec<u32>, op: &Op) {
    match *op {
        Op::Insert(k) => {
            set.insert(k);
        }
        Op::Remove(k) => {
            set.remove(k);
        }
        Op::SwapRemoveIndex(i) => {
            set.swap_remove_index(i);
        }
        Op::Pop => {
            set.pop();
        }
        Op::Retain(m) => set.retain(|key| key % m != 0),
        Op::RetainWith(m) => {
            let len = set.retain_with(
                column,
                |column, index, key| column[index] == key * 10 && key % m != 0,
                |column, a, b| column.swap(a, b),
            );
            column.truncate(len);
        }
        Op::SortUnstable => set.sort_unstable(),
        Op::SortBy => set.sort_by(|a, b| (a % 7).cmp(&(b % 7))),
        Op::SortByKey => set.sort_by_key(|key| std::cmp::Reverse(key % 5)),
        Op::SortUnstableWith => set.sort_unstable_with(
            column,
            |column, _, a, b| column[b].cmp(&column[a]),
            |column, a, b| column.swap(a, b),
        ),
        Op::SortAs(ref order) => {
            set.sort_as(order);
        }
        Op::Reverse => {
            let order = (0..set.len()).rev().collect();
            set.apply_permutation(&Permutation::from_vec(order).unwrap());
        }
        Op::Swap(a, b) => {
            if a < set.len() && b < set.len() {
                set.swap_indices(a, b);
            }
        }
        Op::Truncate(len) => set.truncate(len),
        Op::Clear => set.clear(),
        Op::Drain(take) => {
            let mut drain = set.drain();
            for _ in 0..take {
                drain.next();
            }
        }
        Op::Extend(ref keys) => set.extend(keys.iter().copied()),
        Op::Sync => unreachable!("handled by the caller"),
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn observers_mirror_the_set(ops in prop::collection::vec(op(), 1..120)) {
        let observers = (Journal::with_limit(LIMIT), Journal::with_limit(usize::MAX), Recorder::default(), Removals::new());
        let mut set = SparseSet::<u32, u32, Observers>::with_observer(observers);
        let mut column: Vec<u32> = Vec::new();
        // What the mirror held at the last sync.
        let mut synced: Vec<u32> = Vec::new();
        for op in &ops {
            let before: BTreeSet<u32> = set.iter().collect();
            if let Op::Sync = op {
                synced = replay_keys(synced, &set.observer().0).unwrap_or_else(|| set.as_slice().to_vec());
                set.observer_mut().0.clear();
                set.observer_mut().1.clear();
            } else {
                apply(&mut set, &mut column, op);
            }
            set.assert_invariants();
            if !matches!(op, Op::RetainWith(_) | Op::SortUnstableWith) {
                column = set.iter().map(|key| key * 10).collect();
            }
            prop_assert_eq!(&column, &set.iter().map(|key| key * 10).collect::<Vec<_>>(), "the column follows");
            let (limited, unlimited, recorder, removals) = set.observer();

            prop_assert!(recorder.matches(set.iter().map(|key| (key, ()))), "the hooks rebuild the keys");

            prop_assert_eq!(unlimited.len(), set.len());
            prop_assert!(!unlimited.is_resync());
            let replayed = replay_keys(synced.clone(), unlimited);
            prop_assert_eq!(replayed.as_deref(), Some(set.as_slice()));
            prop_assert!(limited.bytes() <= LIMIT);
            prop_assert_eq!(limited.is_resync(), unlimited.bytes() > LIMIT, "resync exactly past the limit");
            if let Some(keys) = replay_keys(synced.clone(), limited) {
                prop_assert_eq!(keys.as_slice(), set.as_slice());
            }

            let after: BTreeSet<u32> = set.iter().collect();
            let left: BTreeSet<u32> = before.difference(&after).copied().collect();
            let reported = removals.keys();
            prop_assert_eq!(reported.len(), left.len(), "one report per key that left");
            prop_assert_eq!(reported.iter().copied().collect::<BTreeSet<u32>>(), left);
            set.observer_mut().3.clear();
        }
    }
}

#[test]
fn no_observer_costs_no_size() {
    use std::mem::size_of;
    assert_eq!(size_of::<SparseSet<u32>>(), size_of::<SparseSet<u32, u32, ()>>());
    assert_eq!(size_of::<SparseSet<Entity, u32, ((), ())>>(), size_of::<SparseSet<Entity>>());
    assert!(size_of::<SparseSet<u32, u32, Removals<u32>>>() > size_of::<SparseSet<u32>>());
}

#[test]
fn a_newer_generation_replaces_in_place_and_is_reported() {
    let mut entities = Entities::new();
    let old = entities.spawn();
    let mut set = SparseSet::<Entity, u32, Journal<Entity>>::default();
    set.insert(old);
    set.observer_mut().clear();
    assert!(entities.despawn(old));
    let new = entities.spawn();
    assert_eq!(new.index(), old.index());
    assert!(set.insert(new));
    assert!(!set.insert(new), "already there: nothing to report");
    let changes: Vec<_> = set.observer().changes().unwrap().collect();
    assert_eq!(changes, [Change::Replace { index: 0, key: new }]);
    assert_eq!(set.as_slice(), [new]);
}

#[test]
fn a_sort_records_one_permutation() {
    let mut set = SparseSet::<u32, u32, Journal<u32>>::default();
    set.extend((0..100).rev());
    set.observer_mut().clear();
    set.sort_unstable();
    let changes: Vec<_> = set.observer().changes().unwrap().collect();
    assert_eq!(changes.len(), 1);
    let Change::Permute { order } = &changes[0] else { panic!("a permutation: {changes:?}") };
    assert_eq!(order.clone().collect::<Vec<_>>(), (0..100).rev().collect::<Vec<_>>());
    assert_eq!(set.as_slice(), (0..100).collect::<Vec<_>>());
    assert_eq!(set.get_index_of(99), Some(99));
}

#[test]
fn a_panicking_hook_leaves_the_set_valid() {
    struct Grumpy;
    impl Observer<u32, ()> for Grumpy {
        fn inserted(&mut self, key: u32, _index: usize, (): &()) {
            assert_ne!(key, 13, "unlucky insert");
        }
        fn removed(&mut self, key: u32, (): &(), _removed: Removed<u32>) {
            assert_ne!(key, 7, "unlucky remove");
        }
    }
    let mut set = SparseSet::<u32, u32, Grumpy>::with_observer(Grumpy);
    set.extend(0..10);
    // The hooks run after the change: the key is in, or out, when they panic.
    assert!(catch_unwind(AssertUnwindSafe(|| set.insert(13))).is_err());
    set.assert_invariants();
    assert!(set.contains(13));
    assert!(catch_unwind(AssertUnwindSafe(|| set.remove(7))).is_err());
    set.assert_invariants();
    assert!(!set.contains(7));
    // A bulk removal goes on while the panic unwinds: the set is cleared, and consistent.
    set.insert(7);
    assert!(catch_unwind(AssertUnwindSafe(|| set.clear())).is_err());
    set.assert_invariants();
    assert!(set.is_empty());
    set.extend([1, 7, 9]);
    assert!(catch_unwind(AssertUnwindSafe(|| set.truncate(1))).is_err());
    set.assert_invariants();
    assert_eq!(set.as_slice(), &[1]);
}

#[test]
fn a_bounded_set_with_a_bounded_journal_never_allocates() {
    let original = SparseSet::<u32, u16>::bounded(256, 256).observed_by(Journal::bounded(1024));
    // A copy is bounded alike: the same fixed room.
    let mut set = original.clone();
    let ((), allocations) = allocations_during(|| {
        for _ in 0..4 {
            set.extend(0..256);
            for key in (0..256).step_by(3) {
                set.remove(key);
            }
            set.retain(|key| key % 2 == 0);
            set.swap_indices(0, 1);
            set.sort_as(&[8, 4]);
            set.truncate(10);
            set.clear();
        }
    });
    assert_eq!(allocations, 0);
    assert!(set.observer().is_resync(), "1,024 bytes cannot hold those operations");
    assert_eq!(set.capacity(), 256);
}

#[test]
fn change_ticks_of_a_set() {
    let mut entities = Entities::new();
    let [a, b, c] = [(); 3].map(|()| entities.spawn());
    let mut frozen = SparseSet::<Entity, u32, Ticks>::default();
    frozen.extend([a, b]);
    let seen = frozen.ticks_mut().advance();
    frozen.insert(c);
    frozen.insert(a); // already there: no change
    assert_eq!(frozen.changed_since(seen).collect::<Vec<_>>(), [c]);
    assert_eq!(frozen.added_since(seen).collect::<Vec<_>>(), [c]);
    // A newer generation of `b` takes its place: a new entity, so added (and changed); the
    // keys it did not touch are neither.
    entities.despawn(b);
    let b2 = entities.spawn();
    let seen = frozen.ticks_mut().advance();
    assert!(frozen.insert(b2));
    assert_eq!(frozen.changed_since(seen).collect::<Vec<_>>(), [b2]);
    assert_eq!(frozen.added_since(seen).collect::<Vec<_>>(), [b2]);
    // The stamps move with their keys.
    frozen.remove(a);
    frozen.sort_unstable_by(|x, y| y.index().cmp(&x.index()));
    assert_eq!(frozen.changed_since(seen).collect::<Vec<_>>(), [b2]);
    assert_eq!(frozen.ticks().len(), frozen.len());
}

#[test]
fn moving_between_observers_keeps_the_keys() {
    let set: SparseSet<u32> = (0..5).collect();
    let set = set.observed_by(Journal::new());
    // Attached to keys it never saw: the mirror must start over.
    assert!(set.observer().changes().is_err());
    assert_eq!(set.observer().patch().dirty_rows(), 5);
    let mut set = set.observed_by(Removals::new());
    set.remove(3);
    assert_eq!(Observed::observer(&set).keys(), &[3]);
    let (set, removals) = set.into_unobserved();
    assert_eq!(removals.keys(), &[3]);
    assert_eq!(set.as_slice(), &[0, 1, 2, 4]);
    assert_eq!(set, (0..5).filter(|&key| key != 3).collect::<SparseSet<u32>>());
}

#[test]
fn an_observed_sort_keeps_the_callers_column_in_lockstep_when_its_swap_panics() {
    let mut set = SparseSet::<u32, u32, Journal<u32>>::default();
    set.extend((0..20).rev());
    set.observer_mut().clear();
    let mut column: Vec<u32> = set.iter().map(|key| key * 10).collect();
    let mut swaps = 0;
    let sorted = catch_unwind(AssertUnwindSafe(|| {
        set.sort_unstable_with(
            &mut column,
            |column, _, a, b| column[a].cmp(&column[b]),
            |column, a, b| {
                // Each swap of two keys is made just before the column's, as without an observer.
                column.swap(a, b);
                swaps += 1;
                assert!(swaps < 5, "unlucky swap");
            },
        );
    }));
    assert!(sorted.is_err());
    set.assert_invariants();
    assert_eq!(column, set.iter().map(|key| key * 10).collect::<Vec<_>>());
    assert_eq!(
        set.observer().changes().unwrap().count(),
        0,
        "a sort that panicked is not reported"
    );
    // Without a panic: one permutation, and the column sorted with the keys.
    set.sort_unstable_with(
        &mut column,
        |column, _, a, b| column[a].cmp(&column[b]),
        |column, a, b| column.swap(a, b),
    );
    assert_eq!(set.as_slice(), (0..20).collect::<Vec<_>>());
    assert_eq!(column, (0..20).map(|key| key * 10).collect::<Vec<_>>());
    assert_eq!(set.observer().changes().unwrap().count(), 1);
}
