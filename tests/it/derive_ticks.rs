//! Change ticks per field (`#[sparse_soa(track)]`) of a derived storage, against a `BTreeMap`
//! model with absolute (`u64`) ticks: after every step of random operations (writes through
//! rows, columns and `set_if_neq`, untracked writes, moves, removals, a clock advanced by 1 or
//! by up to 2^31 at once), `changed_since`, `added_since`, each tracked field's
//! `{field}_changed_since` and the query filter equal the model's, and the stamps keep the
//! storage's length. By hand: the memory a tracked field costs, a bounded storage that never
//! allocates, an observer beside the field ticks, and the wrap.

use std::collections::BTreeMap;

use proptest::prelude::*;
use sparse_soa::observe::{Journal, MAX_AGE, Tick};
use sparse_soa::{SparseSoa, query};
use sparse_soa_test_support::{allocations_during, model};

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
struct Unit {
    #[sparse_soa(track)]
    pos: u32,
    #[sparse_soa(track)]
    hp: u32,
    /// Not tracked: writes to it are no change.
    level: u8,
}

#[derive(Clone, Copy, Debug)]
struct Row {
    unit: Unit,
    added: u64,
    /// When a tracked field last changed (or the row was added).
    changed: u64,
    pos: u64,
    hp: u64,
}

#[derive(Default)]
struct Model {
    rows: BTreeMap<u32, Row>,
    now: u64,
}

impl Model {
    fn newer(&self, stamp: u64, since: u64) -> bool {
        let floor = self.now.saturating_sub(u64::from(MAX_AGE));
        stamp.max(floor) > since.max(floor)
    }

    fn since(&self, since: u64, stamp: impl Fn(&Row) -> u64) -> Vec<u32> {
        self.rows.iter().filter(|(_, row)| self.newer(stamp(row), since)).map(|(&k, _)| k).collect()
    }

    fn touch(&mut self, key: u32, pos: bool, hp: bool) {
        let now = self.now;
        if let Some(row) = self.rows.get_mut(&key) {
            if pos {
                row.pos = now;
            }
            if hp {
                row.hp = now;
            }
            if pos || hp {
                row.changed = now;
            }
        }
    }

    fn touch_all(&mut self, pos: bool, hp: bool) {
        let keys: Vec<u32> = self.rows.keys().copied().collect();
        for key in keys {
            self.touch(key, pos, hp);
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u32, u32),
    /// Keys `start..start + count`, inserted one by one: rows past one block of stamps.
    Extend(u32, u32),
    Remove(u32),
    GetMut(u32),
    SetIfNeq(u32, u32, u32, u8),
    Untracked(u32),
    PosColumn,
    LevelColumn,
    ColumnsMut,
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
        5 => (key.clone(), 0..3_u32, 0..3_u32).prop_map(|(k, p, h)| Op::Insert(k, p, h)),
        1 => (0..160_u32, 0..100_u32).prop_map(|(start, count)| Op::Extend(start, count)),
        2 => key.clone().prop_map(Op::Remove),
        2 => key.clone().prop_map(Op::GetMut),
        4 => (key.clone(), 0..3_u32, 0..3_u32, 0..2_u8).prop_map(|(k, p, h, l)| Op::SetIfNeq(k, p, h, l)),
        1 => key.prop_map(Op::Untracked),
        1 => Just(Op::PosColumn),
        1 => Just(Op::LevelColumn),
        1 => Just(Op::ColumnsMut),
        1 => (2..5_u32).prop_map(Op::Retain),
        1 => Just(Op::Sort),
        1 => (0..30_usize).prop_map(Op::Truncate),
        1 => Just(Op::Drain),
        1 => (0..30_usize, 0..30_usize).prop_map(|(a, b)| Op::Swap(a, b)),
        4 => Just(Op::Advance),
        1 => prop_oneof![0..1000_u32, (1_u32 << 28)..(1_u32 << 31)].prop_map(Op::AdvanceBy),
    ]
}

#[allow(clippy::too_many_lines, reason = "one arm per operation of the model")]
fn apply(units: &mut UnitSoa, model: &mut Model, op: &Op) -> Option<(Tick, u64)> {
    match *op {
        Op::Insert(k, pos, hp) => {
            let unit = Unit { pos, hp, level: 0 };
            units.insert(k, unit);
            let now = model.now;
            let row = model.rows.entry(k).or_insert(Row {
                unit,
                added: now,
                changed: now,
                pos: now,
                hp: now,
            });
            row.unit = unit;
            model.touch(k, true, true);
        }
        Op::Remove(k) => {
            units.remove(k);
            model.rows.remove(&k);
        }
        Op::GetMut(k) => {
            // A row handed out whole counts for every tracked field, written or not.
            if let Some(row) = units.get_mut(k) {
                *row.level += 0;
            }
            model.touch(k, true, true);
        }
        Op::SetIfNeq(k, pos, hp, level) => {
            let unit = Unit { pos, hp, level };
            let changed = units.set_if_neq(k, unit);
            if let Some(row) = model.rows.get_mut(&k) {
                let old = row.unit;
                row.unit = unit;
                assert_eq!(changed, old != unit);
                model.touch(k, old.pos != pos, old.hp != hp);
            } else {
                assert!(!changed);
            }
        }
        Op::Untracked(k) => {
            if let Some(row) = units.get_mut_untracked(k) {
                *row.hp ^= 1;
                model.rows.get_mut(&k).unwrap().unit.hp ^= 1;
            }
        }
        Op::PosColumn => {
            for pos in units.pos_mut() {
                *pos = pos.wrapping_add(1);
            }
            model.rows.values_mut().for_each(|row| row.unit.pos = row.unit.pos.wrapping_add(1));
            model.touch_all(true, false);
        }
        Op::LevelColumn => {
            for level in units.level_mut() {
                *level ^= 1;
            }
            model.rows.values_mut().for_each(|row| row.unit.level ^= 1);
        }
        Op::ColumnsMut => {
            let columns = units.columns_mut();
            for (hp, level) in columns.hp.iter_mut().zip(columns.level.iter()) {
                *hp += u32::from(*level);
            }
            model.rows.values_mut().for_each(|row| row.unit.hp += u32::from(row.unit.level));
            model.touch_all(true, true);
        }
        Op::Retain(m) => {
            units.retain(|key, _| key % m != 0);
            model.rows.retain(|key, _| key % m != 0);
            model.touch_all(true, true);
        }
        Op::Sort => units.sort_unstable_by(|_, a, _, b| a.pos.cmp(b.pos)),
        Op::Truncate(len) => {
            let gone: Vec<u32> = units.keys().iter().skip(len).copied().collect();
            units.truncate(len);
            for key in gone {
                model.rows.remove(&key);
            }
        }
        Op::Drain => {
            units.drain().take(1).for_each(drop);
            model.rows.clear();
        }
        Op::Swap(a, b) => {
            if a < units.len() && b < units.len() {
                units.swap_indices(a, b);
            }
        }
        Op::Extend(start, count) => {
            for k in start..start + count {
                apply(units, model, &Op::Insert(k, k % 3, k % 2));
            }
        }
        Op::Advance => {
            let tick = units.ticks_mut().advance();
            model.now += 1;
            return Some((tick, model.now - 1));
        }
        Op::AdvanceBy(n) => {
            let tick = units.ticks_mut().advance_by(n);
            // 0 moves the clock as 1 does.
            let n = n.max(1);
            model.now += u64::from(n);
            return Some((tick, model.now - u64::from(n)));
        }
    }
    None
}

fn sorted(keys: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut keys: Vec<u32> = keys.collect();
    keys.sort_unstable();
    keys
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn field_ticks_follow_the_model(ops in prop::collection::vec(op(), 1..100)) {
        let mut units = UnitSoa::new();
        let mut model = Model { now: 1, ..Model::default() };
        let mut remembered: Vec<(Tick, u64)> = vec![(units.ticks().now(), 1)];
        for op in &ops {
            if let Some(tick) = apply(&mut units, &mut model, op) {
                remembered.push(tick);
            }
            sparse_soa::Storage::assert_invariants(&units);
            units.ticks().assert_invariants(units.len());
            remembered.retain(|&(_, at)| model.now - at < 1 << 31);
            for &(tick, at) in &remembered {
                prop_assert_eq!(sorted(units.changed_since(tick)), model.since(at, |row| row.changed), "changed since {:?}", tick);
                prop_assert_eq!(sorted(units.added_since(tick)), model.since(at, |row| row.added), "added since {:?}", tick);
                prop_assert_eq!(sorted(units.pos_changed_since(tick)), model.since(at, |row| row.pos), "pos since {:?}", tick);
                prop_assert_eq!(sorted(units.hp_changed_since(tick)), model.since(at, |row| row.hp), "hp since {:?}", tick);
                let queried = query((&units,)).changed_since(&units, tick).into_iter().map(|(key, _)| key);
                prop_assert_eq!(sorted(queried), model.since(at, |row| row.changed), "the query filter");
            }
            let rows: BTreeMap<u32, Unit> =
                units.iter().map(|(k, row)| (k, Unit { pos: *row.pos, hp: *row.hp, level: *row.level })).collect();
            let expected: BTreeMap<u32, Unit> = model.rows.iter().map(|(&k, row)| (k, row.unit)).collect();
            prop_assert_eq!(rows, expected);
        }
    }
}

#[test]
fn a_tracked_field_costs_four_bytes_a_row() {
    #[derive(SparseSoa)]
    struct Plain {
        pos: u32,
        hp: u32,
        level: u8,
    }
    #[derive(SparseSoa)]
    struct OneTracked {
        #[sparse_soa(track)]
        pos: u32,
        hp: u32,
        level: u8,
    }
    let rows = if cfg!(miri) { 100 } else { 1000 };
    let mut units = UnitSoa::with_capacity(rows);
    let mut one = OneTrackedSoa::with_capacity(rows);
    let mut plain = PlainSoa::with_capacity(rows);
    for key in 0..rows as u32 {
        units.insert(key, Unit { pos: 0, hp: 0, level: 0 });
        one.insert(key, OneTracked { pos: 0, hp: 0, level: 0 });
        plain.insert(key, Plain { pos: 0, hp: 0, level: 0 });
    }
    // When each row was added takes 4 bytes a row, and each tracked field 4 more.
    assert_eq!(one.allocated_bytes() - plain.allocated_bytes(), rows * (4 + 4));
    assert_eq!(units.allocated_bytes() - one.allocated_bytes(), rows * 4);
}

#[test]
fn a_bounded_tracked_storage_never_allocates() {
    let mut units = UnitSoa::bounded(64, 64);
    let ((), allocations) = allocations_during(|| {
        for round in 0..4 {
            units.extend((0..64).map(|key| (key, Unit { pos: key, hp: round, level: 0 })));
            units.ticks_mut().advance();
            for key in (0..64).step_by(3) {
                units.remove(key);
            }
            units.pos_mut()[0] += 1;
            units.retain(|key, _| key % 2 == 0);
            units.clear();
        }
    });
    assert_eq!(allocations, 0);
}

#[test]
fn an_observer_hears_the_rows_beside_the_field_ticks() {
    let mut units = UnitSoa::with_observer(Journal::new());
    units.insert(1, Unit { pos: 0, hp: 0, level: 0 });
    units.insert(2, Unit { pos: 0, hp: 0, level: 0 });
    let seen = units.ticks_mut().advance();
    units.observer_mut().clear();
    units.hp_mut()[1] = 5;
    assert_eq!(units.hp_changed_since(seen).count(), 2, "a column is one summary stamp");
    assert_eq!(units.pos_changed_since(seen).count(), 0);
    assert_eq!(units.observer().patch().dirty_rows(), 2);
    // Equal values are no change, to the ticks nor to the observer.
    units.observer_mut().clear();
    assert!(!units.set_if_neq(1, Unit { pos: 0, hp: 0, level: 0 }));
    assert_eq!(units.observer().patch().dirty_rows(), 0);
    let (units, journal) = units.into_unobserved();
    assert!(journal.changes().unwrap().next().is_none());
    assert_eq!(units.hp_changed_since(seen).count(), 2, "the ticks stay with the storage");
}

#[test]
fn field_ticks_survive_the_wrap() {
    let mut units = UnitSoa::new();
    units.insert(1, Unit { pos: 0, hp: 0, level: 0 });
    units.insert(2, Unit { pos: 0, hp: 0, level: 0 });
    for lap in 0..5_u32 {
        let seen = units.ticks_mut().advance_by(1 << 30);
        assert_eq!(units.pos_changed_since(seen).count(), 0, "lap {lap}");
        units.ticks_mut().advance_by(3 << 29);
        let late = units.ticks_mut().advance();
        *units.get_mut(2).unwrap().pos = lap;
        assert_eq!(units.pos_changed_since(late).collect::<Vec<_>>(), [2], "lap {lap}");
        assert_eq!(units.hp_changed_since(seen).collect::<Vec<_>>(), [2], "lap {lap}");
        units.ticks().assert_invariants(units.len());
    }
}

/// A row's `changed_since` reads both tracked columns a block of 64 rows at a time: a row
/// counts when either field changed, at the edges of blocks and in a last block that is not
/// full, each once, in dense order.
#[test]
fn a_row_changed_in_either_field_is_found_once_across_blocks() {
    for len in [1_u32, 64, 65, 130] {
        let mut units: UnitSoa =
            (0..len).map(|key| (key, Unit { pos: 0, hp: 0, level: 0 })).collect();
        let seen = units.ticks_mut().advance();
        let by_pos = [0, 63, 64, 129].into_iter().filter(|&key| key < len);
        let by_hp = [0, 1, 64, 128].into_iter().filter(|&key| key < len);
        // `set_if_neq` stamps only the fields whose values differ (`get_mut` would stamp both).
        for key in by_pos {
            assert!(units.set_if_neq(key, Unit { pos: 1, hp: 0, level: 0 }));
        }
        for key in by_hp {
            let pos = *units.get(key).expect("held").pos;
            assert!(units.set_if_neq(key, Unit { pos, hp: 1, level: 0 }));
        }
        if len > 1 {
            // Row 1 changed in `hp` alone.
            assert!(units.pos_changed_since(seen).count() < units.changed_since(seen).count());
        }
        let mut expected: Vec<u32> =
            [0, 1, 63, 64, 128, 129].into_iter().filter(|&key| key < len).collect();
        expected.sort_unstable_by_key(|&key| units.get_index_of(key));
        assert_eq!(units.changed_since(seen).collect::<Vec<_>>(), expected, "len {len}");
    }
}

/// A tracked storage in a group, or excluded by one, or in a family's inner level, keeps its
/// clock within reach: each handle that shows it read-only advances it, and the writes after
/// the new tick are the changes after it.
#[test]
fn a_grouped_tracked_storage_advances_its_clock() {
    use sparse_soa::group::Nested;
    use sparse_soa::observe::Ticks;
    use sparse_soa::{Group, SparseMap};

    let unit = |pos| Unit { pos, hp: 100, level: 1 };
    let units: UnitSoa = (0..4).map(|key| (key, unit(key))).collect();
    let speeds: SparseMap<u32, f32, u32, Ticks> = (0..4).map(|key| (key, 0.0)).collect();
    let mut group = Group::new((units, speeds));

    let seen = group.member_mut::<0>().ticks_mut().advance();
    *group.member_mut::<0>().get_mut(2).unwrap().hp -= 1;
    assert_eq!(sorted(group.members().0.hp_changed_since(seen)), [2]);
    let later = group.member_mut::<0>().ticks_mut().advance();
    assert_ne!(later, seen);
    assert_eq!(group.members().0.hp_changed_since(later).count(), 0);
    // A member whose observer tracks: the same handle.
    let seen = group.member_mut::<1>().ticks_mut().advance();
    *group.member_mut::<1>().get_mut(3).unwrap() = 1.0;
    assert_eq!(sorted(group.members().1.changed_since(seen)), [3]);

    // Excluded by a group.
    let frozen: UnitSoa = [(1, unit(1))].into_iter().collect();
    let tags: SparseMap<u32, ()> = (0..4).map(|key| (key, ())).collect();
    let mut group = Group::with_excluded((tags,), (frozen,));
    let seen = group.excluded_mut::<0>().ticks_mut().advance();
    *group.excluded_mut::<0>().get_mut(1).unwrap().pos += 1;
    assert_eq!(sorted(group.excluded().0.pos_changed_since(seen)), [1]);

    // In the inner level of a family, as a member and as an excluded storage.
    let members: UnitSoa = (0..4).map(|key| (key, unit(key))).collect();
    let outer: SparseMap<u32, ()> = (0..4).map(|key| (key, ())).collect();
    let excluded: UnitSoa = [(0, unit(0))].into_iter().collect();
    let mut family = Group::new((outer,)).nest(Nested::with_excluded((members,), (excluded,)));
    let seen = family.level_member_mut::<1, 0>().ticks_mut().advance();
    *family.level_member_mut::<1, 0>().get_mut(3).unwrap().hp = 7;
    assert_eq!(sorted(family.level_member_mut::<1, 0>().hp_changed_since(seen)), [3]);
    let seen = family.level_excluded_mut::<1, 0>().ticks_mut().advance();
    *family.level_excluded_mut::<1, 0>().get_mut(0).unwrap().hp = 7;
    assert_eq!(sorted(family.level_excluded_mut::<1, 0>().hp_changed_since(seen)), [0]);
    family.assert_invariants();
}

/// A tracked storage keyed by `Entity`, for the test below.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = sparse_soa::Entity)]
struct Mote {
    #[sparse_soa(track)]
    pos: u32,
    #[sparse_soa(track)]
    hp: u32,
}

/// The newer generation of a slot whose older entity left its row behind (despawned from the
/// allocator alone) takes that row over: a new row, so added, and every tracked field changed;
/// an insert over a present key changes every field and adds nothing.
#[test]
fn a_newer_generation_taking_over_a_row_is_added_with_every_field() {
    let mut entities = sparse_soa::Entities::new();
    let [a, b] = [(); 2].map(|()| entities.spawn());
    let mut motes: MoteSoa =
        [(a, Mote { pos: 1, hp: 1 }), (b, Mote { pos: 2, hp: 2 })].into_iter().collect();
    entities.despawn(a); // its row stays
    let a2 = entities.spawn();
    let seen = motes.ticks_mut().advance();
    assert_eq!(motes.insert(a2, Mote { pos: 3, hp: 3 }), Some(Mote { pos: 1, hp: 1 }));
    motes.insert(b, Mote { pos: 4, hp: 4 });
    assert_eq!(motes.added_since(seen).collect::<Vec<_>>(), [a2]);
    assert_eq!(motes.pos_changed_since(seen).collect::<Vec<_>>(), [a2, b]);
    assert_eq!(motes.hp_changed_since(seen).collect::<Vec<_>>(), [a2, b]);
    sparse_soa::Storage::assert_invariants(&motes);
    motes.ticks().assert_invariants(motes.len());
}
