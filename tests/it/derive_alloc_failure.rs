//! A failed allocation at every allocation point of a derived storage with several columns (a
//! `String` and a `Vec` among them), growable and bounded, and of a group with a derived
//! member: a `try_` call returns `Error::AllocFailed` and leaves the storage as it was (every
//! row compared, in order); a plain call panics with the error's message and leaves it
//! consistent, every column the keys' length.
//!
//! Run with `--nocapture` to see how many allocation points each sweep reached.

use sparse_soa::{Error, Group, SparseMap, SparseSoa, Storage};
use sparse_soa_test_support::{
    REFUSED, failing_allocations, reached, sweep_never_fails, sweep_plain, sweep_try,
};

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(dense = u32)]
struct Body {
    x: f32,
    name: String,
    tags: Vec<u16>,
    mass: f64,
}

/// Columns whose `Clone` does not allocate, for the copies: a `String` field's own `Clone`
/// allocates as it always does (and aborts when memory cannot be had), beyond the storage's
/// reach.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
struct Particle {
    x: f32,
    y: f32,
    id: u64,
}

fn body(key: u32) -> Body {
    let small = (key % 1000) as u16;
    Body { x: f32::from(small), name: format!("body {key}"), tags: vec![small; 2], mass: 1.0 }
}

/// Every row, in order, with its key.
fn rows(bodies: &BodySoa) -> Vec<(u32, Body)> {
    bodies.iter().map(|(key, body)| (key, body.cloned())).collect()
}

/// The storage is consistent, every column has the keys' length, every row is its key's.
fn check(bodies: &BodySoa) {
    Storage::assert_invariants(bodies);
    let len = bodies.len();
    assert_eq!(
        (bodies.x().len(), bodies.name().len(), bodies.tags().len(), bodies.mass().len()),
        (len, len, len, len)
    );
    for (key, row) in bodies {
        assert_eq!(*row.name, format!("body {key}"), "row of {key} moved");
    }
}

/// Storages in the shapes the key index has, each with the key whose insert allocates there
/// (smaller under miri).
fn scenarios() -> Vec<(&'static str, Vec<u32>, u32)> {
    let full = if cfg!(miri) { 16 } else { 64 };
    vec![
        ("empty", vec![], 5),
        ("columns full", (0..full).collect(), full),
        ("page 0 turns full", (0..8).map(|i| i * 3).collect(), 100),
        ("a far page", vec![1, 2], 1 << 30),
        ("a far page turns full", (0..8).map(|i| (1 << 30) + i).collect(), (1 << 30) + 8),
    ]
}

fn storage_of(held: &[u32]) -> BodySoa {
    let mut bodies: BodySoa = held.iter().map(|&key| (key, body(key))).collect();
    bodies.shrink_to_fit();
    bodies
}

#[test]
fn inserts_refuse_cleanly_at_every_allocation() {
    for (name, held, key) in scenarios() {
        // The row is made before the allocator refuses: only the storage's allocations fail.
        let make = || (storage_of(&held), Some(body(key)));
        let snapshot = |(bodies, _): &(BodySoa, Option<Body>)| rows(bodies);
        let points = sweep_try(
            make,
            |(bodies, row)| bodies.try_insert(key, row.take().unwrap()),
            &Error::AllocFailed,
            snapshot,
            |(bodies, _)| check(bodies),
        );
        assert!(reached(&format!("try_insert, {name}"), points) > 0);
        let points = sweep_try(
            make,
            |(bodies, row)| Storage::try_insert(bodies, key, row.take().unwrap()),
            &Error::AllocFailed,
            snapshot,
            |(bodies, _)| check(bodies),
        );
        assert!(points > 0);
        let points = sweep_plain(
            make,
            |(bodies, row)| bodies.insert(key, row.take().unwrap()),
            REFUSED,
            |(bodies, _), panicked| {
                check(bodies);
                assert_eq!(bodies.contains_key(key), !panicked);
                assert_eq!(bodies.len(), held.len() + usize::from(!panicked));
            },
        );
        assert!(reached(&format!("insert, {name}"), points) > 0);
        let points = sweep_plain(
            make,
            |(bodies, row)| bodies.insert_full(key, row.take().unwrap()),
            REFUSED,
            |(bodies, _), _| check(bodies),
        );
        assert!(points > 0);
    }
}

#[test]
fn growth_reservation_and_construction_refuse_cleanly() {
    let all: Vec<u32> = scenarios().into_iter().flat_map(|(_, held, _)| held).collect();
    let points = sweep_plain(
        || (BodySoa::new(), all.iter().map(|&key| (key, body(key))).collect::<Vec<_>>()),
        |(bodies, pairs)| bodies.extend(std::mem::take(pairs)),
        REFUSED,
        |(bodies, _), _| check(bodies),
    );
    assert!(reached("extend", points) > 10);
    for (name, held, _) in scenarios() {
        let make = || storage_of(&held);
        let points =
            sweep_try(make, |bodies| bodies.try_reserve(100), &Error::AllocFailed, rows, check);
        // The key index, then each of the four columns.
        assert!(reached(&format!("try_reserve, {name}"), points) >= 5);
        let points = sweep_plain(
            make,
            |bodies| bodies.reserve(100),
            REFUSED,
            |bodies, _| {
                check(bodies);
                assert_eq!(bodies.len(), held.len());
            },
        );
        assert!(points >= 5);
    }
    let points = sweep_try(
        || None,
        |slot| BodySoa::try_with_capacity(100).map(|bodies| *slot = Some(bodies)),
        &Error::AllocFailed,
        Option::is_some,
        |_| {},
    );
    assert_eq!(reached("try_with_capacity", points), 5, "the keys and four columns");
    let points = sweep_plain(|| (), |()| BodySoa::with_capacity(100), REFUSED, |(), _| {});
    assert_eq!(points, 5);
    let points = sweep_try(
        || None,
        |slot| BodySoa::try_bounded(100, 1000).map(|bodies| *slot = Some(bodies)),
        &Error::AllocFailed,
        Option::is_some,
        |_| {},
    );
    assert!(reached("try_bounded", points) >= 6, "the keys, their pages, four columns");
    let points = sweep_plain(|| (), |()| BodySoa::bounded(100, 1000), REFUSED, |(), _| {});
    assert!(points >= 6);
}

fn particle(key: u32) -> Particle {
    Particle { x: f32::from((key % 1000) as u16), y: 0.0, id: u64::from(key) }
}

/// Every particle, in order, with its key.
fn particles(storage: &ParticleSoa) -> Vec<(u32, Particle)> {
    storage.iter().map(|(key, particle)| (key, particle.cloned())).collect()
}

fn check_particles(storage: &ParticleSoa) {
    Storage::assert_invariants(storage);
    let len = storage.len();
    assert_eq!((storage.x().len(), storage.y().len(), storage.id().len()), (len, len, len));
    assert!(storage.iter().all(|(key, particle)| *particle.id == u64::from(key)));
}

#[test]
fn copies_refuse_cleanly_and_a_bounded_copy_stays_allocation_free() {
    let growable: ParticleSoa = (0..50).map(|key| (key, particle(key))).collect();
    let mut bounded = ParticleSoa::bounded(100, 1000);
    for key in 0..50 {
        bounded.insert(key * 3, particle(key * 3));
    }
    for (name, original) in [("growable", &growable), ("bounded", &bounded)] {
        let points = sweep_try(
            || (original.clone(), None),
            |(storage, copy)| storage.try_clone().map(|made| *copy = Some(made)),
            &Error::AllocFailed,
            |(storage, _)| particles(storage),
            |(storage, copy)| {
                check_particles(storage);
                if let Some(copy) = copy {
                    check_particles(copy);
                    assert_eq!(particles(copy), particles(storage));
                    assert_eq!(copy.capacity(), original.capacity().min(copy.capacity()));
                }
            },
        );
        // The keys and their page, then the three columns.
        assert!(reached(&format!("try_clone, {name}"), points) >= 5);
        let points = sweep_plain(
            || original.clone(),
            |storage| storage.clone(),
            REFUSED,
            |storage, _| {
                check_particles(storage);
            },
        );
        assert!(reached(&format!("clone, {name}"), points) >= 5);
    }
    assert_eq!(bounded.clone().capacity(), 100, "a bounded copy keeps its room");
    // The copy of a bounded storage takes its 50 more rows without allocating, however many
    // columns a row has and whatever they hold (made first: a `String` allocates).
    let mut bounded_bodies = BodySoa::bounded(100, 1000);
    for key in 0..50 {
        bounded_bodies.insert(key * 3, body(key * 3));
    }
    let mut copy = bounded_bodies.clone();
    let more: Vec<(u32, Body)> = (0..50).map(|key| (key * 3 + 1, body(key * 3 + 1))).collect();
    failing_allocations(|| {
        for (key, row) in more {
            assert_eq!(copy.try_insert(key, row), Ok(None));
        }
    });
    check(&copy);
    let mut copy = bounded.clone();
    failing_allocations(|| {
        (0..50).for_each(|key| _ = copy.insert(key * 3 + 1, particle(key * 3 + 1)));
    });
    check_particles(&copy);
}

#[test]
fn stable_sorts_panic_cleanly_and_the_rest_never_allocate() {
    let len = if cfg!(miri) { 40 } else { 200 };
    let make = || storage_of(&(0..len).map(|i| (i * 7919) % 1009).collect::<Vec<_>>());
    let before = rows(&make());
    let points = sweep_plain(
        make,
        |bodies| bodies.sort_by(|_, a, _, b| a.x.total_cmp(b.x)),
        REFUSED,
        |bodies, panicked| {
            check(bodies);
            assert!(!panicked || rows(bodies) == before, "nothing moves before the permutation");
        },
    );
    assert!(reached("sort_by", points) > 0);
    let points = sweep_plain(
        make,
        |bodies| bodies.sort_by_key(|key, _| key % 3),
        REFUSED,
        |b, _| {
            check(b);
        },
    );
    assert!(reached("sort_by_key", points) > 0);
    let mut bodies = make();
    failing_allocations(|| {
        bodies.sort_unstable_by(|_, a, _, b| b.x.total_cmp(a.x));
        bodies.sort_keys();
        bodies.swap_indices(0, 1);
        bodies.retain(|key, _| key % 2 == 0);
        bodies.truncate(50);
        drop(bodies.remove(bodies.keys()[3]));
    });
    check(&bodies);
    // Shrinking keeps what it cannot move, and never fails.
    let make = || {
        let mut bodies = storage_of(&(0..if cfg!(miri) { 60 } else { 300 }).collect::<Vec<_>>());
        bodies.retain(|key, _| key % 4 == 0);
        bodies
    };
    let points = sweep_never_fails(make, BodySoa::shrink_to_fit, rows, check);
    assert!(reached("shrink_to_fit", points) >= 4);
}

type Moving = Group<(BodySoa, SparseMap<u32, f32>)>;

#[test]
fn group_inserts_into_a_derived_member_keep_the_group_aligned() {
    for (name, held, key) in scenarios() {
        let make = || {
            let bodies = storage_of(&held);
            let speeds: SparseMap<u32, f32> =
                held.iter().chain([&key]).map(|&key| (key, 1.0)).collect();
            (Group::new((bodies, speeds)), Some(body(key)))
        };
        let snapshot = |(group, _): &(Moving, Option<Body>)| {
            let (bodies, speeds) = group.members();
            (group.keys().to_vec(), rows(bodies), speeds.keys().to_vec())
        };
        let check = |(group, _): &(Moving, Option<Body>)| {
            group.assert_invariants();
            check(&group.members().0);
        };
        let points = sweep_try(
            make,
            |(group, row)| group.member_mut::<0>().try_insert(key, row.take().unwrap()),
            &Error::AllocFailed,
            snapshot,
            check,
        );
        assert!(reached(&format!("MemberMut::try_insert, {name}"), points) > 0);
        let points = sweep_plain(
            make,
            |(group, row)| group.member_mut::<0>().insert(key, row.take().unwrap()),
            REFUSED,
            |state, panicked| {
                check(state);
                assert_eq!(state.0.contains(key), !panicked, "aligned once inserted");
            },
        );
        assert!(points > 0);
    }
}

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
struct Unit {
    #[sparse_soa(track)]
    hp: u32,
    level: u8,
}

/// A derived storage with tracked fields and a `Ticks` observer: the stamps grow before the
/// row is stored, so a failed allocation is `try_insert`'s `Err` with the storage, its stamps
/// and its ticks as before, never an abort.
#[test]
fn observed_derived_storages_refuse_cleanly_at_every_allocation() {
    use sparse_soa::observe::Ticks;

    for n in [0_u32, 4, 16, 64] {
        let make = || {
            let mut units = UnitSoa::with_observer(Ticks::new());
            for key in 0..n {
                units.insert(key, Unit { hp: key, level: 1 });
            }
            units
        };
        let snapshot = |units: &UnitSoa<Ticks>| {
            let rows: Vec<(u32, u32)> = units.iter().map(|(key, unit)| (key, *unit.hp)).collect();
            (rows, units.observer().len())
        };
        let points = sweep_try(
            make,
            |units| units.try_insert(n, Unit { hp: 9, level: 2 }),
            &Error::AllocFailed,
            snapshot,
            |units| {
                units.assert_invariants();
                assert_eq!(units.observer().len(), units.len(), "the ticks follow the rows");
            },
        );
        reached("observed derived try_insert", points);
    }
}

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = sparse_soa::Entity)]
struct Place {
    x: f32,
}

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = sparse_soa::Entity)]
struct Pace {
    dx: f32,
}

#[derive(sparse_soa::World)]
struct Scene {
    entities: sparse_soa::Entities,
    moving: Group<(PlaceSoa, PaceSoa), (), (), sparse_soa::observe::Ticks>,
    names: SparseMap<sparse_soa::Entity, u64, u32, sparse_soa::observe::Ticks>,
}

/// A world's rows into a group whose own observer keeps stamps: the row that completes the
/// group reserves the stamps' room before it stores anything, so a failed allocation is
/// `try_spawn`'s `Err` with the world as it was, never a group one stamp short.
#[test]
fn a_worlds_rows_into_an_observed_group_refuse_cleanly_at_every_allocation() {
    use sparse_soa::Entities;
    use sparse_soa::observe::Ticks;

    let make = || {
        let mut scene = Scene {
            entities: Entities::new(),
            moving: Group::new((PlaceSoa::new(), PaceSoa::new())).observed_by(Ticks::new()),
            names: SparseMap::default(),
        };
        // Eight rows: the group's stamps full, so the next join must grow them.
        for n in 0..8 {
            scene.spawn((Place { x: 0.5 }, Pace { dx: 1.0 }, n));
        }
        scene
    };
    let snapshot = |scene: &Scene| {
        let moving = scene.moving.keys().to_vec();
        (scene.entities.len(), moving, scene.names.keys().to_vec(), scene.moving.observer().len())
    };
    let check = |scene: &Scene| {
        scene.moving.assert_invariants();
        assert_eq!(scene.moving.observer().len(), scene.moving.len(), "the group's stamps");
        assert_eq!(scene.names.observer().len(), scene.names.len(), "the names' stamps");
    };
    let points = sweep_try(
        make,
        |scene| scene.try_spawn((Place { x: 9.0 }, Pace { dx: 2.0 }, 9)),
        &Error::AllocFailed,
        snapshot,
        check,
    );
    reached("a world's try_spawn into an observed group", points);
    let points = sweep_try(
        make,
        |scene| scene.try_spawn_batch((0..20).map(|n| (Place { x: 0.5 }, Pace { dx: 0.0 }, n))),
        &Error::AllocFailed,
        snapshot,
        check,
    );
    reached("a world's try_spawn_batch into an observed group", points);

    // The plain calls panic where memory cannot be had, with the world consistent: nothing is
    // allocated to report it, and a batch's buffers are asked for fallibly.
    let points = sweep_plain(
        make,
        |scene| scene.spawn((Place { x: 0.5 }, Pace { dx: 2.0 }, 9)),
        REFUSED,
        |scene, _| check(scene),
    );
    reached("a world's spawn into an observed group", points);
    let rows = || (0..40).map(|n| (Place { x: 0.5 }, Pace { dx: 0.0 }, n));
    let points = sweep_plain(
        make,
        |scene| scene.spawn_batch(rows()).count(),
        REFUSED,
        |scene, _| check(scene),
    );
    reached("a world's spawn_batch, stepped through", points);
    let points = sweep_plain(
        make,
        |scene| drop(scene.spawn_batch(rows())),
        REFUSED,
        |scene, _| {
            check(scene);
        },
    );
    reached("a world's spawn_batch, dropped", points);
}
