use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
struct Odd {
    len: usize,
    get: u8,
    iter: u8,
    keys: u8,
    fine: u8,
}

fn main() {}
