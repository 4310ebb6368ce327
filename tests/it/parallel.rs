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
fn a_deeper_level_drives_a_parallel_query_as_it_drives_a_sequential_one() {
    let World { positions, velocities, frozen } = world(6000);
    // Positions in the group; velocities nested; the frozen nested inside them (a level of
    // the frozen moving positions).
    let level = sparse_soa::group::Nested::new((velocities,))
        .nest(sparse_soa::group::Nested::new((frozen,)));
    let mut sequential = Group::new((positions,)).nest(level);
    let mut parallel = sequential.clone();
    let mut level2 = sequential.level_mut::<2>();
    query((&mut level2,)).for_each(|_, ((((p,), (v,)), _),)| *p.x -= *v.dx);
    let mut level2 = parallel.level_mut::<2>();
    pool().install(|| {
        query((&mut level2,)).par_for_each(|_, ((((p,), (v,)), _),)| *p.x -= *v.dx);
    });
    assert_eq!(parallel.members().0, sequential.members().0);
    parallel.assert_invariants();
    let level2 = parallel.nested().nested();
    let mut keys = std::sync::Mutex::new(Vec::new());
    pool().install(|| {
        query((&level2,)).par_for_each(|key, _| keys.lock().unwrap().push(key));
    });
    let keys = keys.get_mut().unwrap();
    keys.sort_unstable();
    let mut expected = level2.keys().to_vec();
    expected.sort_unstable();
    assert_eq!(*keys, expected);
    assert!(!expected.is_empty());
}

#[test]
fn a_nested_level_drives_a_parallel_query_as_it_drives_a_sequential_one() {
    let World { positions, velocities, frozen } = world(6000);
    // Positions in the group; velocities nested, frozen excluded from the nested level.
    let mut sequential = Group::new((positions,))
        .nest(sparse_soa::group::Nested::with_excluded((velocities,), (frozen,)));
    let mut parallel = sequential.clone();
    let mut nested = sequential.nested_mut();
    query((&mut nested,)).for_each(|_, (((p,), (v,)),)| *p.x += *v.dx);
    let mut nested = parallel.nested_mut();
    pool().install(|| {
        query((&mut nested,)).par_for_each(|_, (((p,), (v,)),)| *p.x += *v.dx);
    });
    assert_eq!(parallel.members().0, sequential.members().0);
    parallel.assert_invariants();
    // The shared view drives too, each thread over its part of the nested prefix.
    let nested = parallel.nested();
    let mut keys = std::sync::Mutex::new(Vec::new());
    pool().install(|| {
        query((&nested,)).par_for_each(|key, _| keys.lock().unwrap().push(key));
    });
    let keys = keys.get_mut().unwrap();
    keys.sort_unstable();
    let mut expected = nested.keys().to_vec();
    expected.sort_unstable();
    assert_eq!(*keys, expected);
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

/// Every way a parallel query can run: split over its driver (a storage or a group, shared
/// or mutable; any member when all are shared), or sequentially when a mutable first member
/// is not the smallest, with filters, an optional member and a shared group probed. Each gives the sequential query's result.
mod drivers {
    use std::sync::Mutex;

    use proptest::prelude::*;
    use sparse_soa::query::optional;
    use sparse_soa::{Group, SparseMap, SparseSet, query};
    use sparse_soa_test_support::model;

    use super::pool;

    type Pair = Group<(SparseMap<u32, i64>, SparseMap<u32, i64>), (SparseSet<u32>,)>;

    fn map(keys: impl Iterator<Item = u32>, seed: i64) -> SparseMap<u32, i64> {
        keys.map(|key| (key, i64::from(key) * seed)).collect()
    }

    /// The keys `f` saw, sorted: a parallel walk visits them in no set order.
    fn seen(keys: Mutex<Vec<u32>>) -> Vec<u32> {
        let mut keys = keys.into_inner().unwrap();
        keys.sort_unstable();
        keys
    }

    #[test]
    fn the_first_member_splits_when_it_drives() {
        // 6,000 positions, all with a velocity: the first member is the smallest and drives.
        let mut positions = map(0..6000, 1);
        let velocities = map((0..9000).rev(), 2);
        let frozen: SparseSet<u32> = (0..6000).step_by(7).collect();
        let tags: SparseSet<u32> = (0..6000).step_by(3).collect();
        let mut expected = positions.clone();
        query((&mut expected, &velocities, optional(&tags)))
            .without(&frozen)
            .for_each(|_, (p, v, tag)| *p += v + i64::from(tag.is_some()));
        let keys = Mutex::new(Vec::new());
        pool().install(|| {
            query((&mut positions, &velocities, optional(&tags))).without(&frozen).par_for_each(
                |key, (p, v, tag)| {
                    *p += v + i64::from(tag.is_some());
                    keys.lock().unwrap().push(key);
                },
            );
        });
        assert_eq!(positions, expected);
        let expected_keys: Vec<u32> = (0..6000).filter(|key| key % 7 != 0).collect();
        assert_eq!(seen(keys), expected_keys);
    }

    #[test]
    fn a_smaller_member_drives_sequentially_with_the_same_result() {
        let mut positions = map(0..8000, 1);
        let velocities = map((0..8000).step_by(2), 3);
        let mut expected = positions.clone();
        query((&mut expected, &velocities)).for_each(|_, (p, v)| *p -= v);
        pool().install(|| query((&mut positions, &velocities)).par_for_each(|_, (p, v)| *p -= v));
        assert_eq!(positions, expected);
        // `drive_by` picks the first member back: split in parallel, the same result again.
        let mut again = map(0..8000, 1);
        pool().install(|| {
            query((&mut again, &velocities))
                .drive_by_member::<0>()
                .par_for_each(|_, (p, v)| *p -= v);
        });
        assert_eq!(again, expected);
    }

    #[test]
    fn a_group_drives_and_is_probed() {
        let pair = || -> Pair {
            Group::with_excluded(
                (map(0..5000, 1), map((0..5000).filter(|key| key % 3 != 0), 5)),
                ((0..5000).step_by(11).collect(),),
            )
        };
        let lifetimes = map((0..5000).filter(|key| key % 2 == 0), 7);
        // A mutable group first: each thread walks its part of the prefix.
        let (mut grouped, mut expected) = (pair(), pair());
        query((&mut expected, &lifetimes)).drive_by_member::<0>().for_each(|_, ((a, b), life)| {
            *a += *b + life;
        });
        pool().install(|| {
            query((&mut grouped, &lifetimes)).drive_by_member::<0>().par_for_each(
                |_, ((a, b), life)| {
                    *a += *b + life;
                },
            );
        });
        assert_eq!(grouped.members().0, expected.members().0);
        grouped.assert_invariants();
        // A shared group probed by a mutable storage that drives.
        let mut small = map((0..5000).step_by(5), 1);
        let mut small_expected = small.clone();
        query((&mut small_expected, &grouped)).for_each(|_, (s, (a, _))| *s += a);
        pool().install(|| query((&mut small, &grouped)).par_for_each(|_, (s, (a, _))| *s += a));
        assert_eq!(small, small_expected);
    }

    #[test]
    fn a_shared_query_splits_whichever_member_drives() {
        // All shared: the smaller second member drives and is split; the first is copied.
        let big = map(0..9000, 1);
        let small = map((0..9000).step_by(3), 2);
        let tags: SparseSet<u32> = (0..9000).step_by(5).collect();
        let mut expected = Vec::new();
        query((&big, &small, optional(&tags))).for_each(|key, (b, s, tag)| {
            expected.push((key, b + s, tag.is_some()));
        });
        expected.sort_unstable();
        let seen = Mutex::new(Vec::new());
        pool().install(|| {
            query((&big, &small, optional(&tags))).par_for_each(|key, (b, s, tag)| {
                seen.lock().unwrap().push((key, b + s, tag.is_some()));
            });
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, expected);
        // A shared group probed while a shared storage drives, and the other way round.
        let pair: Pair = Group::with_excluded(
            (map(0..6000, 1), map((0..6000).filter(|key| key % 4 != 0), 3)),
            ((0..6000).step_by(13).collect(),),
        );
        for by_group in [false, true] {
            let expected: i64 = {
                let mut sum = 0;
                let q = query((&small, &pair));
                let q = if by_group { q.drive_by(&pair) } else { q.drive_by(&small) };
                q.for_each(|_, (s, (a, b))| sum += s + a + b);
                sum
            };
            let total = Mutex::new(0_i64);
            pool().install(|| {
                let q = query((&small, &pair));
                let q = if by_group { q.drive_by(&pair) } else { q.drive_by(&small) };
                q.par_for_each(|_, (s, (a, b))| *total.lock().unwrap() += s + a + b);
            });
            assert_eq!(total.into_inner().unwrap(), expected, "driven by the group: {by_group}");
        }
    }

    proptest! {
        #![proptest_config(model::config())]

        /// Any sizes and overlaps: the parallel query equals the sequential one, whichever
        /// member drives and however many threads the pool has.
        #[test]
        fn parallel_equals_sequential(
            first in prop::collection::btree_set(0_u32..6000, 0..3000),
            second in prop::collection::btree_set(0_u32..6000, 0..3000),
            frozen in prop::collection::btree_set(0_u32..6000, 0..300),
            threads in 1_usize..5,
        ) {
            let mut a = map(first.iter().copied(), 1);
            let b = map(second.iter().copied(), 2);
            let frozen: SparseSet<u32> = frozen.into_iter().collect();
            let mut expected = a.clone();
            query((&mut expected, &b)).without(&frozen).for_each(|key, (x, y)| *x += y * i64::from(key));
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                query((&mut a, &b)).without(&frozen).par_for_each(|key, (x, y)| *x += y * i64::from(key));
            });
            prop_assert_eq!(&a, &expected);
            // All shared: the smaller member drives, split, whichever it is.
            let mut sequential = Vec::new();
            query((&a, &b)).without(&frozen).for_each(|key, (x, y)| sequential.push((key, x + y)));
            sequential.sort_unstable();
            let parallel = Mutex::new(Vec::new());
            pool.install(|| {
                query((&a, &b)).without(&frozen).par_for_each(|key, (x, y)| {
                    parallel.lock().unwrap().push((key, x + y));
                });
            });
            let mut parallel = parallel.into_inner().unwrap();
            parallel.sort_unstable();
            prop_assert_eq!(parallel, sequential);
        }
    }
}
