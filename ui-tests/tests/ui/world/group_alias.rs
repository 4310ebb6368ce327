use sparse_soa::{Entities, Entity, Group, SparseMap, SparseSoa, World};

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Frozen;

// The derive reads a group's members from the field's type as written: behind an alias it
// sees one storage, so its members' values are no components of the world.
type Motion = Group<(PositionSoa, SparseMap<Entity, f32>), (FrozenSoa,)>;

#[derive(World)]
struct Game {
    entities: Entities,
    motion: Motion,
}

// Nor can a tag name a storage of it.
#[derive(World)]
struct Tagged {
    entities: Entities,
    #[sparse_soa(tag = Frozen)]
    motion: Motion,
}

fn main() {
    let mut game = Game { entities: Entities::new(), motion: Motion::default() };
    game.spawn((Position { x: 0.0 }, 1.0_f32));
}
