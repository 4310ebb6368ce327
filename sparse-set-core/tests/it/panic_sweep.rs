//! Panic safety at every step: every mutating call of `SparseMap` and `SparseSet` is run once
//! per counted call it makes (a value's `Clone` or `Drop`, a comparison, a predicate, an
//! iterator step), with that call panicking ([`sweep`]). After each run the invariant checker
//! passes, every key still has its own value, nothing was dropped twice and, once the map is
//! dropped, nothing is left alive. A map with observers (change ticks, a journal, removal
//! events) is swept too: its ticks keep its length, its journal's replayed keys its keys, and
//! every row that left was reported once, whichever call panicked.
//!
//! Run with `--nocapture` to see how many calls each sweep reached.

use std::num::NonZeroU32;

use sparse_set_core::map::Entry;
use sparse_set_core::{Entity, Key, SparseMap, SparseSet};
use sparse_soa_test_support::keys::OrdKey;
use sparse_soa_test_support::mirror::replay_keys;
use sparse_soa_test_support::panics::{Ticking, Tracked, compare, reached, sweep, tick};

/// Elements per storage: past the in-place sort's insertion-sort threshold (16), so that its
/// partitioning runs too (under miri, fewer: every sweep still reaches every call).
const LEN: u32 = if cfg!(miri) { 10 } else { 40 };

/// Keys `0..LEN` in a scrambled order (so sorts have work), each value labelled by its key.
fn scrambled() -> impl Iterator<Item = u32> {
    (0..LEN).map(|i| (i * 7 + 3) % LEN)
}

fn map() -> SparseMap<u32, Tracked> {
    scrambled().map(|key| (key, Tracked::new(key))).collect()
}

fn ord_map() -> SparseMap<OrdKey, Tracked> {
    scrambled().map(|key| (OrdKey(key), Tracked::new(key))).collect()
}

/// The map is consistent and every value is still its key's.
fn check<K: Key, O: sparse_set_core::observe::Observer<K, Tracked>>(
    map: &SparseMap<K, Tracked, u32, O>,
    label: impl Fn(K) -> u32,
) {
    map.assert_invariants();
    assert_eq!(map.keys().len(), map.values().len());
    for (key, value) in map {
        assert_eq!(value.label, label(key), "{key:?} holds another key's value");
    }
}

fn check_map(map: &SparseMap<u32, Tracked>, _: bool) {
    check(map, |key| key);
}

fn check_ord_map(map: &SparseMap<OrdKey, Tracked>, _: bool) {
    check(map, |key| key.0);
}

#[test]
fn overwriting_a_value_drops_the_old_one_outside_or_in_place() {
    let calls = sweep(map, |map| drop(map.insert(3, Tracked::new(3))), check_map);
    assert_eq!(reached("insert over a value", calls), 1, "the old value's drop");
    let calls = sweep(map, |map| map[4] = Tracked::new(4), check_map);
    assert_eq!(reached("IndexMut assignment", calls), 1);
    let calls = sweep(map, |map| drop(map.insert_full(5, Tracked::new(5))), check_map);
    assert_eq!(reached("insert_full over a value", calls), 1);
    let calls = sweep(map, |map| _ = map.entry(6).or_insert(Tracked::new(6)), check_map);
    assert_eq!(reached("entry of a held key", calls), 1, "the unused value's drop");
    let calls = sweep(
        map,
        |map| {
            if let Entry::Occupied(mut entry) = map.entry(7) {
                drop(entry.insert(Tracked::new(7)));
            }
        },
        check_map,
    );
    assert_eq!(reached("OccupiedEntry::insert", calls), 1);
}

#[test]
fn a_newer_entity_displaces_the_older_ones_value() {
    let entity =
        |index, generation| Entity::from_parts(index, NonZeroU32::new(generation).unwrap());
    let make = || -> SparseMap<Entity, Tracked> {
        scrambled().map(|index| (entity(index, 1), Tracked::new(index))).collect()
    };
    let check = |map: &SparseMap<Entity, Tracked>, _: bool| check(map, Entity::index);
    let calls = sweep(make, |map| drop(map.insert(entity(9, 2), Tracked::new(9))), check);
    assert_eq!(reached("displacement by insert", calls), 1);
    let calls = sweep(make, |map| _ = map.entry(entity(9, 2)).or_insert(Tracked::new(9)), check);
    assert_eq!(reached("displacement by a vacant entry", calls), 1);
}

#[test]
fn removals_hand_the_value_out_or_drop_it() {
    for (name, op) in [
        ("remove", (|map| drop(map.remove(5))) as fn(&mut SparseMap<u32, Tracked>)),
        ("remove_with_info", |map| drop(map.remove_with_info(5))),
        ("swap_remove_index", |map| drop(map.swap_remove_index(2))),
        ("pop", |map| drop(map.pop())),
        ("OccupiedEntry::remove", |map| {
            if let Entry::Occupied(entry) = map.entry(5) {
                drop(entry.remove());
            }
        }),
    ] {
        assert_eq!(reached(name, sweep(map, op, check_map)), 1);
    }
}

#[test]
fn retain_with_a_panicking_predicate_or_drop() {
    let calls = sweep(
        map,
        |map| {
            map.retain(|key, _| {
                tick("a predicate");
                key % 3 != 0
            });
        },
        check_map,
    );
    let removed = (0..LEN).filter(|key| key % 3 == 0).count();
    assert_eq!(reached("retain", calls), LEN as usize + removed, "predicates, then drops");
}

#[test]
fn drain_dropped_half_way() {
    let calls = sweep(
        map,
        |map| {
            let mut drain = map.drain();
            drop(drain.next());
            drop(drain.next());
            drop(drain);
        },
        |map, _| {
            check_map(map, false);
            assert!(map.is_empty(), "a drain empties the map whatever happens");
        },
    );
    assert_eq!(reached("drain", calls), LEN as usize);
}

#[test]
fn clear_and_truncate() {
    let calls = sweep(map, SparseMap::clear, |map, _| {
        check_map(map, false);
        assert!(map.is_empty());
    });
    assert_eq!(reached("clear", calls), LEN as usize);
    let calls = sweep(
        map,
        |map| map.truncate(5),
        |map, _| {
            check_map(map, false);
            assert_eq!(map.len(), 5);
        },
    );
    assert_eq!(reached("truncate", calls), LEN as usize - 5);
}

#[test]
fn stable_sorts_leave_the_map_unchanged_when_they_panic() {
    let before: Vec<u32> = map().keys().to_vec();
    let unchanged = |map: &SparseMap<u32, Tracked>, panicked: bool| {
        check_map(map, panicked);
        if panicked {
            assert_eq!(map.keys(), before.as_slice(), "documented: nothing moves");
        } else {
            assert!(map.keys().is_sorted_by_key(|key| key % 5));
        }
    };
    let calls = sweep(map, |map| map.sort_by(|a, _, b, _| compare(&(a % 5), &(b % 5))), unchanged);
    assert!(reached("SparseMap::sort_by", calls) >= LEN as usize - 1);
    let calls = sweep(
        map,
        |map| {
            map.sort_by_key(|key, _| {
                tick("a sort key");
                key % 5
            });
        },
        unchanged,
    );
    assert!(reached("SparseMap::sort_by_key", calls) >= LEN as usize);
}

#[test]
fn unstable_sorts_keep_every_value_with_its_key_when_they_panic() {
    let calls = sweep(
        map,
        |map| map.sort_unstable_by(|_, a, _, b| compare(&b.label, &a.label)),
        |map, panicked| {
            check_map(map, panicked);
            assert!(panicked || map.keys().is_sorted_by(|a, b| a >= b));
        },
    );
    assert!(reached("SparseMap::sort_unstable_by", calls) >= LEN as usize - 1);
    let calls = sweep(ord_map, SparseMap::sort_keys, |map, panicked| {
        check_ord_map(map, panicked);
        assert!(panicked || map.keys().iter().map(|key| key.0).is_sorted());
    });
    assert!(reached("SparseMap::sort_keys", calls) >= LEN as usize - 1);
}

#[test]
fn clones_drop_what_they_made_when_a_clone_panics() {
    let calls = sweep(
        map,
        |map| {
            let copy = map.clone();
            check_map(&copy, false);
            drop(copy);
        },
        check_map,
    );
    assert_eq!(reached("SparseMap::clone", calls), 2 * LEN as usize, "clones, then drops");
    let calls = sweep(
        map,
        |map| {
            let copy = map.try_clone().unwrap();
            check_map(&copy, false);
        },
        check_map,
    );
    assert_eq!(reached("SparseMap::try_clone", calls), 2 * LEN as usize);
}

#[test]
fn extend_with_a_panicking_iterator_and_values_that_panic_later() {
    // Half the pairs overwrite held keys (the old values are dropped then), half are new.
    let pairs = || -> Vec<(u32, Tracked)> {
        (LEN / 2..LEN + LEN / 2).map(|key| (key, Tracked::new(key))).collect()
    };
    let calls = sweep(
        || (map(), pairs()),
        |(map, pairs)| map.extend(Ticking(std::mem::take(pairs).into_iter())),
        |(map, _), _| check_map(map, false),
    );
    // A step per pair and one past the end, a drop per overwritten value.
    assert_eq!(reached("SparseMap::extend", calls), LEN as usize + 1 + LEN as usize / 2);
    let calls = sweep(
        pairs,
        |pairs| {
            let map: SparseMap<u32, Tracked> = Ticking(std::mem::take(pairs).into_iter()).collect();
            check_map(&map, false);
        },
        |_, _| {},
    );
    assert_eq!(reached("SparseMap::from_iter", calls), 2 * LEN as usize + 1);
}

fn ord_set() -> SparseSet<OrdKey> {
    scrambled().map(OrdKey).collect()
}

fn check_set(set: &SparseSet<OrdKey>, _: bool) {
    set.assert_invariants();
}

#[test]
fn set_sorts_leave_the_set_consistent_when_they_panic() {
    let calls = sweep(ord_set, SparseSet::sort_unstable, |set, panicked| {
        check_set(set, panicked);
        assert_eq!(set.len(), LEN as usize);
        assert!(panicked || set.as_slice().iter().map(|key| key.0).is_sorted());
    });
    assert!(reached("SparseSet::sort_unstable", calls) >= LEN as usize - 1);
    for (name, op) in [
        (
            "SparseSet::sort_unstable_by",
            (|set| set.sort_unstable_by(|a, b| compare(&b.0, &a.0))) as fn(&mut SparseSet<OrdKey>),
        ),
        ("SparseSet::sort_by", |set| set.sort_by(|a, b| compare(&(a.0 % 5), &(b.0 % 5)))),
        ("SparseSet::sort_by_key", |set| {
            set.sort_by_key(|key| {
                tick("a sort key");
                key.0 % 5
            });
        }),
    ] {
        let calls = sweep(ord_set, op, |set, panicked| {
            check_set(set, panicked);
            assert_eq!(set.len(), LEN as usize, "{name} lost keys");
        });
        assert!(reached(name, calls) >= LEN as usize - 1);
    }
    // The stable sort keeps keys of equal rank in their order, now that it needs no buffer.
    let mut set = ord_set();
    let before: Vec<u32> = set.as_slice().iter().map(|key| key.0).collect();
    set.sort_by(|a, b| (a.0 % 5).cmp(&(b.0 % 5)));
    let mut expected = before;
    expected.sort_by_key(|key| key % 5);
    assert_eq!(set.as_slice().iter().map(|key| key.0).collect::<Vec<_>>(), expected);
}

#[test]
fn set_retain_and_extend_with_panicking_callers() {
    let calls = sweep(
        ord_set,
        |set| {
            set.retain(|key| {
                tick("a predicate");
                key.0 % 3 != 0
            });
        },
        check_set,
    );
    assert_eq!(reached("SparseSet::retain", calls), LEN as usize);
    let calls =
        sweep(ord_set, |set| set.extend(Ticking((LEN / 2..LEN * 2).map(OrdKey))), check_set);
    assert_eq!(reached("SparseSet::extend", calls), (2 * LEN - LEN / 2) as usize + 1);
}

/// Change ticks, a journal and removal events: the observers of the map and the set the sweeps
/// below run on.
type Observers = (
    sparse_set_core::observe::Ticks,
    sparse_set_core::observe::Journal<u32>,
    sparse_set_core::observe::Removals<u32>,
);

/// A map with every observer.
type Observed = SparseMap<u32, Tracked, u32, Observers>;

/// The observers of a storage that started with the keys `scrambled()` and now holds `keys`:
/// the ticks have its length, the journal's changes replayed on the starting keys give `keys`,
/// and every key that left was reported once.
fn check_observers((ticks, journal, removals): &Observers, keys: &[u32]) {
    ticks.assert_invariants(keys.len());
    assert_eq!(journal.len(), keys.len(), "the journal's length");
    let replayed = replay_keys(scrambled().collect(), journal).expect("under the default limit");
    assert_eq!(replayed, keys, "the journal's key mirror");
    let mut left: Vec<u32> = scrambled().filter(|key| !keys.contains(key)).collect();
    let mut reported = removals.keys().to_vec();
    left.sort_unstable();
    reported.sort_unstable();
    assert_eq!(reported, left, "one removal event per key that left");
}

fn observed() -> Observed {
    let mut map = Observed::default();
    map.extend(scrambled().map(|key| (key, Tracked::new(key))));
    map.observer_mut().1.clear();
    map.observer_mut().2.clear();
    map
}

/// The map is consistent, and its observers follow it ([`check_observers`]).
fn check_observed(map: &Observed, _: bool) {
    check(map, |key| key);
    check_observers(map.observer(), map.keys());
}

#[test]
fn observers_stay_in_lockstep_when_values_comparators_or_predicates_panic() {
    type Op = (&'static str, fn(&mut Observed));
    let ops: [Op; 9] = [
        ("insert over a value", |map| drop(map.insert(3, Tracked::new(3)))),
        ("remove", |map| drop(map.remove(5))),
        ("retain", |map| {
            map.retain(|key, _| {
                tick("a predicate");
                key % 3 != 0
            });
        }),
        ("drain dropped half way", |map| {
            let mut drain = map.drain();
            drop(drain.next());
            drop(drain);
        }),
        ("clear", Observed::clear),
        ("truncate", |map| map.truncate(5)),
        ("sort_by", |map| map.sort_by(|_, a, _, b| compare(&a.label, &b.label))),
        ("sort_unstable_by", |map| map.sort_unstable_by(|_, a, _, b| compare(&b.label, &a.label))),
        ("sort_by_key", |map| {
            map.sort_by_key(|_, value| {
                tick("a sort key");
                value.label
            });
        }),
    ];
    for (name, op) in ops {
        let calls = sweep(observed, op, check_observed);
        assert!(reached(name, calls) > 0, "{name} reached no counted call");
    }
    // As without observers, a truncation is done whatever drop panics.
    sweep(observed, Observed::clear, |map, panicked| {
        check_observed(map, panicked);
        assert!(map.is_empty(), "a clear empties the map whatever happens");
    });
    sweep(
        observed,
        |map| map.truncate(5),
        |map, panicked| {
            check_observed(map, panicked);
            assert_eq!(map.len(), 5, "a truncation is done whatever happens");
        },
    );
}

/// A set with every observer.
type ObservedSet = SparseSet<u32, u32, Observers>;

fn observed_set() -> ObservedSet {
    let mut set = ObservedSet::default();
    set.extend(scrambled());
    set.observer_mut().1.clear();
    set
}

/// The set is consistent, and its observers follow it ([`check_observers`]).
fn check_observed_set(set: &ObservedSet, _: bool) {
    set.assert_invariants();
    check_observers(set.observer(), set.as_slice());
}

#[test]
fn a_sets_observers_stay_in_lockstep_when_comparators_predicates_or_iterators_panic() {
    type Op = (&'static str, fn(&mut ObservedSet));
    let ops: [Op; 7] = [
        ("retain", |set| {
            set.retain(|key| {
                tick("a predicate");
                key % 3 != 0
            });
        }),
        ("retain_with", |set| {
            let mut column: Vec<u32> = set.iter().collect();
            let len = set.retain_with(
                &mut column,
                |_, _, key| {
                    tick("a predicate");
                    key % 3 != 0
                },
                |column, a, b| column.swap(a, b),
            );
            column.truncate(len);
            assert_eq!(column, set.as_slice(), "the column followed");
        }),
        ("sort_by", |set| set.sort_by(|a, b| compare(&(a % 5), &(b % 5)))),
        ("sort_unstable_by", |set| set.sort_unstable_by(|a, b| compare(b, a))),
        ("sort_by_key", |set| {
            set.sort_by_key(|key| {
                tick("a sort key");
                key % 5
            });
        }),
        ("sort_unstable_with", |set| {
            let mut column: Vec<u32> = set.iter().collect();
            set.sort_unstable_with(
                &mut column,
                |column, _, a, b| compare(&column[b], &column[a]),
                |column, a, b| column.swap(a, b),
            );
            assert_eq!(column, set.as_slice(), "the column followed");
        }),
        ("extend", |set| set.extend(Ticking(LEN / 2..LEN * 2))),
    ];
    for (name, op) in ops {
        let calls = sweep(observed_set, op, check_observed_set);
        assert!(reached(name, calls) > 0, "{name} reached no counted call");
    }
}
