//! A grouped storage lends itself out shared, or through a handle that changes values only:
//! nothing that reorders or removes keys can be called behind the group's back.

use sparse_soa::{Group, SparseMap, SparseSoa};

#[derive(SparseSoa)]
struct Position {
    x: f32,
}

fn main() {
    let mut group = Group::new((PositionSoa::new(), SparseMap::<u32, f32>::new()));
    // The members, shared: no `insert` through them.
    group.members().0.insert(1, Position { x: 0.0 });
    // The handle of a member: reads and values, but no sort, no retain.
    let mut positions = group.member_mut::<0>();
    positions.sort_keys();
    positions.retain(|_, _| false);
}
