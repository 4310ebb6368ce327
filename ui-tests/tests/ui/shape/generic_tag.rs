use sparse_soa::SparseSoa;

// A unit struct is a tag; its storage is a `SparseSet`, which has no room for generics.
#[derive(SparseSoa)]
struct Marker<const N: usize>;

fn main() {}
