use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
struct Position {
    x: f32,
    y: f32,
}

fn main() {
    let mut positions = PositionSoa::new();
    let columns = positions.columns_mut();
    // No insert while columns are lent out.
    positions.insert(1, Position { x: 1.0, y: 2.0 });
    columns.x[0] = 1.0;
}
