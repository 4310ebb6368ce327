//! Queries against a reference evaluation over `BTreeMap`s: random storages of several kinds
//! (a `SparseMap`, a derived storage, a tag `SparseSet`, a user's own `Storage`), random key
//! sets, and queries with shared, mutable, optional and excluded members. Every query's visited
//! keys and views are compared with the reference, then its writes through the mutable views.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use sparse_soa::observe::NoWrites;
use sparse_soa::query::optional;
use sparse_soa::{Columnar, Group, SparseMap, SparseSet, SparseSoa, Storage, map, query};
use sparse_soa_test_support::model;

#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Body {
    mass: i64,
    name: String,
}

/// A user's own storage: a key index and one `Vec` beside it, implementing `Storage` by hand.
#[derive(Default)]
struct Scores {
    keys: SparseSet<u32>,
    values: Vec<i64>,
}

impl Storage for Scores {
    type Key = u32;
    type Dense = u32;
    type Value = i64;
    type Ref<'a> = &'a i64;
    type Mut<'a> = &'a mut i64;

    fn as_sparse_set(&self) -> &SparseSet<u32, u32> {
        &self.keys
    }

    fn get_index(&self, index: usize) -> Option<(u32, &i64)> {
        Some((self.keys.get_index(index)?, self.values.get(index)?))
    }

    fn get_index_mut(&mut self, index: usize) -> Option<(u32, &mut i64)> {
        Some((self.keys.get_index(index)?, self.values.get_mut(index)?))
    }

    fn try_insert(&mut self, key: u32, value: i64) -> Result<Option<i64>, sparse_soa::Error> {
        let (index, added) = self.keys.try_insert_full(key)?;
        if added {
            self.values.push(value);
            Ok(None)
        } else {
            Ok(Some(std::mem::replace(&mut self.values[index], value)))
        }
    }

    fn remove(&mut self, key: u32) -> Option<i64> {
        let removed = self.keys.remove_with_info(key)?;
        Some(self.values.swap_remove(removed.index))
    }
}

/// What a storage of one's own needs to be a query member: its columns as slices. One column of
/// values, so `map::Columns` fits.
impl Columnar for Scores {
    type Columns<'a> = map::Columns<'a, u32, i64>;
    type ColumnsMut<'a> = map::ColumnsMut<'a, u32, i64>;
    type Writes<'a> = NoWrites;

    fn columns(&self) -> Self::Columns<'_> {
        map::Columns { keys: self.keys.as_slice(), values: &self.values }
    }

    fn columns_mut(&mut self) -> Self::ColumnsMut<'_> {
        map::ColumnsMut { keys: self.keys.as_slice(), values: &mut self.values }
    }

    fn index_and_columns_mut(&mut self) -> (&SparseSet<u32>, Self::ColumnsMut<'_>) {
        (&self.keys, map::ColumnsMut { keys: self.keys.as_slice(), values: &mut self.values })
    }

    fn index_columns_and_writes(
        &mut self,
    ) -> (&SparseSet<u32>, Self::ColumnsMut<'_>, Self::Writes<'_>) {
        let (index, columns) = self.index_and_columns_mut();
        (index, columns, NoWrites) // no observer to tell
    }

    fn row<'a>(columns: &Self::Columns<'a>, index: usize) -> Option<&'a i64> {
        columns.values.get(index)
    }

    fn row_mut<'v>(columns: &'v mut Self::ColumnsMut<'_>, index: usize) -> Option<&'v mut i64> {
        columns.values.get_mut(index)
    }

    fn swap_indices(&mut self, a: usize, b: usize) {
        self.keys.swap_indices(a, b);
        self.values.swap(a, b);
    }

    fn swap_remove_index(&mut self, index: usize) -> Option<(u32, i64)> {
        let key = self.keys.swap_remove_index(index)?;
        Some((key, self.values.swap_remove(index)))
    }
}

/// Every storage of the world, and the reference beside it.
#[derive(Default)]
struct World {
    health: SparseMap<u32, i64>,
    bodies: BodySoa,
    frozen: SparseSet<u32>,
    scores: Scores,
    dead: SparseSet<u32, u8>,
}

#[derive(Default, Debug)]
struct Reference {
    health: BTreeMap<u32, i64>,
    bodies: BTreeMap<u32, (i64, String)>,
    frozen: BTreeSet<u32>,
    scores: BTreeMap<u32, i64>,
    dead: BTreeSet<u32>,
}

#[derive(Clone, Debug)]
enum Op {
    Health(u32, i64),
    Body(u32, i64),
    Freeze(u32),
    Score(u32, i64),
    Kill(u32),
    Remove(u32),
}

/// Keys crowd two pages and reach far past them, so storages overlap partly.
fn key() -> impl Strategy<Value = u32> {
    prop_oneof![0..48_u32, 510..520_u32, Just(70_000)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (key(), -50..50_i64).prop_map(|(k, v)| Op::Health(k, v)),
        4 => (key(), -50..50_i64).prop_map(|(k, v)| Op::Body(k, v)),
        2 => key().prop_map(Op::Freeze),
        3 => (key(), -50..50_i64).prop_map(|(k, v)| Op::Score(k, v)),
        1 => key().prop_map(Op::Kill),
        3 => key().prop_map(Op::Remove),
    ]
}

fn apply(world: &mut World, reference: &mut Reference, op: &Op) {
    match *op {
        Op::Health(k, v) => {
            world.health.insert(k, v);
            reference.health.insert(k, v);
        }
        Op::Body(k, v) => {
            world.bodies.insert(k, Body { mass: v, name: format!("b{k}") });
            reference.bodies.insert(k, (v, format!("b{k}")));
        }
        Op::Freeze(k) => {
            world.frozen.insert(k);
            reference.frozen.insert(k);
        }
        Op::Score(k, v) => {
            Storage::insert(&mut world.scores, k, v);
            reference.scores.insert(k, v);
        }
        Op::Kill(k) => {
            if k < 256 {
                world.dead.insert(k);
                reference.dead.insert(k);
            }
        }
        Op::Remove(k) => {
            world.health.remove(k);
            world.bodies.remove(k);
            world.frozen.remove(k);
            Storage::remove(&mut world.scores, k);
            world.dead.remove(k);
            reference.health.remove(&k);
            reference.bodies.remove(&k);
            reference.frozen.remove(&k);
            reference.scores.remove(&k);
            reference.dead.remove(&k);
        }
    }
}

fn check(world: &World, reference: &Reference) {
    world.health.assert_invariants();
    Storage::assert_invariants(&world.bodies);
    world.frozen.assert_invariants();
    Storage::assert_invariants(&world.scores);
    world.dead.assert_invariants();
    assert_eq!(
        world.health.iter().map(|(k, &v)| (k, v)).collect::<BTreeMap<_, _>>(),
        reference.health
    );
    assert_eq!(
        world
            .bodies
            .iter()
            .map(|(k, b)| (k, (*b.mass, b.name.clone())))
            .collect::<BTreeMap<_, _>>(),
        reference.bodies
    );
    assert_eq!(world.frozen.iter().collect::<BTreeSet<_>>(), reference.frozen);
    assert_eq!(
        world
            .scores
            .keys
            .iter()
            .zip(world.scores.values.iter().copied())
            .collect::<BTreeMap<_, _>>(),
        reference.scores
    );
    assert_eq!(world.dead.iter().collect::<BTreeSet<_>>(), reference.dead);
}

/// The keys in every one of `required` and in none of `excluded`, ascending.
fn expected(required: &[BTreeSet<u32>], excluded: &[&BTreeSet<u32>]) -> Vec<u32> {
    let (first, rest) = required.split_first().expect("one required member");
    first
        .iter()
        .copied()
        .filter(|k| rest.iter().all(|set| set.contains(k)))
        .filter(|k| excluded.iter().all(|set| !set.contains(k)))
        .collect()
}

fn keys<V>(map: &BTreeMap<u32, V>) -> BTreeSet<u32> {
    map.keys().copied().collect()
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

/// Shape 1: `(&mut health, &bodies)` without `frozen`; health gains the body's mass.
fn move_like(world: &mut World, reference: &mut Reference) {
    let want = expected(&[keys(&reference.health), keys(&reference.bodies)], &[&reference.frozen]);
    let mut seen = Vec::new();
    query((&mut world.health, &world.bodies)).without(&world.frozen).for_each(
        |k, (health, body)| {
            assert_eq!(*body.mass, reference.bodies[&k].0);
            assert_eq!(*health, reference.health[&k]);
            *health = health.wrapping_add(*body.mass);
            seen.push(k);
        },
    );
    assert_eq!(sorted(seen), want);
    for k in want {
        let mass = reference.bodies[&k].0;
        let health = reference.health.get_mut(&k).expect("in health");
        *health = health.wrapping_add(mass);
    }
}

/// Shape 2: two mutable storages, a tag member and an optional member, two exclusions, through
/// the lending iterator.
fn two_mutable(world: &mut World, reference: &mut Reference) {
    let want = expected(
        &[keys(&reference.bodies), keys(&reference.scores), reference.frozen.clone()],
        &[&reference.dead],
    );
    let mut seen = Vec::new();
    let mut query =
        query((&mut world.bodies, &mut world.scores, &world.frozen, optional(&world.health)))
            .without((&world.dead,));
    let mut iter = query.iter();
    while let Some((k, (body, score, (), health))) = iter.next() {
        assert_eq!(health.copied(), reference.health.get(&k).copied());
        *body.mass = body.mass.wrapping_sub(1);
        *score = score.wrapping_add(health.copied().unwrap_or(100));
        seen.push(k);
    }
    assert_eq!(sorted(seen), want);
    for k in want {
        let body = reference.bodies.get_mut(&k).expect("in bodies");
        body.0 = body.0.wrapping_sub(1);
        let add = reference.health.get(&k).copied().unwrap_or(100);
        let score = reference.scores.get_mut(&k).expect("in scores");
        *score = score.wrapping_add(add);
    }
}

/// Shape 3: shared members only, through the std iterator; an optional mutable member.
fn shared_and_optional(world: &mut World, reference: &mut Reference) {
    let want: Vec<(u32, Option<i64>)> = expected(&[keys(&reference.scores)], &[&reference.frozen])
        .into_iter()
        .map(|k| (k, reference.health.get(&k).copied()))
        .collect();
    let got: Vec<(u32, Option<i64>)> = query((&world.scores, optional(&world.health)))
        .without(&world.frozen)
        .into_iter()
        .map(|(k, (score, health))| {
            assert_eq!(*score, reference.scores[&k]);
            (k, health.copied())
        })
        .collect();
    assert_eq!(sorted(got), want);
    // Step by step (`next`, as a `for` loop calls it), not through `fold`.
    let mut stepped = Vec::new();
    for (k, (_, health)) in query((&world.scores, optional(&world.health))).without(&world.frozen) {
        stepped.push((k, health.copied()));
    }
    assert_eq!(sorted(stepped), want);

    // An optional mutable member: written where present.
    let want = expected(&[keys(&reference.scores)], &[]);
    let mut seen = Vec::new();
    query((&world.scores, optional(&mut world.health))).for_each(|k, (score, health)| {
        if let Some(health) = health {
            *health ^= score;
        }
        seen.push(k);
    });
    assert_eq!(sorted(seen), want);
    for k in want {
        let score = reference.scores[&k];
        if let Some(health) = reference.health.get_mut(&k) {
            *health ^= score;
        }
    }
}

/// Shape 4: every kind at once (5 members, one of them a narrow-width tag) and an exclusion.
fn wide(world: &mut World, reference: &mut Reference) {
    let want = expected(
        &[
            keys(&reference.health),
            keys(&reference.bodies),
            keys(&reference.scores),
            reference.dead.clone(),
        ],
        &[&reference.frozen],
    );
    let mut seen = Vec::new();
    query((
        &mut world.health,
        &world.bodies,
        &mut world.scores,
        &world.dead,
        optional(&world.frozen),
    ))
    .without(&world.frozen)
    .for_each(|k, (health, body, score, (), frozen)| {
        assert!(frozen.is_none(), "an excluded storage's key was visited");
        assert_eq!(body.name, &format!("b{k}"));
        std::mem::swap(health, score);
        seen.push(k);
    });
    assert_eq!(sorted(seen), want);
    for k in want {
        let health = reference.health[&k];
        let score = reference.scores[&k];
        reference.health.insert(k, score);
        reference.scores.insert(k, health);
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn queries_match_the_reference(ops in prop::collection::vec(op(), 0..if cfg!(miri) { 30 } else { 120 }), every in 1..6_usize) {
        let mut world = World::default();
        let mut reference = Reference::default();
        for (step, op) in ops.iter().enumerate() {
            apply(&mut world, &mut reference, op);
            if step % every == 0 {
                move_like(&mut world, &mut reference);
                two_mutable(&mut world, &mut reference);
                shared_and_optional(&mut world, &mut reference);
                wide(&mut world, &mut reference);
            }
            check(&world, &reference);
        }
    }
}

/// The smallest required member drives, so keys come in its dense order.
#[test]
fn the_smallest_required_member_drives() {
    let big: SparseMap<u32, i32> = (0..10).map(|k| (k, 0)).collect();
    let small: SparseMap<u32, i32> = [7, 3, 5].into_iter().map(|k| (k, 0)).collect();
    let order: Vec<u32> = query((&big, &small)).into_iter().map(|(k, _)| k).collect();
    assert_eq!(order, [7, 3, 5]);
    // An optional member never drives, however small.
    let order: Vec<u32> = query((optional(&small), &big)).into_iter().map(|(k, _)| k).collect();
    assert_eq!(order, (0..10).collect::<Vec<_>>());
}

/// The lending iterator's size hint bounds what is left (exactly, for one member and no
/// filter), and an empty driver visits nothing.
#[test]
fn size_hint_and_empty_members() {
    let mut a: SparseMap<u32, i32> = (0..4).map(|k| (k, 0)).collect();
    let empty: SparseSet<u32> = SparseSet::new();
    let mut q = query((&mut a, &empty));
    let mut iter = q.iter();
    assert_eq!(iter.size_hint(), (0, Some(0)));
    assert!(iter.next().is_none());
    let mut q = query((&mut a,));
    let mut iter = q.iter();
    assert_eq!(iter.size_hint(), (4, Some(4)));
    iter.next();
    assert_eq!(iter.size_hint(), (3, Some(3)));
    let mut q = query((&mut a,)).without(&empty);
    assert_eq!(q.iter().size_hint(), (0, Some(4)));
}

/// Up to 8 members of mixed kinds.
#[test]
fn eight_members() {
    let maps: Vec<SparseMap<u32, u32>> = (0..7)
        .map(|m| (0..20).filter(|k| k % (m + 1) != 1).map(|k| (k, k * 10 + m)).collect())
        .collect();
    let tag: SparseSet<u32, u16> = (0..20).collect();
    let [m0, m1, m2, m3, m4, m5, m6] = &maps[..] else { unreachable!() };
    let mut out = Vec::new();
    query((m0, m1, m2, m3, m4, m5, m6, &tag)).for_each(|k, (v0, v1, v2, v3, v4, v5, v6, ())| {
        out.push((k, v0 + v1 + v2 + v3 + v4 + v5 + v6));
    });
    let want: Vec<(u32, u32)> = (0..20)
        .filter(|k| (0..7).all(|m| k % (m + 1) != 1))
        .map(|k| (k, (0..7).map(|m| k * 10 + m).sum()))
        .collect();
    assert_eq!(sorted(out), want);
}

/// `join` still works, as a thin layer over queries.
#[test]
fn join_is_a_two_member_query() {
    let mut a: SparseMap<u32, i32> = [(1, 1), (2, 2)].into_iter().collect();
    let b: SparseMap<u32, i32> = [(2, 20), (3, 30)].into_iter().collect();
    sparse_soa::join::for_each_mut(&mut a, &b, |_, a, b| *a += b);
    assert_eq!(a[2], 22);
    let pairs: Vec<_> =
        sparse_soa::join::intersection(&a, &b).map(|(k, a, b)| (k, *a, *b)).collect();
    assert_eq!(pairs, [(2, 22, 20)]);
}

/// A unit struct derives a tag storage: a `SparseSet` of the keys that have it, usable as a
/// member (view `()`) or an exclusion, and generational keys refuse stale entities everywhere.
#[test]
fn derived_tags_and_entities() {
    use sparse_soa::{Entities, Entity};

    #[derive(SparseSoa)]
    #[sparse_soa(key = Entity)]
    struct Frozen;

    #[derive(SparseSoa)]
    #[sparse_soa(key = Entity)]
    struct Velocity {
        dx: f32,
    }

    let mut entities = Entities::new();
    let mut positions: SparseMap<Entity, f32> = SparseMap::new();
    let mut velocities = VelocitySoa::new();
    let mut frozen = FrozenSoa::new();
    let [a, b, c] = [entities.spawn(), entities.spawn(), entities.spawn()];
    for (entity, dx) in [(a, 1.0), (b, 2.0), (c, 3.0)] {
        positions.insert(entity, 0.0);
        velocities.insert(entity, Velocity { dx });
    }
    frozen.insert(b);
    // `c` dies; a new entity takes its slot and has a position only.
    entities.despawn(c);
    positions.remove(c);
    let d = entities.spawn();
    assert_eq!(d.index(), c.index());
    positions.insert(d, 10.0);

    query((&mut positions, &velocities)).without(&frozen).for_each(|_, (x, v)| *x += *v.dx);
    assert_eq!(positions.get(a), Some(&1.0));
    assert_eq!(positions.get(b), Some(&0.0));
    // `velocities` still holds the stale `c`: its generation keeps `d` from matching it.
    assert_eq!(positions.get(d), Some(&10.0));

    let tagged: Vec<Entity> = query((&frozen, &positions)).into_iter().map(|(e, _)| e).collect();
    assert_eq!(tagged, [b]);
}

/// Keys in runs inside the sparse prefixes and far past them, in both orders and of lengths
/// around the walk's switch between its quick loop and its full lookups: `for_each`, the std
/// iterator's `fold` and `next`, and the lending iterator visit every match once, in the
/// driver's order.
#[test]
fn walks_switch_between_prefix_and_far_keys() {
    for run in [1_u32, 15, 16, 17, 40] {
        let mut driver_keys = Vec::new();
        for block in 0..8 {
            for i in 0..run {
                let near = block * run + i;
                driver_keys.push(if block % 2 == 0 { near } else { 3_000_000_000 + near * 7_919 });
            }
        }
        let driver: SparseMap<u32, u64> = driver_keys.iter().map(|&k| (k, u64::from(k))).collect();
        // Every third key missing from the probed member, every fifth excluded.
        let probed: SparseMap<u32, u64> = driver_keys
            .iter()
            .enumerate()
            .filter(|(n, _)| n % 3 != 1)
            .map(|(_, &k)| (k, u64::from(k / 2)))
            .chain((0..200).map(|k| (4_000_000_000 - k, 0)))
            .collect();
        let excluded: SparseSet<u32> =
            driver_keys.iter().enumerate().filter(|(n, _)| n % 5 == 2).map(|(_, &k)| k).collect();
        let want: Vec<(u32, u64)> = driver_keys
            .iter()
            .enumerate()
            .filter(|(n, _)| n % 3 != 1 && n % 5 != 2)
            .map(|(_, &k)| (k, u64::from(k) + u64::from(k / 2)))
            .collect();

        let mut seen = Vec::new();
        query((&driver, &probed)).without(&excluded).for_each(|k, (a, b)| seen.push((k, a + b)));
        assert_eq!(seen, want, "for_each, runs of {run}");

        let folded = query((&driver, &probed)).without(&excluded).into_iter().fold(
            Vec::new(),
            |mut seen, (k, (a, b))| {
                seen.push((k, a + b));
                seen
            },
        );
        assert_eq!(folded, want, "fold, runs of {run}");

        // A `for` loop calls `next`, where `fold` runs the walk's own loop.
        let mut stepped = Vec::new();
        for (k, (a, b)) in query((&driver, &probed)).without(&excluded) {
            stepped.push((k, a + b));
        }
        assert_eq!(stepped, want, "next, runs of {run}");

        let mut lent = Vec::new();
        let mut driver = driver;
        let mut q = query((&mut driver, &probed)).without(&excluded);
        let mut iter = q.iter();
        while let Some((k, (a, b))) = iter.next() {
            lent.push((k, *a + b));
        }
        assert_eq!(lent, want, "lending iterator, runs of {run}");
    }
}

/// Storages whose sparse prefixes end far apart (a few hundred slots, a thousand, thousands):
/// a walk answers without a call only the keys every one of them covers, and every walk
/// still visits exactly the matches, in the driver's order, with the right values; optional
/// members and excluded storages included.
#[test]
fn walks_over_prefixes_of_different_lengths() {
    let excluded_key = |k: u32| k % 5 == 2 && k < 700;
    let driver: SparseMap<u32, u64> = (0..3_000).map(|k| (k, u64::from(k))).collect();
    let probed: SparseMap<u32, u64> =
        (0..3_000).filter(|k| k % 7 != 3).map(|k| (k, u64::from(k) * 10)).collect();
    let short: SparseMap<u32, u64> = (0..40).map(|k| (k, 1)).collect();
    let excluded: SparseSet<u32> = (0..3_000).filter(|&k| excluded_key(k)).collect();
    let want: Vec<(u32, u64)> = (0..3_000)
        .filter(|&k| k % 7 != 3 && !excluded_key(k))
        .map(|k| (k, u64::from(k) * 11 + u64::from(k < 40)))
        .collect();

    let mut seen = Vec::new();
    query((&driver, &probed, optional(&short))).without(&excluded).for_each(|k, (a, b, c)| {
        seen.push((k, a + b + c.copied().unwrap_or(0)));
    });
    assert_eq!(seen, want, "for_each");

    let folded: Vec<(u32, u64)> = query((&driver, &probed, optional(&short)))
        .without(&excluded)
        .into_iter()
        .map(|(k, (a, b, c))| (k, a + b + c.copied().unwrap_or(0)))
        .collect();
    assert_eq!(folded, want, "fold");

    let mut stepped = Vec::new();
    for (k, (a, b, c)) in query((&driver, &probed, optional(&short))).without(&excluded) {
        stepped.push((k, a + b + c.copied().unwrap_or(0)));
    }
    assert_eq!(stepped, want, "next");

    let mut driver = driver;
    let mut lent = Vec::new();
    let mut q = query((&mut driver, &probed, optional(&short))).without(&excluded);
    let mut iter = q.iter();
    while let Some((k, (a, b, c))) = iter.next() {
        lent.push((k, *a + b + c.copied().unwrap_or(0)));
    }
    assert_eq!(lent, want, "lending iterator");

    // The short storage required and driving: the long ones probed, cut to its prefix.
    let mut seen = Vec::new();
    query((&short, &probed)).without(&excluded).for_each(|k, (_, b)| seen.push((k, *b)));
    let want: Vec<(u32, u64)> = (0..40)
        .filter(|&k| k % 7 != 3 && !excluded_key(k))
        .map(|k| (k, u64::from(k) * 10))
        .collect();
    assert_eq!(seen, want, "the short storage driving");
}

/// A group probed while another member drives: where a key takes a walk off its quick path (a
/// key past another member's sparse prefix, or an excluded storage that must be asked), the
/// group is looked up in full like any storage, forward and backward, in every walk; and an
/// optional group answers the same.
#[test]
fn a_probed_group_answers_the_walks_full_lookups() {
    let far = |k: u32| 3_000_000_000 + k * 7_919;
    // Near and far keys, in runs; the group's rows are every key but each fourth, aligned in
    // both members for every third.
    let all: Vec<u32> = (0..60).map(|k| if (k / 10) % 2 == 0 { k } else { far(k) }).collect();
    let first: SparseMap<u32, u64> =
        all.iter().enumerate().filter(|(n, _)| n % 4 != 3).map(|(_, &k)| (k, 1)).collect();
    let second: SparseMap<u32, u64> =
        all.iter().enumerate().filter(|(n, _)| n % 3 != 2).map(|(_, &k)| (k, 10)).collect();
    let group = Group::new((first, second));
    let in_group = |n: usize| n % 4 != 3 && n % 3 != 2;
    // The driver: every other key, so the smaller member drives.
    let driver: SparseMap<u32, u64> =
        all.iter().enumerate().filter(|(n, _)| n % 2 == 0).map(|(_, &k)| (k, 100)).collect();
    let empty = SparseSet::<u32>::new();
    let excluded: SparseSet<u32> =
        all.iter().enumerate().filter(|(n, _)| n % 5 == 0).map(|(_, &k)| k).collect();

    for (exclude, what) in [(&empty, "an empty excluded storage"), (&excluded, "one that excludes")]
    {
        let want: Vec<u32> = all
            .iter()
            .enumerate()
            .filter(|&(n, &k)| n % 2 == 0 && in_group(n) && !exclude.contains(k))
            .map(|(_, &k)| k)
            .collect();
        let q = || query((&driver, &group)).without(exclude).drive_by(&driver);
        let mut seen = Vec::new();
        q().for_each(|k, (d, (a, b))| {
            assert_eq!(d + a + b, 111);
            seen.push(k);
        });
        assert_eq!(seen, want, "for_each, {what}");
        let folded: Vec<u32> = q().into_iter().map(|(k, _)| k).collect();
        assert_eq!(folded, want, "fold, {what}");
        let mut stepped = Vec::new();
        for (k, _) in q() {
            stepped.push(k);
        }
        assert_eq!(stepped, want, "next, {what}");
        let mut back: Vec<u32> = q().into_iter().rev().map(|(k, _)| k).collect();
        back.reverse();
        assert_eq!(back, want, "next_back, {what}");
        // Without `drive_by`, the smaller member drives: the driver here.
        let chosen: Vec<u32> =
            query((&driver, &group)).without(exclude).into_iter().map(|(k, _)| k).collect();
        assert_eq!(chosen, want, "the driver chosen, {what}");

        // The group optional: every driven key not excluded, with the group's row where it has
        // one.
        let mut optional_rows = Vec::new();
        query((&driver, optional(&group))).without(exclude).for_each(|k, (_, row)| {
            optional_rows.push((k, row.is_some()));
        });
        let want_optional: Vec<(u32, bool)> = all
            .iter()
            .enumerate()
            .filter(|&(n, &k)| n % 2 == 0 && !exclude.contains(k))
            .map(|(n, &k)| (k, in_group(n)))
            .collect();
        assert_eq!(optional_rows, want_optional, "optional group, {what}");
    }
}
