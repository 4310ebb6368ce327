//! Nested groups against a `BTreeMap` reference: random sequences of inserts, removes,
//! exclusions, sorts of the nested level, value changes, despawns and retains through a family
//! (a group of a derived storage and a tag without a frozen tag, with a nested level of a map
//! without a hidden tag) in a `World`, with the family's invariant checker after every step.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use sparse_soa::group::Nested;
use sparse_soa::{Entity, Error, Group, SparseMap, SparseSet, SparseSoa, World, query};
use sparse_soa_test_support::model;
use sparse_soa_test_support::panics::Bomb;

#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Body {
    x: i32,
}

/// Moving: a body with the `Active` tag, not frozen. Drawn: moving, with a sprite, not hidden.
type Family = Group<
    (BodySoa, SparseSet<u32>),
    (SparseSet<u32>,),
    Nested<(SparseMap<u32, u16>,), (SparseSet<u32>,)>,
>;

#[derive(Default, World)]
struct Scene {
    family: Family,
}

#[derive(Clone, Debug)]
enum Op {
    InsertBody(u32, i32),
    InsertActive(u32),
    InsertSprite(u32, u16),
    RemoveBody(u32),
    RemoveActive(u32),
    RemoveSprite(u32),
    Freeze(u32),
    Thaw(u32),
    Hide(u32),
    Show(u32),
    Despawn(u32),
    Retain(u32),
    SortNestedBySprite,
    SortNestedKeys,
    SortNestedUnstableByX,
    AddOne,
    Unnest,
}

fn key() -> impl Strategy<Value = u32> {
    prop_oneof![0..20_u32, 500..504_u32]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (key(), any::<i32>()).prop_map(|(k, x)| Op::InsertBody(k, x)),
        4 => key().prop_map(Op::InsertActive),
        4 => (key(), any::<u16>()).prop_map(|(k, s)| Op::InsertSprite(k, s)),
        2 => key().prop_map(Op::RemoveBody),
        2 => key().prop_map(Op::RemoveActive),
        2 => key().prop_map(Op::RemoveSprite),
        2 => key().prop_map(Op::Freeze),
        2 => key().prop_map(Op::Thaw),
        2 => key().prop_map(Op::Hide),
        2 => key().prop_map(Op::Show),
        2 => key().prop_map(Op::Despawn),
        1 => (2..5_u32).prop_map(Op::Retain),
        1 => Just(Op::SortNestedBySprite),
        1 => Just(Op::SortNestedKeys),
        1 => Just(Op::SortNestedUnstableByX),
        1 => Just(Op::AddOne),
        1 => Just(Op::Unnest),
    ]
}

#[derive(Default)]
struct Model {
    bodies: BTreeMap<u32, i32>,
    active: BTreeSet<u32>,
    frozen: BTreeSet<u32>,
    sprites: BTreeMap<u32, u16>,
    hidden: BTreeSet<u32>,
}

impl Model {
    fn moving(&self) -> BTreeSet<u32> {
        self.bodies
            .keys()
            .copied()
            .filter(|key| self.active.contains(key) && !self.frozen.contains(key))
            .collect()
    }

    fn drawn(&self) -> BTreeSet<u32> {
        self.moving()
            .into_iter()
            .filter(|key| self.sprites.contains_key(key) && !self.hidden.contains(key))
            .collect()
    }

    fn all(&self) -> BTreeSet<u32> {
        self.bodies
            .keys()
            .chain(&self.active)
            .chain(&self.frozen)
            .chain(self.sprites.keys())
            .chain(&self.hidden)
            .copied()
            .collect()
    }

    fn despawn(&mut self, key: u32) {
        self.bodies.remove(&key);
        self.active.remove(&key);
        self.frozen.remove(&key);
        self.sprites.remove(&key);
        self.hidden.remove(&key);
    }
}

fn check(family: &Family, model: &Model) {
    family.assert_invariants();
    let (bodies, active) = family.members();
    let stored: BTreeMap<u32, i32> = bodies.iter().map(|(key, body)| (key, *body.x)).collect();
    assert_eq!(stored, model.bodies);
    assert_eq!(active.iter().collect::<BTreeSet<_>>(), model.active);
    assert_eq!(family.excluded().0.iter().collect::<BTreeSet<_>>(), model.frozen);

    let nested = family.nested();
    let (sprites,) = nested.members().inner();
    let stored: BTreeMap<u32, u16> = sprites.iter().map(|(key, &s)| (key, s)).collect();
    assert_eq!(stored, model.sprites);
    let (hidden,) = nested.excluded().inner();
    assert_eq!(hidden.iter().collect::<BTreeSet<_>>(), model.hidden);

    // Both prefixes: exactly the qualifying keys, the nested one first in the group's.
    let (moving, drawn) = (model.moving(), model.drawn());
    assert_eq!(family.keys().iter().copied().collect::<BTreeSet<_>>(), moving);
    assert_eq!(nested.keys().iter().copied().collect::<BTreeSet<_>>(), drawn);
    assert_eq!(&family.keys()[..nested.len()], nested.keys());
    assert_eq!(&sprites.keys()[..nested.len()], nested.keys());
    for &key in &moving {
        assert_eq!(nested.contains(key), drawn.contains(&key));
        assert_eq!(
            family.get_index_of(key).is_some_and(|i| i < nested.len()),
            drawn.contains(&key)
        );
    }

    // The nested level's rows, walked and queried, match the reference.
    let mut walked = BTreeSet::new();
    for (key, ((body, ()), (&sprite,))) in nested.iter() {
        assert_eq!((*body.x, sprite), (model.bodies[&key], model.sprites[&key]));
        assert!(walked.insert(key));
    }
    assert_eq!(walked, drawn);
    let mut queried = BTreeSet::new();
    query((&nested, &family.excluded().0)).for_each(|key, _| {
        queried.insert(key);
    });
    assert!(queried.is_empty(), "frozen keys are never in the nested prefix");
    query((&nested,)).for_each(|key, (((body, ()), (&sprite,)),)| {
        assert_eq!((*body.x, sprite), (model.bodies[&key], model.sprites[&key]));
        queried.insert(key);
    });
    assert_eq!(queried, drawn);
}

#[allow(clippy::too_many_lines, reason = "one arm per operation of the model")]
fn run(ops: &[Op]) {
    let mut scene = Scene::default();
    let mut model = Model::default();
    for op in ops {
        let family = &mut scene.family;
        match *op {
            Op::InsertBody(key, x) => {
                let replaced = family.member_mut::<0>().insert(key, Body { x });
                assert_eq!(replaced.map(|b| b.x), model.bodies.insert(key, x));
            }
            Op::InsertActive(key) => {
                let held = family.member_mut::<1>().insert(key, ()).is_some();
                assert_eq!(held, !model.active.insert(key));
            }
            Op::InsertSprite(key, s) => {
                let replaced = family.nested_member_mut::<0>().insert(key, s);
                assert_eq!(replaced, model.sprites.insert(key, s));
            }
            Op::RemoveBody(key) => {
                let removed = family.member_mut::<0>().remove(key);
                assert_eq!(removed.map(|b| b.x), model.bodies.remove(&key));
            }
            Op::RemoveActive(key) => {
                let held = family.member_mut::<1>().remove(key).is_some();
                assert_eq!(held, model.active.remove(&key));
            }
            Op::RemoveSprite(key) => {
                let removed = family.nested_member_mut::<0>().remove(key);
                assert_eq!(removed, model.sprites.remove(&key));
            }
            Op::Freeze(key) => {
                family.excluded_mut::<0>().insert(key, ());
                model.frozen.insert(key);
            }
            Op::Thaw(key) => {
                family.excluded_mut::<0>().remove(key);
                model.frozen.remove(&key);
            }
            Op::Hide(key) => {
                family.nested_excluded_mut::<0>().insert(key, ());
                model.hidden.insert(key);
            }
            Op::Show(key) => {
                family.nested_excluded_mut::<0>().remove(key);
                model.hidden.remove(&key);
            }
            Op::Despawn(key) => {
                let held = model.all().contains(&key);
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
                assert_eq!(unique, model.all(), "every key of the family is asked once");
                for key in unique.into_iter().filter(|key| key % modulus == 0) {
                    model.despawn(key);
                }
            }
            Op::SortNestedBySprite => {
                family.sort_nested_by(|_, (_, (a,)), _, (_, (b,))| a.cmp(b));
                let nested = family.nested();
                let sprites = nested.columns().1.0.values;
                assert!(sprites.is_sorted(), "{sprites:?}");
            }
            Op::SortNestedKeys => {
                family.sort_nested_keys();
                assert!(family.nested().keys().is_sorted());
            }
            Op::SortNestedUnstableByX => {
                family.sort_nested_unstable_by(|_, ((a, ()), _), _, ((b, ()), _)| b.x.cmp(a.x));
                let nested = family.nested();
                let xs = nested.columns().0.0.x;
                assert!(xs.is_sorted_by(|a, b| a >= b), "{xs:?}");
            }
            Op::AddOne => {
                // The group's rows and the nested level's, each through its own view.
                for (key, (body, ())) in family.iter_mut() {
                    *body.x = body.x.wrapping_add(1);
                    let x = model.bodies.get_mut(&key).unwrap();
                    *x = x.wrapping_add(1);
                }
                for (key, (_, (sprite,))) in family.nested_mut().iter_mut() {
                    *sprite = sprite.wrapping_add(1);
                    let s = model.sprites.get_mut(&key).unwrap();
                    *s = s.wrapping_add(1);
                }
                // And through a query, with the nested level as its mutable member.
                let mut nested = family.nested_mut();
                query((&mut nested,)).for_each(|key, ((_, (sprite,)),)| {
                    *sprite = sprite.wrapping_mul(3);
                    let s = model.sprites.get_mut(&key).unwrap();
                    *s = s.wrapping_mul(3);
                });
                // Lookups through the query see the same rows.
                let keys: Vec<u32> = nested.keys().to_vec();
                let query = query((&mut nested,));
                for key in keys {
                    let ((_, (sprite,)),) = query.get(key).unwrap();
                    assert_eq!(*sprite, model.sprites[&key]);
                }
            }
            Op::Unnest => {
                // Out and back in: the level is aligned again from scratch.
                let (group, level) = core::mem::take(family).unnest();
                group.assert_invariants();
                *family = group.nest(level);
            }
        }
        check(&scene.family, &model);
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn a_family_keeps_both_prefixes(ops in prop::collection::vec(op(), 1..if cfg!(miri) { 30 } else { 160 })) {
        run(&ops);
    }
}

#[test]
fn every_change_of_a_family_by_hand() {
    use Op::*;
    run(&[
        InsertBody(1, 10),
        InsertActive(1),
        InsertSprite(1, 5),
        InsertBody(2, 20),
        InsertActive(2),
        InsertSprite(2, 3),
        SortNestedBySprite,
        Hide(2),
        Show(2),
        Freeze(1),
        Thaw(1),
        RemoveActive(2),
        InsertActive(2),
        RemoveSprite(1),
        InsertSprite(1, 9),
        RemoveBody(2),
        Despawn(1),
        Unnest,
    ]);
}

fn entity(index: u32, generation: u32) -> Entity {
    Entity::from_parts(index, core::num::NonZeroU32::new(generation).unwrap())
}

#[test]
fn a_newer_version_in_a_nested_member_takes_its_row_out_of_the_nested_prefix() {
    let bodies: SparseMap<Entity, i32> = (0..3).map(|i| (entity(i, 1), 0)).collect();
    let sprites: SparseMap<Entity, char> = (0..3).map(|i| (entity(i, 1), 'a')).collect();
    let mut family = Group::new((bodies,)).nest(Nested::new((sprites,)));
    assert_eq!(family.nested().len(), 3);

    // Version 2 of entity 1 replaces version 1 in the sprites only: the row of entity 1 no
    // longer has one key in every storage, so it leaves the nested prefix (not the group's).
    family.nested_member_mut::<0>().insert(entity(1, 2), 'b');
    family.assert_invariants();
    assert_eq!(family.len(), 3);
    assert_eq!(family.nested().len(), 2);
    assert!(!family.nested().contains(entity(1, 1)));

    // An older version is refused, and nothing moves.
    let before = family.keys().to_vec();
    let refused = family.nested_member_mut::<0>().try_insert(entity(1, 1), 'z');
    assert_eq!(refused, Err(Error::StaleKey { index: 1, version: 1, held: 2 }));
    assert_eq!(family.keys(), before.as_slice());
    family.assert_invariants();
}

#[test]
fn a_panicking_comparator_leaves_the_family_aligned() {
    let bodies: SparseMap<u32, i32> = (0..50_i32).map(|x| (x.unsigned_abs(), 50 - x)).collect();
    let sprites: SparseMap<u32, u8> = (0..50).filter(|key| key % 2 == 0).map(|k| (k, 0)).collect();
    let mut family = Group::new((bodies,)).nest(Nested::new((sprites,)));
    let mut calls = 0;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        family.sort_nested_unstable_by(|_, ((a,), _), _, ((b,), _)| {
            calls += 1;
            assert!(calls < 40, "the comparator gives up");
            a.cmp(b)
        });
    }));
    assert!(result.is_err());
    family.assert_invariants();
    assert_eq!((family.len(), family.nested().len()), (50, 25));
}

mod world {
    //! A nested family as a field of a `World`: whole rows go to both levels, and a row that
    //! completes the nested level is written into both prefixes.

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

    #[derive(SparseSoa)]
    #[sparse_soa(key = Entity)]
    struct Hidden;

    #[derive(Default, World)]
    #[allow(clippy::type_complexity, reason = "the derive reads the parts from the field's type")]
    struct Game {
        entities: Entities,
        #[sparse_soa(tag = Hidden)]
        motion: Group<(PositionSoa, VelocitySoa), (), Nested<(SpriteSoa,), (HiddenSoa,)>>,
    }

    #[test]
    fn rows_reach_both_levels_of_a_nested_family() {
        let mut game = Game::default();
        let a = game.spawn((Position { x: 1 }, Velocity { dx: 1 }, Sprite { id: 7 }));
        let b = game.spawn((Position { x: 2 }, Velocity { dx: 2 }));
        let c = game.spawn((Sprite { id: 9 }, Position { x: 3 }, Velocity { dx: 3 }, Hidden));
        let d = game.spawn((Position { x: 4 }, Sprite { id: 4 }));
        game.motion.assert_invariants();
        assert_eq!(game.motion.keys().len(), 3); // a, b, c move
        assert_eq!(game.motion.nested().keys(), &[a]); // c is hidden, d does not move

        // Components added to live entities join the levels they complete.
        game.insert(b, Sprite { id: 2 });
        game.insert(d, Velocity { dx: 4 });
        game.motion.assert_invariants();
        let mut drawn = game.motion.nested().keys().to_vec();
        drawn.sort_unstable();
        assert_eq!(drawn, [a, b, d]);
        assert!(!game.motion.nested().contains(c));

        // Despawning takes an entity from every storage of the family, nested ones included.
        assert!(game.despawn(c));
        assert!(game.despawn(a));
        game.motion.assert_invariants();
        let (sprites,) = game.motion.nested().members().inner();
        assert!(!sprites.contains_key(a) && !sprites.contains_key(c));
        assert_eq!(game.motion.nested().len(), 2);
        assert_eq!(game.motion.len(), 2);
    }

    /// A dropped batch stores its rows a run at a time, finishing both levels once per run:
    /// the family ends as spawning the rows one by one leaves it.
    #[test]
    fn a_dropped_batch_fills_both_levels_as_spawning_one_by_one() {
        let row = |i: i32| {
            (Position { x: i }, Velocity { dx: i }, Sprite { id: u16::try_from(i).unwrap() })
        };
        let mut batched = Game::default();
        let mut single = Game::default();
        for game in [&mut batched, &mut single] {
            // Rows past the outer prefix already, so the run's rows swap into place.
            game.spawn(Position { x: -1 });
            game.spawn((Sprite { id: 0 }, Velocity { dx: -2 }));
        }
        drop(batched.spawn_batch((0..700).map(row)));
        for i in 0..700 {
            single.spawn(row(i));
        }
        batched.motion.assert_invariants();
        assert_eq!(batched.entities, single.entities);
        assert_eq!(batched.motion.keys(), single.motion.keys());
        assert_eq!(batched.motion.nested().keys(), single.motion.nested().keys());
        assert_eq!(batched.motion.nested().len(), 700);
        let (sprites,) = batched.motion.nested().members().inner();
        for entity in batched.motion.nested().keys() {
            let x = *batched.motion.members().0.get(*entity).unwrap().x;
            assert_eq!(sprites.get(*entity).map(|s| i32::from(*s.id)), Some(x));
        }
    }
}

#[test]
fn a_despawn_whose_values_panic_on_drop_leaves_the_family_aligned() {
    // Both prefixes are everything (the despawn takes the row out of both levels' members
    // directly), or the nested one is shorter (it leaves the nested prefix first); the value
    // that panics is in the group's member or in the nested level's.
    for (nested_keys, doomed, in_nested) in
        [(4, 1, false), (4, 1, true), (4, 3, true), (2, 0, true), (2, 1, false), (2, 3, false)]
    {
        let outer: SparseMap<u32, Bomb> =
            (0..4).map(|key| (key, Bomb(key == doomed && !in_nested))).collect();
        let inner: SparseMap<u32, Bomb> =
            (0..nested_keys).map(|key| (key, Bomb(key == doomed && in_nested))).collect();
        let mut family = Group::new((outer,)).nest(Nested::new((inner,)));
        assert_eq!((family.len(), family.nested().len()), (4, nested_keys as usize));
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| family.remove(doomed)));
        assert!(result.is_err(), "the drop of key {doomed}'s value panics");
        family.assert_invariants();
        assert_eq!(family.len(), 3);
        assert!(!family.contains(doomed) && !family.nested().contains(doomed));
        let (inner,) = family.nested().members().inner();
        assert!(!inner.contains_key(doomed));
    }
}
