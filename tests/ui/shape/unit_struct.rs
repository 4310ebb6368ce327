use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
struct Marker;

fn main() {}
