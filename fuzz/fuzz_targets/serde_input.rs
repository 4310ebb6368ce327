//! Arbitrary bytes to the storages' deserializers of the `serde` feature (groups, families and
//! worlds are not fuzzed yet), through a self-describing format (JSON) and a binary one
//! (postcard): `Entities`, `SparseSet<u32>`, a `u8`-wide
//! `SparseSet<u32, u8>` (bounded or not, as the input says), `SparseMap<u32, u16>`,
//! `SparseMap<Entity, u8>` and a derived storage keyed by `Entity`. Nothing may panic; whatever
//! is accepted must pass the invariant checkers and serialize back to input that loads the same.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sparse_soa::{Entities, Entity, SparseMap, SparseSet, SparseSoa, Storage};

#[derive(SparseSoa, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity, dense = u16, serde)]
struct Body {
    mass: u16,
    name: String,
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
        let e = entities.spawn();
        assert!(entities.is_alive(e));
        entities.assert_invariants();
    }
    let first = entities.iter().next();
    if let Some(first) = first {
        assert!(entities.despawn(first));
        entities.assert_invariants();
    }
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
});
