use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
struct Text {
    size: u32,
    text: str,
}

fn main() {}
