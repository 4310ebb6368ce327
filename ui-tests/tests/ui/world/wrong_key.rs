use sparse_soa::{Entities, Entity, SparseMap, World};

// Every storage of a world with `Entities` is keyed by `Entity`.
#[derive(World)]
struct Game {
    entities: Entities,
    names: SparseMap<Entity, String>,
    scores: SparseMap<u32, i32>,
}

fn main() {}
