use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(serde = true)]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(serde(json))]
struct Velocity {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(serde, key = u64, serde)]
struct Mass {
    kg: f32,
}

#[derive(SparseSoa)]
struct Charge {
    #[sparse_soa(serde)]
    coulomb: f32,
}

fn main() {}
