use sparse_soa::SparseSoa;

struct NotClone;

#[derive(SparseSoa)]
struct Item {
    x: f32,
    handle: NotClone,
}

fn main() {
    let items = ItemSoa::new();
    // `Clone` exists only when every field is `Clone`.
    let _copy = items.clone();
}
