use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(serde)]
struct Position {
    x: f32,
}

fn main() {}
