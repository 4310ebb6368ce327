//! A derived storage with a `String` field against a `BTreeMap` model: after every step each
//! column has the key slice's length and every key's row equals the model's value.

use std::collections::BTreeMap;

use proptest::prelude::*;
use sparse_soa::{SparseSoa, Storage};
use sparse_soa_test_support::model;

#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Position {
    x: i32,
    label: String,
    z: u8,
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, i32),
    Remove(u32),
    RemoveWithInfo(u32),
    GetMut(u32, i32),
    Retain(u32),
    SortByX,
    Pop,
    SwapRemoveIndex(usize),
    Truncate(usize),
    Clear,
    Drain,
}

/// Keys crowd a few pages (and cross their boundaries) so slots are reused often.
fn key() -> impl Strategy<Value = u32> {
    prop_oneof![0..40_u32, 500..530_u32, Just(100_000)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (key(), any::<i32>()).prop_map(|(k, x)| Op::Insert(k, x)),
        3 => key().prop_map(Op::Remove),
        2 => key().prop_map(Op::RemoveWithInfo),
        2 => (key(), any::<i32>()).prop_map(|(k, x)| Op::GetMut(k, x)),
        1 => (1..5_u32).prop_map(Op::Retain),
        1 => Just(Op::SortByX),
        1 => Just(Op::Pop),
        1 => (0..50_usize).prop_map(Op::SwapRemoveIndex),
        1 => (0..50_usize).prop_map(Op::Truncate),
        1 => Just(Op::Clear),
        1 => Just(Op::Drain),
    ]
}

fn value(key: u32, x: i32) -> Position {
    Position { x, label: format!("{key}:{x}"), z: (key % 7) as u8 }
}

fn check(storage: &PositionSoa, model: &BTreeMap<u32, Position>) {
    storage.assert_invariants();
    let len = storage.keys().len();
    assert_eq!(storage.x().len(), len);
    assert_eq!(storage.label().len(), len);
    assert_eq!(storage.z().len(), len);
    assert_eq!(len, model.len());
    for (key, expected) in model {
        assert_eq!(storage.get(*key).map(PositionRef::cloned).as_ref(), Some(expected));
    }
    for (index, &key) in storage.keys().iter().enumerate() {
        assert_eq!(storage.get_index_of(key), Some(index));
        let row = Position {
            x: storage.x()[index],
            label: storage.label()[index].clone(),
            z: storage.z()[index],
        };
        assert_eq!(model.get(&key), Some(&row));
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn matches_a_btreemap(ops in proptest::collection::vec(op(), 1..if cfg!(miri) { 30 } else { 120 })) {
        let mut storage = PositionSoa::new();
        let mut model = BTreeMap::new();
        for op in ops {
            match op {
                Op::Insert(key, x) => {
                    let expected = model.insert(key, value(key, x));
                    prop_assert_eq!(storage.insert(key, value(key, x)), expected);
                }
                Op::Remove(key) => prop_assert_eq!(storage.remove(key), model.remove(&key)),
                Op::RemoveWithInfo(key) => {
                    let index = storage.get_index_of(key);
                    let removed = storage.remove_with_info(key);
                    prop_assert_eq!(removed.as_ref().map(|(_, info)| info.index), index);
                    prop_assert_eq!(removed.map(|(value, _)| value), model.remove(&key));
                }
                Op::GetMut(key, x) => {
                    if let Some(row) = storage.get_mut(key) {
                        *row.x = x;
                        *row.label = format!("{key}:{x}");
                    }
                    if let Some(row) = model.get_mut(&key) {
                        *row = value(key, x);
                    }
                }
                Op::Retain(modulus) => {
                    storage.retain(|key, _| key % modulus == 0);
                    model.retain(|key, _| key % modulus == 0);
                }
                Op::SortByX => {
                    storage.sort_by(|_, a, _, b| a.x.cmp(b.x));
                    prop_assert!(storage.x().windows(2).all(|pair| pair[0] <= pair[1]));
                }
                Op::Pop => {
                    let last = storage.keys().last().copied();
                    let popped = storage.pop();
                    prop_assert_eq!(popped.as_ref().map(|(key, _)| *key), last);
                    if let Some((key, row)) = popped {
                        prop_assert_eq!(model.remove(&key), Some(row));
                    }
                }
                Op::SwapRemoveIndex(index) => {
                    if let Some((key, row)) = storage.swap_remove_index(index) {
                        prop_assert_eq!(model.remove(&key), Some(row));
                    } else {
                        prop_assert!(index >= model.len());
                    }
                }
                Op::Truncate(len) => {
                    for &key in storage.keys().iter().skip(len) {
                        model.remove(&key);
                    }
                    storage.truncate(len);
                }
                Op::Clear => {
                    storage.clear();
                    model.clear();
                }
                Op::Drain => {
                    let drained: BTreeMap<u32, Position> = storage.drain().collect();
                    prop_assert_eq!(&drained, &model);
                    model.clear();
                }
            }
            check(&storage, &model);
        }
        let collected: BTreeMap<u32, Position> = storage.into_iter().collect();
        prop_assert_eq!(collected, model);
    }
}
