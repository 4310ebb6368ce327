use sparse_soa::{SparseMap, query};

fn main() {
    let mut positions: SparseMap<u32, f32> = SparseMap::new();
    let mut velocities: SparseMap<u32, f32> = SparseMap::new();
    query((&mut positions, &mut velocities)).par_for_each(|_, (p, v)| {
        *p += *v;
        *v = 0.0;
    });
}
