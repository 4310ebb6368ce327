//! A derived storage with `dense = u8` (at most 255 elements) against a `BTreeMap`: inserts
//! past the limit are refused with `DenseIndexOverflow` and change nothing.

#![no_main]

use std::collections::BTreeMap;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sparse_soa::{Error, SparseSoa, Storage};

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(dense = u8)]
struct Cell {
    value: u16,
    label: String,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Insert(u16, u16),
    /// Many keys at once, to reach the limit quickly.
    Fill(u16, u8),
    Remove(u16),
    Retain(u8),
    SortByValue,
    SortUnstableByValue,
    SwapIndices(u8, u8),
    Truncate(u8),
    Clone,
}

fuzz_target!(|ops: Vec<Op>| {
    let mut storage = CellSoa::new();
    let mut model: BTreeMap<u32, u16> = BTreeMap::new();
    let try_insert = |storage: &mut CellSoa, model: &mut BTreeMap<u32, u16>, key: u32, value: u16| {
        let result = storage.try_insert(key, Cell { value, label: value.to_string() });
        if model.len() == 255 && !model.contains_key(&key) {
            assert_eq!(result, Err(Error::DenseIndexOverflow { width: "u8", max_len: 255 }));
        } else {
            let replaced = result.expect("room for it").map(|cell| cell.value);
            assert_eq!(replaced, model.insert(key, value));
        }
    };
    for op in ops {
        match op {
            Op::Insert(key, value) => try_insert(&mut storage, &mut model, u32::from(key), value),
            Op::Fill(start, count) => {
                for key in u32::from(start)..u32::from(start) + u32::from(count) {
                    try_insert(&mut storage, &mut model, key, key as u16);
                }
            }
            Op::Remove(key) => {
                let key = u32::from(key);
                assert_eq!(storage.remove(key).map(|cell| cell.value), model.remove(&key));
            }
            Op::Retain(modulus) => {
                let modulus = u16::from(modulus.max(1));
                storage.retain(|_, cell| *cell.value % modulus != 0);
                model.retain(|_, value| *value % modulus != 0);
            }
            Op::SortByValue => {
                storage.sort_by(|_, a, _, b| a.value.cmp(b.value));
                assert!(storage.value().is_sorted());
            }
            Op::SortUnstableByValue => {
                storage.sort_unstable_by(|_, a, _, b| b.value.cmp(a.value));
                assert!(storage.value().is_sorted_by(|a, b| a >= b));
            }
            Op::SwapIndices(a, b) => {
                let (a, b) = (usize::from(a), usize::from(b));
                if a < storage.len() && b < storage.len() {
                    storage.swap_indices(a, b);
                }
            }
            Op::Truncate(len) => {
                let len = usize::from(len);
                for &key in storage.keys().get(len..).unwrap_or(&[]) {
                    model.remove(&key);
                }
                storage.truncate(len);
            }
            Op::Clone => {
                let copy = storage.clone();
                assert_eq!(copy, storage);
                storage = copy;
            }
        }
        storage.assert_invariants();
        assert!(storage.len() <= 255);
        assert_eq!(storage.len(), model.len());
        for (key, cell) in storage.iter() {
            assert_eq!(Some(cell.value), model.get(&key));
            assert_eq!(*cell.label, cell.value.to_string());
        }
    }
});
