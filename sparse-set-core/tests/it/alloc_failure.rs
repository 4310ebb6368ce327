//! A failed allocation at every allocation point: each call runs once per allocation it makes,
//! with that allocation and every later one refused ([`sweep_try`], [`sweep_plain`],
//! [`sweep_never_fails`]). A `try_` call then returns `Error::AllocFailed` and leaves the
//! storage as it was (contents and order compared); a plain call panics with the error's
//! message and leaves it consistent. Covers `SparseSet`, `SparseMap` (growable and bounded,
//! integer and `Entity` keys), `Entities` and the inserts of a `Group`'s members.
//!
//! Run with `--nocapture` to see how many allocation points each sweep reached.

use std::num::NonZeroU32;

use sparse_set_core::map::Entry;
use sparse_set_core::{DenseIndex, Entities, Entity, Error, Group, Key, SparseMap, SparseSet};
use sparse_soa_test_support::{
    REFUSED, allocations_during, failing_allocations, reached, sweep_never_fails, sweep_plain,
    sweep_try,
};

/// Sets in every shape the sparse side has, each with the key whose insert allocates there:
/// the dense side full, a first page (compact), a compact page turning full at the end of the
/// prefix and away from it, the flat lane growing, the hash lane (a far key, a far page turning
/// full), keys from the top down.
///
/// Under miri the sets are smaller; every shape is still there.
fn set_scenarios() -> Vec<(&'static str, Vec<u64>, u64)> {
    let page = 512;
    let (full, far_pages, top_down_step) = if cfg!(miri) { (16, 10, 61) } else { (64, 40, 7) };
    vec![
        ("empty", vec![], 5),
        ("dense side full", (0..full).collect(), full),
        ("page 0 turns full", (0..8).map(|i| i * 3).collect(), 100),
        ("a page past the prefix turns full", (0..8).map(|i| 7 * page + i).collect(), 7 * page + 8),
        ("a new page in the flat lane", vec![0, page], 40 * page),
        ("a far key", vec![1, 2, 3], 1 << 40),
        ("a far page turns full", (0..8).map(|i| (1 << 40) + i).collect(), (1 << 40) + 8),
        ("many far pages", (0..far_pages).map(|i| (i + 1) << 33).collect(), (far_pages + 1) << 33),
        ("top down", (0..3 * page).rev().step_by(top_down_step).collect(), 3),
    ]
}

fn set_of(keys: &[u64]) -> SparseSet<u64> {
    let mut set: SparseSet<u64> = keys.iter().copied().collect();
    set.shrink_to_fit();
    set
}

fn keys(set: &SparseSet<u64>) -> Vec<u64> {
    set.as_slice().to_vec()
}

#[test]
fn set_inserts_refuse_cleanly_at_every_allocation() {
    for (name, held, key) in set_scenarios() {
        let make = || set_of(&held);
        let points = sweep_try(
            make,
            |set| set.try_insert(key),
            &Error::AllocFailed,
            keys,
            SparseSet::assert_invariants,
        );
        assert!(reached(&format!("SparseSet::try_insert, {name}"), points) > 0);
        let points = sweep_plain(
            make,
            |set| set.insert(key),
            REFUSED,
            |set, panicked| {
                set.assert_invariants();
                assert_eq!(set.contains(key), !panicked);
                assert_eq!(set.len(), held.len() + usize::from(!panicked));
            },
        );
        assert!(reached(&format!("SparseSet::insert, {name}"), points) > 0);
    }
}

#[test]
fn set_growth_in_one_call_stops_cleanly_at_every_allocation() {
    let all: Vec<u64> = set_scenarios()
        .into_iter()
        .flat_map(|(_, mut held, key)| {
            held.push(key);
            held
        })
        .collect();
    let points = sweep_plain(
        SparseSet::<u64>::new,
        |set| set.extend(all.iter().copied()),
        REFUSED,
        |set, _| {
            set.assert_invariants();
            // The keys that made it are the first ones of the sequence, in order.
            let mut expected: Vec<u64> = Vec::new();
            for &key in &all {
                if expected.len() == set.len() {
                    break;
                }
                if !expected.contains(&key) {
                    expected.push(key);
                }
            }
            assert_eq!(keys(set), expected);
        },
    );
    assert!(reached("SparseSet::extend", points) > 10);
}

#[test]
fn set_construction_reservation_and_copies_refuse_cleanly() {
    let points = sweep_try(
        || None,
        |slot| SparseSet::<u64>::try_with_capacity(1000).map(|set| *slot = Some(set)),
        &Error::AllocFailed,
        Option::is_some,
        |_| {},
    );
    assert_eq!(reached("SparseSet::try_with_capacity", points), 1);
    let points = sweep_try(
        || None,
        |slot| SparseSet::<u64, u16>::try_bounded(1000, 5000).map(|set| *slot = Some(set)),
        &Error::AllocFailed,
        Option::is_some,
        |_| {},
    );
    assert!(reached("SparseSet::try_bounded", points) >= 2, "the keys, then the pages");
    let points =
        sweep_plain(|| (), |()| SparseSet::<u64, u16>::bounded(1000, 5000), REFUSED, |(), _| {});
    assert!(reached("SparseSet::bounded", points) >= 2);

    for (name, held, _) in set_scenarios() {
        let make = || set_of(&held);
        let points = sweep_try(
            make,
            |set| set.try_reserve(1000),
            &Error::AllocFailed,
            keys,
            |set| {
                set.assert_invariants();
            },
        );
        assert!(reached(&format!("SparseSet::try_reserve, {name}"), points) > 0);
        let points = sweep_plain(
            make,
            |set| set.reserve(1000),
            REFUSED,
            |set, _| {
                set.assert_invariants();
                assert_eq!(keys(set), held);
            },
        );
        assert!(reached(&format!("SparseSet::reserve, {name}"), points) > 0);
        // The copy is checked after the run: the checker allocates.
        let points = sweep_try(
            || (make(), None),
            |(set, copy)| set.try_clone().map(|made| *copy = Some(made)),
            &Error::AllocFailed,
            |(set, _)| keys(set),
            |(set, copy)| {
                set.assert_invariants();
                if let Some(copy) = copy {
                    copy.assert_invariants();
                    assert_eq!(keys(copy), keys(set));
                }
            },
        );
        assert!(points > 0 || held.is_empty());
        reached(&format!("SparseSet::try_clone, {name}"), points);
        let points = sweep_plain(
            make,
            |set| set.clone(),
            REFUSED,
            |set, _| {
                set.assert_invariants();
                assert_eq!(keys(set), held);
            },
        );
        assert!(reached(&format!("SparseSet::clone, {name}"), points) > 0 || held.is_empty());
    }
}

#[test]
fn shrinking_keeps_what_it_cannot_move_and_never_fails() {
    for (name, held, key) in set_scenarios() {
        // Spare capacity and emptied pages to release.
        let make = || {
            let mut set = set_of(&held);
            set.insert(key);
            let emptied = if cfg!(miri) { 60 } else { 600 };
            set.extend((0..emptied).map(|i| (1 << 50) + i * 600));
            set.retain(|&key| key < 1 << 50);
            set
        };
        let points =
            sweep_never_fails(make, SparseSet::shrink_to_fit, keys, SparseSet::assert_invariants);
        assert!(reached(&format!("SparseSet::shrink_to_fit, {name}"), points) > 0);
    }
}

#[test]
fn no_set_sort_allocates() {
    let n = if cfg!(miri) { 300 } else { 5000 };
    let mut set: SparseSet<u64> = (0..n).map(|i| (i * 7919) % 5003).collect();
    let ((), calls) = allocations_during(|| {
        set.sort_by(|a, b| (a % 10).cmp(&(b % 10)));
        set.sort_by_key(|key| key % 7);
        set.sort_unstable_by(|a, b| b.cmp(a));
        set.sort_unstable();
    });
    assert_eq!(calls, 0);
    set.assert_invariants();
}

fn entity(index: u32, generation: u32) -> Entity {
    Entity::from_parts(index, NonZeroU32::new(generation).unwrap())
}

fn map_of(held: &[u64]) -> SparseMap<u64, u64> {
    let mut map: SparseMap<u64, u64> = held.iter().map(|&key| (key, key + 1)).collect();
    map.shrink_to_fit();
    map
}

fn pairs<K: Key, V: Clone, D: DenseIndex>(map: &SparseMap<K, V, D>) -> Vec<(K, V)> {
    map.iter().map(|(key, value)| (key, value.clone())).collect()
}

/// A map and, once made, its copy.
type WithCopy<D> = (SparseMap<u64, u64, D>, Option<SparseMap<u64, u64, D>>);

/// A map and, if the copy succeeded, its copy: both consistent, with the same elements.
fn check_copy<D: DenseIndex>((map, copy): &WithCopy<D>) {
    map.assert_invariants();
    if let Some(copy) = copy {
        copy.assert_invariants();
        assert_eq!(pairs(copy), pairs(map));
        if map.as_sparse_set().key_limit().is_some() {
            assert_eq!(copy.capacity(), map.capacity(), "a bounded copy keeps its room");
        }
    }
}

#[test]
fn map_inserts_refuse_cleanly_at_every_allocation() {
    for (name, held, key) in set_scenarios() {
        let make = || map_of(&held);
        let check = |map: &SparseMap<u64, u64>| map.assert_invariants();
        let points =
            sweep_try(make, |map| map.try_insert(key, 0), &Error::AllocFailed, pairs, check);
        assert!(reached(&format!("SparseMap::try_insert, {name}"), points) > 0);
        let points = sweep_try(
            make,
            |map| match map.entry(key) {
                Entry::Vacant(entry) => entry.try_insert(0).map(|_| ()),
                Entry::Occupied(_) => unreachable!("{key} is new"),
            },
            &Error::AllocFailed,
            pairs,
            check,
        );
        assert!(points > 0);
        let points = sweep_try(
            make,
            |map| map.try_get_or_insert_with(key, || 0).map(|_| ()),
            &Error::AllocFailed,
            pairs,
            check,
        );
        assert!(reached(&format!("SparseMap::try_get_or_insert_with, {name}"), points) > 0);
        for (call, op) in [
            ("insert", (|map, key| _ = map.insert(key, 0)) as fn(&mut SparseMap<u64, u64>, u64)),
            ("entry().or_insert", |map, key| _ = map.entry(key).or_insert(0)),
            ("get_or_insert_with", |map, key| _ = map.get_or_insert_with(key, || 0)),
        ] {
            let points = sweep_plain(
                make,
                |map| op(map, key),
                REFUSED,
                |map, panicked| {
                    map.assert_invariants();
                    assert_eq!(map.contains_key(key), !panicked);
                    assert_eq!(map.len(), held.len() + usize::from(!panicked));
                },
            );
            assert!(reached(&format!("SparseMap::{call}, {name}"), points) > 0);
        }
    }
}

#[test]
fn entity_keys_refuse_cleanly_while_their_versions_grow() {
    // Entities from 0 up: their versions sit beside the prefix, which grows with them.
    let make = || -> SparseMap<Entity, u64> {
        let mut map: SparseMap<Entity, u64> =
            (0..512 + 7).map(|i| (entity(i, 1), u64::from(i))).collect();
        map.shrink_to_fit();
        map
    };
    for key in [entity(600, 3), entity(1024, 1), entity(1 << 30, 2)] {
        let points = sweep_try(
            make,
            |map| map.try_insert(key, 0),
            &Error::AllocFailed,
            pairs,
            |map| {
                map.assert_invariants();
            },
        );
        assert!(reached(&format!("SparseMap<Entity>::try_insert {key}"), points) > 0);
    }
    // Displacing an older generation overwrites in place: it never allocates.
    let mut map = make();
    assert_eq!(failing_allocations(|| map.try_insert(entity(3, 2), 9)), Ok(Some(3)));
    map.assert_invariants();
}

#[test]
fn map_growth_construction_and_copies_refuse_cleanly() {
    let all: Vec<u64> = set_scenarios().into_iter().flat_map(|(_, held, _)| held).collect();
    let points = sweep_plain(
        SparseMap::<u64, u64>::new,
        |map| map.extend(all.iter().map(|&key| (key, key + 1))),
        REFUSED,
        |map, _| {
            map.assert_invariants();
            assert!(map.iter().all(|(key, &value)| value == key + 1));
        },
    );
    assert!(reached("SparseMap::extend", points) > 10);
    let points = sweep_try(
        || None,
        |slot| SparseMap::<u64, u64>::try_with_capacity(1000).map(|map| *slot = Some(map)),
        &Error::AllocFailed,
        Option::is_some,
        |_| {},
    );
    assert_eq!(reached("SparseMap::try_with_capacity", points), 2, "keys, values");
    let points = sweep_try(
        || None,
        |slot| SparseMap::<u64, u64, u16>::try_bounded(1000, 5000).map(|map| *slot = Some(map)),
        &Error::AllocFailed,
        Option::is_some,
        |_| {},
    );
    assert!(reached("SparseMap::try_bounded", points) >= 3);
    for (name, held, _) in set_scenarios() {
        let make = || map_of(&held);
        let points = sweep_try(
            make,
            |map| map.try_reserve(500),
            &Error::AllocFailed,
            pairs,
            |map| {
                map.assert_invariants();
            },
        );
        assert!(reached(&format!("SparseMap::try_reserve, {name}"), points) > 0);
        let points = sweep_plain(
            make,
            |map| map.reserve(500),
            REFUSED,
            |map, _| {
                map.assert_invariants();
                assert_eq!(map.len(), held.len());
            },
        );
        assert!(points > 0);
        let points = sweep_try(
            || (make(), None),
            |(map, copy)| map.try_clone().map(|made| *copy = Some(made)),
            &Error::AllocFailed,
            |(map, _)| pairs(map),
            check_copy,
        );
        assert!(reached(&format!("SparseMap::try_clone, {name}"), points) > 0 || held.is_empty());
        let points = sweep_plain(
            make,
            |map| map.clone(),
            REFUSED,
            |map, _| {
                map.assert_invariants();
            },
        );
        assert!(reached(&format!("SparseMap::clone, {name}"), points) > 0 || held.is_empty());
    }
}

#[test]
fn bounded_maps_and_their_copies_never_allocate_within_their_bounds() {
    let mut map = SparseMap::<u64, u64, u16>::bounded(100, 1000);
    failing_allocations(|| {
        for key in 0..100 {
            assert_eq!(map.try_insert(key * 9, key), Ok(None));
        }
        assert_eq!(map.try_insert(5, 0), Err(Error::Full { capacity: 100 }));
        map.retain(|key, _| key % 2 == 0);
        map.sort_unstable_by(|_, a, _, b| b.cmp(a));
        map.sort_keys();
    });
    map.assert_invariants();
    let points = sweep_try(
        || (map.try_clone().unwrap(), None),
        |(map, copy)| map.try_clone().map(|made| *copy = Some(made)),
        &Error::AllocFailed,
        |(map, _)| pairs(map),
        check_copy,
    );
    assert!(reached("bounded SparseMap::try_clone", points) >= 3);
    let mut copy = map.clone();
    failing_allocations(|| {
        for key in 0..50 {
            copy.insert(key * 9 + 1, 0);
        }
    });
    copy.assert_invariants();
}

#[test]
fn stable_map_sorts_panic_cleanly_and_unstable_ones_never_allocate() {
    let len = if cfg!(miri) { 60 } else { 300 };
    let make = || map_of(&(0..len).map(|i| (i * 7919) % 1009).collect::<Vec<_>>());
    let before = pairs(&make());
    let points = sweep_plain(
        make,
        |map| map.sort_by(|_, a, _, b| (a % 10).cmp(&(b % 10))),
        REFUSED,
        |map, panicked| {
            map.assert_invariants();
            assert!(
                !panicked || pairs(map) == before,
                "nothing moves before the permutation is made"
            );
        },
    );
    assert!(reached("SparseMap::sort_by", points) > 0);
    let points = sweep_plain(
        make,
        |map| map.sort_by_key(|_, value| value % 3),
        REFUSED,
        |map, _| {
            map.assert_invariants();
        },
    );
    assert!(reached("SparseMap::sort_by_key", points) > 0);
    let mut map = make();
    failing_allocations(|| {
        map.sort_unstable_by(|_, a, _, b| b.cmp(a));
        map.sort_keys();
    });
    map.assert_invariants();
    assert!(map.keys().is_sorted());
}

#[test]
fn spawn_refuses_cleanly_and_despawn_never_allocates() {
    let make = |spawned: u32, despawned: u32| {
        move || {
            let mut entities = Entities::new();
            let all: Vec<Entity> = (0..spawned).map(|_| entities.spawn()).collect();
            for &entity in &all[..despawned as usize] {
                entities.despawn(entity);
            }
            entities
        }
    };
    let snapshot = |entities: &Entities| entities.iter().collect::<Vec<_>>();
    for spawned in [0, 1, 4, 5, 64, 100] {
        // Every allocation the spawn makes is one it cannot do without.
        let mut entities = make(spawned, 0)();
        let (_, calls) = allocations_during(|| entities.spawn());
        let points = sweep_try(
            make(spawned, 0),
            Entities::try_spawn,
            &Error::AllocFailed,
            snapshot,
            Entities::assert_invariants,
        );
        assert_eq!(reached(&format!("Entities::try_spawn after {spawned}"), points), calls);
        let points =
            sweep_plain(make(spawned, 0), Entities::spawn, REFUSED, |entities, panicked| {
                entities.assert_invariants();
                assert_eq!(entities.len(), spawned as usize + usize::from(!panicked));
            });
        assert_eq!(reached(&format!("Entities::spawn after {spawned}"), points), calls);
    }
    // A freed slot is reused without allocating.
    let mut entities = make(10, 3)();
    let reused = failing_allocations(|| entities.try_spawn()).unwrap();
    assert_eq!(reused.generation().get(), 2);
    // Despawning never allocates, whatever was spawned and in whichever order.
    for spawned in [1, 7, 64, if cfg!(miri) { 65 } else { 1000 }] {
        let mut entities = Entities::new();
        let all: Vec<Entity> = (0..spawned).map(|_| entities.spawn()).collect();
        let ((), calls) = allocations_during(|| {
            for &entity in all.iter().rev() {
                assert!(entities.despawn(entity));
            }
        });
        assert_eq!(calls, 0, "despawning {spawned}");
        let mut copy = entities.clone();
        let respawned: Vec<Entity> = (0..spawned).map(|_| copy.spawn()).collect();
        let ((), calls) =
            allocations_during(|| respawned.iter().for_each(|&e| _ = copy.despawn(e)));
        assert_eq!(calls, 0, "despawning from a copy");
        entities.assert_invariants();
        copy.assert_invariants();
    }
    let points = sweep_try(
        || None,
        |slot| Entities::try_with_capacity(100).map(|entities| *slot = Some(entities)),
        &Error::AllocFailed,
        Option::is_some,
        |_| {},
    );
    assert_eq!(reached("Entities::try_with_capacity", points), 2, "slots, free list");
    let mut entities = Entities::with_capacity(100);
    let ((), calls) = allocations_during(|| {
        for _ in 0..100 {
            entities.spawn();
        }
    });
    assert_eq!(calls, 0, "with_capacity(100) covers 100 spawns");
}

type Pair = Group<(SparseMap<u64, u64>, SparseMap<u64, u64>), (SparseSet<u64>,)>;

/// A group whose members hold the keys of `held` (the first all of them, the second every
/// other one) and whose excluded set holds every fifth.
fn group_of(held: &[u64]) -> Pair {
    let a = map_of(held);
    let b = map_of(&held.iter().copied().step_by(2).collect::<Vec<_>>());
    let excluded: SparseSet<u64> = held.iter().copied().step_by(5).collect();
    Group::with_excluded((a, b), (excluded,))
}

/// The group's prefix and every storage's contents, in order.
type GroupContents = (Vec<u64>, Vec<(u64, u64)>, Vec<(u64, u64)>, Vec<u64>);

fn group_snapshot(group: &Pair) -> GroupContents {
    let (a, b) = group.members();
    (group.keys().to_vec(), pairs(a), pairs(b), group.excluded().0.as_slice().to_vec())
}

#[test]
fn group_member_inserts_refuse_cleanly_and_keep_the_group_aligned() {
    let mut excluded_points = 0;
    for (name, held, key) in set_scenarios() {
        let make = || {
            let mut group = group_of(&held);
            // `key` held by the first member, so inserting it into the second aligns it.
            group.member_mut::<0>().insert(key, 1);
            group
        };
        let points = sweep_try(
            make,
            |group| group.member_mut::<1>().try_insert(key, 2),
            &Error::AllocFailed,
            group_snapshot,
            Pair::assert_invariants,
        );
        assert!(reached(&format!("MemberMut::try_insert, {name}"), points) > 0);
        let points = sweep_plain(
            make,
            |group| group.member_mut::<1>().insert(key, 2),
            REFUSED,
            |group, panicked| {
                group.assert_invariants();
                assert_eq!(group.contains(key), !panicked);
            },
        );
        assert!(points > 0);
        let points = sweep_try(
            make,
            |group| group.excluded_mut::<0>().try_insert(key, ()),
            &Error::AllocFailed,
            group_snapshot,
            Pair::assert_invariants,
        );
        excluded_points += reached(&format!("ExcludedMut::try_insert, {name}"), points);
        let points = sweep_plain(
            make,
            |group| group.excluded_mut::<0>().insert(key, ()),
            REFUSED,
            |group, _| group.assert_invariants(),
        );
        excluded_points += reached(&format!("ExcludedMut::insert, {name}"), points);
    }
    // The excluded storage's insert allocates where its set has no room yet.
    assert!(excluded_points > 0);
}

/// Maps with each shipped observer that keeps memory, `n` rows, full everywhere (the values and
/// every observer's room), so that the next insert allocates in each.
fn observed_map<O: sparse_set_core::observe::Observer<u32, u64> + Default>(
    n: u32,
) -> SparseMap<u32, u64, u32, O> {
    let mut map = SparseMap::<u32, u64, u32, O>::default();
    map.extend((0..n).map(|key| (key, u64::from(key))));
    map
}

fn rows_of<O: sparse_set_core::observe::Observer<u32, u64>>(
    map: &SparseMap<u32, u64, u32, O>,
) -> Vec<(u32, u64)> {
    map.iter().map(|(key, &value)| (key, value)).collect()
}

/// An observer that keeps memory (`Ticks`' stamps, a `Journal`'s operations, `Removals`' keys)
/// grows before the storage changes, or where it cannot refuse, falls back: a failed
/// allocation is the `try_` call's `Err` with the map and its observers as before, a plain
/// call's panic, never an abort of the process.
#[test]
fn observed_maps_refuse_cleanly_at_every_allocation() {
    use sparse_set_core::observe::{Journal, Removals, Ticks};
    type Observers = (Ticks, Journal<u32>, Removals<u32>);

    for n in [0, 4, 16, 17, 64] {
        let points = sweep_try(
            || observed_map::<Observers>(n),
            |map| map.try_insert(n, 7),
            &Error::AllocFailed,
            |map| (rows_of(map), map.observer().0.len(), map.observer().1.len()),
            |map| {
                map.assert_invariants();
                assert_eq!(map.observer().0.len(), map.len(), "the stamps follow the rows");
                assert_eq!(map.observer().1.len(), map.len(), "the journal follows the rows");
            },
        );
        reached("observed SparseMap::try_insert", points);
        let points = sweep_try(
            || observed_map::<Observers>(n),
            |map| map.try_reserve(100),
            &Error::AllocFailed,
            rows_of,
            SparseMap::assert_invariants,
        );
        reached("observed SparseMap::try_reserve", points);
    }
    // A removal's event grows `Removals`: a plain call, which panics, never aborts, and leaves
    // the map consistent.
    let points = sweep_plain(
        || observed_map::<(Ticks, Removals<u32>)>(5),
        |map| map.remove(2),
        REFUSED,
        |map, _| {
            map.assert_invariants();
            assert_eq!(map.observer().0.len(), map.len());
        },
    );
    reached("observed SparseMap::remove", points);
}

/// A set with `Ticks` refuses as a map does: the stamps grow before the key is stored.
#[test]
fn observed_sets_refuse_cleanly_at_every_allocation() {
    use sparse_set_core::observe::Ticks;

    for n in [0_u32, 4, 16, 64] {
        let make = || {
            let mut set = SparseSet::<u32, u32, Ticks>::default();
            set.extend(0..n);
            set
        };
        let points = sweep_try(
            make,
            |set| set.try_insert(n),
            &Error::AllocFailed,
            |set| (set.as_slice().to_vec(), set.observer().len()),
            |set| {
                set.assert_invariants();
                assert_eq!(set.observer().len(), set.len(), "the stamps follow the keys");
            },
        );
        reached("observed SparseSet::try_insert", points);
    }
}

/// A group's own observer with stamps hears a key join: a member's `try_insert` reserves its
/// room first, so a failed allocation is the insert's `Err`, the group unchanged.
#[test]
fn an_observed_groups_joins_refuse_cleanly_at_every_allocation() {
    use sparse_set_core::observe::Ticks;

    let make = || {
        let mut a = SparseMap::<u32, u64>::new();
        let mut b = SparseMap::<u32, u64>::new();
        for key in 0..=4 {
            a.insert(key, 1);
        }
        for key in 0..4 {
            b.insert(key, 1);
        }
        b.reserve(10);
        Group::new((a, b)).observed_by(Ticks::new())
    };
    let points = sweep_try(
        make,
        |group| group.member_mut::<1>().try_insert(4, 7),
        &Error::AllocFailed,
        |group| (group.keys().to_vec(), group.members().1.len(), group.observer().len()),
        |group| {
            group.assert_invariants();
            assert_eq!(group.observer().len(), group.len(), "the stamps follow the prefix");
        },
    );
    reached("observed group's member try_insert", points);

    // An excluded storage's removal makes its key join: a plain call, which reserves the
    // observer's room before anything changes, so a failed allocation panics with the group as
    // it was (the key excluded, the stamps one a row of the prefix).
    let make = || {
        let a: SparseMap<u32, u64> = (0..16).map(|key| (key, 1)).collect();
        let b: SparseMap<u32, u64> = (0..16).map(|key| (key, 1)).collect();
        let hidden: SparseSet<u32> = [3].into_iter().collect();
        let group = Group::with_excluded((a, b), (hidden,)).observed_by(Ticks::new());
        assert_eq!(group.observer().len(), 15, "the stamps are full: the join must grow them");
        group
    };
    let points = sweep_plain(
        make,
        |group| group.excluded_mut::<0>().remove(3),
        REFUSED,
        |group, panicked| {
            group.assert_invariants();
            assert_eq!(group.observer().len(), group.len(), "the stamps follow the prefix");
            assert_eq!(group.len(), if panicked { 15 } else { 16 });
        },
    );
    reached("observed group's excluded remove", points);

    // A newer version stored in an excluded storage over an older one lets the older join:
    // the room first, so `try_insert` is an `Err` with the group unchanged.
    let make = || {
        let a: SparseMap<Entity, u64> = (0..16).map(|index| (entity(index, 1), 1)).collect();
        let b: SparseMap<Entity, u64> = (0..16).map(|index| (entity(index, 1), 1)).collect();
        let hidden: SparseSet<Entity> = [entity(3, 1)].into_iter().collect();
        Group::with_excluded((a, b), (hidden,)).observed_by(Ticks::new())
    };
    let points = sweep_try(
        make,
        |group| group.excluded_mut::<0>().try_insert(entity(3, 2), ()),
        &Error::AllocFailed,
        |group| (group.keys().to_vec(), group.observer().len()),
        |group| {
            group.assert_invariants();
            assert_eq!(group.observer().len(), group.len(), "the stamps follow the prefix");
        },
    );
    reached("observed group's excluded try_insert of a newer version", points);
}
