//! Model tests: random sequences of every mutating `SparseMap` call, checked step by step against
//! a `BTreeMap` of the contents plus a `Vec` of the exact dense order, with the invariant checker
//! after every step.
//!
//! Three maps are modelled: `u32` keys spread over many pages up to `u32::MAX`; `Entity` keys
//! whose generations share slots (so inserts displace); and a bounded map with a `u16` dense width
//! that refuses keys and elements past its limits. Values are boxed so that a leak or a double
//! drop shows up under miri.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::num::NonZeroU32;

use proptest::prelude::*;
use sparse_set_core::map::Entry;
use sparse_set_core::{DenseIndex, Entity, Error, Key, Moved, Removed, SparseMap};
use sparse_soa_test_support::model;

type Value = Box<i64>;

/// The longest operation sequence of a case (shorter under miri, which runs about a thousand
/// times slower).
const OPS: usize = if cfg!(miri) { 24 } else { 120 };

// ---------------------------------------------------------------------------------------------
// Keys.

/// Keys spread over many pages: small ones, ones at the edges of 512-slot pages and of larger
/// directory boundaries, ones near `u32::MAX`, and any at all.
fn u32_key() -> BoxedStrategy<u32> {
    prop_oneof![
        3 => 0..16_u32,
        3 => (0..6_u32, 0..3_u32).prop_map(|(page, offset)| page * 512 + 511 + offset),
        2 => prop::sample::select(vec![
            (1 << 20) - 1,
            1 << 20,
            (1 << 24) - 1,
            1 << 24,
            (1 << 24) + 512,
            1 << 31,
        ]),
        2 => (0..4_u32).prop_map(|offset| u32::MAX - offset),
        1 => any::<u32>(),
    ]
    .boxed()
}

/// Entities over few slots and generations, so that slots are shared.
fn entity_key() -> BoxedStrategy<Entity> {
    let index = prop_oneof![0..6_u32, Just(512), Just(u32::MAX), Just(u32::MAX - 1)];
    (index, 1..=3_u32)
        .prop_map(|(index, generation)| {
            Entity::from_parts(index, NonZeroU32::new(generation).unwrap())
        })
        .boxed()
}

// ---------------------------------------------------------------------------------------------
// Operations.

#[derive(Clone, Debug)]
enum Op<K> {
    Insert(K, i64),
    TryInsert(K, i64),
    Remove(K),
    RemoveWithInfo(K),
    SwapRemoveIndex(usize),
    Pop,
    SwapIndices(usize, usize),
    EntryOrInsert(K, i64),
    EntryOrInsertWithKey(K),
    EntryOrDefault(K),
    EntryAndModify(K, i64),
    EntryOccupiedInsert(K, i64),
    EntryRemove(K),
    GetOrInsertWith(K, i64),
    GetMut(K, i64),
    GetIndexMut(usize, i64),
    ValuesMut(i64),
    IterMut,
    GetDisjointMut(K, K, i64),
    Retain(i64, i64),
    Clear,
    Truncate(usize),
    Drain(usize),
    SortBy(u8),
    Extend(Vec<(K, i64)>),
    Reserve(usize),
    ShrinkToFit,
}

fn op<K: Debug + Clone + 'static>(key: BoxedStrategy<K>) -> impl Strategy<Value = Op<K>> {
    let value = -100..100_i64;
    let index = 0..12_usize;
    prop_oneof![
        8 => (key.clone(), value.clone()).prop_map(|(k, v)| Op::Insert(k, v)),
        3 => (key.clone(), value.clone()).prop_map(|(k, v)| Op::TryInsert(k, v)),
        4 => key.clone().prop_map(Op::Remove),
        3 => key.clone().prop_map(Op::RemoveWithInfo),
        2 => index.clone().prop_map(Op::SwapRemoveIndex),
        1 => Just(Op::Pop),
        1 => (index.clone(), index.clone()).prop_map(|(a, b)| Op::SwapIndices(a, b)),
        3 => (key.clone(), value.clone()).prop_map(|(k, v)| Op::EntryOrInsert(k, v)),
        1 => key.clone().prop_map(Op::EntryOrInsertWithKey),
        1 => key.clone().prop_map(Op::EntryOrDefault),
        2 => (key.clone(), value.clone()).prop_map(|(k, v)| Op::EntryAndModify(k, v)),
        2 => (key.clone(), value.clone()).prop_map(|(k, v)| Op::EntryOccupiedInsert(k, v)),
        2 => key.clone().prop_map(Op::EntryRemove),
        1 => (key.clone(), value.clone()).prop_map(|(k, v)| Op::GetOrInsertWith(k, v)),
        2 => (key.clone(), value.clone()).prop_map(|(k, v)| Op::GetMut(k, v)),
        1 => (index.clone(), value.clone()).prop_map(|(i, v)| Op::GetIndexMut(i, v)),
        1 => value.clone().prop_map(Op::ValuesMut),
        1 => Just(Op::IterMut),
        1 => (key.clone(), key.clone(), value.clone()).prop_map(|(a, b, v)| Op::GetDisjointMut(a, b, v)),
        1 => (2..5_i64, 0..2_i64).prop_map(|(m, r)| Op::Retain(m, r)),
        1 => Just(Op::Clear),
        1 => index.clone().prop_map(Op::Truncate),
        1 => index.prop_map(Op::Drain),
        2 => (0..5_u8).prop_map(Op::SortBy),
        1 => prop::collection::vec((key, value), 0..10).prop_map(Op::Extend),
        1 => (0..64_usize).prop_map(Op::Reserve),
        1 => Just(Op::ShrinkToFit),
    ]
}

// ---------------------------------------------------------------------------------------------
// The model.

/// The expected state: contents in a `BTreeMap`, the dense order in a `Vec`, and the limits.
#[derive(Clone, Debug)]
struct Model<K> {
    values: BTreeMap<K, i64>,
    order: Vec<K>,
    /// `(capacity, key_limit)` of a bounded map.
    bounds: Option<(usize, usize)>,
    max_len: usize,
    width: &'static str,
    /// The newest version each slot has held (for `Entity` keys): an empty slot refuses older
    /// ones.
    seen: BTreeMap<u64, u32>,
}

impl<K: Key + Ord> Model<K> {
    fn new<D: DenseIndex>(bounds: Option<(usize, usize)>) -> Self {
        Self {
            values: BTreeMap::new(),
            order: Vec::new(),
            bounds,
            max_len: D::MAX_LEN,
            width: D::NAME,
            seen: BTreeMap::new(),
        }
    }

    fn position(&self, key: K) -> Option<usize> {
        self.order.iter().position(|&k| k == key)
    }

    /// The position of whichever key holds `key`'s slot.
    fn slot_holder(&self, key: K) -> Option<usize> {
        self.order.iter().position(|k| k.sparse_slot() == key.sparse_slot())
    }

    /// Whether inserting `key` succeeds, and with which error if not.
    fn check_insert(&self, key: K) -> Result<(), Error> {
        if let Some(position) = self.slot_holder(key) {
            // A different key in the slot is replaced only by a newer one; an older one is stale.
            let held = self.order[position];
            if held != key && key.version() < held.version() {
                return Err(Error::StaleKey {
                    index: key.sparse_slot(),
                    version: key.version(),
                    held: held.version(),
                });
            }
            return Ok(());
        }
        let seen = self.seen.get(&key.sparse_slot()).copied().unwrap_or(0);
        if key.version() < seen {
            return Err(Error::StaleKey {
                index: key.sparse_slot(),
                version: key.version(),
                held: seen,
            });
        }
        let len = self.order.len();
        if let Some((capacity, key_limit)) = self.bounds {
            if key.sparse_slot() >= key_limit as u64 {
                return Err(Error::KeyOutOfRange {
                    index: key.sparse_slot(),
                    limit: key_limit as u64,
                });
            }
            if len >= capacity {
                return Err(Error::Full { capacity });
            }
        }
        if len >= self.max_len {
            return Err(Error::DenseIndexOverflow { width: self.width, max_len: self.max_len });
        }
        Ok(())
    }

    /// Inserts `key` (which must fit): its position and the value it replaced, which for a
    /// different key holding the slot is that key's value.
    fn insert(&mut self, key: K, value: i64) -> (usize, Option<i64>) {
        let seen = self.seen.entry(key.sparse_slot()).or_insert(0);
        *seen = (*seen).max(key.version());
        if let Some(position) = self.slot_holder(key) {
            let held = std::mem::replace(&mut self.order[position], key);
            let old = self.values.remove(&held);
            self.values.insert(key, value);
            (position, old)
        } else {
            self.order.push(key);
            self.values.insert(key, value);
            (self.order.len() - 1, None)
        }
    }

    fn swap_remove(&mut self, position: usize) -> (K, i64, Removed<K>) {
        let key = self.order.swap_remove(position);
        let value = self.values.remove(&key).unwrap();
        let moved = self.order.get(position).map(|&k| Moved { key: k, from: self.order.len() });
        (key, value, Removed { index: position, moved })
    }

    fn get(&self, key: K) -> Option<i64> {
        self.values.get(&key).copied()
    }

    fn set(&mut self, key: K, value: i64) {
        *self.values.get_mut(&key).unwrap() = value;
    }

    fn truncate(&mut self, len: usize) {
        for key in self.order.drain(len.min(self.order.len())..) {
            self.values.remove(&key);
        }
    }

    fn clear(&mut self) {
        self.truncate(0);
    }

    fn sort(&mut self, mut compare: impl FnMut(&K, i64, &K, i64) -> std::cmp::Ordering) {
        let values = &self.values;
        self.order.sort_by(|a, b| compare(a, values[a], b, values[b]));
    }
}

/// The value `or_insert_with_key` makes from a key.
fn made_from<K: Key>(key: K) -> i64 {
    i64::try_from(key.sparse_index() % 1000).unwrap()
}

/// The whole map against the model.
fn check<K: Key + Ord, D: DenseIndex>(map: &SparseMap<K, Value, D>, model: &Model<K>) {
    map.assert_invariants();
    assert_eq!(map.len(), model.order.len());
    assert_eq!(map.is_empty(), model.order.is_empty());
    assert_eq!(map.keys(), model.order.as_slice(), "dense order");
    let values: Vec<i64> = map.values().iter().map(|value| **value).collect();
    let expected: Vec<i64> = model.order.iter().map(|key| model.values[key]).collect();
    assert_eq!(values, expected, "values in dense order");
    let contents: BTreeMap<K, i64> = map.iter().map(|(key, value)| (key, **value)).collect();
    assert_eq!(contents, model.values);
    for (position, (&key, &value)) in model.order.iter().zip(&expected).enumerate() {
        assert_eq!(map.get(key).map(|v| **v), Some(value));
        assert_eq!(map.get_index_of(key), Some(position));
    }
    if let Some((capacity, _)) = model.bounds {
        assert_eq!(map.capacity(), capacity);
    }
}

/// One key against the model, present or not.
fn probe<K: Key + Ord, D: DenseIndex>(map: &SparseMap<K, Value, D>, model: &Model<K>, key: K) {
    assert_eq!(map.get(key).map(|v| **v), model.get(key), "get({key:?})");
    assert_eq!(map.contains_key(key), model.values.contains_key(&key));
    assert_eq!(map.get_index_of(key), model.position(key));
}

/// Inserts through a vacant entry that the model says will be refused.
fn refused_by_entry<K: Key + Ord, D: DenseIndex>(
    map: &mut SparseMap<K, Value, D>,
    key: K,
    error: Error,
) {
    let Entry::Vacant(vacant) = map.entry(key) else { panic!("{key:?} should be vacant") };
    assert_eq!(vacant.try_insert(Box::new(0)).map(|_| ()), Err(error));
}

/// Applies `op` to the map and the model; checks every result.
#[allow(clippy::too_many_lines, reason = "one arm per operation, each next to its model")]
fn step<K: Key + Ord, D: DenseIndex>(
    map: &mut SparseMap<K, Value, D>,
    model: &mut Model<K>,
    op: Op<K>,
) {
    match op {
        Op::Insert(key, value) => {
            match model.check_insert(key) {
                Ok(()) => {
                    let expected = model.insert(key, value);
                    let (index, old) = map.insert_full(key, Box::new(value));
                    assert_eq!((index, old.map(|v| *v)), expected);
                }
                // The plain call would panic with this error; the fallible twin reports it.
                Err(error) => assert_eq!(map.try_insert_full(key, Box::new(value)), Err(error)),
            }
            probe(map, model, key);
        }
        Op::TryInsert(key, value) => {
            let expected = model.check_insert(key).map(|()| model.insert(key, value).1);
            let got = map.try_insert(key, Box::new(value)).map(|old| old.map(|v| *v));
            assert_eq!(got, expected);
            probe(map, model, key);
        }
        Op::Remove(key) => {
            let expected = model.position(key).map(|position| model.swap_remove(position).1);
            assert_eq!(map.remove(key).map(|v| *v), expected);
            probe(map, model, key);
        }
        Op::RemoveWithInfo(key) => {
            let expected = model.position(key).map(|position| {
                let (_, value, removed) = model.swap_remove(position);
                (value, removed)
            });
            assert_eq!(map.remove_with_info(key).map(|(v, removed)| (*v, removed)), expected);
            probe(map, model, key);
        }
        Op::SwapRemoveIndex(index) => {
            let expected = (index < model.order.len()).then(|| {
                let (key, value, _) = model.swap_remove(index);
                (key, value)
            });
            assert_eq!(map.swap_remove_index(index).map(|(k, v)| (k, *v)), expected);
        }
        Op::Pop => {
            let expected = model.order.last().map(|&key| (key, model.values[&key]));
            if !model.order.is_empty() {
                model.swap_remove(model.order.len() - 1);
            }
            assert_eq!(map.pop().map(|(k, v)| (k, *v)), expected);
        }
        Op::SwapIndices(a, b) => {
            let len = model.order.len();
            if a < len && b < len {
                model.order.swap(a, b);
                map.swap_indices(a, b);
            }
        }
        Op::EntryOrInsert(key, value) | Op::GetOrInsertWith(key, value) => {
            let present = model.get(key);
            match model.check_insert(key) {
                Err(error) if present.is_none() => refused_by_entry(map, key, error),
                _ => {
                    let expected = if let Some(old) = present {
                        old
                    } else {
                        model.insert(key, value);
                        value
                    };
                    let got = if matches!(op, Op::EntryOrInsert(..)) {
                        map.entry(key).or_insert(Box::new(value))
                    } else {
                        map.get_or_insert_with(key, || Box::new(value))
                    };
                    assert_eq!(**got, expected);
                    **got += 1;
                    model.set(key, expected + 1);
                }
            }
            probe(map, model, key);
        }
        Op::EntryOrInsertWithKey(key) | Op::EntryOrDefault(key) => {
            let made = if matches!(op, Op::EntryOrDefault(_)) { 0 } else { made_from(key) };
            let present = model.get(key);
            match model.check_insert(key) {
                Err(error) if present.is_none() => refused_by_entry(map, key, error),
                _ => {
                    if present.is_none() {
                        model.insert(key, made);
                    }
                    let got = if matches!(op, Op::EntryOrDefault(_)) {
                        map.entry(key).or_default()
                    } else {
                        map.entry(key).or_insert_with_key(|k| Box::new(made_from(k)))
                    };
                    assert_eq!(Some(**got), model.get(key));
                }
            }
            probe(map, model, key);
        }
        Op::EntryAndModify(key, delta) => {
            let present = model.get(key);
            match model.check_insert(key) {
                Err(error) if present.is_none() => refused_by_entry(map, key, error),
                _ => {
                    match present {
                        Some(old) => model.set(key, old + delta),
                        None => {
                            model.insert(key, delta);
                        }
                    }
                    let entry = map.entry(key);
                    assert_eq!(entry.key(), key);
                    let got = entry.and_modify(|value| **value += delta).or_insert(Box::new(delta));
                    assert_eq!(Some(**got), model.get(key));
                }
            }
            probe(map, model, key);
        }
        Op::EntryOccupiedInsert(key, value) => {
            match map.entry(key) {
                Entry::Occupied(mut entry) => {
                    let position = model.position(key).expect("occupied in the model too");
                    assert_eq!((entry.key(), entry.index()), (key, position));
                    assert_eq!(**entry.get(), model.values[&key]);
                    assert_eq!(*entry.insert(Box::new(value)), model.values[&key]);
                    **entry.get_mut() += 1;
                    **entry.into_mut() += 1;
                    model.set(key, value + 2);
                }
                Entry::Vacant(entry) => {
                    assert_eq!(model.get(key), None);
                    assert_eq!(entry.key(), key);
                    assert_eq!(entry.into_key(), key);
                }
            }
            probe(map, model, key);
        }
        Op::EntryRemove(key) => {
            match map.entry(key) {
                Entry::Occupied(entry) => {
                    let (_, value, _) = model.swap_remove(model.position(key).unwrap());
                    if value % 2 == 0 {
                        assert_eq!(*entry.remove(), value);
                    } else {
                        assert_eq!(entry.remove_entry(), (key, Box::new(value)));
                    }
                }
                Entry::Vacant(_) => assert_eq!(model.get(key), None),
            }
            probe(map, model, key);
        }
        Op::GetMut(key, value) => {
            match map.get_mut(key) {
                Some(slot) => {
                    **slot = value;
                    model.set(key, value);
                }
                None => assert_eq!(model.get(key), None),
            }
            if model.values.contains_key(&key) {
                *map[key] = value + 1;
                model.set(key, value + 1);
            }
            probe(map, model, key);
        }
        Op::GetIndexMut(index, value) => match map.get_index_mut(index) {
            Some((key, slot)) => {
                assert_eq!(Some(&key), model.order.get(index));
                **slot = value;
                model.set(key, value);
            }
            None => assert!(index >= model.order.len()),
        },
        Op::ValuesMut(delta) => {
            for value in map.values_mut() {
                **value += delta;
            }
            model.values.values_mut().for_each(|value| *value += delta);
        }
        Op::IterMut => {
            let mut visited = Vec::new();
            for (key, value) in &mut *map {
                visited.push(key);
                **value = -**value;
            }
            assert_eq!(visited, model.order);
            model.values.values_mut().for_each(|value| *value = -*value);
        }
        Op::GetDisjointMut(a, b, value) => {
            if a != b {
                let [first, second] = map.get_disjoint_mut([a, b]);
                assert_eq!(first.as_ref().map(|v| ***v), model.get(a));
                assert_eq!(second.as_ref().map(|v| ***v), model.get(b));
                for (key, found, new) in [(a, first, value), (b, second, value + 1)] {
                    if let Some(slot) = found {
                        **slot = new;
                        model.set(key, new);
                    }
                }
            }
            probe(map, model, a);
            probe(map, model, b);
        }
        Op::Retain(modulus, rest) => {
            let mut visited = Vec::new();
            map.retain(|key, value| {
                visited.push(key);
                **value += 1;
                value.rem_euclid(modulus) != rest
            });
            assert_eq!(visited, model.order, "retain visits each element once, in order");
            model.values.values_mut().for_each(|value| *value += 1);
            let values = &model.values;
            model.order.retain(|key| values[key].rem_euclid(modulus) != rest);
            let kept = &model.order;
            model.values.retain(|key, _| kept.contains(key));
        }
        Op::Clear => {
            map.clear();
            model.clear();
        }
        Op::Truncate(len) => {
            map.truncate(len);
            model.truncate(len);
        }
        Op::Drain(take) => {
            let expected: Vec<(K, i64)> =
                model.order.iter().take(take).map(|&key| (key, model.values[&key])).collect();
            let mut drain = map.drain();
            assert_eq!(drain.len(), model.order.len());
            let got: Vec<(K, i64)> = drain.by_ref().take(take).map(|(k, v)| (k, *v)).collect();
            drop(drain);
            assert_eq!(got, expected);
            model.clear();
        }
        Op::SortBy(how) => match how {
            0 => {
                map.sort_by(|_, a, _, b| a.cmp(b));
                model.sort(|_, a, _, b| a.cmp(&b));
            }
            1 => {
                map.sort_by(|_, a, _, b| b.rem_euclid(3).cmp(&a.rem_euclid(3)));
                model.sort(|_, a, _, b| b.rem_euclid(3).cmp(&a.rem_euclid(3)));
            }
            2 => {
                map.sort_by_key(|_, value| value.rem_euclid(4));
                model.sort(|_, a, _, b| a.rem_euclid(4).cmp(&b.rem_euclid(4)));
            }
            3 => {
                // A total order, so the unstable sort has one answer.
                map.sort_unstable_by(|ka, a, kb, b| b.cmp(a).then(ka.cmp(kb)));
                model.sort(|ka, a, kb, b| b.cmp(&a).then(ka.cmp(kb)));
            }
            _ => {
                map.sort_keys();
                model.sort(|a, _, b, _| a.cmp(b));
            }
        },
        Op::Extend(pairs) => {
            // A bounded map panics part-way through a refused extend; only whole ones are run.
            let mut after = model.clone();
            let fits = pairs.iter().all(|&(key, value)| {
                after.check_insert(key).map(|()| after.insert(key, value)).is_ok()
            });
            if fits {
                map.extend(pairs.iter().map(|&(key, value)| (key, Box::new(value))));
                *model = after;
            }
        }
        Op::Reserve(additional) => {
            if additional % 2 == 0 {
                map.reserve(additional);
            } else {
                assert_eq!(map.try_reserve(additional), Ok(()));
            }
            if model.bounds.is_none() {
                assert!(map.capacity() >= model.order.len() + additional);
            }
        }
        Op::ShrinkToFit => map.shrink_to_fit(),
    }
}

fn run<K: Key + Ord, D: DenseIndex>(
    mut map: SparseMap<K, Value, D>,
    mut model: Model<K>,
    ops: Vec<Op<K>>,
) {
    check(&map, &model);
    for op in ops {
        step(&mut map, &mut model, op);
        check(&map, &model);
    }
    // Equality ignores order: a map rebuilt from the model in key order equals this one.
    let rebuilt: SparseMap<K, Value, D> =
        model.values.iter().map(|(&key, &value)| (key, Box::new(value))).collect();
    assert_eq!(rebuilt, map);
    let owned: BTreeMap<K, i64> = map.into_iter().map(|(key, value)| (key, *value)).collect();
    assert_eq!(owned, model.values);
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn u32_keys_across_pages(ops in prop::collection::vec(op(u32_key()), 0..OPS)) {
        run(SparseMap::<u32, Value>::new(), Model::new::<u32>(None), ops);
    }

    #[test]
    fn entity_keys_sharing_slots(ops in prop::collection::vec(op(entity_key()), 0..OPS)) {
        run(SparseMap::<Entity, Value>::new(), Model::new::<u32>(None), ops);
    }

    #[test]
    fn bounded_u16_map_refuses_cleanly(ops in prop::collection::vec(op(u32_key()), 0..OPS)) {
        let (capacity, key_limit) = (8, 1100);
        run(
            SparseMap::<u32, Value, u16>::bounded(capacity, key_limit),
            Model::new::<u16>(Some((capacity, key_limit))),
            ops,
        );
    }
}
