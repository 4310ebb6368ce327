//! Change events of a `SparseMap`, checked from the outside after every step of random
//! operations:
//!
//! - a hook recorder, which rebuilds the map's rows from the events alone, equals the map (so
//!   every effective change fired exactly one event, at the right position);
//! - a `Vec` of the keys replayed through the journal's ordered changes equals `keys()`;
//! - a copy mirror patched through the coalesced view equals `values()`, and never copies more
//!   rows than the map holds;
//! - a journal with a small limit asks for a resync exactly when the same operations, recorded
//!   without a limit, take more bytes than it;
//! - `Removals` holds exactly the keys that left.
//!
//! By hand: a newer generation replacing an older key, a panicking hook, `size_of` without an
//! observer, and a bounded map whose journal never allocates.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use proptest::prelude::*;
use sparse_soa::observe::{Change, Journal, Observer, Removals, Ticks};
use sparse_soa::{Entities, Entity, Permutation, Removed, SparseMap, SparseSet};
use sparse_soa_test_support::mirror::{Recorder, patch_values, replay_keys};
use sparse_soa_test_support::{allocations_during, model};

/// The observers every case attaches: a journal with a small limit, its twin without one, the
/// recorder, and the removals.
type Observers = (Journal<u32>, Journal<u32>, Recorder<u32, u64>, Removals<u32>);

const LIMIT: usize = 240;

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u64),
    Remove(u32),
    SwapRemoveIndex(usize),
    Pop,
    GetMut(u32, u64),
    EntryOr(u32, u64),
    EntryRemove(u32),
    Retain(u64),
    SortByValue,
    SortUnstableByValue,
    SortKeys,
    SortAs(Vec<u32>),
    Swap(usize, usize),
    Truncate(usize),
    Clear,
    Drain(usize),
    ValuesMut(u64),
    Extend(Vec<(u32, u64)>),
    /// The mirrors catch up and the journals are cleared.
    Sync,
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0..48_u32;
    prop_oneof![
        6 => (key.clone(), any::<u64>()).prop_map(|(k, v)| Op::Insert(k, v)),
        3 => key.clone().prop_map(Op::Remove),
        1 => (0..40_usize).prop_map(Op::SwapRemoveIndex),
        1 => Just(Op::Pop),
        2 => (key.clone(), any::<u64>()).prop_map(|(k, v)| Op::GetMut(k, v)),
        2 => (key.clone(), any::<u64>()).prop_map(|(k, v)| Op::EntryOr(k, v)),
        1 => key.clone().prop_map(Op::EntryRemove),
        1 => (2..5_u64).prop_map(Op::Retain),
        1 => Just(Op::SortByValue),
        1 => Just(Op::SortUnstableByValue),
        1 => Just(Op::SortKeys),
        1 => prop::collection::vec(key.clone(), 0..10).prop_map(Op::SortAs),
        1 => (0..40_usize, 0..40_usize).prop_map(|(a, b)| Op::Swap(a, b)),
        1 => (0..40_usize).prop_map(Op::Truncate),
        1 => Just(Op::Clear),
        1 => (0..6_usize).prop_map(Op::Drain),
        1 => any::<u64>().prop_map(Op::ValuesMut),
        1 => prop::collection::vec((key, any::<u64>()), 0..12).prop_map(Op::Extend),
        2 => Just(Op::Sync),
    ]
}

fn apply(map: &mut SparseMap<u32, u64, u32, Observers>, op: &Op) {
    match *op {
        Op::Insert(k, v) => {
            map.insert(k, v);
        }
        Op::Remove(k) => {
            map.remove(k);
        }
        Op::SwapRemoveIndex(i) => {
            map.swap_remove_index(i);
        }
        Op::Pop => {
            map.pop();
        }
        Op::GetMut(k, v) => {
            if let Some(value) = map.get_mut(k) {
                *value = v;
            }
        }
        Op::EntryOr(k, v) => *map.entry(k).or_insert(v) ^= 1,
        Op::EntryRemove(k) => {
            if let sparse_soa::map::Entry::Occupied(entry) = map.entry(k) {
                entry.remove();
            }
        }
        Op::Retain(m) => map.retain(|key, value| {
            *value = value.wrapping_add(1);
            u64::from(key) % m != 0
        }),
        Op::SortByValue => map.sort_by(|_, a, _, b| a.cmp(b)),
        Op::SortUnstableByValue => map.sort_unstable_by(|_, a, _, b| b.cmp(a)),
        Op::SortKeys => map.sort_keys(),
        Op::SortAs(ref order) => {
            map.sort_as(order);
        }
        Op::Swap(a, b) => {
            if a < map.len() && b < map.len() {
                map.swap_indices(a, b);
            }
        }
        Op::Truncate(len) => map.truncate(len),
        Op::Clear => map.clear(),
        Op::Drain(take) => {
            let mut drain = map.drain();
            for _ in 0..take {
                drain.next();
            }
        }
        Op::ValuesMut(add) => {
            for value in map.values_mut() {
                *value = value.wrapping_add(add);
            }
        }
        Op::Extend(ref pairs) => map.extend(pairs.iter().copied()),
        Op::Sync => unreachable!("handled by the caller"),
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn observers_mirror_the_map(ops in prop::collection::vec(op(), 1..120)) {
        let observers = (Journal::with_limit(LIMIT), Journal::with_limit(usize::MAX), Recorder::default(), Removals::new());
        let mut map = SparseMap::<u32, u64, u32, Observers>::with_observer(observers);
        // What the mirrors held at the last sync.
        let mut synced_keys: Vec<u32> = Vec::new();
        let mut synced_values: Vec<u64> = Vec::new();
        for op in &ops {
            let before: BTreeSet<u32> = map.keys().iter().copied().collect();
            if let Op::Sync = op {
                let (journal, ..) = map.observer();
                synced_keys = replay_keys(synced_keys, journal).unwrap_or_else(|| map.keys().to_vec());
                patch_values(&mut synced_values, journal, map.values(), u64::MAX);
                map.observer_mut().0.clear();
                map.observer_mut().1.clear();
            } else {
                apply(&mut map, op);
            }
            map.assert_invariants();
            let (limited, unlimited, recorder, removals) = map.observer();

            prop_assert!(recorder.matches(map.iter().map(|(k, v)| (k, *v))), "the hooks rebuild the rows");

            prop_assert_eq!(unlimited.len(), map.len());
            prop_assert!(!unlimited.is_resync());
            let replayed = replay_keys(synced_keys.clone(), unlimited);
            prop_assert_eq!(replayed.as_deref(), Some(map.keys()));
            prop_assert!(limited.bytes() <= LIMIT);
            prop_assert_eq!(limited.is_resync(), unlimited.bytes() > LIMIT, "resync exactly past the limit");
            if let Some(keys) = replay_keys(synced_keys.clone(), limited) {
                prop_assert_eq!(keys.as_slice(), map.keys());
            }
            for journal in [limited, unlimited] {
                let mut values = synced_values.clone();
                let copied = patch_values(&mut values, journal, map.values(), u64::MAX);
                prop_assert_eq!(values.as_slice(), map.values());
                prop_assert!(copied <= map.len(), "a patch never copies more than a full upload");
            }

            let after: BTreeSet<u32> = map.keys().iter().copied().collect();
            let left: BTreeSet<u32> = before.difference(&after).copied().collect();
            let reported = removals.keys();
            prop_assert_eq!(reported.len(), left.len(), "one report per row that left");
            prop_assert_eq!(reported.iter().copied().collect::<BTreeSet<u32>>(), left);
            map.observer_mut().3.clear();
        }
    }
}

#[test]
fn a_newer_generation_replaces_in_place_and_is_reported() {
    let mut entities = Entities::new();
    let old = entities.spawn();
    let mut map = SparseMap::<Entity, u8, u32, Journal<Entity>>::default();
    map.insert(old, 1);
    map.observer_mut().clear();
    assert!(entities.despawn(old));
    let new = entities.spawn();
    assert_eq!(new.index(), old.index());
    assert_eq!(map.insert(new, 2), Some(1));
    let changes: Vec<_> = map.observer().changes().unwrap().collect();
    assert_eq!(changes, [Change::Replace { index: 0, key: new }]);
    assert_eq!(map.observer().bytes(), 16, "an operation on `Entity` keys takes 16 bytes");
}

#[test]
fn a_panicking_hook_leaves_the_map_valid() {
    struct Grumpy;
    impl Observer<u32, u32> for Grumpy {
        fn inserted(&mut self, key: u32, _index: usize, _value: &u32) {
            assert_ne!(key, 13, "unlucky insert");
        }
        fn removed(&mut self, key: u32, _value: &u32, _removed: Removed<u32>) {
            assert_ne!(key, 7, "unlucky remove");
        }
    }
    let mut map = SparseMap::<u32, u32, u32, Grumpy>::with_observer(Grumpy);
    map.extend((0..10).map(|key| (key, key)));
    // The hooks run after the change: the row is in, or out, when they panic.
    assert!(catch_unwind(AssertUnwindSafe(|| map.insert(13, 13))).is_err());
    map.assert_invariants();
    assert_eq!(map.get(13), Some(&13));
    assert!(catch_unwind(AssertUnwindSafe(|| map.remove(7))).is_err());
    map.assert_invariants();
    assert!(!map.contains_key(7));
    // A bulk removal goes on while the panic unwinds: the map is cleared, and consistent.
    map.insert(7, 7);
    assert!(catch_unwind(AssertUnwindSafe(|| map.clear())).is_err());
    map.assert_invariants();
    assert!(map.is_empty());
}

/// A drain leaked with `mem::forget` leaves every observer in step with the storage, which is
/// empty at once: each row's removal was reported when `drain` was called, for a map and a set
/// alike.
#[test]
fn a_leaked_drain_leaves_the_observers_in_step() {
    let mut map = SparseMap::<u32, u64, u32, (Ticks, Journal<u32>, Removals<u32>)>::default();
    map.extend((0..5).map(|key| (key, u64::from(key))));
    let before = map.keys().to_vec();
    map.observer_mut().1.clear();
    std::mem::forget(map.drain());
    assert!(map.is_empty());
    map.ticks().assert_invariants(map.len());
    assert_eq!(map.observer().2.keys(), before);
    map.insert(9, 1);
    map.ticks().assert_invariants(map.len());
    assert_eq!(replay_keys(before, &map.observer().1), Some(vec![9]));

    let mut set = SparseSet::<u32, u32, (Journal<u32>, Removals<u32>)>::default();
    set.extend(0..5);
    let before = set.as_slice().to_vec();
    set.observer_mut().0.clear();
    std::mem::forget(set.drain());
    set.insert(9);
    assert_eq!(set.observer().1.keys(), &before[..]);
    assert_eq!(replay_keys(before, &set.observer().0), Some(vec![9]));
}

/// A hook that panics while `drain` reports the rows leaves the storage empty and every row
/// reported once: the rows after the panicking one are reported while the panic unwinds.
#[test]
fn a_panicking_hook_in_a_drain_still_empties_the_storage() {
    use crate::group_hooks::RefusesTwo;

    let mut map = SparseMap::<u32, u32, u32, RefusesTwo>::default();
    map.extend((0..5).map(|key| (key, key)));
    assert!(catch_unwind(AssertUnwindSafe(|| map.drain().count())).is_err());
    map.assert_invariants();
    assert!(map.is_empty());
    assert_eq!(map.observer().0, [0, 1, 2, 3, 4]);
    map.insert(2, 2);
    assert_eq!(map.keys(), &[2]);

    let mut set = SparseSet::<u32, u32, RefusesTwo>::default();
    set.extend(0..5);
    assert!(catch_unwind(AssertUnwindSafe(|| set.drain().count())).is_err());
    set.assert_invariants();
    assert!(set.is_empty() && !set.contains(2));
    assert_eq!(set.observer().0, [0, 1, 2, 3, 4]);
}

#[test]
fn observers_after_a_panicking_one_in_a_tuple_hear_every_event() {
    use crate::group_hooks::Bomb;

    // Every event of the sequence below in turn is the one that panics, until a fuse outlasts
    // the sequence.
    for fuse in 1.. {
        let observers = (Bomb(fuse + 1), Journal::new(), Removals::new());
        let mut map = SparseMap::<u32, u32, u32, _>::with_observer(observers);
        let (mut removed, mut panics) = (Vec::new(), 0);
        for step in 0..36_u32 {
            let key = step * 7 % 12;
            if step % 4 == 2 && map.contains_key(key) {
                removed.push(key);
            }
            let result = catch_unwind(AssertUnwindSafe(|| match step % 4 {
                0 | 1 => drop(map.insert(key, step)),
                2 => drop(map.remove(key)),
                _ => map.swap_indices(0, map.len() - 1),
            }));
            panics += usize::from(result.is_err());
            map.assert_invariants();
            // The observers after the bomb heard every change, the panicking one included.
            let (_, journal, removals) = map.observer();
            assert_eq!(
                replay_keys(Vec::new(), journal).as_deref(),
                Some(map.keys()),
                "fuse {fuse}"
            );
            assert_eq!(removals.keys(), removed, "fuse {fuse}");
        }
        if panics == 0 {
            assert!(fuse > 20, "the sequence has {} events", fuse - 1);
            break;
        }
        assert_eq!(panics, 1, "fuse {fuse}: the bomb goes off once");
    }
}

#[test]
fn no_observer_costs_no_size() {
    use std::mem::size_of;
    assert_eq!(
        size_of::<SparseMap<u32, f32>>(),
        size_of::<SparseSet<u32>>() + size_of::<Vec<f32>>()
    );
    assert_eq!(
        size_of::<SparseMap<Entity, [f32; 3]>>(),
        size_of::<SparseMap<Entity, [f32; 3], u32, ()>>()
    );
    assert_eq!(size_of::<SparseMap<u32, u8, u32, ((), ())>>(), size_of::<SparseMap<u32, u8>>());
}

#[test]
fn a_bounded_map_with_a_bounded_journal_never_allocates() {
    let original =
        SparseMap::<u32, u32, u16>::bounded(256, 256).observed_by(Journal::bounded(1024));
    // A copy is bounded alike: the same fixed room.
    let mut map = original.clone();
    let ((), allocations) = allocations_during(|| {
        for round in 0..4 {
            map.extend((0..256).map(|key| (key, key + round)));
            for key in (0..256).step_by(3) {
                map.remove(key);
            }
            map.retain(|key, _| key % 2 == 0);
            map.swap_indices(0, 1);
            map.truncate(10);
            map.clear();
        }
    });
    assert_eq!(allocations, 0);
    assert!(map.observer().is_resync(), "1,024 bytes cannot hold those operations");
    assert_eq!(map.observer().patch().len(), 0);
}

#[test]
fn attaching_to_rows_asks_for_a_resync() {
    let map: SparseMap<u32, u8> = (0..5).map(|key| (key, 0)).collect();
    let map = map.observed_by(Journal::new());
    assert!(map.observer().changes().is_err());
    assert!(map.observer().patch().is_everything());
    assert_eq!(map.observer().patch().dirty_rows(), 5);
}

#[test]
fn a_sort_records_one_permutation() {
    let mut map = SparseMap::<u32, u32, u32, Journal<u32>>::default();
    map.extend((0..100).map(|key| (key, 100 - key)));
    map.observer_mut().clear();
    map.sort_unstable_by(|_, a, _, b| a.cmp(b));
    let changes: Vec<_> = map.observer().changes().unwrap().collect();
    assert_eq!(changes.len(), 1);
    let Change::Permute { order } = &changes[0] else { panic!("a permutation: {changes:?}") };
    assert_eq!(order.clone().collect::<Vec<_>>(), (0..100).rev().collect::<Vec<_>>());
    // A reversal of an even number of rows moves every row.
    assert_eq!(map.observer().patch().dirty_rows(), 100);
}

#[test]
fn a_grouped_map_reports_the_group_swaps() {
    use sparse_soa::Group;
    let mut keys = sparse_soa_test_support::keys::Stream(7);
    let observed = SparseMap::<u32, u32, u32, Journal<u32>>::default();
    let other = SparseMap::<u32, u32>::new();
    let mut group = Group::new((observed, other));
    // Every step checks the group: fewer steps under miri (the second replay, at step 50, is
    // past the first swap).
    let steps = if cfg!(miri) { 100 } else { 2000 };
    for step in 0..steps {
        let key = keys.next(64);
        match keys.next(5) {
            0 => drop(group.member_mut::<0>().insert(key, 0)),
            1 => drop(group.member_mut::<1>().insert(key, 0)),
            2 => drop(group.member_mut::<0>().remove(key)),
            3 => drop(group.member_mut::<1>().remove(key)),
            _ => drop(group.remove(key)),
        }
        group.assert_invariants();
        let (observed, _) = group.members();
        if step % 50 == 0 {
            // Mirrors that started empty, replayed through everything since.
            let mirror =
                replay_keys(Vec::new(), observed.observer()).expect("under the default limit");
            assert_eq!(mirror, observed.keys());
            let changed = observed.observer().changes().unwrap();
            assert!(
                changed.filter(|change| matches!(change, Change::Swap { .. })).count() > 0
                    || step == 0
            );
        }
    }
}

#[test]
fn a_world_despawn_is_a_removal_event() {
    use sparse_soa::World;

    #[derive(Default, World)]
    struct Game {
        entities: Entities,
        health: SparseMap<Entity, u32, u32, Removals<Entity>>,
        names: SparseMap<Entity, &'static str>,
    }

    let mut game = Game::default();
    let a = game.spawn((10_u32, "a"));
    let b = game.spawn((20_u32, "b"));
    let c = game.spawn(("c",));
    assert!(game.despawn(a));
    assert!(game.despawn(c));
    assert_eq!(game.health.observer().keys(), &[a], "`c` had no health to remove");
    game.health.observer_mut().clear();
    game.health.remove(b);
    assert_eq!(game.health.observer().keys(), &[b]);
}

#[test]
fn a_map_of_unit_values_is_an_observed_tag() {
    use sparse_soa::{World, query};

    // A tag with events: `SparseMap<K, (), D, O>` stores no values (a `Vec<()>` never
    // allocates) and reports like any map.
    #[derive(Default, World)]
    struct Game {
        entities: Entities,
        health: SparseMap<Entity, u32>,
        frozen: SparseMap<Entity, (), u32, Removals<Entity>>,
    }

    let mut game = Game::default();
    let a = game.spawn((10_u32, ()));
    let b = game.spawn((20_u32,));
    let c = game.spawn((30_u32, ()));
    let thawed: Vec<Entity> =
        query((&game.health,)).without(&game.frozen).into_iter().map(|(e, _)| e).collect();
    assert_eq!(thawed, [b]);
    let frozen: Vec<Entity> =
        query((&game.health,)).with(&game.frozen).into_iter().map(|(e, _)| e).collect();
    assert_eq!(frozen, [a, c]);
    game.frozen.remove(a);
    assert!(game.despawn(c));
    assert_eq!(game.frozen.observer().keys(), &[a, c]);
    assert_eq!(
        std::mem::size_of_val(&game.frozen),
        std::mem::size_of::<SparseMap<Entity, ()>>() + std::mem::size_of::<Removals<Entity>>()
    );
}

#[test]
fn a_batch_of_rows_is_reported_row_by_row() {
    use sparse_soa::World;

    #[derive(Default, World)]
    struct Game {
        entities: Entities,
        health: SparseMap<Entity, u32, u32, Journal<Entity>>,
        names: SparseMap<Entity, &'static str>,
    }

    let mut game = Game::default();
    let spawned: Vec<Entity> = game.spawn_batch((0..100_u32).map(|i| (i, "unit"))).collect();
    let keys: Vec<Entity> = game
        .health
        .observer()
        .changes()
        .unwrap()
        .map(|change| match change {
            Change::Push { key } => key,
            other => panic!("a batch pushes rows: {other:?}"),
        })
        .collect();
    assert_eq!(keys, spawned);
    assert_eq!(game.health.observer().patch().dirty_rows(), 100);
}

/// A mirror of a group's aligned prefix kept through one member's journal: the group's swaps,
/// joins and leaves are moves of that member, reported once. Each sync copies the dirty rows
/// below the prefix and the rows that joined past the old prefix.
#[test]
fn one_members_journal_mirrors_the_aligned_prefix() {
    use sparse_soa::{Group, SparseSet};
    let watched = SparseMap::<u32, u32, u32, Journal<u32>>::default();
    let other = SparseMap::<u32, u8>::new();
    let frozen = SparseSet::<u32>::new();
    let mut group = Group::with_excluded((watched, other), (frozen,));
    let mut mirror: Vec<u32> = Vec::new();
    let mut keys = sparse_soa_test_support::keys::Stream(5);
    // Every step checks the group and replays the journal: fewer steps under miri.
    let steps = if cfg!(miri) { 200 } else { 3000 };
    for step in 0..steps {
        let key = keys.next(48);
        match keys.next(8) {
            0 | 1 => drop(group.member_mut::<0>().insert(key, step)),
            2 | 3 => drop(group.member_mut::<1>().insert(key, 0)),
            4 => drop(group.member_mut::<0>().remove(key)),
            5 => drop(group.excluded_mut::<0>().insert(key, ())),
            6 => drop(group.excluded_mut::<0>().remove(key)),
            _ => {
                if let Some((value, _)) = group.get_mut(key) {
                    *value += 1;
                }
            }
        }
        group.assert_invariants();
        if step % 7 == 0 {
            // The sync: what a GPU upload of the prefix would copy.
            let len = group.len();
            let values = group.columns().0.values;
            let journal = group.members().0.observer();
            let patch = journal.patch();
            let old = mirror.len().min(len);
            mirror.resize(len, u32::MAX);
            let mut copied = 0;
            for rows in patch.ranges() {
                let rows = rows.start.min(old)..rows.end.min(old);
                mirror[rows.clone()].copy_from_slice(&values[rows.clone()]);
                copied += rows.len();
            }
            mirror[old..].copy_from_slice(&values[old..]);
            copied += len - old;
            assert_eq!(mirror, values, "step {step}");
            assert!(copied <= len);
            group.member_mut::<0>().observer_mut().clear();
        }
    }
}

/// The prefix's keys as a group observer's hooks report them.
#[derive(Default)]
struct PrefixRecorder {
    keys: Vec<u32>,
}

impl Observer<u32, ()> for PrefixRecorder {
    fn inserted(&mut self, key: u32, index: usize, (): &()) {
        assert_eq!(index, self.keys.len(), "a key joins at the prefix's end");
        self.keys.push(key);
    }

    fn removed(&mut self, key: u32, (): &(), removed: Removed<u32>) {
        assert_eq!(self.keys[removed.index], key);
        if let Some(moved) = removed.moved {
            assert_eq!(moved.from + 1, self.keys.len(), "the prefix's last key moves");
            assert_eq!(self.keys[moved.from], moved.key);
        } else {
            assert_eq!(removed.index + 1, self.keys.len(), "only the last key leaves alone");
        }
        self.keys.swap_remove(removed.index);
    }

    fn swapped(&mut self, a: usize, b: usize) {
        self.keys.swap(a, b);
    }

    fn permuted(&mut self, permutation: &Permutation) {
        self.keys = permutation.order().iter().map(|&old| self.keys[old]).collect();
    }
}

/// A group's own observer hears its aligned prefix once: joins, leaves, the swaps of the nested
/// level inside it, and its sorts. A key mirror replayed through its journal, and the hooks'
/// keys, equal the prefix after every step; its removals are the keys that left the prefix.
#[test]
fn a_groups_observer_hears_its_aligned_prefix() {
    use sparse_soa::group::Nested;
    use sparse_soa::{Group, SparseSet};
    use std::collections::BTreeSet;

    let a = SparseMap::<u32, u32>::new();
    let b = SparseMap::<u32, u8>::new();
    let frozen = SparseSet::<u32>::new();
    let c = SparseSet::<u32>::new();
    let observers = (Journal::new(), PrefixRecorder::default(), Removals::new());
    let mut family =
        Group::with_excluded((a, b), (frozen,)).nest(Nested::new((c,))).observed_by(observers);
    let mut synced: Vec<u32> = Vec::new();
    let mut keys = sparse_soa_test_support::keys::Stream(17);
    // Every step checks the family and replays the journal: fewer steps under miri.
    let steps = if cfg!(miri) { 200 } else { 4000 };
    for step in 0..steps {
        let before: BTreeSet<u32> = family.keys().iter().copied().collect();
        let key = keys.next(40);
        match keys.next(12) {
            0 | 1 => drop(family.member_mut::<0>().insert(key, step)),
            2 | 3 => drop(family.member_mut::<1>().insert(key, 0)),
            4 => drop(family.member_mut::<0>().remove(key)),
            5 => drop(family.excluded_mut::<0>().insert(key, ())),
            6 => drop(family.excluded_mut::<0>().remove(key)),
            7 => drop(family.nested_member_mut::<0>().insert(key, ())),
            8 => drop(family.nested_member_mut::<0>().remove(key)),
            9 => drop(family.remove(key)),
            10 => family.sort_nested_keys(),
            _ => {
                synced = replay_keys(std::mem::take(&mut synced), &family.observer().0)
                    .unwrap_or_else(|| family.keys().to_vec());
                family.observer_mut().0.clear();
            }
        }
        family.assert_invariants();
        let (journal, recorder, removals) = family.observer();
        assert_eq!(recorder.keys, family.keys(), "step {step}: the hooks rebuild the prefix");
        assert_eq!(journal.len(), family.len());
        let replayed = replay_keys(synced.clone(), journal);
        assert_eq!(replayed.as_deref(), Some(family.keys()), "step {step}: the journal");
        let after: BTreeSet<u32> = family.keys().iter().copied().collect();
        let left: BTreeSet<u32> = before.difference(&after).copied().collect();
        assert_eq!(removals.keys().iter().copied().collect::<BTreeSet<u32>>(), left);
        family.observer_mut().2.clear();
    }
}

#[test]
fn a_group_sort_is_one_permutation_to_its_observer() {
    use sparse_soa::Group;
    let a: SparseMap<u32, u32> = (0..50).map(|key| (key, 100 - key)).collect();
    let b: SparseMap<u32, u8> = (0..50).map(|key| (key, 0)).collect();
    let mut group = Group::new((a, b)).observed_by(Journal::new());
    group.observer_mut().clear();
    group.sort_unstable_by(|_, (a, _), _, (b, _)| a.cmp(b));
    let changes: Vec<Change<u32>> = group.observer().changes().unwrap().collect();
    assert!(matches!(changes.as_slice(), [Change::Permute { .. }]), "{changes:?}");
    group.sort_keys();
    // The values descend as the keys ascend: a sort that moves no row records nothing.
    group.sort_by(|_, (a, _), _, (b, _)| b.cmp(a));
    assert_eq!(group.observer().changes().unwrap().count(), 2);
    group.sort_by(|_, (a, _), _, (b, _)| a.cmp(b));
    assert_eq!(group.observer().changes().unwrap().count(), 3);
    let mirror = replay_keys((0..50).collect(), group.observer()).unwrap();
    assert_eq!(mirror, group.keys());
}

#[test]
fn a_worlds_group_field_reports_its_prefix() {
    use sparse_soa::{Group, World};

    #[derive(Default, World)]
    #[expect(clippy::type_complexity, reason = "the world derive reads a group's parts as written")]
    struct Game {
        entities: Entities,
        moving: Group<(SparseMap<Entity, f32>, SparseMap<Entity, u8>), (), (), Journal<Entity>>,
        names: SparseMap<Entity, &'static str>,
    }

    let mut game = Game::default();
    let spawned: Vec<Entity> = game.spawn_batch((0..20_u8).map(|i| (f32::from(i), i))).collect();
    let lone = game.spawn((1.0_f32, "no u8: not in the prefix"));
    assert!(game.despawn(spawned[3]));
    assert!(game.despawn(lone));
    game.moving.assert_invariants();
    let mirror = replay_keys(Vec::new(), game.moving.observer()).unwrap();
    assert_eq!(mirror, game.moving.keys());
    assert_eq!(game.moving.len(), 19);
}
