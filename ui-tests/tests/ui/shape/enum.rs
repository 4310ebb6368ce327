use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
enum Shape {
    Circle { radius: f32 },
    Square { side: f32 },
}

fn main() {}
