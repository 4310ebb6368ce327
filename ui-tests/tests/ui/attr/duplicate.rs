use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(name = "Positions")]
#[sparse_soa(key = u32, name = "MorePositions", key = u64)]
struct Position {
    #[sparse_soa(rename = "a", rename = "b")]
    x: f32,
}

fn main() {}
