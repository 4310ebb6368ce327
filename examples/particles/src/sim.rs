//! The simulation's rules, shared by the sparse-soa world and the array-of-structs baseline, so
//! that both do exactly the same arithmetic per particle (and must end in the same state). The
//! motion rule comes in two forms, each the one its loop runs best, which give the same bits (a
//! test checks): [`physics`] with branches for the baseline's loop over structs,
//! [`physics_without_branches`] for the world's loop over columns, which it lets the compiler
//! run four particles at a time.

/// The arena: `x` in `0..WIDTH`, `y` from the floor at 0 up.
pub(crate) const WIDTH: f32 = 160.0;
/// The height the picture shows.
pub(crate) const HEIGHT: f32 = 100.0;
const DT: f32 = 1.0 / 60.0;
const GRAVITY: f32 = -30.0;
/// The fountains: where they stand, and their palette (see [`Palette`]).
pub(crate) const FOUNTAINS: [(f32, u8); 5] =
    [(20.0, 0), (50.0, 1), (80.0, 2), (110.0, 3), (140.0, 4)];
/// The hue of each fountain's palette (degrees); the palette after them is the sparks'.
const HUES: [f32; 5] = [200.0, 120.0, 40.0, 300.0, 170.0];
/// The sparks' palette.
pub(crate) const SPARK_PALETTE: u8 = 5;
/// One in this many particles is a spark: it hangs in the air, without a velocity.
const SPARK_EVERY: u64 = 8;
/// Steps of a palette, from birth to death.
const STEPS: usize = 64;

/// The colours a particle takes as it ages, per palette: a fountain's hue paling and darkening,
/// or a spark's white fading to amber. Computed once, so colouring is a table lookup.
pub(crate) struct Palette([[[u8; 3]; STEPS]; 6]);

impl Palette {
    pub(crate) fn new() -> Self {
        let mut table = [[[0; 3]; STEPS]; 6];
        for (palette, steps) in table.iter_mut().enumerate() {
            for (step, rgb) in steps.iter_mut().enumerate() {
                let age = step as f32 / (STEPS - 1) as f32;
                *rgb = if let Some(&hue) = HUES.get(palette) {
                    hsv(hue, 0.35 + 0.6 * age, 1.0 - 0.7 * age)
                } else {
                    let glow = 1.0 - 0.6 * age;
                    [
                        to_byte(glow),
                        to_byte(glow * (0.95 - 0.4 * age)),
                        to_byte(glow * 0.6 * (1.0 - age)),
                    ]
                };
            }
        }
        Palette(table)
    }

    /// Every colour of `palette`, from birth to death.
    pub(crate) fn shades(&self, palette: u8) -> &[[u8; 3]] {
        &self.0[usize::from(palette)]
    }

    /// The colour of a particle of `palette` with `frames_left` of its `lifetime` left.
    #[inline]
    pub(crate) fn colour(&self, palette: u8, frames_left: u16, lifetime: u16) -> [u8; 3] {
        let lived = u32::from(lifetime.saturating_sub(frames_left));
        let step = lived * (STEPS as u32 - 1) / u32::from(lifetime.max(1));
        self.0[usize::from(palette)][step as usize]
    }
}

/// A spark's twinkle: now and then it flashes white.
#[inline]
pub(crate) fn twinkle(rgb: &mut [u8; 3], frames_left: u16) {
    if frames_left % 16 < 2 {
        *rgb = [255, 250, 235];
    }
}

/// A small deterministic generator (xorshift64*): the same seed gives the same run.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        // Never zero, and nearby seeds give unrelated streams.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A float in `[low, high)`.
    fn range(&mut self, low: f32, high: f32) -> f32 {
        let unit = (self.next() >> 40) as f32 / (1_u64 << 24) as f32;
        low + unit * (high - low)
    }

    /// A lifetime in frames, uniform from half the mean to one and a half times it.
    fn lifetime(&mut self, mean: u16) -> u16 {
        self.between(mean / 2, mean / 2 * 3)
    }

    /// An integer in `low..=high`.
    fn between(&mut self, low: u16, high: u16) -> u16 {
        low + (self.next() % u64::from(high - low + 1)) as u16
    }
}

/// A new particle, before it is stored.
pub(crate) struct Spawn {
    pub(crate) x: f32,
    pub(crate) y: f32,
    /// `None` for a spark.
    pub(crate) velocity: Option<(f32, f32)>,
    pub(crate) frames_left: u16,
    pub(crate) lifetime: u16,
    /// Frames of life a frame costs: 2 for sparks, which burn out twice as fast.
    pub(crate) burn: u16,
    pub(crate) palette: u8,
}

impl Spawn {
    /// A particle shot from a fountain.
    pub(crate) fn fountain(rng: &mut Rng, mean_lifetime: u16) -> Self {
        let (x, palette) = FOUNTAINS[(rng.next() % FOUNTAINS.len() as u64) as usize];
        let lifetime = rng.lifetime(mean_lifetime);
        if rng.next() % SPARK_EVERY == 0 {
            return Spawn::spark(rng, lifetime, lifetime);
        }
        let velocity = Some((rng.range(-12.0, 12.0), rng.range(45.0, 70.0)));
        Spawn {
            x: x + rng.range(-1.0, 1.0),
            y: 0.0,
            velocity,
            frames_left: lifetime,
            lifetime,
            burn: 1,
            palette,
        }
    }

    /// A particle of the first frame: anywhere, part-way through its life, so the simulation
    /// starts near its steady state.
    pub(crate) fn scattered(rng: &mut Rng, mean_lifetime: u16) -> Self {
        let lifetime = rng.lifetime(mean_lifetime);
        let frames_left = rng.between(1, lifetime);
        if rng.next() % SPARK_EVERY == 0 {
            return Spawn::spark(rng, frames_left, lifetime);
        }
        let (_, palette) = FOUNTAINS[(rng.next() % FOUNTAINS.len() as u64) as usize];
        let velocity = Some((rng.range(-12.0, 12.0), rng.range(-20.0, 40.0)));
        Spawn {
            x: rng.range(0.0, WIDTH),
            y: rng.range(0.0, 70.0),
            velocity,
            frames_left,
            lifetime,
            burn: 1,
            palette,
        }
    }

    fn spark(rng: &mut Rng, frames_left: u16, lifetime: u16) -> Self {
        Spawn {
            x: rng.range(0.0, WIDTH),
            y: rng.range(30.0, 90.0),
            velocity: None,
            frames_left,
            lifetime,
            burn: 2,
            palette: SPARK_PALETTE,
        }
    }
}

/// The wind of a frame: it turns slowly.
pub(crate) fn wind(frame: u32) -> f32 {
    8.0 * (frame as f32 * 0.015).sin()
}

/// One frame of motion: wind, gravity, the floor (bouncing, losing energy) and the walls.
///
/// Written with branches, as a loop over structs runs it best: a particle rarely touches the
/// floor or a wall, so the branches are predicted and skip the work.
/// [`physics_without_branches`] is the same rule for loops over columns.
#[inline]
pub(crate) fn physics(x: &mut f32, y: &mut f32, dx: &mut f32, dy: &mut f32, wind: f32) {
    *dx += wind * DT;
    *dy += GRAVITY * DT;
    *x += *dx * DT;
    *y += *dy * DT;
    if *y < 0.0 {
        *y = 0.0;
        if *dy < 0.0 {
            *dy *= -0.6;
            *dx *= 0.9;
        }
    }
    if *x < 0.0 {
        *x = 0.0;
        *dx = dx.abs() * 0.8;
    } else if *x > WIDTH {
        *x = WIDTH;
        *dx = -dx.abs() * 0.8;
    }
}

/// [`physics`] written as choices between values, with every store made unconditionally, so
/// that a loop over columns of `f32` runs it on four particles at once (SSE): a branch that
/// skips a store keeps the compiler from that. The same operations on the same values in the
/// same order, so the result is bit-identical (a test checks).
#[inline]
pub(crate) fn physics_without_branches(
    x: &mut f32,
    y: &mut f32,
    dx: &mut f32,
    dy: &mut f32,
    wind: f32,
) {
    let mut vx = *dx + wind * DT;
    let mut vy = *dy + GRAVITY * DT;
    let mut px = *x + vx * DT;
    let mut py = *y + vy * DT;
    // The floor: stop there, and bounce if still falling.
    let bounce = py < 0.0 && vy < 0.0;
    py = if py < 0.0 { 0.0 } else { py };
    vy = if bounce { vy * -0.6 } else { vy };
    vx = if bounce { vx * 0.9 } else { vx };
    // The walls: stop there, and come back.
    let (left, right) = (px < 0.0, px > WIDTH);
    vx = if left {
        vx.abs() * 0.8
    } else if right {
        -vx.abs() * 0.8
    } else {
        vx
    };
    px = if left {
        0.0
    } else if right {
        WIDTH
    } else {
        px
    };
    (*x, *y, *dx, *dy) = (px, py, vx, vy);
}

/// One frame of ageing; `true` when the particle has expired.
#[inline]
pub(crate) fn age(frames_left: &mut u16, burn: u16) -> bool {
    *frames_left = frames_left.saturating_sub(burn);
    *frames_left == 0
}

fn hsv(hue: f32, saturation: f32, value: f32) -> [u8; 3] {
    let sector = (hue / 60.0).rem_euclid(6.0);
    let chroma = value * saturation;
    let second = chroma * (1.0 - (sector % 2.0 - 1.0).abs());
    let (red, green, blue) = match sector as u32 {
        0 => (chroma, second, 0.0),
        1 => (second, chroma, 0.0),
        2 => (0.0, chroma, second),
        3 => (0.0, second, chroma),
        4 => (second, 0.0, chroma),
        _ => (chroma, 0.0, second),
    };
    let grey = value - chroma;
    [to_byte(red + grey), to_byte(green + grey), to_byte(blue + grey)]
}

fn to_byte(unit: f32) -> u8 {
    (unit.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// A particle's final state, for pictures and for comparing two runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Dot {
    pub(crate) x: f32,
    pub(crate) y: f32,
    pub(crate) rgb: [u8; 3],
}

/// What a run measured.
pub(crate) struct Report {
    /// Particle updates: the particles alive in each frame, summed over the frames.
    pub(crate) updates: u64,
    /// Time spent in the frame loop: spawning, updating, removing.
    pub(crate) seconds: f64,
    /// The same, per phase: spawn, update, remove.
    pub(crate) phases: [f64; 3],
    pub(crate) spawned: u64,
    pub(crate) despawned: u64,
    pub(crate) peak_alive: usize,
    /// Allocations the frame loop made on the main thread.
    pub(crate) allocations: usize,
    pub(crate) dots: Vec<Dot>,
}

impl Report {
    /// Nothing measured yet; `initial` particles alive.
    pub(crate) fn new(initial: usize) -> Self {
        Report {
            updates: 0,
            seconds: 0.0,
            phases: [0.0; 3],
            spawned: 0,
            despawned: 0,
            peak_alive: initial,
            allocations: 0,
            dots: Vec::new(),
        }
    }

    /// One frame: `alive` particles updated, in `phases` seconds (spawn, update, remove).
    pub(crate) fn record(
        &mut self,
        alive: usize,
        phases: [f64; 3],
        allocations: usize,
        spawned: usize,
        despawned: usize,
    ) {
        self.updates += alive as u64;
        self.seconds += phases.iter().sum::<f64>();
        for (total, phase) in self.phases.iter_mut().zip(phases) {
            *total += phase;
        }
        self.allocations += allocations;
        self.spawned += spawned as u64;
        self.despawned += despawned as u64;
        self.peak_alive = self.peak_alive.max(alive);
    }

    /// Milliseconds per frame over `frames` frames: spawn, update, remove, and their total.
    pub(crate) fn milliseconds_per_frame(&self, frames: u32) -> [f64; 4] {
        let [spawn, update, remove] = self.phases;
        [spawn, update, remove, self.seconds].map(|seconds| seconds * 1e3 / f64::from(frames))
    }

    pub(crate) fn updates_per_second(&self) -> f64 {
        self.updates as f64 / self.seconds
    }
}

#[cfg(test)]
mod tests {
    use super::{HEIGHT, Rng, WIDTH, physics, physics_without_branches, wind};

    /// Both forms of the motion rule give the same bits, on random particles anywhere around
    /// the arena (inside, under the floor, past either wall, rising and falling) and on the
    /// edges themselves.
    #[test]
    fn both_forms_of_the_motion_rule_agree_bit_for_bit() {
        let mut rng = Rng::new(7);
        let edges = [0.0, -0.0, WIDTH, -1e-7, WIDTH + 1e-3, 1e-7];
        let mut cases: Vec<[f32; 5]> = Vec::new();
        for &x in &edges {
            for &y in &edges[..3] {
                for &dx in &[0.0, -0.0, 5.0, -5.0] {
                    for &dy in &[0.0, -0.0, 30.0, -30.0] {
                        cases.push([x, y, dx, dy, 8.0]);
                    }
                }
            }
        }
        for frame in 0..100_000 {
            cases.push([
                rng.range(-20.0, WIDTH + 20.0),
                rng.range(-5.0, HEIGHT),
                rng.range(-80.0, 80.0),
                rng.range(-80.0, 80.0),
                wind(frame),
            ]);
        }
        for [x, y, dx, dy, wind] in cases {
            let mut branches = [x, y, dx, dy];
            let mut selects = [x, y, dx, dy];
            let [bx, by, bdx, bdy] = &mut branches;
            physics(bx, by, bdx, bdy, wind);
            let [sx, sy, sdx, sdy] = &mut selects;
            physics_without_branches(sx, sy, sdx, sdy, wind);
            assert_eq!(
                branches.map(f32::to_bits),
                selects.map(f32::to_bits),
                "from {:?} with wind {wind}",
                [x, y, dx, dy]
            );
        }
    }
}
