use sparse_soa::{Entities, Entity, SparseMap, World};

// Unknown keys name the valid ones; a world has one allocator and at least one storage.
#[derive(World)]
#[sparse_soa(name = "Other")]
struct Game {
    entities: Entities,
    #[sparse_soa(entities)]
    more: Entities,
    #[sparse_soa(skp)]
    names: SparseMap<Entity, String>,
}

#[derive(World)]
struct Empty {
    entities: Entities,
}

fn main() {}
