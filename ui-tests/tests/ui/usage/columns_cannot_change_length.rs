use sparse_soa::SparseSoa;

#[derive(SparseSoa)]
struct Position {
    x: f32,
    y: f32,
}

fn main() {
    let mut positions = PositionSoa::new();
    positions.insert(1, Position { x: 1.0, y: 2.0 });
    // Columns are slices: they cannot grow or shrink, so they never desync.
    positions.x_mut().push(3.0);
    let columns = positions.columns_mut();
    columns.y.truncate(0);
}
