//! Batches of whole rows against rows spawned one by one: two worlds (a group with an excluded
//! tag and a nested level, a map, a tag storage) take the same operations, except that one
//! spawns every batch through `spawn_batch` (a run of rows at a time) and the other through
//! `spawn` in a loop. After every step both worlds hold the same entities, the same keys in
//! every storage and the same prefixes, and every checker passes. Despawns, entities despawned
//! from the allocator alone (their rows stay behind) and inserts into live entities make the
//! slots a batch meets held, freed, recycled and stale. One shape of row is a struct deriving
//! `Bundle`.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sparse_soa::group::Nested;
use sparse_soa::{Bundle, Entities, Entity, Group, SparseMap, SparseSoa, Storage, World};

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

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Sprite {
    id: u16,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Frozen;

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Spark;

#[derive(Default, World)]
#[allow(clippy::type_complexity, reason = "the derive reads the parts from the field's type")]
struct Game {
    entities: Entities,
    #[sparse_soa(tag = Frozen)]
    motion: Group<(PositionSoa, VelocitySoa), (FrozenSoa,), Nested<(SpriteSoa,), ()>>,
    names: SparseMap<Entity, u16>,
    #[sparse_soa(tag = Spark)]
    sparks: SparkSoa,
}

/// A row written as a struct: stored as the tuple of its fields.
#[derive(Bundle)]
struct Ship {
    sprite: Sprite,
    position: Position,
    name: u16,
    velocity: Velocity,
}

/// Which components a row has.
#[derive(Arbitrary, Clone, Copy, Debug)]
enum Shape {
    Moving,
    Frozen,
    Drawn,
    Named,
    Alone,
    Ship,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Spawn(Shape),
    /// A batch: its size (up to 1,023), its shape, whether its entities are collected.
    Batch(u16, Shape, bool),
    Despawn(u16),
    /// Despawned from the allocator alone: the rows stay until the slot is spawned again.
    Forget(u16),
    InsertSprite(u16, u16),
}

/// Spawns `n` rows of `shape`, through `spawn_batch` or one by one; the entities, in order.
fn spawn(game: &mut Game, shape: Shape, n: u16, batched: bool, collect: bool) -> Vec<Entity> {
    macro_rules! rows {
        ($row:expr) => {{
            let rows = (0..i32::from(n)).map($row);
            if !batched {
                rows.map(|row| game.spawn(row)).collect()
            } else if collect {
                game.spawn_batch(rows).collect()
            } else {
                let before = game.entities.len();
                drop(game.spawn_batch(rows));
                assert_eq!(game.entities.len() - before, usize::from(n));
                Vec::new()
            }
        }};
    }
    match shape {
        Shape::Moving => rows!(|x| (Position { x, y: -x }, Velocity { dx: x })),
        Shape::Frozen => rows!(|x| (Frozen, Position { x, y: 0 }, Velocity { dx: 1 })),
        Shape::Drawn => {
            rows!(|x| (Position { x, y: 1 }, Sprite { id: x as u16 }, Velocity { dx: 2 }))
        }
        Shape::Named => rows!(|x| (x as u16, Spark, Position { x, y: 2 })),
        Shape::Alone => rows!(|x| Velocity { dx: x }),
        Shape::Ship => rows!(|x| Ship {
            sprite: Sprite { id: 7 },
            position: Position { x, y: 3 },
            name: x as u16,
            velocity: Velocity { dx: -x },
        }),
    }
}

fn check(game: &Game) {
    game.entities.assert_invariants();
    game.motion.assert_invariants();
    game.names.assert_invariants();
    Storage::assert_invariants(&game.sparks);
}

/// Both worlds hold the same entities, keys, prefixes and values.
fn same(a: &Game, b: &Game) {
    assert_eq!(a.entities, b.entities);
    let ((ap, av), (bp, bv)) = (a.motion.members(), b.motion.members());
    assert_eq!(ap.keys(), bp.keys());
    assert_eq!(av.keys(), bv.keys());
    assert_eq!(a.motion.keys(), b.motion.keys());
    assert_eq!(a.motion.excluded().0.keys(), b.motion.excluded().0.keys());
    assert_eq!(a.motion.nested().keys(), b.motion.nested().keys());
    assert_eq!(a.names.keys(), b.names.keys());
    assert_eq!(a.sparks.keys(), b.sparks.keys());
    for (entity, position) in ap.iter() {
        assert_eq!(bp.get(entity).map(|p| (*p.x, *p.y)), Some((*position.x, *position.y)));
    }
    assert!(a.names.iter().all(|(entity, name)| b.names.get(entity) == Some(name)));
}

fuzz_target!(|ops: Vec<Op>| {
    let (mut batched, mut single) = (Game::default(), Game::default());
    let mut handles: Vec<Entity> = Vec::new();
    for op in ops.iter().take(64) {
        let pick = |i: u16| (!handles.is_empty()).then(|| handles[usize::from(i) % handles.len()]);
        match *op {
            Op::Spawn(shape) => {
                let a = spawn(&mut batched, shape, 1, true, true);
                let b = spawn(&mut single, shape, 1, false, false);
                assert_eq!(a, b);
                handles.extend(a);
            }
            Op::Batch(n, shape, collect) => {
                let n = n % 1024;
                let a = spawn(&mut batched, shape, n, true, collect);
                let b = spawn(&mut single, shape, n, false, false);
                if collect {
                    assert_eq!(a, b, "the entities yielded, in the order of the rows");
                }
                handles.extend(b);
            }
            Op::Despawn(i) => {
                let Some(entity) = pick(i) else { continue };
                assert_eq!(batched.despawn(entity), single.despawn(entity));
            }
            Op::Forget(i) => {
                let Some(entity) = pick(i) else { continue };
                assert_eq!(batched.entities.despawn(entity), single.entities.despawn(entity));
            }
            Op::InsertSprite(i, id) => {
                let Some(entity) = pick(i) else { continue };
                let a = batched.try_insert(entity, Sprite { id }).is_ok();
                assert_eq!(a, single.try_insert(entity, Sprite { id }).is_ok());
            }
        }
        check(&batched);
        check(&single);
        same(&batched, &single);
    }
});
