//! Unit tests of groups that need more than the public API shows.

use core::num::NonZeroU32;

use crate::entity::Entity;
use crate::error::Error;
use crate::group::Group;
use crate::map::SparseMap;

fn entity(index: u32, generation: u32) -> Entity {
    Entity::from_parts(index, NonZeroU32::new(generation).unwrap())
}

#[test]
fn a_refused_stale_insert_moves_nothing() {
    // Regression: the newer key held in the slot left the prefix before the insert was
    // refused, and re-entered it at the end, so a refused call reordered the group.
    let a: SparseMap<Entity, u8> = (0..4).map(|index| (entity(index, 2), 0)).collect();
    let b: SparseMap<Entity, u8> = (0..4).map(|index| (entity(index, 2), 1)).collect();
    let mut group = Group::new((a, b));
    let before = group.keys().to_vec();
    let refused = group.member_mut::<0>().try_insert(entity(1, 1), 9);
    assert_eq!(refused, Err(Error::StaleKey { index: 1, version: 1, held: 2 }));
    assert_eq!(group.keys(), before.as_slice());
    assert_eq!(group.members().0.keys(), before.as_slice());
    group.assert_invariants();
}
