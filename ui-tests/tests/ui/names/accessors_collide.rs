use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
struct Position {
    x: f32,
    x_mut: f32,
    #[sparse_soa(rename = "x")]
    horizontal: f32,
}

fn main() {}
