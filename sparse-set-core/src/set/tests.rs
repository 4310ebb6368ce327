//! Batches of new keys: a run measured and pushed over slots that follow each other against
//! the same run key by key. The lookup whose miss is `usize::MAX` against `get_index_of`. And
//! the graves: where a versioned set keeps the versions of slots emptied outside its prefix.

use core::num::NonZeroU32;

use super::fresh::consecutive_from;
use super::*;
use crate::entity::Entity;

fn entity(index: u32, generation: u32) -> Entity {
    Entity::from_parts(index, NonZeroU32::new(generation).expect("a generation"))
}

/// A set with room for 1,000 keys and slots laid out up to 1,024, holding a few keys and
/// having seen newer versions in other slots.
fn prepared<K: Key, D: DenseIndex>(set: &mut SparseSet<K, D>, key: impl Fn(u32, u32) -> K) {
    let _ = set.try_reserve(1_000);
    set.reserve_slots(0..1_024);
    for (index, generation) in [(100, 1), (101, 3), (300, 2), (301, 1), (690, 1), (1_010, 1)] {
        let _ = set.try_insert(key(index, generation));
    }
    set.remove(key(101, 3));
    set.remove(key(301, 1));
    set.assert_invariants();
}

/// The run a batch measures over consecutive slots (checked a chunk at a time) is the run
/// measured key by key, wherever a held slot, a newer version seen, a bounded set's limits,
/// the room reserved or the end of the prefix cuts it; and pushing it stores what inserting
/// the keys one by one stores.
fn check_runs<K: Key, D: DenseIndex>(mut set: SparseSet<K, D>, key: impl Fn(u32, u32) -> K) {
    prepared(&mut set, &key);
    let (starts, lens, generations): (&[u32], &[u32], u32) = if cfg!(miri) {
        (&[99, 290, 1_000], &[0, 17, 40], 2)
    } else {
        (
            &[0, 50, 99, 100, 101, 102, 290, 301, 500, 680, 1_000, 1_020, 2_000],
            &[0, 1, 15, 16, 17, 40, 300, 1_200],
            4,
        )
    };
    for &start in starts {
        for &len in lens {
            for generation in 1..=generations {
                let keys: Vec<K> = (start..start + len).map(|i| key(i, generation)).collect();
                let room = set.dense.capacity() - set.len();
                let expected = set.fresh_each_len(&keys[..keys.len().min(room)]);
                assert_eq!(
                    set.fresh_run_len(&keys),
                    expected,
                    "a run of {len} from slot {start}, generation {generation}"
                );
                let mut pushed = set.clone();
                assert_eq!(pushed.push_fresh_run(&keys), expected);
                pushed.assert_invariants();
                let mut inserted = set.clone();
                for &key in &keys[..expected] {
                    assert_eq!(inserted.try_insert(key), Ok(true));
                }
                assert_eq!(pushed.dense, inserted.dense);
            }
        }
    }
}

#[test]
fn a_consecutive_run_measures_and_pushes_as_key_by_key() {
    check_runs(SparseSet::<Entity>::new(), entity);
    check_runs(SparseSet::<Entity, u16>::new(), entity);
    check_runs(SparseSet::<Entity>::bounded(600, 650), entity);
    check_runs(SparseSet::<u32>::new(), |index, _| index);
    check_runs(SparseSet::<u32>::bounded(400, 1_015), |index, _| index);
}

#[test]
fn only_slots_that_follow_each_other_are_consecutive() {
    assert_eq!(consecutive_from::<u32>(&[]), None);
    assert_eq!(consecutive_from(&[7_u32]), Some(7));
    assert_eq!(consecutive_from(&[7_u32, 8, 9]), Some(7));
    assert_eq!(consecutive_from(&[7_u32, 9, 8]), None);
    assert_eq!(consecutive_from(&[7_u32, 8, 8]), None);
    assert_eq!(consecutive_from(&[u32::MAX, 0]), None);
    assert_eq!(consecutive_from(&[entity(4, 1), entity(5, 9)]), Some(4));
}

/// A key past the prepared sets' prefix (nearer under miri, where large sets are slow).
const FAR: u32 = if cfg!(miri) { 1_500 } else { 70_000 };

/// `get_index_of_or_max` answers `get_index_of`, with `usize::MAX` for `None`, and
/// `get_index_below` answers it below each bound (the set's length, half of it, none), for every
/// key around the prepared sets' (held, removed with their generation kept, other generations,
/// in the prefix and past it) and for keys far past every slot laid out.
fn check_or_max<K: Key, D: DenseIndex>(mut set: SparseSet<K, D>, key: impl Fn(u32, u32) -> K) {
    prepared(&mut set, &key);
    let _ = set.try_insert(key(FAR, 2));
    let step = if cfg!(miri) { 23 } else { 1 };
    let indices = (0..1_100).step_by(step).chain([FAR - 1, FAR, FAR + 1, 1 << 20, u32::MAX]);
    for index in indices {
        for generation in 1..=4 {
            let probe = key(index, generation);
            let found = set.get_index_of(probe);
            assert_eq!(set.get_index_of_or_max(probe), found.unwrap_or(usize::MAX), "{probe:?}");
            for len in [set.len(), set.len() / 2, 0] {
                let below = found.filter(|&index| index < len);
                assert_eq!(set.get_index_below(probe, len), below, "{probe:?} below {len}");
            }
        }
    }
}

#[test]
fn the_lookups_with_a_sentinel_or_a_bound_answer_as_get_index_of() {
    check_or_max(SparseSet::<Entity>::new(), entity);
    check_or_max(SparseSet::<Entity, u16>::new(), entity);
    check_or_max(SparseSet::<Entity>::bounded(600, FAR as usize + 500), entity);
    check_or_max(SparseSet::<u32>::new(), |index, _| index);
    // Keys in the prefix (a bounded set's whole range is one).
    check_or_max(SparseSet::<u32>::bounded(600, FAR as usize + 500), |index, _| index);
    check_or_max(SparseSet::<u64>::new(), |index, generation| {
        u64::from(index) | (u64::from(generation) << 40)
    });
}

/// A removal outside the prefix of a versioned set leaves its version in the graves (counted
/// in the set's memory), the newest one if the slot empties again; removals from the prefix,
/// from a set of integers and from a bounded set leave none and allocate nothing.
#[test]
fn graves_keep_the_versions_emptied_outside_the_prefix_and_only_there() {
    let mut integers = SparseSet::<u32>::new();
    integers.insert(5);
    integers.remove(5);
    integers.clear();
    assert!(integers.graves.is_unused());

    let mut bounded = SparseSet::<Entity>::bounded(4, 16);
    bounded.insert(entity(5, 2));
    bounded.remove(entity(5, 2));
    assert!(bounded.graves.is_unused());
    assert_eq!(bounded.sparse.prefix_version(5), 2);

    let mut set = SparseSet::<Entity>::new();
    set.insert(entity(5, 2));
    assert!(set.graves.is_unused());
    let before = set.allocated_bytes();
    set.remove(entity(5, 2));
    assert_eq!(set.graves.version(5), 2);
    assert!(set.allocated_bytes() > before, "the graves' memory is counted");
    set.insert(entity(5, 3));
    set.assert_invariants();
    set.truncate(0);
    assert_eq!(set.graves.version(5), 3);
    set.insert(entity(6, 1));
    set.insert(entity(7, 1));
    set.pop();
    set.clear();
    assert_eq!((set.graves.version(6), set.graves.version(7)), (1, 1));
    assert_eq!(
        set.try_insert(entity(5, 2)),
        Err(Error::StaleKey { index: 5, version: 2, held: 3 })
    );
    set.assert_invariants();
    let copy = set.try_clone().expect("a small copy");
    assert_eq!(copy.graves.version(5), 3);

    // Page 0 fills and joins the prefix: the graves move into its cells, and `shrink_to_fit`
    // frees what held them.
    for slot in 0..512 {
        set.insert(entity(slot, 3));
    }
    set.assert_invariants();
    assert_eq!(set.graves.version(5), 0);
    set.shrink_to_fit();
    assert!(set.graves.is_unused());
    set.remove(entity(6, 3));
    assert_eq!(
        set.try_insert(entity(6, 2)),
        Err(Error::StaleKey { index: 6, version: 2, held: 3 })
    );
}

/// Pages that join the prefix empty, when a batch lays out its slots, take the versions their
/// slots left in the graves: a page emptied and released by `shrink_to_fit`, or a thinly used
/// page whose grave outlived it.
#[test]
fn slots_laid_out_for_a_batch_take_their_graves() {
    let stale = |slot: u32| Err(Error::StaleKey { index: u64::from(slot), version: 1, held: 2 });
    let mut thin = SparseSet::<Entity>::new();
    thin.insert(entity(5, 2));
    thin.remove(entity(5, 2));
    thin.shrink_to_fit(); // the empty page goes; its grave stays
    let mut released = SparseSet::<Entity>::new();
    for slot in 0..512 {
        released.insert(entity(slot, 2));
    }
    released.clear();
    released.shrink_to_fit(); // page 0 leaves the prefix; its versions go to the graves
    for (set, slot) in [(&mut thin, 5), (&mut released, 7)] {
        assert_eq!(set.try_insert(entity(slot, 1)), stale(slot));
        set.reserve(512);
        set.reserve_slots(0..512);
        assert_eq!(set.sparse.prefix_slots(), 512, "the page joined the prefix");
        set.assert_invariants();
        assert_eq!(set.try_insert(entity(slot, 1)), stale(slot));
        assert_eq!(set.fresh_run_len(&[entity(slot, 1)]), 0);
    }
}

/// An observer that refuses to reserve while `refusing`.
#[derive(Clone, Default)]
struct Refusing {
    refusing: bool,
}

impl<K, V> Observer<K, V> for Refusing {
    fn try_reserve(&mut self, _: usize) -> Result<(), Error> {
        if self.refusing { Err(Error::AllocFailed) } else { Ok(()) }
    }
}

/// A map's insert that fails after its index took the key leaves no trace of it: no grave, so
/// an older version of the key is still welcome.
#[test]
fn a_failed_map_insert_leaves_no_grave() {
    let mut map = crate::map::SparseMap::<Entity, u8, u32, Refusing>::with_observer(Refusing {
        refusing: true,
    });
    assert_eq!(map.try_insert(entity(5, 3), 1), Err(Error::AllocFailed));
    map.observer_mut().refusing = false;
    assert_eq!(map.try_insert(entity(5, 2), 1), Ok(None));
    map.assert_invariants();
}
