//! When a step-by-step walk runs its loop without a call (`Fetches::never_asks`): decided once,
//! from the driver's largest slot against every other member's and filter's sparse prefix, and
//! the same keys visited either way.

use alloc::vec::Vec;

use crate::entity::{Entities, Entity};
use crate::map::SparseMap;
use crate::query::query;
use crate::set::SparseSet;

/// How many entities a walk's world has: fewer under miri, still whole pages of slots (a page
/// of the frozen tag with fewer than nine keys would be compact, outside the prefix).
const ENTITIES: u32 = if cfg!(miri) { 1_024 } else { 2_000 };

/// The entities, then positions, velocities and the frozen tag.
type World = (Vec<Entity>, SparseMap<Entity, u32>, SparseMap<Entity, u32>, SparseSet<Entity>);

/// Entities `0..n` from one allocator: positions for all, velocities for every other one, a
/// tenth frozen; as the move system's world.
fn world(n: u32) -> World {
    let mut entities = Entities::new();
    let ids: Vec<Entity> = (0..n).map(|_| entities.spawn()).collect();
    let positions = ids.iter().map(|&e| (e, e.index())).collect();
    let velocities = ids.iter().step_by(2).map(|&e| (e, 1)).collect();
    let frozen = ids.iter().step_by(10).copied().collect();
    (ids, positions, velocities, frozen)
}

/// The keys the walk visits, through the std iterator and through the lending one, with
/// whether each walk was quick.
fn walks(
    positions: &mut SparseMap<Entity, u32>,
    velocities: &SparseMap<Entity, u32>,
    frozen: &SparseSet<Entity>,
) -> (Vec<Entity>, bool, Vec<Entity>, bool) {
    let shared = query((&*positions, velocities)).without(frozen).into_iter();
    let shared_quick = shared.quick;
    let stepped: Vec<Entity> = shared.map(|(key, _)| key).collect();
    let mut lending = query((positions, velocities)).without(frozen);
    let mut iter = lending.iter();
    let lending_quick = iter.quick;
    let mut lent = Vec::new();
    while let Some((key, (position, _))) = iter.next() {
        *position += 1;
        lent.push(key);
    }
    (stepped, shared_quick, lent, lending_quick)
}

#[test]
fn keys_all_in_the_prefixes_walk_without_asking() {
    let (ids, mut positions, velocities, frozen) = world(ENTITIES);
    let expected: Vec<Entity> =
        ids.iter().step_by(2).filter(|e| !frozen.contains(**e)).copied().collect();
    let (stepped, shared_quick, lent, lending_quick) = walks(&mut positions, &velocities, &frozen);
    assert!(shared_quick && lending_quick, "every key of the driver is in the probes' prefixes");
    assert_eq!(stepped, expected);
    assert_eq!(lent, expected);
}

#[test]
fn a_driver_key_past_a_prefix_makes_the_walk_ask() {
    let (ids, mut positions, mut velocities, frozen) = world(ENTITIES);
    // A key far past every prefix, held by the driver (the smaller storage) and by positions.
    let far = Entity::from_parts(1 << 24, core::num::NonZeroU32::MIN);
    velocities.insert(far, 1);
    positions.insert(far, 7);
    let mut expected: Vec<Entity> =
        ids.iter().step_by(2).filter(|e| !frozen.contains(**e)).copied().collect();
    expected.push(far);
    let (stepped, shared_quick, lent, lending_quick) = walks(&mut positions, &velocities, &frozen);
    assert!(!shared_quick && !lending_quick, "the far key needs the full lookup");
    assert_eq!(stepped, expected);
    assert_eq!(lent, expected);
    assert_eq!(positions.get(far), Some(&8));
}
