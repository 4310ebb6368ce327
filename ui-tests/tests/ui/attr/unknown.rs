use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(nmae = "Positions", key = u32, colour(red))]
struct Position {
    #[sparse_soa(renmae = "horizontal")]
    x: f32,
}

fn main() {}
