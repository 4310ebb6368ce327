//! What every storage answers alike: `get_disjoint_mut` of derived storages (against the same
//! call on a `SparseMap`), one capacity report on sets, maps, derived storages and `Entities`,
//! and panic messages that name the storage and the limit it met.

#![allow(clippy::cast_possible_wrap, reason = "keys and places are small")]

use std::collections::BTreeSet;
use std::panic::AssertUnwindSafe;

use proptest::prelude::*;
use sparse_soa::{Entities, Entity, Error, Group, SparseMap, SparseSet, SparseSoa, Storage, World};
use sparse_soa_test_support::model;

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
struct Body {
    x: i32,
    mass: u8,
}

fn body(key: u32) -> Body {
    Body { x: key as i32, mass: (key % 7) as u8 }
}

#[test]
fn derived_get_disjoint_mut_writes_each_row_through_its_own_reference() {
    let mut bodies: BodySoa = [1, 2, 3].into_iter().map(|key| (key, body(key))).collect();
    let [a, missing, c] = bodies.get_disjoint_mut([3, 9, 1]);
    let (a, c) = (a.unwrap(), c.unwrap());
    assert!(missing.is_none());
    core::mem::swap(a.x, c.x);
    *a.mass = 100;
    *c.mass = 101;
    assert_eq!(bodies.get(1).map(|row| (*row.x, *row.mass)), Some((3, 101)));
    assert_eq!(bodies.get(3).map(|row| (*row.x, *row.mass)), Some((1, 100)));
    assert_eq!(bodies.get(2).map(|row| *row.x), Some(2));
    let [] = bodies.get_disjoint_mut([]);
    bodies.assert_invariants();
}

#[test]
#[should_panic(expected = "duplicate key 2 passed to get_disjoint_mut")]
fn derived_get_disjoint_mut_of_a_repeated_key_panics_even_when_absent() {
    let mut bodies = BodySoa::new();
    let _ = bodies.get_disjoint_mut([1, 2, 2]);
}

proptest! {
    #![proptest_config(model::config())]

    /// A derived storage's `get_disjoint_mut` finds what a `SparseMap` of the same rows finds,
    /// and writes land in the same rows.
    #[test]
    fn derived_get_disjoint_mut_matches_the_map(
        keys in prop::collection::btree_set(0_u32..64, 0..40),
        asked in prop::collection::btree_set(0_u32..80, 4),
        order in any::<prop::sample::Index>(),
    ) {
        let mut asked: Vec<u32> = asked.into_iter().collect();
        let turn = order.index(asked.len());
        asked.rotate_left(turn);
        let asked: [u32; 4] = asked.try_into().unwrap();
        let mut bodies: BodySoa = keys.iter().map(|&key| (key, body(key))).collect();
        let mut map: SparseMap<u32, Body> = keys.iter().map(|&key| (key, body(key))).collect();
        let rows = bodies.get_disjoint_mut(asked);
        let values = map.get_disjoint_mut(asked);
        for (place, (row, value)) in rows.into_iter().zip(values).enumerate() {
            prop_assert_eq!(row.is_some(), value.is_some());
            if let (Some(row), Some(value)) = (row, value) {
                prop_assert_eq!((*row.x, *row.mass), (value.x, value.mass));
                *row.x = -(place as i32);
                value.x = -(place as i32);
            }
        }
        let written: BTreeSet<(u32, i32)> =
            bodies.iter().map(|(key, row)| (key, *row.x)).collect();
        let expected: BTreeSet<(u32, i32)> = map.iter().map(|(key, value)| (key, value.x)).collect();
        prop_assert_eq!(written, expected);
        bodies.assert_invariants();
    }
}

/// One capacity report, the same names and meaning on every storage.
macro_rules! reports {
    ($storage:expr) => {{
        let storage = &$storage;
        (storage.capacity(), storage.remaining_capacity(), storage.key_limit())
    }};
}

#[test]
fn every_storage_reports_its_capacity_alike() {
    let mut set = SparseSet::<u32>::bounded(8, 64);
    let mut map = SparseMap::<u32, u64>::bounded(8, 64);
    let mut bodies = BodySoa::bounded(8, 64);
    let mut entities = Entities::bounded(8);
    for key in 0..3 {
        set.insert(key);
        map.insert(key, 0);
        bodies.insert(key, body(key));
        entities.spawn();
    }
    assert_eq!(reports!(set), (8, 5, Some(64)));
    assert_eq!(reports!(map), (8, 5, Some(64)));
    assert_eq!(reports!(bodies), (8, 5, Some(64)));
    assert_eq!(reports!(entities), (8, 5, Some(8)));

    let growable = (SparseSet::<u32>::new(), SparseMap::<u32, u64>::new(), BodySoa::new());
    assert_eq!(reports!(growable.0), (0, 0, None));
    assert_eq!(reports!(growable.1), (0, 0, None));
    assert_eq!(reports!(growable.2), (0, 0, None));
    assert_eq!(reports!(Entities::new()), (0, 0, None));
    assert_eq!(growable.2.allocated_bytes(), 0);
    assert_eq!(growable.1.allocated_bytes(), 0);
}

#[test]
fn allocated_bytes_counts_the_key_index_and_every_column() {
    let bodies: BodySoa = (0..1000).map(|key| (key, body(key))).collect();
    let keys = bodies.as_sparse_set().allocated_bytes();
    let columns = bodies.capacity() * (size_of::<i32>() + size_of::<u8>());
    assert!(bodies.allocated_bytes() >= keys + columns);
    let map: SparseMap<u32, Body> = (0..1000).map(|key| (key, body(key))).collect();
    assert_eq!(
        map.allocated_bytes(),
        map.as_sparse_set().allocated_bytes() + map.capacity() * size_of::<Body>()
    );
    // A bounded storage holds all its memory from the start, and keeps it.
    let mut bounded = BodySoa::bounded(100, 100);
    let before = bounded.allocated_bytes();
    assert!(before >= 100 * (size_of::<u32>() + size_of::<i32>() + size_of::<u8>()));
    bounded.insert(5, body(5));
    bounded.shrink_to_fit();
    assert_eq!(bounded.allocated_bytes(), before);
}

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Spot {
    x: f32,
}

#[derive(World)]
struct Scene {
    entities: Entities,
    spots: SpotSoa,
    names: SparseMap<Entity, u8>,
    paired: Group<(SparseMap<Entity, u16>, SparseSet<Entity>)>,
}

fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    *std::panic::catch_unwind(f).unwrap_err().downcast::<String>().unwrap()
}

#[test]
fn a_full_storage_is_named_in_the_panic() {
    assert_eq!(
        panic_message(|| {
            let mut set = SparseSet::<u32>::bounded(1, 10);
            set.insert(1);
            set.insert(2);
        }),
        "cannot insert key 2 into a `SparseSet`: storage is full: its bounded capacity is 1 \
         element; remove some first, or bound it with a higher capacity"
    );
    assert_eq!(
        panic_message(|| {
            let mut map = SparseMap::<u32, u8>::bounded(1, 10);
            map.insert(1, 0);
            map.entry(2).or_insert(0);
        }),
        "cannot insert key 2 into a `SparseMap<u32, u8>`: storage is full: its bounded capacity \
         is 1 element; remove some first, or bound it with a higher capacity"
    );
    assert_eq!(
        panic_message(|| {
            let mut bodies = BodySoa::bounded(1, 10);
            bodies.insert(1, body(1));
            bodies.insert(2, body(2));
        }),
        "cannot insert key 2 into a `BodySoa`: storage is full: its bounded capacity is 1 element; remove some first, or bound it with a higher capacity"
    );
    assert_eq!(
        panic_message(|| {
            let mut bodies = BodySoa::bounded(4, 10);
            bodies.insert(10, body(1));
        }),
        "cannot insert into a `BodySoa`: key 10 is outside the bounded key range 0..10; use keys below 10, or bound the storage with a higher key limit"
    );
    assert_eq!(
        panic_message(|| drop(SparseMap::<u32, u8, u8>::bounded(300, 10))),
        "cannot bound a `SparseMap<u32, u8, u8>` to 300 elements with keys below 10: storage is \
         full: its dense index type `u8` addresses at most 255 elements; use a wider dense index type"
    );
    // A group member's handle names the member's storage.
    assert_eq!(
        panic_message(|| {
            let mut group =
                Group::new((SparseMap::<u32, u16>::bounded(1, 10), SparseSet::<u32>::new()));
            group.member_mut::<0>().insert(1, 0);
            group.member_mut::<0>().insert(2, 0);
        }),
        "cannot insert key 2 into a `SparseMap<u32, u16>`: storage is full: its bounded \
         capacity is 1 element; remove some first, or bound it with a higher capacity"
    );
    // Through a world, the storage that refused is the one named.
    let mut scene = Scene {
        entities: Entities::new(),
        spots: SpotSoa::new(),
        names: SparseMap::bounded(1, 10),
        paired: Group::default(),
    };
    let first = scene.spawn((Spot { x: 1.0 }, 1_u8));
    assert_eq!(scene.try_spawn((Spot { x: 2.0 }, 2_u8)), Err(Error::Full { capacity: 1 }));
    assert!(scene.entities.is_alive(first));
    assert_eq!(scene.entities.len(), 1, "the refused spawn left no entity behind");
    // The plain calls name the world and the component whose storage refused the row.
    assert_eq!(
        panic_message(AssertUnwindSafe(|| {
            scene.spawn((Spot { x: 2.0 }, 2_u8));
        })),
        "cannot spawn a row into `it::parity::Scene`: the storage of `u8` refused it: storage \
         is full: its bounded capacity is 1 element; remove some first, or bound it with a higher capacity"
    );
    let second = scene.spawn(Spot { x: 3.0 });
    assert_eq!(
        panic_message(AssertUnwindSafe(|| scene.insert(second, 3_u8))),
        format!(
            "cannot insert a row for {second} in `it::parity::Scene`: the storage of `u8` \
             refused it: storage is full: its bounded capacity is 1 element; remove some first, or bound it with a higher capacity"
        )
    );
    scene.despawn(second);
    assert_eq!(
        panic_message(AssertUnwindSafe(|| scene.insert(second, 3_u8))),
        format!(
            "cannot insert a row for {second} in `it::parity::Scene`: entity {second} is not \
             alive in this world: despawned, or spawned by another `Entities`; drop the handle, \
             or spawn a new entity"
        )
    );
    let mut capped = Scene {
        entities: Entities::bounded(0),
        spots: SpotSoa::new(),
        names: SparseMap::new(),
        paired: Group::default(),
    };
    assert_eq!(
        panic_message(AssertUnwindSafe(|| {
            capped.spawn(Spot { x: 0.0 });
        })),
        "cannot spawn a row into `it::parity::Scene`: its `Entities` refused a new entity: the \
         entity allocator is full: it is bounded to 0 slots, every one alive or retired; \
         despawn entities, or bound it higher"
    );
}
