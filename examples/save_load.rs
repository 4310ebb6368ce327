//! Saving and loading a game with serde: an `Entities` allocator, two derived storages marked
//! `#[sparse_soa(serde)]` and a `SparseSet` tag, in one struct that derives serde's traits.
//! The game is saved to JSON and to postcard (a compact binary format) and loaded back from
//! both; then the program checks that
//!
//! - live handles still find their components, in the same dense order;
//! - a stale handle (despawned before the save, its slot since reused) is still stale;
//! - the allocator continues exactly as before: the next `spawn` is the same entity;
//! - every storage's keys are alive in the loaded allocator (`check_alive`), and a storage
//!   saved before a despawn is caught by it;
//! - malformed input is refused with an error naming what is wrong.
//!
//! Run with `cargo run --example save_load --features serde`.

use serde::{Deserialize, Serialize};
use sparse_soa::serialization::check_alive;
use sparse_soa::{Entities, Entity, SparseSet, SparseSoa, World};

#[derive(SparseSoa, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity, serde)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(SparseSoa, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity, serde)]
struct Health {
    hp: i32,
}

/// The whole game: `World` gives it one `despawn`, serde one save format.
#[derive(Default, World, Serialize, Deserialize)]
struct Game {
    entities: Entities,
    positions: PositionSoa,
    health: HealthSoa,
    /// A tag: the entities that do not move.
    frozen: SparseSet<Entity>,
}

impl Game {
    /// A new entity with a position and health: one row, stored by the world's `spawn`.
    fn spawn_at(&mut self, x: f32, hp: i32) -> Entity {
        self.spawn((Position { x, y: 0.0 }, Health { hp }))
    }

    /// Checks every storage's keys against the allocator.
    fn check_alive(&self) -> Result<(), sparse_soa::serialization::NotAlive> {
        check_alive(&self.entities, self.positions.keys())?;
        check_alive(&self.entities, self.health.keys())?;
        check_alive(&self.entities, self.frozen.as_slice())
    }
}

fn main() {
    let mut game = Game::default();
    let ship = game.spawn_at(0.0, 10);
    let rock = game.spawn_at(5.0, 100);
    let gone = game.spawn_at(9.0, 1);
    let wall = game.spawn_at(-3.0, 1000);
    game.frozen.insert(rock);
    game.frozen.insert(wall);
    assert!(game.despawn(gone));
    let comet = game.spawn_at(2.0, 5); // reuses the slot of `gone`, one generation later
    assert_eq!(comet.index(), gone.index());
    let debris = game.spawn_at(7.0, 0);
    assert!(game.despawn(debris)); // its slot stays free: the next spawn reuses it

    let json = serde_json::to_string(&game).expect("a game serializes");
    let bytes = postcard::to_allocvec(&game).expect("a game serializes");
    println!(
        "saved {} live entities: JSON {} bytes, postcard {} bytes",
        game.entities.len(),
        json.len(),
        bytes.len()
    );
    println!("JSON: {json}");

    let from_json: Game = serde_json::from_str(&json).expect("the JSON loads");
    let from_postcard: Game = postcard::from_bytes(&bytes).expect("the postcard bytes load");

    for (format, mut loaded) in [("JSON", from_json), ("postcard", from_postcard)] {
        // Same storages, same dense order.
        assert!(loaded.positions == game.positions && loaded.health == game.health);
        assert_eq!(loaded.positions.keys(), game.positions.keys());
        assert_eq!(loaded.frozen.as_slice(), game.frozen.as_slice());
        // Handles from before the save.
        assert_eq!(loaded.positions.get(comet).map(|p| *p.x), Some(2.0));
        assert_eq!(loaded.health.get(wall).map(|h| *h.hp), Some(1000));
        assert!(loaded.frozen.contains(rock) && !loaded.frozen.contains(ship));
        assert!(!loaded.entities.is_alive(gone) && loaded.positions.get(gone).is_none());
        assert!(!loaded.entities.is_alive(debris) && loaded.health.get(debris).is_none());
        assert!(loaded.entities.iter().eq(game.entities.iter()));
        // Keys checked against the loaded allocator.
        assert!(loaded.check_alive().is_ok());
        // The allocator continues as the original would have: the free slot of `debris`, one
        // generation later.
        let live = loaded.entities.len();
        let next = loaded.entities.spawn();
        println!(
            "{format}: loaded {live} live entities; {comet} at x = {:?}; {gone} and {debris} \
             still stale; every key alive; next spawn {next}",
            loaded.positions.get(comet).map(|p| *p.x).unwrap_or_default(),
        );
        assert_eq!(live, game.entities.len());
        assert_eq!(next, game.entities.try_clone().expect("memory").spawn());
        assert_eq!((next.index(), next.generation().get()), (debris.index(), 2));
    }

    // A storage saved separately, then an entity despawned before the allocator was saved: the
    // storage loads (nothing in it is malformed), and `check_alive` catches the dead key.
    let health_text = serde_json::to_string(&game.health).expect("serializes");
    game.despawn(ship);
    let entities_text = serde_json::to_string(&game.entities).expect("serializes");
    let entities: Entities = serde_json::from_str(&entities_text).expect("loads");
    let health: HealthSoa = serde_json::from_str(&health_text).expect("loads");
    let error = check_alive(&entities, health.keys()).unwrap_err();
    println!("health saved before {ship} was despawned: check_alive says \"{error}\"");
    assert_eq!(error.entity(), ship);

    // Malformed input: the same entity twice in one storage.
    let twice = format!(
        r#"{{"bounds":null,"rows":[[{e},{{"hp":1}}],[{e},{{"hp":2}}]]}}"#,
        e = rock.to_bits()
    );
    let error = serde_json::from_str::<HealthSoa>(&twice).unwrap_err();
    println!("a storage naming {rock} twice is refused: \"{error}\"");
    assert!(error.to_string().starts_with("row 1: duplicate key 1v1 (row 0 holds it)"));

    // Malformed input: postcard bytes cut short (postcard's errors name no row).
    let Err(error) = postcard::from_bytes::<Game>(&bytes[..bytes.len() / 2]) else {
        panic!("half a save must not load");
    };
    println!("postcard bytes cut in half are refused: \"{error}\"");
}
