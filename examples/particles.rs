//! A small particle simulation on derived struct-of-arrays storages.
//!
//! Particles are `Entity` handles with components in a `World` of derived storages keyed by
//! `Entity`: `Position`, `Velocity`, a remaining lifetime, and a `Spark` tag. Every frame spawns
//! a burst, applies gravity by looping over one velocity column, moves every particle that has a
//! velocity with a query, bounces them off the floor with a query over two mutable storages, and
//! despawns the expired ones with one `despawn` for the whole world. One in eight particles is a
//! static spark (tagged, no velocity), so queries really skip keys.
//!
//! Run with `cargo run --release --example particles`.

#![allow(clippy::cast_precision_loss, reason = "counts and random bits become floats on purpose")]

use std::time::Instant;

use sparse_soa::{Entities, Entity, SparseSoa, World, query};

/// Where a particle is.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
    y: f32,
    z: f32,
}

/// How fast it moves.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Velocity {
    dx: f32,
    dy: f32,
    dz: f32,
}

/// How many frames it has left, and how many it has lived.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity, dense = u16)]
struct Life {
    frames_left: u16,
    age: u16,
}

/// A spark: a particle that does not move.
#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Spark;

/// Every storage of the simulation: `despawn` removes a particle from all of them.
#[derive(Default, World)]
struct Particles {
    entities: Entities,
    positions: PositionSoa,
    velocities: VelocitySoa,
    lives: LifeSoa,
    sparks: SparkSoa,
}

const FRAMES: u32 = 600;
const BURST: u32 = 64;
const DT: f32 = 1.0 / 60.0;
const GRAVITY: f32 = -9.81;

/// A tiny deterministic generator (xorshift), so every run prints the same numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A float in `[low, high)`.
    fn range(&mut self, low: f32, high: f32) -> f32 {
        let unit = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        low + unit * (high - low)
    }
}

#[derive(Default)]
struct Stats {
    spawned: u64,
    despawned: u64,
    moved: u64,
    bounced: u64,
    peak_alive: usize,
}

fn main() {
    let started = Instant::now();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut world = Particles::default();
    let mut stats = Stats::default();
    let mut expired: Vec<Entity> = Vec::new();

    for _ in 0..FRAMES {
        // Spawn a burst: one in eight is a static spark with no velocity.
        for i in 0..BURST {
            let particle = world.entities.spawn();
            world.positions.insert(
                particle,
                Position { x: rng.range(-1.0, 1.0), y: 0.0, z: rng.range(-1.0, 1.0) },
            );
            if i % 8 == 0 {
                world.sparks.insert(particle);
            } else {
                let velocity = Velocity {
                    dx: rng.range(-2.0, 2.0),
                    dy: rng.range(4.0, 9.0),
                    dz: rng.range(-2.0, 2.0),
                };
                world.velocities.insert(particle, velocity);
            }
            let life = Life { frames_left: 60 + (rng.next() % 120) as u16, age: 0 };
            world.lives.insert(particle, life);
            stats.spawned += 1;
        }

        // Gravity: one contiguous column, no lookups.
        for dy in world.velocities.dy_mut() {
            *dy += GRAVITY * DT;
        }

        // Movement: a query over positions and velocities (the smaller storage drives), sparks
        // excluded.
        query((&mut world.positions, &world.velocities)).without(&world.sparks).for_each(
            |_, (position, velocity)| {
                *position.x += velocity.dx * DT;
                *position.y += velocity.dy * DT;
                *position.z += velocity.dz * DT;
                stats.moved += 1;
            },
        );

        // The floor: particles below it bounce, losing energy. Two mutable storages in one
        // query.
        query((&mut world.positions, &mut world.velocities)).for_each(|_, (position, velocity)| {
            if *position.y < 0.0 {
                *position.y = 0.0;
                if *velocity.dy < 0.0 {
                    *velocity.dy *= -0.5;
                    stats.bounced += 1;
                }
            }
        });

        // Ageing: two columns of one storage at once, the keys alongside.
        let columns = world.lives.columns_mut();
        for i in 0..columns.keys.len() {
            columns.frames_left[i] -= 1;
            columns.age[i] += 1;
            if columns.frames_left[i] == 0 {
                expired.push(columns.keys[i]);
            }
        }

        stats.peak_alive = stats.peak_alive.max(world.entities.len());

        // Despawn: one call removes the particle from every storage of the world (a
        // swap-remove in every column) and from the allocator.
        for particle in expired.drain(..) {
            world.despawn(particle);
            stats.despawned += 1;
        }
    }

    let Particles { entities, positions, velocities, lives, sparks } = &world;
    let alive = positions.len();
    let moving = velocities.len();
    let mean_height = positions.y().iter().sum::<f32>() / alive as f32;
    let highest = positions.iter().max_by(|(_, a), (_, b)| a.y.total_cmp(b.y));
    let oldest = lives.age().iter().max().copied().unwrap_or(0);
    let reused = entities.iter().filter(|entity| entity.generation().get() > 1).count();

    println!("particles: {FRAMES} frames of {BURST} spawns each, gravity, bounces, expiry");
    println!(
        "  spawned {} / despawned {} / alive {alive} ({moving} moving, {} static sparks), peak {}",
        stats.spawned,
        stats.despawned,
        alive - moving,
        stats.peak_alive
    );
    println!("  {} position updates through the query, {} bounces", stats.moved, stats.bounced);
    let sparks_alive = query((sparks, lives)).into_iter().count();
    println!("  {sparks_alive} sparks alive, each tagged and without a velocity");
    println!("  entity slots reused with a newer generation: {reused} of {}", entities.len());
    if let Some((particle, position)) = highest {
        println!(
            "  mean height {mean_height:.3}, highest {particle} at y = {:.3}, oldest {oldest} frames",
            position.y
        );
    }
    println!(
        "  storages stay in lockstep: {} keys, {} x, {} dy, {} ages",
        positions.keys().len(),
        positions.x().len(),
        velocities.dy().len(),
        lives.age().len()
    );
    println!("  finished in {:.1} ms", started.elapsed().as_secs_f64() * 1000.0);
}
