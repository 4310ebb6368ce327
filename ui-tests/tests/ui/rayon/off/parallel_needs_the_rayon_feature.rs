use sparse_soa::{Group, SparseMap, query};

// Without the `rayon` feature the parallel forms say which feature they need.
fn main() {
    let mut positions: SparseMap<u32, f32> = SparseMap::new();
    let velocities: SparseMap<u32, f32> = SparseMap::new();
    query((&mut positions, &velocities)).par_for_each(|_, (p, v)| *p += *v);
    let group = Group::new((positions, velocities));
    group.par_iter();
}
