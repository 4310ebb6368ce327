//! Serde (feature `serde`) for groups and whole worlds: a group round-trips in its order and
//! loads only aligned (misaligned input is refused, naming the key or position, never
//! realigned); a `#[derive(World)]` loads as one value through `serialization::Alive`, every
//! storage's keys (a group's members and excluded storages too) checked alive on load.

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use sparse_soa::serialization::Alive;
use sparse_soa::{CheckAlive, Entities, Entity, Group, SparseMap, SparseSet, SparseSoa, World};
use sparse_soa_test_support::model;

#[derive(SparseSoa, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(serde)]
struct Spot {
    x: i32,
}

type Spots = Group<(SpotSoa, SparseMap<u32, u8>), (SparseSet<u32>,)>;

fn spots(keys: &[u32], speeds: &[u32], frozen: &[u32]) -> Spots {
    Group::with_excluded(
        (
            keys.iter().map(|&key| (key, Spot { x: i32::try_from(key).unwrap() })).collect(),
            speeds.iter().map(|&key| (key, (key % 200) as u8)).collect(),
        ),
        (frozen.iter().copied().collect(),),
    )
}

fn assert_same(loaded: &Spots, group: &Spots) {
    loaded.assert_invariants();
    assert_eq!(loaded.keys(), group.keys());
    let ((spots, speeds), (frozen,)) = (loaded.members(), loaded.excluded());
    let ((spots_0, speeds_0), (frozen_0,)) = (group.members(), group.excluded());
    assert_eq!(
        (spots.keys(), speeds.keys(), frozen.as_slice()),
        (spots_0.keys(), speeds_0.keys(), frozen_0.as_slice())
    );
    assert_eq!((spots.x(), speeds.values()), (spots_0.x(), speeds_0.values()));
}

#[test]
fn a_group_round_trips_in_its_order() {
    let mut group = spots(&[1, 2, 3, 4, 5, 6], &[6, 5, 4, 2, 9], &[4]);
    group.member_mut::<0>().remove(5);
    assert_eq!(group.len(), 2);
    let text = serde_json::to_string(&group).unwrap();
    assert!(text.starts_with(r#"{"members":[{"bounds":null,"rows":"#), "{text}");
    let loaded: Spots = serde_json::from_str(&text).unwrap();
    assert_same(&loaded, &group);
    let loaded: Spots = postcard::from_bytes(&postcard::to_allocvec(&group).unwrap()).unwrap();
    assert_same(&loaded, &group);
    // A group without excluded storages saves them as unit.
    let plain = Group::new((SparseSet::<u32>::from_iter([3, 1]), SparseSet::<u32>::from_iter([1])));
    let text = serde_json::to_string(&plain).unwrap();
    assert_eq!(
        text,
        r#"{"members":[{"bounds":null,"keys":[1,3]},{"bounds":null,"keys":[1]}],"excluded":null}"#
    );
    let loaded: Group<(SparseSet<u32>, SparseSet<u32>)> = serde_json::from_str(&text).unwrap();
    assert_eq!(loaded.keys(), &[1]);
}

/// The message JSON input is refused with; panics if it is accepted.
fn refused(text: &str) -> String {
    match serde_json::from_str::<Group<(SparseSet<u32>, SparseSet<u32>), (SparseSet<u32>,)>>(text) {
        Ok(group) => panic!("{text} was accepted as {:?}", group.keys()),
        Err(error) => error.to_string(),
    }
}

fn group_text(a: &str, b: &str, excluded: &str) -> String {
    format!(
        r#"{{"members":[{{"bounds":null,"keys":[{a}]}},{{"bounds":null,"keys":[{b}]}}],"excluded":[{{"bounds":null,"keys":[{excluded}]}}]}}"#
    )
}

#[test]
fn a_misaligned_group_is_refused_naming_what_is_wrong() {
    // Aligned: 1 and 2 first in both, 3 held by one member only, 4 excluded.
    assert!(
        serde_json::from_str::<Group<(SparseSet<u32>, SparseSet<u32>), (SparseSet<u32>,)>>(
            &group_text("1,2,3,4", "1,2,4", "4")
        )
        .is_ok()
    );
    let message = refused(&group_text("1,2,3", "2,1,3", ""));
    assert!(
        message.starts_with(
            "not a group: key 1 is held by every member and no excluded storage, but is not aligned"
        ),
        "{message}"
    );
    let message = refused(&group_text("1,2,5", "1,5,2", "9"));
    assert!(
        message.starts_with(
            "not a group: key 2 is held by every member and no excluded storage, but is not \
             aligned (position 1 of member 0)"
        ),
        "{message}"
    );
    // Keys that would qualify only past a key held by one member: not aligned either.
    let message = refused(&group_text("7,8", "8,7", "7"));
    assert!(message.contains("key 8 is held by every member"), "{message}");
    // Each storage is still validated on its own first.
    let message = refused(&group_text("1,1", "1", ""));
    assert!(message.contains("duplicate key 1"), "{message}");
    // Malformed structure.
    let message = refused(r#"{"members":[{"bounds":null,"keys":[]},{"bounds":null,"keys":[]}]}"#);
    assert!(message.contains("missing field `excluded`"), "{message}");
}

proptest! {
    #![proptest_config(model::config())]

    /// Any group a program can make round-trips with the same order in every storage.
    #[test]
    fn every_group_round_trips(
        keys in prop::collection::vec(0_u32..40, 0..40),
        speeds in prop::collection::vec(0_u32..40, 0..40),
        frozen in prop::collection::vec(0_u32..40, 0..10),
        removals in prop::collection::vec(0_u32..40, 0..10),
    ) {
        let dedup = |keys: Vec<u32>| keys.into_iter().collect::<BTreeSet<_>>().into_iter().collect::<Vec<_>>();
        let mut group = spots(&dedup(keys), &dedup(speeds), &dedup(frozen));
        for key in removals {
            if key % 2 == 0 {
                group.member_mut::<1>().remove(key);
            } else {
                group.excluded_mut::<0>().insert(key, ());
            }
        }
        let loaded: Spots = serde_json::from_str(&serde_json::to_string(&group).unwrap()).unwrap();
        assert_same(&loaded, &group);
    }
}

#[derive(SparseSoa, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity, serde)]
struct Pos {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity, serde)]
struct Asleep;

#[derive(Default, World, Serialize, Deserialize)]
struct Scene {
    entities: Entities,
    names: SparseMap<Entity, String>,
    #[sparse_soa(tag = Asleep)]
    moving: Group<(PosSoa, SparseMap<Entity, f32>), (AsleepSoa,)>,
}

fn make_scene() -> (Scene, Vec<Entity>) {
    let mut scene = Scene::default();
    let mut handles = Vec::new();
    for i in 0..20_u16 {
        let e = match i % 4 {
            0 => scene.spawn((Pos { x: f32::from(i) }, 1.5_f32)),
            1 => scene.spawn((Pos { x: f32::from(i) }, 2.5_f32, Asleep)),
            2 => scene.spawn(format!("n{i}")),
            _ => scene.spawn((Pos { x: f32::from(i) }, format!("n{i}"))),
        };
        handles.push(e);
    }
    for &e in handles.iter().step_by(3) {
        scene.despawn(e);
    }
    (scene, handles)
}

#[test]
fn a_world_loads_as_one_value_checked_alive() {
    let (scene, handles) = make_scene();
    let text = serde_json::to_string(&Alive(&scene)).unwrap();
    assert_eq!(text, serde_json::to_string(&scene).unwrap());
    let Alive(loaded) = serde_json::from_str::<Alive<Scene>>(&text).unwrap();
    assert_eq!(loaded.check_alive(), Ok(()));
    assert_eq!(loaded.entities, scene.entities);
    assert_eq!(loaded.moving.keys(), scene.moving.keys());
    assert_eq!(loaded.names.keys(), scene.names.keys());
    for &e in &handles {
        assert_eq!(loaded.entities.is_alive(e), scene.entities.is_alive(e));
    }
    let bytes = postcard::to_allocvec(&scene).unwrap();
    let Alive(loaded) = postcard::from_bytes::<Alive<Scene>>(&bytes).unwrap();
    assert_eq!(loaded.moving.keys(), scene.moving.keys());
}

#[test]
fn rows_of_entities_the_allocator_does_not_hold_are_refused_naming_the_storage() {
    // Despawned from the allocator alone: every storage still holds the entity.
    let (mut scene, _) = make_scene();
    let asleep = scene.moving.excluded().0.as_slice()[0];
    scene.entities.despawn(asleep);
    let error = scene.check_alive().unwrap_err();
    assert_eq!((error.entity(), error.storage()), (asleep, Some("moving")));
    // Found first in the first storage of the group that holds it: its positions.
    let position = scene.moving.members().0.get_index_of(asleep).unwrap();
    let expected = format!(
        "`moving` (storage 0 of the group): entity {asleep} (position {position}) is not alive: \
         slot {} is dead",
        asleep.index()
    );
    assert_eq!(error.to_string(), expected);
    let text = serde_json::to_string(&scene).unwrap();
    let message = serde_json::from_str::<Alive<Scene>>(&text).err().unwrap().to_string();
    assert!(message.starts_with(&expected), "{message}");
    // An entity in the excluded storage alone is found there.
    let (mut scene, _) = make_scene();
    let lone = scene.spawn(Asleep);
    scene.entities.despawn(lone);
    let error = scene.check_alive().unwrap_err();
    assert!(
        error.to_string().starts_with(&format!("`moving` (storage 2 of the group): entity {lone}")),
        "{error}"
    );
    // Without the check, the same text loads: the check is what `Alive` adds.
    assert!(serde_json::from_str::<Scene>(&text).is_ok());

    // A row of an entity never spawned, in a plain storage.
    let (mut scene, _) = make_scene();
    let stranger = Entity::from_bits((1 << 32) + 500).unwrap();
    scene.names.insert(stranger, "ghost".into());
    let text = serde_json::to_string(&scene).unwrap();
    let message = serde_json::from_str::<Alive<Scene>>(&text).err().unwrap().to_string();
    assert!(message.starts_with(&format!("`names`: entity {stranger} (position")), "{message}");
    assert!(message.contains("the allocator has 20 slots"), "{message}");
}

mod nested {
    //! A group with a nested level round-trips in its order, both prefixes included, and loads
    //! only when both are aligned.

    use std::collections::BTreeSet;

    use proptest::prelude::*;
    use sparse_soa::group::Nested;
    use sparse_soa::{Group, SparseSet};
    use sparse_soa_test_support::model;

    type Family = Group<
        (SparseSet<u32>, SparseSet<u32>),
        (SparseSet<u32>,),
        Nested<(SparseSet<u32>,), (SparseSet<u32>,)>,
    >;

    fn family(a: &[u32], b: &[u32], frozen: &[u32], c: &[u32], hidden: &[u32]) -> Family {
        let set = |keys: &[u32]| keys.iter().copied().collect::<SparseSet<u32>>();
        Group::with_excluded((set(a), set(b)), (set(frozen),))
            .nest(Nested::with_excluded((set(c),), (set(hidden),)))
    }

    fn assert_same(loaded: &Family, family: &Family) {
        loaded.assert_invariants();
        assert_eq!(loaded.keys(), family.keys());
        assert_eq!(loaded.nested().keys(), family.nested().keys());
        let (a, b) = loaded.members();
        let (a0, b0) = family.members();
        assert_eq!((a.as_slice(), b.as_slice()), (a0.as_slice(), b0.as_slice()));
        let (c,) = loaded.nested().members().inner();
        let (c0,) = family.nested().members().inner();
        assert_eq!(c.as_slice(), c0.as_slice());
    }

    #[test]
    fn a_family_round_trips_with_both_prefixes() {
        let mut family = family(&[1, 2, 3, 4, 5], &[5, 4, 3, 2, 1], &[4], &[3, 1, 9], &[9]);
        family.nested_member_mut::<0>().insert(5, ());
        assert_eq!((family.len(), family.nested().len()), (4, 3));
        let text = serde_json::to_string(&family).unwrap();
        assert!(text.contains(r#""nested":{"members":[{"bounds":null,"keys":"#), "{text}");
        let loaded: Family = serde_json::from_str(&text).unwrap();
        assert_same(&loaded, &family);
        let bytes = postcard::to_allocvec(&family).unwrap();
        let loaded: Family = postcard::from_bytes(&bytes).unwrap();
        assert_same(&loaded, &family);
    }

    fn text(a: &str, b: &str, c: &str, hidden: &str) -> String {
        format!(
            r#"{{"members":[{{"bounds":null,"keys":[{a}]}},{{"bounds":null,"keys":[{b}]}}],"excluded":[{{"bounds":null,"keys":[]}}],"nested":{{"members":[{{"bounds":null,"keys":[{c}]}}],"excluded":[{{"bounds":null,"keys":[{hidden}]}}]}}}}"#
        )
    }

    #[test]
    fn a_misaligned_nested_level_is_refused() {
        // Aligned: 1 and 2 in both prefixes, 3 in the group's only (hidden), 4 in neither.
        let loaded: Family = serde_json::from_str(&text("1,2,3,4", "1,2,3", "1,2,3", "3")).unwrap();
        assert_eq!((loaded.len(), loaded.nested().len()), (3, 2));
        // The nested level holds the group's keys in another order.
        let error = serde_json::from_str::<Family>(&text("1,2,3", "1,2,3", "2,1", "")).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with(
                "not a group: key 2 is held by every member and no excluded storage, but is not \
                 aligned (position 0 of member 2)"
            ),
            "{message}"
        );
        // A qualifying key of the level past a hidden one.
        let error =
            serde_json::from_str::<Family>(&text("1,2,3", "1,2,3", "1,3,2", "3")).unwrap_err();
        assert!(error.to_string().contains("key 2 is held by every member"), "{error}");
        // The nested field is required.
        let error = serde_json::from_str::<Family>(
            r#"{"members":[{"bounds":null,"keys":[]},{"bounds":null,"keys":[]}],"excluded":[{"bounds":null,"keys":[]}]}"#,
        )
        .unwrap_err();
        assert!(error.to_string().contains("missing field `nested`"), "{error}");
    }

    proptest! {
        #![proptest_config(model::config())]

        /// Any family a program can make round-trips with the same order in every storage.
        #[test]
        fn every_family_round_trips(
            keys in prop::collection::vec((0_u32..30, 0_u8..32), 0..60),
            changes in prop::collection::vec((0_u32..30, 0_u8..6), 0..20),
        ) {
            let pick = |bit: u8| keys.iter().filter(|(_, bits)| bits & bit != 0).map(|(key, _)| *key).collect::<BTreeSet<_>>().into_iter().collect::<Vec<_>>();
            let mut family = family(&pick(1), &pick(2), &pick(4), &pick(8), &pick(16));
            for (key, change) in changes {
                match change {
                    0 => drop(family.member_mut::<0>().remove(key)),
                    1 => drop(family.member_mut::<1>().insert(key, ())),
                    2 => drop(family.excluded_mut::<0>().insert(key, ())),
                    3 => drop(family.nested_member_mut::<0>().insert(key, ())),
                    4 => drop(family.nested_excluded_mut::<0>().remove(key)),
                    _ => family.sort_nested_keys(),
                }
            }
            let loaded: Family = serde_json::from_str(&serde_json::to_string(&family).unwrap()).unwrap();
            assert_same(&loaded, &family);
        }
    }
}

mod deep {
    //! A family of three levels round-trips in its order, every prefix included, and loads only
    //! when every level is aligned inside the one around it.

    use std::collections::BTreeSet;

    use proptest::prelude::*;
    use sparse_soa::group::Nested;
    use sparse_soa::{Group, SparseSet};
    use sparse_soa_test_support::model;

    type Family = Group<
        (SparseSet<u32>,),
        (),
        Nested<(SparseSet<u32>,), (SparseSet<u32>,), Nested<(SparseSet<u32>,)>>,
    >;

    fn set(keys: &[u32]) -> SparseSet<u32> {
        keys.iter().copied().collect()
    }

    fn family(a: &[u32], b: &[u32], hidden: &[u32], c: &[u32]) -> Family {
        let inner = Nested::new((set(c),));
        Group::new((set(a),)).nest(Nested::with_excluded((set(b),), (set(hidden),)).nest(inner))
    }

    fn assert_same(loaded: &Family, family: &Family) {
        loaded.assert_invariants();
        assert_eq!(loaded.keys(), family.keys());
        assert_eq!(loaded.nested().keys(), family.nested().keys());
        assert_eq!(loaded.nested().nested().keys(), family.nested().nested().keys());
        let (c,) = loaded.nested().nested().members().inner();
        let (c0,) = family.nested().nested().members().inner();
        assert_eq!(c.as_slice(), c0.as_slice());
    }

    fn text(a: &str, b: &str, hidden: &str, c: &str) -> String {
        let set = |keys: &str| format!(r#"[{{"bounds":null,"keys":[{keys}]}}]"#);
        format!(
            r#"{{"members":{},"excluded":null,"nested":{{"members":{},"excluded":{},"nested":{{"members":{},"excluded":null}}}}}}"#,
            set(a),
            set(b),
            set(hidden),
            set(c)
        )
    }

    #[test]
    fn a_family_of_three_levels_round_trips_with_every_prefix() {
        let family = family(&[1, 2, 3, 4, 5], &[5, 4, 3, 2], &[5], &[2, 4, 9]);
        assert_eq!(
            (family.len(), family.nested().len(), family.nested().nested().len()),
            (5, 3, 2)
        );
        let text = serde_json::to_string(&family).unwrap();
        assert!(text.contains(r#""nested":{"members":[{"bounds":null,"keys":"#), "{text}");
        let loaded: Family = serde_json::from_str(&text).unwrap();
        assert_same(&loaded, &family);
        let bytes = postcard::to_allocvec(&family).unwrap();
        let loaded: Family = postcard::from_bytes(&bytes).unwrap();
        assert_same(&loaded, &family);
    }

    #[test]
    fn a_misaligned_inner_level_is_refused() {
        // Aligned: 1 and 2 in every prefix, 3 in the outer two only.
        let loaded: Family = serde_json::from_str(&text("1,2,3", "1,2,3", "", "1,2")).unwrap();
        let lens = (loaded.len(), loaded.nested().len(), loaded.nested().nested().len());
        assert_eq!(lens, (3, 3, 2));
        // The innermost level holds its keys in another order than the level around it.
        let error = serde_json::from_str::<Family>(&text("1,2,3", "1,2,3", "", "2,1")).unwrap_err();
        assert!(
            error.to_string().starts_with("not a group: key 2 is held by every member"),
            "{error}"
        );
        // A key of the innermost level that the level around it hides, first in its members.
        let error = serde_json::from_str::<Family>(&text("1,2", "1,2", "1", "1,2")).unwrap_err();
        assert!(error.to_string().contains("not a group"), "{error}");
        // The innermost level's field is required.
        let error = serde_json::from_str::<Family>(
            r#"{"members":[{"bounds":null,"keys":[]}],"excluded":null,"nested":{"members":[{"bounds":null,"keys":[]}],"excluded":[{"bounds":null,"keys":[]}]}}"#,
        )
        .unwrap_err();
        assert!(error.to_string().contains("missing field `nested`"), "{error}");
    }

    proptest! {
        #![proptest_config(model::config())]

        /// Any family of three levels a program can make round-trips with the same order.
        #[test]
        fn every_deep_family_round_trips(
            keys in prop::collection::vec((0_u32..30, 0_u8..16), 0..60),
            changes in prop::collection::vec((0_u32..30, 0_u8..5), 0..20),
        ) {
            let pick = |bit: u8| keys.iter().filter(|(_, bits)| bits & bit != 0).map(|(key, _)| *key).collect::<BTreeSet<_>>().into_iter().collect::<Vec<_>>();
            let mut family = family(&pick(1), &pick(2), &pick(4), &pick(8));
            for (key, change) in changes {
                match change {
                    0 => drop(family.member_mut::<0>().remove(key)),
                    1 => drop(family.nested_member_mut::<0>().insert(key, ())),
                    2 => drop(family.nested_excluded_mut::<0>().insert(key, ())),
                    3 => drop(family.level_member_mut::<2, 0>().insert(key, ())),
                    _ => drop(family.level_member_mut::<2, 0>().remove(key)),
                }
            }
            let loaded: Family = serde_json::from_str(&serde_json::to_string(&family).unwrap()).unwrap();
            assert_same(&loaded, &family);
        }
    }
}

mod deep_world {
    //! A world whose group field is a family of three levels saves and loads as one value,
    //! every level re-validated and every key checked alive.

    use serde::{Deserialize, Serialize};
    use sparse_soa::group::Nested;
    use sparse_soa::serialization::Alive;
    use sparse_soa::{CheckAlive, Entities, Entity, Group, SparseMap, SparseSoa, World};

    #[derive(SparseSoa, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
    #[sparse_soa(key = Entity, serde)]
    struct Pos {
        x: f32,
    }

    #[derive(SparseSoa)]
    #[sparse_soa(key = Entity, serde)]
    struct Lit;

    #[derive(Default, World, Serialize, Deserialize)]
    #[allow(clippy::type_complexity, reason = "the derive reads the parts from the field's type")]
    struct Scene {
        entities: Entities,
        #[sparse_soa(tag = Lit)]
        family: Group<(PosSoa,), (), Nested<(SparseMap<Entity, u8>,), (), Nested<(LitSoa,)>>>,
    }

    #[test]
    fn a_world_with_a_deep_family_loads_as_one_value() {
        let mut scene = Scene::default();
        let mut handles = Vec::new();
        for i in 0..30_u8 {
            let e = match i % 3 {
                0 => scene.spawn((Pos { x: f32::from(i) }, i, Lit)),
                1 => scene.spawn((Pos { x: f32::from(i) }, i)),
                _ => scene.spawn((Pos { x: f32::from(i) }, Lit)),
            };
            handles.push(e);
        }
        for &e in handles.iter().step_by(4) {
            scene.despawn(e);
        }
        let text = serde_json::to_string(&scene).unwrap();
        let Alive(loaded) = serde_json::from_str::<Alive<Scene>>(&text).unwrap();
        loaded.family.assert_invariants();
        assert_eq!(loaded.family.keys(), scene.family.keys());
        assert_eq!(loaded.family.nested().keys(), scene.family.nested().keys());
        assert_eq!(loaded.family.nested().nested().keys(), scene.family.nested().nested().keys());
        assert_eq!(loaded.family.nested().nested().len(), 7); // 10 lit rows, 3 despawned

        // A row of a despawned entity in the innermost level is refused.
        let mut stale = serde_json::from_str::<Scene>(&text).unwrap();
        let innermost = stale.family.nested().nested().keys()[0];
        stale.entities.despawn(innermost);
        assert!(stale.check_alive().is_err());
    }
}
