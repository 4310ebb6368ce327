//! Groups against a `BTreeMap` reference: random sequences of inserts, removes, exclusions,
//! sorts, value changes, reserving, shrinking and despawns through a group (of a derived
//! storage, a map and a tag, with an excluded tag) and through ungrouped storages beside it in
//! a `World`, with the group's invariant checker after every step.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use sparse_soa::{Entities, Entity, Error, Group, SparseMap, SparseSet, SparseSoa, Storage, World};
use sparse_soa_test_support::model;
use sparse_soa_test_support::panics::Bomb;

#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Position {
    x: i32,
    label: String,
}

/// The group of the `u32` model: positions and masses aligned, a tag as a third member, and
/// frozen keys excluded.
type Moving = Group<(PositionSoa, SparseMap<u32, u16>, SparseSet<u32>), (SparseSet<u32>,)>;

#[derive(Default, World)]
struct Scene {
    moving: Moving,
    /// Ungrouped: sorted to follow the group.
    extra: PositionSoa,
}

#[derive(Clone, Debug)]
enum Op {
    InsertPosition(u32, i32),
    InsertMass(u32, u16),
    InsertTag(u32),
    RemovePosition(u32),
    RemoveMass(u32),
    RemoveTag(u32),
    Freeze(u32),
    Thaw(u32),
    Despawn(u32),
    Retain(u32),
    SortByX,
    SortKeys,
    SortUnstableByMass,
    AddOne,
    InsertExtra(u32, i32),
    RemoveExtra(u32),
    SortExtraAsGroup,
    Reserve(u8),
    ShrinkToFit,
}

fn key() -> impl Strategy<Value = u32> {
    prop_oneof![0..24_u32, 600..606_u32]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (key(), any::<i32>()).prop_map(|(k, x)| Op::InsertPosition(k, x)),
        4 => (key(), any::<u16>()).prop_map(|(k, m)| Op::InsertMass(k, m)),
        4 => key().prop_map(Op::InsertTag),
        2 => key().prop_map(Op::RemovePosition),
        2 => key().prop_map(Op::RemoveMass),
        2 => key().prop_map(Op::RemoveTag),
        2 => key().prop_map(Op::Freeze),
        2 => key().prop_map(Op::Thaw),
        2 => key().prop_map(Op::Despawn),
        1 => (2..5_u32).prop_map(Op::Retain),
        1 => Just(Op::SortByX),
        1 => Just(Op::SortKeys),
        1 => Just(Op::SortUnstableByMass),
        1 => Just(Op::AddOne),
        2 => (key(), any::<i32>()).prop_map(|(k, x)| Op::InsertExtra(k, x)),
        1 => key().prop_map(Op::RemoveExtra),
        1 => Just(Op::SortExtraAsGroup),
        1 => any::<u8>().prop_map(Op::Reserve),
        1 => Just(Op::ShrinkToFit),
    ]
}

fn position(key: u32, x: i32) -> Position {
    Position { x, label: format!("{key}:{x}") }
}

#[derive(Default)]
struct Model {
    positions: BTreeMap<u32, Position>,
    masses: BTreeMap<u32, u16>,
    tags: BTreeSet<u32>,
    frozen: BTreeSet<u32>,
    extra: BTreeMap<u32, Position>,
}

impl Model {
    fn aligned(&self) -> BTreeSet<u32> {
        self.positions
            .keys()
            .copied()
            .filter(|key| {
                self.masses.contains_key(key)
                    && self.tags.contains(key)
                    && !self.frozen.contains(key)
            })
            .collect()
    }

    fn despawn(&mut self, key: u32) {
        self.positions.remove(&key);
        self.masses.remove(&key);
        self.tags.remove(&key);
        self.frozen.remove(&key);
        self.extra.remove(&key);
    }
}

fn check(scene: &Scene, model: &Model) {
    let group = &scene.moving;
    group.assert_invariants();
    Storage::assert_invariants(&scene.extra);
    let (positions, masses, tags) = group.members();
    let stored: BTreeMap<u32, Position> = positions
        .iter()
        .map(|(key, p)| (key, Position { x: *p.x, label: p.label.clone() }))
        .collect();
    assert_eq!(stored, model.positions);
    let stored: BTreeMap<u32, u16> = masses.iter().map(|(key, &m)| (key, m)).collect();
    assert_eq!(stored, model.masses);
    assert_eq!(tags.iter().collect::<BTreeSet<_>>(), model.tags);
    assert_eq!(group.excluded().0.iter().collect::<BTreeSet<_>>(), model.frozen);
    let stored: BTreeMap<u32, Position> = scene
        .extra
        .iter()
        .map(|(key, p)| (key, Position { x: *p.x, label: p.label.clone() }))
        .collect();
    assert_eq!(stored, model.extra);

    // The prefix: exactly the qualifying keys, the same order in every member, views that
    // match the reference.
    let aligned = model.aligned();
    assert_eq!(group.len(), aligned.len());
    assert_eq!(group.keys().iter().copied().collect::<BTreeSet<_>>(), aligned);
    assert_eq!(&positions.keys()[..group.len()], group.keys());
    assert_eq!(&masses.keys()[..group.len()], group.keys());
    assert_eq!(&tags.as_slice()[..group.len()], group.keys());
    let mut walked = 0;
    for (key, (p, &m, ())) in group.iter() {
        assert_eq!(*p.x, model.positions[&key].x);
        assert_eq!(m, model.masses[&key]);
        assert!(group.contains(key) && group.get(key).is_some());
        walked += 1;
    }
    assert_eq!(walked, aligned.len());
    let (p, m, t) = group.columns();
    assert_eq!(
        (p.x.len(), m.values.len(), t.keys.len()),
        (aligned.len(), aligned.len(), aligned.len())
    );
}

#[allow(clippy::too_many_lines, reason = "one arm per operation of the model")]
fn run(ops: &[Op]) {
    let mut scene = Scene::default();
    let mut model = Model::default();
    for op in ops {
        match *op {
            Op::InsertPosition(key, x) => {
                let replaced = scene.moving.member_mut::<0>().insert(key, position(key, x));
                assert_eq!(replaced, model.positions.insert(key, position(key, x)));
            }
            Op::InsertMass(key, m) => {
                assert_eq!(
                    scene.moving.member_mut::<1>().insert(key, m),
                    model.masses.insert(key, m)
                );
            }
            Op::InsertTag(key) => {
                let held = scene.moving.member_mut::<2>().insert(key, ()).is_some();
                assert_eq!(held, !model.tags.insert(key));
            }
            Op::RemovePosition(key) => {
                assert_eq!(
                    scene.moving.member_mut::<0>().remove(key),
                    model.positions.remove(&key)
                );
            }
            Op::RemoveMass(key) => {
                assert_eq!(scene.moving.member_mut::<1>().remove(key), model.masses.remove(&key));
            }
            Op::RemoveTag(key) => {
                let held = scene.moving.member_mut::<2>().remove(key).is_some();
                assert_eq!(held, model.tags.remove(&key));
            }
            Op::Freeze(key) => {
                scene.moving.excluded_mut::<0>().insert(key, ());
                model.frozen.insert(key);
            }
            Op::Thaw(key) => {
                scene.moving.excluded_mut::<0>().remove(key);
                model.frozen.remove(&key);
            }
            Op::Despawn(key) => {
                let held = model.positions.contains_key(&key)
                    || model.masses.contains_key(&key)
                    || model.tags.contains(&key)
                    || model.frozen.contains(&key)
                    || model.extra.contains_key(&key);
                assert_eq!(scene.despawn(key), held);
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
                let all: BTreeSet<u32> = model
                    .positions
                    .keys()
                    .chain(model.masses.keys())
                    .chain(&model.tags)
                    .chain(&model.frozen)
                    .chain(model.extra.keys())
                    .copied()
                    .collect();
                assert_eq!(unique, all, "every key of the world is asked once");
                for key in all.into_iter().filter(|key| key % modulus == 0) {
                    model.despawn(key);
                }
            }
            Op::SortByX => {
                scene.moving.sort_by(|_, (a, _, ()), _, (b, _, ())| a.x.cmp(b.x));
                let xs: Vec<i32> = scene.moving.columns().0.x.to_vec();
                assert!(xs.is_sorted(), "{xs:?}");
            }
            Op::SortKeys => {
                scene.moving.sort_keys();
                assert!(scene.moving.keys().is_sorted());
            }
            Op::SortUnstableByMass => {
                scene.moving.sort_unstable_by(|_, (_, a, ()), _, (_, b, ())| b.cmp(a));
                let masses = scene.moving.columns().1.values;
                assert!(masses.is_sorted_by(|a, b| a >= b), "{masses:?}");
            }
            Op::AddOne => {
                for (key, (p, m, ())) in scene.moving.iter_mut() {
                    *p.x = p.x.wrapping_add(1);
                    *m = m.wrapping_add(1);
                    let reference = model.positions.get_mut(&key).unwrap();
                    reference.x = reference.x.wrapping_add(1);
                    let mass = model.masses.get_mut(&key).unwrap();
                    *mass = mass.wrapping_add(1);
                }
            }
            Op::InsertExtra(key, x) => {
                assert_eq!(
                    scene.extra.insert(key, position(key, x)),
                    model.extra.insert(key, position(key, x))
                );
            }
            Op::RemoveExtra(key) => {
                assert_eq!(scene.extra.remove(key), model.extra.remove(&key));
            }
            Op::SortExtraAsGroup => {
                let front = scene.extra.sort_as(scene.moving.keys());
                let expected: Vec<u32> = scene
                    .moving
                    .keys()
                    .iter()
                    .copied()
                    .filter(|key| model.extra.contains_key(key))
                    .collect();
                assert_eq!(front, expected.len());
                assert_eq!(&scene.extra.keys()[..front], expected.as_slice());
            }
            // Memory alone: no key moves in any storage of the group.
            Op::Reserve(additional) => {
                let before = every_order(&scene.moving);
                scene.moving.reserve(usize::from(additional));
                let (positions, masses, tags) = scene.moving.members();
                let room = [
                    positions.capacity() - positions.len(),
                    masses.capacity() - masses.len(),
                    tags.capacity() - tags.len(),
                ];
                assert!(room.iter().all(|&room| room >= usize::from(additional)), "{room:?}");
                assert_eq!(every_order(&scene.moving), before);
            }
            Op::ShrinkToFit => {
                let before = every_order(&scene.moving);
                scene.moving.shrink_to_fit();
                assert_eq!(every_order(&scene.moving), before);
            }
        }
        check(&scene, &model);
    }
}

/// The keys of the group's prefix and of each of its storages, in their order.
fn every_order(group: &Moving) -> [Vec<u32>; 5] {
    let (positions, masses, tags) = group.members();
    let (frozen,) = group.excluded();
    [group.keys(), positions.keys(), masses.keys(), tags.as_slice(), frozen.as_slice()]
        .map(<[u32]>::to_vec)
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn a_group_stays_aligned_through_every_operation(ops in prop::collection::vec(op(), 1..if cfg!(miri) { 30 } else { 120 })) {
        run(&ops);
    }
}

#[test]
fn a_group_aligns_storages_that_already_hold_data() {
    let positions: PositionSoa =
        (0..100).map(|key| (key, position(key, i32::try_from(key).unwrap()))).collect();
    let masses: SparseMap<u32, u16> =
        (0..100).rev().filter(|key| key % 2 == 0).map(|key| (key, 1)).collect();
    let tags: SparseSet<u32> = (0..100).filter(|key| key % 3 == 0).collect();
    let frozen: SparseSet<u32> = [0, 6, 7].into_iter().collect();
    let group: Moving = Group::with_excluded((positions, masses, tags), (frozen,));
    group.assert_invariants();
    let expected: BTreeSet<u32> =
        (0..100).filter(|key| key % 6 == 0 && *key != 0 && *key != 6).collect();
    assert_eq!(group.keys().iter().copied().collect::<BTreeSet<_>>(), expected);
}

// ---------------------------------------------------------------------------------------------
// Entity keys: stale handles through a group in a world with an allocator.

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Body {
    mass: u32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Asleep;

#[derive(Default, World)]
struct Physics {
    entities: Entities,
    bodies: Group<(BodySoa, SparseMap<Entity, i64>), (AsleepSoa,)>,
}

#[derive(Clone, Debug)]
enum EntityOp {
    Spawn,
    /// Index into the handles ever made (live or stale).
    InsertBody(usize),
    InsertSpeed(usize),
    Sleep(usize),
    Wake(usize),
    Despawn(usize),
    /// Despawned from the allocator alone: the storages keep the handle, which goes stale when
    /// its slot is reused.
    Forget(usize),
    RemoveBody(usize),
}

fn entity_op() -> impl Strategy<Value = EntityOp> {
    prop_oneof![
        3 => Just(EntityOp::Spawn),
        3 => any::<usize>().prop_map(EntityOp::InsertBody),
        3 => any::<usize>().prop_map(EntityOp::InsertSpeed),
        1 => any::<usize>().prop_map(EntityOp::Sleep),
        1 => any::<usize>().prop_map(EntityOp::Wake),
        2 => any::<usize>().prop_map(EntityOp::Despawn),
        2 => any::<usize>().prop_map(EntityOp::Forget),
        1 => any::<usize>().prop_map(EntityOp::RemoveBody),
    ]
}

fn run_entities(ops: &[EntityOp]) {
    let mut world = Physics::default();
    let mut handles: Vec<Entity> = Vec::new();
    let mut bodies: BTreeMap<Entity, u32> = BTreeMap::new();
    let mut speeds: BTreeMap<Entity, i64> = BTreeMap::new();
    let mut asleep: BTreeSet<Entity> = BTreeSet::new();
    // Per storage (bodies, speeds, asleep), the newest generation each slot has held: a
    // storage refuses an older one even after the newer one left (see `Error::StaleKey`).
    let mut newest: [BTreeMap<u32, u32>; 3] = Default::default();
    for op in ops {
        let pick = |i: usize| (!handles.is_empty()).then(|| handles[i % handles.len()]);
        match *op {
            EntityOp::Spawn => handles.push(world.entities.spawn()),
            EntityOp::InsertBody(i) | EntityOp::InsertSpeed(i) | EntityOp::Sleep(i) => {
                let Some(entity) = pick(i) else { continue };
                let alive = world.entities.is_alive(entity);
                let result = match op {
                    EntityOp::InsertBody(_) => world
                        .bodies
                        .member_mut::<0>()
                        .try_insert(entity, Body { mass: 1 })
                        .map(drop),
                    EntityOp::InsertSpeed(_) => {
                        world.bodies.member_mut::<1>().try_insert(entity, 7).map(drop)
                    }
                    _ => world.bodies.excluded_mut::<0>().try_insert(entity, ()).map(drop),
                };
                let storage = match op {
                    EntityOp::InsertBody(_) => 0,
                    EntityOp::InsertSpeed(_) => 1,
                    _ => 2,
                };
                let newer_held = newest[storage]
                    .get(&entity.index())
                    .is_some_and(|&held| held > entity.generation().get());
                match result {
                    Ok(()) => {
                        // Refused if the storage held a newer generation, now or before.
                        assert!(!newer_held, "{entity:?} accepted where a newer generation was");
                        let held = newest[storage].entry(entity.index()).or_default();
                        *held = (*held).max(entity.generation().get());
                        let (map, set) = (&mut bodies, &mut speeds);
                        // A newer version replaces an older one of the same slot, per storage.
                        match op {
                            EntityOp::InsertBody(_) => {
                                map.retain(|held, _| held.index() != entity.index());
                                map.insert(entity, 1);
                            }
                            EntityOp::InsertSpeed(_) => {
                                set.retain(|held, _| held.index() != entity.index());
                                set.insert(entity, 7);
                            }
                            _ => {
                                asleep.retain(|held| held.index() != entity.index());
                                asleep.insert(entity);
                            }
                        }
                    }
                    Err(Error::StaleKey { .. }) => assert!(!alive && newer_held),
                    Err(error) => panic!("unexpected {error}"),
                }
            }
            EntityOp::Wake(i) => {
                let Some(entity) = pick(i) else { continue };
                world.bodies.excluded_mut::<0>().remove(entity);
                asleep.remove(&entity);
            }
            EntityOp::Forget(i) => {
                let Some(entity) = pick(i) else { continue };
                world.entities.despawn(entity);
            }
            EntityOp::RemoveBody(i) => {
                let Some(entity) = pick(i) else { continue };
                world.bodies.member_mut::<0>().remove(entity);
                bodies.remove(&entity);
            }
            EntityOp::Despawn(i) => {
                let Some(entity) = pick(i) else { continue };
                world.despawn(entity);
                bodies.remove(&entity);
                speeds.remove(&entity);
                asleep.remove(&entity);
            }
        }
        world.bodies.assert_invariants();
        world.entities.assert_invariants();
        let aligned: BTreeSet<Entity> = bodies
            .keys()
            .copied()
            .filter(|entity| speeds.contains_key(entity) && !asleep.contains(entity))
            .collect();
        assert_eq!(world.bodies.keys().iter().copied().collect::<BTreeSet<_>>(), aligned);
        let (b, s) = world.bodies.members();
        assert_eq!(
            b.keys().iter().copied().collect::<BTreeSet<_>>(),
            bodies.keys().copied().collect()
        );
        assert_eq!(
            s.keys().iter().copied().collect::<BTreeSet<_>>(),
            speeds.keys().copied().collect()
        );
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn stale_handles_never_break_a_group(ops in prop::collection::vec(entity_op(), 1..if cfg!(miri) { 30 } else { 120 })) {
        run_entities(&ops);
    }
}

#[test]
fn a_despawn_whose_value_panics_on_drop_leaves_the_group_aligned() {
    // Member 0 holds only aligned keys (it removes the row directly); member 1 holds two keys
    // past the prefix (it swaps the row to the prefix's end first).
    for doomed in 0..4 {
        let bombs: SparseMap<u32, Bomb> = (0..4).map(|key| (key, Bomb(key == doomed))).collect();
        let extra: SparseMap<u32, u8> = (0..6).rev().map(|key| (key, 0)).collect();
        let mut group = Group::new((bombs, extra));
        assert_eq!(group.len(), 4);
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| group.remove(doomed)));
        assert!(result.is_err(), "the drop of key {doomed}'s value panics");
        group.assert_invariants();
        assert_eq!(group.len(), 3);
        assert!(!group.contains(doomed));
        let (bombs, extra) = group.members();
        assert!(!bombs.contains_key(doomed) && !extra.contains_key(doomed));
        assert_eq!(extra.len(), 5);
    }
}
