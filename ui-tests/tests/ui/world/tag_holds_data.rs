use sparse_soa::{Entities, Entity, SparseSet, World};

/// A tag's storage keeps the key alone: a type with data would be dropped unseen.
#[derive(World)]
struct Game {
    entities: Entities,
    #[sparse_soa(tag = u32)]
    marked: SparseSet<Entity>,
    #[sparse_soa(tag = Vec<String>)]
    named: SparseSet<Entity>,
    #[sparse_soa(tag = ())]
    unit: SparseSet<Entity>,
}

fn main() {}
