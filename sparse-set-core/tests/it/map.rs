//! `SparseMap` through its public API: every method, the regressions that matter for a
//! swap-remove map, bounded and narrow maps refusing cleanly, and drop counting with values whose
//! `Drop` panics.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::num::NonZeroU32;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

use sparse_set_core::map::Entry;
use sparse_set_core::{Entity, Error, Moved, Removed, SparseMap, Storage};
use sparse_soa_test_support::{allocations_during, failing_allocations};

// ---------------------------------------------------------------------------------------------
// Drop counting.

/// A value that logs its id when dropped, and panics then if told to.
#[derive(Debug)]
struct Noisy {
    id: u32,
    log: Rc<RefCell<Vec<u32>>>,
    panic_on_drop: bool,
}

impl Drop for Noisy {
    fn drop(&mut self) {
        self.log.borrow_mut().push(self.id);
        let panics = self.panic_on_drop && !std::thread::panicking();
        assert!(!panics, "dropping value {} panics", self.id);
    }
}

#[derive(Clone, Default)]
struct DropLog(Rc<RefCell<Vec<u32>>>);

impl DropLog {
    fn value(&self, id: u32) -> Noisy {
        Noisy { id, log: Rc::clone(&self.0), panic_on_drop: false }
    }

    fn bomb(&self, id: u32) -> Noisy {
        Noisy { id, log: Rc::clone(&self.0), panic_on_drop: true }
    }

    /// The ids dropped so far, sorted.
    fn dropped(&self) -> Vec<u32> {
        let mut ids = self.0.borrow().clone();
        ids.sort_unstable();
        ids
    }

    /// A map of keys `0..n`, value id = key; the value of `bomb` (if any) panics when dropped.
    fn map(&self, n: u32, bomb: Option<u32>) -> SparseMap<u32, Noisy> {
        (0..n)
            .map(|key| (key, if Some(key) == bomb { self.bomb(key) } else { self.value(key) }))
            .collect()
    }
}

fn caught<R>(f: impl FnOnce() -> R) -> bool {
    catch_unwind(AssertUnwindSafe(f)).is_err()
}

/// The map's value ids by key, checked against its keys.
fn ids(map: &SparseMap<u32, Noisy>) -> BTreeMap<u32, u32> {
    map.assert_invariants();
    map.iter().map(|(key, value)| (key, value.id)).collect()
}

fn entity(index: u32, generation: u32) -> Entity {
    Entity::from_parts(index, NonZeroU32::new(generation).unwrap())
}

fn map_of(pairs: &[(u32, char)]) -> SparseMap<u32, char> {
    pairs.iter().copied().collect()
}

// ---------------------------------------------------------------------------------------------
// Construction and capacity.

#[test]
fn new_and_default_are_empty_and_do_not_allocate() {
    let (map, allocations) = allocations_during(SparseMap::<u32, String>::new);
    assert_eq!(allocations, 0);
    assert!(map.is_empty());
    assert_eq!(map.len(), 0);
    assert_eq!(map.capacity(), 0);
    let default: SparseMap<u32, String> = SparseMap::default();
    assert!(default.is_empty());
    default.assert_invariants();
}

#[test]
fn with_capacity_and_reserve_make_room() {
    let mut map = SparseMap::<u32, u64>::with_capacity(10);
    assert!(map.capacity() >= 10);
    map.reserve(100);
    assert!(map.capacity() >= 100);
    assert!(map.try_reserve(1000).is_ok());
    assert!(map.capacity() >= 1000);
    map.insert(1, 1);
    map.assert_invariants();

    // Room for more than the address space is refused before anything is allocated.
    let mut wide = SparseMap::<u64, u64, usize>::new();
    wide.insert(1, 1);
    assert_eq!(wide.try_reserve(usize::MAX), Err(Error::CapacityOverflow));
    assert_eq!(wide.values(), &[1]);
    wide.assert_invariants();
}

#[test]
fn shrink_to_fit_releases_capacity_and_pages() {
    let mut map: SparseMap<u32, u32> = (0..50_000).step_by(1000).map(|key| (key, key)).collect();
    map.reserve(1000);
    map.retain(|key, _| key < 2000);
    map.shrink_to_fit();
    assert_eq!(map.capacity(), 2);
    assert_eq!(map.as_sparse_set().sparse_pages(), 2, "keys 0 and 1000 are in pages 0 and 1");
    assert_eq!(map[1000], 1000);
    map.assert_invariants();
}

#[test]
fn bounded_map_refuses_the_element_past_its_capacity_and_stays_unchanged() {
    let mut map = SparseMap::<u32, char>::bounded(3, 100);
    assert_eq!(map.capacity(), 3);
    for (key, value) in [(10, 'a'), (20, 'b'), (30, 'c')] {
        assert_eq!(map.try_insert(key, value), Ok(None));
    }
    assert_eq!(map.try_insert(40, 'd'), Err(Error::Full { capacity: 3 }));
    assert_eq!(map.keys(), &[10, 20, 30]);
    assert_eq!(map.values(), &['a', 'b', 'c']);
    // Overwriting needs no room.
    assert_eq!(map.try_insert(20, 'B'), Ok(Some('b')));
    let Entry::Vacant(vacant) = map.entry(40) else { panic!("40 is absent") };
    assert_eq!(vacant.try_insert('d'), Err(Error::Full { capacity: 3 }));
    map.assert_invariants();
    assert_eq!(map.keys(), &[10, 20, 30]);
    assert_eq!(map.values(), &['a', 'B', 'c']);

    let message = catch_unwind(AssertUnwindSafe(|| map.insert(40, 'd'))).unwrap_err();
    assert_eq!(
        message.downcast_ref::<String>().unwrap(),
        "cannot insert key 40 into a `SparseMap<u32, char>`: storage is full: its bounded capacity \
         is 3 elements; remove some first, or bound it with a higher capacity"
    );
    map.assert_invariants();
    assert_eq!(map.len(), 3);
    assert!(!map.contains_key(40));
}

#[test]
fn bounded_map_refuses_an_out_of_range_key_and_stays_unchanged() {
    let mut map = SparseMap::<u32, char>::bounded(3, 100);
    map.insert(99, 'a');
    assert_eq!(map.try_insert(100, 'b'), Err(Error::KeyOutOfRange { index: 100, limit: 100 }));
    assert_eq!(
        map.try_insert(u32::MAX, 'b'),
        Err(Error::KeyOutOfRange { index: u64::from(u32::MAX), limit: 100 })
    );
    assert_eq!(map.keys(), &[99]);
    assert_eq!(map.values(), &['a']);
    let message = catch_unwind(AssertUnwindSafe(|| {
        map.entry(500).or_insert('c');
    }))
    .unwrap_err();
    assert_eq!(
        message.downcast_ref::<String>().unwrap(),
        "cannot insert into a `SparseMap<u32, char>`: key 500 is outside the bounded key range 0..100; use keys below 100, or bound the storage with a higher key limit"
    );
    map.assert_invariants();
    assert_eq!(map.keys(), &[99]);
}

#[test]
fn bounded_map_never_allocates_after_construction() {
    let mut map = SparseMap::<u32, u64>::bounded(64, 4096);
    let ((), allocations) = allocations_during(|| {
        for round in 0..3 {
            for key in (0..4096).step_by(64) {
                map.insert(key, u64::from(key) + round);
            }
            assert!(map.try_insert(1, 0).is_err());
            *map.entry(0).or_insert(7) += 1;
            map.get_or_insert_with(64, || 0);
            map.reserve(1000);
            map.shrink_to_fit();
            map.retain(|key, _| key % 128 == 0);
            map.remove(128);
            map.swap_remove_index(0);
            map.pop();
            map.drain().take(3).for_each(drop);
            map.insert(5, 5);
            map.truncate(0);
            map.insert(6, 6);
            map.clear();
        }
    });
    assert_eq!(allocations, 0);
    map.assert_invariants();
}

#[test]
fn try_bounded_refuses_a_capacity_the_dense_width_cannot_address() {
    assert_eq!(
        SparseMap::<u32, u8, u8>::try_bounded(256, 10).unwrap_err(),
        Error::DenseIndexOverflow { width: "u8", max_len: 255 }
    );
    let map = SparseMap::<u32, u8, u8>::try_bounded(255, 10).unwrap();
    assert_eq!(map.capacity(), 255);
    assert!(caught(|| SparseMap::<u32, u8, u8>::bounded(300, 10)));
}

#[test]
fn u8_dense_width_refuses_the_256th_element() {
    let mut map = SparseMap::<u32, u32, u8>::new();
    for key in 0..255 {
        assert_eq!(map.try_insert(key * 3, key), Ok(None));
    }
    let overflow = Error::DenseIndexOverflow { width: "u8", max_len: 255 };
    assert_eq!(map.try_insert(1, 0), Err(overflow));
    assert_eq!(map.try_insert(100_000, 0), Err(overflow));
    assert_eq!(map.len(), 255);
    assert!(!map.contains_key(1));
    // Existing keys can still be overwritten, and a removal makes room.
    assert_eq!(map.insert(3, 99), Some(1));
    let message = catch_unwind(AssertUnwindSafe(|| map.insert(1, 0))).unwrap_err();
    assert_eq!(
        message.downcast_ref::<String>().unwrap(),
        "cannot insert key 1 into a `SparseMap<u32, u32, u8>`: storage is full: its dense index \
         type `u8` addresses at most 255 elements; use a wider dense index type"
    );
    map.assert_invariants();
    assert_eq!(map.remove(0), Some(0));
    assert_eq!(map.insert(1, 1), None);
    assert_eq!(map.len(), 255);
    map.assert_invariants();
}

#[test]
fn failed_allocations_are_refused_and_leave_the_map_unchanged() {
    // The values are full, so the next new key needs a reallocation.
    let mut map = SparseMap::<u32, u32>::new();
    map.insert(0, 0);
    map.shrink_to_fit();
    assert_eq!(map.capacity(), 1);
    let result = failing_allocations(|| map.try_insert(1, 1));
    assert_eq!(result, Err(Error::AllocFailed));
    assert_eq!(map.keys(), &[0]);
    map.assert_invariants();
    // Overwriting an existing key while the values are full: allocation failure may be
    // reported, but the map never changes half-way.
    let result = failing_allocations(|| map.try_insert(0, 5));
    assert!(matches!(result, Ok(Some(0)) | Err(Error::AllocFailed)));
    map.assert_invariants();

    // Room for the value, but the key needs a new sparse page.
    map.reserve(10);
    let before = map.values().to_vec();
    let result = failing_allocations(|| map.try_insert(1 << 20, 7));
    assert_eq!(result, Err(Error::AllocFailed));
    assert_eq!(map.values(), before.as_slice());
    assert!(!map.contains_key(1 << 20));
    map.assert_invariants();

    let result = failing_allocations(|| map.try_reserve(1 << 20));
    assert_eq!(result, Err(Error::AllocFailed));
    map.assert_invariants();
    assert_eq!(map.insert(1 << 20, 7), None);
    assert_eq!(map[1 << 20], 7);
}

#[test]
fn failed_allocations_for_keys_of_every_size_are_errors_not_aborts() {
    // Keys in the flat directory, in a chunk below 2^32, and in the list of chunks above it.
    for key in [5_u64, 1 << 30, 1 << 40, u64::MAX] {
        let mut map = SparseMap::<u64, u8>::new();
        map.reserve(4);
        let result = failing_allocations(|| map.try_insert(key, 1));
        assert_eq!(result, Err(Error::AllocFailed), "key {key}");
        assert!(map.is_empty());
        map.assert_invariants();
        assert_eq!(map.try_insert(key, 1), Ok(None));
        assert_eq!(map.get(key), Some(&1));
    }
}

// ---------------------------------------------------------------------------------------------
// Insert, lookup, remove.

#[test]
fn insert_overwrites_and_returns_the_old_value() {
    let mut map = SparseMap::<u32, String>::new();
    assert_eq!(map.insert(5, "five".into()), None);
    assert_eq!(map.insert(7, "seven".into()), None);
    assert_eq!(map.insert(5, "FIVE".into()), Some("five".into()));
    assert_eq!(map.keys(), &[5, 7]);
    assert_eq!(map.values(), &["FIVE".to_owned(), "seven".to_owned()]);
    assert_eq!(map.insert_full(7, "7".into()), (1, Some("seven".into())));
    assert_eq!(map.insert_full(9, "9".into()), (2, None));
    assert_eq!(map.try_insert_full(9, "nine".into()), Ok((2, Some("9".into()))));
    map.assert_invariants();
}

#[test]
fn lookups_find_present_keys_only() {
    let mut map = map_of(&[(8, 'a'), (512, 'b'), (u32::MAX, 'c')]);
    assert_eq!(map.get(512), Some(&'b'));
    assert_eq!(map.get(513), None);
    assert_eq!(map.get(u32::MAX - 1), None);
    assert_eq!(map.get_key_value(u32::MAX), Some((u32::MAX, &'c')));
    assert_eq!(map.get_full(512), Some((1, 512, &'b')));
    assert!(map.contains_key(8) && !map.contains_key(9));
    assert_eq!(map.get_index_of(u32::MAX), Some(2));
    assert_eq!(map.get_index_of(0), None);
    assert_eq!(map.get_index(0), Some((8, &'a')));
    assert_eq!(map.get_index(3), None);
    if let Some((key, value)) = map.get_index_mut(1) {
        assert_eq!(key, 512);
        *value = 'B';
    }
    assert_eq!(map.get_index_mut(3), None);
    *map.get_mut(8).unwrap() = 'A';
    assert_eq!(map.get_mut(9), None);
    assert_eq!(map[512], 'B');
    map[u32::MAX] = 'C';
    assert_eq!(map.values(), &['A', 'B', 'C']);
    assert_eq!(map.as_sparse_set().as_slice(), map.keys());
    map.values_mut().reverse();
    assert_eq!(map.values(), &['C', 'B', 'A']);
    assert_eq!(map.keys(), &[8, 512, u32::MAX]);
    map.assert_invariants();
}

#[test]
fn index_panics_on_a_missing_key() {
    let mut map = map_of(&[(1, 'a')]);
    let message = catch_unwind(|| map_of(&[(1, 'a')])[2]).unwrap_err();
    assert_eq!(message.downcast_ref::<String>().unwrap(), "key 2 is not in the map");
    assert!(caught(|| map[3] = 'x'));
    map.assert_invariants();
}

#[test]
fn remove_swaps_the_last_element_into_the_gap() {
    let mut map = map_of(&[(1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')]);
    assert_eq!(map.remove(2), Some('b'));
    assert_eq!(map.keys(), &[1, 4, 3]);
    assert_eq!(map.values(), &['a', 'd', 'c']);
    assert_eq!(map.remove(2), None);
    assert_eq!(map.remove(100), None);
    map.assert_invariants();
}

#[test]
fn remove_the_last_element() {
    let mut map = map_of(&[(1, 'a'), (2, 'b'), (3, 'c')]);
    assert_eq!(map.remove_with_info(3), Some(('c', Removed { index: 2, moved: None })));
    assert_eq!(map.keys(), &[1, 2]);
    assert_eq!(map.values(), &['a', 'b']);
    assert_eq!(map.get_index_of(2), Some(1));
    map.assert_invariants();
}

#[test]
fn remove_from_a_one_element_map() {
    let mut map = map_of(&[(7, 'a')]);
    assert_eq!(map.remove_with_info(7), Some(('a', Removed { index: 0, moved: None })));
    assert!(map.is_empty());
    assert_eq!(map.get(7), None);
    map.assert_invariants();
    assert_eq!(map.remove(7), None);
    assert_eq!(map.insert(7, 'b'), None);
    assert_eq!(map.get_index_of(7), Some(0));
    map.assert_invariants();
}

#[test]
fn the_displaced_elements_value_follows_its_key() {
    let mut map: SparseMap<u32, u32> = (0..10).map(|key| (key * 1000, key)).collect();
    let (value, info) = map.remove_with_info(3000).unwrap();
    assert_eq!(value, 3);
    assert_eq!(info, Removed { index: 3, moved: Some(Moved { key: 9000, from: 9 }) });
    assert_eq!(map.get_index_of(9000), Some(3));
    assert_eq!(map.get(9000), Some(&9));
    assert_eq!(map.get_index(3), Some((9000, &9)));
    for (key, &value) in map.keys().iter().zip(map.values()) {
        assert_eq!(*key, value * 1000);
    }
    map.assert_invariants();
}

#[test]
fn swap_remove_index_and_pop() {
    let mut map = map_of(&[(1, 'a'), (2, 'b'), (3, 'c')]);
    assert_eq!(map.swap_remove_index(3), None);
    assert_eq!(map.swap_remove_index(0), Some((1, 'a')));
    assert_eq!(map.keys(), &[3, 2]);
    assert_eq!(map[3], 'c');
    assert_eq!(map.pop(), Some((2, 'b')));
    assert_eq!(map.pop(), Some((3, 'c')));
    assert_eq!(map.pop(), None);
    map.assert_invariants();
}

#[test]
fn swap_indices_moves_keys_and_values_together() {
    let mut map = map_of(&[(1, 'a'), (2, 'b'), (3, 'c')]);
    map.swap_indices(0, 2);
    assert_eq!(map.keys(), &[3, 2, 1]);
    assert_eq!(map.values(), &['c', 'b', 'a']);
    assert_eq!(map.get_index_of(1), Some(2));
    assert!(caught(|| map.swap_indices(0, 3)));
    assert_eq!(map.keys(), &[3, 2, 1]);
    map.assert_invariants();
}

/// Entries of `Entity` keys far from slot 0, outside the prefix, where the slot is found
/// through the pages and the generation through the dense key: a vacant entry inserts into an
/// empty slot, replaces an older generation holding the slot, and refuses an older one.
#[test]
fn entries_of_entities_past_the_prefix_insert_replace_and_refuse() {
    let far = 5_000_000;
    let mut map = SparseMap::<Entity, u32>::new();
    for (i, index) in (0..).zip([far, far + 1, far + 600, u32::MAX - 1]) {
        let Entry::Vacant(vacant) = map.entry(entity(index, 1)) else {
            panic!("{index} is absent")
        };
        assert_eq!(*vacant.insert(i), i);
    }
    *map.entry(entity(far + 1, 1)).or_insert(100) += 10;
    assert_eq!(map.values(), &[0, 11, 2, 3]);
    map.assert_invariants();

    // A newer generation takes the slot and the position of the older, whose value it drops.
    let Entry::Vacant(vacant) = map.entry(entity(far, 2)) else { panic!("generation 2 is absent") };
    assert_eq!(*vacant.insert(40), 40);
    assert_eq!(map.get(entity(far, 1)), None);
    assert_eq!(map.keys()[0], entity(far, 2));
    // An older generation than the one holding the slot is refused, and nothing changes.
    let Entry::Vacant(vacant) = map.entry(entity(far, 1)) else { panic!("generation 1 is gone") };
    assert_eq!(
        vacant.try_insert(0),
        Err(Error::StaleKey { index: far.into(), version: 1, held: 2 })
    );
    assert_eq!(map.values(), &[40, 11, 2, 3]);
    map.assert_invariants();

    // A bounded map refuses through the entry as through `try_insert`, unchanged.
    let mut bounded = SparseMap::<Entity, u32>::bounded(1, 1 << 10);
    let Entry::Vacant(vacant) = bounded.entry(entity(far, 1)) else { panic!("empty map") };
    assert_eq!(
        vacant.try_insert(0),
        Err(Error::KeyOutOfRange { index: far.into(), limit: 1 << 10 })
    );
    assert!(bounded.is_empty());
    bounded.assert_invariants();
}

#[test]
fn entity_keys_with_a_stale_generation_are_not_found() {
    let (old, new) = (entity(4, 1), entity(4, 2));
    let mut map = SparseMap::<Entity, u32>::new();
    map.insert(entity(1, 1), 10);
    map.insert(old, 40);
    assert_eq!(map.get(new), None);
    assert!(!map.contains_key(new));
    assert_eq!(map.get_index_of(new), None);
    assert_eq!(map.remove(new), None);
    assert!(matches!(map.entry(new), Entry::Vacant(_)));
    let [stale, live] = map.get_disjoint_mut([new, old]);
    assert_eq!((stale, live.copied()), (None, Some(40)));
    assert_eq!(map.len(), 2);

    // The newer generation replaces the older in place, and hands back its value.
    assert_eq!(map.insert(new, 41), Some(40));
    assert_eq!(map.keys(), &[entity(1, 1), new]);
    assert_eq!(map.get(old), None);
    assert_eq!(map.get(new), Some(&41));
    assert_eq!(map.remove(old), None);
    map.assert_invariants();

    // So does a vacant entry, dropping the displaced value.
    let newest = entity(4, 3);
    let Entry::Vacant(vacant) = map.entry(newest) else { panic!("newest is absent") };
    assert_eq!(*vacant.insert(42), 42);
    assert_eq!(map.keys(), &[entity(1, 1), newest]);
    assert_eq!(map.values(), &[10, 42]);
    map.assert_invariants();

    // An older generation is stale: refused by every way in, and nothing changes.
    let stale = Error::StaleKey { index: 4, version: 2, held: 3 };
    assert_eq!(map.try_insert(new, 0), Err(stale));
    assert_eq!(map.try_insert_full(old, 0), Err(Error::StaleKey { index: 4, version: 1, held: 3 }));
    let Entry::Vacant(vacant) = map.entry(new) else { panic!("a stale handle is not found") };
    assert_eq!(vacant.try_insert(0), Err(stale));
    let panic = catch_unwind(AssertUnwindSafe(|| {
        map.entry(new).or_insert(0);
    }))
    .unwrap_err();
    assert_eq!(
        panic.downcast_ref::<String>().map(String::as_str),
        Some(format!("cannot insert into a `SparseMap<Entity, u32>`: {stale}").as_str())
    );
    assert!(catch_unwind(AssertUnwindSafe(|| map.insert(new, 0))).is_err());
    assert_eq!(map.keys(), &[entity(1, 1), newest]);
    assert_eq!(map.values(), &[10, 42]);
    map.assert_invariants();
}

#[test]
fn keys_spread_over_many_pages() {
    let keys =
        [0, 1, 511, 512, 513, 1 << 20, (1 << 20) + 511, u32::MAX - 512, u32::MAX - 1, u32::MAX];
    let mut map: SparseMap<u32, u32> = keys.iter().map(|&key| (key, !key)).collect();
    for &key in &keys {
        assert_eq!(map.get(key), Some(&!key));
    }
    assert_eq!(map.get(2), None);
    assert_eq!(map.get(u32::MAX - 2), None);
    for &key in keys.iter().step_by(2) {
        assert_eq!(map.remove(key), Some(!key));
        map.assert_invariants();
    }
    for &key in keys.iter().skip(1).step_by(2) {
        assert_eq!(map[key], !key);
    }
}

// ---------------------------------------------------------------------------------------------
// get_disjoint_mut.

#[test]
fn get_disjoint_mut_returns_one_reference_per_key() {
    let mut map: SparseMap<u32, u32> = [(1, 10), (2, 20), (3, 30)].into_iter().collect();
    let [c, missing, a] = map.get_disjoint_mut([3, 99, 1]);
    assert!(missing.is_none());
    let (c, a) = (c.unwrap(), a.unwrap());
    std::mem::swap(c, a);
    assert_eq!(map.values(), &[30, 20, 10]);
    let [] = map.get_disjoint_mut::<0>([]);
    map.assert_invariants();
}

#[test]
fn get_disjoint_mut_panics_on_duplicate_keys() {
    let mut map: SparseMap<u32, u32> = [(1, 10), (2, 20)].into_iter().collect();
    let message = catch_unwind(AssertUnwindSafe(|| {
        let _ = map.get_disjoint_mut([1, 2, 1]);
    }))
    .unwrap_err();
    assert_eq!(
        message.downcast_ref::<String>().unwrap(),
        "duplicate key 1 passed to get_disjoint_mut"
    );
    // Also when the duplicated key is absent.
    assert!(caught(|| {
        let _ = map.get_disjoint_mut([5, 5]);
    }));
    assert_eq!(map.values(), &[10, 20]);
}

// ---------------------------------------------------------------------------------------------
// Entries.

#[test]
fn entry_or_insert_family() {
    let mut map = SparseMap::<u32, u32>::new();
    assert_eq!(map.entry(1).key(), 1);
    *map.entry(1).or_insert(10) += 1;
    *map.entry(1).or_insert(100) += 1;
    assert_eq!(map[1], 12);

    let mut calls = 0;
    map.entry(2).or_insert_with(|| {
        calls += 1;
        20
    });
    map.entry(2).or_insert_with(|| {
        calls += 1;
        200
    });
    assert_eq!((map[2], calls), (20, 1));

    assert_eq!(*map.entry(3).or_insert_with_key(|key| key * 10), 30);
    assert_eq!(*map.entry(4).or_default(), 0);
    map.entry(4).and_modify(|value| *value = 40).or_insert(0);
    map.entry(5).and_modify(|value| *value = 50).or_insert(5);
    assert_eq!(map.keys(), &[1, 2, 3, 4, 5]);
    assert_eq!(map.values(), &[12, 20, 30, 40, 5]);
    assert_eq!(*map.get_or_insert_with(5, || 0), 5);
    assert_eq!(*map.get_or_insert_with(6, || 60), 60);
    map.assert_invariants();
}

#[test]
fn occupied_entry_reads_writes_and_removes() {
    let mut map: SparseMap<u32, String> =
        [(1, "a".into()), (2, "b".into()), (3, "c".into())].into_iter().collect();
    let Entry::Occupied(mut entry) = map.entry(2) else { panic!("2 is present") };
    assert_eq!((entry.key(), entry.index()), (2, 1));
    assert_eq!(entry.get(), "b");
    entry.get_mut().push('!');
    assert_eq!(entry.insert("B".into()), "b!");
    entry.into_mut().push('?');
    assert_eq!(map[2], "B?");

    let Entry::Occupied(entry) = map.entry(1) else { panic!("1 is present") };
    assert_eq!(entry.remove(), "a");
    assert_eq!(map.keys(), &[3, 2], "remove through an entry is a swap-remove");
    let Entry::Occupied(entry) = map.entry(2) else { panic!("2 is present") };
    assert_eq!(entry.remove_entry(), (2, "B?".to_owned()));
    assert_eq!(map.keys(), &[3]);
    map.assert_invariants();
}

#[test]
fn vacant_entry_inserts_or_gives_its_key_back() {
    let mut map = SparseMap::<u32, u32>::new();
    let Entry::Vacant(entry) = map.entry(9) else { panic!("9 is absent") };
    assert_eq!(entry.key(), 9);
    assert_eq!(entry.into_key(), 9);
    assert!(map.is_empty());
    let Entry::Vacant(entry) = map.entry(9) else { panic!("9 is absent") };
    *entry.insert(90) += 1;
    let Entry::Vacant(entry) = map.entry(10) else { panic!("10 is absent") };
    assert_eq!(entry.try_insert(100).copied(), Ok(100));
    assert_eq!(map.keys(), &[9, 10]);
    assert_eq!(map.values(), &[91, 100]);
    map.assert_invariants();
}

#[test]
fn entries_format_for_debugging() {
    let mut map = map_of(&[(1, 'a')]);
    assert_eq!(
        format!("{:?}", map.entry(1)),
        "Occupied(OccupiedEntry { key: 1, value: 'a', index: 0 })"
    );
    assert_eq!(format!("{:?}", map.entry(2)), "Vacant(VacantEntry(2))");
}

// ---------------------------------------------------------------------------------------------
// Bulk removal.

#[test]
fn retain_visits_every_element_exactly_once() {
    let mut map: SparseMap<u32, u32> = (0..if cfg!(miri) { 40 } else { 1000_u32 })
        .map(|key| (key.wrapping_mul(2_654_435_761), 0))
        .collect();
    let expected: Vec<u32> = map.keys().to_vec();
    let mut visited = Vec::new();
    map.retain(|key, value| {
        visited.push(key);
        *value += 1;
        key % 3 != 0
    });
    assert_eq!(visited, expected, "each element once, in dense order");
    let kept: Vec<u32> = expected.iter().copied().filter(|key| key % 3 != 0).collect();
    assert_eq!(map.keys(), kept.as_slice(), "kept elements keep their order");
    assert!(map.values().iter().all(|&value| value == 1));
    map.assert_invariants();

    let mut count = 0;
    map.retain(|_, _| {
        count += 1;
        false
    });
    assert_eq!(count, kept.len());
    assert!(map.is_empty());
    map.assert_invariants();
}

#[test]
fn retain_keeps_each_value_with_its_key() {
    let mut map: SparseMap<u32, u32> = (0..20).map(|key| (key, key * 7)).collect();
    map.remove(3); // shuffles the dense order
    map.remove(11);
    map.retain(|key, &mut value| {
        assert_eq!(value, key * 7);
        key % 2 == 1
    });
    for (key, &value) in &map {
        assert_eq!(value, key * 7);
        assert_eq!(key % 2, 1);
    }
    map.assert_invariants();
}

#[test]
fn clear_then_reinsert_the_old_keys() {
    let mut map: SparseMap<u32, u32> =
        [5, 600, 70_000, u32::MAX].map(|key| (key, key)).into_iter().collect();
    map.clear();
    assert!(map.is_empty());
    for key in [5, 600, 70_000, u32::MAX] {
        assert_eq!(map.get(key), None);
        assert!(!map.contains_key(key));
    }
    map.assert_invariants();
    for (position, key) in [u32::MAX, 600, 5].into_iter().enumerate() {
        assert_eq!(map.insert(key, position as u32), None);
    }
    assert_eq!(map.keys(), &[u32::MAX, 600, 5]);
    assert_eq!(map.get(70_000), None);
    assert_eq!(map.get_index_of(5), Some(2));
    assert_eq!(map[600], 1);
    map.assert_invariants();
}

#[test]
fn truncate_keeps_the_front() {
    let mut map = map_of(&[(1, 'a'), (2, 'b'), (3, 'c')]);
    map.truncate(5);
    assert_eq!(map.len(), 3);
    map.truncate(2);
    assert_eq!(map.keys(), &[1, 2]);
    assert!(!map.contains_key(3));
    map.truncate(0);
    assert!(map.is_empty());
    map.assert_invariants();
}

#[test]
fn drain_yields_everything_and_empties_the_map() {
    let mut map = map_of(&[(1, 'a'), (2, 'b'), (3, 'c')]);
    let mut drain = map.drain();
    assert_eq!(drain.len(), 3);
    assert_eq!(drain.next_back(), Some((3, 'c')));
    assert_eq!(drain.collect::<Vec<_>>(), [(1, 'a'), (2, 'b')]);
    assert!(map.is_empty());
    map.assert_invariants();
    map.insert(2, 'x');
    assert_eq!(map.get_index_of(2), Some(0));

    // A leaked drain leaves the map empty and consistent.
    std::mem::forget(map.drain());
    assert!(map.is_empty());
    map.assert_invariants();
}

// ---------------------------------------------------------------------------------------------
// Sorting.

#[test]
fn sort_by_is_stable_and_repoints_every_key() {
    let mut map: SparseMap<u32, u32> =
        [(50, 2), (10, 1), (40, 2), (20, 1), (30, 0)].into_iter().collect();
    map.sort_by(|_, a, _, b| a.cmp(b));
    assert_eq!(map.keys(), &[30, 10, 20, 50, 40]);
    assert_eq!(map.values(), &[0, 1, 1, 2, 2]);
    for (position, &key) in map.keys().iter().enumerate() {
        assert_eq!(map.get_index_of(key), Some(position));
    }
    map.sort_by_key(|&key, _| std::cmp::Reverse(key));
    assert_eq!(map.keys(), &[50, 40, 30, 20, 10]);
    assert_eq!(map.values(), &[2, 2, 0, 1, 1]);
    map.sort_keys();
    assert_eq!(map.keys(), &[10, 20, 30, 40, 50]);
    assert_eq!(map.values(), &[1, 1, 0, 2, 2]);
    map.sort_unstable_by(|ka, va, kb, vb| vb.cmp(va).then(ka.cmp(kb)));
    assert_eq!(map.keys(), &[40, 50, 10, 20, 30]);
    assert_eq!(map[30], 0);
    map.assert_invariants();
}

#[test]
fn sorting_empty_and_single_maps() {
    let mut map = SparseMap::<u32, u32>::new();
    map.sort_keys();
    map.sort_by(|_, a, _, b| a.cmp(b));
    map.insert(3, 3);
    map.sort_unstable_by(|_, a, _, b| a.cmp(b));
    map.sort_by_key(|_, &value| value);
    assert_eq!(map.keys(), &[3]);
    map.assert_invariants();
}

// ---------------------------------------------------------------------------------------------
// Iterators.

#[test]
fn iterators_walk_in_dense_order() {
    let mut map = map_of(&[(3, 'c'), (1, 'a'), (2, 'b')]);
    let pairs: Vec<(u32, char)> = map.iter().map(|(key, &value)| (key, value)).collect();
    assert_eq!(pairs, [(3, 'c'), (1, 'a'), (2, 'b')]);
    assert_eq!(map.iter().len(), 3);
    assert_eq!(map.iter().next_back(), Some((2, &'b')));
    assert_eq!(map.iter().rev().map(|(key, _)| key).collect::<Vec<_>>(), [2, 1, 3]);
    assert_eq!(format!("{:?}", map.iter()), "[(3, 'c'), (1, 'a'), (2, 'b')]");
    let by_ref: Vec<u32> = (&map).into_iter().map(|(key, _)| key).collect();
    assert_eq!(by_ref, [3, 1, 2]);

    for (key, value) in &mut map {
        *value = char::from_digit(key, 10).unwrap();
    }
    let mut iter_mut = map.iter_mut();
    assert_eq!(iter_mut.len(), 3);
    if let Some((key, value)) = iter_mut.next_back() {
        assert_eq!(key, 2);
        *value = 'z';
    }
    assert_eq!(map.values(), &['3', '1', 'z']);

    let mut owned = map.clone().into_iter();
    assert_eq!(owned.len(), 3);
    assert_eq!(owned.next_back(), Some((2, 'z')));
    assert_eq!(owned.collect::<Vec<_>>(), [(3, '3'), (1, '1')]);
}

// ---------------------------------------------------------------------------------------------
// Traits.

#[test]
fn debug_prints_like_a_map() {
    let map = map_of(&[(2, 'b'), (1, 'a')]);
    assert_eq!(format!("{map:?}"), "{2: 'b', 1: 'a'}");
    assert_eq!(format!("{:?}", SparseMap::<u32, char>::new()), "{}");
    let entities: SparseMap<Entity, u8> = [(entity(3, 2), 1)].into_iter().collect();
    assert_eq!(format!("{entities:?}"), "{3v2: 1}");
}

#[test]
fn equality_ignores_order() {
    let a = map_of(&[(1, 'a'), (2, 'b'), (3, 'c')]);
    let mut b = map_of(&[(3, 'c'), (1, 'a'), (2, 'b')]);
    assert_eq!(a, b);
    b.insert(3, 'x');
    assert_ne!(a, b);
    b.insert(3, 'c');
    b.insert(4, 'd');
    assert_ne!(a, b);
    assert_ne!(b, a);
    b.remove(4);
    assert_eq!(b, a);
}

#[test]
fn clone_is_independent() {
    let mut original = map_of(&[(1, 'a'), (2, 'b')]);
    let copy = original.clone();
    original.insert(1, 'x');
    original.remove(2);
    assert_eq!(copy.keys(), &[1, 2]);
    assert_eq!(copy.values(), &['a', 'b']);
    copy.assert_invariants();
}

#[test]
fn clone_of_a_bounded_map_stays_bounded() {
    let mut original = SparseMap::<u32, char>::bounded(4, 64);
    original.insert(1, 'a');
    let mut copy = original.clone();
    copy.assert_invariants();
    let ((), allocations) = allocations_during(|| {
        for key in 2..5 {
            copy.insert(key, 'b');
        }
    });
    assert_eq!(allocations, 0);
    assert_eq!(copy.try_insert(5, 'c'), Err(Error::Full { capacity: 4 }));
}

#[test]
fn collect_and_extend_keep_the_last_value_of_a_key() {
    let mut map: SparseMap<u32, char> = [(1, 'a'), (2, 'b'), (1, 'c')].into_iter().collect();
    assert_eq!(map.keys(), &[1, 2]);
    assert_eq!(map.values(), &['c', 'b']);
    map.extend([(3, 'd'), (2, 'e')]);
    assert_eq!(map.keys(), &[1, 2, 3]);
    assert_eq!(map.values(), &['c', 'e', 'd']);
    let mut bounded = SparseMap::<u32, char>::bounded(3, 8);
    bounded.extend(map.iter().map(|(key, &value)| (key, value)));
    assert_eq!(bounded, map);
    map.assert_invariants();
}

#[test]
fn storage_trait_sees_the_same_map() {
    fn sum<S: Storage<Key = u32>>(storage: &S, value: impl Fn(S::Ref<'_>) -> u32) -> u32 {
        (0..storage.len()).filter_map(|index| storage.get_index(index)).map(|(_, v)| value(v)).sum()
    }
    let mut map: SparseMap<u32, u32> = [(1, 10), (2, 20)].into_iter().collect();
    assert_eq!(sum(&map, |value| *value), 30);
    assert_eq!(Storage::insert(&mut map, 3, 30), None);
    assert_eq!(Storage::get(&map, 3), Some(&30));
    *Storage::get_mut(&mut map, 3).unwrap() += 1;
    assert!(Storage::contains_key(&map, 3));
    assert_eq!(Storage::get_index_of(&map, 3), Some(2));
    assert_eq!(Storage::keys(&map), &[1, 2, 3]);
    assert_eq!(Storage::remove(&mut map, 1), Some(10));
    assert_eq!(
        Storage::get_index_mut(&mut map, 0).map(|(key, value)| (key, *value)),
        Some((3, 31))
    );
    assert_eq!(Storage::len(&map), 2);
    assert!(!Storage::is_empty(&map));
    assert_eq!(Storage::as_sparse_set(&map).as_slice(), &[3, 2]);
}

// ---------------------------------------------------------------------------------------------
// Panic safety: nothing drops twice, nothing leaks, the map stays consistent.

#[test]
fn overwrite_with_a_panicking_old_value() {
    let log = DropLog::default();
    let mut map = log.map(3, Some(1));
    // The old value is handed back; dropping it is the caller's business.
    assert!(caught(|| drop(map.insert(1, log.value(10)))));
    assert_eq!(log.dropped(), [1]);
    assert_eq!(ids(&map), BTreeMap::from([(0, 0), (1, 10), (2, 2)]));

    // Assigning through `IndexMut` drops the old value in place; the new one still lands.
    assert_eq!(map.insert(2, log.bomb(12)).map(|old| old.id), Some(2));
    assert!(caught(|| map[2] = log.value(20)));
    assert_eq!(log.dropped(), [1, 2, 12]);
    assert_eq!(ids(&map), BTreeMap::from([(0, 0), (1, 10), (2, 20)]));
    drop(map);
    assert_eq!(log.dropped(), [0, 1, 2, 10, 12, 20]);
}

#[test]
fn displacement_by_a_vacant_entry_with_a_panicking_value() {
    let log = DropLog::default();
    let mut map = SparseMap::<Entity, Noisy>::new();
    map.insert(entity(0, 1), log.value(0));
    map.insert(entity(5, 1), log.bomb(5));
    assert!(caught(|| {
        map.entry(entity(5, 2)).or_insert(log.value(6));
    }));
    map.assert_invariants();
    assert_eq!(log.dropped(), [5]);
    assert_eq!(map.get(entity(5, 2)).map(|value| value.id), Some(6));
    assert_eq!(map.keys(), &[entity(0, 1), entity(5, 2)]);
    drop(map);
    assert_eq!(log.dropped(), [0, 5, 6]);
}

#[test]
fn remove_with_a_panicking_value() {
    let log = DropLog::default();
    let mut map = log.map(4, Some(0));
    assert!(caught(|| drop(map.remove(0))));
    assert_eq!(log.dropped(), [0]);
    assert_eq!(ids(&map), BTreeMap::from([(1, 1), (2, 2), (3, 3)]));
    assert_eq!(map.keys(), &[3, 1, 2]);
    drop(map);
    assert_eq!(log.dropped(), [0, 1, 2, 3]);
}

#[test]
fn refused_insert_with_a_panicking_value() {
    let log = DropLog::default();
    let mut map = SparseMap::<u32, Noisy>::bounded(1, 10);
    map.insert(1, log.value(1));
    assert!(caught(|| map.try_insert(2, log.bomb(2))));
    assert_eq!(log.dropped(), [2]);
    assert_eq!(ids(&map), BTreeMap::from([(1, 1)]));
}

#[test]
fn clear_with_a_panicking_value() {
    let log = DropLog::default();
    let mut map = log.map(6, Some(2));
    assert!(caught(|| map.clear()));
    map.assert_invariants();
    assert!(map.is_empty());
    assert_eq!(log.dropped(), [0, 1, 2, 3, 4, 5]);
    map.insert(2, log.value(12));
    assert_eq!(ids(&map), BTreeMap::from([(2, 12)]));
}

#[test]
fn truncate_with_a_panicking_value() {
    let log = DropLog::default();
    let mut map = log.map(6, Some(3));
    assert!(caught(|| map.truncate(2)));
    assert_eq!(ids(&map), BTreeMap::from([(0, 0), (1, 1)]));
    assert_eq!(log.dropped(), [2, 3, 4, 5]);
    drop(map);
    assert_eq!(log.dropped(), [0, 1, 2, 3, 4, 5]);
}

#[test]
fn retain_with_a_panicking_predicate() {
    let log = DropLog::default();
    let mut map = log.map(8, None);
    let mut visits = 0;
    assert!(caught(|| {
        map.retain(|key, _| {
            visits += 1;
            assert!(key != 5, "predicate panics at 5");
            key % 2 == 0
        });
    }));
    assert_eq!(visits, 6);
    assert!(log.dropped().is_empty(), "nothing is dropped when the predicate panics");
    assert_eq!(ids(&map), (0..8).map(|key| (key, key)).collect());
    drop(map);
    assert_eq!(log.dropped(), (0..8).collect::<Vec<_>>());
}

#[test]
fn retain_with_a_panicking_drop() {
    let log = DropLog::default();
    let mut map = log.map(8, Some(3));
    assert!(caught(|| map.retain(|key, _| key % 2 == 0)));
    assert_eq!(ids(&map), BTreeMap::from([(0, 0), (2, 2), (4, 4), (6, 6)]));
    assert_eq!(map.keys(), &[0, 2, 4, 6]);
    assert_eq!(log.dropped(), [1, 3, 5, 7]);
    drop(map);
    assert_eq!(log.dropped(), (0..8).collect::<Vec<_>>());
}

#[test]
fn drain_dropped_half_way_with_a_panicking_value() {
    let log = DropLog::default();
    let mut map = log.map(8, Some(6));
    assert!(caught(|| {
        let mut drain = map.drain();
        let taken: Vec<u32> = drain.by_ref().take(3).map(|(key, value)| key + value.id).collect();
        assert_eq!(taken, [0, 2, 4]);
        drop(drain);
    }));
    map.assert_invariants();
    assert!(map.is_empty());
    assert_eq!(log.dropped(), (0..8).collect::<Vec<_>>());
    map.insert(6, log.value(16));
    assert_eq!(ids(&map), BTreeMap::from([(6, 16)]));
}

#[test]
fn into_iter_dropped_half_way_with_a_panicking_value() {
    let log = DropLog::default();
    let map = log.map(5, Some(4));
    assert!(caught(|| {
        let mut iter = map.into_iter();
        iter.next();
        drop(iter);
    }));
    assert_eq!(log.dropped(), [0, 1, 2, 3, 4]);
}

#[test]
fn dropping_the_map_with_a_panicking_value_drops_the_rest() {
    let log = DropLog::default();
    let map = log.map(5, Some(1));
    assert!(caught(|| drop(map)));
    assert_eq!(log.dropped(), [0, 1, 2, 3, 4]);
}

#[test]
fn sort_by_with_a_panicking_comparator_changes_nothing() {
    let log = DropLog::default();
    let mut map = log.map(50, None);
    map.remove(10);
    let keys = map.keys().to_vec();
    let mut calls = 0;
    assert!(caught(|| {
        map.sort_by(|_, a, _, b| {
            calls += 1;
            assert!(calls < 30, "comparator panics");
            b.id.cmp(&a.id)
        });
    }));
    assert_eq!(map.keys(), keys.as_slice());
    assert!(map.iter().all(|(key, value)| key == value.id));
    assert_eq!(log.dropped(), [10]);
    assert!(caught(|| map.sort_unstable_by(|_, _, _, _| panic!("comparator panics"))));
    assert!(caught(|| map.sort_by_key(|_, _| -> u32 { panic!("key function panics") })));
    assert_eq!(map.keys(), keys.as_slice());
    map.assert_invariants();
    drop(map);
    assert_eq!(log.dropped(), (0..50).collect::<Vec<_>>());
}

#[test]
fn overwriting_a_key_never_allocates_even_at_full_capacity() {
    let mut map = SparseMap::<u32, u64>::new();
    map.insert(0, 0);
    let mut key = 1;
    while map.len() < map.capacity() {
        map.insert(key, 0);
        key += 1;
    }
    let ((), allocations) = allocations_during(|| {
        assert_eq!(map.insert(0, 7), Some(0));
    });
    assert_eq!(allocations, 0);
    map.assert_invariants();
}

#[test]
fn entity_lookups_compare_generations_in_dense_and_in_sparse_slots() {
    use sparse_set_core::Entities;
    let mut entities = Entities::new();
    let count = if cfg!(miri) { 300 } else { 2_000 };
    let first: Vec<Entity> = (0..count).map(|_| entities.spawn()).collect();
    for &e in &first {
        entities.despawn(e);
    }
    let live: Vec<Entity> = (0..count).map(|_| entities.spawn()).collect();
    let mut map: SparseMap<Entity, u32> = live.iter().map(|&e| (e, e.index())).collect();
    // Far indices, beyond the slots kept dense: the same answers through the other path.
    let far = [entity(1 << 30, 4), entity(u32::MAX - 1, 2)];
    for &e in &far {
        map.insert(e, 7);
    }
    map.assert_invariants();
    for (&old, &new) in first.iter().zip(&live) {
        assert_eq!(map.get(new), Some(&new.index()));
        assert!(!map.contains_key(old), "{old:?} is stale: {new:?} holds its slot");
        assert_eq!(map.get_index_of(old), None);
    }
    for &e in &far {
        assert_eq!(map.get(e), Some(&7));
        let older = entity(e.index(), e.generation().get() - 1);
        assert!(!map.contains_key(older));
    }
    // A newer generation replaces the dead one in place; the old handle stops matching.
    let (dead, reborn) = (live[5], entity(live[5].index(), live[5].generation().get() + 1));
    assert_eq!(map.insert(reborn, 99), Some(dead.index()));
    assert!(!map.contains_key(dead) && map.get(reborn) == Some(&99));
    map.assert_invariants();
    // Removing keeps the answers right for every key that moved.
    for &e in live.iter().step_by(3) {
        map.remove(e);
    }
    map.shrink_to_fit();
    map.assert_invariants();
    for (i, &e) in live.iter().enumerate() {
        let expected = if i % 3 == 0 || i == 5 { None } else { Some(&e.index()) };
        assert_eq!(map.get(e), expected, "{e:?}");
    }
    assert_eq!(map.get(reborn), Some(&99));
    let copy = map.clone();
    copy.assert_invariants();
    assert_eq!(copy.get(reborn), Some(&99));
}

/// `map::Columns` put together by hand with slices of unequal length hold the rows of the
/// shortest: `len` agrees with the rows a walk yields.
#[test]
fn columns_of_unequal_slices_hold_the_rows_of_the_shortest() {
    use sparse_set_core::Rows;
    use sparse_set_core::map::{Columns, ColumnsMut};

    let (keys, values) = ([1_u32, 2, 3], ['a', 'b']);
    let columns = Columns { keys: &keys, values: &values };
    assert_eq!((columns.len(), columns.into_rows().len()), (2, 2));
    let columns = Columns { keys: &keys[..1], values: &values };
    assert_eq!((columns.len(), columns.into_rows().len()), (1, 1));
    let mut values = ['a', 'b', 'c', 'd'];
    let columns = ColumnsMut { keys: &keys, values: &mut values };
    assert_eq!((columns.len(), columns.into_rows().len()), (3, 3));
    let map: SparseMap<u32, char> = [(4, 'x'), (5, 'y')].into_iter().collect();
    assert_eq!(Rows::len(&map.columns()), 2);
}
