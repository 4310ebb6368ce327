//! Change events of a derived storage, checked from the outside after every step of random
//! operations, as `observe.rs` checks them for `SparseMap`:
//!
//! - a hook recorder, which rebuilds the rows from the events alone (each hook sees the whole
//!   row as a `BodyRef`), equals the storage;
//! - a `Vec` of the keys replayed through the journal equals `keys()`;
//! - one copy mirror per column, patched through the coalesced view, equals that column and never
//!   copies more rows than the storage holds;
//! - a journal with a small limit asks for a resync exactly when the same operations, recorded
//!   without a limit, take more bytes than it;
//! - `Removals` holds exactly the keys that left.
//!
//! By hand: `size_of` without an observer, a panicking hook, change ticks and the query filter,
//! a grouped member, a world's batch spawn, and attaching and detaching an observer.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use proptest::prelude::*;
use sparse_soa::observe::{Change, Journal, Observer, Removals, Ticks};
use sparse_soa::{Removed, SparseSet, SparseSoa, Storage};
use sparse_soa_test_support::mirror::{Recorder, Snapshot, patch_values, replay_keys};
use sparse_soa_test_support::model;

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
struct Body {
    pos: u64,
    mass: u32,
}

/// A row view as the recorder keeps it: the row.
impl Snapshot for BodyRef<'_> {
    type Owned = (u64, u32);
    fn snapshot(&self) -> (u64, u32) {
        (*self.pos, *self.mass)
    }
}

type Observers = (Journal<u32>, Journal<u32>, Recorder<u32, (u64, u32)>, Removals<u32>);

const LIMIT: usize = 240;

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u64, u32),
    Remove(u32),
    SwapRemoveIndex(usize),
    Pop,
    GetMut(u32, u64),
    GetIndexMut(usize, u32),
    GetDisjointMut(u32, u32),
    PosColumn(u64),
    ColumnsMut(u32),
    IterMut(u64),
    Retain(u32),
    SortByPos,
    SortUnstableByMass,
    SortKeys,
    SortAs(Vec<u32>),
    Swap(usize, usize),
    Truncate(usize),
    Clear,
    Drain(usize),
    Extend(Vec<(u32, u64)>),
    /// The mirrors catch up and the journals are cleared.
    Sync,
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0..48_u32;
    prop_oneof![
        6 => (key.clone(), any::<u64>(), any::<u32>()).prop_map(|(k, p, m)| Op::Insert(k, p, m)),
        3 => key.clone().prop_map(Op::Remove),
        1 => (0..40_usize).prop_map(Op::SwapRemoveIndex),
        1 => Just(Op::Pop),
        2 => (key.clone(), any::<u64>()).prop_map(|(k, v)| Op::GetMut(k, v)),
        1 => (0..40_usize, any::<u32>()).prop_map(|(i, v)| Op::GetIndexMut(i, v)),
        1 => (key.clone(), key.clone()).prop_map(|(a, b)| Op::GetDisjointMut(a, b)),
        1 => any::<u64>().prop_map(Op::PosColumn),
        1 => any::<u32>().prop_map(Op::ColumnsMut),
        1 => any::<u64>().prop_map(Op::IterMut),
        1 => (2..5_u32).prop_map(Op::Retain),
        1 => Just(Op::SortByPos),
        1 => Just(Op::SortUnstableByMass),
        1 => Just(Op::SortKeys),
        1 => prop::collection::vec(key.clone(), 0..10).prop_map(Op::SortAs),
        1 => (0..40_usize, 0..40_usize).prop_map(|(a, b)| Op::Swap(a, b)),
        1 => (0..40_usize).prop_map(Op::Truncate),
        1 => Just(Op::Clear),
        1 => (0..6_usize).prop_map(Op::Drain),
        1 => prop::collection::vec((key, any::<u64>()), 0..12).prop_map(Op::Extend),
        2 => Just(Op::Sync),
    ]
}

fn apply(storage: &mut BodySoa<Observers>, op: &Op) {
    match *op {
        Op::Insert(k, pos, mass) => {
            storage.insert(k, Body { pos, mass });
        }
        Op::Remove(k) => {
            storage.remove(k);
        }
        Op::SwapRemoveIndex(i) => {
            storage.swap_remove_index(i);
        }
        Op::Pop => {
            storage.pop();
        }
        Op::GetMut(k, v) => {
            if let Some(row) = storage.get_mut(k) {
                *row.pos = v;
            }
        }
        Op::GetIndexMut(i, v) => {
            if let Some((_, row)) = storage.get_index_mut(i) {
                *row.mass = v;
            }
        }
        Op::GetDisjointMut(a, b) => {
            if a != b {
                for row in storage.get_disjoint_mut([a, b]).into_iter().flatten() {
                    *row.mass ^= 1;
                }
            }
        }
        Op::PosColumn(add) => {
            for pos in storage.pos_mut() {
                *pos = pos.wrapping_add(add);
            }
        }
        Op::ColumnsMut(add) => {
            let columns = storage.columns_mut();
            for (mass, pos) in columns.mass.iter_mut().zip(columns.pos.iter()) {
                *mass = mass.wrapping_add(add) ^ (*pos as u32);
            }
        }
        Op::IterMut(add) => {
            for (_, row) in storage.iter_mut() {
                *row.pos = row.pos.wrapping_sub(add);
            }
        }
        Op::Retain(m) => storage.retain(|key, row| {
            *row.mass = row.mass.wrapping_add(1);
            key % m != 0
        }),
        Op::SortByPos => storage.sort_by(|_, a, _, b| a.pos.cmp(b.pos)),
        Op::SortUnstableByMass => storage.sort_unstable_by(|_, a, _, b| b.mass.cmp(a.mass)),
        Op::SortKeys => storage.sort_keys(),
        Op::SortAs(ref order) => {
            storage.sort_as(order);
        }
        Op::Swap(a, b) => {
            if a < storage.len() && b < storage.len() {
                storage.swap_indices(a, b);
            }
        }
        Op::Truncate(len) => storage.truncate(len),
        Op::Clear => storage.clear(),
        Op::Drain(take) => {
            let mut drain = storage.drain();
            for _ in 0..take {
                drain.next();
            }
        }
        Op::Extend(ref pairs) => {
            storage.extend(pairs.iter().map(|&(k, pos)| (k, Body { pos, mass: k })));
        }
        Op::Sync => unreachable!("handled by the caller"),
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn observers_mirror_a_derived_storage(ops in prop::collection::vec(op(), 1..120)) {
        let observers = (
            Journal::with_limit(LIMIT),
            Journal::with_limit(usize::MAX),
            Recorder::default(),
            Removals::new(),
        );
        let mut storage = BodySoa::with_observer(observers);
        // What the mirrors held at the last sync: the keys and each column.
        let mut synced_keys: Vec<u32> = Vec::new();
        let mut synced_pos: Vec<u64> = Vec::new();
        let mut synced_mass: Vec<u32> = Vec::new();
        for op in &ops {
            let before: BTreeSet<u32> = storage.keys().iter().copied().collect();
            if let Op::Sync = op {
                let (journal, ..) = storage.observer();
                synced_keys =
                    replay_keys(synced_keys, journal).unwrap_or_else(|| storage.keys().to_vec());
                patch_values(&mut synced_pos, journal, storage.pos(), u64::MAX);
                patch_values(&mut synced_mass, journal, storage.mass(), u32::MAX);
                storage.observer_mut().0.clear();
                storage.observer_mut().1.clear();
            } else {
                apply(&mut storage, op);
            }
            sparse_soa::Storage::assert_invariants(&storage);
            let (limited, unlimited, recorder, removals) = storage.observer();

            prop_assert!(recorder.matches(storage.iter().map(|(k, row)| (k, row.snapshot()))), "the hooks rebuild the rows");

            prop_assert_eq!(unlimited.len(), storage.len());
            prop_assert!(!unlimited.is_resync());
            let replayed = replay_keys(synced_keys.clone(), unlimited);
            prop_assert_eq!(replayed.as_deref(), Some(storage.keys()));
            prop_assert!(limited.bytes() <= LIMIT);
            prop_assert_eq!(limited.is_resync(), unlimited.bytes() > LIMIT, "resync exactly past the limit");
            for journal in [limited, unlimited] {
                let mut pos = synced_pos.clone();
                let mut mass = synced_mass.clone();
                let copied = patch_values(&mut pos, journal, storage.pos(), u64::MAX);
                patch_values(&mut mass, journal, storage.mass(), u32::MAX);
                prop_assert_eq!(pos.as_slice(), storage.pos());
                prop_assert_eq!(mass.as_slice(), storage.mass());
                prop_assert!(copied <= storage.len(), "a patch never copies more than a full upload");
            }

            let after: BTreeSet<u32> = storage.keys().iter().copied().collect();
            let left: BTreeSet<u32> = before.difference(&after).copied().collect();
            let reported = removals.keys();
            prop_assert_eq!(reported.len(), left.len(), "one report per row that left");
            prop_assert_eq!(reported.iter().copied().collect::<BTreeSet<u32>>(), left);
            storage.observer_mut().3.clear();
        }
    }
}

#[test]
fn no_observer_costs_no_size() {
    use std::mem::size_of;
    assert_eq!(
        size_of::<BodySoa>(),
        size_of::<SparseSet<u32>>() + size_of::<Vec<u64>>() + size_of::<Vec<u32>>()
    );
    assert_eq!(size_of::<BodySoa<((), ())>>(), size_of::<BodySoa>());
    // `new` and `default` make the storage without an observer: no annotation needed.
    let storage = BodySoa::default();
    assert!(storage.is_empty());
}

#[test]
fn removed_values_keep_a_clone_of_each_row_that_left() {
    use sparse_soa::observe::RemovedValues;

    #[derive(SparseSoa, Clone, Debug, PartialEq)]
    struct Named(String, u8);

    #[derive(SparseSoa)]
    #[sparse_soa(key = K)]
    struct ByKey<K: sparse_soa::Key> {
        key: K,
    }

    let mut bodies = BodySoa::with_observer(RemovedValues::new());
    bodies.extend((0..6).map(|key| (key, Body { pos: u64::from(key) * 10, mass: key })));
    bodies.remove(4);
    bodies.retain(|key, _| key % 2 == 0);
    let gone: Vec<(u32, Body)> = bodies.observer_mut().drain().collect();
    let mut keys: Vec<u32> = gone.iter().map(|&(key, _)| key).collect();
    assert_eq!(keys.remove(0), 4, "the first removal first");
    keys.sort_unstable();
    assert_eq!(keys, [1, 3, 5]);
    assert!(gone.iter().all(|&(key, body)| body == Body { pos: u64::from(key) * 10, mass: key }));
    assert!(bodies.observer().is_empty());
    // A struct keyed by a type parameter of its own (`ByKey`) gets no such observer (the
    // orphan rules refuse it) and still derives.
    let mut by_key = ByKeySoa::<u64>::new();
    by_key.insert(3, ByKey { key: 3 });
    assert_eq!(by_key.key(), &[3]);
    // The values are clones, taken before the rows are dropped.
    let mut names = NamedSoa::with_observer(RemovedValues::new());
    names.insert(7, Named("seven".to_owned(), 7));
    names.clear();
    assert_eq!(names.observer().rows(), &[(7, Named("seven".to_owned(), 7))]);
}

#[test]
fn a_panicking_hook_leaves_the_storage_valid() {
    struct Grumpy;
    impl Observer<u32, BodyRef<'_>> for Grumpy {
        fn inserted(&mut self, key: u32, _index: usize, _row: &BodyRef<'_>) {
            assert_ne!(key, 13, "unlucky insert");
        }
        fn removed(&mut self, key: u32, _row: &BodyRef<'_>, _removed: Removed<u32>) {
            assert_ne!(key, 7, "unlucky remove");
        }
    }
    let mut storage = BodySoa::with_observer(Grumpy);
    storage.extend((0..10).map(|key| (key, Body { pos: key.into(), mass: key })));
    // The hooks run after the change: the row is in, or out, when they panic.
    assert!(
        catch_unwind(AssertUnwindSafe(|| storage.insert(13, Body { pos: 1, mass: 1 }))).is_err()
    );
    sparse_soa::Storage::assert_invariants(&storage);
    assert_eq!(storage.get(13).map(|row| *row.mass), Some(1));
    assert!(catch_unwind(AssertUnwindSafe(|| storage.remove(7))).is_err());
    sparse_soa::Storage::assert_invariants(&storage);
    assert!(!storage.contains_key(7));
    // A bulk removal goes on while the panic unwinds: every row is removed.
    storage.insert(7, Body { pos: 7, mass: 7 });
    assert!(catch_unwind(AssertUnwindSafe(|| storage.clear())).is_err());
    sparse_soa::Storage::assert_invariants(&storage);
    assert!(storage.is_empty());
}

/// A drain leaked with `mem::forget` leaves every observer in step (each row's removal was
/// reported when `drain` was called), and a hook that panics while a drain reports the rows
/// leaves the storage empty with every row reported once.
#[test]
fn a_leaked_or_interrupted_drain_leaves_the_observers_in_step() {
    use crate::group_hooks::RefusesTwo;

    let mut storage =
        BodySoa::<(Ticks, Journal<u32>, Removals<u32>)>::with_observer(Default::default());
    storage.extend((0..5).map(|key| (key, Body { pos: key.into(), mass: key })));
    let before = storage.keys().to_vec();
    storage.observer_mut().1.clear();
    std::mem::forget(storage.drain());
    assert!(storage.is_empty());
    storage.ticks().assert_invariants(storage.len());
    assert_eq!(storage.observer().2.keys(), before);
    storage.insert(9, Body { pos: 9, mass: 9 });
    storage.ticks().assert_invariants(storage.len());
    assert_eq!(replay_keys(before, &storage.observer().1), Some(vec![9]));

    let mut storage = BodySoa::with_observer(RefusesTwo::default());
    storage.extend((0..5).map(|key| (key, Body { pos: key.into(), mass: key })));
    assert!(catch_unwind(AssertUnwindSafe(|| storage.drain().count())).is_err());
    sparse_soa::Storage::assert_invariants(&storage);
    assert!(storage.is_empty());
    assert_eq!(storage.observer().0, [0, 1, 2, 3, 4]);
}

#[test]
fn change_ticks_and_the_query_filter_work_on_a_derived_storage() {
    use sparse_soa::query;

    let mut bodies = BodySoa::with_observer(Ticks::new());
    bodies.extend((0..6).map(|key| (key, Body { pos: 0, mass: key })));
    let seen = bodies.ticks_mut().advance();
    assert_eq!(bodies.changed_since(seen).count(), 0);
    *bodies.get_mut(2).unwrap().pos = 5;
    bodies.insert(9, Body { pos: 1, mass: 1 });
    *bodies.get_mut_untracked(4).unwrap().pos = 8;
    assert_eq!(bodies.changed_since(seen).collect::<Vec<_>>(), [2, 9]);
    assert_eq!(bodies.added_since(seen).collect::<Vec<_>>(), [9]);
    let changed: Vec<u32> =
        query((&bodies,)).changed(&bodies).into_iter().map(|(key, _)| key).collect();
    assert_eq!(changed, [2, 9]);
    // A column handed out mutably stamps every row at once.
    bodies.mass_mut()[0] += 1;
    assert_eq!(bodies.changed_since(seen).count(), 7);
}

#[test]
fn set_if_neq_writes_and_reports_only_a_row_that_changes() {
    let mut bodies = BodySoa::with_observer((Ticks::new(), Journal::<u32>::default()));
    bodies.extend((0..4).map(|key| (key, Body { pos: 0, mass: key })));
    let seen = bodies.ticks_mut().advance();
    bodies.observer_mut().1.clear();

    assert!(!bodies.set_if_neq(2, Body { pos: 0, mass: 2 }), "the same row: no change");
    assert!(!bodies.set_if_neq(7, Body { pos: 1, mass: 1 }), "absent: nothing inserted");
    assert_eq!(bodies.changed_since(seen).count(), 0);
    assert_eq!(bodies.observer().1.changes().unwrap().count(), 0, "nothing reported");
    assert_eq!(bodies.len(), 4);

    assert!(bodies.set_if_neq(2, Body { pos: 0, mass: 9 }), "one field differs");
    assert_eq!(bodies.get(2).map(|body| (*body.pos, *body.mass)), Some((0, 9)));
    assert_eq!(bodies.changed_since(seen).collect::<Vec<_>>(), [2]);
    let changes: Vec<_> = bodies.observer().1.changes().unwrap().collect();
    assert_eq!(changes, [Change::Write { rows: 2..3 }], "one write of the row");

    // Without an observer, the write alone.
    let mut plain = BodySoa::new();
    plain.insert(1, Body { pos: 3, mass: 3 });
    assert!(plain.set_if_neq(1, Body { pos: 4, mass: 3 }));
    assert!(!plain.set_if_neq(1, Body { pos: 4, mass: 3 }));
    assert_eq!(plain.get(1).map(|body| *body.pos), Some(4));
}

/// A value whose comparison panics when it meets 255.
#[derive(Debug)]
struct Touchy(u8);

impl PartialEq for Touchy {
    fn eq(&self, other: &Self) -> bool {
        assert!(other.0 != 255, "compared with 255");
        self.0 == other.0
    }
}

#[derive(SparseSoa)]
struct Labelled {
    a: u8,
    b: Touchy,
}

#[test]
fn set_if_neq_whose_comparison_panics_changes_nothing() {
    let mut rows = LabelledSoa::with_observer(Journal::<u32>::default());
    rows.insert(1, Labelled { a: 1, b: Touchy(1) });
    rows.observer_mut().clear();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rows.set_if_neq(1, Labelled { a: 2, b: Touchy(255) })
    }));
    assert!(panicked.is_err());
    assert_eq!(rows.a(), &[1], "the first field is compared, not written, before the panic");
    assert_eq!(rows.observer().changes().unwrap().count(), 0);
    assert!(rows.set_if_neq(1, Labelled { a: 2, b: Touchy(1) }));
    assert_eq!(rows.a(), &[2]);
    assert_eq!(rows.observer().changes().unwrap().count(), 1);
}

#[test]
fn a_grouped_derived_storage_reports_the_group_swaps() {
    use sparse_soa::{Group, SparseMap};

    let observed = BodySoa::with_observer(Journal::new());
    let other = SparseMap::<u32, u8>::new();
    let mut group = Group::new((observed, other));
    let mut keys = sparse_soa_test_support::keys::Stream(11);
    // Every step checks the group and replays the whole journal: fewer steps under miri.
    let steps = if cfg!(miri) { 60 } else { 2000 };
    for _ in 0..steps {
        let key = keys.next(64);
        match keys.next(5) {
            0 => drop(group.member_mut::<0>().insert(key, Body { pos: 0, mass: key })),
            1 => drop(group.member_mut::<1>().insert(key, 0)),
            2 => drop(group.member_mut::<0>().remove(key)),
            3 => drop(group.member_mut::<1>().remove(key)),
            _ => drop(group.remove(key)),
        }
        group.assert_invariants();
        let (observed, _) = group.members();
        let mirror = replay_keys(Vec::new(), observed.observer()).expect("under the limit");
        assert_eq!(mirror, observed.keys());
    }
    let (observed, _) = group.members();
    let swaps = observed.observer().changes().unwrap();
    assert!(swaps.filter(|change| matches!(change, Change::Swap { .. })).count() > 0);
}

#[test]
fn a_world_batch_is_reported_row_by_row() {
    use sparse_soa::{Entities, Entity, World};

    #[derive(SparseSoa)]
    #[sparse_soa(key = Entity)]
    struct Shape {
        radius: f32,
        sides: u8,
    }

    #[derive(World)]
    struct Game {
        entities: Entities,
        shapes: ShapeSoa<Journal<Entity>>,
        names: sparse_soa::SparseMap<Entity, &'static str>,
    }

    let mut game = Game {
        entities: Entities::new(),
        shapes: ShapeSoa::with_observer(Journal::new()),
        names: sparse_soa::SparseMap::new(),
    };
    let spawned: Vec<Entity> =
        game.spawn_batch((0..50_u8).map(|i| (Shape { radius: 1.0, sides: i }, "shape"))).collect();
    let pushed: Vec<Entity> = game
        .shapes
        .observer()
        .changes()
        .unwrap()
        .map(|change| match change {
            Change::Push { key } => key,
            other => panic!("a batch pushes rows: {other:?}"),
        })
        .collect();
    assert_eq!(pushed, spawned);
    assert!(game.despawn(spawned[0]));
    assert_eq!(game.shapes.observer().patch().dirty_rows(), 49);
}

#[test]
fn an_observer_attaches_and_detaches() {
    let storage: BodySoa = (0..5).map(|key| (key, Body { pos: 0, mass: key })).collect();
    let mut storage = storage.observed_by(Journal::new());
    assert!(storage.observer().patch().is_everything(), "rows it never saw: a resync");
    storage.observer_mut().clear();
    storage.remove(0);
    assert_eq!(storage.observer().patch().dirty_rows(), 1);
    let (storage, journal) = storage.into_unobserved();
    assert_eq!(storage.len(), 4);
    assert_eq!(journal.changes().unwrap().count(), 1);
    let copy = storage.clone();
    assert_eq!(copy, storage);
}

/// A `#[repr(packed)]` struct: its fields cannot be borrowed, so the views its observer is
/// shown of a replaced or removed row are made of the moved-out fields.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[repr(C, packed)]
struct Packed {
    #[sparse_soa(track)]
    flag: u8,
    wide: u64,
}

#[test]
fn a_packed_struct_is_observed_as_any_other() {
    use sparse_soa::observe::RemovedValues;

    let mut packed = PackedSoa::new().observed_by(RemovedValues::<u32, Packed>::new());
    packed.insert(1, Packed { flag: 1, wide: 10 });
    let seen = packed.ticks_mut().advance();
    let old = packed.insert(1, Packed { flag: 2, wide: 20 });
    assert_eq!(old, Some(Packed { flag: 1, wide: 10 }));
    packed.insert(2, Packed { flag: 3, wide: 30 });
    assert_eq!(packed.flag_changed_since(seen).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(packed.remove(1), Some(Packed { flag: 2, wide: 20 }));
    assert_eq!(packed.pop(), Some((2, Packed { flag: 3, wide: 30 })));
    let removed = [(1, Packed { flag: 2, wide: 20 }), (2, Packed { flag: 3, wide: 30 })];
    assert_eq!(packed.observer().rows(), removed);
    Storage::assert_invariants(&packed);
}
