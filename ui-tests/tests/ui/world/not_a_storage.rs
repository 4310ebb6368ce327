use sparse_soa::{Entities, Entity, SparseMap, World};

// A field that is not a storage must be marked `#[sparse_soa(skip)]`.
#[derive(World)]
struct Game {
    entities: Entities,
    names: SparseMap<Entity, String>,
    frame: u64,
}

fn main() {}
