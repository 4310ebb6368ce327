use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa]
#[sparse_soa = "Positions"]
struct Position {
    x: f32,
}

fn main() {}
