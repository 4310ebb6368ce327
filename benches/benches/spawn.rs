//! Spawning and despawning whole entities: `#[derive(World)]`'s rows against `bevy_ecs` (table
//! and sparse-set components), sparsey (with and without a group) and shipyard.
//!
//! Every entity is spawned with three components: a 3-`f32` position, a velocity and an
//! acceleration. `grouped` worlds keep positions and velocities in a group (ours a
//! `Group<(PosSoa, VelSoa)>`, sparsey's `add_group`); bevy's table components are the archetype
//! layout, where every entity of one archetype shares a table.
//!
//! - `spawn_rows`: spawn n entities one by one into an empty world (`spawn`, `create`,
//!   `add_entity`).
//! - `spawn_batch`: the same n entities through each crate's batch form (`spawn_batch`,
//!   `extend`, `bulk_add_entity`); `sparse-soa-maps` stores each component as one value in a
//!   `SparseMap` (one column, as the peers do) instead of one column per field.
//! - `despawn_rows`: despawn all n entities of a full world, in random order.
//! - `respawn_grouped`: steady state on 100,000 live entities with positions and velocities
//!   grouped: each iteration despawns 10,000 random live entities and spawns 10,000 new ones.
//!   Per operation = per despawn or spawn.
//! - `respawn_nested`: the same steady state with positions and velocities grouped and the
//!   accelerations in a nested group inside that group (ours a `Nested` level, sparsey's family
//!   of `(Pos, Vel)` and `(Pos, Vel, Acc)`), against the flat group with accelerations beside it
//!   and one group of all three.
//! - `cycle_nested`: steady state on 100,000 entities with all three components: a random
//!   tenth lose their acceleration and get it back, every iteration: the cost of one change to
//!   the nested level (or to the third member of one wide group, or to an ungrouped storage).
//!   Per operation = per remove or insert.
//! - `respawn_deep`: `respawn_nested`'s steady state with a fourth component, a spin, in a
//!   level inside the accelerations' (ours a `Nested` level inside the `Nested` level,
//!   sparsey's family of `(Pos, Vel)`, `(Pos, Vel, Acc)` and `(Pos, Vel, Acc, Spin)`), against
//!   our two-level family with the spins beside it.
//! - `cycle_deep`: `cycle_nested`'s steady state on the same four components: a random tenth
//!   lose their spin and get it back, a change to the innermost of three levels.
//!
//! Group = workload and size, function = contender; per operation = per entity unless said
//! otherwise. Every world is built outside the measurement (criterion's `iter_batched_ref`), and
//! dropped outside it too. `SPARSE_SOA_BENCH_MODE=quick` shortens every measurement and runs
//! 100,000 entities only; `full` (the default) adds 1,000,000.

#![allow(
    clippy::cast_precision_loss,
    reason = "benchmark values are made from counts; their exact value does not matter"
)]

use bevy_ecs::component::Component;
use sparsey::component::ComponentSet;
use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion};
use sparse_soa::group::Nested;
use sparse_soa::{Entities, Entity, Group, SparseMap, SparseSoa};
use sparse_soa_bench::{Rng, SEED, group, quick, random_permutation, rebuilt_group};

fn sizes() -> Vec<u32> {
    if quick() { vec![100_000] } else { vec![100_000, 1_000_000] }
}

// ---------------------------------------------------------------------------------------------
// The components, as each contender stores them.

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

/// Three ungrouped storages.
#[derive(Default, sparse_soa::World)]
struct Plain {
    entities: Entities,
    positions: PosSoa,
    velocities: VelSoa,
    accelerations: AccSoa,
}

/// Positions and velocities in a group, accelerations beside it.
#[derive(Default, sparse_soa::World)]
struct Grouped {
    entities: Entities,
    motion: Group<(PosSoa, VelSoa)>,
    accelerations: AccSoa,
}

/// Positions and velocities in a group, accelerations in a group nested inside it.
#[derive(Default, sparse_soa::World)]
#[allow(clippy::type_complexity, reason = "the derive reads the parts from the field's type")]
struct NestedWorld {
    entities: Entities,
    motion: Group<(PosSoa, VelSoa), (), Nested<(AccSoa,)>>,
}

/// A spin: the fourth component of the deep family.
#[derive(SparseSoa, Clone, Copy)]
#[sparse_soa(key = Entity)]
struct Spin {
    w: f32,
}

/// Positions and velocities in a group, accelerations nested inside it, spins nested inside
/// the accelerations' level.
#[derive(Default, sparse_soa::World)]
#[allow(clippy::type_complexity, reason = "the derive reads the parts from the field's type")]
struct DeepWorld {
    entities: Entities,
    motion: Group<(PosSoa, VelSoa), (), Nested<(AccSoa,), (), Nested<(SpinSoa,)>>>,
}

/// The two-level family with the spins beside it.
#[derive(Default, sparse_soa::World)]
#[allow(clippy::type_complexity, reason = "the derive reads the parts from the field's type")]
struct NestedSpinWorld {
    entities: Entities,
    motion: Group<(PosSoa, VelSoa), (), Nested<(AccSoa,)>>,
    spins: SpinSoa,
}

/// Entity `i`'s row of four components for our worlds.
#[inline]
fn spin_row(i: u32) -> (Pos, Vel, Acc, Spin) {
    let (p, v, a) = row(i);
    (p, v, a, Spin { w: i as f32 })
}

/// All three in one group.
#[derive(Default, sparse_soa::World)]
struct Wide {
    entities: Entities,
    motion: Group<(PosSoa, VelSoa, AccSoa)>,
}

/// The same components as one-column values, each in a `SparseMap` (an array of structs, as
/// sparsey, shipyard and bevy's sparse sets store them): what a row costs without the
/// structure-of-arrays split.
struct MapPos(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);
struct MapVel(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);
struct MapAcc(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);

/// Three ungrouped maps.
#[derive(Default, sparse_soa::World)]
struct Maps {
    entities: Entities,
    positions: SparseMap<Entity, MapPos>,
    velocities: SparseMap<Entity, MapVel>,
    accelerations: SparseMap<Entity, MapAcc>,
}

#[inline]
fn map_row(i: u32) -> (MapPos, MapVel, MapAcc) {
    (MapPos(pos(i)), MapVel(VEL), MapAcc(ACC))
}

fn pos(i: u32) -> [f32; 3] {
    let f = i as f32;
    [f, f * 0.5, -f]
}

const VEL: [f32; 3] = [1.0, 2.0, 3.0];
const ACC: [f32; 3] = [0.0, -9.8, 0.0];

/// Entity `i`'s row for our worlds.
#[inline]
fn row(i: u32) -> (Pos, Vel, Acc) {
    let ([x, y, z], [vx, vy, vz], [ax, ay, az]) = (pos(i), VEL, ACC);
    (Pos { x, y, z }, Vel { x: vx, y: vy, z: vz }, Acc { x: ax, y: ay, z: az })
}

/// bevy table components.
#[derive(Component)]
struct TablePos(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);
#[derive(Component)]
struct TableVel(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);
#[derive(Component)]
struct TableAcc(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);

#[inline]
fn table_row(i: u32) -> (TablePos, TableVel, TableAcc) {
    (TablePos(pos(i)), TableVel(VEL), TableAcc(ACC))
}

/// bevy sparse-set components.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparsePos(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseVel(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseAcc(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);

/// sparsey components (any `Send + Sync + 'static` type is one).
struct SparseyPos(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);
struct SparseyVel(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);
struct SparseyAcc(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);

#[inline]
fn sparsey_row(i: u32) -> (SparseyPos, SparseyVel, SparseyAcc) {
    (SparseyPos(pos(i)), SparseyVel(VEL), SparseyAcc(ACC))
}

/// An empty sparsey world with the three components registered.
fn sparsey_world() -> sparsey::World {
    sparsey::World::builder()
        .register::<SparseyPos>()
        .register::<SparseyVel>()
        .register::<SparseyAcc>()
        .build()
}

/// An empty sparsey world with positions and velocities grouped.
fn sparsey_grouped_world() -> sparsey::World {
    sparsey::World::builder()
        .add_group::<(SparseyPos, SparseyVel)>()
        .register::<SparseyAcc>()
        .build()
}

/// An empty sparsey world with a family of two groups: positions and velocities, and the
/// same with accelerations.
fn sparsey_nested_world() -> sparsey::World {
    sparsey::World::builder()
        .add_group::<(SparseyPos, SparseyVel)>()
        .add_group::<(SparseyPos, SparseyVel, SparseyAcc)>()
        .build()
}

/// sparsey's fourth component.
struct SparseySpin(#[expect(dead_code, reason = "stored, never read")] f32);

#[inline]
fn sparsey_spin_row(i: u32) -> (SparseyPos, SparseyVel, SparseyAcc, SparseySpin) {
    let (p, v, a) = sparsey_row(i);
    (p, v, a, SparseySpin(i as f32))
}

/// An empty sparsey world with a family of three groups: positions and velocities, with
/// accelerations, with accelerations and spins.
fn sparsey_deep_world() -> sparsey::World {
    sparsey::World::builder()
        .add_group::<(SparseyPos, SparseyVel)>()
        .add_group::<(SparseyPos, SparseyVel, SparseyAcc)>()
        .add_group::<(SparseyPos, SparseyVel, SparseyAcc, SparseySpin)>()
        .build()
}

/// shipyard components.
struct ShipPos(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);
struct ShipVel(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);
struct ShipAcc(#[expect(dead_code, reason = "stored, never read")] [f32; 3]);

impl shipyard::Component for ShipPos {
    type Tracking = shipyard::track::Untracked;
}
impl shipyard::Component for ShipVel {
    type Tracking = shipyard::track::Untracked;
}
impl shipyard::Component for ShipAcc {
    type Tracking = shipyard::track::Untracked;
}

#[inline]
fn shipyard_row(i: u32) -> (ShipPos, ShipVel, ShipAcc) {
    (ShipPos(pos(i)), ShipVel(VEL), ShipAcc(ACC))
}

// ---------------------------------------------------------------------------------------------
// Spawning one by one.

fn spawn_rows(c: &mut Criterion) {
    for size in sizes() {
        let mut g = rebuilt_group(c, "spawn_rows", size, size);
        g.bench_function("sparse-soa", |b| {
            b.iter_batched_ref(
                Plain::default,
                |world| {
                    for i in 0..size {
                        world.spawn(row(i));
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("sparse-soa-grouped", |b| {
            b.iter_batched_ref(
                Grouped::default,
                |world| {
                    for i in 0..size {
                        world.spawn(row(i));
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("bevy-table", |b| {
            b.iter_batched_ref(
                bevy_ecs::world::World::new,
                |world| {
                    for i in 0..size {
                        world.spawn(table_row(i));
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("bevy-sparse", |b| {
            b.iter_batched_ref(
                bevy_ecs::world::World::new,
                |world| {
                    for i in 0..size {
                        world.spawn((SparsePos(pos(i)), SparseVel(VEL), SparseAcc(ACC)));
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("sparsey", |b| {
            b.iter_batched_ref(
                sparsey_world,
                |world| {
                    for i in 0..size {
                        world.create(sparsey_row(i));
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("shipyard", |b| {
            b.iter_batched_ref(
                shipyard::World::new,
                |world| {
                    for i in 0..size {
                        world.add_entity(shipyard_row(i));
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// Spawning in one batch.

fn spawn_batch(c: &mut Criterion) {
    for size in sizes() {
        let mut g = rebuilt_group(c, "spawn_batch", size, size);
        g.bench_function("sparse-soa", |b| {
            b.iter_batched_ref(
                Plain::default,
                |world| {
                    world.spawn_batch((0..size).map(row));
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("sparse-soa-grouped", |b| {
            b.iter_batched_ref(
                Grouped::default,
                |world| {
                    world.spawn_batch((0..size).map(row));
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("sparse-soa-maps", |b| {
            b.iter_batched_ref(
                Maps::default,
                |world| {
                    world.spawn_batch((0..size).map(map_row));
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("bevy-table", |b| {
            b.iter_batched_ref(
                bevy_ecs::world::World::new,
                |world| {
                    world.spawn_batch((0..size).map(table_row));
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("sparsey", |b| {
            b.iter_batched_ref(
                sparsey_world,
                |world| {
                    world.extend((0..size).map(sparsey_row));
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("sparsey-grouped", |b| {
            b.iter_batched_ref(
                sparsey_grouped_world,
                |world| {
                    world.extend((0..size).map(sparsey_row));
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("shipyard", |b| {
            b.iter_batched_ref(
                shipyard::World::new,
                |world| {
                    world.bulk_add_entity((0..size).map(shipyard_row));
                },
                BatchSize::LargeInput,
            );
        });
        g.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// Despawning everything.

/// `entities` in the order of `order`.
fn permuted<E: Copy>(entities: &[E], order: &[u32]) -> Vec<E> {
    order.iter().map(|&i| entities[i as usize]).collect()
}

fn despawn_rows(c: &mut Criterion) {
    for size in sizes() {
        let order = random_permutation(size, SEED);
        let mut g = rebuilt_group(c, "despawn_rows", size, size);
        g.bench_function("sparse-soa", |b| {
            b.iter_batched_ref(
                || {
                    let mut world = Plain::default();
                    let entities: Vec<Entity> = world.spawn_batch((0..size).map(row)).collect();
                    let dying = permuted(&entities, &order);
                    (world, dying)
                },
                |(world, dying)| {
                    for &entity in &*dying {
                        world.despawn(entity);
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("sparse-soa-grouped", |b| {
            b.iter_batched_ref(
                || {
                    let mut world = Grouped::default();
                    let entities: Vec<Entity> = world.spawn_batch((0..size).map(row)).collect();
                    let dying = permuted(&entities, &order);
                    (world, dying)
                },
                |(world, dying)| {
                    for &entity in &*dying {
                        world.despawn(entity);
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("bevy-table", |b| {
            b.iter_batched_ref(
                || {
                    let mut world = bevy_ecs::world::World::new();
                    let entities: Vec<bevy_ecs::entity::Entity> =
                        world.spawn_batch((0..size).map(table_row)).collect();
                    let dying = permuted(&entities, &order);
                    (world, dying)
                },
                |(world, dying)| {
                    for &entity in &*dying {
                        world.despawn(entity);
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("sparsey", |b| {
            b.iter_batched_ref(
                || {
                    let mut world = sparsey_world();
                    let dying = permuted(world.extend((0..size).map(sparsey_row)), &order);
                    (world, dying)
                },
                |(world, dying)| {
                    for &entity in &*dying {
                        world.destroy(entity);
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.bench_function("shipyard", |b| {
            b.iter_batched_ref(
                || {
                    let mut world = shipyard::World::new();
                    let entities: Vec<shipyard::EntityId> =
                        world.bulk_add_entity((0..size).map(shipyard_row)).collect();
                    let dying = permuted(&entities, &order);
                    (world, dying)
                },
                |(world, dying)| {
                    for &entity in &*dying {
                        world.delete_entity(entity);
                    }
                },
                BatchSize::LargeInput,
            );
        });
        g.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// Steady state: despawn and respawn a tenth of a grouped world.

/// The live entities of the steady state.
const LIVE: u32 = 100_000;
/// The entities despawned, and spawned, per iteration.
const CHURN: u32 = 10_000;

/// One iteration: despawn `CHURN` random live entities, then spawn `CHURN` new ones. `live`
/// lists the live handles; `despawn` and `spawn` are the contender's.
#[inline]
fn respawn<W, H: Copy>(
    world: &mut W,
    rng: &mut Rng,
    live: &mut Vec<H>,
    mut despawn: impl FnMut(&mut W, H),
    mut spawn: impl FnMut(&mut W, u32) -> H,
) {
    for _ in 0..CHURN {
        let index = rng.below(u32::try_from(live.len()).expect("small")) as usize;
        despawn(world, live.swap_remove(index));
    }
    for i in 0..CHURN {
        live.push(spawn(world, i));
    }
}

/// Row `name` of `g`: the steady state of `respawn` on `world`, whose `live` handles were
/// spawned beforehand, with the contender's `despawn` and `spawn`.
fn bench_respawn<W, H: Copy>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut world: W,
    mut live: Vec<H>,
    mut despawn: impl FnMut(&mut W, H),
    mut spawn: impl FnMut(&mut W, u32) -> H,
) {
    let mut rng = Rng::new(SEED);
    g.bench_function(name, |b| {
        b.iter(|| respawn(&mut world, &mut rng, &mut live, &mut despawn, &mut spawn));
    });
}

/// The steady state of `respawn_grouped` for one of our worlds (`$world`, a
/// `#[derive(World)]` of the three components): its rows spawned and despawned by the world.
macro_rules! respawn_ours {
    ($g:expr, $world:ty, $name:expr) => {
        respawn_ours!($g, $world, $name, row)
    };
    ($g:expr, $world:ty, $name:expr, $row:expr) => {{
        let mut world = <$world>::default();
        let live: Vec<Entity> = world.spawn_batch((0..LIVE).map($row)).collect();
        bench_respawn(
            &mut $g,
            $name,
            world,
            live,
            |world, entity| {
                world.despawn(entity);
            },
            |world, i| world.spawn($row(i)),
        );
    }};
}

/// The steady state of `respawn_grouped` for a sparsey `world` (grouped or a family): its rows
/// created and destroyed by the world.
fn respawn_sparsey<R: ComponentSet>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut world: sparsey::World,
    row: fn(u32) -> R,
) {
    let live: Vec<sparsey::Entity> = world.extend((0..LIVE).map(row)).to_vec();
    bench_respawn(
        g,
        name,
        world,
        live,
        |world, entity| {
            world.destroy(entity);
        },
        |world, i| world.create(row(i)),
    );
}

fn respawn_grouped(c: &mut Criterion) {
    let mut g = group(c, "respawn_grouped", LIVE, 2 * CHURN);
    respawn_ours!(g, Grouped, "sparse-soa-grouped");

    let mut world = bevy_ecs::world::World::new();
    let live: Vec<bevy_ecs::entity::Entity> = world.spawn_batch((0..LIVE).map(table_row)).collect();
    bench_respawn(
        &mut g,
        "bevy-table",
        world,
        live,
        |world, entity| {
            world.despawn(entity);
        },
        |world, i| world.spawn(table_row(i)).id(),
    );

    respawn_sparsey(&mut g, "sparsey-grouped", sparsey_grouped_world(), sparsey_row);
    g.finish();
}

fn respawn_nested(c: &mut Criterion) {
    let mut g = group(c, "respawn_nested", LIVE, 2 * CHURN);
    respawn_ours!(g, Grouped, "sparse-soa-flat");
    respawn_ours!(g, NestedWorld, "sparse-soa-nested");
    respawn_ours!(g, Wide, "sparse-soa-wide");
    respawn_sparsey(&mut g, "sparsey-grouped", sparsey_grouped_world(), sparsey_row);
    respawn_sparsey(&mut g, "sparsey-nested", sparsey_nested_world(), sparsey_row);
    g.finish();
}

/// Row `name` of a `cycle_*` group: every iteration takes one component from each of the
/// `chosen` entities of `world`, then puts it back (`remove`, then `insert` with the entity's
/// place in the list).
fn bench_cycle<W, H: Copy, T, U>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut world: W,
    chosen: &[H],
    mut remove: impl FnMut(&mut W, H) -> T,
    mut insert: impl FnMut(&mut W, H, u32) -> U,
) {
    g.bench_function(name, |b| {
        b.iter(|| {
            for &handle in chosen {
                black_box(remove(&mut world, handle));
            }
            for (i, &handle) in (0..).zip(chosen) {
                // What an insert returns is dropped, as the loops by hand did.
                let _replaced = insert(&mut world, handle, i);
            }
        });
    });
}

/// One of our worlds (`$world`, a `#[derive(World)]`) with `LIVE` rows made by `$row`, and its
/// entities at the positions `$cycling` lists.
macro_rules! ours {
    ($world:ty, $cycling:expr, $row:expr) => {{
        let mut world = <$world>::default();
        let entities: Vec<Entity> = world.spawn_batch((0..LIVE).map($row)).collect();
        let chosen: Vec<Entity> = $cycling.iter().map(|&i| entities[i as usize]).collect();
        (world, chosen)
    }};
}

/// A sparsey `world` with `LIVE` rows made by `row`, and its entities at the positions
/// `cycling` lists.
fn sparsey_with<R: ComponentSet>(
    mut world: sparsey::World,
    cycling: &[u32],
    row: fn(u32) -> R,
) -> (sparsey::World, Vec<sparsey::Entity>) {
    let entities = world.extend((0..LIVE).map(row)).to_vec();
    let chosen = cycling.iter().map(|&i| entities[i as usize]).collect();
    (world, chosen)
}

fn cycle_nested(c: &mut Criterion) {
    let cycling: Vec<u32> = random_permutation(LIVE, SEED)[..CHURN as usize].to_vec();
    let mut g = group(c, "cycle_nested", LIVE, 2 * CHURN);
    let acc = |i: u32| Acc { x: 0.0, y: -9.8, z: i as f32 };

    let (world, chosen) = ours!(Grouped, cycling, row);
    bench_cycle(
        &mut g,
        "sparse-soa-ungrouped",
        world,
        &chosen,
        |w, e| w.accelerations.remove(e),
        |w, e, i| w.accelerations.insert(e, acc(i)),
    );
    let (world, chosen) = ours!(NestedWorld, cycling, row);
    bench_cycle(
        &mut g,
        "sparse-soa-nested",
        world,
        &chosen,
        |w, e| w.motion.nested_member_mut::<0>().remove(e),
        |w, e, i| w.motion.nested_member_mut::<0>().insert(e, acc(i)),
    );
    let (world, chosen) = ours!(Wide, cycling, row);
    bench_cycle(
        &mut g,
        "sparse-soa-wide",
        world,
        &chosen,
        |w, e| w.motion.member_mut::<2>().remove(e),
        |w, e, i| w.motion.member_mut::<2>().insert(e, acc(i)),
    );
    let (world, chosen) = sparsey_with(sparsey_nested_world(), &cycling, sparsey_row);
    bench_cycle(
        &mut g,
        "sparsey-nested",
        world,
        &chosen,
        sparsey::World::remove::<(SparseyAcc,)>,
        |w, e, _| w.insert(e, (SparseyAcc(ACC),)),
    );
    g.finish();
}

fn respawn_deep(c: &mut Criterion) {
    let mut g = group(c, "respawn_deep", LIVE, 2 * CHURN);
    respawn_ours!(g, NestedSpinWorld, "sparse-soa-nested-beside", spin_row);
    respawn_ours!(g, DeepWorld, "sparse-soa-deep", spin_row);
    respawn_sparsey(&mut g, "sparsey-deep", sparsey_deep_world(), sparsey_spin_row);
    g.finish();
}

fn cycle_deep(c: &mut Criterion) {
    let cycling: Vec<u32> = random_permutation(LIVE, SEED)[..CHURN as usize].to_vec();
    let mut g = group(c, "cycle_deep", LIVE, 2 * CHURN);
    let spin = |i: u32| Spin { w: i as f32 };

    let (world, chosen) = ours!(NestedSpinWorld, cycling, spin_row);
    bench_cycle(
        &mut g,
        "sparse-soa-ungrouped",
        world,
        &chosen,
        |w, e| w.spins.remove(e),
        |w, e, i| w.spins.insert(e, spin(i)),
    );
    let (world, chosen) = ours!(DeepWorld, cycling, spin_row);
    bench_cycle(
        &mut g,
        "sparse-soa-deep",
        world,
        &chosen,
        |w, e| w.motion.level_member_mut::<2, 0>().remove(e),
        |w, e, i| w.motion.level_member_mut::<2, 0>().insert(e, spin(i)),
    );
    let (world, chosen) = sparsey_with(sparsey_deep_world(), &cycling, sparsey_spin_row);
    bench_cycle(
        &mut g,
        "sparsey-deep",
        world,
        &chosen,
        sparsey::World::remove::<(SparseySpin,)>,
        |w, e, i| w.insert(e, (SparseySpin(i as f32),)),
    );
    g.finish();
}

criterion::criterion_group!(
    benches,
    spawn_rows,
    spawn_batch,
    despawn_rows,
    respawn_grouped,
    respawn_nested,
    cycle_nested,
    respawn_deep,
    cycle_deep
);
criterion::criterion_main!(benches);
