//! Memory tests with a counting allocator: what the paged sparse side costs for spread and
//! clustered keys, that growing never copies it, and that a bounded set never allocates.
//!
//! Only allocations made by the test's own thread are counted, so the harness cannot disturb
//! the numbers. Run with `--nocapture` to see them.

use sparse_set_core::{Error, SparseMap, SparseSet};
use sparse_soa_test_support::measure;

const MIB: usize = 1024 * 1024;

/// The number of keys of the larger cases: smaller under miri, which runs about a thousand
/// times slower (every bound below is per key, so it holds at either size).
const MANY: u32 = if cfg!(miri) { 600 } else { 100_000 };

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
fn growing_copies_the_sparse_side_a_bounded_number_of_times() {
    for (name, keys) in [
        ("ascending", (0..MANY).map(|i| i * 100).collect::<Vec<_>>()),
        ("descending", (0..MANY).rev().map(|i| i * 100).collect()),
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
            "{MANY} keys step 100 {name}: {} bytes live ({} sparse pages, {} bytes for the sparse \
             side), {} bytes freed while growing",
            usage.live(),
            set.sparse_pages(),
            set.allocated_bytes() - dense,
            usage.freed
        );
        assert_eq!(usage.live(), set.allocated_bytes());
        // Pages live in arenas that grow by doubling, and the directory's lanes are rebuilt a
        // bounded number of times (keys from the top down move from the hash lane to the flat
        // one once), so growing frees at most twice what is finally held: each byte is copied
        // O(1) times on average, and no compact page has an allocation of its own.
        assert!(usage.freed <= 2 * set.allocated_bytes(), "{usage:?}");
        // Step-100 keys put about five keys in each page: compact pages, about 45 bytes a key
        // at most in all.
        assert!(usage.live() <= 45 * keys.len(), "{usage:?}");
    }
}

/// A deterministic stream of well-mixed 64-bit values (splitmix64).
fn random_u64s(seed: u64) -> impl Iterator<Item = u64> {
    let mut state = seed;
    std::iter::repeat_with(move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    })
}

#[test]
fn random_keys_cost_a_bounded_number_of_bytes_each() {
    for n in [1_000, MANY as usize] {
        let keys32: Vec<u32> = random_u64s(n as u64).map(|v| v as u32).take(n).collect();
        let (set, usage) = measure(|| keys32.iter().copied().collect::<SparseSet<u32>>());
        let per_key = usage.live() / set.len();
        println!("{n} random u32 keys: {} bytes live, {per_key} bytes per key", usage.live());
        assert!(per_key <= 128, "{per_key} bytes per key");
        assert_eq!(usage.live(), set.allocated_bytes());

        let keys64: Vec<u64> = random_u64s(!(n as u64)).take(n).collect();
        let (set, usage) = measure(|| keys64.iter().copied().collect::<SparseSet<u64>>());
        let per_key = usage.live() / set.len();
        println!("{n} random u64 keys: {} bytes live, {per_key} bytes per key", usage.live());
        assert!(per_key <= 128, "{per_key} bytes per key");
        drop(set);

        let (map, usage) =
            measure(|| keys64.iter().map(|&key| (key, key)).collect::<SparseMap<u64, u64>>());
        let per_key = usage.live() / map.len();
        println!("{n} random u64 keys in a map: {per_key} bytes per key (8 of them the value)");
        assert!(per_key <= 128 + 8 * 2, "{per_key} bytes per key");
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

/// A bounded set decides up front: for a key limit whose prefix the allocator cannot give, it
/// fails before writing a word (it used to write about 1.6 GB for `1 << 36` before failing);
/// where the allocator gives it, it reserved exactly that and nothing more.
#[test]
#[cfg(target_pointer_width = "64")]
fn a_huge_bounded_set_fails_before_touching_memory() {
    for key_limit in [1_usize << 36, 1 << 40] {
        let (result, usage) = measure(|| SparseSet::<u64, u32>::try_bounded(0, key_limit));
        let prefix_bytes = key_limit * size_of::<u32>();
        match result {
            Err(error) => {
                assert!(matches!(error, Error::AllocFailed | Error::CapacityOverflow), "{error}");
                assert!(
                    usage.allocated < 1 << 20,
                    "{} bytes allocated before failing",
                    usage.allocated
                );
            }
            Ok(set) => {
                assert!(set.is_empty());
                assert!(usage.allocated <= prefix_bytes + (1 << 20), "{} bytes", usage.allocated);
            }
        }
    }
}

/// A bounded map decides up front too, values included: bounds it refuses allocate nothing and
/// name the bound at fault, and where the allocator cannot give what the bounds need, the
/// values are reserved, never written, before the key index writes its pages.
#[test]
#[cfg(target_pointer_width = "64")]
fn a_bounded_map_refuses_before_allocating() {
    let (result, usage) = measure(|| SparseMap::<u64, u64>::try_bounded(8, usize::MAX));
    assert_eq!((result.err(), usage.calls), (Some(Error::CapacityOverflow), 0));
    // A `u32` key takes 2^32 slots: a key limit past them is refused as such.
    let (result, usage) = measure(|| SparseMap::<u32, u64>::try_bounded(8, usize::MAX));
    let refused = Error::BoundPastKeys { bound: usize::MAX as u64, slots: 1 << 32 };
    assert_eq!((result.err(), usage.calls), (Some(refused), 0));
    let (result, usage) = measure(|| SparseMap::<u32, u64, u8>::try_bounded(300, 16));
    let refused = Error::DenseIndexOverflow { width: "u8", max_len: 255 };
    assert_eq!((result.err(), usage.calls), (Some(refused), 0));
    // The key range alone is past the address space: refused as such, before a terabyte of
    // values is asked for.
    let (result, usage) =
        measure(|| SparseMap::<u64, [u8; 1 << 20]>::try_bounded(1 << 20, usize::MAX));
    assert_eq!((result.err(), usage.calls), (Some(Error::CapacityOverflow), 0));
    // Values and pages that together pass the address space, each alone within it.
    let (result, usage) =
        measure(|| SparseMap::<u64, [u8; 1 << 16], usize>::try_bounded((1 << 47) - 1, 1 << 40));
    assert_eq!((result.err(), usage.calls), (Some(Error::CapacityOverflow), 0));
    // Bounds the address space holds but the allocator may not: where it fails, the values and
    // the dense keys were reserved (8 MiB each, never written) and the pages never had.
    let (result, usage) = measure(|| SparseMap::<u64, u64>::try_bounded(1 << 20, 1 << 40));
    if result.is_err() {
        assert!(usage.allocated <= 17 << 20, "{} bytes allocated before failing", usage.allocated);
    }
}

#[test]
fn reserving_slots_costs_no_more_than_the_keys_then_use() {
    // Keys 0..MANY: the laid-out prefix is what inserting them builds anyway, allocated once.
    let (hinted, usage) = measure(|| {
        let mut set = SparseSet::<u32>::new();
        set.reserve(MANY as usize);
        set.reserve_slots(0..u64::from(MANY));
        set.extend(0..MANY);
        set
    });
    let plain: SparseSet<u32> = (0..MANY).collect();
    assert_eq!(usage.live(), hinted.allocated_bytes());
    assert!(
        hinted.allocated_bytes() <= plain.allocated_bytes(),
        "{} bytes hinted, {} without",
        hinted.allocated_bytes(),
        plain.allocated_bytes()
    );
    assert!(usage.freed <= hinted.allocated_bytes() / 4, "{usage:?}: the prefix grew once");

    // A range wider than the room reserved adds nothing: the sparse memory follows a dense
    // reservation, never the range alone.
    let (thin, usage) = measure(|| {
        let mut set = SparseSet::<u32>::new();
        set.reserve(1000);
        set.reserve_slots(0..u64::from(u32::MAX));
        set.extend((0..1000_u32).map(|i| i * 4096));
        set
    });
    assert!(usage.live() <= 4 * MIB, "{} bytes", usage.live());
    assert_eq!(usage.live(), thin.allocated_bytes());
}
