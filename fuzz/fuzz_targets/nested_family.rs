//! A nested family (a group of a derived storage and a tag without an excluded tag, with a
//! nested level of a map without a hidden tag), changed at random and walked through both
//! levels, against `BTreeMap` models: the family's checker after every step, both prefixes
//! exactly the qualifying keys, the nested one starting the group's, and queries over the
//! nested level yielding exactly the keys and values the models say.

#![no_main]

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sparse_soa::group::Nested;
use sparse_soa::{Group, SparseMap, SparseSet, SparseSoa, query};
use sparse_soa_fuzz::SpreadKey;

#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Cell {
    a: u16,
}

type Family = Group<
    (CellSoa, SparseSet<u32>),
    (SparseSet<u32>,),
    Nested<(SparseMap<u32, u8>,), (SparseSet<u32>,)>,
>;

#[derive(Arbitrary, Debug)]
enum Op {
    InsertCell(SpreadKey, u16),
    RemoveCell(SpreadKey),
    Tag(SpreadKey),
    Untag(SpreadKey),
    Exclude(SpreadKey),
    Include(SpreadKey),
    InsertNested(SpreadKey, u8),
    RemoveNested(SpreadKey),
    Hide(SpreadKey),
    Show(SpreadKey),
    Despawn(SpreadKey),
    SortNestedByValue,
    SortNestedKeys,
    BumpNested,
    Unnest,
}

#[derive(Default)]
struct Model {
    cells: BTreeMap<u32, u16>,
    tags: BTreeSet<u32>,
    excluded: BTreeSet<u32>,
    nested: BTreeMap<u32, u8>,
    hidden: BTreeSet<u32>,
}

impl Model {
    fn in_group(&self, key: u32) -> bool {
        self.cells.contains_key(&key) && self.tags.contains(&key) && !self.excluded.contains(&key)
    }

    fn in_nested(&self, key: u32) -> bool {
        self.in_group(key) && self.nested.contains_key(&key) && !self.hidden.contains(&key)
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mut family = Family::default();
    let mut model = Model::default();
    for op in ops {
        match op {
            Op::InsertCell(SpreadKey(key), a) => {
                let old = family.member_mut::<0>().insert(key, Cell { a });
                assert_eq!(old.map(|cell| cell.a), model.cells.insert(key, a));
            }
            Op::RemoveCell(SpreadKey(key)) => {
                let old = family.member_mut::<0>().remove(key);
                assert_eq!(old.map(|cell| cell.a), model.cells.remove(&key));
            }
            Op::Tag(SpreadKey(key)) => {
                assert_eq!(family.member_mut::<1>().insert(key, ()).is_none(), model.tags.insert(key));
            }
            Op::Untag(SpreadKey(key)) => {
                assert_eq!(family.member_mut::<1>().remove(key).is_some(), model.tags.remove(&key));
            }
            Op::Exclude(SpreadKey(key)) => {
                assert_eq!(family.excluded_mut::<0>().insert(key, ()).is_none(), model.excluded.insert(key));
            }
            Op::Include(SpreadKey(key)) => {
                assert_eq!(family.excluded_mut::<0>().remove(key).is_some(), model.excluded.remove(&key));
            }
            Op::InsertNested(SpreadKey(key), value) => {
                let old = family.nested_member_mut::<0>().insert(key, value);
                assert_eq!(old, model.nested.insert(key, value));
            }
            Op::RemoveNested(SpreadKey(key)) => {
                assert_eq!(family.nested_member_mut::<0>().remove(key), model.nested.remove(&key));
            }
            Op::Hide(SpreadKey(key)) => {
                assert_eq!(family.nested_excluded_mut::<0>().insert(key, ()).is_none(), model.hidden.insert(key));
            }
            Op::Show(SpreadKey(key)) => {
                assert_eq!(family.nested_excluded_mut::<0>().remove(key).is_some(), model.hidden.remove(&key));
            }
            Op::Despawn(SpreadKey(key)) => {
                let held = model.cells.remove(&key).is_some()
                    | model.tags.remove(&key)
                    | model.excluded.remove(&key)
                    | model.nested.remove(&key).is_some()
                    | model.hidden.remove(&key);
                assert_eq!(family.remove(key), held);
            }
            Op::SortNestedByValue => {
                family.sort_nested_by(|_, (_, (x,)), _, (_, (y,)), | x.cmp(y));
                let nested = family.nested();
                assert!(nested.columns().1.0.values.is_sorted());
            }
            Op::SortNestedKeys => {
                family.sort_nested_keys();
                assert!(family.nested().keys().is_sorted());
            }
            Op::BumpNested => {
                let mut nested = family.nested_mut();
                let mut seen = BTreeSet::new();
                query((&mut nested,)).for_each(|key, (((cell, ()), (value,)),)| {
                    *value = value.wrapping_add(1);
                    assert_eq!(*cell.a, model.cells[&key]);
                    assert!(seen.insert(key), "a key was visited twice");
                });
                let expected: BTreeSet<u32> =
                    model.nested.keys().copied().filter(|&key| model.in_nested(key)).collect();
                assert_eq!(seen, expected);
                for key in expected {
                    let value = model.nested.get_mut(&key).unwrap();
                    *value = value.wrapping_add(1);
                }
            }
            Op::Unnest => {
                let (group, level) = core::mem::take(&mut family).unnest();
                group.assert_invariants();
                family = group.nest(level);
            }
        }
        family.assert_invariants();
        let group: BTreeSet<u32> = model.cells.keys().copied().filter(|&key| model.in_group(key)).collect();
        let nested: BTreeSet<u32> = model.cells.keys().copied().filter(|&key| model.in_nested(key)).collect();
        assert_eq!(family.keys().iter().copied().collect::<BTreeSet<_>>(), group);
        let level = family.nested();
        assert_eq!(level.keys().iter().copied().collect::<BTreeSet<_>>(), nested);
        assert_eq!(&family.keys()[..level.len()], level.keys());
        let (values,) = level.members().inner();
        assert_eq!(values.len(), model.nested.len());
        for (key, (_, (&value,))) in level.iter() {
            assert_eq!(value, model.nested[&key]);
        }
    }
});
