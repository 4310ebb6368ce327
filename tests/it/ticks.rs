//! Change ticks of a `SparseMap`, against a `BTreeMap` model that keeps absolute (`u64`) ticks:
//! after every step of random operations (writes of every kind, moves, removals, a clock
//! advanced by 1 or by up to 2^31 at once, past the `u32` wrap), `changed_since` and
//! `added_since` of every remembered tick, and the query filters `changed_since` and `changed`
//! (since the last advance), equal the model's;
//! the tick arrays keep the storage's length. By hand: a panicking hook, a panicking `retain`
//! predicate, and untracked writes.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use proptest::prelude::*;
use sparse_soa::observe::{Journal, MAX_AGE, Observer, Tick, Ticks};
use sparse_soa::{Removed, SparseMap, query};
use sparse_soa_test_support::model;

type Map = SparseMap<u32, u32, u32, Ticks>;

#[derive(Clone, Copy, Debug)]
struct Row {
    value: u32,
    added: u64,
    changed: u64,
}

/// The model: rows with absolute ticks, and the absolute clock.
#[derive(Default)]
struct Model {
    rows: BTreeMap<u32, Row>,
    now: u64,
}

impl Model {
    /// Whether `stamp` is newer than `since`, both read as at most `MAX_AGE` old.
    fn newer(&self, stamp: u64, since: u64) -> bool {
        let floor = self.now.saturating_sub(u64::from(MAX_AGE));
        stamp.max(floor) > since.max(floor)
    }

    fn changed_since(&self, since: u64) -> Vec<u32> {
        self.rows
            .iter()
            .filter(|(_, row)| self.newer(row.changed, since))
            .map(|(&k, _)| k)
            .collect()
    }

    fn added_since(&self, since: u64) -> Vec<u32> {
        self.rows.iter().filter(|(_, row)| self.newer(row.added, since)).map(|(&k, _)| k).collect()
    }

    fn touch(&mut self, key: u32) {
        let now = self.now;
        if let Some(row) = self.rows.get_mut(&key) {
            row.changed = now;
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u32),
    /// Keys `start..start + count`, inserted one by one: rows past one block of stamps.
    Extend(u32, u32),
    Remove(u32),
    GetMut(u32),
    SetIfNeq(u32, u32),
    Untracked(u32),
    ValuesMut,
    Retain(u32),
    Sort,
    Truncate(usize),
    Drain,
    Swap(usize, usize),
    Advance,
    AdvanceBy(u32),
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0..32_u32;
    prop_oneof![
        5 => (key.clone(), 0..4_u32).prop_map(|(k, v)| Op::Insert(k, v)),
        1 => (0..160_u32, 0..100_u32).prop_map(|(start, count)| Op::Extend(start, count)),
        2 => key.clone().prop_map(Op::Remove),
        3 => key.clone().prop_map(Op::GetMut),
        3 => (key.clone(), 0..4_u32).prop_map(|(k, v)| Op::SetIfNeq(k, v)),
        1 => key.prop_map(Op::Untracked),
        1 => Just(Op::ValuesMut),
        1 => (2..5_u32).prop_map(Op::Retain),
        1 => Just(Op::Sort),
        1 => (0..30_usize).prop_map(Op::Truncate),
        1 => Just(Op::Drain),
        1 => (0..30_usize, 0..30_usize).prop_map(|(a, b)| Op::Swap(a, b)),
        4 => Just(Op::Advance),
        1 => prop_oneof![0..1000_u32, (1_u32 << 28)..(1_u32 << 31)].prop_map(Op::AdvanceBy),
    ]
}

/// Applies `op` to the map and the model; returns the tick an advance ended.
fn apply(map: &mut Map, model: &mut Model, op: &Op) -> Option<(Tick, u64)> {
    match *op {
        Op::Insert(k, v) => {
            map.insert(k, v);
            let now = model.now;
            let row = model.rows.entry(k).or_insert(Row { value: v, added: now, changed: now });
            row.value = v;
            row.changed = now;
        }
        Op::Remove(k) => {
            map.remove(k);
            model.rows.remove(&k);
        }
        Op::GetMut(k) => {
            if let Some(value) = map.get_mut(k) {
                *value = value.wrapping_add(0); // a write that changes nothing still counts
            }
            model.touch(k);
        }
        Op::SetIfNeq(k, v) => {
            let changed = map.set_if_neq(k, v);
            let differs = model.rows.get(&k).is_some_and(|row| row.value != v);
            assert_eq!(changed, differs);
            if differs {
                model.rows.get_mut(&k).unwrap().value = v;
                model.touch(k);
            }
        }
        Op::Untracked(k) => {
            if let Some(value) = map.get_mut_untracked(k) {
                *value ^= 1;
                model.rows.get_mut(&k).unwrap().value ^= 1;
            }
        }
        Op::ValuesMut => {
            let now = model.now;
            for value in map.values_mut() {
                *value = value.wrapping_add(1);
            }
            for row in model.rows.values_mut() {
                row.value = row.value.wrapping_add(1);
                row.changed = now;
            }
        }
        Op::Retain(m) => {
            // `retain` hands out every value mutably: all count as changed.
            map.retain(|key, _| key % m != 0);
            let now = model.now;
            model.rows.retain(|key, _| key % m != 0);
            model.rows.values_mut().for_each(|row| row.changed = now);
        }
        Op::Sort => map.sort_unstable_by(|_, a, _, b| a.cmp(b)),
        Op::Truncate(len) => {
            let gone: Vec<u32> = map.keys().iter().skip(len).copied().collect();
            map.truncate(len);
            for key in gone {
                model.rows.remove(&key);
            }
        }
        Op::Drain => {
            map.drain().take(1).for_each(drop);
            model.rows.clear();
        }
        Op::Swap(a, b) => {
            if a < map.len() && b < map.len() {
                map.swap_indices(a, b);
            }
        }
        Op::Extend(start, count) => {
            for k in start..start + count {
                apply(map, model, &Op::Insert(k, k % 4));
            }
        }
        Op::Advance => {
            let tick = map.ticks_mut().advance();
            model.now += 1;
            return Some((tick, model.now - 1));
        }
        Op::AdvanceBy(n) => {
            let tick = map.ticks_mut().advance_by(n);
            // 0 moves the clock as 1 does.
            let n = n.max(1);
            model.now += u64::from(n);
            return Some((tick, model.now - u64::from(n)));
        }
    }
    None
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn ticks_follow_the_model(ops in prop::collection::vec(op(), 1..100)) {
        let mut map = Map::default();
        let mut model = Model { now: 1, ..Model::default() };
        // Ticks the test remembers, with their absolute time.
        let mut remembered: Vec<(Tick, u64)> = vec![(map.ticks().now(), 1)];
        let mut last_advance = None;
        for op in &ops {
            if let Some(tick) = apply(&mut map, &mut model, op) {
                remembered.push(tick);
                last_advance = Some(tick);
            }
            map.assert_invariants();
            map.ticks().assert_invariants(map.len());
            // A tick older than 2^31 cannot be told apart any more: forget it.
            remembered.retain(|&(_, at)| model.now - at < 1 << 31);
            for &(tick, at) in &remembered {
                let mut changed: Vec<u32> = map.changed_since(tick).collect();
                changed.sort_unstable();
                prop_assert_eq!(&changed, &model.changed_since(at), "changed since {:?}", tick);
                let mut added: Vec<u32> = map.added_since(tick).collect();
                added.sort_unstable();
                prop_assert_eq!(&added, &model.added_since(at), "added since {:?}", tick);
                let mut queried: Vec<u32> =
                    query((&map,)).changed_since(&map, tick).into_iter().map(|(key, _)| key).collect();
                queried.sort_unstable();
                prop_assert_eq!(&queried, &changed, "the query filter");
            }
            // `changed` is `changed_since` the tick the last advance ended.
            let previous = map.ticks().previous();
            let this_tick: Vec<u32> = query((&map,)).changed(&map).into_iter().map(|(key, _)| key).collect();
            prop_assert_eq!(this_tick, map.changed_since(previous).collect::<Vec<u32>>());
            // The tick the last advance ended, unless the sweep pulled it up to `MAX_AGE`.
            if let Some((tick, at)) = last_advance.filter(|&(_, at)| model.now - at < u64::from(MAX_AGE)) {
                prop_assert_eq!(previous, tick, "the last advance, at {}", at);
            }
            let values: BTreeMap<u32, u32> = map.iter().map(|(k, v)| (k, *v)).collect();
            let expected: BTreeMap<u32, u32> = model.rows.iter().map(|(&k, row)| (k, row.value)).collect();
            prop_assert_eq!(values, expected);
        }
    }
}

/// `changed_since` reads the stamps a block of 64 rows at a time: rows changed at the edges of
/// blocks, in a last block that is not full, in every row of a block and in none of one, each
/// yielded once, in dense order, as a filter of every row says; also `added_since` and
/// `size_hint` on the way.
#[test]
fn changed_rows_at_the_edges_of_blocks_are_each_found_once() {
    for len in [1_u32, 63, 64, 65, 127, 128, 129, 200, 256, 300] {
        let mut map = Map::default();
        map.extend((0..len).map(|key| (key * 3, key)));
        let seen = map.ticks_mut().advance();
        let mut rows: Vec<u32> = [0, 1, 62, 63, 64, 65, 127, 128, 191, len - 1]
            .into_iter()
            .chain(192..256) // every row of the fourth block
            .filter(|&row| row < len)
            .collect();
        rows.sort_unstable();
        rows.dedup();
        for &row in &rows {
            map[row * 3] += 1; // the key of dense row `row`
        }
        let expected: Vec<u32> = rows.iter().map(|&row| map.keys()[row as usize]).collect();
        let mut changed = map.changed_since(seen);
        assert!(changed.size_hint().1.is_some_and(|most| most >= expected.len()));
        let first = changed.next();
        assert_eq!(first, expected.first().copied(), "len {len}");
        let (least, most) = changed.size_hint();
        assert!(least < expected.len() && most.is_some_and(|m| m + 1 >= expected.len()));
        let rest: Vec<u32> = changed.collect();
        assert_eq!(rest, expected[1..], "len {len}");
        assert_eq!(map.added_since(seen).count(), 0);
        let later = map.ticks_mut().advance();
        map.insert(len * 3, 0);
        assert_eq!(map.added_since(later).collect::<Vec<_>>(), [len * 3]);
        assert_eq!(map.changed_since(later).collect::<Vec<_>>(), [len * 3]);
    }
}

/// `advance_by(0)` moves the clock as `advance` does: a write after it is newer than the tick
/// it returned, for `changed_since` and for a query's `changed` filter.
#[test]
fn advancing_by_zero_still_ends_the_tick() {
    let mut map = Map::default();
    map.extend((0..3).map(|key| (key, 0)));
    let seen = map.ticks_mut().advance_by(0);
    assert_eq!(map.changed_since(seen).count(), 0, "nothing written since");
    map[1] = 5;
    assert_eq!(map.changed_since(seen).collect::<Vec<_>>(), [1]);
    let changed: Vec<u32> = query((&map,)).changed(&map).into_iter().map(|(key, _)| key).collect();
    assert_eq!(changed, [1]);
}

#[test]
fn ticks_survive_the_wrap() {
    let mut map = Map::default();
    map.insert(1, 0);
    map.insert(2, 0);
    // Past the `u32` wrap several times, one row changed late in each lap.
    for lap in 0..5_u32 {
        let seen = map.ticks_mut().advance_by(1 << 30);
        assert_eq!(map.changed_since(seen).count(), 0, "lap {lap}");
        map.ticks_mut().advance_by(3 << 29);
        let late = map.ticks_mut().advance();
        map[2] = lap;
        assert_eq!(map.changed_since(late).collect::<Vec<_>>(), [2], "lap {lap}");
        assert_eq!(map.changed_since(seen).collect::<Vec<_>>(), [2], "lap {lap}");
        map.ticks().assert_invariants(map.len());
    }
    assert!(map.ticks().now().get() < 1 << 31, "the clock wrapped");
}

#[test]
fn a_panicking_hook_keeps_the_ticks_in_lockstep() {
    struct Grumpy;
    impl Observer<u32, u32> for Grumpy {
        fn removed(&mut self, key: u32, _value: &u32, _removed: Removed<u32>) {
            assert_ne!(key, 3, "unlucky remove");
        }
    }
    let mut map =
        SparseMap::<u32, u32, u32, (Ticks, Grumpy)>::with_observer((Ticks::new(), Grumpy));
    map.extend((0..8).map(|key| (key, key)));
    let seen = map.ticks_mut().advance();
    map[7] = 70;
    // Ticks hears of the removal before the hook that panics: both see a consistent map.
    assert!(catch_unwind(AssertUnwindSafe(|| map.remove(3))).is_err());
    map.assert_invariants();
    map.ticks().assert_invariants(map.len());
    assert_eq!(map.changed_since(seen).collect::<Vec<_>>(), [7]);
    assert!(
        catch_unwind(AssertUnwindSafe(|| map.retain(|key, _| {
            assert_ne!(key, 5, "bad key");
            true
        })))
        .is_err()
    );
    map.assert_invariants();
    map.ticks().assert_invariants(map.len());
}

#[test]
fn a_tracked_journaled_map_reports_to_both() {
    let mut map = SparseMap::<u32, u8, u32, (Ticks, Journal<u32>)>::default();
    map.extend((0..4).map(|key| (key, 0)));
    let seen = map.ticks_mut().advance();
    map.observer_mut().1.clear();
    *map.get_mut(2).unwrap() = 1;
    assert_eq!(map.changed_since(seen).collect::<Vec<_>>(), [2]);
    assert_eq!(map.observer().1.patch().rows().collect::<Vec<_>>(), [2]);
}

/// An entity despawned from the allocator alone leaves its row behind; the newer generation of
/// its slot that is inserted next takes that row over. To the change ticks it is a new row
/// (added and changed), not a change of the old one; an insert over a present key stays a
/// change, not an addition. A derived storage with `Ticks` hears the same.
#[test]
fn a_newer_generation_taking_over_a_row_counts_as_added() {
    let mut entities = sparse_soa::Entities::new();
    let [a, b] = [(); 2].map(|()| entities.spawn());
    let mut map = SparseMap::<sparse_soa::Entity, u32, u32, Ticks>::default();
    let mut glow = GlowSoa::with_observer(Ticks::default());
    for (key, value) in [(a, 1), (b, 2)] {
        map.insert(key, value);
        glow.insert(key, Glow { level: value });
    }
    entities.despawn(a); // the rows stay
    let a2 = entities.spawn();
    assert_eq!(a2.index(), a.index());
    let seen = map.ticks_mut().advance();
    assert_eq!(glow.ticks_mut().advance(), seen);
    assert_eq!(map.insert(a2, 10), Some(1));
    assert_eq!(glow.insert(a2, Glow { level: 10 }), Some(Glow { level: 1 }));
    map.insert(b, 20); // present: changed, not added
    glow.insert(b, Glow { level: 20 });
    assert_eq!(map.added_since(seen).collect::<Vec<_>>(), [a2]);
    assert_eq!(map.changed_since(seen).collect::<Vec<_>>(), [a2, b]);
    assert_eq!(glow.added_since(seen).collect::<Vec<_>>(), [a2]);
    assert_eq!(glow.changed_since(seen).collect::<Vec<_>>(), [a2, b]);
    map.ticks().assert_invariants(map.len());
    glow.ticks().assert_invariants(glow.len());
}

/// A derived storage keyed by `Entity`, for the test above.
#[derive(sparse_soa::SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = sparse_soa::Entity)]
struct Glow {
    level: u32,
}

/// A derived member for the group below, with ticks of its own.
#[derive(sparse_soa::SparseSoa, Clone, Copy, Debug, PartialEq)]
struct Heat {
    degrees: f32,
}

/// A group hands out its members' rows over the aligned prefix alone, so their observers hear a
/// write of those rows alone: a member's rows past the prefix are neither changed nor dirty,
/// through every mutable walk of the group.
#[test]
fn a_group_marks_only_its_prefix_written() {
    type Member = SparseMap<u32, f32, u32, (Ticks, Journal<u32>)>;
    type Group = sparse_soa::Group<(Member, HeatSoa<Ticks>)>;
    type Walk = fn(&mut Group);
    let walks: [(&str, Walk); 5] = [
        ("columns_mut", |group| {
            let (a, b) = group.columns_mut();
            a.values.iter_mut().for_each(|v| *v += 1.0);
            b.degrees.iter_mut().for_each(|d| *d += 1.0);
        }),
        ("iter_mut", |group| group.iter_mut().for_each(|(_, (a, b))| *a += *b.degrees)),
        ("rows_mut", |group| {
            let _ = group.rows_mut();
        }),
        ("query", |group| query((&mut *group,)).for_each(|_, ((a, _),)| *a += 1.0)),
        ("query's iterator", |group| {
            let mut q = query((&mut *group,));
            let mut iter = q.iter();
            while let Some((_, ((a, _),))) = iter.next() {
                *a += 1.0;
            }
        }),
    ];
    for (what, walk) in walks {
        // Keys 0..6 in the first member, 0..3 and 10..13 in the second: a prefix of 3 rows,
        // of 6 in each member.
        let mut first = Member::default();
        first.extend((0..6).map(|k| (k, 0.0)));
        let mut second = HeatSoa::with_observer(Ticks::default());
        for k in (0..3).chain(10..13) {
            second.insert(k, Heat { degrees: 1.0 });
        }
        let mut group = Group::new((first, second));
        assert_eq!(group.len(), 3);
        let seen = group.member_mut::<0>().observer_mut().0.advance();
        let seen_second = group.member_mut::<1>().observer_mut().advance();
        group.member_mut::<0>().observer_mut().1.clear();

        walk(&mut group);

        let (first, second) = group.members();
        let mut want: Vec<u32> = first.keys()[..3].to_vec();
        want.sort_unstable();
        let mut changed: Vec<u32> = first.changed_since(seen).collect();
        changed.sort_unstable();
        // Handing the rows out counts as writing them (`rows_mut` too, its rows unused).
        assert_eq!(changed, want, "{what}");
        assert_eq!(first.observer().1.patch().dirty_rows(), 3, "{what}: dirty rows");
        assert_eq!(second.changed_since(seen_second).count(), 3, "{what}");
    }
}

/// A growable storage's ticks clone at their length, as its values do: only a bounded
/// storage's copy keeps the room (see `allocation_bounds`).
#[test]
fn a_growable_storages_ticks_clone_at_their_length() {
    let mut map = SparseMap::<u32, u8, u32, Ticks>::default();
    map.extend((0..1000).map(|key| (key, 0)));
    map.clear();
    let copy = map.clone();
    assert_eq!(Observer::<u32, u8>::spare_rows(copy.observer()), 0);
    assert!(Observer::<u32, u8>::spare_rows(map.observer()) >= 1000);
}
