//! Whole rows through `#[derive(World)]`: `spawn`, `try_spawn`, `spawn_batch`, `insert` and
//! `try_insert`, against a `BTreeMap` reference, with the group's invariant checker after every
//! step of a model that also despawns, forgets entities and sorts the group.

use std::collections::{BTreeMap, BTreeSet};
use std::num::NonZeroU32;
use std::panic::{AssertUnwindSafe, catch_unwind};

use proptest::prelude::*;
use sparse_soa::{Entities, Entity, Error, Group, SparseMap, SparseSoa, Storage, World};
use sparse_soa_test_support::model;
use sparse_soa_test_support::panics::Bomb;

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Position {
    x: i32,
    y: i32,
}

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Velocity {
    dx: i32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Frozen;

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Spark;

#[derive(Default, World)]
struct Game {
    entities: Entities,
    #[sparse_soa(tag = Frozen)]
    motion: Group<(PositionSoa, VelocitySoa), (FrozenSoa,)>,
    names: SparseMap<Entity, String>,
    #[sparse_soa(tag = Spark)]
    sparks: SparkSoa,
}

fn check(game: &Game) {
    game.entities.assert_invariants();
    game.motion.assert_invariants();
    game.names.assert_invariants();
    Storage::assert_invariants(&game.sparks);
}

#[test]
fn spawn_stores_every_component_and_completes_the_group() {
    let mut game = Game::default();
    let a = game.spawn((Position { x: 1, y: 2 }, Velocity { dx: 3 }, "a".to_string()));
    let b = game.spawn(Position { x: 4, y: 5 });
    let c = game.spawn((Spark, Velocity { dx: 6 }, Position { x: 7, y: 8 }));
    check(&game);
    assert!(game.entities.is_alive(a) && game.entities.is_alive(b) && game.entities.is_alive(c));
    assert_eq!(game.motion.keys(), &[a, c], "the rows with both members are aligned");
    assert_eq!(game.names.get(a).map(String::as_str), Some("a"));
    assert!(game.sparks.contains(c) && !game.sparks.contains(a));
    let (positions, velocities) = game.motion.members();
    assert_eq!(positions.get(b).map(|p| *p.x), Some(4));
    assert_eq!(velocities.len(), 2);

    // A frozen row is stored in the excluded storage and stays out of the prefix.
    let d = game.spawn((Position { x: 0, y: 0 }, Velocity { dx: 0 }, Frozen));
    check(&game);
    assert_eq!(game.motion.keys(), &[a, c]);
    assert!(game.motion.excluded().0.contains(d));
}

#[test]
fn insert_adds_components_to_a_live_entity_and_joins_its_group() {
    let mut game = Game::default();
    let a = game.spawn(Position { x: 1, y: 1 });
    assert!(game.motion.is_empty());
    game.insert(a, (Velocity { dx: 2 }, "a".to_string()));
    check(&game);
    assert_eq!(game.motion.keys(), &[a]);
    // Replacing values keeps the row where it is.
    game.insert(a, (Position { x: 9, y: 9 }, Velocity { dx: 9 }));
    check(&game);
    assert_eq!(game.motion.get(a).map(|(p, v)| (*p.x, *v.dx)), Some((9, 9)));
    // Freezing it through a row takes it out of the prefix.
    game.insert(a, Frozen);
    check(&game);
    assert!(game.motion.is_empty());
}

#[test]
fn a_row_is_distinct_unless_it_names_one_storage_twice() {
    // What the world's methods assert when the program is built (a row naming one storage
    // twice does not build: the error is at the call, which a check-only test cannot see).
    fn distinct<B: sparse_soa::Bundle<Game, I>, I>(_: &B) -> bool {
        B::DISTINCT
    }
    let (position, velocity) = (Position { x: 0, y: 0 }, Velocity { dx: 0 });
    assert!(distinct(&position));
    assert!(distinct(&(position, velocity, Frozen, Spark, String::new())));
    assert!(!distinct(&(position, position)));
    assert!(!distinct(&(Spark, velocity, Spark)));
    // Two members of one group are two storages; a member and the excluded tag too.
    assert!(distinct(&(velocity, position, Frozen)));
}

/// The hidden `Bundle::put`, which the world's checked methods call, refuses such a row too
/// (in debug builds), for a caller of its own.
#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "a row names one storage twice")]
fn the_hidden_put_refuses_a_row_that_names_one_storage_twice() {
    let mut game = Game::default();
    let entity = game.spawn(Velocity { dx: 0 });
    let row = (Velocity { dx: 1 }, Velocity { dx: 2 });
    let _ = sparse_soa::Bundle::<Game, _>::put::<true>(row, &mut game, entity);
}

#[test]
fn a_despawned_entity_is_refused_by_insert() {
    let mut game = Game::default();
    let a = game.spawn(Position { x: 1, y: 1 });
    assert!(game.despawn(a));
    let error = game.try_insert(a, (Velocity { dx: 1 }, "late".to_string())).unwrap_err();
    assert_eq!(error, Error::NotAlive { index: a.index(), generation: a.generation().get() });
    assert!(error.to_string().contains("not alive"), "{error}");
    assert!(game.names.is_empty() && game.motion.members().1.is_empty());
    check(&game);

    // Refused also once the slot is reused: the handle is older than the live entity.
    let b = game.spawn(Position { x: 2, y: 2 });
    assert_eq!(b.index(), a.index());
    assert!(game.try_insert(a, Velocity { dx: 1 }).is_err());
    assert!(game.motion.is_empty());
    check(&game);

    let panicked = catch_unwind(AssertUnwindSafe(|| game.insert(a, Spark)));
    assert!(panicked.is_err(), "insert of a dead entity panics");
}

#[derive(World)]
struct Small {
    entities: Entities,
    pair: Group<(PositionSoa, VelocitySoa)>,
    /// Room for two names: the third row fails there, after the group's puts.
    names: SparseMap<Entity, String>,
}

impl Small {
    fn new() -> Self {
        Small {
            entities: Entities::new(),
            pair: Group::new((PositionSoa::new(), VelocitySoa::new())),
            names: SparseMap::bounded(2, 64),
        }
    }
}

#[test]
fn a_failed_row_changes_nothing() {
    let mut small = Small::new();
    let a = small.spawn((Position { x: 1, y: 1 }, Velocity { dx: 1 }, "a".to_string()));
    let b = small.spawn((Position { x: 2, y: 2 }, "b".to_string()));
    let error = small
        .try_spawn((Position { x: 3, y: 3 }, Velocity { dx: 3 }, "c".to_string()))
        .unwrap_err();
    assert_eq!(error, Error::Full { capacity: 2 });
    small.pair.assert_invariants();
    small.entities.assert_invariants();
    assert_eq!(small.entities.len(), 2, "the failed spawn's entity is freed");
    assert_eq!(small.pair.keys(), &[a]);
    assert_eq!(small.pair.members().0.len(), 2);

    // A failed insert into a live entity puts back what it replaced.
    let stored =
        small.try_insert(b, (Velocity { dx: 5 }, Position { x: 7, y: 7 }, "x".to_string()));
    assert_eq!(stored, Ok(()), "b already has a name: replacing it needs no room");
    small.pair.assert_invariants();
    assert_eq!(small.pair.keys(), &[a, b]);
    let c = small.entities.spawn();
    let error = small.try_insert(c, (Velocity { dx: 9 }, "c".to_string())).unwrap_err();
    assert_eq!(error, Error::Full { capacity: 2 });
    small.pair.assert_invariants();
    assert!(!small.pair.members().1.contains_key(c), "the velocity was taken back");
    assert_eq!(small.names.get(b).map(String::as_str), Some("x"));
}

/// An entity despawned from the allocator alone leaves its rows; the slot's next entity is
/// alive. A row into it that fails must not hand it the old rows' values.
#[test]
fn a_failed_insert_gives_a_live_entity_no_value_of_an_older_generation() {
    let mut small = Small::new();
    let old = small.spawn((Position { x: 1, y: 1 }, Velocity { dx: 1 }));
    small.entities.despawn(old); // the rows stay
    let live = small.entities.spawn();
    assert_eq!(live.index(), old.index());
    small.spawn("a".to_string());
    small.spawn("b".to_string()); // the names are full
    let error = small.try_insert(live, (Position { x: 5, y: 5 }, "x".to_string())).unwrap_err();
    assert_eq!(error, Error::Full { capacity: 2 });
    small.pair.assert_invariants();
    let (positions, velocities) = small.pair.members();
    assert!(!positions.contains_key(live), "the old generation's position is not the entity's");
    assert!(!positions.contains_key(old), "replaced by the failed row, and dropped");
    assert!(velocities.contains_key(old), "a storage the row did not name keeps its row");
    assert!(small.pair.is_empty());

    // The entity's own value is given back.
    small.insert(live, Position { x: 7, y: 7 });
    let error = small.try_insert(live, (Position { x: 8, y: 8 }, "y".to_string())).unwrap_err();
    assert_eq!(error, Error::Full { capacity: 2 });
    small.pair.assert_invariants();
    assert_eq!(small.pair.members().0.get(live).map(|p| (*p.x, *p.y)), Some((7, 7)));
}

#[test]
fn spawn_batch_yields_the_entities_and_spawns_the_rest_when_dropped() {
    let mut game = Game::default();
    let rows = (0..10).map(|i| (Position { x: i, y: 0 }, Velocity { dx: i }));
    let first: Vec<Entity> = game.spawn_batch(rows).take(3).collect();
    assert_eq!(first.len(), 3);
    assert_eq!(game.entities.len(), 10, "the rest spawned when the iterator was dropped");
    assert_eq!(game.motion.len(), 10);
    check(&game);
    let all: Vec<Entity> = game.spawn_batch((0..5).map(|i| Position { x: i, y: i })).collect();
    assert_eq!(all.len(), 5);
    assert!(all.iter().all(|&e| game.motion.members().0.contains_key(e)));
    assert_eq!(game.motion.len(), 10);
    check(&game);
}

/// A dropped batch stores its rows a run at a time; it issues the entities and leaves every
/// storage as spawning the rows one by one does, also over slots whose old rows stayed behind
/// (an entity despawned from the allocator alone) and freed slots reused.
#[test]
fn a_dropped_batch_matches_spawning_one_by_one() {
    fn prepare() -> (Game, Vec<Entity>) {
        let mut game = Game::default();
        let early: Vec<Entity> = (0..700)
            .map(|i| game.spawn((Position { x: i, y: 0 }, Velocity { dx: 0 }, Spark)))
            .collect();
        for &entity in early.iter().step_by(3) {
            game.despawn(entity);
        }
        for &entity in early.iter().skip(1).step_by(50) {
            // Its rows stay until the slot is spawned again.
            game.entities.despawn(entity);
        }
        (game, early)
    }
    let rows = |n: i32| (0..n).map(|i| (Position { x: i, y: -i }, Velocity { dx: i }, Frozen));
    let (mut batched, _) = prepare();
    drop(batched.spawn_batch(rows(1_000)));
    let (mut single, _) = prepare();
    for row in rows(1_000) {
        single.spawn(row);
    }
    check(&batched);
    assert_eq!(batched.entities, single.entities, "the same entities issued");
    let (positions, velocities) = batched.motion.members();
    let (expected_positions, expected_velocities) = single.motion.members();
    assert_eq!(positions.keys(), expected_positions.keys());
    assert_eq!(velocities.keys(), expected_velocities.keys());
    assert_eq!(batched.motion.keys(), single.motion.keys(), "the same prefix");
    assert_eq!(batched.motion.excluded().0.keys(), single.motion.excluded().0.keys());
    assert_eq!(batched.sparks.keys(), single.sparks.keys());
    for entity in single.entities.iter() {
        assert_eq!(
            positions.get(entity).map(|p| (*p.x, *p.y)),
            expected_positions.get(entity).map(|p| (*p.x, *p.y))
        );
    }
}

/// A batch of new entities (slots that follow each other) over storages that already hold
/// some of those slots, through handles made by hand: each storage's run stops at the first
/// slot it holds, and the world ends as spawning the rows one by one leaves it.
#[test]
fn a_batch_over_slots_a_storage_already_holds_matches_spawning_one_by_one() {
    fn prepare() -> Game {
        let mut game = Game::default();
        let first = NonZeroU32::MIN;
        for index in [3, 300, 301, 777] {
            game.names.insert(Entity::from_parts(index, first), format!("held {index}"));
        }
        game.sparks.insert(Entity::from_parts(520, first));
        game
    }
    let rows = |n: i32| {
        (0..n).map(|x| (Spark, format!("n{x}"), Velocity { dx: x }, Position { x, y: -x }))
    };
    let mut batched = prepare();
    let yielded: Vec<Entity> = batched.spawn_batch(rows(1_000)).collect();
    let mut single = prepare();
    let expected: Vec<Entity> = rows(1_000).map(|row| single.spawn(row)).collect();
    check(&batched);
    assert_eq!(yielded, expected, "the same entities, in the same order");
    assert_eq!(batched.names.keys(), single.names.keys());
    assert_eq!(batched.names.values(), single.names.values());
    assert_eq!(batched.sparks.keys(), single.sparks.keys());
    assert_eq!(batched.motion.keys(), single.motion.keys(), "the same prefix");
    let (positions, velocities) = batched.motion.members();
    assert_eq!(positions.keys(), single.motion.members().0.keys());
    assert_eq!(velocities.keys(), single.motion.members().1.keys());
    for (x, &entity) in (0..).zip(&yielded) {
        assert_eq!(batched.names.get(entity), Some(&format!("n{x}")));
        assert_eq!(positions.get(entity).map(|p| (*p.x, *p.y)), Some((x, -x)));
    }
}

/// Rows gathered for a run when the rows' iterator panics are spawned, as a batch spawning row
/// by row would have; the world stays consistent.
#[test]
fn a_panicking_rows_iterator_leaves_the_rows_before_it_spawned() {
    let mut game = Game::default();
    let rows = (0..1_000).map(|i| {
        assert!(i != 700, "the rows run out");
        (Position { x: i, y: 0 }, Velocity { dx: i })
    });
    let panicked = catch_unwind(AssertUnwindSafe(|| drop(game.spawn_batch(rows))));
    assert!(panicked.is_err());
    check(&game);
    assert_eq!(game.entities.len(), 700);
    assert_eq!(game.motion.len(), 700);
    let mut xs: Vec<i32> = game.motion.members().0.iter().map(|(_, p)| *p.x).collect();
    xs.sort_unstable();
    assert_eq!(xs, (0..700).collect::<Vec<_>>());
}

/// A batch walked step by step (`collect`) whose rows' iterator panics: the panic reaches the
/// caller once (the batch's drop does not ask the iterator again while it unwinds, where a
/// second panic would abort), and the rows given before it are spawned.
#[test]
fn a_rows_iterator_that_panics_during_a_step_is_not_asked_again() {
    let mut game = Game::default();
    let rows = (0..1_000).map(|i| {
        assert!(i % 300 != 299, "row {i} fails");
        (Position { x: i, y: 0 }, Velocity { dx: i })
    });
    let panicked = catch_unwind(AssertUnwindSafe(|| game.spawn_batch(rows).collect::<Vec<_>>()));
    assert!(panicked.is_err());
    check(&game);
    assert_eq!(game.entities.len(), 299);
    assert_eq!(game.motion.len(), 299);
}

/// A bounded allocator that runs out mid-batch: the rows it has entities for are stored, and
/// the next spawn panics with its error.
#[test]
fn a_batch_past_a_bounded_allocator_stops_at_its_capacity() {
    let mut small = Capped { entities: Entities::bounded(300), positions: PositionSoa::new() };
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        drop(small.spawn_batch((0..500).map(|x| Position { x, y: x })));
    }));
    assert!(panicked.is_err(), "the 301st entity cannot be spawned");
    small.entities.assert_invariants();
    Storage::assert_invariants(&small.positions);
    assert_eq!((small.entities.len(), small.positions.len()), (300, 300));
}

/// An iterator whose `size_hint` promises more rows than it has: the batch stores what comes.
#[test]
fn a_batch_trusts_no_size_hint() {
    struct Liar(i32);
    impl Iterator for Liar {
        type Item = (Position, Velocity);
        fn next(&mut self) -> Option<Self::Item> {
            self.0 = (self.0 - 1).max(-1);
            (self.0 >= 0).then_some((Position { x: self.0, y: 0 }, Velocity { dx: 0 }))
        }
        fn size_hint(&self) -> (usize, Option<usize>) {
            (1_000, None)
        }
    }
    let mut game = Game::default();
    drop(game.spawn_batch(Liar(300)));
    check(&game);
    assert_eq!(game.entities.len(), 300);
    assert_eq!(game.motion.len(), 300);
}

#[derive(World)]
struct Capped {
    entities: Entities,
    positions: PositionSoa,
}

/// A bounded storage that fills up mid-batch: the rows that fit are stored, the next spawn
/// panics with the storage's error, and nothing is left half-done.
#[test]
fn a_batch_into_a_full_storage_stops_at_the_first_row_that_does_not_fit() {
    let mut small =
        Capped { entities: Entities::new(), positions: PositionSoa::bounded(100, 1_000) };
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        drop(small.spawn_batch((0..500).map(|x| Position { x, y: x })));
    }));
    let message = panicked.expect_err("the 101st row does not fit");
    let message = message.downcast_ref::<String>().map_or("", String::as_str);
    assert!(message.contains("full"), "{message}");
    small.entities.assert_invariants();
    Storage::assert_invariants(&small.positions);
    assert_eq!(small.positions.len(), 100);
    assert_eq!(small.entities.len(), 100, "the entity of the failed row was freed");
}

#[test]
fn a_batch_lays_out_the_index_of_the_storages_it_fills_and_no_other() {
    let mut game = Game::default();
    // A few sparks on scattered entities, some recycled ids, then a large batch.
    let early: Vec<Entity> =
        game.spawn_batch((0..3_000).map(|i| Position { x: i, y: 0 })).collect();
    for &entity in early.iter().step_by(700) {
        game.insert(entity, Spark);
    }
    for &entity in early.iter().skip(10).take(100) {
        game.despawn(entity);
    }
    let sparks_before = game.sparks.allocated_bytes();
    let rows = (0..5_000).map(|i| (Position { x: i, y: -i }, Velocity { dx: i }, format!("{i}")));
    let batch: Vec<Entity> = game.spawn_batch(rows).collect();
    check(&game);
    assert_eq!(game.sparks.allocated_bytes(), sparks_before, "not named by the rows");
    assert_eq!(game.motion.len(), 5_000);
    for (i, &entity) in (0..).zip(&batch) {
        assert_eq!(game.motion.get(entity).map(|(p, v)| (*p.x, *p.y, *v.dx)), Some((i, -i, i)));
        assert_eq!(game.names.get(entity), Some(&format!("{i}")));
    }
    // Stale handles of the recycled ids stay refused.
    assert!(early.iter().skip(10).take(100).all(|&entity| !game.names.contains_key(entity)));
}

/// More fields than std's `Extend` takes in one tuple (12): a batch moves them through
/// nested tuples. Some own heap memory, so a value moved twice or dropped early shows.
#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Wide {
    a: u8,
    b: String,
    c: u16,
    d: u32,
    e: u64,
    f: Vec<u8>,
    g: i8,
    h: i16,
    i: i32,
    j: i64,
    k: char,
    l: Box<u32>,
    m: String,
    n: bool,
}

#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    reason = "any value per field will do, as long as rows differ"
)]
fn wide(i: u32) -> Wide {
    Wide {
        a: i as u8,
        b: format!("b{i}"),
        c: i as u16,
        d: i,
        e: u64::from(i) << 3,
        f: vec![i as u8; (i % 5) as usize],
        g: (i as i8).wrapping_neg(),
        h: (i as i16).wrapping_neg(),
        i: (i as i32).wrapping_neg(),
        j: -i64::from(i),
        k: char::from_digit(i % 10, 10).unwrap_or('?'),
        l: Box::new(i * 7),
        m: format!("m{i}"),
        n: i % 2 == 0,
    }
}

#[derive(Default, World)]
struct Wides {
    entities: Entities,
    wides: WideSoa,
}

#[test]
fn a_batch_of_rows_wider_than_twelve_fields_keeps_every_field() {
    let mut world = Wides::default();
    let spawned: Vec<Entity> = world.spawn_batch((0..1_000).map(wide)).collect();
    Storage::assert_invariants(&world.wides);
    assert_eq!(world.wides.len(), 1_000);
    for (i, &entity) in (0..).zip(&spawned) {
        assert_eq!(world.wides.get(entity).map(WideRef::cloned), Some(wide(i)), "row {i}");
    }
    assert_eq!(
        world.wides.l().iter().map(|l| **l).sum::<u32>(),
        (0..1_000).map(|i| i * 7).sum::<u32>()
    );
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Fuse {
    bomb: Bomb,
}

#[derive(World)]
struct Armed {
    entities: Entities,
    pair: Group<(FuseSoa, VelocitySoa)>,
}

#[test]
fn a_panicking_drop_of_a_replaced_value_leaves_the_group_aligned() {
    let mut armed =
        Armed { entities: Entities::new(), pair: Group::new((FuseSoa::new(), VelocitySoa::new())) };
    let a = armed.spawn((Fuse { bomb: Bomb(true) }, Velocity { dx: 1 }));
    let b = armed.spawn(Fuse { bomb: Bomb(false) });
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        armed.insert(b, (Fuse { bomb: Bomb(false) }, Velocity { dx: 2 }));
    }));
    assert!(panicked.is_ok());
    armed.pair.assert_invariants();
    assert_eq!(armed.pair.keys(), &[a, b]);
    let panicked = catch_unwind(AssertUnwindSafe(|| armed.insert(a, Fuse { bomb: Bomb(false) })));
    assert!(panicked.is_err(), "the replaced bomb went off");
    armed.pair.assert_invariants();
    assert_eq!(armed.pair.len(), 2);
    for entity in [a, b] {
        if let Some(fuse) = armed.pair.member_mut::<0>().get_mut(entity) {
            fuse.bomb.0 = false;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The model: rows spawned, inserted, despawned, forgotten and sorted, against a reference.

#[derive(Clone, Debug)]
enum Op {
    /// Position, and optionally velocity, name, frozen, spark.
    Spawn(i32, Option<i32>, Option<u8>, bool, bool),
    /// A row into a handle ever made (live or not).
    Insert(usize, Option<i32>, Option<u8>, bool),
    Despawn(usize),
    /// Despawned from the allocator alone: the storages keep its rows.
    Forget(usize),
    Thaw(usize),
    SortByX,
    Batch(u8),
    /// A large batch (stored a run at a time): its size, which row shape (plain, frozen, one
    /// component, named with a spark), and whether its entities are collected or it is dropped at once.
    LargeBatch(u16, u8, bool),
    RetainEven,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (any::<i32>(), any::<Option<i32>>(), any::<Option<u8>>(), any::<bool>(), any::<bool>())
            .prop_map(|(x, v, n, f, s)| Op::Spawn(x, v, n, f, s)),
        4 => (any::<usize>(), any::<Option<i32>>(), any::<Option<u8>>(), any::<bool>())
            .prop_map(|(i, v, n, f)| Op::Insert(i, v, n, f)),
        3 => any::<usize>().prop_map(Op::Despawn),
        2 => any::<usize>().prop_map(Op::Forget),
        1 => any::<usize>().prop_map(Op::Thaw),
        1 => Just(Op::SortByX),
        1 => (0..6_u8).prop_map(Op::Batch),
        1 => (0..300_u16, 0..4_u8, any::<bool>())
            .prop_map(|(n, shape, collect)| Op::LargeBatch(n, shape, collect)),
        1 => Just(Op::RetainEven),
    ]
}

#[derive(Default)]
struct Reference {
    positions: BTreeMap<Entity, i32>,
    velocities: BTreeMap<Entity, i32>,
    names: BTreeMap<Entity, String>,
    frozen: BTreeSet<Entity>,
    sparks: BTreeSet<Entity>,
}

impl Reference {
    fn remove(&mut self, entity: Entity) {
        self.positions.remove(&entity);
        self.velocities.remove(&entity);
        self.names.remove(&entity);
        self.frozen.remove(&entity);
        self.sparks.remove(&entity);
    }
}

/// Stores a row described by the options, through whichever tuple shape they make.
fn store(
    game: &mut Game,
    entity: Option<Entity>,
    x: Option<i32>,
    velocity: Option<i32>,
    name: Option<u8>,
    frozen: bool,
) -> Result<Entity, Error> {
    let position = x.map(|x| Position { x, y: -x });
    let velocity = velocity.map(|dx| Velocity { dx });
    let name = name.map(|n| format!("n{n}"));
    macro_rules! row {
        ($row:expr) => {
            match entity {
                Some(entity) => game.try_insert(entity, $row).map(|()| entity),
                None => game.try_spawn($row),
            }
        };
    }
    match (position, velocity, name, frozen) {
        (Some(p), Some(v), Some(n), true) => row!((p, v, n, Frozen)),
        (Some(p), Some(v), Some(n), false) => row!((n, v, p)),
        (Some(p), Some(v), None, true) => row!((Frozen, p, v)),
        (Some(p), Some(v), None, false) => row!((p, v)),
        (Some(p), None, Some(n), true) => row!((p, n, Frozen)),
        (Some(p), None, Some(n), false) => row!((p, n)),
        (Some(p), None, None, true) => row!((p, Frozen)),
        (Some(p), None, None, false) => row!(p),
        (None, Some(v), Some(n), true) => row!((v, n, Frozen)),
        (None, Some(v), Some(n), false) => row!((v, n)),
        (None, Some(v), None, true) => row!((v, Frozen)),
        (None, Some(v), None, false) => row!(v),
        (None, None, Some(n), true) => row!((Frozen, n)),
        (None, None, Some(n), false) => row!(n),
        (None, None, None, _) => row!(Frozen),
    }
}

fn run(ops: &[Op]) {
    let mut game = Game::default();
    let mut reference = Reference::default();
    let mut handles: Vec<Entity> = Vec::new();
    for op in ops {
        let pick = |i: usize| (!handles.is_empty()).then(|| handles[i % handles.len()]);
        match *op {
            Op::Spawn(x, velocity, name, frozen, spark) => {
                let entity = store(&mut game, None, Some(x), velocity, name, frozen).unwrap();
                if spark {
                    game.insert(entity, Spark);
                    reference.sparks.insert(entity);
                }
                handles.push(entity);
                reference.positions.insert(entity, x);
                if let Some(dx) = velocity {
                    reference.velocities.insert(entity, dx);
                }
                if let Some(n) = name {
                    reference.names.insert(entity, format!("n{n}"));
                }
                if frozen {
                    reference.frozen.insert(entity);
                }
            }
            Op::Insert(i, velocity, name, frozen) => {
                let Some(entity) = pick(i) else { continue };
                let alive = game.entities.is_alive(entity);
                let frozen = frozen || (velocity.is_none() && name.is_none());
                match store(&mut game, Some(entity), None, velocity, name, frozen) {
                    Ok(_) => {
                        assert!(alive);
                        if let Some(dx) = velocity {
                            reference.velocities.insert(entity, dx);
                        }
                        if let Some(n) = name {
                            reference.names.insert(entity, format!("n{n}"));
                        }
                        if frozen {
                            reference.frozen.insert(entity);
                        }
                    }
                    Err(Error::NotAlive { .. }) => assert!(!alive),
                    Err(error) => panic!("unexpected {error}"),
                }
            }
            Op::Despawn(i) => {
                let Some(entity) = pick(i) else { continue };
                game.despawn(entity);
                reference.remove(entity);
            }
            Op::Forget(i) => {
                let Some(entity) = pick(i) else { continue };
                game.entities.despawn(entity);
            }
            Op::Thaw(i) => {
                let Some(entity) = pick(i) else { continue };
                game.motion.excluded_mut::<0>().remove(entity);
                reference.frozen.remove(&entity);
            }
            Op::SortByX => game.motion.sort_by(|_, (a, _), _, (b, _)| a.x.cmp(b.x)),
            Op::Batch(n) => {
                let rows = (0..i32::from(n)).map(|x| (Velocity { dx: x }, Position { x, y: -x }));
                for entity in game.spawn_batch(rows).collect::<Vec<_>>() {
                    let (position, velocity) = game.motion.get(entity).unwrap();
                    reference.positions.insert(entity, *position.x);
                    reference.velocities.insert(entity, *velocity.dx);
                    handles.push(entity);
                }
            }
            Op::LargeBatch(n, shape, collect) => {
                large_batch(&mut game, &mut reference, &mut handles, (n, shape, collect));
            }
            Op::RetainEven => {
                let mut removed = Vec::new();
                game.retain_entities(|entity| {
                    let keep = entity.index() % 2 == 0;
                    if !keep {
                        removed.push(entity);
                    }
                    keep
                });
                for entity in removed {
                    reference.remove(entity);
                }
            }
        }
        check(&game);
        compare(&game, &reference);
    }
}

/// A batch of `n` rows of one shape, collected or dropped without being iterated; the entities
/// it spawned are the live ones that were not, and each row is found again by its position.
fn large_batch(
    game: &mut Game,
    reference: &mut Reference,
    handles: &mut Vec<Entity>,
    (n, shape, collect): (u16, u8, bool),
) {
    fn spawn<R: sparse_soa::Bundle<Game, I>, I>(
        game: &mut Game,
        rows: impl Iterator<Item = R>,
        collect: bool,
    ) -> Vec<Entity> {
        if collect {
            game.spawn_batch(rows).collect()
        } else {
            drop(game.spawn_batch(rows));
            vec![]
        }
    }
    let before: BTreeSet<Entity> = game.entities.iter().collect();
    let xs = 0..i32::from(n);
    let row = |x: i32| (Position { x, y: -x }, Velocity { dx: x });
    let yielded = match shape {
        0 => spawn(game, xs.map(row), collect),
        1 => spawn(game, xs.map(|x| (row(x).0, row(x).1, Frozen)), collect),
        2 => spawn(game, xs.map(|x| row(x).0), collect),
        _ => spawn(game, xs.map(|x| (Spark, format!("n{x}"), row(x).1, row(x).0)), collect),
    };
    let spawned: Vec<Entity> =
        game.entities.iter().filter(|entity| !before.contains(entity)).collect();
    assert_eq!(spawned.len(), usize::from(n), "every row spawned");
    if collect {
        // The entities are yielded in the order of the rows.
        for (x, &entity) in (0..).zip(&yielded) {
            assert_eq!(game.motion.members().0.get(entity).map(|p| *p.x), Some(x));
        }
        assert_eq!(yielded.len(), spawned.len());
    }
    for entity in spawned {
        let x = *game.motion.members().0.get(entity).expect("a position").x;
        reference.positions.insert(entity, x);
        if shape != 2 {
            reference.velocities.insert(entity, x);
        }
        match shape {
            0 | 2 => {}
            1 => drop(reference.frozen.insert(entity)),
            _ => {
                reference.names.insert(entity, format!("n{x}"));
                reference.sparks.insert(entity);
            }
        }
        handles.push(entity);
    }
}

/// The world against the reference, for the live entities.
fn compare(game: &Game, reference: &Reference) {
    // A forgotten entity's rows stay until its slot is spawned again (a spawn replaces
    // them) or the world despawns it: compare the live entities only.
    let live = |entity: &&Entity| game.entities.is_alive(**entity);
    let (positions, velocities) = game.motion.members();
    for (entity, &x) in reference.positions.iter().filter(|e| live(&e.0)) {
        assert_eq!(positions.get(*entity).map(|p| *p.x), Some(x), "position of {entity:?}");
    }
    for (entity, &dx) in reference.velocities.iter().filter(|e| live(&e.0)) {
        assert_eq!(velocities.get(*entity).map(|v| *v.dx), Some(dx), "velocity of {entity:?}");
    }
    for (entity, name) in reference.names.iter().filter(|e| live(&e.0)) {
        assert_eq!(game.names.get(*entity), Some(name), "name of {entity:?}");
    }
    // Both ways: a live entity holds a row in a storage exactly when the reference has one.
    for entity in game.entities.iter() {
        assert_eq!(positions.contains_key(entity), reference.positions.contains_key(&entity));
        assert_eq!(velocities.contains_key(entity), reference.velocities.contains_key(&entity));
        assert_eq!(game.names.contains_key(entity), reference.names.contains_key(&entity));
        assert_eq!(game.motion.excluded().0.contains(entity), reference.frozen.contains(&entity));
        let aligned = reference.positions.contains_key(&entity)
            && reference.velocities.contains_key(&entity)
            && !reference.frozen.contains(&entity);
        assert_eq!(game.motion.contains(entity), aligned, "alignment of {entity:?}");
        assert_eq!(game.sparks.contains(entity), reference.sparks.contains(&entity));
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn rows_against_a_reference(ops in proptest::collection::vec(op(), 1..80)) {
        run(&ops);
    }
}

#[test]
fn a_row_over_a_forgotten_entity_leaves_the_group_aligned() {
    let mut game = Game::default();
    let old = game.spawn((Position { x: 1, y: 1 }, Velocity { dx: 1 }));
    let other = game.spawn((Position { x: 2, y: 2 }, Velocity { dx: 2 }));
    // Despawned from the allocator alone: its rows stay, aligned, until the slot is reused.
    game.entities.despawn(old);
    // The velocity replaces the old one in place, in the second member: the old row leaves.
    let new = game.spawn(Velocity { dx: 3 });
    assert_eq!(new.index(), old.index());
    check(&game);
    assert_eq!(game.motion.keys(), &[other], "the old row left the prefix with its velocity");
    game.insert(new, Position { x: 3, y: 3 });
    check(&game);
    assert_eq!(game.motion.len(), 2);
}

/// The guide's pattern for despawning the entities a storage condemns: collect them, then
/// despawn each. Every storage loses the dead and keeps the living.
#[test]
fn despawning_the_dead_keeps_every_row_of_the_living() {
    let mut game = Game::default();
    let rows: Vec<Entity> = game
        .spawn_batch((0..20).map(|i| (Position { x: i, y: 0 }, Velocity { dx: i }, format!("{i}"))))
        .collect();
    // The condemned: an odd velocity.
    let dead: Vec<Entity> = game
        .motion
        .members()
        .1
        .iter()
        .filter(|(_, v)| *v.dx % 2 == 1)
        .map(|(entity, _)| entity)
        .collect();
    for entity in &dead {
        game.despawn(*entity);
    }
    check(&game);
    assert_eq!(game.entities.len(), 10);
    for (i, entity) in (0..).zip(&rows) {
        let alive = i % 2 == 0;
        assert_eq!(game.entities.is_alive(*entity), alive);
        assert_eq!(game.names.get(*entity).is_some(), alive, "name of {i}");
        assert_eq!(game.motion.contains(*entity), alive, "motion of {i}");
    }
}

/// `try_spawn_batch` stores what `spawn_batch` stores when every row fits, and when a row is
/// refused it returns the error with the world as before: the entities it spawned are
/// despawned again (their generations used), no group or storage keeps a row of them, and the
/// world's next spawns work as before.
#[test]
fn try_spawn_batch_spawns_every_row_or_none() {
    let rows =
        |n: i32| (0..n).map(|i| (Position { x: i, y: -i }, Velocity { dx: i }, format!("n{i}")));
    let mut batched = Small::new();
    let mut tried = Small::new();
    let expected: Vec<Entity> = batched.spawn_batch(rows(2)).collect();
    assert_eq!(tried.try_spawn_batch(rows(2)), Ok(expected.clone()));
    assert_eq!(tried.pair.keys(), batched.pair.keys());
    assert_eq!(tried.names.values(), batched.names.values());

    // The names hold two: a third row is refused after its group members were put.
    let mut small = Small::new();
    let kept = small.spawn((Position { x: 9, y: 9 }, "kept".to_string()));
    let (pair, names) = (small.pair.keys().to_vec(), small.names.keys().to_vec());
    assert_eq!(small.try_spawn_batch(rows(5)), Err(Error::Full { capacity: 2 }));
    small.entities.assert_invariants();
    small.pair.assert_invariants();
    small.names.assert_invariants();
    assert_eq!(small.entities.len(), 1, "only the entity spawned before is alive");
    assert!(small.entities.is_alive(kept));
    assert_eq!((small.pair.keys(), small.names.keys()), (&pair[..], &names[..]));
    assert_eq!(small.pair.members().0.len(), 1);
    assert_eq!(small.pair.members().1.len(), 0);
    // The world goes on: one more name fits.
    let next = small.try_spawn_batch(rows(1)).expect("one row fits");
    assert_eq!(next.len(), 1);
    assert_eq!(small.names.len(), 2);

    // A refusing allocator: nothing stays either.
    let mut capped = Capped { entities: Entities::bounded(3), positions: PositionSoa::new() };
    let positions = (0..4).map(|x| Position { x, y: x });
    assert_eq!(capped.try_spawn_batch(positions), Err(Error::EntitiesFull { capacity: 3 }));
    assert!(capped.entities.is_empty() && capped.positions.is_empty());
    assert_eq!(
        capped.try_spawn_batch((0..3).map(|x| Position { x, y: x })).map(|e| e.len()),
        Ok(3)
    );
}

/// A world whose name is one a generated item could use for a type parameter.
#[derive(World)]
struct R {
    entities: Entities,
    hp: SparseMap<Entity, u32>,
}

#[test]
fn a_world_named_like_a_type_parameter_spawns_rows() {
    let mut world = R { entities: Entities::new(), hp: SparseMap::new() };
    let entities: Vec<Entity> = world.spawn_batch([1_u32, 2, 3]).collect();
    assert_eq!(world.hp.get(entities[1]), Some(&2));
}

/// A zero-sized tag with a const generic argument, whose braces are part of the check's text.
struct Mark<const N: usize>;

#[derive(World)]
struct Marked {
    entities: Entities,
    #[sparse_soa(tag = Mark<{ 1 + 1 }>)]
    marked: sparse_soa::SparseSet<Entity>,
}

#[test]
fn a_const_generic_tag_is_stored() {
    let mut world = Marked { entities: Entities::new(), marked: sparse_soa::SparseSet::new() };
    let entity = world.spawn(Mark::<2>);
    assert!(world.marked.contains(entity));
}
