use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(key = u64, serde)]
struct Position {
    x: f32,
}

fn main() {}
