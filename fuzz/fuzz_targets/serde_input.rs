//! Arbitrary bytes to the deserializers of the `serde` feature, through a self-describing format
//! (JSON) and a binary one (postcard): `Entities`, `SparseSet<u32>`, a `u8`-wide
//! `SparseSet<u32, u8>` (bounded or not, as the input says), `SparseMap<u32, u16>`,
//! `SparseMap<Entity, u8>`, a derived storage keyed by `Entity`, a group with an excluded
//! storage, a family (a group with a nested level) and a `#[derive(World)]` loaded through
//! `Alive`. Nothing may panic; whatever is accepted must pass the invariant checkers (a group's
//! alignment, a world's keys alive), stay valid through a few changes, and serialize back to
//! input that loads the same.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sparse_soa::group::Nested;
use sparse_soa::serialization::Alive;
use sparse_soa::{
    CheckAlive, Entities, Entity, Error, Group, SparseMap, SparseSet, SparseSoa, Storage, World,
};

#[derive(SparseSoa, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity, dense = u16, serde)]
struct Body {
    mass: u16,
    name: String,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity, serde)]
struct Asleep;

/// A group with an excluded storage: rows of a derived storage and a map, minus the asleep.
type Moving = Group<(BodySoa, SparseMap<Entity, u8>), (AsleepSoa,)>;

/// Two sets grouped, minus a third; inside their prefix, a nested level with one more member
/// and an excluded set of its own.
type Family = Group<
    (SparseSet<u32>, SparseSet<u32>),
    (SparseSet<u32>,),
    Nested<(SparseSet<u32>,), (SparseSet<u32>,)>,
>;

#[derive(Clone, Default, World, Serialize, Deserialize)]
struct Scene {
    entities: Entities,
    names: SparseMap<Entity, String>,
    #[sparse_soa(tag = Asleep)]
    moving: Group<(BodySoa, SparseMap<Entity, u8>), (AsleepSoa,)>,
}

/// Loads `data` as a `T` through both formats; for each accepted value, checks it, saves it and
/// loads the copy, which must check too and save to the same bytes.
fn exercise<T: Serialize + DeserializeOwned>(data: &[u8], check: impl Fn(&T)) {
    if let Ok(value) = serde_json::from_slice::<T>(data) {
        check(&value);
        let text = serde_json::to_vec(&value).expect("an accepted value serializes");
        let copy: T = serde_json::from_slice(&text).expect("what was saved loads");
        check(&copy);
        assert_eq!(serde_json::to_vec(&copy).unwrap(), text, "a round trip changed the value");
    }
    if let Ok(value) = postcard::from_bytes::<T>(data) {
        check(&value);
        let bytes = postcard::to_allocvec(&value).expect("an accepted value serializes");
        let copy: T = postcard::from_bytes(&bytes).expect("what was saved loads");
        check(&copy);
        assert_eq!(postcard::to_allocvec(&copy).unwrap(), bytes, "a round trip changed the value");
    }
}

fn check_entities(entities: &Entities) {
    entities.assert_invariants();
    let mut entities = entities.clone();
    for _ in 0..3 {
        // The allocator may be bounded (as the input says): a full one refuses, changing nothing.
        let len = entities.len();
        match entities.try_spawn() {
            Ok(e) => assert!(entities.is_alive(e)),
            Err(Error::EntitiesFull { capacity }) => {
                assert_eq!(entities.key_limit(), Some(capacity));
                assert_eq!(entities.len(), len);
            }
            Err(error) => panic!("a spawn failed: {error}"),
        }
        entities.assert_invariants();
    }
    let first = entities.iter().next();
    if let Some(first) = first {
        assert!(entities.despawn(first));
        entities.assert_invariants();
    }
}

/// A loaded group is aligned, and stays so through a row joining, leaving and being excluded.
fn check_moving(group: &Moving) {
    group.assert_invariants();
    let mut group = group.clone();
    let Some(&first) = group.keys().first() else { return };
    // The storages may be bounded (as the input says): a change they refuse changes nothing.
    if group.excluded_mut::<0>().try_insert(first, ()).is_ok() {
        assert!(!group.contains(first));
        group.assert_invariants();
        group.excluded_mut::<0>().remove(first);
        assert!(group.contains(first));
    }
    group.member_mut::<1>().remove(first);
    assert!(!group.contains(first));
    group.assert_invariants();
}

/// A loaded family is aligned at both levels, and stays so through changes that cross them.
fn check_family(family: &Family) {
    family.assert_invariants();
    assert!(family.nested().len() <= family.len());
    let mut family = family.clone();
    let keys: Vec<u32> = family.members().0.as_slice().iter().take(4).copied().collect();
    for key in keys {
        // The sets may be bounded (as the input says): an insert they refuse changes nothing.
        let _ = family.member_mut::<1>().try_insert(key, ());
        let _ = family.nested_member_mut::<0>().try_insert(key, ());
        family.assert_invariants();
        if family.excluded_mut::<0>().try_insert(key, ()).is_ok() {
            assert!(!family.contains(key));
        }
        family.assert_invariants();
    }
}

/// A loaded world holds only live entities, and a row spawned and despawned keeps it so.
fn check_scene(Alive(scene): &Alive<Scene>) {
    scene.entities.assert_invariants();
    scene.names.assert_invariants();
    scene.moving.assert_invariants();
    assert_eq!(scene.check_alive(), Ok(()));
    let mut scene = scene.clone();
    let body = Body { mass: 1, name: String::new() };
    // The storages may be bounded (as the input says): a row they refuse is not spawned.
    if let Ok(spawned) = scene.try_spawn((body, 2_u8, String::from("new"))) {
        assert!(scene.moving.contains(spawned));
    }
    let first = scene.entities.iter().next();
    if let Some(first) = first {
        assert!(scene.despawn(first));
        assert!(!scene.names.contains_key(first) && !scene.moving.members().0.contains_key(first));
    }
    scene.moving.assert_invariants();
    assert_eq!(scene.check_alive(), Ok(()));
}

fuzz_target!(|data: &[u8]| {
    exercise::<Entities>(data, check_entities);
    exercise::<SparseSet<u32>>(data, |set| set.assert_invariants());
    exercise::<SparseSet<u32, u8>>(data, |set| {
        set.assert_invariants();
        assert!(set.len() <= 255);
    });
    exercise::<SparseMap<u32, u16>>(data, |map| map.assert_invariants());
    exercise::<SparseMap<Entity, u8>>(data, |map| {
        map.assert_invariants();
        let mut slots: Vec<u32> = map.keys().iter().map(|e| e.index()).collect();
        slots.sort_unstable();
        slots.dedup();
        assert_eq!(slots.len(), map.len(), "two generations of one slot");
    });
    exercise::<BodySoa>(data, |bodies| Storage::assert_invariants(bodies));
    exercise::<Moving>(data, check_moving);
    exercise::<Family>(data, check_family);
    exercise::<Alive<Scene>>(data, check_scene);
});
