//! Breadth-first flood fill whose frontier is a `SparseSet`, cleared between rounds.
//!
//! A sparse set is a fine work queue: `insert` ignores cells already queued, `clear` costs the
//! cells it held however large the grid, and the frontier is walked as a plain slice.
//!
//! Run with `cargo run --release --example flood_fill`.

use std::time::Instant;

use sparse_soa::SparseSet;

const WIDTH: u32 = 1024;
const HEIGHT: u32 = 1024;

/// A deterministic maze-ish grid: about one cell in three is a wall.
fn is_wall(cell: u32) -> bool {
    let (x, y) = (cell % WIDTH, cell / WIDTH);
    let mut h = x.wrapping_mul(0x9E37_79B9) ^ y.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h % 3 == 0
}

fn neighbours(cell: u32) -> impl Iterator<Item = u32> {
    let (x, y) = (cell % WIDTH, cell / WIDTH);
    [
        (x > 0).then(|| cell - 1),
        (x + 1 < WIDTH).then(|| cell + 1),
        (y > 0).then(|| cell - WIDTH),
        (y + 1 < HEIGHT).then(|| cell + WIDTH),
    ]
    .into_iter()
    .flatten()
}

fn main() {
    let start = (HEIGHT / 2) * WIDTH + WIDTH / 2;
    let start =
        (start..WIDTH * HEIGHT).find(|&cell| !is_wall(cell)).expect("the grid has an open cell");

    let clock = Instant::now();
    let mut visited = SparseSet::<u32>::with_capacity((WIDTH * HEIGHT) as usize);
    let mut frontier = SparseSet::<u32>::new();
    let mut next = SparseSet::<u32>::new();
    visited.insert(start);
    frontier.insert(start);

    let mut rounds = 0;
    let mut widest = 0;
    while !frontier.is_empty() {
        rounds += 1;
        widest = widest.max(frontier.len());
        for &cell in frontier.as_slice() {
            for neighbour in neighbours(cell) {
                if !is_wall(neighbour) && visited.insert(neighbour) {
                    next.insert(neighbour);
                }
            }
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear(); // O(len): resets the slots of its keys, not the grid's
    }
    let elapsed = clock.elapsed();

    let open = (0..WIDTH * HEIGHT).filter(|&cell| !is_wall(cell)).count();
    println!("grid {WIDTH}x{HEIGHT}: {open} open cells, flood from cell {start}");
    println!(
        "filled {} cells in {rounds} rounds (widest frontier {widest} cells) in {:.1} ms",
        visited.len(),
        elapsed.as_secs_f64() * 1e3
    );
    println!(
        "visited set: {} sparse pages, {} KiB in all",
        visited.sparse_pages(),
        visited.allocated_bytes() / 1024
    );
}
