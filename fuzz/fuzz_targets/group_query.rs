//! A group (a derived storage, a map and a tag, one tag excluded) and an ungrouped map beside
//! it, changed at random and walked by queries, against `BTreeMap` models: the group's invariant
//! checker after every step, its prefix exactly the qualifying keys, queries yielding exactly
//! the keys the models say.

#![no_main]

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sparse_soa::query::optional;
use sparse_soa::{Group, SparseMap, SparseSet, SparseSoa, Storage, query};
use sparse_soa_fuzz::SpreadKey;

#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Cell {
    a: u16,
    b: u32,
}

type Aligned = Group<(CellSoa, SparseMap<u32, u16>, SparseSet<u32>), (SparseSet<u32>,)>;

#[derive(Arbitrary, Debug)]
enum Op {
    InsertCell(SpreadKey, u16),
    InsertValue(SpreadKey, u16),
    Tag(SpreadKey),
    Exclude(SpreadKey),
    RemoveCell(SpreadKey),
    RemoveValue(SpreadKey),
    Untag(SpreadKey),
    Include(SpreadKey),
    Despawn(SpreadKey),
    InsertExtra(SpreadKey, i32),
    RemoveExtra(SpreadKey),
    SortByA,
    SortKeys,
    QueryGroupAndExtra,
    QueryExtraOptionalGroup,
    SortExtraAsGroup,
}

#[derive(Default)]
struct Model {
    cells: BTreeMap<u32, u16>,
    values: BTreeMap<u32, u16>,
    tags: BTreeSet<u32>,
    excluded: BTreeSet<u32>,
    extra: BTreeMap<u32, i32>,
}

impl Model {
    fn aligned(&self, key: u32) -> bool {
        self.cells.contains_key(&key)
            && self.values.contains_key(&key)
            && self.tags.contains(&key)
            && !self.excluded.contains(&key)
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mut group = Aligned::default();
    let mut extra: SparseMap<u32, i32> = SparseMap::new();
    let mut model = Model::default();
    for op in ops {
        match op {
            Op::InsertCell(SpreadKey(key), a) => {
                let old = group.member_mut::<0>().insert(key, Cell { a, b: u32::from(a) });
                assert_eq!(old.map(|cell| cell.a), model.cells.insert(key, a));
            }
            Op::InsertValue(SpreadKey(key), value) => {
                assert_eq!(group.member_mut::<1>().insert(key, value), model.values.insert(key, value));
            }
            Op::Tag(SpreadKey(key)) => {
                assert_eq!(group.member_mut::<2>().insert(key, ()).is_none(), model.tags.insert(key));
            }
            Op::Exclude(SpreadKey(key)) => {
                assert_eq!(group.excluded_mut::<0>().insert(key, ()).is_none(), model.excluded.insert(key));
            }
            Op::RemoveCell(SpreadKey(key)) => {
                assert_eq!(group.member_mut::<0>().remove(key).map(|cell| cell.a), model.cells.remove(&key));
            }
            Op::RemoveValue(SpreadKey(key)) => {
                assert_eq!(group.member_mut::<1>().remove(key), model.values.remove(&key));
            }
            Op::Untag(SpreadKey(key)) => {
                assert_eq!(group.member_mut::<2>().remove(key).is_some(), model.tags.remove(&key));
            }
            Op::Include(SpreadKey(key)) => {
                assert_eq!(group.excluded_mut::<0>().remove(key).is_some(), model.excluded.remove(&key));
            }
            Op::Despawn(SpreadKey(key)) => {
                let held = model.cells.remove(&key).is_some()
                    | model.values.remove(&key).is_some()
                    | model.tags.remove(&key)
                    | model.excluded.remove(&key);
                assert_eq!(group.remove(key), held);
            }
            Op::InsertExtra(SpreadKey(key), value) => {
                assert_eq!(extra.insert(key, value), model.extra.insert(key, value));
            }
            Op::RemoveExtra(SpreadKey(key)) => assert_eq!(extra.remove(key), model.extra.remove(&key)),
            Op::SortByA => {
                group.sort_by(|_, (x, ..), _, (y, ..)| x.a.cmp(y.a));
                assert!(group.columns().0.a.is_sorted());
            }
            Op::SortKeys => {
                group.sort_keys();
                assert!(group.keys().is_sorted());
            }
            Op::QueryGroupAndExtra => {
                let mut seen = BTreeSet::new();
                query((&mut extra, &group)).for_each(|key, (value, (cell, &v, ()))| {
                    *value = value.wrapping_add(i32::from(*cell.a) + i32::from(v));
                    assert!(seen.insert(key), "a key was visited twice");
                });
                let expected: BTreeSet<u32> =
                    model.extra.keys().copied().filter(|&key| model.aligned(key)).collect();
                assert_eq!(seen, expected);
                for key in expected {
                    let value = model.extra.get_mut(&key).unwrap();
                    *value = value.wrapping_add(i32::from(model.cells[&key]) + i32::from(model.values[&key]));
                }
            }
            Op::QueryExtraOptionalGroup => {
                let mut grouped = 0;
                let mut walked = 0;
                query((&extra, optional(&group))).for_each(|key, (_, views)| {
                    walked += 1;
                    assert_eq!(views.is_some(), model.aligned(key));
                    grouped += usize::from(views.is_some());
                });
                assert_eq!(walked, model.extra.len());
                assert_eq!(grouped, model.extra.keys().filter(|&&key| model.aligned(key)).count());
            }
            Op::SortExtraAsGroup => {
                let front = extra.sort_as(group.keys());
                let expected: Vec<u32> =
                    group.keys().iter().copied().filter(|key| model.extra.contains_key(key)).collect();
                assert_eq!(&extra.keys()[..front], expected.as_slice());
            }
        }
        group.assert_invariants();
        extra.assert_invariants();
        let aligned: BTreeSet<u32> = model.cells.keys().copied().filter(|&key| model.aligned(key)).collect();
        assert_eq!(group.keys().iter().copied().collect::<BTreeSet<_>>(), aligned);
        let (cells, values, tags) = group.members();
        assert_eq!(cells.len(), model.cells.len());
        assert_eq!(values.len(), model.values.len());
        assert_eq!(tags.len(), model.tags.len());
        Storage::assert_invariants(cells);
        assert_eq!(extra.len(), model.extra.len());
    }
});
