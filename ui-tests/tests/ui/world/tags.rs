use sparse_soa::{Entities, Entity, Group, SparseSet, SparseSoa, World};

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Frozen;

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Spark;

#[derive(World)]
struct Game {
    entities: Entities,
    // No part of the group is written `SparkSoa`.
    #[sparse_soa(tag = Spark)]
    motion: Group<(PositionSoa,), (FrozenSoa,)>,
    // One tag per storage field.
    #[sparse_soa(tag = Spark, tag = Frozen)]
    sparks: SparkSoa,
    #[sparse_soa(skip, tag = Frozen)]
    frame: u64,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Burning;

#[derive(World)]
struct Mixed {
    entities: Entities,
    #[sparse_soa(tag = Frozen)]
    frozen: FrozenSoa,
    // A slip: this field is `BurningSoa`, every tag storage the same type.
    #[sparse_soa(tag = Frozen)]
    burning: BurningSoa,
    // The same tag again, on a field whose type cannot tell.
    #[sparse_soa(tag = Frozen)]
    also_frozen: SparseSet<Entity>,
}

/// Without an allocator, a world spawns no rows.
#[derive(World)]
struct Keys {
    #[sparse_soa(tag = Frozen)]
    frozen: SparseSet<u32>,
}

fn main() {}
