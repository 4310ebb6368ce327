//! `#[derive(World)]`: one `despawn` and one `retain_entities` for every storage of a struct,
//! against a `BTreeMap` reference, with and without an `Entities` field.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use sparse_soa::{Entities, Entity, SparseMap, SparseSet, SparseSoa, Storage, World};
use sparse_soa_test_support::model;

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Position {
    x: i32,
    y: i32,
}

#[derive(SparseSoa)]
#[sparse_soa(key = Entity)]
struct Frozen;

#[derive(Default, World)]
struct Game {
    entities: Entities,
    positions: PositionSoa,
    names: SparseMap<Entity, String>,
    frozen: FrozenSoa,
    #[sparse_soa(skip)]
    frames: u64,
}

/// No allocator: the entities are the keys of the storages.
#[derive(Default, World)]
struct Grid(SparseMap<u32, char>, SparseSet<u32>, #[sparse_soa(skip)] Vec<u32>);

fn check(game: &Game) {
    game.entities.assert_invariants();
    Storage::assert_invariants(&game.positions);
    game.names.assert_invariants();
    game.frozen.assert_invariants();
}

#[test]
fn despawn_removes_from_every_storage_and_the_allocator() {
    let mut game = Game::default();
    let a = game.entities.spawn();
    let b = game.entities.spawn();
    game.positions.insert(a, Position { x: 1, y: 2 });
    game.names.insert(a, "a".into());
    game.frozen.insert(a);
    game.positions.insert(b, Position { x: 3, y: 4 });

    assert!(game.despawn(a));
    check(&game);
    assert!(!game.entities.is_alive(a));
    assert!(game.positions.get(a).is_none() && game.names.get(a).is_none());
    assert!(!game.frozen.contains(a));
    assert_eq!(game.positions.keys(), &[b]);

    // A stale handle: nothing changes, even for the entity that reuses its slot.
    let c = game.entities.spawn();
    assert_eq!(c.index(), a.index());
    game.names.insert(c, "c".into());
    assert!(!game.despawn(a));
    assert_eq!(game.names.get(c).map(String::as_str), Some("c"));
    assert!(game.entities.is_alive(c));

    // `b` is in one storage only; the others never held it.
    assert!(game.despawn(b));
    assert!(game.positions.is_empty());
    check(&game);
    game.frames += 1;
}

/// A value whose `Drop` panics when it is armed.
struct Bomb(bool);

impl Drop for Bomb {
    fn drop(&mut self) {
        assert!(!self.0, "a bomb's drop panics");
    }
}

#[derive(Default, World)]
struct Minefield {
    entities: Entities,
    positions: PositionSoa,
    bombs: SparseMap<Entity, Bomb>,
    names: SparseMap<Entity, String>,
}

/// A removal that panics in the middle of a despawn, as its docs say: the entity stays alive,
/// the storages before the panicking one have removed it and those after it hold it; a second
/// despawn finishes.
#[test]
fn a_despawn_whose_value_panics_on_drop_is_finished_by_despawning_again() {
    let mut field = Minefield::default();
    let (doomed, other) = (field.entities.spawn(), field.entities.spawn());
    for (entity, armed) in [(doomed, true), (other, false)] {
        field.positions.insert(entity, Position { x: 1, y: 2 });
        field.bombs.insert(entity, Bomb(armed));
        field.names.insert(entity, "n".into());
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| field.despawn(doomed)));
    assert!(result.is_err(), "the bomb's drop panics");
    assert!(field.entities.is_alive(doomed));
    assert!(field.positions.get(doomed).is_none() && field.bombs.get(doomed).is_none());
    assert!(field.names.get(doomed).is_some());
    assert!(field.despawn(doomed));
    assert!(!field.entities.is_alive(doomed) && field.names.get(doomed).is_none());
    assert_eq!(field.names.keys(), &[other]);
    field.entities.assert_invariants();
    field.names.assert_invariants();
    assert!(field.despawn(other));
}

#[test]
fn despawn_cleans_storages_of_an_entity_despawned_from_the_allocator_alone() {
    let mut game = Game::default();
    let a = game.entities.spawn();
    game.names.insert(a, "a".into());
    game.entities.despawn(a);
    assert!(!game.despawn(a), "not alive any more");
    assert!(game.names.is_empty(), "but removed from the storages");
}

#[test]
fn a_world_without_entities_despawns_keys() {
    let mut grid = Grid::default();
    grid.0.insert(3, 'x');
    grid.1.insert(3);
    grid.1.insert(4);
    grid.2.push(3);
    assert!(grid.despawn(3));
    assert!(!grid.despawn(3));
    assert!(grid.0.is_empty());
    assert_eq!(grid.1.as_slice(), &[4]);
    assert_eq!(grid.2, [3], "skipped fields are left alone");
}

#[test]
fn retain_without_entities_asks_each_key_of_the_union_once() {
    let mut grid = Grid::default();
    for key in [1, 2, 3, 4] {
        grid.0.insert(key, 'v');
    }
    for key in [3, 4, 5, 6] {
        grid.1.insert(key);
    }
    let mut asked = Vec::new();
    grid.retain_entities(|key| {
        asked.push(key);
        key % 2 == 0
    });
    asked.sort_unstable();
    assert_eq!(asked, [1, 2, 3, 4, 5, 6]);
    let mut left: Vec<u32> = grid.0.keys().to_vec();
    left.sort_unstable();
    assert_eq!(left, [2, 4]);
    let mut left: Vec<u32> = grid.1.as_slice().to_vec();
    left.sort_unstable();
    assert_eq!(left, [4, 6]);
}

#[derive(Clone, Debug)]
enum Op {
    Spawn { position: bool, name: bool, frozen: bool },
    Despawn(usize),
    Retain(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(position, name, frozen)| Op::Spawn { position, name, frozen }),
        2 => (0..64_usize).prop_map(Op::Despawn),
        1 => (2..5_u32).prop_map(Op::Retain),
    ]
}

/// The reference: which storages each spawned entity is in, by entity.
#[derive(Default)]
struct Reference {
    alive: BTreeSet<Entity>,
    positions: BTreeMap<Entity, (i32, i32)>,
    names: BTreeMap<Entity, String>,
    frozen: BTreeSet<Entity>,
}

fn compare(game: &Game, reference: &Reference) {
    check(game);
    assert_eq!(game.entities.iter().collect::<BTreeSet<_>>(), reference.alive);
    let positions: BTreeMap<Entity, (i32, i32)> =
        game.positions.iter().map(|(e, p)| (e, (*p.x, *p.y))).collect();
    assert_eq!(positions, reference.positions);
    let names: BTreeMap<Entity, String> = game.names.iter().map(|(e, n)| (e, n.clone())).collect();
    assert_eq!(names, reference.names);
    assert_eq!(game.frozen.iter().collect::<BTreeSet<_>>(), reference.frozen);
}

proptest! {
    #![proptest_config(model::config())]

    #[test]
    fn despawn_and_retain_match_the_reference(ops in prop::collection::vec(op(), 0..if cfg!(miri) { 30 } else { 100 })) {
        let mut game = Game::default();
        let mut reference = Reference::default();
        // Every handle ever issued, dead ones too: despawning them must change nothing.
        let mut issued: Vec<Entity> = Vec::new();
        for op in ops {
            match op {
                Op::Spawn { position, name, frozen } => {
                    let e = game.entities.spawn();
                    issued.push(e);
                    reference.alive.insert(e);
                    let n = i32::try_from(e.index()).expect("small");
                    if position {
                        game.positions.insert(e, Position { x: n, y: -n });
                        reference.positions.insert(e, (n, -n));
                    }
                    if name {
                        game.names.insert(e, format!("{e}"));
                        reference.names.insert(e, format!("{e}"));
                    }
                    if frozen {
                        game.frozen.insert(e);
                        reference.frozen.insert(e);
                    }
                }
                Op::Despawn(pick) => {
                    let Some(&e) = issued.get(pick % issued.len().max(1)) else { continue };
                    let was_alive = reference.alive.remove(&e);
                    reference.positions.remove(&e);
                    reference.names.remove(&e);
                    reference.frozen.remove(&e);
                    prop_assert_eq!(game.despawn(e), was_alive);
                }
                Op::Retain(modulus) => {
                    let mut asked = Vec::new();
                    game.retain_entities(|e| {
                        asked.push(e);
                        e.index() % modulus != 0
                    });
                    prop_assert_eq!(asked.iter().copied().collect::<BTreeSet<_>>(), reference.alive.clone());
                    prop_assert_eq!(asked.len(), reference.alive.len(), "each entity asked once");
                    let rejected: Vec<Entity> =
                        reference.alive.iter().copied().filter(|e| e.index() % modulus == 0).collect();
                    for e in rejected {
                        reference.alive.remove(&e);
                        reference.positions.remove(&e);
                        reference.names.remove(&e);
                        reference.frozen.remove(&e);
                    }
                }
            }
            compare(&game, &reference);
        }
    }
}

mod tag_fields {
    //! Tag fields written otherwise than `{Tag}Soa` (a renamed storage, aliases): each tag goes
    //! to the field that names it.

    use sparse_soa::{Entities, Entity, SparseSet, SparseSoa, World};

    #[derive(SparseSoa)]
    #[sparse_soa(key = Entity)]
    struct Frozen;

    #[derive(SparseSoa)]
    #[sparse_soa(key = Entity)]
    struct Wet;

    #[derive(SparseSoa)]
    #[sparse_soa(key = Entity, name = "FireSoa")]
    struct Burning;

    type MarkerSoa = SparseSet<Entity>;
    type IceSoa = FrozenSoa;

    #[derive(Default, World)]
    struct Weather {
        entities: Entities,
        #[sparse_soa(tag = Burning)]
        fire: FireSoa,
        #[sparse_soa(tag = Wet)]
        wet: MarkerSoa,
        #[sparse_soa(tag = Frozen)]
        ice: IceSoa,
    }

    #[test]
    fn each_tag_goes_to_the_field_that_names_it() {
        let mut weather = Weather::default();
        let burning = weather.spawn(Burning);
        let cold = weather.spawn((Wet, Frozen));
        assert_eq!(weather.fire.as_slice(), &[burning]);
        assert_eq!(weather.wet.as_slice(), &[cold]);
        assert_eq!(weather.ice.as_slice(), &[cold]);
    }
}
