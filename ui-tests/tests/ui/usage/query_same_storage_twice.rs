use sparse_soa::{SparseMap, query};

// One storage cannot be two members of a query when either borrow is mutable.
fn main() {
    let mut positions: SparseMap<u32, f32> = SparseMap::new();
    query((&mut positions, &mut positions)).for_each(|_, (a, b)| *a += *b);
    query((&mut positions, &positions)).for_each(|_, (a, b)| *a += *b);
}
