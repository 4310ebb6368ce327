//! Rows written as structs (`#[derive(Bundle)]`): spawned, batched and inserted as the tuple of
//! their fields would be, with the group's invariant checker after each step; a row struct
//! that is also a component elsewhere; generic and tuple row structs.

use sparse_soa::{Bundle, Entities, Entity, Error, Group, SparseMap, SparseSoa, World};

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

#[derive(Default, World)]
struct Game {
    entities: Entities,
    #[sparse_soa(tag = Frozen)]
    motion: Group<(PositionSoa, VelocitySoa), (FrozenSoa,)>,
    names: SparseMap<Entity, String>,
}

impl Game {
    fn new() -> Self {
        Game::default()
    }

    fn check(&self) {
        self.entities.assert_invariants();
        self.motion.assert_invariants();
        self.names.assert_invariants();
    }

    /// Every entity's components, in the allocator's order: what two worlds are compared by.
    fn rows(&self) -> Vec<Stored> {
        let (positions, velocities) = self.motion.members();
        let frozen = &self.motion.excluded().0;
        self.entities
            .iter()
            .map(|e| {
                (
                    e,
                    positions.get(e).map(|p| Position { x: *p.x, y: *p.y }),
                    velocities.get(e).map(|v| Velocity { dx: *v.dx }),
                    frozen.contains(e),
                    self.names.get(e).cloned(),
                )
            })
            .collect()
    }
}

/// An entity and what it has: position, velocity, the tag, name.
type Stored = (Entity, Option<Position>, Option<Velocity>, bool, Option<String>);

/// A row with named fields: a group's two members and a map's value.
#[derive(Bundle)]
struct Ship {
    position: Position,
    velocity: Velocity,
    name: String,
}

/// A row that is a tuple struct, with a tag.
#[derive(Bundle)]
struct Rock(Position, Frozen);

/// A generic row.
#[derive(Bundle)]
struct Pair<A, B> {
    first: A,
    second: B,
}

fn ship(i: i32) -> Ship {
    Ship { position: Position { x: i, y: -i }, velocity: Velocity { dx: i }, name: format!("s{i}") }
}

#[test]
fn a_struct_row_names_one_storage_twice_as_its_tuple_would() {
    // What the world's methods assert when the program is built.
    fn distinct<B: sparse_soa::Bundle<Game, I>, I>(_: &B) -> bool {
        B::DISTINCT
    }
    assert!(distinct(&ship(1)));
    let position = Position { x: 0, y: 0 };
    assert!(distinct(&Pair { first: position, second: Velocity { dx: 0 } }));
    assert!(!distinct(&Pair { first: position, second: position }));
}

#[test]
fn a_struct_row_is_stored_as_the_tuple_of_its_fields() {
    let mut game = Game::new();
    let a = game.spawn(ship(1));
    let b = game.spawn(Rock(Position { x: 5, y: 5 }, Frozen));
    let c = game.spawn(Pair { first: Velocity { dx: 7 }, second: Position { x: 7, y: 7 } });
    game.check();
    assert_eq!(game.motion.keys(), &[a, c], "the rows with both members and no tag are aligned");
    assert_eq!(game.names.get(a).map(String::as_str), Some("s1"));
    assert!(game.motion.excluded().0.contains(b));

    let mut tuples = Game::new();
    tuples.spawn((Position { x: 1, y: -1 }, Velocity { dx: 1 }, "s1".to_string()));
    tuples.spawn((Position { x: 5, y: 5 }, Frozen));
    tuples.spawn((Velocity { dx: 7 }, Position { x: 7, y: 7 }));
    assert_eq!(game.rows(), tuples.rows());
}

#[test]
fn insert_adds_a_struct_row_to_a_live_entity_and_refuses_a_dead_one() {
    let mut game = Game::new();
    let a = game.spawn(Position { x: 1, y: 1 });
    game.insert(a, Pair { first: Velocity { dx: 2 }, second: "a".to_string() });
    game.check();
    assert_eq!(game.motion.keys(), &[a]);
    assert_eq!(game.names.get(a).map(String::as_str), Some("a"));

    game.despawn(a);
    let error = game.try_insert(a, ship(3)).unwrap_err();
    assert_eq!(error, Error::NotAlive { index: a.index(), generation: a.generation().get() });
    game.check();
    assert!(game.motion.is_empty() && game.names.is_empty());
}

#[test]
fn a_batch_of_struct_rows_matches_spawning_them_one_by_one() {
    let mut batched = Game::new();
    let mut one_by_one = Game::new();
    // Slots to reuse, so that the batch spans reused and fresh entities.
    for game in [&mut batched, &mut one_by_one] {
        let old: Vec<Entity> = (0..20).map(|i| game.spawn(ship(i))).collect();
        for &e in old.iter().step_by(3) {
            game.despawn(e);
        }
    }
    let first: Vec<Entity> = batched.spawn_batch((0..300).map(ship)).take(2).collect();
    let spawned: Vec<Entity> = (0..300).map(|i| one_by_one.spawn(ship(i))).collect();
    assert_eq!(first, spawned[..2], "a batch issues the entities spawn would");
    batched.check();
    assert_eq!(batched.rows(), one_by_one.rows(), "the dropped batch spawned the rest");

    let rocks = (0..10).map(|i| Rock(Position { x: i, y: 0 }, Frozen));
    let rocks: Vec<Entity> = batched.spawn_batch(rocks).collect();
    batched.check();
    assert_eq!(rocks.len(), 10);
    assert!(rocks.iter().all(|&e| batched.motion.excluded().0.contains(e)));
}

/// The third name does not fit: the row fails after the group's puts.
#[derive(World)]
struct Small {
    entities: Entities,
    pair: Group<(PositionSoa, VelocitySoa)>,
    names: SparseMap<Entity, String>,
}

#[test]
fn a_failed_struct_row_changes_nothing() {
    let mut small = Small {
        entities: Entities::new(),
        pair: Group::new((PositionSoa::new(), VelocitySoa::new())),
        names: SparseMap::bounded(2, 64),
    };
    let a = small.spawn(ship(1));
    small.spawn(ship(2));
    assert_eq!(small.try_spawn(ship(3)).unwrap_err(), Error::Full { capacity: 2 });
    small.pair.assert_invariants();
    small.entities.assert_invariants();
    assert_eq!(small.entities.len(), 2, "the failed spawn's entity is freed");
    assert_eq!(small.pair.len(), 2);
    assert_eq!(small.pair.members().0.len(), 2, "the position was taken back");
    assert!(small.names.contains_key(a));
}

#[test]
fn a_failed_struct_row_gives_a_live_entity_no_value_of_an_older_generation() {
    let mut small = Small {
        entities: Entities::new(),
        pair: Group::new((PositionSoa::new(), VelocitySoa::new())),
        names: SparseMap::bounded(2, 64),
    };
    let old = small.spawn(Pair { first: Position { x: 1, y: 1 }, second: Velocity { dx: 1 } });
    small.entities.despawn(old); // the rows stay
    let live = small.entities.spawn();
    small.spawn(("a".to_string(),));
    small.spawn(("b".to_string(),));
    let row = Pair { first: Velocity { dx: 5 }, second: "x".to_string() };
    assert_eq!(small.try_insert(live, row).unwrap_err(), Error::Full { capacity: 2 });
    small.pair.assert_invariants();
    assert!(!small.pair.members().1.contains_key(live), "not the old generation's velocity");
}

/// A row struct can be a component of another world: the two are told apart by the world.
#[derive(World)]
struct Fleet {
    entities: Entities,
    ships: SparseMap<Entity, Ship>,
}

#[test]
fn a_row_struct_is_also_a_component_where_a_world_stores_it_whole() {
    let mut fleet = Fleet { entities: Entities::new(), ships: SparseMap::new() };
    let e = fleet.spawn(ship(4));
    assert_eq!(fleet.ships.get(e).map(|s| s.name.as_str()), Some("s4"));
    let mut game = Game::new();
    let f = game.spawn(ship(4));
    assert_eq!(game.names.get(f).map(String::as_str), Some("s4"));
    assert_eq!(game.motion.keys(), &[f]);
}

/// One struct, two derives: a storage of whole rows (`SparseSoa`, whose keys the `Bundle`
/// derive leaves alone) and a row of its fields.
#[derive(SparseSoa, Bundle)]
#[sparse_soa(key = Entity, name = "Convoys")]
struct Convoy {
    #[sparse_soa(rename = "lead")]
    position: Position,
    #[sparse_soa(track)]
    velocity: Velocity,
}

#[test]
fn a_struct_can_derive_sparse_soa_and_bundle() {
    let mut game = Game::new();
    let e = game.spawn(Convoy { position: Position { x: 1, y: 2 }, velocity: Velocity { dx: 3 } });
    assert_eq!(game.motion.keys(), &[e]);
    let mut convoys = Convoys::new();
    convoys.insert(e, Convoy { position: Position { x: 1, y: 2 }, velocity: Velocity { dx: 3 } });
    assert_eq!(convoys.lead(), &[Position { x: 1, y: 2 }]);
}
