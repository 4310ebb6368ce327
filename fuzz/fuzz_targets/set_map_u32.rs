//! `SparseSet<u32>` and `SparseMap<u32, u16>` against a `BTreeSet` / `BTreeMap`, with the
//! invariant checkers after every step; keys spread over every page kind and directory lane.

#![no_main]

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sparse_soa::{SparseMap, SparseSet};
use sparse_soa_fuzz::SpreadKey;

#[derive(Arbitrary, Debug)]
enum Op {
    Insert(SpreadKey, u16),
    Remove(SpreadKey),
    RemoveWithInfo(SpreadKey),
    Get(SpreadKey),
    SwapRemoveIndex(u16),
    Pop,
    Retain(u8),
    Truncate(u16),
    SortKeys,
    SortByValue,
    ShrinkToFit,
    Clear,
    Drain,
}

fuzz_target!(|ops: Vec<Op>| {
    let mut set = SparseSet::<u32>::new();
    let mut map = SparseMap::<u32, u16>::new();
    let mut set_model = BTreeSet::new();
    let mut map_model = BTreeMap::new();
    for op in ops {
        match op {
            Op::Insert(SpreadKey(key), value) => {
                assert_eq!(set.insert(key), set_model.insert(key));
                assert_eq!(map.insert(key, value), map_model.insert(key, value));
            }
            Op::Remove(SpreadKey(key)) => {
                assert_eq!(set.remove(key), set_model.remove(&key));
                assert_eq!(map.remove(key), map_model.remove(&key));
            }
            Op::RemoveWithInfo(SpreadKey(key)) => {
                let before: Vec<u32> = set.as_slice().to_vec();
                match set.remove_with_info(key) {
                    Some(info) => {
                        assert!(set_model.remove(&key));
                        assert_eq!(before[info.index], key);
                        match info.moved {
                            Some(moved) => {
                                assert_eq!(moved.from, before.len() - 1);
                                assert_eq!(before[moved.from], moved.key);
                                assert_eq!(set.as_slice()[info.index], moved.key);
                            }
                            None => assert_eq!(info.index, before.len() - 1),
                        }
                    }
                    None => assert!(!set_model.contains(&key)),
                }
                assert_eq!(map.remove_with_info(key).map(|(value, _)| value), map_model.remove(&key));
            }
            Op::Get(SpreadKey(key)) => {
                assert_eq!(set.contains(key), set_model.contains(&key));
                assert_eq!(map.get(key), map_model.get(&key));
                if let Some(index) = set.get_index_of(key) {
                    assert_eq!(set.get_index(index), Some(key));
                }
            }
            Op::SwapRemoveIndex(index) => {
                if let Some(key) = set.swap_remove_index(usize::from(index)) {
                    assert!(set_model.remove(&key));
                }
                if let Some((key, value)) = map.swap_remove_index(usize::from(index)) {
                    assert_eq!(map_model.remove(&key), Some(value));
                }
            }
            Op::Pop => {
                if let Some(key) = set.pop() {
                    assert!(set_model.remove(&key));
                }
                if let Some((key, value)) = map.pop() {
                    assert_eq!(map_model.remove(&key), Some(value));
                }
            }
            Op::Retain(modulus) => {
                let modulus = u32::from(modulus.max(1));
                set.retain(|key| key % modulus != 0);
                set_model.retain(|key| key % modulus != 0);
                map.retain(|key, value| {
                    *value = value.wrapping_add(1);
                    key % modulus != 0
                });
                map_model.retain(|key, value| {
                    *value = value.wrapping_add(1);
                    key % modulus != 0
                });
            }
            Op::Truncate(len) => {
                let len = usize::from(len);
                for &key in set.as_slice().get(len..).unwrap_or(&[]) {
                    set_model.remove(&key);
                }
                set.truncate(len);
                for &key in map.keys().get(len..).unwrap_or(&[]) {
                    map_model.remove(&key);
                }
                map.truncate(len);
            }
            Op::SortKeys => {
                set.sort_unstable();
                assert!(set.as_slice().is_sorted());
                map.sort_keys();
                assert!(map.keys().is_sorted());
            }
            Op::SortByValue => {
                map.sort_by(|_, a, _, b| a.cmp(b));
                assert!(map.values().is_sorted());
            }
            Op::ShrinkToFit => {
                set.shrink_to_fit();
                map.shrink_to_fit();
            }
            Op::Clear => {
                set.clear();
                set_model.clear();
                map.clear();
                map_model.clear();
            }
            Op::Drain => {
                let drained: BTreeSet<u32> = set.drain().collect();
                assert_eq!(drained, std::mem::take(&mut set_model));
                let drained: BTreeMap<u32, u16> = map.drain().collect();
                assert_eq!(drained, std::mem::take(&mut map_model));
            }
        }
        set.assert_invariants();
        map.assert_invariants();
        assert_eq!(set.len(), set_model.len());
        assert_eq!(map.len(), map_model.len());
    }
    assert_eq!(set.iter().collect::<BTreeSet<_>>(), set_model);
    assert_eq!(map.iter().map(|(key, &value)| (key, value)).collect::<BTreeMap<_, _>>(), map_model);
});
