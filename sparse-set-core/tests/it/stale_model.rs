//! Stale `Entity` handles against a model of the rule the storages document: a slot keeps the
//! newest version it has seen, held or not, and an older version is refused with
//! `Error::StaleKey` naming that version; an equal or newer one is stored (replacing what the
//! slot holds). A bounded storage's key range is one prefix from the start; a growable one's
//! slots lie in the prefix, in thinly used pages, in pages the prefix has not reached and in the
//! hash lane, and pages join the prefix as they fill: the rule is the same everywhere, also
//! through `shrink_to_fit` (a test of its own).

use std::collections::BTreeMap;
use std::num::NonZeroU32;

use proptest::prelude::*;
use sparse_set_core::{Entity, Error, SparseMap, SparseSet, Storage};
use sparse_soa_test_support::model;

/// Slots 0..SLOTS, versions 1..=VERSIONS.
const SLOTS: u32 = 24;
const VERSIONS: u32 = 5;

/// The slots of the growable storages, by the numbers `0..SLOTS` the operations name: page 0,
/// which fills and joins the prefix as its keys come and go; a thinly used page; a page the
/// prefix does not reach; pages of the hash lane.
const SPREAD: [u32; SLOTS as usize] = [
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    512,
    513,
    514,
    5000,
    5001,
    1 << 30,
    (1 << 30) + 1,
    3_000_000_000,
    u32::MAX - 1,
    u32::MAX,
];

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u32),
    Remove(u32, u32),
    Clear,
    RetainEven,
    ShrinkToFit,
    /// Keeps the first `n` keys in dense order.
    Truncate(usize),
    Pop,
    /// Lays out the slots of page 0 for a batch (`Storage::reserve_slots`).
    ReserveSlots,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..SLOTS, 1..=VERSIONS).prop_map(|(slot, version)| Op::Insert(slot, version)),
        3 => (0..SLOTS, 1..=VERSIONS).prop_map(|(slot, version)| Op::Remove(slot, version)),
        1 => Just(Op::Clear),
        1 => Just(Op::RetainEven),
        1 => Just(Op::ShrinkToFit),
        1 => (0..6_usize).prop_map(Op::Truncate),
        1 => Just(Op::Pop),
        1 => Just(Op::ReserveSlots),
    ]
}

fn entity(slot: u32, version: u32) -> Entity {
    Entity::from_parts(slot, NonZeroU32::new(version).expect("versions start at 1"))
}

/// The model: what each slot holds, and the newest version each slot has seen.
#[derive(Default)]
struct Model {
    held: BTreeMap<u32, (u32, i64)>,
    seen: BTreeMap<u32, u32>,
}

impl Model {
    /// What `try_insert` must return under the prefix rule.
    fn insert(&mut self, slot: u32, version: u32, value: i64) -> Result<Option<i64>, Error> {
        let seen = self.seen.get(&slot).copied().unwrap_or(0);
        if version < seen {
            return Err(Error::StaleKey { index: u64::from(slot), version, held: seen });
        }
        self.seen.insert(slot, version);
        Ok(self.held.insert(slot, (version, value)).map(|(_, old)| old))
    }

    fn remove(&mut self, slot: u32, version: u32) -> Option<i64> {
        match self.held.get(&slot) {
            Some(&(held, value)) if held == version => {
                self.held.remove(&slot);
                Some(value)
            }
            _ => None,
        }
    }
}

/// Runs `ops` on a map and a set, their slots named through `slots`, checking every result
/// against the model.
fn run(ops: &[Op], mut map: SparseMap<Entity, i64>, mut set: SparseSet<Entity>, slots: &[u32]) {
    let mut model = Model::default();
    for (value, op) in (0_i64..).zip(ops) {
        let op = match *op {
            Op::Insert(slot, version) => Op::Insert(slots[slot as usize], version),
            Op::Remove(slot, version) => Op::Remove(slots[slot as usize], version),
            ref op => op.clone(),
        };
        match op {
            Op::Insert(slot, version) => {
                let key = entity(slot, version);
                let expected = model.insert(slot, version, value);
                assert_eq!(map.try_insert(key, value), expected, "map: insert {key:?}");
                let expected = expected.map(|old| old.map(|_| ()));
                assert_eq!(Storage::try_insert(&mut set, key, ()), expected, "set: insert {key:?}");
            }
            Op::Remove(slot, version) => {
                let key = entity(slot, version);
                let expected = model.remove(slot, version);
                assert_eq!(map.remove(key), expected, "map: remove {key:?}");
                assert_eq!(set.remove(key), expected.is_some(), "set: remove {key:?}");
            }
            Op::Clear => {
                map.clear();
                set.clear();
                model.held.clear();
            }
            Op::RetainEven => {
                map.retain(|key, _| key.index() % 2 == 0);
                set.retain(|key| key.index() % 2 == 0);
                model.held.retain(|slot, _| slot % 2 == 0);
            }
            Op::ShrinkToFit => {
                map.shrink_to_fit();
                set.shrink_to_fit();
            }
            Op::Truncate(len) => {
                for key in map.keys().iter().skip(len) {
                    model.held.remove(&key.index());
                }
                map.truncate(len);
                set.truncate(len);
            }
            Op::Pop => {
                let popped = map.pop();
                assert_eq!(set.pop(), popped.map(|(key, _)| key), "the same dense order");
                if let Some((key, value)) = popped {
                    let held = model.held.remove(&key.index());
                    assert_eq!(held, Some((key.generation().get(), value)));
                }
            }
            Op::ReserveSlots => {
                map.reserve(512);
                Storage::reserve_slots(&mut map, 0..512);
                set.reserve(512);
                Storage::reserve_slots(&mut set, 0..512);
            }
        }
        map.assert_invariants();
        set.assert_invariants();
        assert_eq!(map.len(), model.held.len());
        for (&slot, &(version, value)) in &model.held {
            assert_eq!(map.get(entity(slot, version)), Some(&value));
            assert!(set.contains(entity(slot, version)));
        }
    }
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn bounded_storages_refuse_every_version_older_than_seen(
        ops in prop::collection::vec(op(), 1..if cfg!(miri) { 30 } else { 200 }),
    ) {
        let slots: Vec<u32> = (0..SLOTS).collect();
        let map = SparseMap::bounded(SLOTS as usize, SLOTS as usize);
        run(&ops, map, SparseSet::bounded(SLOTS as usize, SLOTS as usize), &slots);
    }

    #[test]
    fn growable_storages_refuse_every_version_older_than_seen_in_every_lane(
        ops in prop::collection::vec(op(), 1..if cfg!(miri) { 30 } else { 300 }),
    ) {
        run(&ops, SparseMap::new(), SparseSet::new(), &SPREAD);
    }
}

/// Outside the prefix too an emptied slot keeps the version it held: a growable storage whose
/// only keys sit on a thinly used page refuses an older handle as a bounded one does; so does
/// a slot emptied while its page was thinly used, once the page has filled and joined the
/// prefix; a clone keeps the versions; a set of integer keys keeps none (and allocates none).
#[test]
fn an_emptied_slot_keeps_its_version_in_every_lane() {
    let (old, new) = (entity(3, 1), entity(3, 2));
    let stale = Err(Error::StaleKey { index: 3, version: 1, held: 2 });
    let mut growable = SparseMap::<Entity, i64>::new();
    growable.insert(new, 2);
    growable.remove(new);
    assert_eq!(growable.try_insert(old, 1), stale);
    assert_eq!(growable.clone().try_insert(old, 1), stale, "a clone keeps the versions");
    let mut set = SparseSet::<Entity>::new();
    set.insert(new);
    set.clear();
    assert_eq!(set.try_insert(old), stale.map(|_| true));
    let mut bounded = SparseMap::<Entity, i64>::bounded(4, 8);
    bounded.insert(new, 2);
    bounded.remove(new);
    assert_eq!(bounded.try_insert(old, 1), stale);

    // Page 0 fills and joins the prefix: slot 3's version moves into the prefix with it.
    for slot in (0..512).filter(|&slot| slot != 3) {
        growable.insert(entity(slot, 1), 0);
    }
    growable.assert_invariants();
    assert_eq!(growable.try_insert(old, 1), stale, "the slot joined the prefix");
    assert_eq!(growable.try_insert(new, 2), Ok(None));

    // The hash lane: a handle far from every other key.
    let far = |version| entity(u32::MAX - 7, version);
    growable.insert(far(4), 4);
    growable.remove(far(4));
    assert_eq!(
        growable.try_insert(far(3), 3),
        Err(Error::StaleKey { index: u64::from(u32::MAX - 7), version: 3, held: 4 })
    );
    growable.assert_invariants();
}

/// `shrink_to_fit` rebuilds the pages: a page of the prefix it turns into a thinly used one
/// leaves its emptied slots' versions in the graves, and they go on refusing older handles.
#[test]
fn shrink_to_fit_keeps_the_versions_of_the_prefix_pages_it_releases() {
    let mut map = SparseMap::<Entity, i64>::new();
    for slot in 0..1024 {
        map.insert(entity(slot, 2), 0);
    }
    let before = map.allocated_bytes();
    map.retain(|key, _| key.index() < 4 || key.index() >= 1000);
    map.shrink_to_fit();
    map.assert_invariants();
    assert!(map.allocated_bytes() < before, "the released pages' memory is given back");
    for slot in [2, 100, 511, 512, 999, 1000] {
        assert_eq!(
            map.try_insert(entity(slot, 1), 1),
            Err(Error::StaleKey { index: u64::from(slot), version: 1, held: 2 }),
            "slot {slot}"
        );
    }
    assert_eq!(map.try_insert(entity(100, 2), 1), Ok(None));
    map.assert_invariants();
}

#[test]
fn slots_laid_out_for_a_batch_know_the_versions_they_hold_and_keep_the_new_ones() {
    // Keys in pages 1 and 2 (page 2 full), none in page 0: no prefix yet.
    let page = 512;
    let mut map = SparseMap::<Entity, u32>::new();
    for slot in (page + 3..page + 6).chain(2 * page..2 * page + 20) {
        map.insert(entity(slot, 3), slot);
    }
    map.reserve(3 * page as usize);
    Storage::reserve_slots(&mut map, 0..u64::from(3 * page));
    map.assert_invariants(); // every held slot's version is kept beside it
    assert_eq!(
        map.try_insert(entity(page + 4, 2), 0),
        Err(Error::StaleKey { index: u64::from(page + 4), version: 2, held: 3 })
    );
    // A batch fills the laid-out slots; a removed one then refuses its older handles.
    for slot in 0..page {
        map.insert(entity(slot, 1), slot);
    }
    map.assert_invariants();
    map.remove(entity(7, 1));
    map.insert(entity(7, 2), 7);
    map.remove(entity(7, 2));
    assert_eq!(
        map.try_insert(entity(7, 1), 0),
        Err(Error::StaleKey { index: 7, version: 1, held: 2 })
    );
    assert_eq!(map.get(entity(2 * page + 5, 3)), Some(&(2 * page + 5)));
}

/// A run of new keys (what a batch of rows stores at once) stops at the first key `try_insert`
/// would not store as new on its common path: a held slot, a slot that has seen a newer
/// version, a slot outside the prefix, a full bounded set. What it stores is what `try_insert`
/// stores, versions included.
#[test]
fn a_run_of_new_keys_stops_where_try_insert_would_not_store_a_new_key() {
    // One page laid out (a hint takes a whole page only where the keys fill half of it).
    let mut map = SparseMap::<Entity, u32>::new();
    map.reserve(512);
    Storage::reserve_slots(&mut map, 0..512);
    map.insert(entity(5, 1), 5);
    map.insert(entity(8, 4), 8);
    map.remove(entity(8, 4));
    let keys: Vec<Entity> = (0..10).map(|slot| entity(slot, 2)).collect();
    // Slot 5 is held.
    assert_eq!(Storage::fresh_run_len(&map, &keys), 5);
    assert_eq!(Storage::fresh_run_len(&map, &keys[6..]), 2, "slot 8 saw version 4");
    let mut values: Vec<u32> = (0..5).collect();
    Storage::push_fresh_run(&mut map, &keys[..5], &mut values);
    assert!(values.is_empty());
    map.assert_invariants();
    assert_eq!(map.keys(), [entity(5, 1), keys[0], keys[1], keys[2], keys[3], keys[4]]);
    assert_eq!(map.get(keys[3]), Some(&3));
    map.remove(keys[3]);
    assert_eq!(
        map.try_insert(entity(3, 1), 0),
        Err(Error::StaleKey { index: 3, version: 1, held: 2 }),
        "the run kept the versions it stored"
    );
    // Past the laid-out prefix, nothing is taken at once.
    assert_eq!(Storage::fresh_run_len(&map, &[entity(100_000, 1)]), 0);
    // A bounded set takes up to its capacity; a set with no room reserved takes nothing.
    let mut bounded = SparseSet::<Entity>::bounded(3, 100);
    let keys: Vec<Entity> = (10..20).map(|slot| entity(slot, 1)).collect();
    assert_eq!(bounded.fresh_run_len(&keys), 3);
    assert_eq!(bounded.push_fresh_run(&keys), 3);
    assert_eq!(bounded.fresh_run_len(&keys[3..]), 0);
    bounded.assert_invariants();
    assert_eq!(SparseSet::<Entity>::new().fresh_run_len(&keys), 0);
    // A repeated key ends the run where it repeats.
    let mut set = SparseSet::<Entity>::new();
    set.reserve(512);
    set.reserve_slots(0..512);
    let repeated = [entity(1, 1), entity(2, 1), entity(1, 1)];
    assert_eq!(set.push_fresh_run(&repeated), 2);
    set.assert_invariants();
}
