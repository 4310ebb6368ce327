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
    frozen: FrozenSoa,
    // A slip: the tag of the field above, on this one (every tag storage is the same type).
    #[sparse_soa(tag = Frozen)]
    burning: BurningSoa,
}

type MarkerSoa = SparseSet<Entity>;

#[derive(World)]
struct Twice {
    entities: Entities,
    #[sparse_soa(tag = Burning)]
    hot: MarkerSoa,
    // One tag, two fields.
    #[sparse_soa(tag = Burning)]
    burning: MarkerSoa,
}

/// Without an allocator, a world spawns no rows.
#[derive(World)]
struct Keys {
    #[sparse_soa(tag = Frozen)]
    frozen: SparseSet<u32>,
}

fn main() {}
