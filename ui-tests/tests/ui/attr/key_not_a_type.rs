use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(key = "u32")]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = 42)]
struct Velocity {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = _)]
struct Inferred {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = impl Copy)]
struct Opaque {
    x: f32,
}

fn main() {}
