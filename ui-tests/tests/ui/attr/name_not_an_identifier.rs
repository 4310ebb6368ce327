use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
#[sparse_soa(name = "Position Storage")]
struct Position {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(name = Velocities)]
struct Velocity {
    x: f32,
}

#[derive(SparseSoa)]
#[sparse_soa(name = "Speeds // the storage")]
struct Speed {
    #[sparse_soa(rename = " dx ")]
    x: f32,
}

#[derive(SparseSoa)]
struct Token {
    #[sparse_soa(rename = "type")]
    kind: u8,
    #[sparse_soa(rename = "self")]
    owner: u8,
    #[sparse_soa(rename = match)]
    rule: u8,
}

#[derive(SparseSoa)]
#[sparse_soa(name = Self)]
struct Itself {
    x: f32,
}

fn main() {}
