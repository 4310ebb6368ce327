//! A family of four levels (a group and three nested levels, with excluded tags at three of
//! them), every storage changed at random through the handle of its level, rows despawned,
//! innermost levels sorted, values written through the mutable views of levels 2 and 3,
//! levels taken apart and nested again: after every step the family's checker, and every
//! level's prefix exactly the keys that qualify for it, starting the prefix around it, against
//! `BTreeMap` models.

#![no_main]

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sparse_soa::group::Nested;
use sparse_soa::{Group, SparseMap, SparseSet, query};

/// A key among few, so that rows reach the inner levels often (the sparse side of the
/// storages is the other targets' work).
#[derive(Arbitrary, Debug, Clone, Copy)]
struct SmallKey(u8);

impl SmallKey {
    fn get(self) -> u32 {
        u32::from(self.0 % 24)
    }
}

/// Level 0: `a` and `b` without `x0`. Level 1: and `c` without `x1`. Level 2: and `d`.
/// Level 3: and `e` without `x3`.
type Level3 = Nested<(SparseSet<u32>,), (SparseSet<u32>,)>;
type Level2 = Nested<(SparseMap<u32, u8>,), (), Level3>;
type Level1 = Nested<(SparseMap<u32, u16>,), (SparseSet<u32>,), Level2>;
type Family = Group<(SparseMap<u32, u32>, SparseSet<u32>), (SparseSet<u32>,), Level1>;

/// The storages: a, b, x0, c, x1, d, e, x3.
const STORAGES: usize = 8;

#[derive(Arbitrary, Debug)]
enum Op {
    Insert(u8, SmallKey, u8),
    /// A key into every member of levels 0 to the given depth: a row that reaches that level.
    InsertRow(SmallKey, u8, u8),
    Remove(u8, SmallKey),
    Despawn(SmallKey),
    SortInnermostKeys,
    SortInnermostByA,
    SortInnermostUnstableByD,
    Bump,
    Unnest(SmallKey),
}

fn insert(family: &mut Family, storage: usize, key: u32, value: u8) -> Option<u32> {
    match storage {
        0 => family.member_mut::<0>().insert(key, u32::from(value)),
        1 => family.member_mut::<1>().insert(key, ()).map(|()| 0),
        2 => family.excluded_mut::<0>().insert(key, ()).map(|()| 0),
        3 => family.level_member_mut::<1, 0>().insert(key, u16::from(value)).map(u32::from),
        4 => family.level_excluded_mut::<1, 0>().insert(key, ()).map(|()| 0),
        5 => family.level_member_mut::<2, 0>().insert(key, value).map(u32::from),
        6 => family.level_member_mut::<3, 0>().insert(key, ()).map(|()| 0),
        _ => family.level_excluded_mut::<3, 0>().insert(key, ()).map(|()| 0),
    }
}

fn remove(family: &mut Family, storage: usize, key: u32) -> Option<u32> {
    match storage {
        0 => family.member_mut::<0>().remove(key),
        1 => family.member_mut::<1>().remove(key).map(|()| 0),
        2 => family.excluded_mut::<0>().remove(key).map(|()| 0),
        3 => family.level_member_mut::<1, 0>().remove(key).map(u32::from),
        4 => family.level_excluded_mut::<1, 0>().remove(key).map(|()| 0),
        5 => family.level_member_mut::<2, 0>().remove(key).map(u32::from),
        6 => family.level_member_mut::<3, 0>().remove(key).map(|()| 0),
        _ => family.level_excluded_mut::<3, 0>().remove(key).map(|()| 0),
    }
}

/// What `storage` keeps of `value`: the value for a map, `0` for a set.
fn kept(storage: usize, value: u8) -> u32 {
    if matches!(storage, 0 | 3 | 5) { u32::from(value) } else { 0 }
}

#[derive(Default)]
struct Model {
    storages: [BTreeMap<u32, u32>; STORAGES],
}

impl Model {
    fn holds(&self, storage: usize, key: u32) -> bool {
        self.storages[storage].contains_key(&key)
    }

    /// The keys of each level's prefix, from the group's inward.
    fn levels(&self) -> [BTreeSet<u32>; 4] {
        let rules: [&dyn Fn(u32) -> bool; 4] = [
            &|k| self.holds(0, k) && self.holds(1, k) && !self.holds(2, k),
            &|k| self.holds(3, k) && !self.holds(4, k),
            &|k| self.holds(5, k),
            &|k| self.holds(6, k) && !self.holds(7, k),
        ];
        let mut keys: BTreeSet<u32> = self.storages[0].keys().copied().collect();
        rules.map(|rule| {
            keys.retain(|&key| rule(key));
            keys.clone()
        })
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mut family = Family::default();
    let mut model = Model::default();
    for op in ops {
        match op {
            Op::Insert(storage, key, value) => {
                let (storage, key) = (usize::from(storage) % STORAGES, key.get());
                let old = insert(&mut family, storage, key, value);
                assert_eq!(old, model.storages[storage].insert(key, kept(storage, value)));
            }
            Op::InsertRow(key, depth, value) => {
                let (depth, key) = (usize::from(depth % 4), key.get());
                for storage in [0, 1, 3, 5, 6].into_iter().take(depth + 2) {
                    let old = insert(&mut family, storage, key, value);
                    assert_eq!(old, model.storages[storage].insert(key, kept(storage, value)));
                }
            }
            Op::Remove(storage, key) => {
                let (storage, key) = (usize::from(storage) % STORAGES, key.get());
                assert_eq!(remove(&mut family, storage, key), model.storages[storage].remove(&key));
            }
            Op::Despawn(key) => {
                let key = key.get();
                let mut held = false;
                for storage in &mut model.storages {
                    held |= storage.remove(&key).is_some();
                }
                assert_eq!(family.remove(key), held);
            }
            Op::SortInnermostKeys => {
                family.sort_level_keys::<3>();
                assert!(family.nested().nested().nested().keys().is_sorted());
            }
            Op::SortInnermostByA => {
                family.sort_level_by::<3, _>(|_, ((((a, ()), _), _), _), _, ((((b, ()), _), _), _)| a.cmp(b));
                let level3 = family.nested().nested().nested();
                assert!(level3.iter().map(|(_, ((((a, ()), _), _), _))| *a).is_sorted());
            }
            Op::SortInnermostUnstableByD => {
                family.sort_level_unstable_by::<3, _>(|_, ((_, (a,)), _), _, ((_, (b,)), _)| b.cmp(a));
                let level3 = family.nested().nested().nested();
                assert!(level3.iter().map(|(_, ((_, (d,)), _))| *d).is_sorted_by(|a, b| a >= b));
            }
            Op::Bump => {
                // Every level's mutable view writes the values of the members around it.
                let mut level2 = family.level_mut::<2>();
                let mut seen = BTreeSet::new();
                query((&mut level2,)).for_each(|key, ((((a, ()), (c,)), (d,)),)| {
                    *a = a.wrapping_add(1);
                    *c = c.wrapping_add(1);
                    *d = d.wrapping_add(1);
                    assert!(seen.insert(key), "a key was visited twice");
                });
                assert_eq!(seen, model.levels()[2]);
                for key in seen {
                    for storage in [0, 3, 5] {
                        let value = model.storages[storage].get_mut(&key).unwrap();
                        *value = match storage {
                            0 => value.wrapping_add(1),
                            3 => u32::from((*value as u16).wrapping_add(1)),
                            _ => u32::from((*value as u8).wrapping_add(1)),
                        };
                    }
                }
                for (key, ((((a, ()), _), _), _)) in family.level_mut::<3>().iter_mut() {
                    *a = a.wrapping_mul(3);
                    let value = model.storages[0].get_mut(&key).unwrap();
                    *value = value.wrapping_mul(3);
                }
            }
            Op::Unnest(key) => {
                let key = key.get();
                let (mut group, level1) = core::mem::take(&mut family).unnest();
                assert_eq!(group.member_mut::<0>().remove(key), model.storages[0].remove(&key));
                let (level1, level2) = level1.unnest();
                family = group.nest(level1.nest(level2));
            }
        }
        family.assert_invariants();
        let expected = model.levels();
        let level1 = family.nested();
        let level2 = level1.nested();
        let level3 = level2.nested();
        let keys = [family.keys(), level1.keys(), level2.keys(), level3.keys()];
        for (depth, (keys, expected)) in keys.iter().zip(&expected).enumerate() {
            assert_eq!(&keys.iter().copied().collect::<BTreeSet<_>>(), expected, "level {depth}");
            if depth > 0 {
                assert_eq!(&family.keys()[..keys.len()], *keys, "level {depth}");
            }
        }
        let row = |key: u32| (model.storages[0][&key], model.storages[3][&key], model.storages[5][&key]);
        for (key, ((((&a, ()), (&c,)), (&d,)), ((),))) in level3.iter() {
            assert_eq!((a, u32::from(c), u32::from(d)), row(key));
        }
    }
});
