use sparse_soa::SparseSoa;

// A packed struct cannot lend references to its fields: refused once, at `packed`.
#[derive(SparseSoa)]
#[repr(C, packed)]
struct Pixel {
    r: u8,
    depth: f32,
}

fn main() {}
