//! The usage example of heph-sparse-set (a Haskell library, one of the documents this crate
//! started from), translated line by line: each block's comment quotes the Haskell line it
//! stands for, with that line's number in the snippet (counting its 31 non-blank lines, from
//! `import` to the last line of the expected output).
//!
//! After it, heph's "Considerations": its memory grows with the largest key and its `compact`
//! gives memory back; here the sparse side is paged, so memory follows the keys used, and
//! `shrink_to_fit` is `compact`.
//!
//! Run with `cargo run --example heph_usage`.

use sparse_soa::SparseMap;

// 1: import Data.SparseSet.Unboxed.Mutable qualified as SS
//    (`SparseMap`, imported above: values in one `Vec` beside the index.)

// 2: -- An entity in our system is just an Int
// 3: type Entity = Int
/// Haskell's `Int` is signed; a key here names a slot of the sparse array, so it is unsigned
/// (for signed ids, implement `Key` for a newtype: see the `Key` docs).
type Entity = usize;

// 4: type Position = (Int, Int)
type Position = (i64, i64);

// 5: main :: IO ()
// 6: main = do
fn main() {
    // 7: -- Create a new sparse set
    // 8: positions <- SS.new @Position
    let mut positions = SparseMap::<Entity, Position>::new();

    // 9: -- Insert some components
    // 10: SS.insert positions 10 (5, 5) -- Entity 10 has position (5, 5)
    positions.insert(10, (5, 5));
    // 11: SS.insert positions 42 (1, 2) -- Entity 42 has position (1, 2)
    positions.insert(42, (1, 2));
    // 12: SS.insert positions 3 (9, -4)
    positions.insert(3, (9, -4));

    // 13: -- Look up a component
    // 14: maybePos <- SS.lookup positions 42
    let maybe_pos = positions.get(42).copied();
    // 15: putStrLn $ "Position of entity 42: " <> show maybePos -- Just (1,2)
    println!("Position of entity 42: {maybe_pos:?}");
    assert_eq!(maybe_pos, Some((1, 2)));

    // 16: -- Overwrite an existing component
    // 17: SS.insert positions 10 (6, 6)
    //     (`insert` also returns the value it replaced.)
    let replaced = positions.insert(10, (6, 6));
    assert_eq!(replaced, Some((5, 5)));

    // 18: -- Delete a component
    // 19: deletedVal <- SS.delete positions 3
    //     (A swap-remove: the last element moves into the gap. 3 was last, so nothing moves.)
    let deleted_val = positions.remove(3);
    // 20: putStrLn $ "Deleted component for entity 3: " <> show deletedVal -- Just (9,-4)
    println!("Deleted component for entity 3: {deleted_val:?}");
    assert_eq!(deleted_val, Some((9, -4)));

    // 21: -- Check for existence
    // 22: has42 <- SS.contains positions 42 -- True
    let has42 = positions.contains_key(42);
    // 23: putStrLn $ "Set contains 42: " <> show has42
    println!("Set contains 42: {has42}");
    // 24: has3 <- SS.contains positions 3 -- False
    let has3 = positions.contains_key(3);
    // 25: putStrLn $ "Set contains 3: " <> show has3
    println!("Set contains 3: {has3}");
    assert!(has42 && !has3);

    // 26: -- Efficiently iterate over all (entity, component) pairs
    // 27: putStrLn "Current members:"
    println!("Current members:");
    // 28: SS.imapM_ (\(entity, pos) -> print (entity, pos)) positions
    for (entity, pos) in &positions {
        println!("{:?}", (entity, pos));
    }
    // 29: -- Expected output (order may vary):
    // 30: -- (10,(6,6))
    // 31: -- (42,(1,2))
    //     Here the order is the dense order: insertion order, changed only by swap-removes.
    assert_eq!(positions.keys(), &[10, 42]);
    assert_eq!(positions.values(), &[(6, 6), (1, 2)]);

    considerations();
}

/// heph: "the memory consumption of this implementation will grow relative to the maximum key
/// in the set ... Use the `compact` method periodically", and its benchmark's one loss, sparse
/// ascending inserts, which reallocate the sparse array as the largest key grows. Here the
/// sparse array is paged (512 slots a page, a page with up to 8 keys stored compactly), so
/// memory follows the keys used, and an ascending insert never reallocates in proportion to the
/// largest key (the pages' arrays grow by doubling with the pages in use, as a `Vec` does).
fn considerations() {
    const STEP: usize = 100;
    const KEYS: usize = 10_000;
    let mut sparse = SparseMap::<Entity, Position>::new();
    for key in (0..KEYS).map(|i| i * STEP) {
        sparse.insert(key, (0, 0));
    }
    let flat_slots = (KEYS - 1) * STEP + 1;
    let flat_bytes = flat_slots * size_of::<u32>();
    let spread = sparse.as_sparse_set().allocated_bytes();
    println!(
        "{KEYS} keys 0, {STEP}, .. {}: the index holds {spread} bytes ({} sparse pages); a \
         flat u32 sparse array up to the largest key would be {flat_bytes}",
        (KEYS - 1) * STEP,
        sparse.as_sparse_set().sparse_pages(),
    );
    assert!(spread < flat_bytes / 10);

    // `compact`: keep the keys below 1,000, give back the pages nothing uses any more.
    sparse.retain(|key, _| key < 1_000);
    let before = sparse.as_sparse_set().allocated_bytes();
    sparse.shrink_to_fit();
    let after = sparse.as_sparse_set().allocated_bytes();
    println!(
        "after keeping {} keys: {before} bytes; after shrink_to_fit (heph's `compact`): {after}",
        sparse.len()
    );
    assert_eq!(sparse.keys(), &[0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    assert!(after < before / 10);
}
