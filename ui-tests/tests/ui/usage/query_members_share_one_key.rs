use sparse_soa::{Entities, Entity, SparseMap, SparseSoa, query};

// The struct forgot `#[sparse_soa(key = Entity)]`: its storage is keyed by `u32`.
#[derive(SparseSoa)]
struct Position {
    x: f32,
}

fn main() {
    let mut entities = Entities::new();
    let mut positions = PositionSoa::new();
    let mut velocities: SparseMap<Entity, f32> = SparseMap::new();
    velocities.insert(entities.spawn(), 1.0);
    let _ = query((&mut velocities, &mut positions));
}
