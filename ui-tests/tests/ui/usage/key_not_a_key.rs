use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(key = i32)]
struct Position {
    x: f32,
}

fn main() {}
