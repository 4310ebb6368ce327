use sparse_soa::{Entities, Entity, Group, SparseMap, SparseSoa, World};

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Velocity {
    dx: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Frozen;

struct Health(u32);

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Spark;

#[derive(World)]
struct Game {
    entities: Entities,
    #[sparse_soa(tag = Frozen)]
    motion: Group<(PositionSoa, VelocitySoa), (FrozenSoa,)>,
    names: SparseMap<Entity, String>,
    sparks: SparkSoa,
}

fn main() {
    let mut game = Game { entities: Entities::new(), motion: Group::default(), names: SparseMap::new(), sparks: SparkSoa::new() };
    // A component with no storage in the world.
    game.spawn((Position { x: 0.0 }, Health(3)));
    // A row of one component, in a tuple or alone.
    game.spawn(Health(3));
    // A tag without `tag = ...` on its field has no storage either.
    game.spawn((Position { x: 0.0 }, Spark));
}
