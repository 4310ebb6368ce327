//! Parallel iteration (feature `rayon`): every parallel form gives what its sequential form
//! gives, on a pool of two threads, for derived storages, maps, groups and queries.

use rayon::prelude::*;
use sparse_soa::{Entities, Entity, Group, SparseMap, SparseSet, SparseSoa, Storage, query};

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f64,
    y: f64,
    name: String,
}

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Velocity {
    dx: f64,
    dy: f64,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Frozen;

/// A generic storage: the derive's parallel impls carry the struct's generics and bounds.
#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Tagged<T: Clone>
where
    T: Default,
{
    value: T,
    weight: u32,
}

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap()
}

struct World {
    positions: PositionSoa,
    velocities: VelocitySoa,
    frozen: FrozenSoa,
}

fn world(n: u32) -> World {
    let mut entities = Entities::new();
    let mut world = World {
        positions: PositionSoa::new(),
        velocities: VelocitySoa::new(),
        frozen: FrozenSoa::new(),
    };
    for i in 0..n {
        let e = entities.spawn();
        let f = f64::from(i);
        world.positions.insert(e, Position { x: f, y: -f, name: format!("p{i}") });
        if i % 2 == 0 {
            world.velocities.insert(e, Velocity { dx: 1.0 + f, dy: 2.0 });
        }
        if i % 7 == 0 {
            world.frozen.insert(e);
        }
    }
    world
}

#[test]
fn a_derived_storage_in_parallel_matches_the_sequential_walk() {
    let mut sequential = world(5000).positions;
    let mut parallel = sequential.clone();
    for (_, p) in &mut sequential {
        *p.x += *p.y * 2.0;
        p.name.push('!');
    }
    pool().install(|| {
        parallel.par_iter_mut().for_each(|(_, p)| {
            *p.x += *p.y * 2.0;
            p.name.push('!');
        });
    });
    assert_eq!(parallel, sequential);
    parallel.assert_invariants();

    let keys: Vec<Entity> = pool().install(|| parallel.par_iter().map(|(key, _)| key).collect());
    assert_eq!(keys, parallel.keys());
    let total: f64 = pool().install(|| parallel.columns().into_par_iter().map(|(_, p)| *p.x).sum());
    assert!((total - parallel.x().iter().sum::<f64>()).abs() < 1e-6);
    pool().install(|| parallel.columns_mut().into_par_iter().for_each(|(_, p)| *p.y = 0.0));
    assert!(parallel.y().iter().all(|&y| y == 0.0));
}

#[test]
fn a_generic_derived_storage_runs_in_parallel() {
    let mut storage: TaggedSoa<u64> =
        (0..1000).map(|key| (key, Tagged { value: u64::from(key), weight: 1 })).collect();
    pool().install(|| storage.par_iter_mut().for_each(|(key, t)| *t.weight += key));
    assert!(storage.iter().all(|(key, t)| *t.weight == key + 1));
}

#[test]
fn a_group_in_parallel_matches_the_sequential_walk() {
    let World { positions, velocities, frozen } = world(6000);
    let mut sequential = Group::with_excluded((positions, velocities), (frozen,));
    let mut parallel = sequential.clone();
    for (_, (p, v)) in sequential.iter_mut() {
        *p.x += *v.dx;
        *p.y += *v.dy;
    }
    pool().install(|| {
        parallel.par_iter_mut().for_each(|(_, (p, v))| {
            *p.x += *v.dx;
            *p.y += *v.dy;
        });
    });
    assert_eq!(parallel.members().0, sequential.members().0);
    parallel.assert_invariants();
    let walked: Vec<Entity> =
        pool().install(|| (&parallel).into_par_iter().map(|(key, _)| key).collect());
    assert_eq!(walked, parallel.keys());
}

#[test]
fn a_query_in_parallel_matches_the_sequential_query() {
    let World { mut positions, velocities, frozen } = world(4000);
    let mut expected = positions.clone();
    query((&mut expected, &velocities)).without(&frozen).for_each(|_, (p, v)| {
        *p.x += *v.dx;
    });
    pool().install(|| {
        query((&mut positions, &velocities)).without(&frozen).par_for_each(|_, (p, v)| {
            *p.x += *v.dx;
        });
    });
    assert_eq!(positions, expected);
}

#[test]
fn maps_and_sets_in_parallel() {
    let mut map: SparseMap<u32, u32> = (0..2000).map(|key| (key, 0)).collect();
    pool().install(|| map.par_iter_mut().for_each(|(key, value)| *value = key * 2));
    assert!(map.iter().all(|(key, &value)| value == key * 2));
    let set: SparseSet<u32> = (0..2000).collect();
    let sum: u64 = pool().install(|| set.par_iter().map(u64::from).sum());
    assert_eq!(sum, 1_999_000);
}
