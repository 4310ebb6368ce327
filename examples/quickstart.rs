//! The README's quick example, as a program: a derived struct-of-arrays storage, then the core
//! without the derive (`SparseSet` as a queue of unique keys, `Entities` handing out
//! generational ids, a `SparseMap` keyed by them refusing a stale handle).
//!
//! Every claim it prints is also checked with `assert!`, so running it proves them.
//!
//! Run with `cargo run --example quickstart`.

use sparse_soa::{Entities, Entity, Error, SparseMap, SparseSet, SparseSoa};

/// A component: the derive makes `PositionSoa` (the storage) and `PositionRef` / `PositionMut`
/// (views of one element).
#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Position {
    x: f32,
    y: f32,
    z: f32,
}

fn derived() {
    println!("-- derived storage --");
    let mut positions = PositionSoa::new();
    positions.insert(42, Position { x: 1.0, y: 2.0, z: 3.0 });
    positions.insert(7, Position { x: 4.0, y: 5.0, z: 6.0 });
    println!("keys {:?}, column x {:?}", positions.keys(), positions.x());
    assert_eq!((positions.keys(), positions.x()), (&[42, 7][..], &[1.0, 4.0][..]));

    for x in positions.x_mut() {
        *x += 1.0; // one contiguous column
    }
    println!("after `x += 1` over the column: x {:?}", positions.x());
    assert_eq!(positions.x(), &[2.0, 5.0]);
    assert_eq!(positions.get(7).map(|p| *p.x), Some(5.0));

    // Swap-remove: the last element moves into the gap, every column in lockstep.
    let removed = positions.remove(42);
    println!("remove(42) -> {removed:?}; keys now {:?}", positions.keys());
    assert_eq!(removed, Some(Position { x: 2.0, y: 2.0, z: 3.0 }));
    assert_eq!(positions.keys(), &[7]);
    assert_eq!((positions.x(), positions.y(), positions.z()), (&[5.0][..], &[5.0][..], &[6.0][..]));
}

fn core() {
    println!("-- the core, without the derive --");
    let mut queue = SparseSet::<u32>::new();
    let first = queue.insert(3);
    let again = queue.insert(3); // already queued: ignored
    println!("insert(3) -> {first}, insert(3) again -> {again}; queue {:?}", queue.as_slice());
    assert!(first && !again);
    assert_eq!(queue.as_slice(), &[3]);

    let mut entities = Entities::new();
    let mut names: SparseMap<Entity, &str> = SparseMap::new();
    let e = entities.spawn();
    names.insert(e, "player");
    println!("spawned {e}, named {:?}", names.get(e));
    assert_eq!(names.get(e), Some(&"player"));
    entities.despawn(e);
    names.remove(e);
    let reused = entities.spawn(); // same slot, newer generation
    println!(
        "despawned {e}, spawned {reused} (slot {} again): name of {e} {:?}, of {reused} {:?}",
        reused.index(),
        names.get(e),
        names.get(reused)
    );
    assert_eq!(reused.index(), e.index());
    assert_ne!(reused, e);
    assert!(names.get(e).is_none() && names.get(reused).is_none());

    // The stale handle cannot write over the entity that now holds its slot either.
    names.insert(reused, "rock");
    let error = names.try_insert(e, "ghost").unwrap_err();
    println!("try_insert({e}) -> Err: {error}");
    assert_eq!(error, Error::StaleKey { index: 0, version: 1, held: 2 });
    assert_eq!(names.get(reused), Some(&"rock"));
}

fn main() {
    derived();
    core();
}
