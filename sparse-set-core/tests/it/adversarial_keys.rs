//! Adversarial `Key` implementations. The crate is safe code, so no implementation can cause
//! undefined behaviour; these tests pin what does happen, as "Implementing `Key` wrongly" in
//! the `Key` docs states it:
//!
//! - a key whose `SLOT_IS_KEY` lies (two keys share a slot) replaces, removes and finds the
//!   other key of its slot; in builds with debug assertions such a lookup panics instead;
//! - a key whose `SLOT_AND_VERSION_ARE_KEY` lies (two keys share a slot and a version) does the
//!   same for slots in the prefix, and never panics;
//! - a key whose `sparse_index` is not deterministic gets wrong answers and breaks the set's
//!   invariant, but no call panics;
//!
//! and in every case, over a random workload of every call of `SparseSet`, `SparseMap` and a
//! `Group`: no call loops forever, every storage keeps one value per key (its columns the keys'
//! length), no value is dropped twice and none leaks.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use sparse_set_core::{Group, Key, SparseMap, SparseSet};
use sparse_soa_test_support::keys::{Drifting, Liar, Stream, Twin};
use sparse_soa_test_support::panics::{Tracked, dropped_twice, live};

/// Steps of each random workload.
const STEPS: usize = if cfg!(miri) { 100 } else { 4_000 };

type Grouped<K> = Group<(SparseMap<K, Tracked>, SparseSet<K>), (SparseSet<K>,)>;

/// What a workload saw: the calls that panicked at least once, whether every storage's
/// invariant checker passed after every call, and whether the group's did at the end.
struct Outcome {
    panicked: BTreeSet<&'static str>,
    consistent: bool,
    aligned: bool,
}

/// Whether `check` passes.
fn passes(check: impl FnOnce()) -> bool {
    catch_unwind(AssertUnwindSafe(check)).is_ok()
}

/// Every call of `SparseMap`, `SparseSet` and a `Group` over them, in a random order with keys
/// `key(0..40)` (so slots are shared and reused), each caught if it panics. After every call
/// every storage has one value per key; no value was dropped twice; at the end, nothing is
/// left alive. The workload itself ends: no call loops forever.
#[allow(clippy::too_many_lines, reason = "one arm per call")]
fn workload<K: Key + Ord + 'static>(key: impl Fn(u32) -> K) -> Outcome {
    let before = live();
    let mut stream = Stream(0x5EED);
    let mut map: SparseMap<K, Tracked> = SparseMap::new();
    let mut set: SparseSet<K> = SparseSet::new();
    let mut group: Grouped<K> = Group::default();
    let mut panicked = BTreeSet::new();
    let mut consistent = true;
    for _ in 0..STEPS {
        let (k, k2) = (key(stream.next(40)), key(stream.next(40)));
        let call = stream.next(30);
        let (name, result): (&'static str, _) = match call {
            0..=3 => (
                "insert",
                catch_unwind(AssertUnwindSafe(|| {
                    drop(map.insert(k, Tracked::new(0)));
                    set.insert(k);
                })),
            ),
            4 => (
                "try_insert",
                catch_unwind(AssertUnwindSafe(|| {
                    drop(map.try_insert(k, Tracked::new(0)));
                    _ = set.try_insert(k);
                })),
            ),
            5 | 6 => (
                "remove",
                catch_unwind(AssertUnwindSafe(|| {
                    drop(map.remove(k));
                    drop(map.remove_with_info(k2));
                    set.remove(k);
                })),
            ),
            7 => (
                "swap_remove_index, pop",
                catch_unwind(AssertUnwindSafe(|| {
                    drop(map.swap_remove_index(1));
                    drop(map.pop());
                    set.swap_remove_index(1);
                    set.pop();
                })),
            ),
            8 | 9 => (
                "lookups",
                catch_unwind(AssertUnwindSafe(|| {
                    _ = map.get(k).map(|value| value.label);
                    _ = (map.contains_key(k), map.get_index_of(k), set.contains(k));
                    if let Some(value) = map.get_mut(k2) {
                        value.label += 1;
                    }
                })),
            ),
            10 => (
                "entry",
                catch_unwind(AssertUnwindSafe(|| {
                    map.entry(k).or_insert_with(|| Tracked::new(0)).label += 1;
                })),
            ),
            11 => (
                "get_disjoint_mut",
                catch_unwind(AssertUnwindSafe(|| {
                    if k != k2 {
                        let [a, b] = map.get_disjoint_mut([k, k2]);
                        if let (Some(a), Some(b)) = (a, b) {
                            std::mem::swap(&mut a.label, &mut b.label);
                        }
                    }
                })),
            ),
            12 => (
                "retain",
                catch_unwind(AssertUnwindSafe(|| {
                    map.retain(|_, value| value.label % 7 != 3);
                    set.retain(|&key| key != k);
                })),
            ),
            13 => (
                "sorts",
                catch_unwind(AssertUnwindSafe(|| {
                    map.sort_unstable_by(|a, _, b, _| a.cmp(b));
                    map.sort_by(|a, _, b, _| b.cmp(a));
                    set.sort_unstable();
                    set.sort_by(|a, b| b.cmp(a));
                })),
            ),
            14 => (
                "swap_indices, sort_as",
                catch_unwind(AssertUnwindSafe(|| {
                    if map.len() >= 2 {
                        map.swap_indices(0, map.len() - 1);
                    }
                    let order = set.as_slice().to_vec();
                    map.sort_as(&order);
                })),
            ),
            15 => (
                "clone, extend",
                catch_unwind(AssertUnwindSafe(|| {
                    let copy = map.clone();
                    assert_eq!(copy.keys().len(), copy.values().len());
                    map.extend([(k, Tracked::new(0)), (k2, Tracked::new(0))]);
                    set.extend([k, k2]);
                })),
            ),
            16 => (
                "truncate, shrink_to_fit",
                catch_unwind(AssertUnwindSafe(|| {
                    map.truncate(30);
                    set.truncate(30);
                    map.shrink_to_fit();
                    set.shrink_to_fit();
                })),
            ),
            17 if stream.next(20) == 0 => (
                "clear, drain",
                catch_unwind(AssertUnwindSafe(|| {
                    map.drain().take(2).for_each(drop);
                    set.clear();
                })),
            ),
            18..=20 => (
                "group inserts",
                catch_unwind(AssertUnwindSafe(|| {
                    drop(group.member_mut::<0>().insert(k, Tracked::new(0)));
                    group.member_mut::<1>().insert(k2, ());
                })),
            ),
            21 | 22 => (
                "group removals",
                catch_unwind(AssertUnwindSafe(|| {
                    drop(group.member_mut::<0>().remove(k));
                    group.member_mut::<1>().remove(k2);
                    group.remove(k2);
                })),
            ),
            23 => (
                "group exclusion",
                catch_unwind(AssertUnwindSafe(|| {
                    group.excluded_mut::<0>().insert(k, ());
                    group.excluded_mut::<0>().remove(k2);
                })),
            ),
            24 => (
                "group lookups, walks and sorts",
                catch_unwind(AssertUnwindSafe(|| {
                    _ = (group.contains(k), group.get(k2).map(|(value, ())| value.label));
                    for (_, (value, ())) in group.iter_mut() {
                        value.label += 1;
                    }
                    group.sort_unstable_by(|a, _, b, _| a.cmp(b));
                    group.sort_by(|a, _, b, _| b.cmp(a));
                })),
            ),
            _ => ("none", Ok(())),
        };
        if result.is_err() {
            panicked.insert(name);
        }
        assert_eq!(map.keys().len(), map.values().len(), "after {name}");
        let (member, tag) = group.members();
        assert_eq!(member.keys().len(), member.values().len(), "after {name}");
        assert!(group.len() <= member.len().min(tag.len()), "after {name}");
        assert_eq!(dropped_twice(), 0, "after {name}");
        let held = map.len() + group.members().0.len();
        assert_eq!(live() - before, held, "a value leaked in {name}");
        consistent &= passes(|| {
            map.assert_invariants();
            set.assert_invariants();
            group.members().0.assert_invariants();
            group.members().1.assert_invariants();
            group.excluded().0.assert_invariants();
        });
    }
    let aligned = passes(|| group.assert_invariants());
    drop((map, group));
    assert_eq!(live(), before, "values leaked");
    assert_eq!(dropped_twice(), 0);
    Outcome { panicked, consistent, aligned }
}

/// The calls that look a key up and read what they find: where a lying `SLOT_IS_KEY` trips the
/// debug assertion.
const LOOKUPS: &[&str] = &[
    "lookups",
    "entry",
    "get_disjoint_mut",
    "swap_indices, sort_as",
    "group inserts",
    "group removals",
    "group exclusion",
    "group lookups, walks and sorts",
];

#[test]
fn a_lying_slot_is_key_finds_replaces_and_removes_the_other_key_of_its_slot() {
    let mut map = SparseMap::<Liar, Tracked>::new();
    assert!(map.insert(Liar(2), Tracked::new(2)).is_none());
    // `Liar(3)` shares slot 1: it replaces `Liar(2)` in place, its value handed back.
    assert_eq!(map.insert(Liar(3), Tracked::new(3)).map(|old| old.label), Some(2));
    assert_eq!(map.keys(), &[Liar(3)]);
    map.assert_invariants();
    // Looking `Liar(2)` up finds `Liar(3)`: with debug assertions, that is a panic.
    let found = catch_unwind(AssertUnwindSafe(|| map.get(Liar(2)).map(|value| value.label)));
    if cfg!(debug_assertions) {
        let message = *found.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("claims `Key::SLOT_IS_KEY`"), "{message}");
    } else {
        assert_eq!(found.unwrap(), Some(3));
    }
    // Removing `Liar(2)` removes `Liar(3)`: the slot alone decides.
    assert_eq!(map.remove(Liar(2)).map(|value| value.label), Some(3));
    assert!(map.is_empty());
    map.assert_invariants();

    let outcome = workload(Liar);
    assert!(outcome.consistent, "every set still holds one key per slot");
    // The group's repairs look keys up: with debug assertions one may stop half-way.
    assert!(outcome.aligned || cfg!(debug_assertions));
    let expected: BTreeSet<&str> =
        if cfg!(debug_assertions) { LOOKUPS.iter().copied().collect() } else { BTreeSet::new() };
    assert!(outcome.panicked.is_subset(&expected), "{:?}", outcome.panicked);
    assert_eq!(!outcome.panicked.is_empty(), cfg!(debug_assertions));
}

#[test]
fn a_lying_slot_and_version_are_key_finds_the_other_key_in_the_prefix_only() {
    // Outside the prefix the whole key is compared: the lookup misses, as it should.
    let mut map = SparseMap::<Twin, u32>::new();
    map.insert(Twin(2), 2);
    assert_eq!(map.insert(Twin(3), 3), Some(2), "the slot's other key is replaced");
    assert_eq!(map.get(Twin(2)), None);
    assert_eq!(map.remove(Twin(2)), None);
    // In the prefix (a full page from slot 0) the slot's version is compared: it matches.
    let mut map: SparseMap<Twin, u32> = (0..40).step_by(2).map(|key| (Twin(key), key)).collect();
    assert_eq!(map.as_sparse_set().sparse_pages(), 1);
    assert_eq!(map.insert(Twin(7), 7), Some(6));
    assert_eq!(map.get(Twin(6)), Some(&7), "found through the other key");
    assert_eq!(map.remove(Twin(6)), Some(7), "and removed through it");
    assert!(!map.contains_key(Twin(7)));
    map.assert_invariants();
    // Two keys found at one position: the second gets `None`, never the same value twice.
    map.insert(Twin(9), 9);
    let [first, second] = map.get_disjoint_mut([Twin(8), Twin(9)]);
    assert!(first.is_some() && second.is_none());

    let outcome = workload(Twin);
    assert!(outcome.consistent && outcome.aligned, "every set still holds one key per slot");
    assert!(outcome.panicked.is_empty(), "{:?}", outcome.panicked);
}

#[test]
fn a_nondeterministic_sparse_index_gives_wrong_answers_and_nothing_worse() {
    // The same key lands in different slots: stored twice, found or not, by chance.
    let mut set = SparseSet::<Drifting<false, false>>::new();
    for _ in 0..3 {
        set.insert(Drifting(10));
    }
    assert!(set.len() > 1, "one key, several slots: {:?}", set.as_slice());

    let outcome = workload(Drifting::<false, false>);
    // Only `SparseSet::sort_by` may panic: it breaks ties by the slots, which then disagree,
    // and the standard library's sort may notice.
    assert!(outcome.panicked.is_subset(&BTreeSet::from(["sorts"])), "{:?}", outcome.panicked);
    assert!(!outcome.consistent, "the invariant checker notices");
}

#[test]
fn a_nondeterministic_sparse_index_with_a_lying_claim_may_panic_and_nothing_worse() {
    for (claims_slot_is_key, outcome) in [
        (true, workload(Drifting::<true, false>)),
        (false, workload(Drifting::<false, true>)),
        (true, workload(Drifting::<true, true>)),
    ] {
        // A lookup may then find a position past the keys: the calls that index with it panic
        // (the entry API, `get_disjoint_mut`, `sort_as`), and so may `SparseSet::sort_by`.
        // Removals check the position before they change anything, and a group checks every
        // member's before it moves a key, so neither panics; with debug assertions, a lying
        // `SLOT_IS_KEY` makes every lookup panic as well.
        let mut allowed =
            BTreeSet::from(["entry", "get_disjoint_mut", "swap_indices, sort_as", "sorts"]);
        if claims_slot_is_key && cfg!(debug_assertions) {
            allowed.extend(LOOKUPS);
        }
        assert!(outcome.panicked.is_subset(&allowed), "{:?}", outcome.panicked);
        assert!(!outcome.panicked.contains("remove"), "{:?}", outcome.panicked);
    }
}

#[test]
fn a_lookup_past_the_keys_reports_nothing_to_an_observer() {
    // A nondeterministic sparse index may find a position past the keys: `get_mut` then
    // answers `None` with an observer too, and the observer hears of no write (change ticks
    // would index past their rows).
    let mut map: SparseMap<Drifting<false, true>, u32, u32, sparse_set_core::observe::Ticks> =
        SparseMap::default();
    let mut stream = Stream(7);
    for _ in 0..2_000 {
        let key = Drifting(stream.next(40));
        match stream.next(3) {
            0 => drop(map.insert(key, 0)),
            1 => drop(map.remove(key)),
            _ => {
                if let Some(value) = map.get_mut(key) {
                    *value += 1;
                }
            }
        }
        map.ticks().assert_invariants(map.len());
    }
}
