use sparse_soa::{Entity, SparseMap, World};

/// `entities` marks the allocator, which must be `Entities`.
#[derive(World)]
struct Game {
    #[sparse_soa(entities)]
    alloc: Vec<Entity>,
    names: SparseMap<Entity, String>,
}

fn main() {}
