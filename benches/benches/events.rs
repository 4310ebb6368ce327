//! What change events cost: a `SparseMap` without an observer (`sparse-soa`), with a hook that
//! counts its events (`-hook`), with a move journal (`-journal`) and with removal events
//! (`-removals`), on the same keys and values.
//!
//! Group = workload and size (`events_remove/1000000`), function = observer. `events_mirror`
//! keeps a `Vec` mirror of the values in sync each frame through the journal's patch, against
//! copying every row. `SPARSE_SOA_BENCH_MODE=quick` shortens every measurement and skips the
//! 1,000,000-element sizes.
//!
//! The `ticks_*` groups also time derived storages: `Position` derived (`sparse-soa-derive`) and
//! with its `x` field tracked (`sparse-soa-derive-track`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use bevy_ecs::component::Component;
use bevy_ecs::query::Changed;
use bevy_ecs::world::World;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion};
use sparse_soa::observe::{Journal, Observer, Removals, Ticks};
use sparse_soa::{Removed, SparseMap, SparseSoa};
use sparse_soa_bench::{
    Position, PositionSoa, Rng, SEED, dense_ascending, group, quick, random_permutation,
    rebuilt_group,
};

/// `Position` with change ticks on `x` alone (`#[sparse_soa(track)]`): 4 bytes a row for when
/// it was added and 4 for `x`.
#[derive(SparseSoa, Clone, Copy)]
struct TrackedPosition {
    #[sparse_soa(track)]
    x: f32,
    y: f32,
    z: f32,
}

/// The element count of every workload.
const N: u32 = 100_000;

/// A hook that counts its events: the cheapest hook that does something.
#[derive(Clone, Default)]
struct Counting(u64);

impl<K, V> Observer<K, V> for Counting {
    #[inline]
    fn inserted(&mut self, _key: K, _index: usize, _value: &V) {
        self.0 += 1;
    }

    #[inline]
    fn removed(&mut self, _key: K, _value: &V, _removed: Removed<K>) {
        self.0 += 1;
    }
}

/// A journal that never asks for a resync in these workloads.
fn journal() -> Journal<u32> {
    Journal::with_limit(1 << 30)
}

/// Times `work` on a map holding `rows` and `observer`, `iters` times. One map serves every
/// run: emptied and refilled before each (untimed), it keeps its memory as it does frame after
/// frame, so no run pays for pages the allocator handed back to the system since the last (a
/// map made anew each run did, by the allocator's state: the first contender of a group ran up
/// to 3x slower than the same code later). The observer is cleared after each refill.
fn timed<O: Observer<u32, Position> + Default>(
    rows: &SparseMap<u32, Position>,
    observer: &mut O,
    clear: impl Fn(&mut O),
    iters: u64,
    mut work: impl FnMut(&mut SparseMap<u32, Position, u32, O>),
) -> Duration {
    let mut map = SparseMap::with_capacity(rows.len()).observed_by(std::mem::take(observer));
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        // Emptied and refilled, then the observer cleared: a journal synced to every row.
        map.clear();
        map.extend(rows.iter().map(|(key, value)| (key, *value)));
        clear(map.observer_mut());
        let start = Instant::now();
        work(&mut map);
        total += start.elapsed();
    }
    let (map, mut used) = map.into_unobserved();
    drop(black_box(map));
    clear(&mut used);
    *observer = used;
    total
}

fn insert_with<O: Observer<u32, Position> + Default>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut observer: O,
    clear: impl Fn(&mut O),
    keys: &[u32],
) {
    let empty = SparseMap::<u32, Position>::with_capacity(keys.len());
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            timed(&empty, &mut observer, &clear, iters, |map| {
                for &key in keys {
                    map.insert(key, Position::from_key(key));
                }
            })
        });
    });
}

fn remove_with<O: Observer<u32, Position> + Default>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut observer: O,
    clear: impl Fn(&mut O),
    size: u32,
) {
    let mut full = SparseMap::<u32, Position>::with_capacity(size as usize);
    for key in dense_ascending(size) {
        full.insert(key, Position::from_key(key));
    }
    let probes = random_permutation(size, SEED);
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            timed(&full, &mut observer, &clear, iters, |map| {
                let mut sum = 0.0;
                for &key in &probes {
                    if let Some(value) = map.remove(key) {
                        sum += value.x;
                    }
                }
                black_box(sum);
            })
        });
    });
}

fn insert(c: &mut Criterion) {
    let sizes: &[u32] = if quick() { &[10_000, N] } else { &[10_000, N, 1_000_000] };
    for &size in sizes {
        let keys = random_permutation(size, SEED);
        let mut g = rebuilt_group(c, "events_insert", size, size);
        insert_with(&mut g, "sparse-soa", (), |()| {}, &keys);
        insert_with(&mut g, "sparse-soa-hook", Counting::default(), |_| {}, &keys);
        insert_with(&mut g, "sparse-soa-journal", journal(), Journal::clear, &keys);
        g.finish();
    }
}

fn remove(c: &mut Criterion) {
    for &size in &[10_000, N, 1_000_000] {
        let mut g = rebuilt_group(c, "events_remove", size, size);
        remove_with(&mut g, "sparse-soa", (), |()| {}, size);
        remove_with(&mut g, "sparse-soa-hook", Counting::default(), |_| {}, size);
        remove_with(&mut g, "sparse-soa-journal", journal(), Journal::clear, size);
        remove_with(&mut g, "sparse-soa-removals", Removals::new(), Removals::clear, size);
        g.finish();
    }
}

/// Iteration does not report anything; a write through `values_mut` reports once.
fn iterate(c: &mut Criterion) {
    let mut plain: SparseMap<u32, Position> = (0..N).map(|k| (k, Position::from_key(k))).collect();
    let mut observed = plain.clone().observed_by(journal());
    let mut g = group(c, "events_iterate", N, N);
    g.bench_function("sparse-soa", |b| {
        b.iter(|| {
            for value in plain.values_mut() {
                value.x += value.y;
            }
            black_box(plain.values().iter().map(|p| p.z).sum::<f32>())
        });
    });
    g.bench_function("sparse-soa-journal", |b| {
        b.iter(|| {
            for value in observed.values_mut() {
                value.x += value.y;
            }
            observed.observer_mut().clear();
            black_box(observed.values().iter().map(|p| p.z).sum::<f32>())
        });
    });
    g.finish();
}

/// One frame on 100,000 rows: 1% of the keys leave and come back, 1% of the rows are written
/// through `get_mut`; then the mirror catches up, from the journal's patch (`-journal-patch`)
/// or by copying every row (`-full-upload`).
fn mirror(c: &mut Criterion) {
    let mut map = SparseMap::<u32, Position>::new().observed_by(journal());
    for key in 0..N {
        map.insert(key, Position::from_key(key));
    }
    map.observer_mut().clear();
    let mut rng = Rng::new(SEED);
    let mut key = || u32::try_from(rng.next_u64() % u64::from(N)).expect("below N");
    let churn: Vec<u32> = (0..N / 100).map(|_| key()).collect();
    let writes: Vec<u32> = (0..N / 100).map(|_| key()).collect();
    let frame = |map: &mut SparseMap<u32, Position, u32, Journal<u32>>| {
        for &key in &churn {
            if let Some(value) = map.remove(key) {
                map.insert(key, value);
            }
        }
        for &key in &writes {
            if let Some(value) = map.get_mut(key) {
                value.y += 1.0;
            }
        }
    };
    let mut g = group(c, "events_mirror", N, N);
    let mut mirror: Vec<Position> = map.values().to_vec();
    g.bench_function("sparse-soa-journal-patch", |b| {
        b.iter(|| {
            frame(&mut map);
            let patch = map.observer().patch();
            mirror.resize(patch.len(), Position::default());
            for rows in patch.ranges() {
                mirror[rows.clone()].copy_from_slice(&map.values()[rows]);
            }
            map.observer_mut().clear();
        });
    });
    g.bench_function("sparse-soa-full-upload", |b| {
        b.iter(|| {
            frame(&mut map);
            mirror.clear();
            mirror.extend_from_slice(map.values());
            map.observer_mut().clear();
        });
    });
    g.finish();
}

/// A bevy component like `Position`, stored in bevy's tables (change ticks always on).
#[derive(Component, Clone, Copy)]
struct BevyPosition(Position);

/// Change ticks on 100,000 rows: a streaming `get_mut` update of every row in random order
/// (`ticks_update`: each write stamps its row; bevy's `Query::get_mut` by `Entity`) and in dense
/// order (`ticks_update_in_order`: the stamps' cache lines stream too); a write to every row through the value slice
/// (`ticks_write_all`: one summary stamp for ours, bevy's `Mut<T>` stamps each row); and a scan
/// for the 10% of rows changed since the last look (`ticks_changed_scan`), against bevy 0.20's
/// `Query<Entity, Changed<T>>`.
fn ticks(c: &mut Criterion) {
    let keys = random_permutation(N, SEED);
    let plain: SparseMap<u32, Position> = (0..N).map(|k| (k, Position::from_key(k))).collect();
    let mut untracked = plain.clone();
    let mut tracked = plain.clone().observed_by(Ticks::new());
    let mut derived: PositionSoa = (0..N).map(|k| (k, Position::from_key(k))).collect();
    let mut fields: TrackedPositionSoa = (0..N)
        .map(|k| {
            let Position { x, y, z } = Position::from_key(k);
            (k, TrackedPosition { x, y, z })
        })
        .collect();
    let mut world = World::new();
    let entities: Vec<_> =
        (0..N).map(|k| world.spawn(BevyPosition(Position::from_key(k))).id()).collect();
    let mut one = world.query::<&mut BevyPosition>();
    let in_order: Vec<u32> = (0..N).collect();
    for (workload, keys) in [("ticks_update", &keys), ("ticks_update_in_order", &in_order)] {
        let mut g = group(c, workload, N, N);
        g.bench_function("sparse-soa", |b| {
            b.iter(|| {
                for &key in keys {
                    if let Some(value) = untracked.get_mut(key) {
                        value.x += 1.0;
                    }
                }
            });
        });
        g.bench_function("sparse-soa-ticks", |b| {
            b.iter(|| {
                for &key in keys {
                    if let Some(value) = tracked.get_mut(key) {
                        value.x += 1.0;
                    }
                }
            });
        });
        derived_update(&mut g, keys, &mut derived, &mut fields);
        g.bench_function("bevy-table", |b| {
            b.iter(|| {
                for &key in keys {
                    if let Ok(mut position) = one.get_mut(&mut world, entities[key as usize]) {
                        position.0.x += 1.0;
                    }
                }
            });
        });
        g.finish();
    }

    let mut g = group(c, "ticks_write_all", N, N);
    g.bench_function("sparse-soa", |b| {
        b.iter(|| {
            for value in untracked.values_mut() {
                value.x += 1.0;
            }
        });
    });
    g.bench_function("sparse-soa-ticks", |b| {
        b.iter(|| {
            for value in tracked.values_mut() {
                value.x += 1.0;
            }
        });
    });
    derived_write_all(&mut g, &mut derived, &mut fields);
    let mut all = world.query::<&mut BevyPosition>();
    g.bench_function("bevy-table", |b| {
        b.iter(|| {
            for mut position in all.iter_mut(&mut world) {
                position.0.x += 1.0;
            }
        });
    });
    g.finish();

    // A tenth of the rows change after the last look.
    let seen = tracked.ticks_mut().advance();
    let fields_seen = fields.ticks_mut().advance();
    world.clear_trackers();
    for &key in keys.iter().take(N as usize / 10) {
        tracked.get_mut(key).expect("present").y += 1.0;
        *fields.get_mut(key).expect("present").x += 1.0;
        let entity = entities[key as usize];
        world.get_mut::<BevyPosition>(entity).expect("present").0.y += 1.0;
    }
    let mut changed = world.query_filtered::<bevy_ecs::entity::Entity, Changed<BevyPosition>>();
    assert_eq!(changed.iter(&world).count(), N as usize / 10);
    assert_eq!(tracked.changed_since(seen).count(), N as usize / 10);
    let mut g = group(c, "ticks_changed_scan", N, N);
    g.bench_function("sparse-soa-ticks", |b| {
        b.iter(|| tracked.changed_since(seen).fold(0_u32, |sum, key| sum ^ key));
    });
    assert_eq!(fields.x_changed_since(fields_seen).count(), N as usize / 10);
    g.bench_function("sparse-soa-derive-track", |b| {
        b.iter(|| fields.x_changed_since(fields_seen).fold(0_u32, |sum, key| sum ^ key));
    });
    g.bench_function("bevy-table", |b| {
        b.iter(|| changed.iter(&world).fold(0_u32, |sum, entity| sum ^ entity.index_u32()));
    });
    g.finish();
}

/// `ticks_update` of the derived storages: a `get_mut` of every row in the order of `keys`,
/// untracked and with `x` tracked.
fn derived_update(
    g: &mut BenchmarkGroup<'_, WallTime>,
    keys: &[u32],
    derived: &mut PositionSoa,
    fields: &mut TrackedPositionSoa,
) {
    g.bench_function("sparse-soa-derive", |b| {
        b.iter(|| {
            for &key in keys {
                if let Some(row) = derived.get_mut(key) {
                    *row.x += 1.0;
                }
            }
        });
    });
    g.bench_function("sparse-soa-derive-track", |b| {
        b.iter(|| {
            for &key in keys {
                if let Some(row) = fields.get_mut(key) {
                    *row.x += 1.0;
                }
            }
        });
    });
}

/// `ticks_write_all` of the derived storages: the `x` column written whole.
fn derived_write_all(
    g: &mut BenchmarkGroup<'_, WallTime>,
    derived: &mut PositionSoa,
    fields: &mut TrackedPositionSoa,
) {
    g.bench_function("sparse-soa-derive", |b| {
        b.iter(|| {
            for x in derived.x_mut() {
                *x += 1.0;
            }
        });
    });
    g.bench_function("sparse-soa-derive-track", |b| {
        b.iter(|| {
            for x in fields.x_mut() {
                *x += 1.0;
            }
        });
    });
}

criterion::criterion_group!(benches, insert, remove, iterate, mirror, ticks);
criterion::criterion_main!(benches);
