use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(name = "Position")]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(name = "VelocityRef")]
struct Velocity {
    x: f32,
}

fn main() {}
