use sparse_soa::{query, SparseMap};

fn main() {
    let mut health: SparseMap<u32, i32> = SparseMap::new();
    // A storage the query changes cannot also be one of its filters.
    query((&mut health,)).without(&health).for_each(|_, (health,)| *health -= 1);
}
