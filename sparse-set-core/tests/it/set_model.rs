//! Model tests: random operation sequences on `SparseSet` and `Entities`, checked step by step
//! against a `Vec` of the exact dense order plus a `BTreeSet`, with the invariant checker after
//! every step.

use std::collections::{BTreeSet, HashSet};

use proptest::prelude::*;
use sparse_set_core::{Entities, Entity, Moved, Permutation, Removed, SparseSet};
use sparse_soa_test_support::model;

/// Keys spread over many pages: small ones, ones around page edges, ones near `u32::MAX`.
fn key() -> impl Strategy<Value = u32> {
    prop_oneof![
        0..64_u32,
        (0..40_u32, 0..3_u32).prop_map(|(page, offset)| page * 512 + 511 + offset),
        (0..64_u32).prop_map(|offset| u32::MAX - offset),
        any::<u32>(),
    ]
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32),
    TryInsert(u32),
    Remove(u32),
    RemoveWithInfo(u32),
    SwapRemoveIndex(usize),
    SwapIndices(usize, usize),
    Retain(u32),
    Clear,
    Pop,
    Truncate(usize),
    Drain,
    SortUnstable,
    SortByKey(u32),
    Reverse,
    Extend(Vec<u32>),
    ShrinkToFit,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => key().prop_map(Op::Insert),
        2 => key().prop_map(Op::TryInsert),
        4 => key().prop_map(Op::Remove),
        4 => key().prop_map(Op::RemoveWithInfo),
        2 => any::<usize>().prop_map(Op::SwapRemoveIndex),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::SwapIndices(a, b)),
        1 => (2..5_u32).prop_map(Op::Retain),
        1 => Just(Op::Clear),
        1 => Just(Op::Pop),
        1 => any::<usize>().prop_map(Op::Truncate),
        1 => Just(Op::Drain),
        1 => Just(Op::SortUnstable),
        1 => (2..9_u32).prop_map(Op::SortByKey),
        1 => Just(Op::Reverse),
        1 => prop::collection::vec(key(), 0..20).prop_map(Op::Extend),
        1 => Just(Op::ShrinkToFit),
    ]
}

/// The longest operation sequence of a case (shorter under miri, which runs about a thousand
/// times slower).
const OPS: usize = if cfg!(miri) { 30 } else { 120 };

/// Applies `op` to the set and to the model (`order`: the exact dense order).
fn step(set: &mut SparseSet<u32>, order: &mut Vec<u32>, op: Op) {
    match op {
        Op::Insert(key) | Op::TryInsert(key) => {
            let expected = if let Some(index) = order.iter().position(|&k| k == key) {
                (index, false)
            } else {
                order.push(key);
                (order.len() - 1, true)
            };
            let got = if matches!(op, Op::Insert(_)) {
                set.insert_full(key)
            } else {
                set.try_insert_full(key).expect("a growable set accepts any key")
            };
            assert_eq!(got, expected);
        }
        Op::Remove(key) | Op::RemoveWithInfo(key) => {
            let expected = order.iter().position(|&k| k == key).map(|index| {
                order.swap_remove(index);
                let moved = order.get(index).map(|&key| Moved { key, from: order.len() });
                Removed { index, moved }
            });
            if matches!(op, Op::Remove(_)) {
                assert_eq!(set.remove(key), expected.is_some());
            } else {
                assert_eq!(set.remove_with_info(key), expected);
            }
        }
        Op::SwapRemoveIndex(index) => {
            let index = if order.is_empty() { index } else { index % (order.len() + 1) };
            let expected = (index < order.len()).then(|| order.swap_remove(index));
            assert_eq!(set.swap_remove_index(index), expected);
        }
        Op::SwapIndices(a, b) => {
            if !order.is_empty() {
                let (a, b) = (a % order.len(), b % order.len());
                order.swap(a, b);
                set.swap_indices(a, b);
            }
        }
        Op::Retain(modulus) => {
            let mut visited = Vec::new();
            set.retain(|&key| {
                visited.push(key);
                key % modulus != 0
            });
            assert_eq!(&visited, order, "retain visits each key once, in dense order");
            order.retain(|key| key % modulus != 0);
        }
        Op::Clear => {
            set.clear();
            order.clear();
        }
        Op::Pop => assert_eq!(set.pop(), order.pop()),
        Op::Truncate(len) => {
            let len = len % (order.len() + 2);
            set.truncate(len);
            order.truncate(len);
        }
        Op::Drain => {
            let drained: Vec<u32> = set.drain().collect();
            assert_eq!(&drained, order);
            order.clear();
        }
        Op::SortUnstable => {
            set.sort_unstable();
            order.sort_unstable();
        }
        Op::SortByKey(modulus) => {
            set.sort_by_key(|&key| key % modulus);
            order.sort_by_key(|&key| key % modulus);
        }
        Op::Reverse => {
            let perm = Permutation::from_vec((0..order.len()).rev().collect()).unwrap();
            set.apply_permutation(&perm);
            order.reverse();
        }
        Op::Extend(keys) => {
            set.extend(keys.iter().copied());
            for key in keys {
                if !order.contains(&key) {
                    order.push(key);
                }
            }
        }
        Op::ShrinkToFit => set.shrink_to_fit(),
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn sparse_set_matches_the_model(ops in prop::collection::vec(op(), 1..OPS)) {
        let mut set = SparseSet::<u32>::new();
        let mut order: Vec<u32> = Vec::new();
        let mut ever = BTreeSet::new();
        for op in ops {
            if let Op::Insert(key) | Op::TryInsert(key) = op {
                ever.insert(key);
            }
            if let Op::Extend(keys) = &op {
                ever.extend(keys.iter().copied());
            }
            step(&mut set, &mut order, op);
            set.assert_invariants();
            prop_assert_eq!(set.as_slice(), order.as_slice());
            let members: BTreeSet<u32> = order.iter().copied().collect();
            for &key in &ever {
                prop_assert_eq!(set.contains(key), members.contains(&key));
                prop_assert_eq!(set.get_index_of(key), order.iter().position(|&k| k == key));
            }
        }
    }

    #[test]
    fn entities_and_an_entity_keyed_set_match_the_model(
        ops in prop::collection::vec((any::<bool>(), any::<prop::sample::Index>()), 1..OPS * 5 / 2)
    ) {
        let mut entities = Entities::new();
        let mut set = SparseSet::<Entity>::new();
        let mut issued: Vec<Entity> = Vec::new();
        let mut alive: HashSet<Entity> = HashSet::new();
        for (spawn, pick) in ops {
            if spawn || issued.is_empty() {
                let entity = entities.spawn();
                prop_assert!(!issued.contains(&entity), "ids are never issued twice");
                prop_assert!(alive.iter().all(|other| other.index() != entity.index()));
                issued.push(entity);
                alive.insert(entity);
                prop_assert!(set.insert(entity));
            } else {
                let entity = *pick.get(&issued);
                let was_alive = alive.remove(&entity);
                prop_assert_eq!(entities.despawn(entity), was_alive);
                prop_assert_eq!(set.remove(entity), was_alive);
            }
            entities.assert_invariants();
            set.assert_invariants();
            prop_assert_eq!(entities.len(), alive.len());
            prop_assert_eq!(set.len(), alive.len());
            for &entity in &issued {
                prop_assert_eq!(entities.is_alive(entity), alive.contains(&entity));
                prop_assert_eq!(set.contains(entity), alive.contains(&entity));
            }
            let live: HashSet<Entity> = entities.iter().collect();
            prop_assert_eq!(&live, &alive);
        }
    }
}
