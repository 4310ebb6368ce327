use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(crate = "not a path")]
struct Position {
    x: f32,
}

fn main() {}
