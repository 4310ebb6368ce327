//! A `SparseSet<u32>` as a work queue of unique items, from the "Rust Sparse Sets" post this
//! crate started from: its dense order is insertion order, so items added while the set is
//! walked by position (`while i < set.len()`) are visited later in the same pass, and an item
//! already queued is not queued twice.
//!
//! The work here is invalidation in a spreadsheet: when a cell changes, every cell that reads it,
//! directly or through other cells, must be recomputed. One pass over the queue finds them all,
//! each once, even where two paths lead to the same cell. A bit set walked in key order would
//! miss a cell added behind its cursor (the total, cell 0, depends on cells after it); the
//! program shows that too. Finally the same walk runs over a generated graph of 5,000 cells and
//! is checked against a plain depth-first search.
//!
//! Run with `cargo run --example work_queue`.

use sparse_soa::SparseSet;

/// Cells of a small order form, with the cells that read each one (its dependents).
const CELLS: [(&str, &[u32]); 8] = [
    ("total = tax + shipping", &[]),
    ("price", &[3]),
    ("quantity", &[3]),
    ("subtotal = price * quantity", &[5, 6]),
    ("tax rate", &[5]),
    ("tax = subtotal * rate", &[0]),
    ("shipping = f(subtotal)", &[0]),
    ("notes", &[]),
];

/// Queues `changed`, then walks the queue by position, queueing every dependent of each cell
/// visited; returns how many cells were visited. Keys queued during the walk are visited in the
/// same pass; `insert` ignores keys already queued.
fn invalidate(
    queue: &mut SparseSet<u32>,
    changed: &[u32],
    dependents: impl Fn(u32) -> Vec<u32>,
) -> usize {
    queue.clear(); // reuse the memory of the previous pass
    for &cell in changed {
        queue.insert(cell);
    }
    let mut visited = 0;
    let mut i = 0;
    while i < queue.len() {
        let cell = queue.as_slice()[i];
        visited += 1;
        for dependent in dependents(cell) {
            queue.insert(dependent); // `false`, and nothing queued, if it is there already
        }
        i += 1;
    }
    visited
}

/// The same walk over a bit set (one flag per cell, visited in key order, one pass): a cell
/// flagged behind the cursor is missed. The blog's contrast.
fn invalidate_bitset(changed: &[u32]) -> Vec<u32> {
    let mut dirty = [false; CELLS.len()];
    for &cell in changed {
        dirty[cell as usize] = true;
    }
    let mut visited = Vec::new();
    for cell in 0..CELLS.len() {
        if dirty[cell] {
            visited.push(cell as u32);
            for &dependent in CELLS[cell].1 {
                dirty[dependent as usize] = true;
            }
        }
    }
    visited
}

fn sheet_dependents(cell: u32) -> Vec<u32> {
    CELLS[cell as usize].1.to_vec()
}

/// The cells' names, without their formulas.
fn names(cells: &[u32]) -> Vec<&'static str> {
    cells.iter().map(|&cell| CELLS[cell as usize].0.split(" = ").next().unwrap_or("")).collect()
}

fn spreadsheet() {
    let mut queue = SparseSet::<u32>::new();

    // The price changes: subtotal, tax, shipping and the total must be recomputed. The total is
    // reached twice (through tax and through shipping) and queued once.
    let visited = invalidate(&mut queue, &[1], sheet_dependents);
    println!("price changed, recompute (in queue order): {:?}", names(queue.as_slice()));
    assert_eq!(queue.as_slice(), &[1, 3, 5, 6, 0]);
    assert_eq!(visited, queue.len(), "each queued cell visited exactly once, in one pass");

    // A bit set in key order finds the same cells only if they come after the cursor: the
    // total (cell 0) is flagged when the cursor is at 5 and never visited.
    let by_bits = invalidate_bitset(&[1]);
    println!("a bit set walked once in key order visits {:?}: misses the total", names(&by_bits));
    assert_eq!(by_bits, [1, 3, 5, 6]);
    assert!(!by_bits.contains(&0) && queue.contains(0));

    // The next change reuses the queue: `clear` costs the keys it held, not the key space.
    let visited = invalidate(&mut queue, &[4, 2], sheet_dependents);
    println!("tax rate and quantity changed, recompute: {:?}", names(queue.as_slice()));
    assert_eq!(queue.as_slice(), &[4, 2, 5, 3, 0, 6]);
    assert_eq!(visited, 6);
    assert!(!queue.contains(7) && !queue.contains(1), "notes and price are untouched");
}

/// A deterministic graph of `n` cells, each read by up to three others anywhere in the sheet
/// (before or after it, cycles included).
fn generated_dependents(n: u32) -> impl Fn(u32) -> Vec<u32> {
    move |cell| {
        let mut h = cell.wrapping_mul(0x9E37_79B9) ^ 0x85EB_CA6B;
        (0..cell % 4)
            .map(|_| {
                h ^= h >> 15;
                h = h.wrapping_mul(0x2C1B_3C6D);
                h ^= h >> 12;
                h % n
            })
            .collect()
    }
}

/// Every cell reachable from `changed`, by a depth-first search with an explicit stack.
fn reachable(n: u32, changed: &[u32], dependents: impl Fn(u32) -> Vec<u32>) -> Vec<bool> {
    let mut seen = vec![false; n as usize];
    let mut stack = changed.to_vec();
    while let Some(cell) = stack.pop() {
        if !std::mem::replace(&mut seen[cell as usize], true) {
            stack.extend(dependents(cell));
        }
    }
    seen
}

fn generated() {
    const N: u32 = 5_000;
    let dependents = generated_dependents(N);
    let changed = [17, 4_242, 999];
    let mut queue = SparseSet::<u32>::new();
    let visited = invalidate(&mut queue, &changed, &dependents);

    let expected = reachable(N, &changed, &dependents);
    let expected_count = expected.iter().filter(|&&seen| seen).count();
    println!(
        "generated sheet of {N} cells: {} changed, {visited} to recompute, found in one pass \
         (depth-first search agrees: {expected_count})",
        changed.len()
    );
    assert_eq!(visited, queue.len());
    assert_eq!(visited, expected_count);
    assert!(queue.iter().all(|cell| expected[cell as usize]));
}

fn main() {
    spreadsheet();
    generated();
}
