use sparse_soa::{Entities, Entity, SparseSoa, World};

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
}

struct Frozen;

/// A tag on a field whose storage holds values: one error, at the attribute.
#[derive(World)]
struct Game {
    entities: Entities,
    #[sparse_soa(tag = Frozen)]
    positions: PositionSoa,
}

fn main() {}
