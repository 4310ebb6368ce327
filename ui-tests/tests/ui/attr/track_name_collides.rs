use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
struct Unit {
    #[sparse_soa(track)]
    pos: f32,
    /// Taken by the method that reports `pos`'s changes.
    pos_changed_since: u32,
    /// Taken by the field-by-field write of a storage with tracked fields.
    set_if_neq: u8,
}

fn main() {}
