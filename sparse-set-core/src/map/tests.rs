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
