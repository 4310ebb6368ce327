use serde::{Deserialize, Serialize};
use sparse_soa::SparseSoa;

#[derive(Serialize, Deserialize)]
struct Handle(u32);

#[derive(SparseSoa, Serialize, Deserialize)]
#[sparse_soa(serde)]
struct Owner {
    handle: Handle,
    weight: f32,
}

fn main() {}
