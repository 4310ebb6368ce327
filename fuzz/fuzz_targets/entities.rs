//! `Entities` with `Entity`-keyed storages (a `SparseMap` and a derived storage), stale handles
//! included, against a model of slots: a storage holds at most one generation per index, a
//! newer one replaces an older one in place, an older one is refused as stale. A slot also
//! remembers the newest generation it held after that one left, and refuses an older one then
//! too, naming it as `held`.

#![no_main]

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sparse_soa::{Entities, Entity, Error, SparseMap, SparseSoa, Storage};

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity)]
struct Body {
    mass: u32,
    tag: u8,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Spawn,
    /// Handles are picked among every one ever made: live, despawned, or reused.
    Despawn(u16),
    InsertMap(u16, u32),
    InsertBody(u16, u32),
    RemoveMap(u16),
    RemoveBody(u16),
    Get(u16),
    RetainAlive,
    Clear,
    /// Every storage and the allocator release memory; nothing they refuse changes.
    ShrinkToFit,
}

/// One slot per index: the handle held and its value.
type Slots<V> = BTreeMap<u32, (Entity, V)>;

fn insert<V: Clone>(slots: &mut Slots<V>, entity: Entity, value: V) -> Result<Option<V>, Error> {
    match slots.get(&entity.index()) {
        Some((held, _)) if held.generation() > entity.generation() => Err(Error::StaleKey {
            index: u64::from(entity.index()),
            version: entity.generation().get(),
            held: held.generation().get(),
        }),
        _ => Ok(slots.insert(entity.index(), (entity, value)).map(|(_, old)| old)),
    }
}

/// Checks the storage's answer `got` to inserting `entity` against the model, and updates the
/// model: `seen` is the newest generation stored in each slot, held or not.
fn check_insert<V: Clone + PartialEq + std::fmt::Debug>(
    got: Result<Option<V>, Error>,
    slots: &mut Slots<V>,
    seen: &mut BTreeMap<u32, u32>,
    entity: Entity,
    value: V,
) {
    let empty = !slots.contains_key(&entity.index());
    let newest = seen.get(&entity.index()).copied().unwrap_or(0);
    if empty && newest > entity.generation().get() {
        // Remembered by the empty slot: a newer generation was stored there before.
        let index = u64::from(entity.index());
        let version = entity.generation().get();
        assert_eq!(got, Err(Error::StaleKey { index, version, held: newest }), "{entity}");
        return;
    }
    assert_eq!(got, insert(slots, entity, value));
    if got.is_ok() {
        let newest = seen.entry(entity.index()).or_default();
        *newest = (*newest).max(entity.generation().get());
    }
}

fn get<V>(slots: &Slots<V>, entity: Entity) -> Option<&V> {
    slots.get(&entity.index()).filter(|(held, _)| *held == entity).map(|(_, value)| value)
}

fn remove<V>(slots: &mut Slots<V>, entity: Entity) -> Option<V> {
    get(slots, entity)?;
    slots.remove(&entity.index()).map(|(_, value)| value)
}

fuzz_target!(|ops: Vec<Op>| {
    let mut entities = Entities::new();
    let mut handles: Vec<Entity> = Vec::new();
    let mut alive: BTreeSet<Entity> = BTreeSet::new();
    let mut map: SparseMap<Entity, u32> = SparseMap::new();
    let mut map_model: Slots<u32> = BTreeMap::new();
    let mut bodies = BodySoa::new();
    let mut body_model: Slots<Body> = BTreeMap::new();
    let mut map_seen: BTreeMap<u32, u32> = BTreeMap::new();
    let mut body_seen: BTreeMap<u32, u32> = BTreeMap::new();
    let pick = |handles: &[Entity], i: u16| {
        (!handles.is_empty()).then(|| handles[usize::from(i) % handles.len()])
    };
    for op in ops {
        match op {
            Op::Spawn => {
                let entity = entities.spawn();
                assert!(
                    alive.iter().all(|live| live.index() != entity.index()),
                    "a live slot was reissued"
                );
                assert!(handles.iter().all(|&old| old != entity), "a handle was issued twice");
                alive.insert(entity);
                handles.push(entity);
            }
            Op::Despawn(i) => {
                let Some(entity) = pick(&handles, i) else { continue };
                assert_eq!(entities.despawn(entity), alive.remove(&entity));
            }
            Op::InsertMap(i, value) => {
                let Some(entity) = pick(&handles, i) else { continue };
                check_insert(
                    map.try_insert(entity, value),
                    &mut map_model,
                    &mut map_seen,
                    entity,
                    value,
                );
            }
            Op::InsertBody(i, mass) => {
                let Some(entity) = pick(&handles, i) else { continue };
                let body = Body { mass, tag: mass as u8 };
                check_insert(
                    bodies.try_insert(entity, body.clone()),
                    &mut body_model,
                    &mut body_seen,
                    entity,
                    body,
                );
            }
            Op::RemoveMap(i) => {
                let Some(entity) = pick(&handles, i) else { continue };
                assert_eq!(map.remove(entity), remove(&mut map_model, entity));
            }
            Op::RemoveBody(i) => {
                let Some(entity) = pick(&handles, i) else { continue };
                assert_eq!(bodies.remove(entity), remove(&mut body_model, entity));
            }
            Op::Get(i) => {
                let Some(entity) = pick(&handles, i) else { continue };
                assert_eq!(entities.is_alive(entity), alive.contains(&entity));
                assert_eq!(map.get(entity), get(&map_model, entity));
                assert_eq!(
                    bodies.get(entity).map(|body| *body.mass),
                    get(&body_model, entity).map(|body| body.mass)
                );
                assert_eq!(map.contains_key(entity), get(&map_model, entity).is_some());
            }
            Op::RetainAlive => {
                map.retain(|entity, _| entities.is_alive(entity));
                map_model.retain(|_, (entity, _)| alive.contains(entity));
                bodies.retain(|entity, _| entities.is_alive(entity));
                body_model.retain(|_, (entity, _)| alive.contains(entity));
            }
            Op::Clear => {
                entities.clear();
                alive.clear();
            }
            Op::ShrinkToFit => {
                entities.shrink_to_fit();
                map.shrink_to_fit();
                bodies.shrink_to_fit();
            }
        }
        entities.assert_invariants();
        map.assert_invariants();
        Storage::assert_invariants(&bodies);
        assert_eq!(entities.len(), alive.len());
        assert_eq!(map.len(), map_model.len());
        assert_eq!(bodies.len(), body_model.len());
    }
});
