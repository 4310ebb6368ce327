//! Families deeper than two levels against a `BTreeMap` reference: a group with three nested
//! levels inside it (four prefixes, each inside the one around it), changed through the handles
//! of every level, despawns and retains of a `World`, and taken apart and nested again, with the
//! family's invariant checker and every level's prefix compared after every step.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use sparse_soa::group::Nested;
use sparse_soa::{Group, SparseMap, SparseSet, World, query};
use sparse_soa_test_support::model;

/// Level 0: `a` and `b` without `x0`. Level 1: and `c` without `x1`. Level 2: and `d`.
/// Level 3: and `e` without `x3`.
type Level3 = Nested<(SparseSet<u32>,), (SparseSet<u32>,)>;
type Level2 = Nested<(SparseMap<u32, u8>,), (), Level3>;
type Level1 = Nested<(SparseMap<u32, u16>,), (SparseSet<u32>,), Level2>;
type Family = Group<(SparseMap<u32, i32>, SparseSet<u32>), (SparseSet<u32>,), Level1>;

#[derive(Default, World)]
struct Scene {
    family: Family,
}

/// The storages, in the order of the model's fields.
const STORAGES: usize = 8;

#[derive(Clone, Debug)]
enum Op {
    Insert(usize, u32, i32),
    /// `key` into every member of levels 0 to the given depth: a row that reaches that level.
    InsertRow(u32, usize, i32),
    Remove(usize, u32),
    Despawn(u32),
    RemoveRow(u32),
    Retain(u32),
    AddOne,
    Renest,
    Unnest(u32),
    SortInnermostKeys,
    SortInnermostByA,
    SortInnermostUnstableByD,
    SortInnermostByKeyC,
}

fn key() -> impl Strategy<Value = u32> {
    prop_oneof![0..16_u32, 300..302_u32]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (0..STORAGES, key(), any::<i32>()).prop_map(|(s, k, v)| Op::Insert(s, k, v)),
        4 => (key(), 0..4_usize, any::<i32>()).prop_map(|(k, d, v)| Op::InsertRow(k, d, v)),
        6 => (0..STORAGES, key()).prop_map(|(s, k)| Op::Remove(s, k)),
        1 => key().prop_map(Op::Despawn),
        1 => key().prop_map(Op::RemoveRow),
        1 => (2..5_u32).prop_map(Op::Retain),
        1 => Just(Op::AddOne),
        1 => Just(Op::Renest),
        1 => key().prop_map(Op::Unnest),
        1 => Just(Op::SortInnermostKeys),
        1 => Just(Op::SortInnermostByA),
        1 => Just(Op::SortInnermostUnstableByD),
        1 => Just(Op::SortInnermostByKeyC),
    ]
}

/// Every storage of the family as a map (sets hold `0`): a, b, x0, c, x1, d, e, x3.
#[derive(Default)]
struct Model {
    storages: [BTreeMap<u32, i32>; STORAGES],
}

impl Model {
    fn holds(&self, storage: usize, key: u32) -> bool {
        self.storages[storage].contains_key(&key)
    }

    /// The keys of each level's prefix, from the group's inward.
    fn levels(&self) -> [BTreeSet<u32>; 4] {
        let level0: BTreeSet<u32> = self.storages[0]
            .keys()
            .copied()
            .filter(|&k| self.holds(1, k) && !self.holds(2, k))
            .collect();
        let level1: BTreeSet<u32> =
            level0.iter().copied().filter(|&k| self.holds(3, k) && !self.holds(4, k)).collect();
        let level2: BTreeSet<u32> = level1.iter().copied().filter(|&k| self.holds(5, k)).collect();
        let level3: BTreeSet<u32> =
            level2.iter().copied().filter(|&k| self.holds(6, k) && !self.holds(7, k)).collect();
        [level0, level1, level2, level3]
    }

    fn all(&self) -> BTreeSet<u32> {
        self.storages.iter().flat_map(BTreeMap::keys).copied().collect()
    }

    fn despawn(&mut self, key: u32) {
        for storage in &mut self.storages {
            storage.remove(&key);
        }
    }
}

fn set_keys(set: &SparseSet<u32>) -> BTreeMap<u32, i32> {
    set.iter().map(|key| (key, 0)).collect()
}

fn check(family: &Family, model: &Model) {
    family.assert_invariants();

    // Every storage holds what the reference holds.
    let (a, b) = family.members();
    let level1 = family.nested();
    let level2 = level1.nested();
    let level3 = level2.nested();
    let stored: [BTreeMap<u32, i32>; STORAGES] = [
        a.iter().map(|(key, &value)| (key, value)).collect(),
        set_keys(b),
        set_keys(&family.excluded().0),
        level1.members().inner().0.iter().map(|(key, &value)| (key, i32::from(value))).collect(),
        set_keys(&level1.excluded().inner().0),
        level2.members().inner().0.iter().map(|(key, &value)| (key, i32::from(value))).collect(),
        set_keys(&level3.members().inner().0),
        set_keys(&level3.excluded().inner().0),
    ];
    for (storage, (stored, expected)) in stored.iter().zip(&model.storages).enumerate() {
        assert_eq!(stored, expected, "storage {storage}");
    }

    // Each prefix holds exactly the keys that qualify, and starts the one around it.
    let expected = model.levels();
    let keys = [family.keys(), level1.keys(), level2.keys(), level3.keys()];
    for (depth, (keys, expected)) in keys.iter().zip(&expected).enumerate() {
        assert_eq!(&keys.iter().copied().collect::<BTreeSet<_>>(), expected, "level {depth}");
    }
    for depth in 1..4 {
        assert_eq!(&keys[depth - 1][..keys[depth].len()], keys[depth], "level {depth}");
    }
    let innermost: Vec<u32> = level3.members().inner().0.iter().take(level3.len()).collect();
    assert_eq!(innermost, level3.keys());
    for key in model.all() {
        assert_eq!(level3.contains(key), expected[3].contains(&key));
        assert_eq!(level2.contains(key), expected[2].contains(&key));
    }

    // The innermost level's rows, walked, looked up and queried, hold every level's values.
    let row =
        |key: u32| (model.storages[0][&key], model.storages[3][&key], model.storages[5][&key]);
    let mut walked = BTreeSet::new();
    for (key, ((((&a, ()), (&c,)), (&d,)), ((),))) in level3.iter() {
        assert_eq!((a, i32::from(c), i32::from(d)), row(key));
        assert!(walked.insert(key));
    }
    assert_eq!(walked, expected[3]);
    let mut queried = BTreeSet::new();
    query((&level3,)).for_each(|key, (((((&a, ()), (&c,)), (&d,)), ((),)),)| {
        assert_eq!((a, i32::from(c), i32::from(d)), row(key));
        queried.insert(key);
    });
    assert_eq!(queried, expected[3]);
    for key in model.all() {
        let found =
            level2.get(key).map(|(((&a, ()), (&c,)), (&d,))| (a, i32::from(c), i32::from(d)));
        assert_eq!(found, expected[2].contains(&key).then(|| row(key)));
    }
}

/// Stores `value` in `storage` through the family's handle for it; the value it replaced.
fn insert(family: &mut Family, storage: usize, key: u32, value: i32) -> Option<i32> {
    match storage {
        0 => family.member_mut::<0>().insert(key, value),
        1 => family.member_mut::<1>().insert(key, ()).map(|()| 0),
        2 => family.excluded_mut::<0>().insert(key, ()).map(|()| 0),
        3 => family.nested_member_mut::<0>().insert(key, low16(value)).map(i32::from),
        4 => family.level_excluded_mut::<1, 0>().insert(key, ()).map(|()| 0),
        5 => family.level_member_mut::<2, 0>().insert(key, low8(value)).map(i32::from),
        6 => family.level_member_mut::<3, 0>().insert(key, ()).map(|()| 0),
        _ => family.level_excluded_mut::<3, 0>().insert(key, ()).map(|()| 0),
    }
}

/// Removes `key` from `storage` through the family's handle for it; its value.
fn remove(family: &mut Family, storage: usize, key: u32) -> Option<i32> {
    match storage {
        0 => family.member_mut::<0>().remove(key),
        1 => family.member_mut::<1>().remove(key).map(|()| 0),
        2 => family.excluded_mut::<0>().remove(key).map(|()| 0),
        3 => family.level_member_mut::<1, 0>().remove(key).map(i32::from),
        4 => family.nested_excluded_mut::<0>().remove(key).map(|()| 0),
        5 => family.level_member_mut::<2, 0>().remove(key).map(i32::from),
        6 => family.level_member_mut::<3, 0>().remove(key).map(|()| 0),
        _ => family.level_excluded_mut::<3, 0>().remove(key).map(|()| 0),
    }
}

/// The low 16 bits of `value`.
fn low16(value: i32) -> u16 {
    let [a, b, ..] = value.to_le_bytes();
    u16::from_le_bytes([a, b])
}

/// The low 8 bits of `value`.
fn low8(value: i32) -> u8 {
    value.to_le_bytes()[0]
}

/// The value `storage` keeps of `value`.
fn kept(storage: usize, value: i32) -> i32 {
    match storage {
        0 => value,
        3 => i32::from(low16(value)),
        5 => i32::from(low8(value)),
        _ => 0,
    }
}

#[allow(clippy::too_many_lines, reason = "one arm per operation of the model")]
fn run(ops: &[Op]) {
    let mut scene = Scene::default();
    let mut model = Model::default();
    for op in ops {
        let family = &mut scene.family;
        match *op {
            Op::Insert(storage, key, value) => {
                let replaced = insert(family, storage, key, value);
                assert_eq!(replaced, model.storages[storage].insert(key, kept(storage, value)));
            }
            Op::InsertRow(key, depth, value) => {
                for storage in [0, 1, 3, 5, 6].into_iter().take(depth + 2) {
                    let replaced = insert(family, storage, key, value);
                    assert_eq!(replaced, model.storages[storage].insert(key, kept(storage, value)));
                }
            }
            Op::Remove(storage, key) => {
                let removed = remove(family, storage, key);
                assert_eq!(removed, model.storages[storage].remove(&key));
            }
            Op::Despawn(key) => {
                assert_eq!(scene.despawn(key), model.all().contains(&key));
                model.despawn(key);
            }
            Op::RemoveRow(key) => {
                assert_eq!(family.remove(key), model.all().contains(&key));
                model.despawn(key);
            }
            Op::Retain(modulus) => {
                let mut asked = Vec::new();
                scene.retain_entities(|key| {
                    asked.push(key);
                    key % modulus != 0
                });
                let unique: BTreeSet<u32> = asked.iter().copied().collect();
                assert_eq!(unique.len(), asked.len(), "a key was asked twice");
                assert_eq!(unique, model.all(), "every key of the family is asked once");
                for key in unique.into_iter().filter(|key| key % modulus == 0) {
                    model.despawn(key);
                }
            }
            Op::AddOne => {
                for (key, (a, ())) in family.iter_mut() {
                    *a = a.wrapping_add(1);
                    let value = model.storages[0].get_mut(&key).unwrap();
                    *value = value.wrapping_add(1);
                }
                for (key, (_, (c,))) in family.nested_mut().iter_mut() {
                    *c = c.wrapping_add(1);
                    model.storages[3].insert(key, i32::from(*c));
                }
                // Deeper levels through their mutable views, iterated and queried.
                for (key, (_, (d,))) in family.level_mut::<2>().iter_mut() {
                    *d = d.wrapping_add(1);
                    model.storages[5].insert(key, i32::from(*d));
                }
                let mut innermost = family.level_mut::<3>();
                query((&mut innermost,)).for_each(|key, (((((a, ()), _), (d,)), ((),)),)| {
                    *a = a.wrapping_sub(i32::from(*d));
                    model.storages[0].insert(key, *a);
                });
                let keys = innermost.keys().to_vec();
                for key in keys {
                    let ((((a, ()), _), _), _) = innermost.get_mut(key).unwrap();
                    *a = a.wrapping_mul(3);
                    model.storages[0].insert(key, *a);
                }
            }
            Op::Unnest(key) => {
                // Out whole, with the prefixes the levels had; the group changes alone; back in:
                // every level is aligned anew, whatever it held before.
                let (mut group, level1) = core::mem::take(family).unnest();
                assert_eq!(group.member_mut::<0>().remove(key), model.storages[0].remove(&key));
                *family = group.nest(level1);
            }
            Op::SortInnermostKeys => {
                family.sort_level_keys::<3>();
                assert!(family.nested().nested().nested().keys().is_sorted());
            }
            Op::SortInnermostByA => {
                family.sort_level_by::<3, _>(
                    |_, ((((a, ()), _), _), _), _, ((((b, ()), _), _), _)| a.cmp(b),
                );
                let level3 = family.nested().nested().nested();
                assert!(level3.iter().map(|(_, ((((a, ()), _), _), _))| *a).is_sorted());
            }
            Op::SortInnermostUnstableByD => {
                family.sort_level_unstable_by::<3, _>(|_, ((_, (a,)), _), _, ((_, (b,)), _)| {
                    b.cmp(a)
                });
                let level3 = family.nested().nested().nested();
                assert!(level3.iter().map(|(_, ((_, (d,)), _))| *d).is_sorted_by(|a, b| a >= b));
            }
            Op::SortInnermostByKeyC => {
                family.sort_level_by_key::<3, _, _>(|_, (((_, (c,)), _), _)| *c);
                let level3 = family.nested().nested().nested();
                assert!(level3.iter().map(|(_, (((_, (c,)), _), _))| *c).is_sorted());
            }
            Op::Renest => {
                // Taken apart level by level and nested again: every level is aligned anew.
                let (group, level1) = core::mem::take(family).unnest();
                group.assert_invariants();
                let (level1, level2) = level1.unnest();
                let (level2, level3) = level2.unnest();
                *family = group.nest(level1.nest(level2.nest(level3)));
            }
        }
        check(&scene.family, &model);
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn a_family_of_four_levels_keeps_every_prefix(
        ops in prop::collection::vec(op(), 1..if cfg!(miri) { 30 } else { 200 }),
    ) {
        run(&ops);
    }
}

#[test]
fn every_level_by_hand() {
    use Op::*;
    let mut ops = Vec::new();
    for key in [1, 2, 3] {
        ops.extend((0..STORAGES).filter(|s| ![2, 4, 7].contains(s)).map(|s| Insert(s, key, 7)));
    }
    ops.extend([
        Insert(7, 2, 0), // 2 leaves level 3 only
        Remove(5, 1),    // 1 leaves levels 2 and 3
        Insert(5, 1, 9), // and joins them again
        Insert(4, 3, 0), // 3 leaves levels 1 to 3
        Remove(4, 3),
        Remove(1, 2), // 2 leaves every level
        Renest,
        RemoveRow(1),
        Despawn(3),
        AddOne,
    ]);
    run(&ops);
}

#[test]
fn levels_nest_innermost_first_and_align_when_the_group_takes_them() {
    let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    let level = Nested::new((set(&[5, 4, 3, 2]),))
        .nest(Nested::new((set(&[2, 3, 4]),)).nest(Nested::new((set(&[4, 3]),))));
    let family = Group::new((set(&[1, 2, 3, 4, 5]),)).nest(level);
    family.assert_invariants();
    let [l0, l1, l2, l3] = [family.len(), family.nested().len(), family.nested().nested().len(), {
        family.nested().nested().nested().len()
    }];
    assert_eq!((l0, l1, l2, l3), (5, 4, 3, 2));
    let mut innermost = family.nested().nested().nested().keys().to_vec();
    innermost.sort_unstable();
    assert_eq!(innermost, [3, 4]);
}

mod world {
    //! A family of three levels as a field of a `World` keyed by entities: whole rows reach
    //! every level, batches too, and a despawn leaves every level.

    use sparse_soa::group::Nested;
    use sparse_soa::{Entities, Entity, Group, SparseSoa, World};

    #[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
    #[sparse_soa(key = Entity)]
    struct Position {
        x: i32,
    }

    #[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
    #[sparse_soa(key = Entity)]
    struct Velocity {
        dx: i32,
    }

    #[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
    #[sparse_soa(key = Entity)]
    struct Sprite {
        id: u16,
    }

    #[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
    #[sparse_soa(key = Entity)]
    struct Glow {
        level: u8,
    }

    #[derive(SparseSoa)]
    #[sparse_soa(key = Entity)]
    struct Hidden;

    /// Moving; moving with a sprite, not hidden (drawn); drawn and glowing.
    #[derive(Default, World)]
    #[allow(clippy::type_complexity, reason = "the derive reads the parts from the field's type")]
    struct Game {
        entities: Entities,
        #[sparse_soa(tag = Hidden)]
        motion: Group<
            (PositionSoa, VelocitySoa),
            (),
            Nested<(SpriteSoa,), (HiddenSoa,), Nested<(GlowSoa,)>>,
        >,
    }

    fn sorted(keys: &[Entity]) -> Vec<Entity> {
        let mut keys = keys.to_vec();
        keys.sort_unstable();
        keys
    }

    #[test]
    fn rows_reach_every_level_of_a_family() {
        let mut game = Game::default();
        let a = game.spawn((
            Position { x: 1 },
            Velocity { dx: 1 },
            Sprite { id: 7 },
            Glow { level: 3 },
        ));
        let b = game.spawn((Position { x: 2 }, Velocity { dx: 2 }, Sprite { id: 8 }));
        let c = game.spawn((
            Glow { level: 1 },
            Sprite { id: 9 },
            Position { x: 3 },
            Velocity { dx: 3 },
            Hidden,
        ));
        let d = game.spawn((Position { x: 4 }, Glow { level: 4 }));
        game.motion.assert_invariants();
        assert_eq!(sorted(game.motion.keys()), [a, b, c]);
        assert_eq!(sorted(game.motion.nested().keys()), [a, b]);
        assert_eq!(game.motion.nested().nested().keys(), &[a]);

        // Components added to live entities join the levels they complete.
        game.insert(b, Glow { level: 2 });
        game.insert(d, (Velocity { dx: 4 }, Sprite { id: 4 }));
        game.motion.assert_invariants();
        assert_eq!(sorted(game.motion.nested().nested().keys()), [a, b, d]);
        let glowing = game.motion.nested().nested();
        let (((position, _), (sprite,)), (glow,)) = glowing.get(d).unwrap();
        assert_eq!((*position.x, *sprite.id, *glow.level), (4, 4, 4));

        // Hiding takes an entity out of the levels inside the drawn one too.
        game.insert(a, Hidden);
        assert_eq!(sorted(game.motion.nested().nested().keys()), [b, d]);

        // Despawning takes an entity from every storage of every level.
        assert!(game.despawn(b));
        assert!(game.despawn(c));
        game.motion.assert_invariants();
        assert_eq!(game.motion.nested().nested().keys(), &[d]);
        let (glows,) = game.motion.nested().nested().members().inner();
        assert!(!glows.contains_key(b) && !glows.contains_key(c));
    }

    #[test]
    fn a_dropped_batch_fills_every_level_as_spawning_one_by_one() {
        let row = |i: u16| {
            let x = i32::from(i);
            (Position { x }, Velocity { dx: x }, Sprite { id: i }, Glow { level: (i % 7) as u8 })
        };
        let mut batched = Game::default();
        let mut single = Game::default();
        for game in [&mut batched, &mut single] {
            game.spawn((Position { x: -1 }, Velocity { dx: 0 }, Glow { level: 0 }));
            game.spawn((Sprite { id: 0 }, Glow { level: 9 }));
        }
        drop(batched.spawn_batch((0..600).map(row)));
        for i in 0..600 {
            single.spawn(row(i));
        }
        batched.motion.assert_invariants();
        assert_eq!(batched.entities, single.entities);
        assert_eq!(batched.motion.keys(), single.motion.keys());
        assert_eq!(batched.motion.nested().keys(), single.motion.nested().keys());
        assert_eq!(batched.motion.nested().nested().keys(), single.motion.nested().nested().keys());
        assert_eq!(batched.motion.nested().nested().len(), 600);
    }
}

#[test]
fn a_family_taken_apart_and_changed_aligns_every_level_anew() {
    let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    let level = Nested::new((set(&[1, 2, 3]),)).nest(Nested::new((set(&[1, 2]),)));
    let family = Group::new((set(&[1, 2, 3]),)).nest(level);
    assert_eq!(family.nested().nested().len(), 2);
    let (mut group, level) = family.unnest();
    group.member_mut::<0>().remove(1);
    let family = group.nest(level);
    family.assert_invariants();
    assert_eq!(family.nested().nested().keys(), &[2]);
}

#[test]
fn a_row_removed_from_inside_every_level_keeps_the_levels_around_it() {
    use Op::*;
    // Keys 1 to 4 in every level but the innermost, which holds 1 to 3: removing 1 (the first
    // row of every prefix) moves the innermost prefix's last row into its place in every level.
    let mut ops = Vec::new();
    for key in 1..=4 {
        ops.extend(
            [0, 1, 3, 5].map(|storage| Insert(storage, key, 10 * i32::try_from(key).unwrap())),
        );
        if key < 4 {
            ops.push(Insert(6, key, 0));
        }
    }
    ops.extend([RemoveRow(1), Despawn(2), RemoveRow(3), Despawn(4)]);
    run(&ops);
}

#[test]
fn a_deeper_level_stands_where_a_group_does_in_a_query() {
    let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    let map = |keys: &[u32]| keys.iter().map(|&k| (k, k * 10)).collect::<SparseMap<u32, u32>>();
    let level = Nested::new((set(&[1, 2, 3, 4, 5, 6]),)).nest(Nested::new((set(&[2, 4, 6]),)));
    let family = Group::new((map(&[1, 2, 3, 4, 5, 6, 7]),)).nest(level);
    let level2 = family.nested().nested();
    let others = map(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let marked = set(&[4, 7]);

    // As a filter: present (`with`), absent (`without`), and driving by the level's order.
    let mut with = Vec::new();
    query((&others,)).with(&level2).for_each(|key, _| with.push(key));
    with.sort_unstable();
    assert_eq!(with, [2, 4, 6]);
    let mut without = Vec::new();
    query((&others,)).without(&level2).for_each(|key, _| without.push(key));
    without.sort_unstable();
    assert_eq!(without, [1, 3, 5, 7, 8]);
    let mut driven = Vec::new();
    query((&others, &level2))
        .drive_by(&level2)
        .without(&marked)
        .for_each(|key, _| driven.push(key));
    let expected: Vec<u32> = level2.keys().iter().copied().filter(|&k| k != 4).collect();
    assert_eq!(driven, expected);

    // Lookups through a query over the level apply its prefix.
    let query = query((&level2, &others));
    assert!(query.contains(2) && !query.contains(3));
    let ((((a,), ((),)), ((),)), other) = query.get(6).unwrap();
    assert_eq!((*a, *other), (60, 60));
}

#[test]
fn a_family_of_eight_groups_keeps_every_prefix() {
    // Key k is in the storages of levels 0 to k % 8, so level `d` holds the keys with
    // `k % 8 >= d`: 64, 56, ..., 8 keys.
    let set = |level: u32| (0..64).filter(|k| k % 8 >= level).collect::<SparseSet<u32>>();
    let level = |d: u32| Nested::new((set(d),));
    let mut family =
        Group::new((set(0),)).nest(level(1).nest(
            level(2).nest(level(3).nest(level(4).nest(level(5).nest(level(6).nest(level(7)))))),
        ));
    family.assert_invariants();
    let l7 = family.nested().nested().nested().nested().nested().nested().nested().len();
    assert_eq!((family.len(), family.nested().len(), l7), (64, 56, 8));
    // Removing a key from level 4's storage takes it out of levels 4 to 7 only.
    family.level_member_mut::<4, 0>().remove(7);
    family.level_member_mut::<7, 0>().remove(15);
    family.assert_invariants();
    let level4 = family.nested().nested().nested().nested();
    assert_eq!(level4.len(), 31);
    assert_eq!(level4.nested().nested().nested().len(), 6);
    family.sort_level_keys::<7>();
    let innermost = family.nested().nested().nested().nested().nested().nested().nested();
    assert_eq!(innermost.keys(), &[23, 31, 39, 47, 55, 63]);
    let mut level7 = family.level_mut::<7>();
    assert_eq!(level7.iter_mut().count(), 6);
}

#[test]
fn levels_nest_outermost_first_as_innermost_first() {
    let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
    let level = |keys: &[u32]| Nested::new((set(keys),));
    let (a, b, c, d) = (&[1, 2, 3, 4, 5][..], &[5, 4, 3, 2][..], &[2, 3, 4][..], &[4, 3][..]);
    let inward = Group::new((set(a),)).nest(level(b).nest(level(c).nest(level(d))));
    let outward = Group::new((set(a),)).nest(level(b)).nest(level(c)).nest(level(d));
    let detached = Group::new((set(a),)).nest(level(b).nest(level(c)).nest(level(d)));
    for family in [&outward, &detached] {
        family.assert_invariants();
        assert_eq!(family.keys(), inward.keys());
        assert_eq!(
            family.nested().nested().nested().keys(),
            inward.nested().nested().nested().keys()
        );
    }
}
