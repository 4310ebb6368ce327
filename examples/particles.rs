//! A small particle simulation on derived struct-of-arrays storages.
//!
//! Particles are `Entity` handles with components in a `World` of derived storages keyed by
//! `Entity`: `Position`, `Velocity`, a remaining lifetime, and a `Spark` tag. Positions and
//! velocities live in a `Group`, which keeps the particles that have both at the front of both
//! storages in one order, so the hot loops (movement, the floor) walk plain slices side by side
//! with no lookup. Every frame spawns a burst, applies gravity by looping over one velocity
//! column, moves and bounces every particle in the group, ages them with a query over the
//! lifetimes and the sparks, and despawns the expired ones with one `despawn` for the whole world
//! (which keeps the group aligned). One in eight particles is a static spark (tagged, no
//! velocity), outside the group's aligned prefix.
//!
//! Run with `cargo run --release --example particles`.

#![allow(clippy::cast_precision_loss, reason = "counts and random bits become floats on purpose")]

use std::time::Instant;

use sparse_soa::{Entities, Entity, Group, SparseSoa, World, query};

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

/// Every storage of the simulation: `despawn` removes a particle from all of them. `motion`
/// owns the positions and the velocities and keeps them aligned.
#[derive(Default, World)]
struct Particles {
    entities: Entities,
    motion: Group<(PositionSoa, VelocitySoa)>,
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
            world.motion.member_mut::<0>().insert(
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
                // Now it has both: it joins the group's aligned prefix.
                world.motion.member_mut::<1>().insert(particle, velocity);
            }
            let life = Life { frames_left: 60 + (rng.next() % 120) as u16, age: 0 };
            world.lives.insert(particle, life);
            stats.spawned += 1;
        }

        // Gravity: one contiguous column, no lookups.
        for dy in world.motion.member_mut::<1>().columns_mut().dy {
            *dy += GRAVITY * DT;
        }

        // Movement and the floor: the group's aligned prefix, every particle with a position
        // and a velocity, walked as plain slices side by side. Particles below the floor bounce,
        // losing energy.
        for (_, (position, velocity)) in world.motion.iter_mut() {
            *position.x += *velocity.dx * DT;
            *position.y += *velocity.dy * DT;
            *position.z += *velocity.dz * DT;
            stats.moved += 1;
            if *position.y < 0.0 {
                *position.y = 0.0;
                if *velocity.dy < 0.0 {
                    *velocity.dy *= -0.5;
                    stats.bounced += 1;
                }
            }
        }

        // Ageing: a query over the lifetimes (mutable) and, optionally, the spark tag. Sparks
        // burn out twice as fast.
        query((&mut world.lives, sparse_soa::query::optional(&world.sparks))).for_each(
            |particle, (life, spark)| {
                let burn = if spark.is_some() { 2 } else { 1 };
                *life.frames_left = life.frames_left.saturating_sub(burn);
                *life.age += 1;
                if *life.frames_left == 0 {
                    expired.push(particle);
                }
            },
        );

        stats.peak_alive = stats.peak_alive.max(world.entities.len());

        // Despawn: one call removes the particle from every storage of the world (a
        // swap-remove in every column) and from the allocator.
        for particle in expired.drain(..) {
            world.despawn(particle);
            stats.despawned += 1;
        }
    }

    let Particles { entities, motion, lives, sparks } = &world;
    let (positions, velocities) = motion.members();
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
    println!(
        "  {} position updates over the group's aligned slices, {} bounces; {} aligned now",
        stats.moved,
        stats.bounced,
        motion.len()
    );
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
