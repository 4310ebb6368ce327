//! No allocation, proven at scale: bounded sets, maps and derived storages make no allocation
//! at all across a million mixed operations within their bounds (inserts, removals, lookups,
//! `retain`, `clear`, swaps, unstable sorts), nor do groups of them (200,000 inserts and
//! removals through the handles, exclusions, despawns, unstable sorts and `sort_keys`) or a
//! world of them spawning, inserting and despawning 100,000 whole rows; growable ones make **O(log n)** allocations while
//! growing to n elements.
//!
//! Only allocations made by the test's own thread are counted. Run with `--nocapture` to see the
//! counts. Under miri the sizes shrink so that the test still runs there.

use sparse_soa::{Entities, Entity, Group, SparseMap, SparseSet, SparseSoa, World};
use sparse_soa_test_support::allocations_during;
use sparse_soa_test_support::keys::Stream;

/// Mixed operations per bounded storage.
const OPERATIONS: usize = if cfg!(miri) { 2_000 } else { 1_000_000 };
/// The bounds: elements, and the key range (keys are drawn from it, so it fills up and churns).
const CAPACITY: usize = if cfg!(miri) { 64 } else { 1_000 };
const KEY_LIMIT: usize = if cfg!(miri) { 600 } else { 3_000 };

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(dense = u16)]
struct Particle {
    x: f32,
    v: f32,
    id: u32,
    alive: bool,
}

/// What the mixed workload needs of a storage; implemented for the three kinds below.
trait Workload {
    fn len(&self) -> usize;
    fn insert(&mut self, key: u32);
    fn remove(&mut self, key: u32);
    /// A lookup that reads the element (a `get` or `contains`), and checks it.
    fn look_up(&self, key: u32) -> bool;
    fn swap(&mut self, a: usize, b: usize);
    fn retain(&mut self, keep: impl FnMut(u32) -> bool);
    fn sort_unstable(&mut self, descending: bool);
    fn clear(&mut self);
    fn check(&self);
}

impl Workload for SparseSet<u32, u16> {
    fn len(&self) -> usize {
        SparseSet::len(self)
    }
    fn insert(&mut self, key: u32) {
        SparseSet::insert(self, key);
    }
    fn remove(&mut self, key: u32) {
        SparseSet::remove(self, key);
    }
    fn look_up(&self, key: u32) -> bool {
        self.contains(key)
    }
    fn swap(&mut self, a: usize, b: usize) {
        self.swap_indices(a, b);
    }
    fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        SparseSet::retain(self, |&key| keep(key));
    }
    fn sort_unstable(&mut self, descending: bool) {
        if descending {
            self.sort_unstable_by(|a, b| b.cmp(a));
        } else {
            SparseSet::sort_unstable(self);
        }
    }
    fn clear(&mut self) {
        SparseSet::clear(self);
    }
    fn check(&self) {
        self.assert_invariants();
    }
}

impl Workload for SparseMap<u32, [u32; 3], u16> {
    fn len(&self) -> usize {
        SparseMap::len(self)
    }
    fn insert(&mut self, key: u32) {
        SparseMap::insert(self, key, [key; 3]);
    }
    fn remove(&mut self, key: u32) {
        SparseMap::remove(self, key);
    }
    fn look_up(&self, key: u32) -> bool {
        self.get(key).is_some_and(|value| *value == [key; 3])
    }
    fn swap(&mut self, a: usize, b: usize) {
        self.swap_indices(a, b);
    }
    fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        SparseMap::retain(self, |key, _| keep(key));
    }
    fn sort_unstable(&mut self, descending: bool) {
        if descending {
            self.sort_unstable_by(|_, a, _, b| b.cmp(a));
        } else {
            self.sort_keys();
        }
    }
    fn clear(&mut self) {
        SparseMap::clear(self);
    }
    fn check(&self) {
        self.assert_invariants();
        assert!(self.iter().all(|(key, value)| *value == [key; 3]));
    }
}

fn particle(key: u32) -> Particle {
    Particle { x: f32::from((key % 1000) as u16), v: 1.0, id: key, alive: true }
}

impl Workload for ParticleSoa {
    fn len(&self) -> usize {
        ParticleSoa::len(self)
    }
    fn insert(&mut self, key: u32) {
        ParticleSoa::insert(self, key, particle(key));
    }
    fn remove(&mut self, key: u32) {
        ParticleSoa::remove(self, key);
    }
    fn look_up(&self, key: u32) -> bool {
        self.get(key).is_some_and(|particle| *particle.id == key)
    }
    fn swap(&mut self, a: usize, b: usize) {
        self.swap_indices(a, b);
    }
    fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        ParticleSoa::retain(self, |key, _| keep(key));
    }
    fn sort_unstable(&mut self, descending: bool) {
        if descending {
            self.sort_unstable_by(|_, a, _, b| b.x.total_cmp(a.x));
        } else {
            self.sort_keys();
        }
    }
    fn clear(&mut self) {
        ParticleSoa::clear(self);
    }
    fn check(&self) {
        sparse_soa::Storage::assert_invariants(self);
        assert!(self.iter().all(|(key, particle)| *particle.id == key));
    }
}

/// A bounded group: a derived storage and a map aligned, a tag excluded.
type Bounded = Group<(ParticleSoa, SparseMap<u32, [u32; 3], u16>), (SparseSet<u32, u16>,)>;

fn bounded_group() -> Bounded {
    Group::with_excluded(
        (ParticleSoa::bounded(CAPACITY, KEY_LIMIT), SparseMap::bounded(CAPACITY, KEY_LIMIT)),
        (SparseSet::bounded(CAPACITY, KEY_LIMIT),),
    )
}

/// The workload through a group: an insert stores both members (the key joins the prefix unless
/// excluded), a removal takes one member's value (the key leaves), a swap toggles the exclusion
/// of two keys, `retain` removes through the group, and the sorts are the group's unstable sort
/// and `sort_keys`.
impl Workload for Bounded {
    fn len(&self) -> usize {
        self.members().0.len().max(self.members().1.len())
    }
    fn insert(&mut self, key: u32) {
        self.member_mut::<0>().insert(key, particle(key));
        self.member_mut::<1>().insert(key, [key; 3]);
    }
    fn remove(&mut self, key: u32) {
        if key % 2 == 0 {
            self.member_mut::<1>().remove(key);
        } else {
            Group::remove(self, key);
        }
    }
    fn look_up(&self, key: u32) -> bool {
        let found = self.get(key);
        assert!(found.is_none_or(|(p, m)| *p.id == key && m[0] == key));
        found.is_some()
    }
    fn swap(&mut self, a: usize, b: usize) {
        for index in [a, b] {
            let Some(&key) = self.members().0.keys().get(index) else { continue };
            if self.excluded().0.contains(key) {
                self.excluded_mut::<0>().remove(key);
            } else {
                self.excluded_mut::<0>().insert(key, ());
            }
        }
    }
    fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let mut index = self.members().0.len();
        while index > 0 {
            index -= 1;
            let Some(&key) = self.members().0.keys().get(index) else { continue };
            if !keep(key) {
                Group::remove(self, key);
            }
        }
    }
    fn sort_unstable(&mut self, descending: bool) {
        if descending {
            self.sort_unstable_by(|a, _, b, _| b.cmp(a));
        } else {
            self.sort_keys();
        }
    }
    fn clear(&mut self) {
        while let Some(&key) = self.members().0.keys().last() {
            Group::remove(self, key);
        }
    }
    fn check(&self) {
        self.assert_invariants();
    }
}

/// Runs the mixed workload on `storage`, counting this thread's allocation calls; returns them
/// and how many lookups hit (so the work cannot be optimised away).
fn churn(storage: &mut impl Workload, operations: usize) -> (usize, usize) {
    let mut stream = Stream(0x5EED);
    let mut hits = 0;
    let ((), calls) = allocations_during(|| {
        for _ in 0..operations {
            let key = stream.index(KEY_LIMIT) as u32;
            match stream.index(10_000) {
                // Inserts only while there is room: a refusal would not allocate either, but
                // the workload stays within the bounds, as the claim does.
                0..3_500 if storage.len() < CAPACITY => storage.insert(key),
                0..6_500 => storage.remove(key),
                6_500..9_900 => hits += usize::from(storage.look_up(key)),
                9_900..9_960 if storage.len() >= 2 => {
                    let len = storage.len();
                    storage.swap(stream.index(len), stream.index(len));
                }
                9_960..9_990 => storage.retain(|key| key % 10 != 3),
                9_990..9_998 => storage.sort_unstable(key % 2 == 0),
                9_998.. => storage.clear(),
                _ => {}
            }
        }
    });
    storage.check();
    (calls, hits)
}

#[test]
fn bounded_storages_never_allocate_across_a_million_mixed_operations() {
    let mut set = SparseSet::<u32, u16>::bounded(CAPACITY, KEY_LIMIT);
    let (calls, hits) = churn(&mut set, OPERATIONS);
    println!("bounded SparseSet: {OPERATIONS} operations, {calls} allocations ({hits} hits)");
    assert_eq!(calls, 0);
    assert!(hits > 0);

    let mut map = SparseMap::<u32, [u32; 3], u16>::bounded(CAPACITY, KEY_LIMIT);
    let (calls, hits) = churn(&mut map, OPERATIONS);
    println!("bounded SparseMap: {OPERATIONS} operations, {calls} allocations ({hits} hits)");
    assert_eq!(calls, 0);
    assert!(hits > 0);

    let mut particles = ParticleSoa::bounded(CAPACITY, KEY_LIMIT);
    let (calls, hits) = churn(&mut particles, OPERATIONS);
    println!("bounded ParticleSoa: {OPERATIONS} operations, {calls} allocations ({hits} hits)");
    assert_eq!(calls, 0);
    assert!(hits > 0);

    // A copy of a bounded storage is bounded alike: it never allocates either.
    let mut copy = particles.clone();
    let (calls, _) = churn(&mut copy, OPERATIONS);
    assert_eq!(calls, 0);

    let mut group = bounded_group();
    // A group does a storage's work several times over: a fifth of the operations.
    let (calls, hits) = churn(&mut group, OPERATIONS / 5);
    println!("bounded Group: {} operations, {calls} allocations ({hits} hits)", OPERATIONS / 5);
    assert_eq!(calls, 0);
    assert!(hits > 0);
}

/// Removal events on a bounded storage reserve its capacity when attached: filling it and
/// emptying it, with the events cleared once a round, allocates nothing.
#[test]
fn bounded_storages_keep_removal_events_without_allocating() {
    use sparse_soa::observe::{Removals, RemovedValues, Ticks};

    let mut map = SparseMap::<u32, i32, u16>::bounded(CAPACITY, KEY_LIMIT)
        .observed_by((Ticks::new(), Removals::new()));
    let mut values =
        SparseMap::<u32, i32, u16>::bounded(CAPACITY, KEY_LIMIT).observed_by(RemovedValues::new());
    let mut particles = ParticleSoa::bounded(CAPACITY, KEY_LIMIT)
        .observed_by((Removals::new(), RemovedValues::<u32, Particle>::new()));
    let rounds = if cfg!(miri) { 2 } else { 20 };
    let ((), calls) = allocations_during(|| {
        for _ in 0..rounds {
            for key in 0..CAPACITY as u32 {
                map.insert(key, 1);
                values.insert(key, 1);
                particles.insert(key, particle(key));
            }
            for key in (0..CAPACITY as u32).step_by(2) {
                map.remove(key);
                values.remove(key);
                particles.remove(key);
            }
            map.clear();
            values.retain(|_, _| false);
            particles.truncate(0);
            assert_eq!(map.observer().1.len(), CAPACITY);
            assert_eq!(values.observer().len(), CAPACITY);
            assert_eq!(particles.observer().1.rows().len(), CAPACITY);
            map.observer_mut().1.clear();
            values.observer_mut().clear();
            particles.observer_mut().0.clear();
            particles.observer_mut().1.clear();
        }
    });
    println!("bounded storages with removal events: {calls} allocations");
    assert_eq!(calls, 0);
}

/// A clone of a bounded storage is bounded alike, its observer's room included: clones of
/// storages with change ticks (of rows and of tracked fields) and removal events fill and
/// empty without allocating, as the originals do.
#[test]
fn clones_of_bounded_observed_storages_keep_their_room() {
    use sparse_soa::observe::{Removals, RemovedValues, Ticks};

    let map = SparseMap::<u32, i32, u16>::bounded(CAPACITY, KEY_LIMIT)
        .observed_by((Ticks::new(), Removals::new()));
    let values =
        SparseMap::<u32, i32, u16>::bounded(CAPACITY, KEY_LIMIT).observed_by(RemovedValues::new());
    let units = UnitSoa::bounded(CAPACITY, KEY_LIMIT).observed_by(Ticks::new());
    let (mut map, mut values, mut units) = (map.clone(), values.clone(), units.clone());
    let rounds = if cfg!(miri) { 2 } else { 20 };
    let ((), calls) = allocations_during(|| {
        for _ in 0..rounds {
            for key in 0..CAPACITY as u32 {
                map.insert(key, 1);
                values.insert(key, 1);
                units.insert(key, Unit { hp: key, level: 0 });
            }
            map.ticks_mut().advance();
            units.ticks_mut().advance();
            for key in 0..CAPACITY as u32 {
                map.remove(key);
                values.remove(key);
                units.remove(key);
            }
            assert_eq!(map.observer().1.len(), CAPACITY);
            map.observer_mut().1.clear();
            values.observer_mut().clear();
        }
    });
    println!("clones of bounded storages with ticks and removal events: {calls} allocations");
    assert_eq!(calls, 0);
}

/// A group's own observer is attached with the smallest capacity of its bounded members, so a
/// bounded journal and removal events on a group of bounded storages allocate nothing either.
#[test]
fn a_bounded_groups_observer_keeps_its_events_without_allocating() {
    use sparse_soa::observe::{Journal, Removals};

    let a = SparseMap::<u32, i32, u16>::bounded(CAPACITY, KEY_LIMIT);
    let b = SparseMap::<u32, i32, u16>::bounded(CAPACITY / 2, KEY_LIMIT);
    let mut group = Group::new((a, b)).observed_by((Journal::bounded(1024), Removals::new()));
    let rounds = if cfg!(miri) { 2 } else { 20 };
    let ((), calls) = allocations_during(|| {
        for _ in 0..rounds {
            for key in 0..CAPACITY as u32 / 2 {
                group.member_mut::<0>().insert(key, 1);
                group.member_mut::<1>().insert(key, 1);
            }
            group.observer_mut().0.clear();
            for key in 0..CAPACITY as u32 / 2 {
                group.remove(key);
            }
            assert_eq!(group.observer().1.len(), CAPACITY / 2);
            group.observer_mut().1.clear();
        }
    });
    println!("bounded group with its own journal and removal events: {calls} allocations");
    assert_eq!(calls, 0);

    // Change ticks as the group's own observer, the prefix full: a member's insert that would
    // join past the bound is refused, a replacement stored, and neither allocates.
    let a = SparseMap::<u32, i32, u16>::bounded(4, KEY_LIMIT);
    let b = SparseMap::<u32, i32, u16>::bounded(4, KEY_LIMIT);
    let mut group = Group::new((a, b)).observed_by(sparse_soa::observe::Ticks::new());
    let ((), calls) = allocations_during(|| {
        for key in 0..4 {
            group.member_mut::<0>().insert(key, 1);
            group.member_mut::<1>().insert(key, 1);
        }
        assert_eq!(group.len(), 4);
        assert!(group.member_mut::<0>().try_insert(9, 1).is_err());
        assert_eq!(group.member_mut::<1>().try_insert(2, 5), Ok(Some(1)));
        assert_eq!(group.observer().len(), 4);
    });
    assert_eq!(calls, 0, "a bounded group with ticks of its own allocated");
}

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(dense = u16)]
struct Unit {
    #[sparse_soa(track)]
    hp: u32,
    level: u8,
}

/// Tracked fields are not an observer to the unstable sorts: their stamps follow the swaps in
/// place, and a bounded storage's unstable sorts stay allocation-free, alone or in a group.
#[test]
fn a_bounded_storage_with_tracked_fields_sorts_unstably_without_allocating() {
    let mut units = UnitSoa::bounded(CAPACITY, KEY_LIMIT);
    let mut stream = Stream(0xBEEF);
    while units.len() < CAPACITY {
        let key = stream.index(KEY_LIMIT) as u32;
        units.insert(key, Unit { hp: key % 97, level: 0 });
    }
    let before = units.ticks().now();
    units.ticks_mut().advance();
    let written: Vec<u32> = units.keys().iter().copied().step_by(3).collect();
    for &key in &written {
        *units.get_mut(key).unwrap().hp += 1;
    }
    let ((), calls) = allocations_during(|| {
        units.sort_unstable_by(|_, a, _, b| a.hp.cmp(b.hp));
        units.sort_keys();
    });
    println!("bounded tracked storage, two unstable sorts: {calls} allocations");
    assert_eq!(calls, 0);
    assert!(units.keys().is_sorted());
    let mut changed: Vec<u32> = units.hp_changed_since(before).collect();
    changed.sort_unstable();
    let mut expected = written;
    expected.sort_unstable();
    assert_eq!(changed, expected, "the stamps moved with their rows");

    // In a group too, beside a member with `Ticks`: the members' observers hear the in-place
    // swaps, and nothing is allocated.
    let ticked = SparseMap::<u32, u32, u16>::bounded(CAPACITY, KEY_LIMIT)
        .observed_by(sparse_soa::observe::Ticks::new());
    let mut group = Group::new((units, ticked));
    for key in group.members().0.keys().to_vec() {
        group.member_mut::<1>().insert(key, key % 89);
    }
    let ((), calls) = allocations_during(|| {
        group.sort_unstable_by(|_, (_, a), _, (_, b)| a.cmp(b));
        group.sort_keys();
    });
    println!(
        "bounded group with tracked and ticked members, two unstable sorts: {calls} allocations"
    );
    assert_eq!(calls, 0);
    group.assert_invariants();
    assert!(group.keys().is_sorted());
}

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Spot {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Lit;

#[derive(World)]
struct Scene {
    entities: Entities,
    #[sparse_soa(tag = Lit)]
    lit: Group<(SpotSoa, SparseMap<Entity, u64>), (LitSoa,)>,
    names: SparseMap<Entity, [u8; 8]>,
}

#[test]
fn a_bounded_world_spawns_and_despawns_rows_without_allocating() {
    let mut scene = Scene {
        entities: Entities::bounded(CAPACITY),
        lit: Group::with_excluded(
            (SpotSoa::bounded(CAPACITY, CAPACITY), SparseMap::bounded(CAPACITY, CAPACITY)),
            (LitSoa::bounded(CAPACITY, CAPACITY),),
        ),
        names: SparseMap::bounded(CAPACITY, CAPACITY),
    };
    let mut live: Vec<Entity> = Vec::with_capacity(CAPACITY);
    let mut stream = Stream(0xF00D);
    let ((), calls) = allocations_during(|| {
        for step in 0..OPERATIONS / 10 {
            let roll = stream.index(10);
            if live.len() < CAPACITY && roll < 6 {
                let x = f32::from((step % 1000) as u16);
                let entity = match roll {
                    0 => scene.spawn((Spot { x }, 7_u64, [1; 8])),
                    1 => scene.spawn((Spot { x }, 7_u64, Lit)),
                    2 => scene.spawn(Spot { x }),
                    _ => scene.spawn((7_u64, Spot { x })),
                };
                live.push(entity);
            } else if !live.is_empty() {
                let entity = live.swap_remove(stream.index(live.len()));
                if roll == 9 {
                    scene.insert(entity, ([2; 8], Lit));
                    live.push(entity);
                } else {
                    assert!(scene.despawn(entity));
                }
            }
        }
    });
    scene.lit.assert_invariants();
    scene.entities.assert_invariants();
    println!("bounded world: {} rows live, {calls} allocations", live.len());
    assert_eq!(calls, 0);
    assert_eq!(scene.entities.len(), live.len());
}

/// Sizes the growable storages grow to.
const SIZES: &[u32] = if cfg!(miri) { &[100, 2_000] } else { &[1_000, 10_000, 100_000, 1_000_000] };

/// The bound on the allocations made while growing to `n` elements, for a storage of `arrays`
/// growable arrays: every array grows by doubling (or a multiple of a page, amortised the same
/// way), so one that reaches length `m <= n` (in elements or slots) is allocated at most
/// `log2(m) + 1` times (its first allocation and one per doubling). Hence
/// `c * log2(n) + k` with `c = k = arrays`.
///
/// The arrays, for keys from 0 up (entity ids, indices: the sparse pages then form the prefix):
/// the dense keys, the prefix of full pages, the flat lane's two arrays, the compact-page arena
/// and its free list (the arena holds the one page not yet full, so these two allocate once or
/// twice) make 6 for a set; a map adds its values (7); a derived storage adds one column per
/// field, and `Entity` keys add their versions beside the prefix.
fn bound(n: u32, arrays: usize) -> usize {
    arrays * (n.ilog2() as usize + 1)
}

#[test]
fn growable_storages_allocate_logarithmically_while_growing() {
    for &n in SIZES {
        let (set, calls) = allocations_during(|| {
            let mut set = SparseSet::<u32>::new();
            for key in 0..n {
                set.insert(key);
            }
            set
        });
        println!("SparseSet to {n}: {calls} allocations (bound {})", bound(n, 6));
        assert!(calls <= bound(n, 6), "SparseSet to {n}: {calls} allocations");
        assert_eq!(set.len(), n as usize);

        let (map, calls) = allocations_during(|| {
            let mut map = SparseMap::<u32, u64>::new();
            for key in 0..n {
                map.insert(key, u64::from(key));
            }
            map
        });
        println!("SparseMap to {n}: {calls} allocations (bound {})", bound(n, 7));
        assert!(calls <= bound(n, 7), "SparseMap to {n}: {calls} allocations");
        assert_eq!(map.len(), n as usize);

        let mut entities = Entities::new();
        let handles: Vec<Entity> = (0..n).map(|_| entities.spawn()).collect();
        let (bodies, calls) = allocations_during(|| {
            let mut bodies = BodySoa::new();
            for &entity in &handles {
                bodies.insert(entity, Body { x: 0.0, y: 0.0, mass: 1.0 });
            }
            bodies
        });
        // Six for the key index, its versions, three columns.
        let arrays = 6 + 1 + 3;
        println!("BodySoa to {n}: {calls} allocations (bound {})", bound(n, arrays));
        assert!(calls <= bound(n, arrays), "BodySoa to {n}: {calls} allocations");
        assert_eq!(bodies.len(), n as usize);
    }
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Body {
    x: f32,
    y: f32,
    mass: f64,
}
