//! Unit tests of the map that need more than the public API shows.

use super::*;

#[test]
fn get_disjoint_mut_hands_out_each_found_position_once() {
    let mut map: SparseMap<u32, u32> = (0..10).map(|key| (key * 100, key)).collect();
    let [a, b, c, d] = map.get_disjoint_mut([900, 5, 0, 400]);
    assert_eq!((a.copied(), b.copied(), c.copied(), d.copied()), (Some(9), None, Some(0), Some(4)));
    let all = map.get_disjoint_mut([900, 800, 700, 600, 500, 400, 300, 200, 100, 0]);
    let found: Vec<u32> = all.into_iter().map(|value| *value.unwrap()).collect();
    assert_eq!(found, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    let none: [Option<&mut u32>; 0] = map.get_disjoint_mut([]);
    assert!(none.is_empty());
}

/// A vacant entry of a key outside the prefix keeps where the key's slot is, and its insert
/// lands there: in pages not yet there and in thin pages of both lanes, and along runs of keys
/// that fill pages of both lanes. The map equals a model at the end, and has its length after
/// every entry.
#[test]
fn a_vacant_entry_outside_the_prefix_inserts_where_it_looked() {
    let rounds = if cfg!(miri) { 300 } else { 12_000 };
    let mut map = SparseMap::<u32, u32>::new();
    let mut model = alloc::collections::BTreeMap::new();
    let mut state = 0x9E37_79B9_u32;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let mut found_once = 0;
    for round in 0..rounds {
        let key = match round % 4 {
            // Thin pages of the flat lane, and of the hash lane.
            0 => random() % 3_000_000,
            1 => random() | 0x8000_0000,
            // A run through a few pages, each compact until it fills: the flat lane's...
            2 => 1_000_000 + round / 4 % 1_500,
            // ...and the hash lane's.
            _ => u32::MAX - round / 4 % 1_500,
        };
        match map.entry(key) {
            Entry::Vacant(vacant) => {
                found_once += usize::from(vacant.vacancy.is_some());
                assert_eq!(*vacant.insert(round), round);
                assert_eq!(model.insert(key, round), None);
            }
            Entry::Occupied(mut occupied) => {
                *occupied.get_mut() += 1;
                *model.get_mut(&key).expect("the model holds it too") += 1;
            }
        }
        assert_eq!(map.len(), model.len());
    }
    map.assert_invariants();
    for (&key, value) in &model {
        assert_eq!(map.get(key), Some(value), "key {key}");
    }
    // No page from slot 0 up fills, so the prefix stays empty and every insert is outside it.
    assert_eq!(map.set.probe().prefix_slots(), 0);
    assert_eq!(found_once, model.len(), "every vacant entry kept where its slot is");
}
