//! Every method and trait `#[derive(SparseSoa)]` generates, through the public API.

#![allow(clippy::float_cmp, reason = "the values are small integers, exact in `f32`")]
#![allow(clippy::cast_precision_loss, reason = "keys are small")]

use std::collections::BTreeSet;
use std::num::NonZeroU32;

use sparse_soa::{Columnar, Entities, Entity, Error, Moved, Removed, SparseSoa, Storage, join};

#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Position {
    x: f32,
    y: f32,
    z: f32,
}

fn pos(x: f32) -> Position {
    Position { x, y: x * 10.0, z: x * 100.0 }
}

fn filled(keys: &[u32]) -> PositionSoa {
    keys.iter().map(|&key| (key, pos(key as f32))).collect()
}

#[test]
fn new_default_with_capacity() {
    let storage = PositionSoa::new();
    assert!(storage.is_empty());
    assert_eq!(storage.len(), 0);
    assert_eq!(storage.capacity(), 0);
    let storage = PositionSoa::default();
    assert!(storage.is_empty());
    let storage = PositionSoa::with_capacity(10);
    assert!(storage.capacity() >= 10);
    storage.assert_invariants();
}

#[test]
fn insert_get_and_replace() {
    let mut storage = PositionSoa::new();
    assert_eq!(storage.insert(42, pos(1.0)), None);
    assert_eq!(storage.insert(7, pos(2.0)), None);
    assert_eq!(storage.len(), 2);
    assert_eq!(storage.keys(), &[42, 7]);
    assert_eq!(storage.x(), &[1.0, 2.0]);
    assert_eq!(storage.y(), &[10.0, 20.0]);
    assert_eq!(storage.z(), &[100.0, 200.0]);

    let found = storage.get(7).unwrap();
    assert_eq!((*found.x, *found.y, *found.z), (2.0, 20.0, 200.0));
    assert_eq!(found, PositionRef { x: &2.0, y: &20.0, z: &200.0 });
    assert_eq!(found.cloned(), pos(2.0));
    assert!(storage.get(8).is_none());

    // Replacing keeps the position and returns the old value.
    assert_eq!(storage.insert(42, pos(3.0)), Some(pos(1.0)));
    assert_eq!(storage.keys(), &[42, 7]);
    assert_eq!(storage.x(), &[3.0, 2.0]);

    assert_eq!(storage.insert_full(7, pos(4.0)), (1, Some(pos(2.0))));
    assert_eq!(storage.insert_full(9, pos(5.0)), (2, None));
    assert_eq!(storage.try_insert(10, pos(6.0)), Ok(None));
    assert_eq!(storage.try_insert_full(10, pos(7.0)), Ok((3, Some(pos(6.0)))));
    storage.assert_invariants();
}

#[test]
fn get_mut_and_lookups() {
    let mut storage = filled(&[5, 6, 7]);
    {
        let found = storage.get_mut(6).unwrap();
        *found.x += 0.5;
        *found.z = -1.0;
    }
    assert_eq!(storage.get(6).unwrap().cloned(), Position { x: 6.5, y: 60.0, z: -1.0 });
    assert!(storage.get_mut(99).is_none());
    assert!(storage.contains_key(5));
    assert!(!storage.contains_key(4));
    assert_eq!(storage.get_index_of(7), Some(2));
    assert_eq!(storage.get_index_of(8), None);
    assert_eq!(storage.get_index(0).map(|(key, value)| (key, *value.x)), Some((5, 5.0)));
    assert!(storage.get_index(3).is_none());
    if let Some((key, value)) = storage.get_index_mut(2) {
        assert_eq!(key, 7);
        *value.y = 1.5;
    }
    assert_eq!(storage.y()[2], 1.5);
    assert_eq!(storage.get_key_value(5).map(|(key, value)| (key, *value.x)), Some((5, 5.0)));
    assert_eq!(
        storage.get_full(7).map(|(index, key, value)| (index, key, *value.y)),
        Some((2, 7, 1.5))
    );
    assert_eq!(storage.as_sparse_set().as_slice(), &[5, 6, 7]);

    let view = storage.get_mut(5).unwrap();
    *view.x = 50.0;
    assert_eq!(*view.as_ref().x, 50.0);
    let shared = view.into_ref();
    assert_eq!(*shared.y, 50.0);
}

#[test]
fn remove_is_a_swap_remove_in_every_column() {
    let mut storage = filled(&[1, 2, 3, 4]);
    assert_eq!(storage.remove(1), Some(pos(1.0)));
    assert_eq!(storage.keys(), &[4, 2, 3]);
    assert_eq!(storage.x(), &[4.0, 2.0, 3.0]);
    assert_eq!(storage.z(), &[400.0, 200.0, 300.0]);
    assert_eq!(storage.remove(1), None);

    let (value, info) = storage.remove_with_info(2).unwrap();
    assert_eq!(value, pos(2.0));
    assert_eq!(info, Removed { index: 1, moved: Some(Moved { key: 3, from: 2 }) });
    let (_, info) = storage.remove_with_info(3).unwrap();
    assert_eq!(info, Removed { index: 1, moved: None });
    assert!(storage.remove_with_info(3).is_none());
    assert_eq!(storage.keys(), &[4]);
    storage.assert_invariants();

    // indexmap's name for the same removal.
    let mut storage = filled(&[1, 2, 3, 4]);
    assert_eq!(storage.swap_remove(1), Some(pos(1.0)));
    assert_eq!(storage.keys(), &[4, 2, 3]);
    assert_eq!(storage.swap_remove(1), None);

    let mut storage = filled(&[1, 2, 3]);
    assert_eq!(storage.swap_remove_index(0), Some((1, pos(1.0))));
    assert_eq!(storage.keys(), &[3, 2]);
    assert_eq!(storage.swap_remove_index(5), None);
    assert_eq!(storage.pop(), Some((2, pos(2.0))));
    assert_eq!(storage.pop(), Some((3, pos(3.0))));
    assert_eq!(storage.pop(), None);
    storage.assert_invariants();
}

#[test]
fn columns_one_at_a_time_and_all_at_once() {
    let mut storage = filled(&[1, 2, 3]);
    for x in storage.x_mut() {
        *x += 1.0;
    }
    assert_eq!(storage.x(), &[2.0, 3.0, 4.0]);

    // Write one column while reading two others of the same storage.
    let columns = storage.columns_mut();
    assert_eq!(columns.keys, &[1, 2, 3]);
    for i in 0..columns.keys.len() {
        columns.x[i] += columns.y[i] + columns.z[i];
    }
    assert_eq!(storage.x(), &[112.0, 223.0, 334.0]);

    let columns = storage.columns();
    assert_eq!(columns.keys, &[1, 2, 3]);
    assert_eq!(columns.y, &[10.0, 20.0, 30.0]);

    // Columns of two storages side by side.
    let velocities = filled(&[1, 2, 3]);
    for (x, v) in storage.x_mut().iter_mut().zip(velocities.x()) {
        *x -= v;
    }
    assert_eq!(storage.x(), &[111.0, 221.0, 331.0]);
}

/// Columns put together by hand (their fields are public) with slices of unequal length hold
/// the rows of the shortest: the rows a walk yields, and so what a query's loop is bounded by.
#[test]
fn columns_of_unequal_slices_hold_the_rows_of_the_shortest() {
    use sparse_soa::Rows;

    let keys = [7, 8, 9];
    let (x, y, z) = ([1.0, 2.0, 3.0], [4.0, 5.0], [6.0, 7.0, 8.0]);
    let columns = PositionColumns { keys: &keys, x: &x, y: &y, z: &z };
    assert_eq!(columns.len(), 2);
    assert_eq!(columns.into_rows().len(), 2);
    assert_eq!(columns.into_rows().map(|(key, _)| key).collect::<Vec<_>>(), [7, 8]);
    let whole = PositionColumns { keys: &keys, x: &x, y: &x, z: &z };
    assert_eq!(whole.len(), 3);
    let storage = filled(&[3, 1, 2]);
    assert_eq!(storage.columns().len(), 3);
}

#[test]
fn iterators() {
    let mut storage = filled(&[3, 1, 2]);
    let seen: Vec<(u32, f32)> = storage.iter().map(|(key, value)| (key, *value.x)).collect();
    assert_eq!(seen, [(3, 3.0), (1, 1.0), (2, 2.0)]);
    assert_eq!(storage.iter().len(), 3);
    assert_eq!(storage.iter().rev().map(|(key, _)| key).collect::<Vec<_>>(), [2, 1, 3]);
    assert_eq!(storage.iter().fold(0.0, |sum, (_, value)| sum + value.y), 60.0);
    let mut iter = storage.iter();
    iter.next();
    assert_eq!(iter.clone().count(), 2);
    assert_eq!(iter.size_hint(), (2, Some(2)));

    for (key, value) in &mut storage {
        *value.z = key as f32;
    }
    assert_eq!(storage.z(), &[3.0, 1.0, 2.0]);
    storage.iter_mut().for_each(|(_, value)| *value.y = 0.0);
    assert_eq!(storage.y(), &[0.0; 3]);
    let mut total = 0.0;
    for (_, value) in &storage {
        total += value.x;
    }
    assert_eq!(total, 6.0);

    let owned: Vec<(u32, Position)> = storage.clone().into_iter().collect();
    assert_eq!(owned[0], (3, Position { x: 3.0, y: 0.0, z: 3.0 }));
    assert_eq!(storage.clone().into_iter().next_back().map(|(key, _)| key), Some(2));

    let drained: Vec<u32> = storage.drain().map(|(key, _)| key).collect();
    assert_eq!(drained, [3, 1, 2]);
    assert!(storage.is_empty());
    storage.assert_invariants();

    // A drain dropped half-way still empties the storage.
    let mut storage = filled(&[1, 2, 3]);
    assert_eq!(storage.drain().next().map(|(key, _)| key), Some(1));
    assert!(storage.is_empty());
    storage.assert_invariants();
}

#[test]
fn retain_clear_truncate_swap() {
    let mut storage = filled(&[0, 1, 2, 3, 4, 5]);
    storage.retain(|key, value| {
        *value.y += 1.0;
        key % 2 == 0
    });
    assert_eq!(storage.keys(), &[0, 2, 4]);
    assert_eq!(storage.x(), &[0.0, 2.0, 4.0]);
    assert_eq!(storage.y(), &[1.0, 21.0, 41.0]);
    assert_eq!(storage.get_index_of(4), Some(2));
    storage.assert_invariants();

    storage.swap_indices(0, 2);
    assert_eq!(storage.keys(), &[4, 2, 0]);
    assert_eq!(storage.x(), &[4.0, 2.0, 0.0]);
    assert_eq!(storage.get(0).unwrap().cloned().x, 0.0);

    storage.truncate(1);
    assert_eq!(storage.keys(), &[4]);
    assert_eq!(storage.z(), &[400.0]);
    storage.truncate(5);
    assert_eq!(storage.len(), 1);

    storage.clear();
    assert!(storage.is_empty() && !storage.contains_key(4));
    storage.insert(2, pos(2.0));
    assert_eq!(storage.get_index_of(2), Some(0));
    storage.assert_invariants();
}

#[test]
#[should_panic(expected = "out of bounds")]
fn swap_indices_out_of_bounds_panics() {
    filled(&[1]).swap_indices(0, 1);
}

#[test]
fn sorting_moves_keys_and_every_column_together() {
    let mut storage = filled(&[5, 3, 9, 1]);
    storage.sort_by(|_, a, _, b| b.x.total_cmp(a.x));
    assert_eq!(storage.keys(), &[9, 5, 3, 1]);
    assert_eq!(storage.y(), &[90.0, 50.0, 30.0, 10.0]);
    assert_eq!(storage.get_index_of(1), Some(3));

    storage.sort_by_key(|&key, _| key);
    assert_eq!(storage.keys(), &[1, 3, 5, 9]);
    assert_eq!(storage.z(), &[100.0, 300.0, 500.0, 900.0]);

    storage.sort_unstable_by(|a, _, b, _| b.cmp(a));
    assert_eq!(storage.keys(), &[9, 5, 3, 1]);
    assert_eq!(storage.x(), &[9.0, 5.0, 3.0, 1.0]);

    storage.sort_keys();
    assert_eq!(storage.keys(), &[1, 3, 5, 9]);
    assert_eq!(storage.x(), &[1.0, 3.0, 5.0, 9.0]);
    storage.assert_invariants();

    // Stable: equal elements keep their order.
    let mut storage = filled(&[4, 2, 8, 6]);
    storage.sort_by_key(|_, _| 0);
    assert_eq!(storage.keys(), &[4, 2, 8, 6]);
}

#[test]
fn sorting_and_retaining_empty_and_single_storages() {
    let mut empty = PositionSoa::new();
    empty.sort_by(|_, a, _, b| a.x.total_cmp(b.x));
    empty.sort_unstable_by(|a, _, b, _| a.cmp(b));
    empty.sort_keys();
    empty.retain(|_, _| true);
    assert!(empty.is_empty());
    empty.assert_invariants();

    let mut single = filled(&[7]);
    single.sort_unstable_by(|a, _, b, _| b.cmp(a));
    single.retain(|_, value| {
        *value.z += 1.0;
        true
    });
    assert_eq!(single.keys(), &[7]);
    assert_eq!(single.z(), &[701.0]);
    single.retain(|_, _| false);
    assert!(single.is_empty() && single.x().is_empty() && single.z().is_empty());
    single.assert_invariants();
}

/// A field may take the checker's name: the checker is a `Storage` method, not an inherent one.
#[derive(SparseSoa)]
struct Checked {
    assert_invariants: u8,
}

#[test]
fn the_invariant_checker_leaves_every_accessor_name_free() {
    let mut storage = CheckedSoa::new();
    storage.insert(1, Checked { assert_invariants: 7 });
    assert_eq!(storage.assert_invariants(), &[7]);
    Storage::assert_invariants(&storage);
}

/// Fields named so that their accessors (`{field}_mut`) take the names of `Columnar`'s
/// methods over a group's prefix: the runtime calls those through the trait, so they stay free.
#[derive(SparseSoa)]
struct Prefixed {
    index_and_prefix: u8,
    prefix_columns: u8,
}

#[test]
fn columnar_method_names_leave_accessor_names_free() {
    let mut storage = PrefixedSoa::new();
    storage.insert(1, Prefixed { index_and_prefix: 7, prefix_columns: 8 });
    storage.index_and_prefix_mut()[0] += 1;
    storage.prefix_columns_mut()[0] += 1;
    let (_, columns) = Columnar::index_and_prefix_mut(&mut storage, 1);
    assert_eq!((columns.index_and_prefix, columns.prefix_columns), (&mut [8][..], &mut [9][..]));
    assert_eq!(Columnar::prefix_columns_mut(&mut storage, 0).index_and_prefix.len(), 0);
}

#[test]
fn reserve_and_shrink() {
    let mut storage = PositionSoa::new();
    storage.reserve(100);
    assert!(storage.capacity() >= 100);
    assert!(storage.try_reserve(200).is_ok());
    assert!(storage.capacity() >= 200);
    storage.insert(1, pos(1.0));
    storage.shrink_to_fit();
    assert!(storage.capacity() >= 1 && storage.capacity() < 200);
    storage.assert_invariants();
}

#[derive(SparseSoa, Debug, PartialEq)]
#[sparse_soa(key = u64, dense = usize)]
struct Wide {
    a: u64,
    b: [u8; 3],
}

#[test]
fn huge_capacities_fail_fast_and_narrow_widths_cap_what_they_reserve() {
    let mut wide = WideSoa::new();
    assert_eq!(wide.try_reserve(usize::MAX), Err(Error::CapacityOverflow));
    assert_eq!(WideSoa::try_with_capacity(usize::MAX).unwrap_err(), Error::CapacityOverflow);
    assert_eq!(WideSoa::try_bounded(4, usize::MAX).unwrap_err(), Error::CapacityOverflow);
    assert!(wide.is_empty());
    assert!(WideSoa::with_capacity(10).capacity() >= 10);

    let mut small = SmallSoa::new();
    small.reserve(10_000);
    assert_eq!(small.capacity(), 255, "a u8 width holds at most 255 elements");
    assert_eq!(SmallSoa::try_with_capacity(1 << 20).unwrap().capacity(), 255);
}

#[test]
fn a_stale_entity_is_refused_and_changes_nothing() {
    let mut entities = Entities::new();
    let stale = entities.spawn();
    entities.despawn(stale);
    let live = entities.spawn();
    let mut healths = Healths::new();
    healths.insert(live, Health { hp: 10, max: 10 });
    let error = Error::StaleKey { index: 0, version: 1, held: 2 };
    assert_eq!(healths.try_insert(stale, Health { hp: 0, max: 10 }), Err(error));
    assert_eq!(
        error.to_string(),
        "entity 0v1 is stale: slot 0 holds or held 0v2; drop the old handle, or use the newer entity"
    );
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        healths.insert(stale, Health { hp: 0, max: 10 });
    }))
    .unwrap_err();
    assert_eq!(
        panic.downcast_ref::<String>().map(String::as_str),
        Some(format!("cannot insert into a `Healths`: {error}").as_str())
    );
    assert_eq!(healths.keys(), &[live]);
    assert_eq!(healths.hp(), &[10]);
    // The emptied slot still refuses the older handle: it keeps the newest version it held.
    healths.remove(live);
    assert_eq!(healths.try_insert(stale, Health { hp: 1, max: 10 }), Err(error));
    healths.assert_invariants();
    // A newer generation replaces an older, dead one in place and hands back its value.
    let mut others = Healths::new();
    others.insert(stale, Health { hp: 1, max: 10 }); // a storage that never saw `live`
    assert_eq!(others.insert(live, Health { hp: 2, max: 10 }), Some(Health { hp: 1, max: 10 }));
    assert_eq!(others.keys(), &[live]);
    others.assert_invariants();
}

#[test]
fn bounded_storage_refuses_past_its_limits() {
    let mut storage = PositionSoa::bounded(2, 16);
    assert_eq!(storage.capacity(), 2);
    storage.insert(1, pos(1.0));
    storage.insert(2, pos(2.0));
    assert_eq!(storage.try_insert(3, pos(3.0)), Err(Error::Full { capacity: 2 }));
    assert_eq!(
        storage.try_insert(99, pos(3.0)),
        Err(Error::KeyOutOfRange { index: 99, limit: 16 })
    );
    // Replacing still works when full.
    assert_eq!(storage.try_insert(2, pos(5.0)), Ok(Some(pos(2.0))));
    assert_eq!(storage.keys(), &[1, 2]);
    storage.reserve(100);
    storage.shrink_to_fit();
    assert_eq!(storage.capacity(), 2);

    let copy = storage.clone();
    copy.assert_invariants();
    assert_eq!(copy.capacity(), 2);
    storage.assert_invariants();

    assert!(PositionSoa::try_bounded(usize::MAX, 16).is_err());
}

#[test]
#[should_panic(
    expected = "storage is full: its bounded capacity is 1 element; remove some first, or bound it with a higher capacity"
)]
fn bounded_insert_panics_with_the_error_message() {
    let mut storage = PositionSoa::bounded(1, 16);
    storage.insert(1, pos(1.0));
    storage.insert(2, pos(2.0));
}

#[test]
fn plain_calls_panic_naming_the_key_and_the_limit() {
    let message = |f: fn()| *std::panic::catch_unwind(f).unwrap_err().downcast::<String>().unwrap();
    assert_eq!(
        message(|| {
            let mut storage = PositionSoa::bounded(1, 16);
            storage.insert(1, pos(1.0));
            storage.insert(2, pos(2.0));
        }),
        "cannot insert key 2 into a `PositionSoa`: storage is full: its bounded capacity is 1 element; remove some first, or bound it with a higher capacity"
    );
    assert_eq!(
        message(|| drop(SmallSoa::bounded(300, 1000))),
        "cannot bound a `SmallSoa` to 300 elements with keys below 1000: storage is full: its \
         dense index type `u8` addresses at most 255 elements; use a wider dense index type"
    );
    assert_eq!(
        message(|| PositionSoa::from_iter([(1, pos(1.0))]).swap_indices(0, 1)),
        "swap_indices(0, 1) out of bounds for length 1"
    );
}

#[derive(SparseSoa, Debug, PartialEq)]
#[sparse_soa(dense = u8)]
struct Small {
    value: u8,
}

#[test]
fn dense_width_bounds_the_length() {
    let mut storage = SmallSoa::new();
    for key in 0..255_u32 {
        storage.insert(key, Small { value: key as u8 });
    }
    assert_eq!(
        storage.try_insert(1000, Small { value: 0 }),
        Err(Error::DenseIndexOverflow { width: "u8", max_len: 255 })
    );
    assert_eq!(storage.len(), 255);
    storage.assert_invariants();
}

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity, dense = u16, name = "Healths")]
struct Health {
    hp: i32,
    max: i32,
}

#[test]
fn entity_keys_and_generations() {
    let mut entities = Entities::new();
    let mut healths = Healths::new();
    let a = entities.spawn();
    let b = entities.spawn();
    healths.insert(a, Health { hp: 10, max: 10 });
    healths.insert(b, Health { hp: 5, max: 8 });
    entities.despawn(a);
    let c = entities.spawn(); // a's slot, a newer generation
    assert!(healths.get(c).is_none());
    // Inserting under the new generation replaces the stale row in place.
    assert_eq!(healths.insert(c, Health { hp: 1, max: 1 }), Some(Health { hp: 10, max: 10 }));
    assert_eq!(healths.keys(), &[c, b]);
    assert!(healths.get(a).is_none());
    assert_eq!(healths.hp(), &[1, 5]);
    healths.assert_invariants();
}

/// `get` and `get_mut`, of a derived storage and of a `SparseMap`, answer what `contains_key`
/// answers, in every lane of the key index: keys in its flat prefix and keys far past it; held,
/// removed (the slot keeps the generation it saw), older and newer generations, never seen.
#[test]
fn lookups_answer_alike_in_every_lane() {
    let entity = |index: u32, generation: u32| {
        Entity::from_parts(index, NonZeroU32::new(generation).expect("a generation"))
    };
    // The first keys from slot 0 (the prefix), then a block far past them, with a gap; a page
    // holds 512 slots and turns full past 8 keys (fewer keys under miri, the same lanes).
    let (low, far) = if cfg!(miri) { (40, 40) } else { (600, 1_000) };
    let held: Vec<Entity> = (0..low).chain(60_000..60_000 + far).map(|i| entity(i, 1)).collect();
    let mut healths = Healths::new();
    let mut map = sparse_soa::SparseMap::<Entity, i32>::new();
    for &entity in &held {
        let hp = i32::try_from(entity.index()).expect("a small index");
        healths.insert(entity, Health { hp, max: hp + 1 });
        map.insert(entity, hp);
    }
    // Removed while alive: their slots keep the generation, vacant.
    let removed = [held[3], held[low as usize - 1], held[low as usize], held[held.len() - 1]];
    for entity in removed {
        assert!(healths.remove(entity).is_some());
        assert!(map.remove(entity).is_some());
    }
    // A newer generation of a held key (never stored), and keys never seen.
    let newer = [entity(10, 2), entity(60_007, 2), entity(3, 2)];
    let unseen = [entity(low + 100, 1), entity(65_000, 1), entity(69_999, 1)];
    let stored: BTreeSet<Entity> =
        held.iter().copied().filter(|entity| !removed.contains(entity)).collect();
    for entity in held.iter().chain(&newer).chain(&unseen).copied() {
        let stored = stored.contains(&entity);
        assert_eq!(healths.contains_key(entity), stored, "{entity:?}");
        assert_eq!(map.contains_key(entity), stored, "{entity:?}");
        let hp = i32::try_from(entity.index()).expect("a small index");
        let expected = stored.then_some(hp);
        assert_eq!(healths.get(entity).map(|health| *health.hp), expected, "{entity:?}");
        assert_eq!(healths.get_mut(entity).map(|health| *health.max - 1), expected);
        assert_eq!(map.get(entity).copied(), expected, "{entity:?}");
        assert_eq!(map.get_mut(entity).map(|value| *value), expected);
    }
    healths.assert_invariants();
    map.assert_invariants();

    // Plain keys: held, removed, never held, past every key.
    let mut storage = filled(&[0, 1, 2, 5_000, 90_000]);
    storage.remove(1);
    for key in [0, 1, 2, 3, 5_000, 5_001, 90_000, 1 << 30] {
        let expected = [0, 2, 5_000, 90_000].contains(&key).then_some(key as f32);
        assert_eq!(storage.get(key).map(|p| *p.x), expected, "{key}");
        assert_eq!(storage.get_mut(key).map(|p| *p.x), expected, "{key}");
    }
}

#[test]
fn traits() {
    let a = filled(&[1, 2, 3]);
    let mut b = filled(&[3, 2, 1]);
    assert_eq!(a, b); // same keys and rows, any order
    if let Some(value) = b.get_mut(2) {
        *value.z += 1.0;
    }
    assert_ne!(a, b);
    assert_ne!(a, filled(&[1, 2]));
    assert_ne!(a, filled(&[1, 2, 4]));

    let copy = a.clone();
    assert_eq!(copy, a);
    assert_eq!(copy.keys(), a.keys());

    let text = format!("{:?}", filled(&[1]));
    assert_eq!(text, "{1: Position { x: 1.0, y: 10.0, z: 100.0 }}");
    let mut storage = filled(&[1]);
    let view = format!("{:?}", storage.get_mut(1).unwrap());
    assert_eq!(view, "Position { x: 1.0, y: 10.0, z: 100.0 }");

    let mut extended = PositionSoa::new();
    extended.extend([(1, pos(1.0)), (2, pos(2.0)), (1, pos(3.0))]);
    assert_eq!(extended.keys(), &[1, 2]);
    assert_eq!(extended.x(), &[3.0, 2.0]);
}

fn total_x<S>(storage: &S, x: impl Fn(S::Ref<'_>) -> f32) -> f32
where
    S: Storage<Key = u32>,
{
    storage.keys().iter().filter_map(|&key| storage.get(key)).map(x).sum()
}

#[test]
fn storage_trait_and_joins() {
    let mut positions = filled(&[1, 2, 3]);
    assert_eq!(total_x(&positions, |value| *value.x), 6.0);
    assert_eq!(Storage::len(&positions), 3);
    assert_eq!(Storage::get_index(&positions, 1).map(|(key, _)| key), Some(2));

    let velocities: PositionSoa =
        [(2, pos(0.5)), (3, pos(0.25)), (7, pos(1.0))].into_iter().collect();
    let mut joined: Vec<(u32, f32)> =
        join::intersection(&positions, &velocities).map(|(key, p, v)| (key, p.x + v.x)).collect();
    joined.sort_by_key(|&(key, _)| key);
    assert_eq!(joined, [(2, 2.5), (3, 3.25)]);

    join::for_each_mut(&mut positions, &velocities, |_, p, v| *p.x += v.x);
    assert_eq!(positions.x(), &[1.0, 2.5, 3.25]);

    let mut map = sparse_soa::SparseMap::<u32, f32>::new();
    map.insert(3, 10.0);
    let mixed: Vec<u32> = join::intersection(&positions, &map).map(|(key, _, _)| key).collect();
    assert_eq!(mixed, [3]);

    assert_eq!(Storage::insert(&mut positions, 9, pos(9.0)), None);
    assert_eq!(Storage::remove(&mut positions, 9), Some(pos(9.0)));
}

fn first(bytes: &[u8]) -> &u8 {
    &bytes[0]
}

/// Lifetimes bound inside the struct (`for<'a>` in a field's type and in a `where` clause):
/// the generated items borrow with a lifetime none of them shadows.
#[derive(SparseSoa)]
struct Callback<F>
where
    F: for<'a> Fn(&'a [u8]) -> &'a u8,
{
    pick: F,
    plain: for<'a> fn(&'a [u8]) -> &'a u8,
}

#[test]
fn lifetimes_bound_in_field_types_are_not_shadowed() {
    let mut callbacks = CallbackSoa::new();
    callbacks.insert(3, Callback { pick: first, plain: first });
    let row = callbacks.get(3).unwrap();
    assert_eq!(((row.pick)(&[7, 8]), (row.plain)(&[9])), (&7, &9));
}
