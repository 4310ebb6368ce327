//! `Group::reserve`, `Group::try_reserve`, `Group::shrink_to_fit` and `Storage::shrink_to_fit`,
//! tested from the outside against their documented contract: empty groups, derived members
//! keyed by `Entity` (stale handles stay refused after a shrink), tags, a `#[derive(World)]`
//! spawning and despawning around them, `Journal` and `Ticks` observers, three-level families,
//! bounded and growable members mixed, `reserve(0)`, and the invariant checker after every step.

use std::collections::BTreeSet;

use sparse_soa::group::Nested;
use sparse_soa::observe::{Journal, Observer, Ticks};
use sparse_soa::{Entities, Entity, Error, Group, SparseMap, SparseSet, SparseSoa, Storage, World};
use sparse_soa_test_support::mirror::replay_keys;
use sparse_soa_test_support::{allocations_during, failing_after, measure};

// ---------------------------------------------------------------------------------------------
// Storages.

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
struct Pos {
    x: i32,
    y: i32,
}

/// A derived tag keyed by `u32` (its storage is a `SparseSet<u32>`).
#[derive(SparseSoa)]
struct Marked;

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
struct Unit {
    #[sparse_soa(track)]
    hp: u32,
    level: u8,
}

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Body {
    mass: u32,
    label: String,
}

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Speed {
    v: i64,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Asleep;

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Glowing;

fn pos(key: u32) -> Pos {
    let x = i32::try_from(key).expect("a small key");
    Pos { x, y: -x }
}

fn body(entity: Entity) -> Body {
    Body { mass: entity.index(), label: format!("b{}", entity.index()) }
}

/// Room left on the dense side of an observer (`Ticks`' stamps).
fn spare<O: Observer<u32, ()>>(observer: &O) -> usize {
    observer.spare_rows()
}

// ---------------------------------------------------------------------------------------------
// Empty groups and `reserve(0)`.

type Plain = Group<(SparseMap<u32, u64>, SparseSet<u32>), (SparseSet<u32>,)>;

fn plain_caps(group: &Plain) -> [usize; 3] {
    let (values, tags) = group.members();
    [values.capacity(), tags.capacity(), group.excluded().0.capacity()]
}

fn plain_orders(group: &Plain) -> [Vec<u32>; 4] {
    let (values, tags) = group.members();
    [group.keys(), values.keys(), tags.as_slice(), group.excluded().0.as_slice()]
        .map(<[u32]>::to_vec)
}

#[test]
fn an_empty_group_reserves_only_its_members_and_shrinks_back_to_nothing() {
    let mut group: Plain =
        Group::with_excluded((SparseMap::new(), SparseSet::new()), (SparseSet::new(),));
    let ((), calls) = allocations_during(|| group.reserve(0));
    assert_eq!(calls, 0, "reserve(0) of an empty group");
    assert_eq!(plain_caps(&group), [0, 0, 0]);
    group.assert_invariants();

    group.reserve(16);
    let [values, tags, excluded] = plain_caps(&group);
    assert!(values >= 16 && tags >= 16, "{values} {tags}");
    assert_eq!(excluded, 0, "excluded storages are not grown");
    assert!(group.is_empty());
    group.assert_invariants();

    group.shrink_to_fit();
    assert_eq!(plain_caps(&group), [0, 0, 0]);
    assert!(group.is_empty());
    group.assert_invariants();

    // Still a working group.
    group.member_mut::<0>().insert(3, 30);
    group.member_mut::<1>().insert(3, ());
    assert_eq!(group.keys(), &[3]);
    group.assert_invariants();
}

#[test]
fn a_group_emptied_by_removals_shrinks_to_no_dense_capacity_and_no_page() {
    let all = 3_000_u32;
    let values: SparseMap<u32, u64> = (0..all).map(|key| (key, u64::from(key))).collect();
    let tags: SparseSet<u32> = (0..all).rev().collect();
    let frozen: SparseSet<u32> = (0..all).step_by(3).collect();
    let mut group: Plain = Group::with_excluded((values, tags), (frozen,));
    for key in 0..all {
        group.remove(key);
        if key % 500 == 0 {
            group.assert_invariants();
        }
    }
    assert!(plain_caps(&group).iter().all(|&cap| cap > 0));
    group.shrink_to_fit();
    group.assert_invariants();
    assert_eq!(plain_caps(&group), [0, 0, 0]);
    let (values, tags) = group.members();
    assert_eq!(
        [
            values.as_sparse_set().sparse_pages(),
            tags.sparse_pages(),
            group.excluded().0.sparse_pages()
        ],
        [0, 0, 0],
        "no key uses a page"
    );
}

#[test]
fn reserve_zero_changes_nothing_and_allocates_nothing() {
    let values: SparseMap<u32, u64> = (0..50).map(|key| (key, 1)).collect();
    let tags: SparseSet<u32> = (10..70).collect();
    let frozen: SparseSet<u32> = [12, 13].into_iter().collect();
    let mut group: Plain = Group::with_excluded((values, tags), (frozen,));
    group.shrink_to_fit(); // length == capacity: any growth would show
    let caps = plain_caps(&group);
    let orders = plain_orders(&group);
    let ((), calls) = allocations_during(|| group.reserve(0));
    assert_eq!(calls, 0);
    assert_eq!(group.try_reserve(0), Ok(()));
    assert_eq!(plain_caps(&group), caps);
    assert_eq!(plain_orders(&group), orders);
    group.assert_invariants();
}

// ---------------------------------------------------------------------------------------------
// Every kind of member: derived, map, set, derived tag.

type Mixed =
    Group<(PosSoa, SparseMap<u32, u16>, SparseSet<u32>, MarkedSoa), (SparseSet<u32>, PosSoa)>;

fn mixed_orders(group: &Mixed) -> Vec<Vec<u32>> {
    let (p, m, t, k) = group.members();
    let (x0, x1) = group.excluded();
    [group.keys(), p.keys(), m.keys(), t.as_slice(), k.keys(), x0.as_slice(), x1.keys()]
        .map(<[u32]>::to_vec)
        .to_vec()
}

fn make_mixed(all: u32) -> Mixed {
    let p: PosSoa = (0..all).map(|key| (key, pos(key))).collect();
    let m: SparseMap<u32, u16> =
        (0..all).rev().filter(|k| k % 2 == 0).map(|k| (k, k as u16)).collect();
    let t: SparseSet<u32> = (0..all).filter(|k| k % 3 != 1).collect();
    let k: MarkedSoa = (0..all).rev().collect();
    let x0: SparseSet<u32> = (0..all).step_by(5).collect();
    let x1: PosSoa = (0..all).step_by(7).map(|key| (key, pos(key))).collect();
    Group::with_excluded((p, m, t, k), (x0, x1))
}

#[test]
fn reserve_grows_every_kind_of_member_and_no_excluded_storage() {
    let mut group = make_mixed(200);
    group.assert_invariants();
    let before = mixed_orders(&group);
    let excluded_caps = (group.excluded().0.capacity(), group.excluded().1.capacity());
    let rows = 300;
    group.reserve(rows);
    group.assert_invariants();
    assert_eq!(mixed_orders(&group), before, "reserve moves no key");
    let (p, m, t, k) = group.members();
    let caps = [p.capacity(), m.capacity(), t.capacity(), k.capacity()];
    let lens = [p.len(), m.len(), t.len(), k.len()];
    for (cap, len) in caps.iter().zip(lens) {
        assert!(*cap >= len + rows, "{cap} for {len} + {rows}: {caps:?}");
    }
    assert_eq!((group.excluded().0.capacity(), group.excluded().1.capacity()), excluded_caps);

    // `rows` new rows joining grow no column.
    let len = group.len();
    for key in 10_000..10_000 + rows as u32 {
        group.member_mut::<0>().insert(key, pos(key));
        group.member_mut::<1>().insert(key, 1);
        group.member_mut::<2>().insert(key, ());
        group.member_mut::<3>().insert(key, ());
    }
    group.assert_invariants();
    assert_eq!(group.len(), len + rows);
    let (p, m, t, k) = group.members();
    assert_eq!([p.capacity(), m.capacity(), t.capacity(), k.capacity()], caps);
}

#[test]
fn shrink_keeps_every_order_every_value_and_the_prefix() {
    let mut group = make_mixed(2_000);
    for key in 40..2_000 {
        group.remove(key);
    }
    // A non-trivial prefix order.
    group.sort_by(|_, (a, ..), _, (b, ..)| b.x.cmp(a.x));
    group.assert_invariants();
    let before = mixed_orders(&group);
    let rows: Vec<(u32, i32, u16)> =
        group.iter().map(|(key, (p, &m, (), ()))| (key, *p.x, m)).collect();
    let (p, m, t, k) = group.members();
    let grown = [
        p.capacity(),
        m.capacity(),
        t.capacity(),
        k.capacity(),
        group.excluded().0.capacity(),
        group.excluded().1.capacity(),
    ];
    group.shrink_to_fit();
    group.assert_invariants();
    assert_eq!(mixed_orders(&group), before);
    let after: Vec<(u32, i32, u16)> =
        group.iter().map(|(key, (p, &m, (), ()))| (key, *p.x, m)).collect();
    assert_eq!(after, rows);
    let (p, m, t, k) = group.members();
    let (x0, x1) = group.excluded();
    let shrunk =
        [p.capacity(), m.capacity(), t.capacity(), k.capacity(), x0.capacity(), x1.capacity()];
    let lens = [p.len(), m.len(), t.len(), k.len(), x0.len(), x1.len()];
    for ((shrunk, grown), len) in shrunk.iter().zip(grown).zip(lens) {
        assert!(*shrunk < grown && *shrunk >= len, "{shrunk} from {grown} for {len}");
    }
    let pages = [
        p.as_sparse_set().sparse_pages(),
        m.as_sparse_set().sparse_pages(),
        t.sparse_pages(),
        k.as_sparse_set().sparse_pages(),
        x0.sparse_pages(),
        x1.as_sparse_set().sparse_pages(),
    ];
    assert!(pages.iter().all(|&pages| pages <= 1), "keys 0..40 use one page: {pages:?}");
    // Values by key, too.
    for key in 0..40 {
        assert_eq!(group.members().0.get(key).map(|p| *p.x), Some(i32::try_from(key).unwrap()));
    }
}

#[test]
fn reserve_then_shrink_then_reserve_again() {
    let mut group = make_mixed(100);
    let before = mixed_orders(&group);
    let members_caps = |group: &Mixed| {
        let (p, m, t, k) = group.members();
        [p.capacity(), m.capacity(), t.capacity(), k.capacity()]
    };
    let members_lens = |group: &Mixed| {
        let (p, m, t, k) = group.members();
        [p.len(), m.len(), t.len(), k.len()]
    };
    let lens = members_lens(&group);

    group.reserve(500);
    group.assert_invariants();
    let reserved = members_caps(&group);
    assert!(reserved.iter().zip(lens).all(|(&cap, len)| cap >= len + 500), "{reserved:?}");

    group.shrink_to_fit();
    group.assert_invariants();
    let shrunk = members_caps(&group);
    assert!(
        shrunk.iter().zip(lens).zip(reserved).all(|((&cap, len), r)| cap >= len && cap < r),
        "{shrunk:?} from {reserved:?} for {lens:?}"
    );

    group.reserve(50);
    group.assert_invariants();
    let again = members_caps(&group);
    assert!(again.iter().zip(lens).all(|(&cap, len)| cap >= len + 50), "{again:?}");
    assert_eq!(mixed_orders(&group), before);
    assert_eq!(members_lens(&group), lens);
}

// ---------------------------------------------------------------------------------------------
// Observers.

#[test]
fn a_ticks_observer_gets_room_on_reserve_and_keeps_it_on_shrink() {
    type Watched = Group<(SparseMap<u32, u32>, SparseSet<u32>), (), (), Ticks>;
    let a: SparseMap<u32, u32> = (0..30).map(|key| (key, key)).collect();
    let b: SparseSet<u32> = (0..30).filter(|k| k % 2 == 0).collect();
    let mut group: Watched = Group::new((a, b)).observed_by(Ticks::new());
    assert_eq!(group.observer().len(), 15);
    group.reserve(400);
    group.assert_invariants();
    assert!(spare(group.observer()) >= 400, "{}", spare(group.observer()));

    // Rows join: the stamps follow, the observer found its room.
    let seen = group.observer_mut().advance();
    let caps = (group.members().0.capacity(), group.members().1.capacity());
    let spare_before = spare(group.observer());
    for key in 100..500 {
        group.member_mut::<0>().insert(key, key);
        group.member_mut::<1>().insert(key, ());
    }
    group.assert_invariants();
    assert_eq!(group.len(), 415);
    assert_eq!(group.observer().len(), 415);
    assert_eq!((group.members().0.capacity(), group.members().1.capacity()), caps);
    assert_eq!(spare(group.observer()), spare_before - 400, "no stamp reallocation");

    // Shrink: the members give memory back, the group's observer keeps its own.
    for key in 100..500 {
        group.remove(key);
    }
    let added: BTreeSet<u32> = group.observer().rows_added_since(group.keys(), seen).collect();
    let spare_before = spare(group.observer());
    group.shrink_to_fit();
    group.assert_invariants();
    assert_eq!(spare(group.observer()), spare_before, "the group's observer keeps its memory");
    assert_eq!(group.observer().len(), group.len());
    assert!(group.members().0.capacity() < caps.0);
    let after: BTreeSet<u32> = group.observer().rows_added_since(group.keys(), seen).collect();
    assert_eq!(after, added);
    assert!(added.is_empty(), "the rows added after `seen` all left");
}

#[test]
fn changed_since_is_the_same_before_and_after_shrinking_and_reserving() {
    type Tracked = Group<(SparseMap<u32, u32, u32, Ticks>, UnitSoa), (SparseSet<u32>,), (), Ticks>;
    let all = 1_500_u32;
    let a: SparseMap<u32, u32, u32, Ticks> = (0..all).map(|key| (key, key)).collect();
    let u: UnitSoa = (0..all).rev().map(|key| (key, Unit { hp: key, level: 1 })).collect();
    let x: SparseSet<u32> = (0..all).step_by(4).collect();
    let mut group: Tracked = Group::with_excluded((a, u), (x,)).observed_by(Ticks::new());
    let seen_a = group.member_mut::<0>().ticks_mut().advance();
    let seen_u = group.member_mut::<1>().ticks_mut().advance();
    let seen_g = group.observer_mut().advance();
    for key in (0..all).filter(|k| k % 9 == 0) {
        *group.member_mut::<0>().get_mut(key).unwrap() += 1;
        *group.member_mut::<1>().get_mut(key).unwrap().hp += 1;
    }
    for key in 40..all {
        if key % 9 != 0 {
            group.remove(key);
        }
    }
    // Newly joining rows: added to the group's prefix after `seen_g`.
    group.excluded_mut::<0>().remove(0);
    group.excluded_mut::<0>().remove(4);
    group.assert_invariants();

    let snapshot = |group: &Tracked| {
        let (a, u) = group.members();
        let sorted = |keys: &mut dyn Iterator<Item = u32>| keys.collect::<BTreeSet<u32>>();
        [
            sorted(&mut a.changed_since(seen_a)),
            sorted(&mut a.added_since(seen_a)),
            sorted(&mut u.changed_since(seen_u)),
            sorted(&mut u.hp_changed_since(seen_u)),
            sorted(&mut group.observer().rows_added_since(group.keys(), seen_g)),
            sorted(&mut group.observer().rows_changed_since(group.keys(), seen_g)),
        ]
    };
    let before = snapshot(&group);
    let nines: BTreeSet<u32> = (0..all).filter(|k| k % 9 == 0).collect();
    assert_eq!(before[0], nines);
    assert_eq!(before[3], nines);
    assert_eq!(before[4], BTreeSet::from([0, 4]));

    group.shrink_to_fit();
    group.assert_invariants();
    assert_eq!(snapshot(&group), before, "after shrink_to_fit");
    group.reserve(1_000);
    group.assert_invariants();
    assert_eq!(snapshot(&group), before, "after reserve");
    group.shrink_to_fit();
    assert_eq!(snapshot(&group), before, "after the second shrink_to_fit");

    // A row added after the memory changes is reported as added, alone.
    let seen_u = group.member_mut::<1>().ticks_mut().advance();
    group.member_mut::<0>().insert(5_000, 1);
    group.member_mut::<1>().insert(5_000, Unit { hp: 1, level: 1 });
    assert_eq!(group.members().1.added_since(seen_u).collect::<Vec<_>>(), [5_000]);
    group.assert_invariants();
}

#[test]
fn a_journal_mirror_still_equals_the_keys_after_reserve_and_shrink() {
    type Journaled = Group<
        (SparseMap<u32, u32, u32, Journal<u32>>, SparseSet<u32>),
        (SparseSet<u32>,),
        (),
        Journal<u32>,
    >;
    let a = SparseMap::<u32, u32, u32, Journal<u32>>::default();
    let mut group: Journaled = Group::with_excluded((a, SparseSet::new()), (SparseSet::new(),))
        .observed_by(Journal::new());
    let mut prefix_mirror: Vec<u32> = Vec::new();
    let mut member_mirror: Vec<u32> = Vec::new();
    let mut keys = sparse_soa_test_support::keys::Stream(99);
    for step in 0..3_000_u32 {
        let key = keys.next(700);
        match keys.next(10) {
            0..=2 => drop(group.member_mut::<0>().insert(key, step)),
            3..=4 => drop(group.member_mut::<1>().insert(key, ())),
            5 => drop(group.excluded_mut::<0>().insert(key, ())),
            6 => drop(group.excluded_mut::<0>().remove(key)),
            7 => drop(group.remove(key)),
            8 => {
                let recorded = (
                    group.observer().changes().map(Iterator::count).ok(),
                    group.members().0.observer().changes().map(Iterator::count).ok(),
                );
                if step % 2 == 0 {
                    group.reserve(usize::from(step as u16 % 300));
                } else {
                    group.shrink_to_fit();
                }
                let now = (
                    group.observer().changes().map(Iterator::count).ok(),
                    group.members().0.observer().changes().map(Iterator::count).ok(),
                );
                assert_eq!(now, recorded, "step {step}: memory alone records no change");
            }
            _ => {
                prefix_mirror = replay_keys(std::mem::take(&mut prefix_mirror), group.observer())
                    .unwrap_or_else(|| group.keys().to_vec());
                group.observer_mut().clear();
                member_mirror =
                    replay_keys(std::mem::take(&mut member_mirror), group.members().0.observer())
                        .unwrap_or_else(|| group.members().0.keys().to_vec());
                group.member_mut::<0>().observer_mut().clear();
            }
        }
        group.assert_invariants();
        if step % 50 == 0 || step > 2_950 {
            let replayed = replay_keys(prefix_mirror.clone(), group.observer());
            assert_eq!(replayed.as_deref(), Some(group.keys()), "step {step}: prefix");
            let replayed = replay_keys(member_mirror.clone(), group.members().0.observer());
            assert_eq!(replayed.as_deref(), Some(group.members().0.keys()), "step {step}: member");
        }
    }
    group.shrink_to_fit();
    let replayed = replay_keys(prefix_mirror, group.observer());
    assert_eq!(replayed.as_deref(), Some(group.keys()));
}

// ---------------------------------------------------------------------------------------------
// Three levels.

type Level2 = Nested<(SparseMap<u32, u8>,), (SparseSet<u32>,)>;
type Level1 = Nested<(SparseSet<u32>,), (PosSoa,), Level2>;
type Deep = Group<(SparseMap<u32, i32>, PosSoa), (SparseSet<u32>,), Level1>;

fn make_deep(all: u32) -> Deep {
    let a: SparseMap<u32, i32> = (0..all).map(|key| (key, i32::try_from(key).unwrap())).collect();
    let b: PosSoa = (0..all).rev().map(|key| (key, pos(key))).collect();
    let x0: SparseSet<u32> = (0..all).step_by(11).collect();
    let c: SparseSet<u32> = (0..all).filter(|k| k % 2 == 0).collect();
    let x1: PosSoa = (0..all).step_by(13).map(|key| (key, pos(key))).collect();
    let d: SparseMap<u32, u8> = (0..all).filter(|k| k % 4 == 0).map(|k| (k, k as u8)).collect();
    let x2: SparseSet<u32> = (0..all).step_by(3).collect();
    Group::with_excluded((a, b), (x0,))
        .nest(Nested::with_excluded((c,), (x1,)).nest(Nested::with_excluded((d,), (x2,))))
}

/// Every storage's keys, and every level's prefix.
fn deep_orders(family: &Deep) -> Vec<Vec<u32>> {
    let (a, b) = family.members();
    let level1 = family.nested();
    let level2 = level1.nested();
    vec![
        family.keys().to_vec(),
        level1.keys().to_vec(),
        level2.keys().to_vec(),
        a.keys().to_vec(),
        b.keys().to_vec(),
        family.excluded().0.as_slice().to_vec(),
        level1.members().inner().0.as_slice().to_vec(),
        level1.excluded().inner().0.keys().to_vec(),
        level2.members().inner().0.keys().to_vec(),
        level2.excluded().inner().0.as_slice().to_vec(),
    ]
}

/// (capacity, len, sparse pages) of a, b, x0, c, x1, d, x2.
fn deep_storages(family: &Deep) -> [(usize, usize, usize); 7] {
    let (a, b) = family.members();
    let (x0,) = family.excluded();
    let level1 = family.nested();
    let level2 = level1.nested();
    let (c,) = level1.members().inner();
    let (x1,) = level1.excluded().inner();
    let (d,) = level2.members().inner();
    let (x2,) = level2.excluded().inner();
    [
        (a.capacity(), a.len(), a.as_sparse_set().sparse_pages()),
        (b.capacity(), b.len(), b.as_sparse_set().sparse_pages()),
        (x0.capacity(), x0.len(), x0.sparse_pages()),
        (c.capacity(), c.len(), c.sparse_pages()),
        (x1.capacity(), x1.len(), x1.as_sparse_set().sparse_pages()),
        (d.capacity(), d.len(), d.as_sparse_set().sparse_pages()),
        (x2.capacity(), x2.len(), x2.sparse_pages()),
    ]
}

const DEEP_MEMBERS: [usize; 4] = [0, 1, 3, 5];
const DEEP_EXCLUDED: [usize; 3] = [2, 4, 6];

#[test]
fn reserve_reaches_every_member_of_a_three_level_family() {
    let mut family = make_deep(300);
    family.assert_invariants();
    assert!(!family.nested().nested().is_empty());
    let before = deep_orders(&family);
    let storages = deep_storages(&family);
    let rows = 700;
    family.reserve(rows);
    family.assert_invariants();
    assert_eq!(deep_orders(&family), before);
    let reserved = deep_storages(&family);
    for i in DEEP_MEMBERS {
        let (cap, len, _) = reserved[i];
        assert!(cap >= len + rows, "storage {i}: {cap} for {len} + {rows}");
    }
    for i in DEEP_EXCLUDED {
        assert_eq!(reserved[i].0, storages[i].0, "excluded storage {i} is not grown");
    }

    // Rows that reach the innermost level grow no member's column.
    let len2 = family.nested().nested().len();
    for key in 100_000..100_000 + rows as u32 {
        family.member_mut::<0>().insert(key, 0);
        family.member_mut::<1>().insert(key, pos(key));
        family.nested_member_mut::<0>().insert(key, ());
        family.level_member_mut::<2, 0>().insert(key, 7);
    }
    family.assert_invariants();
    assert_eq!(family.nested().nested().len(), len2 + rows);
    let after = deep_storages(&family);
    for i in DEEP_MEMBERS {
        assert_eq!(after[i].0, reserved[i].0, "storage {i} grew");
    }
}

#[test]
fn shrink_reaches_every_storage_of_a_three_level_family() {
    let all = 6_000;
    let mut family = make_deep(all);
    for key in 60..all {
        family.remove(key);
    }
    family.assert_invariants();
    let before = deep_orders(&family);
    let grown = deep_storages(&family);
    family.shrink_to_fit();
    family.assert_invariants();
    assert_eq!(deep_orders(&family), before, "no key moves at any level");
    let shrunk = deep_storages(&family);
    for (i, ((cap, len, pages), (grown_cap, grown_len, grown_pages))) in
        shrunk.into_iter().zip(grown).enumerate()
    {
        assert_eq!(len, grown_len);
        assert!(cap >= len && cap < grown_cap, "storage {i}: {cap} from {grown_cap} for {len}");
        assert!(pages <= 1 && pages < grown_pages, "storage {i}: {pages} pages from {grown_pages}");
    }
    // The innermost level still works.
    family.level_member_mut::<2, 0>().remove(8);
    family.level_excluded_mut::<2, 0>().remove(3); // 3 is not even: not in level 1
    family.assert_invariants();
}

#[test]
fn a_failing_member_at_the_innermost_level_is_reported_and_moves_no_key() {
    // The group's own members are narrow (capped to 255), the innermost member is wide: its
    // reservation overflows after the outer ones grew.
    type Narrow = Group<
        (SparseMap<u32, u8, u8>,),
        (),
        Nested<(SparseSet<u32, u8>,), (), Nested<(SparseMap<u32, u8, usize>,)>>,
    >;
    let a: SparseMap<u32, u8, u8> = (0..10).map(|k| (k, 0)).collect();
    let b: SparseSet<u32, u8> = (0..10).rev().collect();
    let c: SparseMap<u32, u8, usize> = (5..15).map(|k| (k, 0)).collect();
    let mut family: Narrow = Group::new((a,)).nest(Nested::new((b,)).nest(Nested::new((c,))));
    let orders = |f: &Narrow| {
        (f.keys().to_vec(), f.nested().keys().to_vec(), f.nested().nested().keys().to_vec())
    };
    let before = orders(&family);
    assert_eq!(family.try_reserve(usize::MAX), Err(Error::CapacityOverflow));
    assert_eq!(orders(&family), before);
    family.assert_invariants();
    // A reservation that fits everywhere.
    assert_eq!(family.try_reserve(100), Ok(()));
    assert!(family.nested().nested().members().inner().0.capacity() >= 110);
    assert_eq!(family.members().0.capacity(), 255, "capped to the dense width");
    assert_eq!(orders(&family), before);
}

#[test]
fn a_reservation_refused_by_the_allocator_leaves_the_family_aligned() {
    // Every allocation after the first `n` fails, for each `n` until the reservation succeeds.
    let mut refused = 0;
    for n in 0.. {
        let mut family = make_deep(200).observed_by(Ticks::new());
        let before = {
            let (group, observer) = family.into_unobserved();
            let orders = deep_orders(&group);
            family = group.observed_by(observer);
            orders
        };
        let result = failing_after(n, || family.try_reserve(1_000));
        family.assert_invariants();
        let (group, observer) = family.into_unobserved();
        assert_eq!(deep_orders(&group), before, "n = {n}");
        assert_eq!(observer.len(), group.len(), "n = {n}");
        match result {
            Ok(()) => {
                let storages = deep_storages(&group);
                for i in DEEP_MEMBERS {
                    assert!(storages[i].0 >= storages[i].1 + 1_000, "storage {i}");
                }
                assert!(spare(&observer) >= 1_000);
                break;
            }
            Err(error) => {
                assert_eq!(error, Error::AllocFailed, "n = {n}");
                refused += 1;
            }
        }
    }
    assert!(refused >= 5, "every member and the observer allocate: {refused}");
}

// ---------------------------------------------------------------------------------------------
// Bounded members.

#[test]
fn a_mixed_group_reserves_and_shrinks_its_growable_members_only() {
    type Half = Group<(SparseMap<u32, u32>, PosSoa), (SparseSet<u32>,), (), Ticks>;
    let bounded = PosSoa::bounded(8, 64);
    let mut group: Half =
        Group::with_excluded((SparseMap::new(), bounded), (SparseSet::bounded(4, 64),))
            .observed_by(Ticks::new());
    for key in [3, 9, 40] {
        group.member_mut::<0>().insert(key, key);
        group.member_mut::<1>().insert(key, pos(key));
    }
    group.excluded_mut::<0>().insert(9, ());
    assert_eq!(group.keys().len(), 2);
    let bounded_bytes =
        |group: &Half| (group.members().1.allocated_bytes(), group.excluded().0.allocated_bytes());
    let bytes = bounded_bytes(&group);
    let observer_room = spare(group.observer());

    group.reserve(1_000);
    group.assert_invariants();
    assert!(group.members().0.capacity() >= 1_003);
    assert_eq!(group.members().1.capacity(), 8);
    assert_eq!(bounded_bytes(&group), bytes);

    group.shrink_to_fit();
    group.assert_invariants();
    assert_eq!(group.members().0.capacity(), 3);
    assert_eq!(group.members().1.capacity(), 8);
    assert_eq!(group.excluded().0.capacity(), 4);
    assert_eq!(bounded_bytes(&group), bytes);
    assert_eq!(spare(group.observer()), observer_room);
    let mut keys: Vec<u32> = group.keys().to_vec();
    keys.sort_unstable();
    assert_eq!(keys, [3, 40]);

    // The bounded member still takes rows up to its capacity, the prefix up to the bound.
    for key in 50..55 {
        group.member_mut::<1>().insert(key, pos(key));
        group.member_mut::<0>().insert(key, key);
    }
    assert_eq!(group.len(), 7);
    assert_eq!(group.observer().len(), 7);
    group.assert_invariants();
}

#[test]
fn a_bounded_family_reserves_and_shrinks_without_allocating() {
    type Fixed = Group<
        (SparseMap<u32, u32>, SparseSet<u32>, PosSoa),
        (SparseSet<u32>,),
        Nested<(SparseMap<u32, u8>,), (SparseSet<u32>,)>,
        Ticks,
    >;
    let mut family: Fixed = Group::with_excluded(
        (SparseMap::bounded(16, 128), SparseSet::bounded(16, 128), PosSoa::bounded(16, 128)),
        (SparseSet::bounded(16, 128),),
    )
    .nest(Nested::with_excluded((SparseMap::bounded(16, 128),), (SparseSet::bounded(16, 128),)))
    .observed_by(Ticks::new());
    for key in [1, 5, 7, 100] {
        family.member_mut::<0>().insert(key, key);
        family.member_mut::<1>().insert(key, ());
        family.member_mut::<2>().insert(key, pos(key));
        family.nested_member_mut::<0>().insert(key, 1);
    }
    family.excluded_mut::<0>().insert(7, ());
    family.nested_excluded_mut::<0>().insert(5, ());
    let state = |f: &Fixed| {
        let (a, b, c) = f.members();
        let (d,) = f.nested().members().inner();
        (
            f.keys().to_vec(),
            f.nested().keys().to_vec(),
            [a.capacity(), b.capacity(), c.capacity(), d.capacity()],
            [a.allocated_bytes(), b.allocated_bytes(), c.allocated_bytes(), d.allocated_bytes()],
        )
    };
    let before = state(&family);
    assert_eq!(before.2, [16; 4]);

    let ((), calls) = allocations_during(|| family.reserve(1_000));
    assert_eq!(calls, 0, "reserve");
    let (result, calls) = allocations_during(|| family.try_reserve(usize::MAX));
    assert_eq!((result, calls), (Ok(()), 0), "try_reserve(usize::MAX)");
    let ((), calls) = allocations_during(|| family.shrink_to_fit());
    assert_eq!(calls, 0, "shrink_to_fit");
    family.assert_invariants();
    assert_eq!(state(&family), before);

    // Up to the bound, rows join without allocating.
    let ((), calls) = allocations_during(|| {
        for key in 20..30 {
            family.member_mut::<0>().insert(key, key);
            family.member_mut::<1>().insert(key, ());
            family.member_mut::<2>().insert(key, pos(key));
        }
    });
    assert_eq!(calls, 0);
    assert_eq!(family.len(), 3 + 10);
    family.assert_invariants();
}

// ---------------------------------------------------------------------------------------------
// Narrow dense widths.

#[test]
fn a_narrow_groups_reservation_is_capped_as_its_members_own() {
    let a: SparseMap<u32, u8, u8> = (0..5).map(|k| (k, 0)).collect();
    let b: SparseSet<u32, u8> = (0..5).collect();
    let mut alone = a.clone();
    alone.reserve(10_000);
    let mut group = Group::new((a, b));
    group.reserve(10_000);
    assert_eq!(group.members().0.capacity(), alone.capacity());
    assert_eq!((group.members().0.capacity(), group.members().1.capacity()), (255, 255));
    group.assert_invariants();
}

#[test]
fn a_narrow_groups_observer_is_reserved_as_its_members_are() {
    // Each member's own `reserve` caps what it asks of its observer to its dense width; the
    // group's prefix can never hold more rows than its narrowest member.
    let member = SparseMap::<u32, u8, u8, Ticks>::default();
    let mut alone = member.clone();
    let ((), usage) = measure(|| alone.reserve(1_000_000));
    assert!(usage.allocated < 10_000, "a member alone: {} bytes", usage.allocated);
    assert_eq!(alone.try_reserve(usize::MAX), Ok(()), "a member alone");
    let mut group = Group::new((member,)).observed_by(Ticks::new());
    let ((), usage) = measure(|| group.reserve(1_000_000));
    group.assert_invariants();
    assert!(
        usage.allocated < 10_000,
        "{} bytes ({} spare stamps) for a prefix of at most 255 rows",
        usage.allocated,
        spare(group.observer())
    );
    assert_eq!(group.try_reserve(usize::MAX), Ok(()), "as each member's own reserve does");
}

// ---------------------------------------------------------------------------------------------
// Entity keys, and a world around the group.

#[derive(Default, World)]
#[allow(clippy::type_complexity, reason = "the derive reads the parts from the field's type")]
struct Physics {
    entities: Entities,
    /// Bodies, speeds and glows aligned, sleepers left out, and a nested level of `u8`s.
    bodies: Group<(BodySoa, SpeedSoa, GlowingSoa), (AsleepSoa,), Nested<(SparseMap<Entity, u8>,)>>,
}

#[test]
fn stale_handles_are_still_refused_after_shrink_to_fit() {
    let mut world = Physics::default();
    let count = 1_500;
    let rows = |world: &mut Physics| -> Vec<Entity> {
        (0..count)
            .map(|i| {
                let e = world.spawn((Body { mass: i, label: String::new() }, Speed { v: 1 }));
                world.bodies.member_mut::<2>().insert(e, ());
                // By slot: every generation of a slot is in the same storages.
                if e.index() % 2 == 0 {
                    world.bodies.nested_member_mut::<0>().insert(e, 1);
                }
                if e.index() % 5 == 0 {
                    world.bodies.excluded_mut::<0>().insert(e, ());
                }
                e
            })
            .collect()
    };
    let old = rows(&mut world);
    for &e in &old {
        assert!(world.despawn(e));
    }
    world.bodies.assert_invariants();
    let newer = rows(&mut world);
    // The allocator reuses every slot, with a newer generation.
    let by_slot = |entities: &[Entity]| -> std::collections::BTreeMap<u32, Entity> {
        entities.iter().map(|e| (e.index(), *e)).collect()
    };
    let (old_slots, newer_slots) = (by_slot(&old), by_slot(&newer));
    assert_eq!(old_slots.keys().collect::<Vec<_>>(), newer_slots.keys().collect::<Vec<_>>());
    assert!(old_slots.iter().all(|(slot, o)| newer_slots[slot].generation() > o.generation()));
    // Keep a few rows, far apart: most pages of every storage empty out.
    let kept: Vec<Entity> = newer.iter().copied().step_by(700).collect();
    for &e in &newer {
        if !kept.contains(&e) {
            assert!(world.despawn(e));
        }
    }
    world.bodies.assert_invariants();
    let before = world.bodies.keys().to_vec();
    let caps = {
        let (b, s, g) = world.bodies.members();
        [b.capacity(), s.capacity(), g.capacity(), world.bodies.excluded().0.capacity()]
    };
    world.bodies.shrink_to_fit();
    world.bodies.assert_invariants();
    world.entities.assert_invariants();
    assert_eq!(world.bodies.keys(), before.as_slice());
    {
        let (b, s, g) = world.bodies.members();
        let shrunk =
            [b.capacity(), s.capacity(), g.capacity(), world.bodies.excluded().0.capacity()];
        assert!(shrunk.iter().zip(caps).all(|(&s, c)| s < c), "{shrunk:?} from {caps:?}");
    }

    // Every handle of the first generation is older than what its slot held: refused
    // everywhere, whether the slot is held now or was emptied before the shrink.
    let stale = |result: Result<(), Error>, what: &str, e: Entity| match result {
        Err(Error::StaleKey { .. }) => {}
        other => panic!("{what}: {e:?} gave {other:?}"),
    };
    for &e in &old {
        stale(world.bodies.member_mut::<0>().try_insert(e, body(e)).map(drop), "body", e);
        stale(world.bodies.member_mut::<1>().try_insert(e, Speed { v: 0 }).map(drop), "speed", e);
        stale(world.bodies.member_mut::<2>().try_insert(e, ()).map(drop), "glowing", e);
        if e.index() % 5 == 0 {
            stale(world.bodies.excluded_mut::<0>().try_insert(e, ()).map(drop), "asleep", e);
        }
        if e.index() % 2 == 0 {
            stale(world.bodies.nested_member_mut::<0>().try_insert(e, 0).map(drop), "nested", e);
        }
    }
    world.bodies.assert_invariants();
    assert_eq!(world.bodies.keys(), before.as_slice());
    let (b, s, g) = world.bodies.members();
    assert_eq!((b.len(), s.len(), g.len()), (kept.len(), kept.len(), kept.len()));

    // The world goes on: the freed slots are reused by a third generation, which joins.
    let third = rows(&mut world);
    world.bodies.assert_invariants();
    world.entities.assert_invariants();
    let aligned: BTreeSet<Entity> = world.bodies.keys().iter().copied().collect();
    let awake: BTreeSet<Entity> =
        kept.iter().chain(&third).copied().filter(|e| e.index() % 5 != 0).collect();
    assert_eq!(aligned, awake);
    let level1: BTreeSet<Entity> = world.bodies.nested().keys().iter().copied().collect();
    assert_eq!(level1, awake.iter().copied().filter(|e| e.index() % 2 == 0).collect());

    // A third generation spawned as a batch leaves again, and the family shrinks again: the
    // first two generations are still refused where the slots are empty.
    let batch: Vec<Entity> = world
        .spawn_batch((0..count).map(|i| (Body { mass: i, label: String::new() }, Speed { v: 4 })))
        .collect();
    world.bodies.assert_invariants();
    for &e in third.iter().chain(&batch) {
        assert!(world.despawn(e));
    }
    world.bodies.shrink_to_fit();
    world.bodies.assert_invariants();
    for &e in old.iter().chain(newer.iter().filter(|e| !kept.contains(e))) {
        stale(world.bodies.member_mut::<0>().try_insert(e, body(e)).map(drop), "body", e);
        stale(world.bodies.member_mut::<1>().try_insert(e, Speed { v: 0 }).map(drop), "speed", e);
    }
    let (b, s, _) = world.bodies.members();
    assert_eq!((b.len(), s.len()), (kept.len(), kept.len()));
}

#[test]
fn a_worlds_group_reserved_ahead_spawns_without_growing_a_column() {
    #[derive(Default, World)]
    struct Game {
        entities: Entities,
        moving: Group<(BodySoa, SpeedSoa), (), (), Ticks>,
        names: SparseMap<Entity, &'static str>,
    }
    let mut game = Game::default();
    let first: Vec<Entity> = (0..10)
        .map(|i| game.spawn((Body { mass: i, label: String::new() }, Speed { v: 1 })))
        .collect();
    let rows = 250;
    game.moving.reserve(rows);
    game.moving.assert_invariants();
    let caps = |game: &Game| {
        let (b, s) = game.moving.members();
        [b.capacity(), s.capacity()]
    };
    let reserved = caps(&game);
    assert!(reserved.iter().all(|&cap| cap >= 10 + rows), "{reserved:?}");
    assert!(spare(game.moving.observer()) >= rows);

    let spawned: Vec<Entity> = (0..rows as u32)
        .map(|i| game.spawn((Body { mass: i, label: String::new() }, Speed { v: 2 }, "x")))
        .collect();
    game.moving.assert_invariants();
    assert_eq!(caps(&game), reserved, "spawning the reserved rows grows no column");
    assert_eq!(game.moving.len(), 10 + rows);
    assert_eq!(game.moving.observer().len(), 10 + rows);

    for &e in spawned.iter().step_by(2) {
        assert!(game.despawn(e));
    }
    game.moving.shrink_to_fit();
    game.moving.assert_invariants();
    let shrunk = caps(&game);
    let len = game.moving.len();
    assert_eq!(len, 10 + rows / 2);
    assert!(shrunk.iter().zip(reserved).all(|(&s, r)| s >= len && s < r), "{shrunk:?}");
    let alive: BTreeSet<Entity> =
        first.iter().chain(spawned.iter().skip(1).step_by(2)).copied().collect();
    assert_eq!(game.moving.keys().iter().copied().collect::<BTreeSet<_>>(), alive);

    // Reserve again, spawn again, despawn the rest.
    game.moving.reserve(40);
    let again = caps(&game);
    let more: Vec<Entity> = (0..40)
        .map(|i| game.spawn((Body { mass: i, label: String::new() }, Speed { v: 3 })))
        .collect();
    assert_eq!(caps(&game), again);
    game.moving.assert_invariants();
    for e in alive.iter().chain(&more) {
        assert!(game.despawn(*e));
    }
    game.moving.shrink_to_fit();
    game.moving.assert_invariants();
    assert!(game.moving.is_empty());
    assert_eq!(caps(&game), [0, 0]);
}

#[test]
fn storage_shrink_to_fit_of_a_derived_storage_keeps_refusing_stale_handles() {
    let mut entities = Entities::default();
    let mut speeds = SpeedSoa::new();
    let old: Vec<Entity> = (0..2_000).map(|_| entities.spawn()).collect();
    for &e in &old {
        speeds.insert(e, Speed { v: 1 });
    }
    for &e in &old {
        speeds.remove(e);
        entities.despawn(e);
    }
    let newer: Vec<Entity> = (0..2_000).map(|_| entities.spawn()).collect();
    for &e in &newer {
        speeds.insert(e, Speed { v: 2 });
    }
    for &e in &newer[1..] {
        speeds.remove(e);
    }
    let grown = speeds.capacity();
    Storage::shrink_to_fit(&mut speeds);
    Storage::assert_invariants(&speeds);
    assert!(speeds.capacity() < grown && speeds.capacity() >= 1);
    assert_eq!(speeds.keys(), &newer[..1]);
    for &e in &old {
        assert!(
            matches!(speeds.try_insert(e, Speed { v: 0 }), Err(Error::StaleKey { .. })),
            "{e:?}"
        );
    }
    assert_eq!(speeds.len(), 1);

    // A bounded one keeps its memory and allocates nothing.
    let mut bounded = SpeedSoa::bounded(32, 4_096);
    bounded.insert(newer[3], Speed { v: 1 });
    let bytes = bounded.allocated_bytes();
    let ((), calls) = allocations_during(|| Storage::shrink_to_fit(&mut bounded));
    assert_eq!((calls, bounded.capacity(), bounded.allocated_bytes()), (0, 32, bytes));
}

/// Three generations fill the same slots and leave; a shrink after each. Whatever layout the
/// last generation leaves (no key, one key at either end, scattered keys, keys in one page, a
/// dense half), every handle of the two older generations is refused in every storage, and a
/// handle of the newest generation is not (its version is the newest its slot held).
#[test]
fn stale_handles_survive_shrinks_of_every_layout() {
    type Pattern = (&'static str, fn(u32) -> bool);
    type Tagged = Group<(SparseSet<Entity>, SparseMap<Entity, u8>, SpeedSoa), (AsleepSoa,)>;
    let count = 3_000_u32;
    let patterns: [Pattern; 6] = [
        ("none", |_| false),
        ("first", |slot| slot == 0),
        ("last", |slot| slot == 2_999),
        ("every 97th", |slot| slot % 97 == 0),
        ("one page", |slot| (1_030..1_040).contains(&slot)),
        ("dense half", |slot| slot < 1_500),
    ];
    for (name, keep) in patterns {
        let mut entities = Entities::default();
        let mut group: Tagged = Group::with_excluded(
            (SparseSet::new(), SparseMap::new(), SpeedSoa::new()),
            (AsleepSoa::new(),),
        );
        let mut rounds: Vec<Vec<Entity>> = Vec::new();
        for round in 0..3 {
            group.reserve(count as usize / 2);
            let spawned: Vec<Entity> = (0..count).map(|_| entities.spawn()).collect();
            for &e in &spawned {
                group.member_mut::<0>().insert(e, ());
                group.member_mut::<1>().insert(e, 1);
                group.member_mut::<2>().insert(e, Speed { v: 1 });
                if e.index() % 3 == 0 {
                    group.excluded_mut::<0>().insert(e, ());
                }
            }
            group.assert_invariants();
            for &e in &spawned {
                if round < 2 || !keep(e.index()) {
                    assert!(group.remove(e));
                    entities.despawn(e);
                }
            }
            group.shrink_to_fit();
            group.assert_invariants();
            rounds.push(spawned);
        }
        let kept = (0..count).filter(|&slot| keep(slot)).count();
        assert_eq!(group.len(), kept - (0..count).filter(|&s| keep(s) && s % 3 == 0).count());

        let refused = |result: Result<(), Error>, what: &str, e: Entity| {
            assert!(
                matches!(result, Err(Error::StaleKey { .. })),
                "{name}: {what} {e:?}: {result:?}"
            );
        };
        for &e in rounds[0].iter().chain(&rounds[1]) {
            refused(group.member_mut::<0>().try_insert(e, ()).map(drop), "set", e);
            refused(group.member_mut::<1>().try_insert(e, 0).map(drop), "map", e);
            refused(group.member_mut::<2>().try_insert(e, Speed { v: 0 }).map(drop), "derived", e);
            if e.index() % 3 == 0 {
                refused(group.excluded_mut::<0>().try_insert(e, ()).map(drop), "excluded", e);
            }
        }
        group.assert_invariants();
        assert_eq!(group.members().0.len(), kept, "{name}: nothing stale got in");

        // The newest generation's handles that left are its slots' newest versions: accepted.
        for &e in rounds[2].iter().filter(|e| !keep(e.index())).step_by(41) {
            assert_eq!(group.member_mut::<1>().try_insert(e, 5), Ok(None), "{name}: {e:?}");
            assert_eq!(group.member_mut::<1>().remove(e), Some(5));
        }
        group.assert_invariants();
    }
}

/// Once the sparse pages of the keys exist, rows that join a reserved group allocate nothing at
/// all: no column, no change stamp of a tracked field, no stamp of a member's or the group's
/// `Ticks`.
#[test]
fn reserved_rows_join_without_a_single_allocation() {
    type Stamped = Group<(UnitSoa, SparseSet<u32>, SparseMap<u32, u8, u32, Ticks>), (), (), Ticks>;
    let mut group: Stamped = Group::new((UnitSoa::new(), SparseSet::new(), SparseMap::default()))
        .observed_by(Ticks::new());
    let row = |group: &mut Stamped, key: u32| {
        group.member_mut::<0>().insert(key, Unit { hp: key, level: 0 });
        group.member_mut::<1>().insert(key, ());
        group.member_mut::<2>().insert(key, 0);
    };
    // The even keys hold the pages the odd ones need; the dense sides are shrunk to fit them.
    for key in (0..2_000).step_by(2) {
        row(&mut group, key);
    }
    group.shrink_to_fit();
    let caps = |group: &Stamped| {
        let (u, s, m) = group.members();
        [u.capacity(), s.capacity(), m.capacity()]
    };
    assert_eq!(caps(&group), [1_000; 3], "shrunk to the length");
    group.reserve(1_000);
    group.assert_invariants();
    assert!(caps(&group).iter().all(|&cap| cap >= 2_000), "{:?}", caps(&group));
    let seen = group.member_mut::<0>().ticks_mut().advance();
    let ((), calls) = allocations_during(|| {
        for key in (1..2_000).step_by(2) {
            row(&mut group, key);
        }
    });
    group.assert_invariants();
    assert_eq!(group.len(), 2_000);
    assert_eq!(group.observer().len(), 2_000);
    assert_eq!(calls, 0, "rows joining a reserved group");
    assert_eq!(group.members().0.added_since(seen).count(), 1_000);
    assert_eq!(group.members().0.hp_changed_since(seen).count(), 1_000);
}
