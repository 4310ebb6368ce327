use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(name)]
struct Position {
    x: f32,
}

fn main() {}
