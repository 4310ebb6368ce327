use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(rename = "positions")]
struct Position {
    #[sparse_soa(key = u32, dense = u8)]
    x: f32,
}

fn main() {}
