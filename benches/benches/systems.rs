//! Systems over several storages: sparse-soa's queries against `bevy_ecs` queries (table and
//! sparse-set components), shipyard views and a loop written by hand over the same sparse-soa
//! storages (the floor of a probing query).
//!
//! The world: `n` entities, each with a 3-`f32` position; half of them (chosen with a fixed seed)
//! have a velocity, a tenth are frozen, a quarter have an acceleration.
//!
//! - `systems_move`: every entity with a position and a velocity and not frozen moves.
//! - `systems_accelerate`: every entity with a position, a velocity and an acceleration: the
//!   velocity gains the acceleration, then the position the velocity (two mutable storages).
//!
//! Group = workload and size, function = contender. `SPARSE_SOA_BENCH_MODE=quick` shortens every
//! measurement and runs 100,000 entities only; `full` (the default) adds 1,000,000.

#![allow(
    clippy::cast_precision_loss,
    reason = "benchmark values are made from counts; their exact value does not matter"
)]
#![allow(
    clippy::many_single_char_names,
    reason = "p, v, a: position, velocity, acceleration, as in the systems' formulas"
)]

use std::hint::black_box;

use bevy_ecs::component::Component;
use bevy_ecs::query::{With, Without};
use bevy_ecs::world::World;
use criterion::Criterion;
use shipyard::{IntoIter, View, ViewMut};
use sparse_soa::{Entities, Entity, SparseSoa, query};
use sparse_soa_bench::{Rng, SEED, group, quick};

/// The time step of every system.
const DT: f32 = 1.0 / 60.0;

fn sizes() -> Vec<u32> {
    if quick() { vec![100_000] } else { vec![100_000, 1_000_000] }
}

// ---------------------------------------------------------------------------------------------
// The world, as each contender stores it.

/// A position (sparse-soa: one column per field, keyed by `Entity`).
#[derive(SparseSoa, Clone, Copy)]
#[sparse_soa(key = Entity)]
struct Pos {
    x: f32,
    y: f32,
    z: f32,
}

/// A velocity.
#[derive(SparseSoa, Clone, Copy)]
#[sparse_soa(key = Entity)]
struct Vel {
    x: f32,
    y: f32,
    z: f32,
}

/// An acceleration.
#[derive(SparseSoa, Clone, Copy)]
#[sparse_soa(key = Entity)]
struct Acc {
    x: f32,
    y: f32,
    z: f32,
}

/// A tag: frozen entities do not move.
#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Frozen;

/// Which components entity `i` has, from the fixed seed.
#[derive(Clone, Copy)]
struct Has {
    velocity: bool,
    frozen: bool,
    acceleration: bool,
}

fn layout(n: u32) -> Vec<Has> {
    let mut rng = Rng::new(SEED ^ 0x0053_5953);
    (0..n)
        .map(|_| Has {
            velocity: rng.below(2) == 0,
            frozen: rng.below(10) == 0,
            acceleration: rng.below(4) == 0,
        })
        .collect()
}

fn pos(i: u32) -> [f32; 3] {
    let f = i as f32;
    [f, f * 0.5, -f]
}

const VEL: [f32; 3] = [1.0, 2.0, 3.0];
const ACC: [f32; 3] = [0.0, -9.8, 0.0];

struct SparseSoaWorld {
    positions: PosSoa,
    velocities: VelSoa,
    accelerations: AccSoa,
    frozen: FrozenSoa,
}

fn sparse_soa_world(layout: &[Has]) -> SparseSoaWorld {
    let mut entities = Entities::new();
    let mut world = SparseSoaWorld {
        positions: PosSoa::new(),
        velocities: VelSoa::new(),
        accelerations: AccSoa::new(),
        frozen: FrozenSoa::new(),
    };
    for (i, has) in (0..).zip(layout) {
        let entity = entities.spawn();
        let [x, y, z] = pos(i);
        world.positions.insert(entity, Pos { x, y, z });
        if has.velocity {
            let [x, y, z] = VEL;
            world.velocities.insert(entity, Vel { x, y, z });
        }
        if has.frozen {
            world.frozen.insert(entity);
        }
        if has.acceleration {
            let [x, y, z] = ACC;
            world.accelerations.insert(entity, Acc { x, y, z });
        }
    }
    world
}

/// bevy table components.
#[derive(Component)]
struct TablePos([f32; 3]);
#[derive(Component)]
struct TableVel([f32; 3]);
#[derive(Component)]
struct TableAcc([f32; 3]);
#[derive(Component)]
struct TableFrozen;

/// bevy sparse-set components.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparsePos([f32; 3]);
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseVel([f32; 3]);
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseAcc([f32; 3]);
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseFrozen;

/// How a contender makes its position, velocity, acceleration and frozen components.
type Makers<P, V, A, F> = (fn([f32; 3]) -> P, fn([f32; 3]) -> V, fn([f32; 3]) -> A, fn() -> F);

fn bevy_world<P: Component, V: Component, A: Component, F: Component>(
    layout: &[Has],
    make: Makers<P, V, A, F>,
) -> World {
    let mut world = World::new();
    for (i, has) in (0..).zip(layout) {
        let mut entity = world.spawn(make.0(pos(i)));
        if has.velocity {
            entity.insert(make.1(VEL));
        }
        if has.frozen {
            entity.insert(make.3());
        }
        if has.acceleration {
            entity.insert(make.2(ACC));
        }
    }
    world
}

/// shipyard components.
struct ShipPos([f32; 3]);
struct ShipVel([f32; 3]);
struct ShipAcc([f32; 3]);
struct ShipFrozen;

impl shipyard::Component for ShipPos {
    type Tracking = shipyard::track::Untracked;
}
impl shipyard::Component for ShipVel {
    type Tracking = shipyard::track::Untracked;
}
impl shipyard::Component for ShipAcc {
    type Tracking = shipyard::track::Untracked;
}
impl shipyard::Component for ShipFrozen {
    type Tracking = shipyard::track::Untracked;
}

fn shipyard_world(layout: &[Has]) -> shipyard::World {
    let mut world = shipyard::World::new();
    for (i, has) in (0..).zip(layout) {
        let id = world.add_entity(ShipPos(pos(i)));
        if has.velocity {
            world.add_component(id, ShipVel(VEL));
        }
        if has.frozen {
            world.add_component(id, ShipFrozen);
        }
        if has.acceleration {
            world.add_component(id, ShipAcc(ACC));
        }
    }
    world
}

#[inline]
fn step(p: &mut [f32; 3], v: &[f32; 3]) {
    p[0] += v[0] * DT;
    p[1] += v[1] * DT;
    p[2] += v[2] * DT;
}

// ---------------------------------------------------------------------------------------------
// The move system.

fn move_system(c: &mut Criterion) {
    for size in sizes() {
        let layout = layout(size);
        // Per entity of the world, so that ns/op compares across contenders.
        let mut g = group(c, "systems_move", size, size);

        let mut w = sparse_soa_world(&layout);
        g.bench_function("sparse-soa", |b| {
            b.iter(|| {
                query((&mut w.positions, &w.velocities)).without(&w.frozen).for_each(
                    |_, (p, v)| {
                        *p.x += *v.x * DT;
                        *p.y += *v.y * DT;
                        *p.z += *v.z * DT;
                    },
                );
            });
        });
        black_box(w.positions.x());

        let mut w = sparse_soa_world(&layout);
        g.bench_function("sparse-soa-iter", |b| {
            b.iter(|| {
                let mut query = query((&mut w.positions, &w.velocities)).without(&w.frozen);
                let mut iter = query.iter();
                while let Some((_, (p, v))) = iter.next() {
                    *p.x += *v.x * DT;
                    *p.y += *v.y * DT;
                    *p.z += *v.z * DT;
                }
            });
        });
        black_box(w.positions.x());

        // The same storages, walked by hand: the velocities' columns drive, the tag and the
        // positions are probed.
        let mut w = sparse_soa_world(&layout);
        g.bench_function("sparse-soa-hand", |b| {
            b.iter(|| {
                let (positions, velocities, frozen) = (&mut w.positions, &w.velocities, &w.frozen);
                let (keys, vx, vy, vz) =
                    (velocities.keys(), velocities.x(), velocities.y(), velocities.z());
                for (i, &entity) in keys.iter().enumerate() {
                    if frozen.contains(entity) {
                        continue;
                    }
                    if let Some(p) = positions.get_mut(entity) {
                        *p.x += vx[i] * DT;
                        *p.y += vy[i] * DT;
                        *p.z += vz[i] * DT;
                    }
                }
            });
        });
        black_box(w.positions.x());

        let mut world = bevy_world(&layout, (TablePos, TableVel, TableAcc, || TableFrozen));
        let mut state = world.query_filtered::<(&mut TablePos, &TableVel), Without<TableFrozen>>();
        g.bench_function("bevy-table", |b| {
            b.iter(|| {
                state.iter_mut(&mut world).for_each(|(mut p, v)| step(&mut p.0, &v.0));
            });
        });

        let mut world = bevy_world(&layout, (SparsePos, SparseVel, SparseAcc, || SparseFrozen));
        let mut state =
            world.query_filtered::<(&mut SparsePos, &SparseVel), Without<SparseFrozen>>();
        g.bench_function("bevy-sparse", |b| {
            b.iter(|| {
                state.iter_mut(&mut world).for_each(|(mut p, v)| step(&mut p.0, &v.0));
            });
        });

        let world = shipyard_world(&layout);
        let (mut positions, velocities, frozen) = world
            .borrow::<(ViewMut<ShipPos>, View<ShipVel>, View<ShipFrozen>)>()
            .expect("no other borrow");
        g.bench_function("shipyard", |b| {
            b.iter(|| {
                (&mut positions, &velocities, !&frozen)
                    .iter()
                    .for_each(|(p, v, ())| step(&mut p.0, &v.0));
            });
        });
        drop((positions, velocities, frozen));
        g.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// The accelerate system: three storages, two of them mutable.

fn accelerate_system(c: &mut Criterion) {
    for size in sizes() {
        let layout = layout(size);
        let mut g = group(c, "systems_accelerate", size, size);

        let mut w = sparse_soa_world(&layout);
        g.bench_function("sparse-soa", |b| {
            b.iter(|| {
                query((&mut w.positions, &mut w.velocities, &w.accelerations)).for_each(
                    |_, (p, v, a)| {
                        *v.x += *a.x * DT;
                        *v.y += *a.y * DT;
                        *v.z += *a.z * DT;
                        *p.x += *v.x * DT;
                        *p.y += *v.y * DT;
                        *p.z += *v.z * DT;
                    },
                );
            });
        });
        black_box(w.positions.x());

        let mut w = sparse_soa_world(&layout);
        g.bench_function("sparse-soa-hand", |b| {
            b.iter(|| {
                let (positions, velocities, accelerations) =
                    (&mut w.positions, &mut w.velocities, &w.accelerations);
                let (keys, ax, ay, az) =
                    (accelerations.keys(), accelerations.x(), accelerations.y(), accelerations.z());
                for (i, &entity) in keys.iter().enumerate() {
                    let Some(v) = velocities.get_mut(entity) else { continue };
                    let Some(p) = positions.get_mut(entity) else { continue };
                    *v.x += ax[i] * DT;
                    *v.y += ay[i] * DT;
                    *v.z += az[i] * DT;
                    *p.x += *v.x * DT;
                    *p.y += *v.y * DT;
                    *p.z += *v.z * DT;
                }
            });
        });
        black_box(w.positions.x());

        let mut world = bevy_world(&layout, (TablePos, TableVel, TableAcc, || TableFrozen));
        let mut state =
            world.query_filtered::<(&mut TablePos, &mut TableVel, &TableAcc), With<TablePos>>();
        g.bench_function("bevy-table", |b| {
            b.iter(|| {
                state.iter_mut(&mut world).for_each(|(mut p, mut v, a)| {
                    step(&mut v.0, &a.0);
                    step(&mut p.0, &v.0);
                });
            });
        });

        let mut world = bevy_world(&layout, (SparsePos, SparseVel, SparseAcc, || SparseFrozen));
        let mut state =
            world.query_filtered::<(&mut SparsePos, &mut SparseVel, &SparseAcc), With<SparsePos>>();
        g.bench_function("bevy-sparse", |b| {
            b.iter(|| {
                state.iter_mut(&mut world).for_each(|(mut p, mut v, a)| {
                    step(&mut v.0, &a.0);
                    step(&mut p.0, &v.0);
                });
            });
        });

        let world = shipyard_world(&layout);
        let (mut positions, mut velocities, accelerations) = world
            .borrow::<(ViewMut<ShipPos>, ViewMut<ShipVel>, View<ShipAcc>)>()
            .expect("no other borrow");
        g.bench_function("shipyard", |b| {
            b.iter(|| {
                (&mut positions, &mut velocities, &accelerations).iter().for_each(|(p, v, a)| {
                    step(&mut v.0, &a.0);
                    step(&mut p.0, &v.0);
                });
            });
        });
        drop((positions, velocities, accelerations));
        g.finish();
    }
}

criterion::criterion_group!(benches, move_system, accelerate_system);
criterion::criterion_main!(benches);
