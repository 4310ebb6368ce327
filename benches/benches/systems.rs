//! Systems over several storages: sparse-soa's queries against `bevy_ecs` queries (table and
//! sparse-set components), shipyard views, sparsey queries and a loop written by hand over the
//! same sparse-soa storages (the floor of a probing query).
//!
//! The world: `n` entities, each with a 3-`f32` position; half of them (chosen with a fixed seed)
//! have a velocity, a tenth are frozen, a quarter have an acceleration.
//!
//! - `systems_move`: every entity with a position and a velocity and not frozen moves. Beside
//!   the query's `for_each` (`sparse-soa`) and lending iterator (`sparse-soa-iter`),
//!   `sparse-soa-std-iter` sums the same entities' moved positions through the std iterator of a
//!   query of shared borrows, and `sparse-soa-sum` does the same sum with `for_each`.
//! - `systems_accelerate`: every entity with a position, a velocity and an acceleration: the
//!   velocity gains the acceleration, then the position the velocity (two mutable storages).
//! - `systems_move_inline`: the move system written inline in a frame function, as a game's
//!   main loop body, beside a second query summing the velocities, a loop counting the frozen
//!   entities that have a velocity, a frame counter and a short `Vec` of statistics (each
//!   contender's frame is one `#[inline(never)]` function). `sparse-soa-own-fn` is the same
//!   frame with the move system called as an `#[inline(never)]` function of its own: whether
//!   the query's loop keeps its speed when inlined into a larger body.
//!
//! - `systems_grouped`: the move system over storages kept aligned by a `Group` (positions and
//!   velocities, frozen excluded), which walks plain slices, against the bevy table query and a
//!   loop over plain `Vec<f32>` columns holding just the moving entities (the physical floor).
//! - `systems_parallel`: the same on 2 threads (rayon), against bevy's `par_iter_mut` and
//!   shipyard's `par_iter`, beside our own sequential walk.
//! - `systems_parallel_compute`: a system that computes per entity (square roots) rather than
//!   only streaming memory, sequential and on 2 threads: what splitting gains when memory
//!   bandwidth is not the limit.
//! - `systems_grouped_churn`: inserting velocities in spawn order and removing them in random
//!   order, in a grouped storage (each insert joins the aligned prefix, each remove leaves it)
//!   and in an ungrouped one.
//! - `systems_grouped_cycle`: the same at steady state: a random tenth of the entities lose
//!   their velocity and get it back, every iteration.
//!
//! Group = workload and size, function = contender. `SPARSE_SOA_BENCH_MODE=quick` shortens every
//! measurement and runs 100,000 entities only; `full` (the default) adds 1,000,000. The grouped
//! and parallel groups run both sizes in either mode: their targets are stated at both.

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
use bevy_ecs::query::{QueryState, With, Without};
use bevy_ecs::world::World;
use criterion::BatchSize;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion};
use shipyard::{IntoIter, View, ViewMut};
use sparse_soa::{Entities, Entity, Group, SparseSoa, query};
use sparse_soa_bench::{Rng, SEED, group, quick, random_permutation};

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

/// sparsey components (any `Send + Sync + 'static` type is one).
struct SparseyPos([f32; 3]);
struct SparseyVel([f32; 3]);
struct SparseyAcc([f32; 3]);
struct SparseyFrozen;

fn sparsey_world(layout: &[Has]) -> sparsey::World {
    let mut world = sparsey::World::builder()
        .register::<SparseyPos>()
        .register::<SparseyVel>()
        .register::<SparseyAcc>()
        .register::<SparseyFrozen>()
        .build();
    for (i, has) in (0..).zip(layout) {
        let entity = world.create((SparseyPos(pos(i)),));
        if has.velocity {
            world.insert(entity, (SparseyVel(VEL),));
        }
        if has.frozen {
            world.insert(entity, (SparseyFrozen,));
        }
        if has.acceleration {
            world.insert(entity, (SparseyAcc(ACC),));
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

        sum_rows(&mut g, &layout);

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

        let world = sparsey_world(&layout);
        g.bench_function("sparsey", |b| {
            b.iter(|| {
                world
                    .query_all::<(&mut SparseyPos, &SparseyVel)>()
                    .exclude::<&SparseyFrozen>()
                    .for_each(|(p, v)| step(&mut p.0, &v.0));
            });
        });
        g.finish();
    }
}

/// `systems_move`'s std iterator of a query of shared borrows against `for_each`, on equal work:
/// the sum of the positions the move system would write.
fn sum_rows(g: &mut BenchmarkGroup<'_, WallTime>, layout: &[Has]) {
    let w = sparse_soa_world(layout);
    g.bench_function("sparse-soa-std-iter", |b| {
        b.iter(|| {
            let mut sum = [0.0_f32; 3];
            for (_, (p, v)) in query((&w.positions, &w.velocities)).without(&w.frozen) {
                sum[0] += *p.x + *v.x * DT;
                sum[1] += *p.y + *v.y * DT;
                sum[2] += *p.z + *v.z * DT;
            }
            black_box(sum);
        });
    });
    g.bench_function("sparse-soa-sum", |b| {
        b.iter(|| {
            let mut sum = [0.0_f32; 3];
            query((&w.positions, &w.velocities)).without(&w.frozen).for_each(|_, (p, v)| {
                sum[0] += *p.x + *v.x * DT;
                sum[1] += *p.y + *v.y * DT;
                sum[2] += *p.z + *v.z * DT;
            });
            black_box(sum);
        });
    });
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

        let world = sparsey_world(&layout);
        g.bench_function("sparsey", |b| {
            b.iter(|| {
                world.query_all::<(&mut SparseyPos, &mut SparseyVel, &SparseyAcc)>().for_each(
                    |(p, v, a)| {
                        step(&mut v.0, &a.0);
                        step(&mut p.0, &v.0);
                    },
                );
            });
        });
        g.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// The move system inline in a frame: a game's main loop body.

/// What a frame keeps between frames: a counter and the statistics of the last few frames.
#[derive(Default)]
struct FrameStats {
    /// Frames run.
    frame: u64,
    /// The last `KEPT` frames' (frame, total speed, frozen entities with a velocity).
    history: Vec<(u64, f32, u32)>,
}

/// How many frames' statistics a frame keeps.
const KEPT: usize = 8;

impl FrameStats {
    /// The bookkeeping at the end of every frame.
    #[inline]
    fn record(&mut self, speed: f32, frozen: u32) {
        self.frame += 1;
        if self.history.len() == KEPT {
            self.history.remove(0);
        }
        self.history.push((self.frame, speed, frozen));
    }
}

/// One frame over our storages, the move system inline.
#[inline(never)]
fn frame_sparse_soa(w: &mut SparseSoaWorld, stats: &mut FrameStats) {
    query((&mut w.positions, &w.velocities)).without(&w.frozen).for_each(|_, (p, v)| {
        *p.x += *v.x * DT;
        *p.y += *v.y * DT;
        *p.z += *v.z * DT;
    });
    frame_rest(w, stats);
}

/// The move system as a function of its own, for `sparse-soa-own-fn`.
#[inline(never)]
fn move_own_fn(positions: &mut PosSoa, velocities: &VelSoa, frozen: &FrozenSoa) {
    query((positions, velocities)).without(frozen).for_each(|_, (p, v)| {
        *p.x += *v.x * DT;
        *p.y += *v.y * DT;
        *p.z += *v.z * DT;
    });
}

/// One frame over our storages, the move system called.
#[inline(never)]
fn frame_sparse_soa_own_fn(w: &mut SparseSoaWorld, stats: &mut FrameStats) {
    move_own_fn(&mut w.positions, &w.velocities, &w.frozen);
    frame_rest(w, stats);
}

/// The rest of the frame over our storages, inlined into both frame functions.
#[allow(clippy::inline_always, reason = "both frames must compile to one body each")]
#[inline(always)]
fn frame_rest(w: &SparseSoaWorld, stats: &mut FrameStats) {
    let mut speed = 0.0_f32;
    query((&w.velocities,)).for_each(|_, (v,)| speed += *v.x + *v.y + *v.z);
    let mut frozen = 0_u32;
    for &entity in w.frozen.as_slice() {
        frozen += u32::from(w.velocities.contains_key(entity));
    }
    stats.record(speed, frozen);
}

/// The query states a bevy frame runs.
struct BevyFrame {
    moving: QueryState<(&'static mut SparsePos, &'static SparseVel), Without<SparseFrozen>>,
    velocities: QueryState<&'static SparseVel>,
    frozen: QueryState<(), (With<SparseFrozen>, With<SparseVel>)>,
}

/// One frame over bevy's sparse-set components, the move system inline.
#[inline(never)]
fn frame_bevy_sparse(world: &mut World, queries: &mut BevyFrame, stats: &mut FrameStats) {
    queries.moving.iter_mut(world).for_each(|(mut p, v)| step(&mut p.0, &v.0));
    let mut speed = 0.0_f32;
    queries.velocities.iter(world).for_each(|v| speed += v.0[0] + v.0[1] + v.0[2]);
    let mut frozen = 0_u32;
    for () in queries.frozen.iter(world) {
        frozen += 1;
    }
    stats.record(speed, frozen);
}

fn move_inline(c: &mut Criterion) {
    for size in sizes() {
        let layout = layout(size);
        let mut g = group(c, "systems_move_inline", size, size);

        let mut w = sparse_soa_world(&layout);
        let mut stats = FrameStats::default();
        g.bench_function("sparse-soa", |b| b.iter(|| frame_sparse_soa(&mut w, &mut stats)));
        black_box((w.positions.x(), &stats.history));

        let mut w = sparse_soa_world(&layout);
        let mut stats = FrameStats::default();
        g.bench_function("sparse-soa-own-fn", |b| {
            b.iter(|| frame_sparse_soa_own_fn(&mut w, &mut stats));
        });
        black_box((w.positions.x(), &stats.history));

        let mut world = bevy_world(&layout, (SparsePos, SparseVel, SparseAcc, || SparseFrozen));
        let mut queries = BevyFrame {
            moving: world.query_filtered(),
            velocities: world.query(),
            frozen: world.query_filtered(),
        };
        let mut stats = FrameStats::default();
        g.bench_function("bevy-sparse", |b| {
            b.iter(|| frame_bevy_sparse(&mut world, &mut queries, &mut stats));
        });
        black_box(&stats.history);
        g.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// Grouped storages: the move system without lookups.

/// Positions and velocities aligned, frozen entities excluded: the prefix is exactly the
/// entities the move system moves.
type Moving = Group<(PosSoa, VelSoa), (FrozenSoa,)>;

fn grouped_world(layout: &[Has]) -> Moving {
    let SparseSoaWorld { positions, velocities, frozen, .. } = sparse_soa_world(layout);
    Group::with_excluded((positions, velocities), (frozen,))
}

/// The floor: one plain `Vec<f32>` per field, holding only the entities that move.
struct Floor {
    p: [Vec<f32>; 3],
    v: [Vec<f32>; 3],
}

fn floor(layout: &[Has]) -> Floor {
    let mut floor = Floor { p: Default::default(), v: Default::default() };
    for (i, has) in (0..).zip(layout) {
        if has.velocity && !has.frozen {
            for (column, value) in floor.p.iter_mut().zip(pos(i)) {
                column.push(value);
            }
            for (column, value) in floor.v.iter_mut().zip(VEL) {
                column.push(value);
            }
        }
    }
    floor
}

fn grouped_sizes() -> [u32; 2] {
    [100_000, 1_000_000]
}

fn grouped_move(c: &mut Criterion) {
    for size in grouped_sizes() {
        let layout = layout(size);
        let mut g = group(c, "systems_grouped", size, size);

        let mut w = grouped_world(&layout);
        g.bench_function("sparse-soa-group", |b| {
            b.iter(|| {
                w.iter_mut().for_each(|(_, (p, v))| {
                    *p.x += *v.x * DT;
                    *p.y += *v.y * DT;
                    *p.z += *v.z * DT;
                });
            });
        });
        black_box(w.members().0.x());

        let mut w = grouped_world(&layout);
        g.bench_function("sparse-soa-group-columns", |b| {
            b.iter(|| {
                let (p, v) = w.columns_mut();
                let positions = p.x.iter_mut().zip(p.y.iter_mut()).zip(p.z.iter_mut());
                let velocities = v.x.iter().zip(v.y.iter()).zip(v.z.iter());
                for (((px, py), pz), ((vx, vy), vz)) in positions.zip(velocities) {
                    *px += vx * DT;
                    *py += vy * DT;
                    *pz += vz * DT;
                }
            });
        });
        black_box(w.members().0.x());

        let mut f = floor(&layout);
        g.bench_function("vec-floor", |b| {
            b.iter(|| {
                let [px, py, pz] = &mut f.p;
                let [vx, vy, vz] = &f.v;
                move_columns([px, py, pz], [vx, vy, vz]);
            });
        });
        black_box(&f.p);

        let mut world = bevy_world(&layout, (TablePos, TableVel, TableAcc, || TableFrozen));
        let mut state = world.query_filtered::<(&mut TablePos, &TableVel), Without<TableFrozen>>();
        g.bench_function("bevy-table", |b| {
            b.iter(|| {
                state.iter_mut(&mut world).for_each(|(mut p, v)| step(&mut p.0, &v.0));
            });
        });
        g.finish();
    }
}

/// The move system over plain columns: `p += v * DT`, field by field.
fn move_columns([px, py, pz]: [&mut [f32]; 3], [vx, vy, vz]: [&[f32]; 3]) {
    let positions = px.iter_mut().zip(py.iter_mut()).zip(pz.iter_mut());
    let velocities = vx.iter().zip(vy).zip(vz);
    for (((px, py), pz), ((vx, vy), vz)) in positions.zip(velocities) {
        *px += vx * DT;
        *py += vy * DT;
        *pz += vz * DT;
    }
}

/// The thread count of every parallel row: the machine's two cores.
const THREADS: usize = 2;

/// The move system as a user writes it, positions first, in parallel and not, against bevy's
/// sparse-set query in parallel and not: the velocities (half the entities) are smaller, so
/// the parallel form runs sequentially, driven by them.
fn parallel_move_query(g: &mut BenchmarkGroup<'_, WallTime>, layout: &[Has]) {
    let mut w = sparse_soa_world(layout);
    g.bench_function("sparse-soa-move-query", |b| {
        b.iter(|| {
            query((&mut w.positions, &w.velocities)).without(&w.frozen).for_each(|_, (p, v)| {
                *p.x += *v.x * DT;
                *p.y += *v.y * DT;
                *p.z += *v.z * DT;
            });
        });
    });
    black_box(w.positions.x());
    let mut w = sparse_soa_world(layout);
    g.bench_function("sparse-soa-move-query-par", |b| {
        b.iter(|| {
            query((&mut w.positions, &w.velocities)).without(&w.frozen).par_for_each(
                |_, (p, v)| {
                    *p.x += *v.x * DT;
                    *p.y += *v.y * DT;
                    *p.z += *v.z * DT;
                },
            );
        });
    });
    black_box(w.positions.x());

    let mut world = bevy_world(layout, (SparsePos, SparseVel, SparseAcc, || SparseFrozen));
    let mut state = world.query_filtered::<(&mut SparsePos, &SparseVel), Without<SparseFrozen>>();
    g.bench_function("bevy-sparse-par", |b| {
        b.iter(|| {
            state.par_iter_mut(&mut world).for_each(|(mut p, v)| step(&mut p.0, &v.0));
        });
    });
    g.bench_function("bevy-sparse", |b| {
        b.iter(|| {
            state.iter_mut(&mut world).for_each(|(mut p, v)| step(&mut p.0, &v.0));
        });
    });
}

fn parallel_move(c: &mut Criterion) {
    // rayon's global pool (ours and shipyard's) and bevy's compute pool, both of 2 threads.
    rayon::ThreadPoolBuilder::new().num_threads(THREADS).build_global().ok();
    bevy_tasks::ComputeTaskPool::get_or_init(|| {
        bevy_tasks::TaskPoolBuilder::new().num_threads(THREADS).build()
    });
    for size in grouped_sizes() {
        let layout = layout(size);
        let mut g = group(c, "systems_parallel", size, size);

        let mut w = grouped_world(&layout);
        g.bench_function("sparse-soa-group", |b| {
            b.iter(|| {
                w.iter_mut().for_each(|(_, (p, v))| {
                    *p.x += *v.x * DT;
                    *p.y += *v.y * DT;
                    *p.z += *v.z * DT;
                });
            });
        });
        black_box(w.members().0.x());

        let mut w = grouped_world(&layout);
        g.bench_function("sparse-soa-group-par", |b| {
            b.iter(|| {
                w.par_iter_mut().for_each(|(_, (p, v))| {
                    *p.x += *v.x * DT;
                    *p.y += *v.y * DT;
                    *p.z += *v.z * DT;
                });
            });
        });
        black_box(w.members().0.x());

        // The floor of splitting on this machine: the plain columns cut in two halves, one per
        // thread, with no iterator machinery at all.
        let mut f = floor(&layout);
        g.bench_function("vec-floor", |b| {
            b.iter(|| {
                let [px, py, pz] = &mut f.p;
                let [vx, vy, vz] = &f.v;
                move_columns([px, py, pz], [vx, vy, vz]);
            });
        });
        g.bench_function("vec-floor-par", |b| {
            b.iter(|| {
                let [px, py, pz] = &mut f.p;
                let [vx, vy, vz] = &f.v;
                let half = px.len() / 2;
                let (px, px2) = px.split_at_mut(half);
                let (py, py2) = py.split_at_mut(half);
                let (pz, pz2) = pz.split_at_mut(half);
                let (vx, vx2) = vx.split_at(half);
                let (vy, vy2) = vy.split_at(half);
                let (vz, vz2) = vz.split_at(half);
                rayon::join(
                    || move_columns([px, py, pz], [vx, vy, vz]),
                    || move_columns([px2, py2, pz2], [vx2, vy2, vz2]),
                );
            });
        });
        black_box(&f.p);

        parallel_move_query(&mut g, &layout);

        // The driver (the velocities) first: split over two threads.
        let mut w = sparse_soa_world(&layout);
        g.bench_function("sparse-soa-query-par", |b| {
            b.iter(|| {
                query((&mut w.velocities, &w.positions)).without(&w.frozen).par_for_each(
                    |_, (v, p)| {
                        black_box((*v.x + p.x, *v.y + p.y, *v.z + p.z));
                    },
                );
            });
        });

        let mut world = bevy_world(&layout, (TablePos, TableVel, TableAcc, || TableFrozen));
        let mut state = world.query_filtered::<(&mut TablePos, &TableVel), Without<TableFrozen>>();
        g.bench_function("bevy-table-par", |b| {
            b.iter(|| {
                state.par_iter_mut(&mut world).for_each(|(mut p, v)| step(&mut p.0, &v.0));
            });
        });

        let world = shipyard_world(&layout);
        let (mut positions, velocities, frozen) = world
            .borrow::<(ViewMut<ShipPos>, View<ShipVel>, View<ShipFrozen>)>()
            .expect("no other borrow");
        g.bench_function("shipyard-par", |b| {
            use rayon::iter::ParallelIterator;
            b.iter(|| {
                (&mut positions, &velocities, !&frozen)
                    .par_iter()
                    .for_each(|(p, v, ())| step(&mut p.0, &v.0));
            });
        });
        drop((positions, velocities, frozen));
        g.finish();
    }
}

/// Lookups of one entity through a query: "the components of the entity this bullet hit".
/// 10,000 entities drawn at random from the world (half of them with a velocity, a tenth
/// frozen), each looked up in a query of positions and velocities without the frozen ones,
/// against bevy's `QueryState::get` over the same components as sparse sets and in tables.
fn query_get(c: &mut Criterion) {
    const LOOKUPS: u32 = 10_000;
    for size in sizes() {
        let layout = layout(size);
        let mut g = group(c, "query_get", size, LOOKUPS);
        let mut rng = Rng::new(SEED ^ 0x6765_7421);
        let picks: Vec<usize> = (0..LOOKUPS).map(|_| rng.below(size) as usize).collect();

        let w = sparse_soa_world(&layout);
        let all = w.positions.keys();
        let entities: Vec<Entity> = picks.iter().map(|&i| all[i]).collect();
        g.bench_function("sparse-soa", |b| {
            b.iter(|| {
                let q = query((&w.positions, &w.velocities)).without(&w.frozen);
                let mut sum = 0.0;
                for &entity in &entities {
                    if let Some((p, v)) = q.get(entity) {
                        sum += *p.x * *v.x;
                    }
                }
                black_box(sum)
            });
        });

        let sparse = bevy_world(&layout, (SparsePos, SparseVel, SparseAcc, || SparseFrozen));
        bevy_query_get::<_, _, SparseFrozen>(
            &mut g,
            "bevy-sparse",
            sparse,
            &picks,
            |p: &SparsePos, v: &SparseVel| p.0[0] * v.0[0],
        );
        let table = bevy_world(&layout, (TablePos, TableVel, TableAcc, || TableFrozen));
        bevy_query_get::<_, _, TableFrozen>(
            &mut g,
            "bevy-table",
            table,
            &picks,
            |p: &TablePos, v: &TableVel| p.0[0] * v.0[0],
        );
        g.finish();
    }
}

/// bevy's row of `query_get`: `QueryState::get` of `(&P, &V)` without `F` for the entities at
/// `picks` of `world`, each row read by `read` (the product of the first coordinates).
// `read` is a type parameter, not a `fn` pointer: inlined into the loop, as the hand-written
// row was.
fn bevy_query_get<P: Component, V: Component, F: Component>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut world: World,
    picks: &[usize],
    read: impl Fn(&P, &V) -> f32,
) {
    let all: Vec<bevy_ecs::entity::Entity> =
        world.query::<bevy_ecs::entity::Entity>().iter(&world).collect();
    let entities: Vec<_> = picks.iter().map(|&i| all[i]).collect();
    let mut state = world.query_filtered::<(&P, &V), Without<F>>();
    state.update_archetypes(&world);
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for &entity in &entities {
                if let Ok((p, v)) = state.get(&world, entity) {
                    sum += read(p, v);
                }
            }
            black_box(sum)
        });
    });
}

/// A system that computes per entity instead of only streaming memory: steer each velocity
/// toward a unit vector (a square root and a division per entity, a few rounds), then move.
#[inline]
fn steer([px, py, pz]: [&mut f32; 3], [vx, vy, vz]: [&mut f32; 3]) {
    for _ in 0..4 {
        let norm = (*vx * *vx + *vy * *vy + *vz * *vz).sqrt().max(1e-6);
        let scale = 0.9 + 0.1 / norm;
        *vx *= scale;
        *vy *= scale;
        *vz *= scale;
    }
    *px += *vx * DT;
    *py += *vy * DT;
    *pz += *vz * DT;
}

fn parallel_compute(c: &mut Criterion) {
    rayon::ThreadPoolBuilder::new().num_threads(THREADS).build_global().ok();
    for size in grouped_sizes() {
        let layout = layout(size);
        let mut g = group(c, "systems_parallel_compute", size, size);
        let mut w = grouped_world(&layout);
        g.bench_function("sparse-soa-group", |b| {
            b.iter(|| {
                w.iter_mut().for_each(|(_, (p, v))| steer([p.x, p.y, p.z], [v.x, v.y, v.z]));
            });
        });
        black_box(w.members().0.x());
        let mut w = grouped_world(&layout);
        g.bench_function("sparse-soa-group-par", |b| {
            b.iter(|| {
                w.par_iter_mut().for_each(|(_, (p, v))| steer([p.x, p.y, p.z], [v.x, v.y, v.z]));
            });
        });
        black_box(w.members().0.x());
        g.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// Inserting into and removing from a grouped storage.

fn grouped_churn(c: &mut Criterion) {
    for size in grouped_sizes() {
        let layout = layout(size);
        let mut g = group(c, "systems_grouped_churn", size, size);
        let entities: Vec<Entity> = {
            let mut allocator = Entities::new();
            (0..size).map(|_| allocator.spawn()).collect()
        };
        // Deaths come in any order.
        let dying: Vec<Entity> =
            random_permutation(size, SEED).into_iter().map(|i| entities[i as usize]).collect();
        let velocity = |i: u32| {
            let f = i as f32;
            Vel { x: f, y: f, z: f }
        };
        // Every entity has a position, a tenth are frozen; velocities come and go.
        let SparseSoaWorld { positions, frozen, .. } = sparse_soa_world(&layout);
        let empty: Moving = Group::with_excluded((positions, VelSoa::new()), (frozen,));
        let mut full = empty.clone();
        for (i, &entity) in (0..).zip(&entities) {
            full.member_mut::<1>().insert(entity, velocity(i));
        }
        let (_, full_velocities) = full.members();
        let full_velocities = full_velocities.clone();

        g.bench_function("insert-ungrouped", |b| {
            b.iter_batched_ref(
                VelSoa::new,
                |velocities| {
                    for (i, &entity) in (0..).zip(&entities) {
                        velocities.insert(entity, velocity(i));
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("insert-grouped", |b| {
            b.iter_batched_ref(
                || empty.clone(),
                |group| {
                    for (i, &entity) in (0..).zip(&entities) {
                        group.member_mut::<1>().insert(entity, velocity(i));
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("remove-ungrouped", |b| {
            b.iter_batched_ref(
                || full_velocities.clone(),
                |velocities| {
                    for &entity in &dying {
                        black_box(velocities.remove(entity));
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("remove-grouped", |b| {
            b.iter_batched_ref(
                || full.clone(),
                |group| {
                    for &entity in &dying {
                        black_box(group.member_mut::<1>().remove(entity));
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.finish();

        // Steady state: a tenth of the entities (random) lose their velocity and get it back,
        // every iteration; the storages stay as warm as a game's do frame after frame.
        let cycling: Vec<Entity> = dying[..dying.len() / 10].to_vec();
        let ops = 2 * u32::try_from(cycling.len()).expect("fits");
        let mut g = group(c, "systems_grouped_cycle", size, ops);
        let mut velocities = full_velocities.clone();
        g.bench_function("ungrouped", |b| {
            b.iter(|| {
                for &entity in &cycling {
                    black_box(velocities.remove(entity));
                }
                for (i, &entity) in (0..).zip(&cycling) {
                    velocities.insert(entity, velocity(i));
                }
            });
        });
        let mut group = full.clone();
        g.bench_function("grouped", |b| {
            b.iter(|| {
                for &entity in &cycling {
                    black_box(group.member_mut::<1>().remove(entity));
                }
                for (i, &entity) in (0..).zip(&cycling) {
                    group.member_mut::<1>().insert(entity, velocity(i));
                }
            });
        });
        g.finish();
    }
}

criterion::criterion_group!(
    benches,
    move_system,
    accelerate_system,
    move_inline,
    grouped_move,
    parallel_move,
    parallel_compute,
    query_get,
    grouped_churn
);
criterion::criterion_main!(benches);
