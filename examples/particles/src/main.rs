//! A particle fountain on sparse-soa: the flagship demo.
//!
//! Every particle is a generational [`Entity`] with components in derived struct-of-arrays
//! storages: a [`Position`], a [`Velocity`] (sparks hang in the air without one), a [`Life`]
//! and a [`Colour`]. Each is spawned as one row, `world.spawn((position, velocity, life,
//! colour))`. Positions and velocities live in a [`Group`], which keeps the particles that have
//! both at the front of both storages, in one order: the motion system walks plain slices side
//! by side, with no lookup. Lives and colours are a second group, walked once a frame to colour,
//! twinkle and age every particle; one `despawn` removes an expired particle from all of them.
//! Thousands spawn and expire every frame. The storages are bounded to the particle budget, so
//! the frame loop allocates nothing (`--batch` spawns each frame's particles with
//! `spawn_batch` instead, whose buffers allocate); with the `rayon` feature the motion and
//! colour systems run on every core.
//!
//! The same frame loop then runs on a plain `Vec` of structs, the baseline, which must end in
//! exactly the same state; the demo prints both throughputs, a density map of the final state,
//! the cost of a spawn in a world of 10,000 particles whose storages stay in the cache (the
//! same code waiting for no memory), and, with `--svg FILE`, a picture: the particles coloured
//! by their `Colour` beside the frame times of both runs.
//!
//! ```sh
//! cargo run --release -p particles
//! cargo run --release -p particles -- --help
//! cargo run --release -p particles --features rayon -- --threads 2 --svg particles.svg
//! ```

#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "counts, random bits and colours become floats and back on purpose"
)]

mod baseline;
mod cli;
mod figure;
mod picture;
mod progress;
mod sim;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

use sparse_soa::{Entities, Entity, Group, SparseSoa, World, query};
use sparse_soa_test_support::{CountingAlloc, allocations_during};

use crate::cli::{Command, Options};
use crate::progress::Progress;
use crate::sim::{Dot, Palette, Report, Rng, Spawn};

// Counts the frame loop's allocations (the workspace's test allocator: it forwards to the
// system allocator and counts per thread).
#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Where a particle is.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
    y: f32,
}

/// How fast it moves. Sparks have none.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Velocity {
    dx: f32,
    dy: f32,
}

/// How many frames it has left, of how many, and how many each frame costs.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Life {
    frames_left: u16,
    lifetime: u16,
    burn: u16,
}

/// Its palette, the colour it shows now, and whether it twinkles (a spark: it does not move,
/// burns out twice as fast, and flashes now and then).
///
/// Twinkling is a column the colour pass reads, not a tag: a system filtered by a tag looks
/// every tagged entity up in the storages it reads, a random access each, where a column
/// beside the colour is read in the same sequential pass.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Colour {
    palette: u8,
    rgb: [u8; 3],
    twinkles: bool,
}

/// Every storage of the simulation. `despawn` (from `World`) removes a particle from all of
/// them and keeps both groups aligned.
#[derive(World)]
struct Particles {
    entities: Entities,
    /// Positions and velocities, aligned: the moving particles first, in one order.
    motion: Group<(PositionSoa, VelocitySoa)>,
    /// Lives and colours, aligned: every particle has both, so the whole of both.
    glow: Group<(LifeSoa, ColourSoa)>,
}

impl Particles {
    /// A world for at most `budget` particles alive at once: every storage is bounded (its
    /// memory allocated here, once), so `spawn` and `despawn` never allocate (`--batch`'s
    /// `spawn_batch` allocates buffers of its own).
    fn bounded(budget: usize) -> Self {
        Particles {
            entities: Entities::with_capacity(budget),
            motion: Group::new((
                PositionSoa::bounded(budget, budget),
                VelocitySoa::bounded(budget, budget),
            )),
            glow: Group::new((
                LifeSoa::bounded(budget, budget),
                ColourSoa::bounded(budget, budget),
            )),
        }
    }

    /// Spawns one particle: its whole row in one call. A moving particle's row completes both
    /// groups, so it is written straight to the end of each aligned prefix.
    fn spawn_particle(&mut self, spawn: &Spawn, palette: &Palette) -> Entity {
        match Self::row(spawn, palette) {
            (position, Some(velocity), life, colour) => {
                self.spawn((position, velocity, life, colour))
            }
            (position, None, life, colour) => self.spawn((position, life, colour)),
        }
    }

    /// The components of a particle: a spark has no velocity.
    fn row(spawn: &Spawn, palette: &Palette) -> (Position, Option<Velocity>, Life, Colour) {
        let position = Position { x: spawn.x, y: spawn.y };
        let life =
            Life { frames_left: spawn.frames_left, lifetime: spawn.lifetime, burn: spawn.burn };
        let rgb = palette.colour(spawn.palette, spawn.frames_left, spawn.lifetime);
        let colour = Colour { palette: spawn.palette, rgb, twinkles: spawn.velocity.is_none() };
        let velocity = spawn.velocity.map(|(dx, dy)| Velocity { dx, dy });
        (position, velocity, life, colour)
    }

    /// Spawns the particles of `rows` in two batches (`--batch`), the moving particles', then
    /// the sparks', and empties `rows`. Each batch stores its rows a run at a time, every
    /// storage filling its columns in one pass and each group finished once per run. The
    /// batches allocate their own buffers.
    fn spawn_batches(&mut self, rows: &mut Rows) {
        self.spawn_batch(rows.moving.drain(..));
        self.spawn_batch(rows.sparks.drain(..));
    }

    /// One frame's systems after the spawns: motion, then colour, twinkle and ageing in one
    /// pass. The expired particles are pushed to `expired`.
    fn update(&mut self, frame: u32, palette: &Palette, parallel: bool, expired: &mut Vec<Entity>) {
        let wind = sim::wind(frame);

        // Motion: the motion group's aligned prefix (every particle with a position and a
        // velocity), walked as plain slices side by side: no lookups.
        let motion = |(_, (position, velocity)): (Entity, (PositionMut<'_>, VelocityMut<'_>))| {
            sim::physics_without_branches(position.x, position.y, velocity.dx, velocity.dy, wind);
        };
        // Colour and twinkle: the glow group, lives and colours side by side.
        let paint = |life: &LifeMut<'_>, colour: &mut ColourMut<'_>| {
            *colour.rgb = palette.colour(*colour.palette, *life.frames_left, *life.lifetime);
            if *colour.twinkles {
                sim::twinkle(colour.rgb, *life.frames_left);
            }
        };
        if parallel {
            #[cfg(feature = "rayon")]
            {
                self.motion.par_iter_mut().for_each(motion);
                self.glow
                    .par_iter_mut()
                    .for_each(|(_, (life, mut colour))| paint(&life, &mut colour));
            }
            // Ageing collects the expired, in order: a sequential pass.
            for (particle, (life, _)) in self.glow.iter_mut() {
                if sim::age(life.frames_left, *life.burn) {
                    expired.push(particle);
                }
            }
        } else {
            self.motion.iter_mut().for_each(motion);
            // Colour, twinkle and ageing in one pass over the glow group.
            for (particle, (life, mut colour)) in self.glow.iter_mut() {
                paint(&life, &mut colour);
                if sim::age(life.frames_left, *life.burn) {
                    expired.push(particle);
                }
            }
        }
    }

    /// The final state, for the pictures and the comparison with the baseline.
    fn dots(&self) -> Vec<Dot> {
        let (positions, _) = self.motion.members();
        let (_, colours) = self.glow.members();
        query((positions, colours))
            .into_iter()
            .map(|(_, (position, colour))| Dot { x: *position.x, y: *position.y, rgb: *colour.rgb })
            .collect()
    }
}

/// The rows of a frame's spawns, made before the batches store them (`--batch`): reused from
/// frame to frame.
struct Rows {
    moving: Vec<(Position, Velocity, Life, Colour)>,
    sparks: Vec<(Position, Life, Colour)>,
}

impl Rows {
    fn with_capacity(capacity: usize) -> Self {
        Rows { moving: Vec::with_capacity(capacity), sparks: Vec::with_capacity(capacity) }
    }

    fn len(&self) -> usize {
        self.moving.len() + self.sparks.len()
    }

    fn push(&mut self, spawn: &Spawn, palette: &Palette) {
        match Particles::row(spawn, palette) {
            (position, Some(velocity), life, colour) => {
                self.moving.push((position, velocity, life, colour));
            }
            (position, None, life, colour) => self.sparks.push((position, life, colour)),
        }
    }
}

/// A stopwatch with laps.
struct Clock(Instant);

impl Clock {
    fn start() -> Self {
        Clock(Instant::now())
    }

    /// Seconds since the start or the last lap.
    fn lap(&mut self) -> f64 {
        let now = Instant::now();
        let seconds = (now - self.0).as_secs_f64();
        self.0 = now;
        seconds
    }
}

/// The simulation on sparse-soa's storages, with a line on the world at its end.
fn run_world(options: &Options, progress: &mut Progress) -> Report {
    let (report, world) = simulate(options, progress);
    let (positions, velocities) = world.motion.members();
    println!(
        "sparse-soa world: {} alive ({} moving in the group's aligned prefix, {} sparks)",
        thousands(positions.len() as u64),
        thousands(world.motion.len() as u64),
        thousands((positions.len() - world.motion.len()) as u64),
    );
    debug_assert_eq!(world.motion.len(), velocities.len());
    report
}

/// Particles in the world that measures what a spawn costs with its memory in the cache.
const IN_CACHE: u32 = 10_000;

/// The same frame loop on [`IN_CACHE`] particles, whose storages stay in the cache: what a
/// spawn costs in instructions, against which the full run's spawns show their wait for memory.
fn run_in_cache(options: &Options) -> Report {
    let small = Options { count: IN_CACHE, svg: None, quiet: true, ..options.clone() };
    simulate(&small, &mut Progress::new("in cache", small.frames, true)).0
}

/// The simulation on sparse-soa's storages: the report and the world at its end.
fn simulate(options: &Options, progress: &mut Progress) -> (Report, Particles) {
    let budget = options.budget();
    let mut rng = Rng::new(options.seed);
    let palette = Palette::new();
    let mut world = Particles::bounded(budget);
    for _ in 0..options.count {
        world.spawn_particle(&Spawn::scattered(&mut rng, options.lifetime), &palette);
    }
    let mut expired = Vec::with_capacity(budget);
    // `--batch`: a frame's rows, allocated here once.
    let mut rows =
        Rows::with_capacity(if options.batch { options.per_frame() as usize } else { 0 });

    let mut report = Report::new(world.entities.len());
    for frame in 0..options.frames {
        let before = world.entities.len();
        let ((phases, alive), allocations) = allocations_during(|| {
            let mut clock = Clock::start();
            for _ in 0..options.per_frame() {
                if world.entities.len() + rows.len() == budget {
                    break;
                }
                let spawn = Spawn::fountain(&mut rng, options.lifetime);
                if options.batch {
                    rows.push(&spawn, &palette);
                } else {
                    world.spawn_particle(&spawn, &palette);
                }
            }
            if options.batch {
                world.spawn_batches(&mut rows);
            }
            let spawned = clock.lap();
            let alive = world.entities.len();
            world.update(frame, &palette, options.threads > 1, &mut expired);
            let updated = clock.lap();
            // Despawn: one call per particle removes it from every storage (a swap-remove in
            // each, keeping both groups aligned) and from the allocator.
            for particle in expired.drain(..) {
                world.despawn(particle);
            }
            ([spawned, updated, clock.lap()], alive)
        });
        report.record(alive, phases, allocations, alive - before, alive - world.entities.len());
        progress.frame(frame, world.entities.len());
    }
    report.dots = world.dots();
    (report, world)
}

fn main() -> ExitCode {
    let options = match cli::parse(std::env::args_os().skip(1)) {
        Ok(Command::Run(options)) => options,
        Ok(Command::Help) => {
            print!("{}", cli::help());
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!(
                "error: {message}\n\nUsage: particles [OPTIONS]\n\nFor more information, try '--help'."
            );
            return ExitCode::from(2);
        }
    };
    #[cfg(feature = "rayon")]
    let pool =
        match rayon::ThreadPoolBuilder::new().num_threads(usize::from(options.threads)).build() {
            Ok(pool) => pool,
            Err(error) => {
                eprintln!("error: cannot start {} threads: {error}", options.threads);
                return ExitCode::FAILURE;
            }
        };
    let in_pool = |run: &(dyn Fn() -> Report + Sync)| -> Report {
        #[cfg(feature = "rayon")]
        return pool.install(run);
        #[cfg(not(feature = "rayon"))]
        run()
    };

    println!(
        "particles: {} particles, {} spawned per frame ({}), {} frames, seed {}, {} thread{}",
        thousands(u64::from(options.count)),
        thousands(u64::from(options.per_frame())),
        if options.batch { "in two batches" } else { "one spawn each" },
        options.frames,
        options.seed,
        options.threads,
        if options.threads == 1 { "" } else { "s" }
    );

    let ours = in_pool(&|| {
        let mut progress = Progress::new("sparse-soa", options.frames, options.quiet);
        let report = run_world(&options, &mut progress);
        progress.finish();
        report
    });
    let baseline = (!options.no_baseline).then(|| {
        in_pool(&|| {
            let mut progress = Progress::new("Vec AoS", options.frames, options.quiet);
            let report = baseline::run(&options, &mut progress);
            progress.finish();
            report
        })
    });

    // Beside the baseline, when the run is larger: the spawn's floor.
    let in_cache = (baseline.is_some() && options.count > IN_CACHE)
        .then(|| in_pool(&|| run_in_cache(&options)));

    print_results(&options, &ours, baseline.as_ref(), in_cache.as_ref())
}

/// The picture, the numbers, the comparison with the baseline, and the SVG when asked.
fn print_results(
    options: &Options,
    ours: &Report,
    baseline: Option<&Report>,
    in_cache: Option<&Report>,
) -> ExitCode {
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    println!(
        "\nthe final state (x across, height up; shade, from few particles to many: {}{}):",
        picture::shade_legend(),
        if colour { "; tint: their Colour" } else { "" }
    );
    print!("{}", picture::density_map(&ours.dots, 72, 18, colour));

    let per_frame = |count: u64| thousands(count / u64::from(options.frames.max(1)));
    println!(
        "\n{} at the start; over {} frames, {} spawned ({} a frame) and {} despawned ({} a frame); at most {} alive",
        thousands(u64::from(options.count)),
        options.frames,
        thousands(ours.spawned),
        per_frame(ours.spawned),
        thousands(ours.despawned),
        per_frame(ours.despawned),
        thousands(ours.peak_alive as u64)
    );
    println!("\nthe frame loop, per frame (ms) and in particle updates per second:");
    println!(
        "  {:<36} {:>7} {:>7} {:>7} {:>7} {:>12}",
        "", "spawn", "update", "remove", "total", "updates/s"
    );
    print_throughput("sparse-soa: storages, groups, query", ours, options.frames);
    if let Some(baseline) = baseline {
        print_throughput("Vec<Particle>: array of structs", baseline, options.frames);
        println!(
            "  sparse-soa takes {:.2}x the baseline's time ({:.2}x in update, {:.2}x in spawn + remove)",
            ours.seconds / baseline.seconds,
            ours.phases[1] / baseline.phases[1],
            (ours.phases[0] + ours.phases[2]) / (baseline.phases[0] + baseline.phases[2]),
        );
        // Per particle: where the two designs differ. A spawn here stores four components at a
        // recycled entity slot and completes two groups; the baseline pushes one struct and
        // has no id. A removal here despawns the expired particle from every storage; the
        // baseline's `retain_mut` walks every particle.
        let per = |seconds: f64, count: u64| seconds * 1e9 / count.max(1) as f64;
        println!(
            "  per particle: spawn {:.0} ns here, {:.0} ns for a Vec push (no id); remove {:.0} ns \
             per expired particle here, {:.0} ns for the baseline's retain (it walks all {} a frame)",
            per(ours.phases[0], ours.spawned),
            per(baseline.phases[0], baseline.spawned),
            per(ours.phases[2], ours.despawned),
            per(baseline.phases[2], baseline.despawned),
            thousands(baseline.updates / u64::from(options.frames)),
        );
        // The spawn's floor: the same spawns with every line they touch in the cache. What the
        // full run takes past it waits for memory: a recycled id's cells lie anywhere in each
        // storage's index, where a `Vec` push writes at the end of one array.
        if let Some(in_cache) = in_cache {
            println!(
                "  spawn with its memory in the cache (a world of {} particles): {:.0} ns; the \
                 other {:.0} ns here wait for memory: a recycled id's cells lie anywhere in \
                 indexes of {} rows",
                thousands(u64::from(IN_CACHE)),
                per(in_cache.phases[0], in_cache.spawned),
                (per(ours.phases[0], ours.spawned) - per(in_cache.phases[0], in_cache.spawned))
                    .max(0.0),
                thousands(ours.peak_alive as u64),
            );
        }
        if !same_state(&ours.dots, &baseline.dots) {
            eprintln!("error: the two runs ended in different states; the demo has a bug");
            return ExitCode::FAILURE;
        }
        println!(
            "  both end in the same state ({} particles, same positions and colours); the Vec has no \
             stable ids and no lookup by id",
            thousands(ours.dots.len() as u64)
        );
    }
    println!(
        "  allocations in the frame loop (main thread): {}{}{}",
        thousands(ours.allocations as u64),
        if options.batch { ", the batches' buffers (--batch)" } else { "" },
        baseline
            .as_ref()
            .map_or(String::new(), |b| format!(" (baseline: {})", thousands(b.allocations as u64)))
    );

    if let Some(path) = &options.svg {
        if let Err(error) = std::fs::write(path, figure::svg(options, ours, baseline)) {
            eprintln!("error: cannot write {}: {error}", path.display());
            return ExitCode::FAILURE;
        }
        println!(
            "wrote {}: {} of the {} particles, the frame times, a legend",
            path.display(),
            thousands(figure::drawn(ours.dots.len(), options.svg_points) as u64),
            thousands(ours.dots.len() as u64)
        );
    }
    ExitCode::SUCCESS
}

fn print_throughput(what: &str, report: &Report, frames: u32) {
    let [spawn, update, remove, total] = report.milliseconds_per_frame(frames);
    println!(
        "  {what:<36} {spawn:>7.2} {update:>7.2} {remove:>7.2} {total:>7.2} {:>10.1} M",
        report.updates_per_second() / 1e6,
    );
}

/// Whether two runs ended with the same particles (in any order), bit for bit.
fn same_state(a: &[Dot], b: &[Dot]) -> bool {
    let sorted = |dots: &[Dot]| {
        let mut bits: Vec<_> =
            dots.iter().map(|dot| (dot.x.to_bits(), dot.y.to_bits(), dot.rgb)).collect();
        bits.sort_unstable();
        bits
    };
    sorted(a) == sorted(b)
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}
