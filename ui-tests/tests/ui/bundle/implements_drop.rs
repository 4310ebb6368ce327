use sparse_soa::{Bundle, Entity, SparseSoa};

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Velocity {
    x: f32,
}

// A row's components are stored apart: a row with `Drop` is refused at its name.
#[derive(Bundle)]
struct Body {
    position: Position,
    velocity: Velocity,
}

impl Drop for Body {
    fn drop(&mut self) {}
}

fn main() {}
