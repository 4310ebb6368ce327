use sparse_soa::observe::Ticks;
use sparse_soa::{SparseMap, SparseSoa};

#[derive(SparseSoa)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(SparseSoa)]
struct Health {
    #[sparse_soa(track)]
    points: u32,
    /// Not tracked: it has no `_changed_since` of its own.
    regen: u32,
}

fn main() {
    let positions = PositionSoa::new();
    let since = Ticks::new().now();
    // Neither the observer (`()`) nor a field keeps change ticks.
    let _ = positions.changed_since(since);
    let health = HealthSoa::new();
    let _ = health.points_changed_since(since);
    let _ = health.regen_changed_since(since);
    // A map without `Ticks` as its observer.
    let scores = SparseMap::<u32, f32>::new();
    let _ = scores.changed_since(since);
}
