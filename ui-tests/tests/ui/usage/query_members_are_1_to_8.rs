use sparse_soa::{SparseMap, query};

// A query takes a tuple of 1 to 8 storages: not none, not nine, not a storage on its own.
fn main() {
    let a: SparseMap<u32, u8> = SparseMap::new();
    let _ = query(());
    let _ = query((&a, &a, &a, &a, &a, &a, &a, &a, &a));
    let _ = query(&a);
}
