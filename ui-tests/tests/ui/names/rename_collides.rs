use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
struct Position {
    #[sparse_soa(rename = "insert")]
    x: f32,
    #[sparse_soa(rename = "not valid")]
    y: f32,
}

fn main() {}
