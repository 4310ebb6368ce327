use sparse_soa::{Bundle, Entities, Entity, SparseSoa, World};

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
}

struct Health(u32);

#[derive(Bundle)]
struct Ship {
    position: Position,
    health: Health,
}

#[derive(Bundle)]
struct Inner {
    position: Position,
}

// A row's fields are components, not rows.
#[derive(Bundle)]
struct Outer {
    inner: Inner,
}

#[derive(World)]
struct Game {
    entities: Entities,
    positions: PositionSoa,
}

fn main() {
    let mut game = Game { entities: Entities::new(), positions: PositionSoa::new() };
    // A field whose type has no storage in the world.
    game.spawn(Ship { position: Position { x: 0.0 }, health: Health(3) });
    game.spawn(Outer { inner: Inner { position: Position { x: 0.0 } } });
}
