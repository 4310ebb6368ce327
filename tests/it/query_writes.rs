//! A query's mutable member tells its storage's observer of the rows it hands out, one by one:
//! a system that visits a few rows of a large storage dirties those alone (a mirror copies them,
//! change ticks stamp them), whatever else the storage holds. Parallel walks, whose threads share
//! no observer, report every row once.

use sparse_soa::observe::{Journal, Ticks};
use sparse_soa::{SparseMap, SparseSet, SparseSoa, query};

#[derive(SparseSoa, Clone, Copy, Debug, PartialEq)]
struct Body {
    #[sparse_soa(track)]
    x: f32,
    #[sparse_soa(track)]
    hp: i32,
}

/// 1,000 rows with a journal synced, and a tag on three of them.
fn journaled() -> (SparseMap<u32, f32, u32, Journal<u32>>, SparseSet<u32>) {
    let mut map = SparseMap::<u32, f32, u32, Journal<u32>>::default();
    map.extend((0..1000).map(|key| (key, 0.0)));
    map.observer_mut().clear();
    (map, [7, 500, 999].into_iter().collect())
}

fn dirty(map: &SparseMap<u32, f32, u32, Journal<u32>>) -> Vec<usize> {
    map.observer().patch().rows().collect()
}

#[test]
fn a_probing_query_dirties_the_rows_it_visits_alone() {
    let (mut map, tagged) = journaled();
    query((&mut map, &tagged)).for_each(|_, (value, ())| *value += 1.0);
    assert_eq!(dirty(&map), [7, 500, 999], "the tag drives: three rows visited");

    let (mut map, tagged) = journaled();
    query((&mut map,)).with(&tagged).for_each(|_, (value,)| *value += 1.0);
    assert_eq!(dirty(&map), [7, 500, 999], "a `with` filter");

    let (mut map, tagged) = journaled();
    query((&mut map,)).without(&tagged).for_each(|_, (value,)| *value += 1.0);
    assert_eq!(dirty(&map).len(), 997, "a `without` filter: every row but three");

    // The lending iterator, stopped after one row: one row handed out.
    let (mut map, tagged) = journaled();
    let key = {
        let mut walk = query((&mut map, &tagged));
        let mut iter = walk.iter();
        let (key, (value, ())) = iter.next().unwrap();
        *value = 5.0;
        key
    };
    assert_eq!(dirty(&map), [key as usize]);

    // A query that visits nothing writes nothing.
    let (mut map, _) = journaled();
    let none = SparseSet::<u32>::new();
    query((&mut map, &none)).for_each(|_, _| unreachable!());
    assert_eq!(dirty(&map), [] as [usize; 0]);
}

#[test]
fn a_copy_mirror_patched_after_a_filtered_query_equals_the_storage() {
    let (mut map, tagged) = journaled();
    let mut mirror = map.values().to_vec();
    query((&mut map,)).with(&tagged).for_each(|key, (value,)| *value = f32::from(key as u16));
    let patch = map.observer().patch();
    let mut copied = 0;
    for rows in patch.ranges() {
        copied += rows.len();
        mirror[rows.clone()].copy_from_slice(&map.values()[rows]);
    }
    assert_eq!(mirror, map.values());
    assert_eq!(copied, 3, "the rows written, not the storage");
}

#[test]
fn the_ordered_changes_take_one_write_for_rows_a_walk_hands_out_close_together() {
    use sparse_soa::observe::Change;

    let (mut map, _) = journaled();
    let visited: SparseSet<u32> = [3, 5, 70, 200].into_iter().collect();
    query((&mut map, &visited)).for_each(|_, (value, ())| *value = 1.0);
    let changes: Vec<_> = map.observer().changes().unwrap().collect();
    // At most 64 rows lie between 3, 5 and 70: one write, the rows between them included.
    assert_eq!(changes, [Change::Write { rows: 3..71 }, Change::Write { rows: 200..201 }]);
    assert_eq!(dirty(&map), [3, 5, 70, 200], "the patch stays exact");
}

#[test]
fn a_walk_of_every_row_is_one_event() {
    use sparse_soa::observe::Change;

    let (mut map, _) = journaled();
    query((&mut map,)).for_each(|_, (value,)| *value += 1.0);
    let changes: Vec<_> = map.observer().changes().unwrap().collect();
    assert_eq!(changes, [Change::Write { rows: 0..1000 }]);
    assert_eq!(dirty(&map).len(), 1000);

    let mut ticks = SparseMap::<u32, i32, u32, Ticks>::default();
    ticks.extend((0..10).map(|key| (key, 0)));
    let seen = ticks.observer_mut().advance();
    query((&mut ticks,)).for_each(|_, (value,)| *value += 1);
    assert_eq!(ticks.changed_since(seen).count(), 10);
}

#[test]
fn change_ticks_see_the_rows_a_query_visits() {
    let mut map = SparseMap::<u32, i32, u32, Ticks>::default();
    map.extend((0..100).map(|key| (key, 0)));
    let frozen: SparseSet<u32> = (1..100).collect();
    let seen = map.observer_mut().advance();
    query((&mut map,)).without(&frozen).for_each(|_, (value,)| *value += 1);
    assert_eq!(map.changed_since(seen).collect::<Vec<_>>(), [0]);
    let this_frame: Vec<u32> = query((&map,)).changed(&map).into_iter().map(|(k, _)| k).collect();
    assert_eq!(this_frame, [0]);
}

#[test]
fn a_derived_storage_reports_the_visited_rows_to_its_observer_and_tracked_fields() {
    let mut bodies = BodySoa::new().observed_by(Journal::new());
    bodies.extend((0..50).map(|key| (key, Body { x: 0.0, hp: 10 })));
    bodies.observer_mut().clear();
    let seen = bodies.ticks_mut().advance();
    let hit: SparseSet<u32> = [4, 40].into_iter().collect();
    query((&mut bodies, &hit)).for_each(|_, (body, ())| *body.hp -= 3);
    assert_eq!(bodies.observer().patch().rows().collect::<Vec<_>>(), [4, 40]);
    assert_eq!(bodies.hp_changed_since(seen).collect::<Vec<_>>(), [4, 40]);
    assert_eq!(bodies.x_changed_since(seen).collect::<Vec<_>>(), [4, 40], "the whole row");
    assert_eq!(bodies.get(4).map(|body| *body.hp), Some(7));
}

#[test]
#[cfg(feature = "rayon")]
fn a_parallel_query_reports_at_least_the_rows_it_visits() {
    let (mut map, tagged) = journaled();
    query((&mut map,)).with(&tagged).par_for_each(|_, (value,)| *value += 1.0);
    let dirty = dirty(&map);
    for row in [7, 500, 999] {
        assert!(dirty.contains(&row), "row {row} was written");
    }
    assert!(dirty.len() == 3 || dirty.len() == 1000, "the visited rows, or every row once");
}
