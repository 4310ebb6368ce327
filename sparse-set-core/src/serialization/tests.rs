//! Unit tests of saving and loading: round trips, and one test per malformed input.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::Debug;
use core::num::NonZeroU32;

use ::serde::Serialize;
use ::serde::de::{DeserializeOwned, DeserializeSeed};

use crate::entity::{Entities, Entity};
use crate::map::SparseMap;
use crate::serialization::{Load, MAX_BOUNDED_BYTES, check_alive};
use crate::set::SparseSet;

fn through_json<T: Serialize + DeserializeOwned>(value: &T) -> T {
    let text = serde_json::to_string(value).expect("serializes");
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{text}: {error}"))
}

fn through_postcard<T: Serialize + DeserializeOwned>(value: &T) -> T {
    let bytes = postcard::to_allocvec(value).expect("serializes");
    postcard::from_bytes(&bytes).unwrap_or_else(|error| panic!("{bytes:?}: {error}"))
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

fn entity(index: u32, generation: u32) -> Entity {
    Entity::from_parts(index, NonZeroU32::new(generation).expect("not zero"))
}

/// An allocator with a history: spawns, despawns in a scattered order, reuses.
fn allocator_with_history() -> (Entities, Vec<Entity>) {
    let mut entities = Entities::new();
    let mut handles = Vec::new();
    for round in 0..4_u32 {
        for _ in 0..6 {
            handles.push(entities.spawn());
        }
        for (at, &handle) in handles.clone().iter().enumerate() {
            if (at as u32 + round) % 3 == 0 {
                entities.despawn(handle);
            }
        }
    }
    entities.assert_invariants();
    (entities, handles)
}

/// `copy` behaves as `original` from now on: the same handles alive, the same spawns.
fn assert_same_allocator(mut original: Entities, mut copy: Entities, handles: &[Entity]) {
    copy.assert_invariants();
    assert_eq!(copy.len(), original.len());
    for &handle in handles {
        assert_eq!(copy.is_alive(handle), original.is_alive(handle), "{handle}");
    }
    for _ in 0..12 {
        assert_eq!(copy.spawn(), original.spawn());
    }
    copy.assert_invariants();
}

#[test]
fn an_entity_is_its_bits() {
    let e = entity(3, 2);
    assert_eq!(serde_json::to_string(&e).unwrap(), (2_u64 << 32 | 3).to_string());
    assert_eq!(through_json(&e), e);
    assert_eq!(through_postcard(&e), e);
    assert_refused::<Entity>("7", "expected an entity");
    assert_refused::<Entity>("-1", "invalid value");
    assert!(postcard::from_bytes::<Entity>(&[7]).is_err());
}

#[test]
fn entities_round_trip_with_their_generations_and_free_list() {
    let (original, handles) = allocator_with_history();
    assert_same_allocator(original.clone(), through_json(&original), &handles);
    assert_same_allocator(original.clone(), through_postcard(&original), &handles);
    assert_same_allocator(Entities::new(), through_json(&Entities::new()), &handles);
}

#[test]
fn entities_keep_a_retired_slot_and_one_to_issue_at_the_last_generation() {
    let mut entities = Entities::new();
    let [a, b, c] = [entities.spawn(), entities.spawn(), entities.spawn()];
    entities.set_generation_for_test(0, NonZeroU32::MAX);
    entities.despawn(entity(a.index(), u32::MAX)); // retired
    entities.set_generation_for_test(1, NonZeroU32::new(u32::MAX - 1).unwrap());
    entities.despawn(entity(b.index(), u32::MAX - 1)); // on the free list at u32::MAX
    entities.assert_invariants();
    let text = serde_json::to_string(&entities).unwrap();
    assert_eq!(
        text,
        format!(
            r#"{{"slots":[[{max},false],[{max},false],[1,true]],"free":[1],"bound":null}}"#,
            max = u32::MAX
        )
    );
    let handles = [a, b, c, entity(0, u32::MAX), entity(1, u32::MAX)];
    assert_same_allocator(entities.clone(), through_json(&entities), &handles);
    assert_same_allocator(entities.clone(), through_postcard(&entities), &handles);
}

#[test]
fn a_bounded_allocator_keeps_its_bound() {
    let mut original = Entities::bounded(4);
    let handles = [original.spawn(), original.spawn(), original.spawn()];
    original.despawn(handles[1]);
    let text = serde_json::to_string(&original).unwrap();
    assert_eq!(text, r#"{"slots":[[1,true],[2,false],[1,true]],"free":[1],"bound":4}"#);
    for mut copy in [through_json(&original), through_postcard(&original)] {
        copy.assert_invariants(); // a bounded allocator's room for every slot included
        assert_eq!((copy.key_limit(), copy.capacity()), (Some(4), 4));
        let mut original = original.clone();
        for _ in 0..2 {
            assert_eq!(copy.try_spawn(), original.try_spawn());
        }
        let full = Err(crate::error::Error::EntitiesFull { capacity: 4 });
        assert_eq!((copy.try_spawn(), original.try_spawn()), (full, full));
    }
    // Saved before allocators kept their bound: growable, as `null` is.
    let old: Entities = serde_json::from_str(r#"{"slots":[[1,true]],"free":[]}"#).unwrap();
    assert_eq!(old.key_limit(), None);
}

#[test]
fn entities_refuse_states_the_api_cannot_make() {
    let cases = [
        (r#"{"slots":[[0,true]],"free":[]}"#, "slot 0 has generation 0, which no entity has"),
        (
            r#"{"slots":[[2,false]],"free":[0,3]}"#,
            "free list entry 1 names slot 3, but there are only 1 slots",
        ),
        (r#"{"slots":[[1,true]],"free":[0]}"#, "free list entry 0 names slot 0, which is alive"),
        (r#"{"slots":[[2,false]],"free":[0,0]}"#, "slot 0 is on the free list twice"),
        (
            r#"{"slots":[[1,true],[3,false]],"free":[]}"#,
            "slot 1 is dead at generation 3 but not on the free list",
        ),
        (
            r#"{"slots":[[2,false],[1,false]],"free":[0,1]}"#,
            "slot 1 is dead at generation 1, which no despawn leaves",
        ),
        (r#"{"slots":[[1,true]]}"#, "missing field `free`"),
        (r#"{"free":[]}"#, "missing field `slots`"),
        (r#"{"slots":[],"free":[],"slots":[]}"#, "duplicate field `slots`"),
        (
            r#"{"slots":[],"free":[],"len":0}"#,
            "unknown field `len`, expected one of `slots`, `free`, `bound`",
        ),
        (r#"{"slots":[[1]],"free":[]}"#, "invalid length 1"),
        (r#"{"slots":[[1,"yes"]],"free":[]}"#, "invalid type: string \"yes\", expected a boolean"),
        (r#"{"slots":[[1,true]],"free":[-1]}"#, "invalid value"),
        (r"[]", "invalid length 0"),
        (r#"{"slots":[],"free":[],"bound":null,"bound":null}"#, "duplicate field `bound`"),
        (
            r#"{"slots":[[1,true],[1,true]],"free":[],"bound":1}"#,
            "2 slots are more than the allocator's bound of 1",
        ),
        (r#"{"slots":[],"free":[],"bound":-1}"#, "invalid value"),
        (
            r#"{"slots":[],"free":[],"bound":4294967296}"#,
            "an allocator bounded to 4294967296 slots allocates 51539607552 bytes up front, more than the 16777216 bytes allowed",
        ),
    ];
    for (text, expected) in cases {
        assert_refused::<Entities>(text, expected);
    }
    // A bound past what an index addresses, with a limit that would grant it.
    let mut json =
        serde_json::Deserializer::from_str(r#"{"slots":[],"free":[],"bound":4294967297}"#);
    let error = Entities::restore(&mut json, usize::MAX).unwrap_err().to_string();
    assert!(error.starts_with("4294967297 slots are more than the 2^32"), "{error}");
    // The same allocator in the order postcard reads: slots, free list, bound.
    let slots = vec![(1_u32, true), (3, false)];
    let bytes = postcard::to_allocvec(&(slots, Vec::<u32>::new(), None::<usize>));
    assert!(postcard::from_bytes::<Entities>(&bytes.unwrap()).is_err());
    // A free list given before the slots is fine.
    let entities: Entities =
        serde_json::from_str(r#"{"free":[1],"slots":[[1,true],[2,false]]}"#).unwrap();
    entities.assert_invariants();
    assert_eq!(entities.len(), 1);
}

#[test]
fn sets_round_trip_in_dense_order() {
    let mut set: SparseSet<u32> = [9, 4, 1_000_000, 0, u32::MAX, 17].into_iter().collect();
    set.remove(4); // swap-remove: 17 moves to position 1
    assert_eq!(
        serde_json::to_string(&set).unwrap(),
        format!(r#"{{"bounds":null,"keys":[9,17,1000000,0,{}]}}"#, u32::MAX)
    );
    for copy in [through_json(&set), through_postcard(&set)] {
        copy.assert_invariants();
        assert_eq!(copy.as_slice(), set.as_slice());
        assert_eq!(copy.key_limit(), None);
    }
    let empty = SparseSet::<u64, usize>::new();
    assert!(through_postcard(&empty).is_empty());
}

#[test]
fn bounded_sets_round_trip_bounded() {
    let mut set = SparseSet::<u32, u8>::bounded(8, 100);
    for key in [50, 3, 99] {
        set.insert(key);
    }
    let text = serde_json::to_string(&set).unwrap();
    assert_eq!(text, r#"{"bounds":{"capacity":8,"key_limit":100},"keys":[50,3,99]}"#);
    for copy in [through_json(&set), through_postcard(&set)] {
        copy.assert_invariants();
        assert_eq!(copy.as_slice(), &[50, 3, 99]);
        assert_eq!((copy.capacity(), copy.key_limit()), (8, Some(100)));
    }
}

#[test]
fn a_narrow_set_round_trips_at_its_limit() {
    let set: SparseSet<u32, u8> = (0..255).map(|key| key * 7).collect();
    for copy in [through_json(&set), through_postcard(&set)] {
        copy.assert_invariants();
        assert_eq!(copy.as_slice(), set.as_slice());
    }
}

#[test]
fn entity_keyed_storages_round_trip() {
    let (entities, handles) = allocator_with_history();
    let alive: Vec<Entity> = entities.iter().collect();
    let set: SparseSet<Entity> = alive.iter().rev().copied().collect();
    let map: SparseMap<Entity, String> = alive.iter().map(|&e| (e, e.to_string())).collect();
    for copy in [through_json(&set), through_postcard(&set)] {
        copy.assert_invariants();
        assert_eq!(copy.as_slice(), set.as_slice());
        for &handle in &handles {
            assert_eq!(copy.contains(handle), set.contains(handle), "{handle}");
        }
    }
    for copy in [through_json(&map), through_postcard(&map)] {
        copy.assert_invariants();
        assert_eq!(copy.keys(), map.keys());
        assert_eq!(copy.values(), map.values());
        assert!(check_alive(&entities, copy.keys()).is_ok());
    }
}

#[test]
fn maps_round_trip_in_dense_order() {
    let mut map: SparseMap<u64, String, u16> =
        [(5, "five"), (1 << 40, "big"), (0, "zero"), (77, "seventy-seven")]
            .into_iter()
            .map(|(key, value)| (key, value.to_string()))
            .collect();
    map.remove(5);
    let text = serde_json::to_string(&map).unwrap();
    assert_eq!(
        text,
        r#"{"bounds":null,"rows":[[77,"seventy-seven"],[1099511627776,"big"],[0,"zero"]]}"#
    );
    for copy in [through_json(&map), through_postcard(&map)] {
        copy.assert_invariants();
        assert_eq!(copy.keys(), map.keys());
        assert_eq!(copy.values(), map.values());
    }
    let mut bounded = SparseMap::<u32, (u8, bool), u8>::bounded(4, 10);
    bounded.insert(9, (1, true));
    bounded.insert(2, (2, false));
    for copy in [through_json(&bounded), through_postcard(&bounded)] {
        copy.assert_invariants();
        assert_eq!(copy.keys(), &[9, 2]);
        assert_eq!(copy.values(), &[(1, true), (2, false)]);
        assert_eq!((copy.capacity(), copy.as_sparse_set().key_limit()), (4, Some(10)));
    }
}

#[test]
fn storages_refuse_duplicate_keys_and_shared_slots() {
    assert_refused::<SparseSet<u32>>(
        r#"{"bounds":null,"keys":[7,3,7]}"#,
        "row 2: duplicate key 7 (row 0 holds it)",
    );
    assert_refused::<SparseMap<u32, u8>>(
        r#"{"bounds":null,"rows":[[7,1],[3,2],[3,3]]}"#,
        "row 2: duplicate key 3 (row 1 holds it)",
    );
    let (older, newer) = (entity(5, 1), entity(5, 2));
    for keys in [[older, newer], [newer, older]] {
        let text = format!(
            r#"{{"bounds":null,"rows":[[{},0],[{},1]]}}"#,
            keys[0].to_bits(),
            keys[1].to_bits()
        );
        assert_refused::<SparseMap<Entity, u8>>(
            &text,
            &format!(
                "row 1: key {} shares slot 5 with key {} of row 0: a storage holds one key per slot",
                keys[1], keys[0]
            ),
        );
    }
    let bytes = postcard::to_allocvec(&(None::<()>, [3_u32, 3])).unwrap();
    assert!(postcard::from_bytes::<SparseSet<u32>>(&bytes).is_err());
}

#[test]
fn bounded_storages_refuse_what_does_not_fit() {
    assert_refused::<SparseSet<u32>>(
        r#"{"bounds":{"capacity":4,"key_limit":100},"keys":[3,100]}"#,
        "row 1: key 100 is outside the bounded key range 0..100",
    );
    assert_refused::<SparseMap<u32, char>>(
        r#"{"bounds":{"capacity":2,"key_limit":100},"rows":[[1,"a"],[2,"b"],[3,"c"]]}"#,
        "row 2: key 3 does not fit: the bounded capacity is 2",
    );
    assert_refused::<SparseSet<u32, u8>>(
        r#"{"bounds":{"capacity":256,"key_limit":100},"keys":[]}"#,
        "bounded capacity 256 is more than dense index type `u8` addresses (255 elements)",
    );
    let huge = usize::MAX;
    assert_refused::<SparseSet<u64>>(
        &format!(r#"{{"bounds":{{"capacity":0,"key_limit":{huge}}},"keys":[]}}"#),
        &format!("key range 0..{huge} needs more memory than the address space has"),
    );
    assert_refused::<SparseSet<u8>>(
        r#"{"bounds":{"capacity":10,"key_limit":300},"keys":[1]}"#,
        "bounded key range 0..300 is past the 256 slots the keys can take",
    );
    assert_refused::<SparseSet<u32>>(
        r#"{"bounds":{"capacity":0,"key_limit":100000000},"keys":[]}"#,
        &format!("more than the {MAX_BOUNDED_BYTES} bytes allowed"),
    );
    assert_refused::<SparseSet<u32>>(
        r#"{"bounds":{"capacity":0},"keys":[]}"#,
        "missing field `key_limit`",
    );
    assert_refused::<SparseSet<u32>>(
        r#"{"bounds":{"capacity":0,"limit":5},"keys":[]}"#,
        "unknown field `limit`, expected `capacity` or `key_limit`",
    );
    assert_refused::<SparseSet<u32>>(
        r#"{"bounds":{"capacity":-1,"key_limit":5},"keys":[]}"#,
        "invalid value: integer `-1`",
    );
}

#[test]
fn a_narrow_width_refuses_more_rows_than_it_addresses() {
    let keys: Vec<u32> = (0..300).collect();
    let text = format!(r#"{{"bounds":null,"keys":{}}}"#, serde_json::to_string(&keys).unwrap());
    assert_refused::<SparseSet<u32, u8>>(
        &text,
        "row 255: key 255 does not fit: dense index type `u8` addresses at most 255 elements",
    );
    let bytes = postcard::to_allocvec(&(None::<()>, &keys)).unwrap();
    assert!(postcard::from_bytes::<SparseSet<u32, u8>>(&bytes).is_err());
    assert!(postcard::from_bytes::<SparseSet<u32, u16>>(&bytes).is_ok());
}

#[test]
fn malformed_storages_are_refused() {
    let cases = [
        (
            r#"{"bounds":null,"rows":[[1]]}"#,
            "invalid length 1, expected a row: a key and its value",
        ),
        (r#"{"bounds":null,"rows":[1]}"#, "invalid type: integer `1`, expected a row"),
        (r#"{"bounds":null,"rows":[[1,2,3]]}"#, "trailing"),
        (r#"{"bounds":null,"rows":[["one",2]]}"#, "invalid type: string \"one\", expected u32"),
        (r#"{"bounds":null}"#, "missing field `rows`"),
        (r#"{"bounds":null,"rows":[],"rows":[]}"#, "duplicate field `rows`"),
        (r#"{"bounds":null,"bounds":null,"rows":[]}"#, "duplicate field `bounds`"),
        (r#"{"bounds":null,"keys":[]}"#, "unknown field `keys`, expected `bounds` or `rows`"),
        (r#"{"bounds":null,"rows":{}}"#, "invalid type: map, expected the rows of a storage"),
        (r"[null]", "invalid length 1, expected a storage"),
        (r"7", "invalid type: integer `7`, expected a storage"),
    ];
    for (text, expected) in cases {
        assert_refused::<SparseMap<u32, u8>>(text, expected);
    }
    assert!(postcard::from_bytes::<SparseMap<u32, u8>>(&[0, 1, 5]).is_err());
    assert!(postcard::from_bytes::<SparseMap<u32, u8>>(&[2]).is_err());
}

#[test]
fn fields_may_come_in_any_order_and_bounds_may_be_left_out() {
    let set: SparseSet<u32> = serde_json::from_str(r#"{"keys":[4,2]}"#).unwrap();
    assert_eq!((set.as_slice(), set.key_limit()), (&[4, 2][..], None));
    let map: SparseMap<u32, u8> =
        serde_json::from_str(r#"{"rows":[[4,1],[2,2]],"bounds":{"capacity":3,"key_limit":5}}"#)
            .unwrap();
    map.assert_invariants();
    assert_eq!((map.keys(), map.capacity()), (&[4, 2][..], 3));
    // Rows read before their bounds are checked against them all the same.
    assert_refused::<SparseMap<u32, u8>>(
        r#"{"rows":[[4,1],[9,2]],"bounds":{"capacity":3,"key_limit":5}}"#,
        "row 1: key 9 is outside the bounded key range 0..5",
    );
    assert_refused::<SparseMap<u32, u8>>(
        r#"{"rows":[[4,1],[4,2]]}"#,
        "row 1: duplicate key 4 (row 0 holds it)",
    );
}

#[test]
fn a_map_and_a_set_of_the_same_keys_are_told_apart_by_name() {
    let map: SparseMap<u32, ()> = [(1, ())].into_iter().collect();
    let text = serde_json::to_string(&map).unwrap();
    assert_eq!(text, r#"{"bounds":null,"rows":[[1,null]]}"#);
    assert_refused::<SparseSet<u32>>(&text, "unknown field `rows`, expected `bounds` or `keys`");
}

#[test]
fn load_checks_keys_against_the_allocator() {
    let (entities, handles) = allocator_with_history();
    let alive: Vec<Entity> = entities.iter().collect();
    let map: SparseMap<Entity, u8> = alive.iter().map(|&e| (e, 1)).collect();
    let text = serde_json::to_string(&map).unwrap();
    let load = Load::<SparseMap<Entity, u8>>::new().alive_in(&entities);
    let loaded = load.deserialize(&mut serde_json::Deserializer::from_str(&text)).unwrap();
    assert_eq!(loaded.keys(), map.keys());

    let dead = *handles.iter().find(|&&e| !entities.is_alive(e)).unwrap();
    let mut with_dead = map.clone();
    with_dead.insert(dead, 2);
    let text = serde_json::to_string(&with_dead).unwrap();
    let error = load.deserialize(&mut serde_json::Deserializer::from_str(&text)).unwrap_err();
    let position = with_dead.get_index_of(dead).unwrap();
    assert!(
        error.to_string().starts_with(&format!("entity {dead} (position {position}) is not alive")),
        "{error}"
    );
    // Without the allocator, the same input loads.
    let plain = Load::<SparseMap<Entity, u8>>::new();
    assert!(plain.deserialize(&mut serde_json::Deserializer::from_str(&text)).is_ok());
}

#[test]
fn check_alive_says_what_the_slot_holds() {
    let mut entities = Entities::new();
    let [a, b] = [entities.spawn(), entities.spawn()];
    entities.despawn(a);
    let c = entities.spawn();
    entities.despawn(b);
    assert_eq!(check_alive(&entities, &[c]), Ok(()));
    let message = |keys: &[Entity]| check_alive(&entities, keys).unwrap_err().to_string();
    assert_eq!(message(&[c, a]), "entity 0v1 (position 1) is not alive: slot 0 holds 0v2");
    assert_eq!(message(&[b]), "entity 1v1 (position 0) is not alive: slot 1 is dead");
    assert_eq!(
        message(&[entity(9, 1)]),
        "entity 9v1 (position 0) is not alive: the allocator has 2 slots"
    );
}

#[test]
fn load_limits_what_bounds_may_allocate() {
    let text = r#"{"bounds":{"capacity":2,"key_limit":2000},"keys":[1999]}"#;
    let strict = Load::<SparseSet<u32>>::new().max_bounded_bytes(1000);
    let error = strict.deserialize(&mut serde_json::Deserializer::from_str(text)).unwrap_err();
    assert!(error.to_string().contains("more than the 1000 bytes allowed"), "{error}");
    let roomy = Load::<SparseSet<u32>>::new().max_bounded_bytes(1 << 20);
    let set = roomy.deserialize(&mut serde_json::Deserializer::from_str(text)).unwrap();
    assert_eq!((set.as_slice(), set.key_limit()), (&[1999][..], Some(2000)));
}
