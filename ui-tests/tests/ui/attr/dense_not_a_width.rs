use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(dense = u64)]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(dense = "u16")]
struct Velocity {
    x: f32,
}

fn main() {}
