//! `SparseMap<u64, u8>` with keys above 2^32 (and bounded maps refusing past their limits)
//! against a `BTreeMap`, the invariant checker after every step.

#![no_main]

use std::collections::BTreeMap;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sparse_soa::{Error, SparseMap};
use sparse_soa_fuzz::WideKey;

#[derive(Arbitrary, Debug)]
enum Op {
    Insert(WideKey, u8),
    Remove(WideKey),
    Get(WideKey),
    Entry(WideKey),
    Retain(u8),
    ShrinkToFit,
    /// Into a bounded map of 16 keys below 1,000.
    InsertBounded(u16, u8),
}

fuzz_target!(|ops: Vec<Op>| {
    let mut map = SparseMap::<u64, u8>::new();
    let mut model = BTreeMap::new();
    let mut bounded = SparseMap::<u64, u8, u8>::bounded(16, 1000);
    let mut bounded_model = BTreeMap::new();
    for op in ops {
        match op {
            Op::Insert(WideKey(key), value) => {
                assert_eq!(map.insert(key, value), model.insert(key, value));
            }
            Op::Remove(WideKey(key)) => assert_eq!(map.remove(key), model.remove(&key)),
            Op::Get(WideKey(key)) => {
                assert_eq!(map.get(key), model.get(&key));
                assert_eq!(map.contains_key(key), model.contains_key(&key));
            }
            Op::Entry(WideKey(key)) => {
                let value = map.entry(key).or_insert(0);
                *value = value.wrapping_add(1);
                let value = model.entry(key).or_insert(0);
                *value = value.wrapping_add(1);
            }
            Op::Retain(modulus) => {
                let modulus = u64::from(modulus.max(1));
                map.retain(|key, _| key % modulus != 0);
                model.retain(|key, _| key % modulus != 0);
            }
            Op::ShrinkToFit => map.shrink_to_fit(),
            Op::InsertBounded(key, value) => {
                let key = u64::from(key);
                let result = bounded.try_insert(key, value);
                if key >= 1000 {
                    assert_eq!(result, Err(Error::KeyOutOfRange { index: key, limit: 1000 }));
                } else if bounded_model.len() == 16 && !bounded_model.contains_key(&key) {
                    assert_eq!(result, Err(Error::Full { capacity: 16 }));
                } else {
                    assert_eq!(result, Ok(bounded_model.insert(key, value)));
                }
                bounded.assert_invariants();
            }
        }
        map.assert_invariants();
        assert_eq!(map.len(), model.len());
    }
    assert_eq!(map.iter().map(|(key, &value)| (key, value)).collect::<BTreeMap<_, _>>(), model);
});
