//! A `SparseMap<u32, u16>` with every observer attached at once (a journal with a small limit,
//! change ticks, removal events, and a recorder of hooks), driven by random operations; after
//! every step the mirrors must equal the map: the keys replayed through the journal's ordered
//! changes (or rebuilt after a resync), the values patched through its dirty ranges (never more
//! rows than the map holds), the rows the hooks rebuilt, the tick arrays' length, and the keys
//! that left.
//!
//! A derived storage with a tracked field, a journal and removal events, and a `SparseSet` with
//! change ticks, a journal and removal events, run the same operations beside the map: each must
//! hold the same keys in the same dense order, and its own mirrors must equal it.

#![no_main]

use std::collections::BTreeSet;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sparse_soa::observe::{Journal, Observer, Removals, Ticks};
use sparse_soa::{Permutation, Removed, SparseMap, SparseSet, SparseSoa};
use sparse_soa_test_support::mirror::{patch_values, replay_keys};

/// The rows as the hooks report them.
#[derive(Default)]
struct Recorder {
    keys: Vec<u32>,
}

impl Observer<u32, u16> for Recorder {
    fn inserted(&mut self, key: u32, index: usize, _value: &u16) {
        assert_eq!(index, self.keys.len());
        self.keys.push(key);
    }

    fn replaced(&mut self, key: u32, index: usize, _old: &u16, _new: &u16) {
        assert_eq!(self.keys[index], key);
    }

    fn removed(&mut self, key: u32, _value: &u16, removed: Removed<u32>) {
        match removed.moved {
            Some(moved) => {
                assert_eq!(self.keys[removed.index], key);
                assert_eq!(moved.from + 1, self.keys.len());
                self.keys.swap_remove(removed.index);
            }
            None if removed.index < self.keys.len() => {
                assert_eq!(self.keys[removed.index], key);
                self.keys.truncate(removed.index);
            }
            None => {}
        }
    }

    fn swapped(&mut self, a: usize, b: usize) {
        self.keys.swap(a, b);
    }

    fn permuted(&mut self, permutation: &Permutation) {
        self.keys = permutation.order().iter().map(|&old| self.keys[old]).collect();
    }
}

type Observers = (Ticks, Journal<u32>, Removals<u32>, Recorder);

/// The map's value as a derived row: `v` tracked, `w` its complement.
#[derive(SparseSoa)]
struct Cell {
    #[sparse_soa(track)]
    v: u16,
    w: u16,
}

fn cell(v: u16) -> Cell {
    Cell { v, w: !v }
}

#[derive(Arbitrary, Debug)]
enum Op {
    Insert(u8, u16),
    Remove(u8),
    SwapRemoveIndex(u8),
    Pop,
    GetMut(u8, u16),
    SetIfNeq(u8, u16),
    EntryOr(u8, u16),
    Retain(u8),
    SortKeys,
    SortByValue,
    SortUnstableByValue,
    Swap(u8, u8),
    Truncate(u8),
    Clear,
    Drain(u8),
    ValuesMut,
    Advance,
    Sync,
}

fuzz_target!(|ops: Vec<Op>| {
    let observers = (Ticks::new(), Journal::with_limit(600), Removals::new(), Recorder::default());
    let mut map = SparseMap::<u32, u16, u32, Observers>::with_observer(observers);
    let mut key_mirror: Vec<u32> = Vec::new();
    let mut value_mirror: Vec<u16> = Vec::new();
    let mut cells = CellSoa::with_observer((Journal::with_limit(600), Removals::new()));
    let mut cell_keys: Vec<u32> = Vec::new();
    let mut cell_values: Vec<u16> = Vec::new();
    let mut tags = SparseSet::<u32, u32, _>::with_observer((
        Ticks::new(),
        Journal::with_limit(600),
        Removals::new(),
    ));
    let mut tag_keys: Vec<u32> = Vec::new();
    for op in ops {
        let before: BTreeSet<u32> = map.keys().iter().copied().collect();
        match op {
            Op::Insert(k, v) => {
                let _ = map.insert(u32::from(k), v);
                drop(cells.insert(u32::from(k), cell(v)));
                tags.insert(u32::from(k));
            }
            Op::Remove(k) => {
                let _ = map.remove(u32::from(k));
                drop(cells.remove(u32::from(k)));
                tags.remove(u32::from(k));
            }
            Op::SwapRemoveIndex(i) => {
                let _ = map.swap_remove_index(usize::from(i));
                drop(cells.swap_remove_index(usize::from(i)));
                tags.swap_remove_index(usize::from(i));
            }
            Op::Pop => {
                let _ = map.pop();
                drop(cells.pop());
                tags.pop();
            }
            Op::GetMut(k, v) => {
                if let Some(value) = map.get_mut(u32::from(k)) {
                    *value = v;
                }
                if let Some(row) = cells.get_mut(u32::from(k)) {
                    (*row.v, *row.w) = (v, !v);
                }
            }
            Op::SetIfNeq(k, v) => {
                let _ = map.set_if_neq(u32::from(k), v);
                let _ = cells.set_if_neq(u32::from(k), cell(v));
            }
            Op::EntryOr(k, v) => {
                *map.entry(u32::from(k)).or_insert(v) ^= 1;
                let value = map[u32::from(k)];
                match cells.get_mut(u32::from(k)) {
                    Some(row) => (*row.v, *row.w) = (value, !value),
                    None => drop(cells.insert(u32::from(k), cell(value))),
                }
                tags.insert(u32::from(k));
            }
            Op::Retain(m) => {
                map.retain(|key, _| key % (u32::from(m) + 2) != 0);
                cells.retain(|key, _| key % (u32::from(m) + 2) != 0);
                tags.retain(|key| key % (u32::from(m) + 2) != 0);
            }
            Op::SortKeys => {
                map.sort_keys();
                cells.sort_keys();
                tags.sort_unstable();
            }
            Op::SortByValue => {
                map.sort_by(|_, a, _, b| a.cmp(b));
                cells.sort_by(|_, a, _, b| a.v.cmp(b.v));
                tags.sort_by(|a, b| map[*a].cmp(&map[*b]));
            }
            Op::SortUnstableByValue => {
                // Equal values may land in either order: the storage follows the map's.
                map.sort_unstable_by(|_, a, _, b| b.cmp(a));
                cells.sort_unstable_by(|_, a, _, b| b.v.cmp(a.v));
                cells.sort_as(map.keys());
                // The set's values stand beside it as a column of the caller's.
                let mut column: Vec<u16> = tags.iter().map(|key| map[key]).collect();
                tags.sort_unstable_with(
                    &mut column,
                    |column, _, a, b| column[b].cmp(&column[a]),
                    |column, a, b| column.swap(a, b),
                );
                assert!(tags.iter().zip(&column).all(|(key, value)| map[key] == *value));
                tags.sort_as(map.keys());
            }
            Op::Swap(a, b) => {
                let (a, b) = (usize::from(a), usize::from(b));
                if a < map.len() && b < map.len() {
                    map.swap_indices(a, b);
                    cells.swap_indices(a, b);
                    tags.swap_indices(a, b);
                }
            }
            Op::Truncate(len) => {
                map.truncate(usize::from(len));
                cells.truncate(usize::from(len));
                tags.truncate(usize::from(len));
            }
            Op::Clear => {
                map.clear();
                cells.clear();
                tags.clear();
            }
            Op::Drain(take) => {
                map.drain().take(usize::from(take % 4)).for_each(drop);
                cells.drain().take(usize::from(take % 4)).for_each(drop);
                tags.drain().take(usize::from(take % 4)).for_each(drop);
            }
            Op::ValuesMut => {
                map.values_mut().iter_mut().for_each(|v| *v = v.wrapping_add(1));
                let columns = cells.columns_mut();
                for (v, w) in columns.v.iter_mut().zip(columns.w.iter_mut()) {
                    *v = v.wrapping_add(1);
                    *w = !*v;
                }
            }
            Op::Advance => {
                let _ = map.ticks_mut().advance();
                let _ = cells.ticks_mut().advance();
                let _ = tags.ticks_mut().advance();
            }
            Op::Sync => {
                let journal = &map.observer().1;
                key_mirror = replay_keys(std::mem::take(&mut key_mirror), journal)
                    .unwrap_or_else(|| map.keys().to_vec());
                patch_values(&mut value_mirror, journal, map.values(), u16::MAX);
                assert_eq!(key_mirror, map.keys());
                assert_eq!(value_mirror, map.values());
                map.observer_mut().1.clear();
                let journal = &cells.observer().0;
                cell_keys = replay_keys(std::mem::take(&mut cell_keys), journal)
                    .unwrap_or_else(|| cells.keys().to_vec());
                patch_values(&mut cell_values, journal, cells.v(), u16::MAX);
                assert_eq!(cell_keys, cells.keys());
                assert_eq!(cell_values, cells.v());
                cells.observer_mut().0.clear();
                let journal = &tags.observer().1;
                tag_keys = replay_keys(std::mem::take(&mut tag_keys), journal)
                    .unwrap_or_else(|| tags.as_slice().to_vec());
                assert_eq!(tag_keys, tags.as_slice());
                tags.observer_mut().1.clear();
            }
        }
        map.assert_invariants();
        let (ticks, journal, removals, recorder) = map.observer();
        ticks.assert_invariants(map.len());
        assert_eq!(journal.len(), map.len());
        assert!(journal.bytes() <= journal.limit());
        assert_eq!(recorder.keys, map.keys());
        let after: BTreeSet<u32> = map.keys().iter().copied().collect();
        let left: BTreeSet<u32> = before.difference(&after).copied().collect();
        assert_eq!(removals.len(), left.len());
        assert_eq!(removals.keys().iter().copied().collect::<BTreeSet<u32>>(), left);
        map.observer_mut().2.clear();

        // The derived storage: the same rows in the same order, its ticks and mirrors in step.
        sparse_soa::Storage::assert_invariants(&cells);
        cells.ticks().assert_invariants(cells.len());
        assert_eq!(cells.keys(), map.keys());
        assert_eq!(cells.v(), map.values());
        assert!(cells.w().iter().zip(cells.v()).all(|(w, v)| *w == !*v));
        let (journal, removals) = cells.observer();
        assert_eq!(journal.len(), cells.len());
        assert!(journal.bytes() <= journal.limit());
        assert_eq!(removals.keys().iter().copied().collect::<BTreeSet<u32>>(), left);
        cells.observer_mut().1.clear();

        // The set: the same keys in the same order, its ticks and mirrors in step.
        tags.assert_invariants();
        assert_eq!(tags.as_slice(), map.keys());
        let (ticks, journal, removals) = tags.observer();
        ticks.assert_invariants(tags.len());
        assert_eq!(journal.len(), tags.len());
        assert!(journal.bytes() <= journal.limit());
        assert_eq!(removals.keys().iter().copied().collect::<BTreeSet<u32>>(), left);
        tags.observer_mut().2.clear();
    }
});
