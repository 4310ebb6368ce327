use sparse_soa::{Bundle, Entity, SparseSoa};

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Position {
    x: f32,
}

// A row's components are stored apart: a row with `Drop` is refused at its name.
#[derive(Bundle)]
struct Placed(Position);

impl Drop for Placed {
    fn drop(&mut self) {}
}

fn main() {}
