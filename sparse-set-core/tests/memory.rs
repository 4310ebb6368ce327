//! Memory tests with a counting allocator: what the paged sparse side costs for spread and
//! clustered keys, that growing never copies it, and that a bounded set never allocates.
//!
//! Only allocations made by the test's own thread are counted, so the harness cannot disturb
//! the numbers. Run with `--nocapture` to see them.

use sparse_set_core::{SparseMap, SparseSet};
use sparse_soa_test_support::{CountingAlloc, measure};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

const MIB: usize = 1024 * 1024;

#[test]
fn keys_one_per_4096_cost_far_less_than_a_flat_array() {
    let (set, usage) = measure(|| (0..1000_u32).map(|i| i * 4096).collect::<SparseSet<u32>>());
    println!(
        "1,000 keys one per 4,096: {} bytes live ({} pages)",
        usage.live(),
        set.sparse_pages()
    );
    assert_eq!(set.len(), 1000);
    // A flat u32 sparse array up to key 4,091,904 would be 16 MiB.
    assert!(usage.live() <= 4 * MIB, "{} bytes", usage.live());
    assert_eq!(usage.live(), set.allocated_bytes());
}

#[test]
fn keys_near_zero_and_near_u32_max_cost_little() {
    let (set, usage) = measure(|| {
        let mut set = SparseSet::<u32>::new();
        set.extend(0..500);
        set.extend(u32::MAX - 499..=u32::MAX);
        set
    });
    println!("500 keys near 0 + 500 near u32::MAX: {} bytes live", usage.live());
    assert_eq!(set.len(), 1000);
    assert!(usage.live() <= MIB, "{} bytes", usage.live());
}

#[test]
fn growing_never_copies_the_sparse_side() {
    for (name, keys) in [
        ("ascending", (0..100_000_u32).map(|i| i * 100).collect::<Vec<_>>()),
        ("descending", (0..100_000_u32).rev().map(|i| i * 100).collect()),
    ] {
        let (set, usage) = measure(|| {
            let mut set = SparseSet::<u32>::new();
            for &key in &keys {
                set.insert(key);
            }
            set
        });
        let dense = set.capacity() * size_of::<u32>();
        println!(
            "100,000 keys step 100 {name}: {} bytes live ({} sparse pages, {} bytes for the sparse \
             side), {} bytes freed while growing",
            usage.live(),
            set.sparse_pages(),
            set.allocated_bytes() - dense,
            usage.freed
        );
        // Growth frees only the dense Vec's old buffers (less than its final capacity) and old
        // directories of page pointers (a fraction of the sparse side). Copying or refilling the
        // pages would free the order of the whole sparse side again.
        assert!(usage.freed <= dense + set.allocated_bytes() / 4, "{usage:?}");
    }
}

#[test]
fn a_bounded_set_never_allocates_after_construction() {
    let (mut set, built) = measure(|| SparseSet::<u32, u16>::bounded(1000, 100_000));
    println!("bounded set of 1,000 keys below 100,000: {} bytes up front", built.live());
    let ((), usage) = measure(|| {
        for round in 0..3_u32 {
            for i in 0..1000 {
                set.insert((i * 97 + round) % 100_000);
            }
            assert!(set.try_insert(99_999).is_err(), "full");
            assert!(set.try_insert(100_000).is_err(), "out of range");
            set.retain(|key| key % 2 == 0);
            set.sort_unstable();
            set.clear();
            set.shrink_to_fit();
            set.reserve(10);
        }
    });
    assert_eq!(usage.calls, 0, "{usage:?}");

    let (mut map, _) = measure(|| SparseMap::<u32, [f32; 4], u16>::bounded(1000, 100_000));
    let ((), usage) = measure(|| {
        for round in 0..3_u32 {
            for i in 0..1000 {
                map.insert((i * 97 + round) % 100_000, [0.0; 4]);
            }
            for i in 0..500 {
                map.remove(i * 97 + round);
            }
            map.retain(|key, _| key % 3 == 0);
            map.clear();
        }
    });
    assert_eq!(usage.calls, 0, "{usage:?}");
}
