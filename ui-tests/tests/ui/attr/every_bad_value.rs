use sparse_soa::SparseSoa;

// Every bad value of one attribute is reported, not only the first: the keys after a value
// that does not parse are still checked.
#[derive(SparseSoa)]
#[sparse_soa(key = "u32", name = 42, crate = 7, nmae = "Positions")]
struct Position {
    #[sparse_soa(rename = "not an identifier", trak)]
    x: f32,
}

fn main() {}
