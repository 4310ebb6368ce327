//! Serde (feature `serde`) as a user sees it: derived storages marked `#[sparse_soa(serde)]`
//! (named, tuple, generic, `Entity`-keyed, bounded, narrow, tags), a whole world saved and
//! loaded, the keys of a loaded storage checked against its allocator, malformed input refused
//! with a message naming what is wrong, and the memory deserializing takes from hostile input.
//! Every round trip goes through a self-describing format (JSON) and a binary one (postcard).

use std::fmt::Debug;

use serde::de::{DeserializeOwned, DeserializeSeed};
use serde::{Deserialize, Serialize};
use sparse_soa::serialization::{Load, check_alive};
use sparse_soa::{Entities, Entity, SparseMap, SparseSet, SparseSoa, Storage, World};
use sparse_soa_test_support::{failing_after, measure};

fn through_json<T: Serialize + DeserializeOwned>(value: &T) -> T {
    let text = serde_json::to_string(value).expect("serializes");
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{text}: {error}"))
}

fn through_postcard<T: Serialize + DeserializeOwned>(value: &T) -> T {
    let bytes = postcard::to_allocvec(value).expect("serializes");
    postcard::from_bytes(&bytes).unwrap_or_else(|error| panic!("{bytes:?}: {error}"))
}

/// Both round trips of `value`.
fn round_trips<T: Serialize + DeserializeOwned>(value: &T) -> [T; 2] {
    [through_json(value), through_postcard(value)]
}

/// The message JSON input is refused with; panics if it is accepted.
fn refused<T: DeserializeOwned + Debug>(text: &str) -> String {
    match serde_json::from_str::<T>(text) {
        Ok(value) => panic!("{text} was accepted as {value:?}"),
        Err(error) => error.to_string(),
    }
}

fn assert_refused<T: DeserializeOwned + Debug>(text: &str, expected: &str) {
    let message = refused::<T>(text);
    assert!(message.contains(expected), "{text}: {message:?} does not say {expected:?}");
}

#[derive(SparseSoa, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[sparse_soa(serde)]
struct Particle {
    position: [f64; 2],
    name: String,
}

fn particle(key: u32) -> Particle {
    Particle { position: [f64::from(key), -f64::from(key)], name: format!("p{key}") }
}

#[test]
fn a_derived_storage_round_trips_in_dense_order() {
    let mut particles: ParticleSoa =
        [7, 3, 1_000_000, 0, 42].into_iter().map(|key| (key, particle(key))).collect();
    particles.remove(3); // swap-remove: 42 moves to position 1
    let text = serde_json::to_string(&particles).unwrap();
    assert_eq!(
        text,
        r#"{"bounds":null,"rows":[[7,{"position":[7.0,-7.0],"name":"p7"}],[42,{"position":[42.0,-42.0],"name":"p42"}],[1000000,{"position":[1000000.0,-1000000.0],"name":"p1000000"}],[0,{"position":[0.0,-0.0],"name":"p0"}]]}"#
    );
    for copy in round_trips(&particles) {
        Storage::assert_invariants(&copy);
        assert_eq!(copy.keys(), particles.keys());
        assert_eq!(copy.name(), particles.name());
        assert_eq!(copy.position(), particles.position());
    }
    assert!(through_postcard(&ParticleSoa::new()).is_empty());
}

#[test]
fn a_derived_storage_and_a_map_of_its_struct_read_each_other() {
    let particles: ParticleSoa = [5, 9].into_iter().map(|key| (key, particle(key))).collect();
    let text = serde_json::to_string(&particles).unwrap();
    let map: SparseMap<u32, Particle> = serde_json::from_str(&text).unwrap();
    assert_eq!(map.keys(), &[5, 9]);
    assert_eq!(map[9], particle(9));
    assert_eq!(serde_json::to_string(&map).unwrap(), text);
    let bytes = postcard::to_allocvec(&map).unwrap();
    let back: ParticleSoa = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(back, particles);
}

#[derive(SparseSoa, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity, serde)]
struct Body {
    mass: f32,
    #[sparse_soa(rename = "length")]
    len: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity, serde)]
struct Frozen;

/// A world saved and loaded whole, with serde's own derive.
#[derive(Default, World, Serialize, Deserialize)]
struct Game {
    entities: Entities,
    bodies: BodySoa,
    health: SparseMap<Entity, u32>,
    frozen: FrozenSoa,
}

impl Game {
    /// Every storage's keys are alive in the allocator.
    fn check_alive(&self) -> Result<(), sparse_soa::serialization::NotAlive> {
        check_alive(&self.entities, self.bodies.keys())?;
        check_alive(&self.entities, self.health.keys())?;
        check_alive(&self.entities, self.frozen.as_slice())
    }
}

/// A game with a history: spawns, despawns and reuse of slots.
fn game_with_history() -> (Game, Vec<Entity>) {
    let mut game = Game::default();
    let mut handles = Vec::new();
    for round in 0..5_u32 {
        for i in 0..8_u32 {
            let e = game.entities.spawn();
            handles.push(e);
            game.bodies.insert(e, Body { mass: f32::from(i as u16), len: f32::from(round as u16) });
            if i % 2 == 0 {
                game.health.insert(e, 100 + i);
            }
            if i % 3 == 0 {
                game.frozen.insert(e);
            }
        }
        for (at, &e) in handles.clone().iter().enumerate() {
            if (at as u32 + round) % 4 == 0 {
                game.despawn(e);
            }
        }
    }
    (game, handles)
}

fn assert_same_game(mut loaded: Game, mut original: Game, handles: &[Entity]) {
    loaded.entities.assert_invariants();
    Storage::assert_invariants(&loaded.bodies);
    loaded.health.assert_invariants();
    loaded.frozen.assert_invariants();
    assert_eq!(loaded.check_alive(), Ok(()));
    assert_eq!(loaded.bodies, original.bodies);
    assert_eq!(loaded.bodies.keys(), original.bodies.keys());
    assert_eq!(loaded.health.keys(), original.health.keys());
    assert_eq!(loaded.health.values(), original.health.values());
    assert_eq!(loaded.frozen.as_slice(), original.frozen.as_slice());
    for &e in handles {
        assert_eq!(loaded.entities.is_alive(e), original.entities.is_alive(e), "{e}");
        assert_eq!(loaded.bodies.contains_key(e), original.bodies.contains_key(e), "{e}");
    }
    // The loaded world goes on exactly as the original: the same handles, the same despawns.
    for _ in 0..10 {
        let (a, b) = (loaded.entities.spawn(), original.entities.spawn());
        assert_eq!(a, b);
        loaded.bodies.insert(a, Body { mass: 1.0, len: 1.0 });
        original.bodies.insert(b, Body { mass: 1.0, len: 1.0 });
    }
    for &e in handles.iter().step_by(3) {
        assert_eq!(loaded.despawn(e), original.despawn(e), "{e}");
    }
    assert_eq!(loaded.bodies.keys(), original.bodies.keys());
}

#[test]
fn a_world_round_trips_and_goes_on_as_before() {
    for copy in [0, 1] {
        let (game, handles) = game_with_history();
        let loaded = if copy == 0 { through_json(&game) } else { through_postcard(&game) };
        assert_same_game(loaded, game, &handles);
    }
}

#[test]
fn loaded_storages_are_checked_against_their_allocator() {
    let (mut game, handles) = game_with_history();
    let saved_bodies = serde_json::to_string(&game.bodies).unwrap();
    let victim = game.bodies.keys()[2];
    game.entities.despawn(victim);
    let saved_entities = postcard::to_allocvec(&game.entities).unwrap();

    let entities: Entities = postcard::from_bytes(&saved_entities).unwrap();
    let bodies: BodySoa = serde_json::from_str(&saved_bodies).unwrap();
    let error = check_alive(&entities, bodies.keys()).unwrap_err();
    assert_eq!((error.entity(), error.position()), (victim, 2));
    assert_eq!(
        error.to_string(),
        format!("entity {victim} (position 2) is not alive: slot {} is dead", victim.index())
    );

    let load = Load::<BodySoa>::new().alive_in(&entities);
    let mut json = serde_json::Deserializer::from_str(&saved_bodies);
    let error = load.deserialize(&mut json).unwrap_err();
    assert!(error.to_string().starts_with(&format!("entity {victim} (position 2) is not alive")));

    // The same storage, without the despawned entity, loads.
    let mut kept = bodies.clone();
    kept.remove(victim);
    let text = serde_json::to_string(&kept).unwrap();
    let loaded = load.deserialize(&mut serde_json::Deserializer::from_str(&text)).unwrap();
    assert_eq!(loaded, kept);
    assert!(handles.contains(&victim));
}

#[test]
fn a_loaded_world_whose_storages_outlive_the_allocator_is_caught() {
    let (mut game, _) = game_with_history();
    let e = game.entities.spawn();
    game.health.insert(e, 1);
    game.entities.despawn(e); // despawned behind the world's back: the storages still hold it
    let loaded: Game = through_json(&game);
    let error = loaded.check_alive().unwrap_err();
    assert_eq!(error.entity(), e);
}

#[derive(SparseSoa, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[sparse_soa(dense = u8, serde)]
struct Cell(u16, #[sparse_soa(rename = "label")] String);

#[test]
fn a_narrow_tuple_storage_round_trips_full_and_refuses_one_more() {
    let cells: CellSoa =
        (0..255_u16).map(|key| (u32::from(key) * 3, Cell(key, key.to_string()))).collect();
    for copy in round_trips(&cells) {
        Storage::assert_invariants(&copy);
        assert_eq!(copy, cells);
        assert_eq!(copy.keys(), cells.keys());
        assert_eq!(copy.label(), cells.label());
    }
    let mut map: SparseMap<u32, Cell, u16> =
        cells.iter().map(|(key, cell)| (key, cell.cloned())).collect();
    map.insert(10_000, Cell(1, String::new()));
    let text = serde_json::to_string(&map).unwrap();
    assert_refused::<CellSoa>(
        &text,
        "row 255: key 10000 does not fit: dense index type `u8` addresses at most 255 elements",
    );
    assert!(postcard::from_bytes::<CellSoa>(&postcard::to_allocvec(&map).unwrap()).is_err());
}

#[test]
fn a_bounded_derived_storage_round_trips_bounded() {
    let mut particles = ParticleSoa::bounded(4, 64);
    particles.insert(63, particle(63));
    particles.insert(0, particle(0));
    for copy in round_trips(&particles) {
        Storage::assert_invariants(&copy);
        assert_eq!((copy.capacity(), copy.as_sparse_set().key_limit()), (4, Some(64)));
        assert_eq!(copy.keys(), &[63, 0]);
        assert_eq!(copy, particles);
    }
    let text = serde_json::to_string(&particles).unwrap();
    let wider = text.replace(r#""key_limit":64"#, r#""key_limit":63"#);
    assert_refused::<ParticleSoa>(&wider, "row 0: key 63 is outside the bounded key range 0..63");
    let smaller = text.replace(r#""capacity":4"#, r#""capacity":1"#);
    assert_refused::<ParticleSoa>(&smaller, "row 1: key 0 does not fit: the bounded capacity is 1");
}

/// Eight tracked fields: 11 bytes a row in the columns, 36 in the stamps.
#[derive(SparseSoa, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[sparse_soa(serde)]
struct Flags {
    #[sparse_soa(track)]
    bits: [u8; 4],
    #[sparse_soa(track)]
    a: u8,
    #[sparse_soa(track)]
    b: u8,
    #[sparse_soa(track)]
    c: u8,
    #[sparse_soa(track)]
    d: u8,
    #[sparse_soa(track)]
    e: u8,
    #[sparse_soa(track)]
    f: u8,
    #[sparse_soa(track)]
    g: u8,
}

/// The bytes a bounded storage allocates up front count its tracked fields' stamps: bounds that
/// fit the limit with the columns alone (15.2 MB of keys, pages and values) are refused
/// with the stamps (36 bytes a row more), before anything is allocated.
#[test]
fn bounds_are_weighed_with_the_stamps_of_tracked_fields() {
    let (fits, usage) = measure(|| {
        serde_json::from_str::<FlagsSoa>(
            r#"{"bounds":{"capacity":10000,"key_limit":10000},"rows":[]}"#,
        )
    });
    assert_eq!(fits.map(|flags| flags.capacity()).ok(), Some(10_000));
    assert!(usage.allocated < 1 << 20, "{} bytes for 10,000 rows", usage.allocated);
    let text = r#"{"bounds":{"capacity":800000,"key_limit":800000},"rows":[]}"#;
    let (refused, usage) = measure(|| serde_json::from_str::<FlagsSoa>(text));
    let message = refused.unwrap_err().to_string();
    assert!(message.contains("bytes allowed"), "{message}");
    assert!(usage.allocated < 1 << 16, "{} bytes allocated before refusing", usage.allocated);
}

#[test]
fn derived_storages_refuse_malformed_input() {
    let cases = [
        (
            r#"{"bounds":null,"rows":[[1,{"position":[0,0],"name":"a"}],[1,{"position":[0,0],"name":"b"}]]}"#,
            "row 1: duplicate key 1 (row 0 holds it)",
        ),
        (r#"{"bounds":null,"rows":[[1,{"position":[0,0]}]]}"#, "missing field `name`"),
        (
            r#"{"bounds":null,"rows":[[1]]}"#,
            "invalid length 1, expected a row: a key and its value",
        ),
        (
            r#"{"bounds":null,"rows":[[-1,{"position":[0,0],"name":"a"}]]}"#,
            "invalid value: integer `-1`",
        ),
        (r#"{"bounds":null,"keys":[]}"#, "unknown field `keys`, expected `bounds` or `rows`"),
        (r#"{"bounds":{"capacity":1,"key_limit":1000000000},"rows":[]}"#, "bytes allowed"),
    ];
    for (text, expected) in cases {
        assert_refused::<ParticleSoa>(text, expected);
    }
    let e = |index: u32, generation: u64| (generation << 32) | u64::from(index);
    let shared = format!(
        r#"{{"bounds":null,"rows":[[{},{{"mass":1.0,"len":1.0}}],[{},{{"mass":2.0,"len":2.0}}]]}}"#,
        e(4, 2),
        e(4, 3)
    );
    assert_refused::<BodySoa>(
        &shared,
        "row 1: key 4v3 shares slot 4 with key 4v2 of row 0: a storage holds one key per slot",
    );
    assert_refused::<BodySoa>(
        r#"{"bounds":null,"rows":[[7,{"mass":1.0,"len":1.0}]]}"#,
        "invalid value: integer `7`, expected an entity",
    );
}

#[test]
fn a_tag_storage_round_trips_as_a_set() {
    let mut entities = Entities::new();
    let frozen: FrozenSoa = (0..5).map(|_| entities.spawn()).collect();
    for copy in round_trips(&frozen) {
        copy.assert_invariants();
        assert_eq!(copy.as_slice(), frozen.as_slice());
    }
    let text = serde_json::to_string(&frozen).unwrap();
    let set: SparseSet<Entity, u8> = serde_json::from_str(&text).unwrap();
    assert_eq!(set.as_slice(), frozen.as_slice());
}

/// Generic structs: a lifetime, a bounded type parameter with a default, a const parameter, a
/// `where` clause, and a field type that mentions no parameter.
#[derive(SparseSoa, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[sparse_soa(serde)]
struct Labelled<'s, T: Copy = u8, const N: usize = 2>
where
    T: Debug,
{
    name: &'s str,
    data: T,
    id: u64,
}

#[derive(SparseSoa, Serialize, Deserialize, Debug, PartialEq)]
#[sparse_soa(serde, key = u64, dense = u16)]
struct Boxed<T> {
    inner: Vec<T>,
}

#[test]
fn generic_storages_round_trip() {
    let mut labelled: LabelledSoa<'_, i64, 3> = LabelledSoa::new();
    labelled.insert(4, Labelled { name: "four", data: -4, id: 44 });
    labelled.insert(1, Labelled { name: "one", data: -1, id: 11 });
    let text = serde_json::to_string(&labelled).unwrap();
    let copy: LabelledSoa<'_, i64, 3> = serde_json::from_str(&text).unwrap(); // borrows `text`
    assert_eq!(copy, labelled);
    assert_eq!(copy.name(), &["four", "one"]);
    let bytes = postcard::to_allocvec(&labelled).unwrap();
    let copy: LabelledSoa<'_, i64, 3> = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(copy.keys(), labelled.keys());

    let mut boxed = BoxedSoa::new();
    boxed.insert(1 << 40, Boxed { inner: vec!['a', 'b'] });
    boxed.insert(7, Boxed { inner: vec![] });
    for copy in round_trips(&boxed) {
        assert_eq!(copy.keys(), &[1 << 40, 7]);
        assert_eq!(copy.inner(), boxed.inner());
    }
}

#[test]
fn a_failed_allocation_while_loading_is_an_error_not_an_abort() {
    let (game, _) = game_with_history();
    let bytes = postcard::to_allocvec(&game).unwrap();
    let mut refused = 0;
    for allowed in 0.. {
        match failing_after(allowed, || postcard::from_bytes::<Game>(&bytes)) {
            Ok(loaded) => {
                assert_eq!(loaded.bodies, game.bodies);
                break;
            }
            Err(_) => refused += 1,
        }
    }
    assert!(refused > 10, "only {refused} allocations were refused");
}

#[test]
fn a_length_prefix_reserves_little_memory_whatever_it_claims() {
    // postcard: no bounds, then a row count of about 2^63, then one row.
    let mut bytes = vec![0];
    bytes.extend([0xff; 8]);
    bytes.push(0x7f);
    bytes.extend([1, 2]);
    for result in [
        measure(|| postcard::from_bytes::<SparseMap<u32, u64>>(&bytes).map(drop)),
        measure(|| postcard::from_bytes::<ParticleSoa>(&bytes).map(drop)),
        measure(|| postcard::from_bytes::<SparseSet<u64>>(&bytes).map(drop)),
    ] {
        let (outcome, usage) = result;
        assert!(outcome.is_err());
        assert!(usage.allocated <= 2 << 20, "{} bytes allocated", usage.allocated);
    }
    let entities =
        [vec![0xff, 0xff, 0xff, 0xff, 0x0f, 1, 1], vec![0, 0xff, 0xff, 0xff, 0xff, 0x0f]];
    for bytes in entities {
        let (outcome, usage) = measure(|| postcard::from_bytes::<Entities>(&bytes).map(drop));
        assert!(outcome.is_err());
        assert!(usage.allocated <= 2 << 20, "{} bytes allocated", usage.allocated);
    }
}

/// A glob import of the crate leaves the name `serde` to the serde crate: enabling the feature
/// cannot make code that uses both ambiguous.
mod glob_import {
    use serde::Serialize;
    use serde::de::DeserializeSeed;
    use sparse_soa::*;

    #[derive(Serialize)]
    struct Plain {
        keys: SparseSet<u32>,
    }

    #[test]
    fn serde_stays_the_crate() {
        let plain = Plain { keys: [3, 1].into_iter().collect() };
        let text = serde_json::to_string(&plain).unwrap();
        assert_eq!(text, r#"{"keys":{"bounds":null,"keys":[3,1]}}"#);
        let loaded: SparseSet<u32> = serialization::Load::new()
            .deserialize(&mut serde_json::Deserializer::from_str(r#"{"keys":[3,1]}"#))
            .unwrap();
        assert_eq!(loaded.as_slice(), plain.keys.as_slice());
    }
}
