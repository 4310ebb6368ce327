use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
struct Node {
    parent: Option<Box<Self>>,
}

fn main() {}
