//! The same frame loop on a plain `Vec` of structs: what one would write without sparse-soa.
//! Every particle is one struct; a spark is a flag, and expired particles leave through
//! `retain_mut`.

#[cfg(feature = "rayon")]
use rayon::prelude::*;

use crate::sim::{self, Dot, Palette, Report, Rng, Spawn};
use sparse_soa_test_support::allocations_during;

use crate::cli::Options;
use crate::{Clock, Progress};

/// One particle, array-of-structs style.
#[derive(Clone, Copy)]
struct Particle {
    x: f32,
    y: f32,
    dx: f32,
    dy: f32,
    frames_left: u16,
    lifetime: u16,
    burn: u16,
    palette: u8,
    rgb: [u8; 3],
    spark: bool,
}

impl Particle {
    fn new(spawn: &Spawn, palette: &Palette) -> Self {
        let (dx, dy) = spawn.velocity.unwrap_or((0.0, 0.0));
        Particle {
            x: spawn.x,
            y: spawn.y,
            dx,
            dy,
            frames_left: spawn.frames_left,
            lifetime: spawn.lifetime,
            burn: spawn.burn,
            palette: spawn.palette,
            rgb: palette.colour(spawn.palette, spawn.frames_left, spawn.lifetime),
            spark: spawn.velocity.is_none(),
        }
    }
}

pub(crate) fn run(options: &Options, progress: &mut Progress) -> Report {
    let budget = options.budget();
    let mut rng = Rng::new(options.seed);
    let palette = Palette::new();
    let mut particles: Vec<Particle> = Vec::with_capacity(budget);
    particles.extend(
        (0..options.count)
            .map(|_| Particle::new(&Spawn::scattered(&mut rng, options.lifetime), &palette)),
    );

    let mut report = Report::new(particles.len());
    for frame in 0..options.frames {
        let before = particles.len();
        let ((phases, alive), allocations) = allocations_during(|| {
            let mut clock = Clock::start();
            for _ in 0..options.per_frame() {
                if particles.len() == budget {
                    break;
                }
                particles
                    .push(Particle::new(&Spawn::fountain(&mut rng, options.lifetime), &palette));
            }
            let spawned = clock.lap();
            let wind = sim::wind(frame);
            let alive = particles.len();

            // Motion, colour and twinkle: one pass over every struct (sparks do not move).
            let step = |p: &mut Particle| {
                if !p.spark {
                    sim::physics(&mut p.x, &mut p.y, &mut p.dx, &mut p.dy, wind);
                }
                p.rgb = palette.colour(p.palette, p.frames_left, p.lifetime);
                if p.spark {
                    sim::twinkle(&mut p.rgb, p.frames_left);
                }
            };
            #[cfg(feature = "rayon")]
            if options.threads > 1 {
                particles.par_iter_mut().for_each(step);
            } else {
                particles.iter_mut().for_each(step);
            }
            #[cfg(not(feature = "rayon"))]
            particles.iter_mut().for_each(step);
            let updated = clock.lap();

            // Ageing and removal in one pass.
            particles.retain_mut(|p| !sim::age(&mut p.frames_left, p.burn));
            ([spawned, updated, clock.lap()], alive)
        });
        report.record(alive, phases, allocations, alive - before, alive - particles.len());
        progress.frame(frame, particles.len());
    }
    report.dots = particles.iter().map(|p| Dot { x: p.x, y: p.y, rgb: p.rgb }).collect();
    report
}
