use sparse_soa::{Entities, Entity, SparseSoa, World};

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Frozen;

// A misspelled tag is reported at the name alone.
#[derive(World)]
struct Game {
    entities: Entities,
    positions: PositionSoa,
    #[sparse_soa(tag = Frozn)]
    frozen: FrozenSoa,
}

fn main() {}
