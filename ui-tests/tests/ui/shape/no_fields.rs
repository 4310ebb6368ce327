use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
struct Empty {}

#[derive(SparseSoa)]
struct EmptyTuple();

fn main() {}
