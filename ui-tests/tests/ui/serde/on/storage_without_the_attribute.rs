use sparse_soa::SparseSoa;

// The `serde` feature is on, but the struct forgot `#[sparse_soa(serde)]`.
#[derive(SparseSoa, Clone)]
struct Position {
    x: f32,
}

fn main() {
    let positions = PositionSoa::new();
    let _ = serde_json::to_string(&positions);
    let _: Result<PositionSoa, _> = serde_json::from_str("{}");
}
