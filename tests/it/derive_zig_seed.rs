//! The "SOA system" of zig-sparse-set's README (`MyPositionSystemSOA`), reproduced with the
//! derive: add two entities, remove the first, the second moves to dense slot 0, update by
//! column, read back. There the user copies `xs[dense_old]` into `xs[dense_new]` by hand for
//! every column; here the storage does it for all columns at once.

use sparse_soa::{Moved, Removed, SparseSoa, Storage};

#[derive(SparseSoa, Clone, Copy, Debug, Default, PartialEq)]
#[sparse_soa(dense = u8, name = "MyPositionSystemSoa")]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

#[test]
fn soa_system() {
    // `SparseSet(Entity = u32, DenseT = u8)` with room for 256 components and entities below
    // 65536, as in the zig example; bounded, so it never allocates again.
    let mut system = MyPositionSystemSoa::bounded(255, 65536);

    let ent1 = 1;
    let ent2 = 2;
    system.insert(ent1, Vec3 { x: 1.0, y: 2.0, z: 3.0 });
    system.insert(ent2, Vec3 { x: 4.0, y: 5.0, z: 6.0 });
    assert_eq!(system.len(), 2);
    assert_eq!(system.get_index_of(ent2), Some(1));

    // removeComp: every column follows the swap-remove.
    let (removed, info) = system.remove_with_info(ent1).unwrap();
    assert_eq!(removed, Vec3 { x: 1.0, y: 2.0, z: 3.0 });
    assert_eq!(info, Removed { index: 0, moved: Some(Moved { key: ent2, from: 1 }) });
    assert_eq!(system.get_index_of(ent2), Some(0));
    assert_eq!(system.keys(), &[ent2]);
    assert_eq!((system.x(), system.y(), system.z()), (&[4.0][..], &[5.0][..], &[6.0][..]));

    // updateComps: `for (self.component_set.toSparseSlice()) |ent, dense| self.xs[dense] += 3;`
    for x in system.x_mut() {
        *x += 3.0;
    }
    assert_eq!(system.get(ent2).map(Vec3Ref::cloned), Some(Vec3 { x: 7.0, y: 5.0, z: 6.0 }));
    assert!(system.get(ent1).is_none());
    system.assert_invariants();
}
