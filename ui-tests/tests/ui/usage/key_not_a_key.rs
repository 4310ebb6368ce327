use sparse_soa::SparseSoa;

/// An id of the user's own, without `Key`: the runtime's bound refuses it, at the attribute.
struct Id(u32);

#[derive(SparseSoa)]
#[sparse_soa(key = Id)]
struct Position {
    x: f32,
}

fn main() {}
