use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
