//! Fixed-capacity storages: a `bounded(capacity, key_limit)` set, map or derived storage
//! allocates everything when it is made and never again (the documented promise; the
//! exceptions are the stable sorts of maps and derived storages and any sort of a storage with
//! an observer, which allocate a permutation, and removal events kept past `capacity` removals
//! between clears; a world's `spawn_batch` also allocates buffers of its own).
//! Past its bounds every `try_` call returns an `Error` and changes nothing, and the plain call
//! panics with that message, prefixed by the call that refused.
//!
//! The program
//!
//! 1. provokes every `Error` variant that a program can reach in well under a second and
//!    prints its message (`EntitiesExhausted` needs 2^32 spawns; its message is printed without
//!    provoking it);
//! 2. runs a frame loop over a bounded `SparseSet`, `SparseMap` and derived storage (with a `u8`
//!    dense width) and a bounded `Entities`, counting allocations: zero,
//!    where the same loop over growable storages allocates;
//! 3. counts the sorts: the unstable ones allocate nothing, the stable ones allocate their
//!    permutation.
//!
//! Allocations are counted by the workspace's test allocator (`sparse-soa-test-support`, not
//! published: a wrapper over the system allocator that counts the calls of the current thread
//! and can refuse them, which is how `AllocFailed` is provoked here).
//!
//! Run with `cargo run --example bounded`.

use std::panic;

use sparse_soa::{DenseIndex, Entities, Entity, Error, SparseMap, SparseSet, SparseSoa};
use sparse_soa_test_support::{CountingAlloc, allocations_during, failing_allocations};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// A particle, stored by `Entity` with a `u8` dense width: at most 255 of them, and every
/// sparse slot one byte for the dense position plus four for the entity's generation.
#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity, dense = u8)]
struct Particle {
    x: f32,
    vx: f32,
    life: u16,
}

/// A world of one storage, for the refusal of a despawned entity.
#[derive(sparse_soa::World)]
struct Scene {
    entities: Entities,
    particles: ParticleSoa,
}

/// The bounds of every storage below: at most 200 elements, keys (entity indices) below 256.
const CAPACITY: usize = 200;
const KEY_LIMIT: usize = 256;

/// Prints one refusal.
fn show(call: &str, error: Error) {
    println!("  {call:<52} -> {error:?}\n  {:<52}    \"{error}\"", "");
}

/// Every `Error` variant, provoked where a program can provoke it quickly.
fn errors() {
    println!("every try_ error, with its message:");

    // Construction.
    let error = SparseSet::<u32, u8>::try_bounded(300, 1000).unwrap_err();
    assert_eq!(error, Error::DenseIndexOverflow { width: "u8", max_len: 255 });
    show("SparseSet::<u32, u8>::try_bounded(300, 1000)", error);

    let error = ParticleSoa::try_bounded(CAPACITY, usize::MAX).unwrap_err();
    assert_eq!(error, Error::BoundPastKeys { bound: usize::MAX as u64, slots: 1 << 32 });
    show("ParticleSoa::try_bounded(200, usize::MAX)", error);

    let error = SparseSet::<u64>::try_bounded(CAPACITY, usize::MAX).unwrap_err();
    assert_eq!(error, Error::CapacityOverflow);
    show("SparseSet::<u64>::try_bounded(200, usize::MAX)", error);

    let error = failing_allocations(|| SparseMap::<u32, f32>::try_bounded(64, 1024)).unwrap_err();
    assert_eq!(error, Error::AllocFailed);
    show("SparseMap::try_bounded(64, 1024), allocator refusing", error);

    // Inserting past the bounds.
    let mut set = SparseSet::<u32>::try_bounded(2, 128).expect("small bounds");
    set.insert(1);
    set.insert(2);
    let error = set.try_insert(500).unwrap_err();
    assert_eq!(error, Error::KeyOutOfRange { index: 500, limit: 128 });
    show("bounded(2, 128): try_insert(500)", error);
    let error = set.try_insert(3).unwrap_err();
    assert_eq!(error, Error::Full { capacity: 2 });
    show("bounded(2, 128) holding 1 and 2: try_insert(3)", error);
    assert_eq!(set.as_slice(), &[1, 2], "a refused call changes nothing");
    assert_eq!(set.try_insert(2), Ok(false), "a key already there needs no room");

    // The dense width bounds growable storages too: `u8` addresses 255 elements.
    let mut small: SparseSet<u32, u8> = (0..255).collect();
    let error = small.try_insert(1000).unwrap_err();
    assert_eq!(error, Error::DenseIndexOverflow { width: "u8", max_len: <u8>::MAX_LEN });
    show("SparseSet::<u32, u8> holding 255 keys: try_insert", error);

    // A stale handle: its slot was reused by a newer entity.
    let mut entities = Entities::new();
    let mut particles = ParticleSoa::bounded(CAPACITY, KEY_LIMIT);
    let old = entities.spawn();
    entities.despawn(old);
    let new = entities.spawn();
    particles.insert(new, Particle { x: 0.0, vx: 1.0, life: 3 });
    let error = particles.try_insert(old, Particle { x: 9.0, vx: 9.0, life: 9 }).unwrap_err();
    assert_eq!(error, Error::StaleKey { index: 0, version: 1, held: 2 });
    show("ParticleSoa holding 0v2: try_insert(0v1, ..)", error);
    assert_eq!(particles.get(new).map(|p| *p.life), Some(3));

    // An entity the world has despawned: a world's insert checks it against its allocator.
    let mut scene = Scene { entities: Entities::new(), particles: ParticleSoa::new() };
    let gone = scene.spawn(Particle { x: 0.0, vx: 1.0, life: 3 });
    scene.despawn(gone);
    let error = scene.try_insert(gone, Particle { x: 0.0, vx: 1.0, life: 3 }).unwrap_err();
    assert_eq!(error, Error::NotAlive { index: 0, generation: 1 });
    show("a World after despawn(0v1): try_insert(0v1, ..)", error);

    // A bounded allocator with every slot alive.
    let mut two = Entities::bounded(2);
    two.spawn();
    two.spawn();
    let error = two.try_spawn().unwrap_err();
    assert_eq!(error, Error::EntitiesFull { capacity: 2 });
    show("Entities::bounded(2) with 2 alive: try_spawn()", error);

    // Not provoked: it takes 2^32 spawns.
    show("Entities::try_spawn with 2^32 slots in use", Error::EntitiesExhausted);

    // The plain call panics with that message, prefixed by the call (the hook is silenced to
    // print it once).
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let payload = panic::catch_unwind(move || set.insert(500)).unwrap_err();
    panic::set_hook(hook);
    let message = payload.downcast_ref::<String>().map_or("", String::as_str);
    println!("  the plain insert(500) panics: \"{message}\"");
    assert_eq!(
        message,
        "cannot insert into a `SparseSet`: key 500 is outside the bounded key range 0..128; use keys below 128, or bound the storage with a higher key limit"
    );
}

/// The storages of the frame loop, bounded or growable.
struct World {
    entities: Entities,
    particles: ParticleSoa,
    names: SparseMap<Entity, [u8; 8], u8>,
    burning: SparseSet<Entity, u8>,
}

impl World {
    fn bounded() -> Self {
        Self {
            // The allocator bounded too: every index it issues is below the storages' key limit.
            entities: Entities::bounded(KEY_LIMIT),
            particles: ParticleSoa::bounded(CAPACITY, KEY_LIMIT),
            names: SparseMap::bounded(CAPACITY, KEY_LIMIT),
            burning: SparseSet::bounded(CAPACITY, KEY_LIMIT),
        }
    }

    fn growable() -> Self {
        Self {
            entities: Entities::new(),
            particles: ParticleSoa::new(),
            names: SparseMap::new(),
            burning: SparseSet::new(),
        }
    }

    /// One frame: spawn a burst, move, age, despawn the expired, and reorder. Returns how many
    /// spawns the particle storage refused.
    fn frame(&mut self, frame: u16) -> usize {
        let mut refused = 0;
        for i in 0..8 {
            // Inserted with `try_`: a full storage refuses, and the frame goes on.
            let entity = self.entities.spawn();
            let particle = Particle { x: 0.0, vx: f32::from(i), life: 20 + frame % 11 + 2 * i };
            if self.particles.try_insert(entity, particle).is_err() {
                self.entities.despawn(entity);
                refused += 1;
                continue;
            }
            self.names.insert(entity, *b"particle");
            if i % 3 == 0 {
                self.burning.insert(entity);
            }
        }
        let columns = self.particles.columns_mut();
        for (x, vx) in columns.x.iter_mut().zip(columns.vx.iter()) {
            *x += vx;
        }
        for life in self.particles.life_mut() {
            *life -= 1;
        }
        let Self { entities, particles, names, burning } = self;
        particles.retain(|entity, particle| {
            if *particle.life > 0 {
                return true;
            }
            names.remove(entity);
            burning.remove(entity);
            entities.despawn(entity);
            false
        });
        self.particles.sort_unstable_by(|_, a, _, b| a.x.total_cmp(b.x));
        self.burning.sort_unstable();
        refused
    }
}

fn frames() {
    const FRAMES: u16 = 100;
    let mut bounded = World::bounded();
    let (refused, calls) =
        allocations_during(|| (0..FRAMES).map(|frame| bounded.frame(frame)).sum::<usize>());
    let mut growable = World::growable();
    let (_, growable_calls) =
        allocations_during(|| (0..FRAMES).map(|frame| growable.frame(frame)).sum::<usize>());
    println!(
        "{FRAMES} frames (spawn, move, age, despawn, sort): the bounded storages made {calls} \
         allocations, refused {refused} spawns when full, and hold {} particles; the same \
         frames on growable storages made {growable_calls} allocations",
        bounded.particles.len(),
    );
    assert_eq!(calls, 0);
    assert!(refused > 0, "the loop fills the bounded storage");
    assert!(growable_calls > 0);
    assert!(bounded.particles.len() <= CAPACITY && bounded.entities.len() <= CAPACITY);
    assert_eq!(bounded.names.len(), bounded.particles.len());
}

fn sorts() {
    let mut particles = ParticleSoa::bounded(CAPACITY, KEY_LIMIT);
    let mut entities = Entities::with_capacity(CAPACITY);
    for i in 0..100_u16 {
        particles.insert(entities.spawn(), Particle { x: -f32::from(i), vx: 0.0, life: i });
    }
    let ((), unstable) =
        allocations_during(|| particles.sort_unstable_by(|_, a, _, b| a.x.total_cmp(b.x)));
    let ((), stable) = allocations_during(|| particles.sort_by(|_, a, _, b| a.life.cmp(b.life)));
    println!(
        "sorting a bounded derived storage: sort_unstable_by made {unstable} allocations, \
         sort_by {stable} (its permutation)"
    );
    assert_eq!(unstable, 0);
    assert!(stable > 0);
    assert_eq!(particles.life().first(), Some(&0));
}

fn main() {
    errors();
    frames();
    sorts();
}
