use sparse_soa::{Entities, Entity, SparseMap, SparseSoa, World};

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Frozen;

// `entities` and `skip` take no value; `tag` takes the unit struct's name, not a string; every
// one of them is reported in one compile.
#[derive(World)]
struct Game {
    #[sparse_soa(entities = true)]
    entities: Entities,
    #[sparse_soa(tag = "Frozen", tag)]
    frozen: FrozenSoa,
    #[sparse_soa(skip(true))]
    tick: u64,
    names: SparseMap<Entity, String>,
}

fn main() {}
