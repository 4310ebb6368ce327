//! zig-sparse-set's `MyPositionSystem` (from its README, one of the documents this crate started
//! from), in Rust, in the same three shapes and with the same method names:
//!
//! - `MyPositionSystemSoa`: a `SparseSet(Entity, u8)` plus fixed arrays `xs`, `ys`, `zs` that
//!   the system keeps in step by hand, through `remove_with_info` (zig's `removeWithInfo`);
//! - `MyPositionSystemDerived`: the same system on a derived storage, which keeps the columns in
//!   step itself;
//! - `MyPositionSystemAos`: values stored beside the index (zig's `SparseSetAOS`), a
//!   `SparseMap<Entity, Vec3, u8>`.
//!
//! Then the README's `test "docs"`, call by call, and what the `u8` dense width costs.
//!
//! Zig names and ours:
//!
//! - `SparseSet(Entity, u8)` with `.allow_resize = .NoResize` and `init(allocator, sparse_cap,
//!   dense_cap)`: `SparseSet::<Entity, u8>::bounded(dense_cap, sparse_cap)` (note the order);
//! - `SparseSetAOS(Entity, u8, Vec3)` (`.value_layout = .InternalArrayOfStructs`):
//!   `SparseMap<Entity, Vec3, u8>`;
//! - `add(ent)`, which returns the dense index: `insert_full(ent)`, which returns it and whether
//!   the entity is new; `addValue(ent, value)`: `SparseMap::insert(ent, value)`;
//! - `remove(ent)`: `remove(ent)`, which returns whether (or what) it removed;
//! - `removeWithInfo(ent, &dense_old, &dense_new)`: `remove_with_info(ent)`, which returns
//!   `Removed { index: dense_new, moved: Some(Moved { from: dense_old, .. }) }`;
//! - `toSparseSlice()`: `as_slice()` (a set), `keys()` (a map or a derived storage);
//! - `toValueSlice()`: `values()` / `values_mut()`; a derived storage's columns `x()` / `x_mut()`;
//! - `getBySparse(ent)`: `get_index_of(ent)`; `getByDense(i)`: `get_index(i)`;
//! - `getValueBySparse(ent)`, `getValueByDense(i)`: `get(ent)`, `get_index(i)`;
//! - `len()`, `clear()`, `remainingCapacity()`: `len()`, `clear()`, `remaining_capacity()`;
//! - `fooOrError(..)`, an error instead of an assertion: `try_foo(..)` for the calls that can run
//!   out of room; lookups and removals return an `Option`.
//!
//! One difference in the numbers: a sparse slot stores a dense position plus one (zero means
//! empty), so the `u8` width holds at most 255 elements, not 256.
//!
//! Run with `cargo run --example zig_position_system`.

use sparse_soa::{DenseIndex, Error, Moved, Removed, SparseMap, SparseSet, SparseSoa};

/// `const Entity = u32;` (zig-sparse-set has no generational ids; this crate's `Entity` is one,
/// and is not used here.)
type Entity = u32;

/// `const Vec3 = struct { x: f32 = 0, y: f32 = 0, z: f32 = 0 };`. Deriving `SparseSoa` adds a
/// storage for it, `MyPositionSystemDerivedStorage`, used by the second system only.
#[derive(SparseSoa, Clone, Copy, Debug, Default, PartialEq)]
#[sparse_soa(dense = u8, name = "MyPositionSystemDerivedStorage")]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

/// The most components a `u8` dense index addresses: 255 (zig's arrays have 256 entries).
const CAPACITY: usize = <u8 as DenseIndex>::MAX_LEN;
/// Entities are below 65536, as in the README's example of 16-bit handles.
const KEY_LIMIT: usize = 65536;

/// `const MyPositionSystemSOA = struct { component_set: SparseSet(Entity, u8), xs: [256]f32,
/// ys: [256]f32, zs: [256]f32 }`.
struct MyPositionSystemSoa {
    component_set: SparseSet<Entity, u8>,
    xs: [f32; CAPACITY],
    ys: [f32; CAPACITY],
    zs: [f32; CAPACITY],
}

impl MyPositionSystemSoa {
    fn new() -> Self {
        Self {
            // `.allow_resize = .NoResize`: everything allocated here, never again.
            component_set: SparseSet::bounded(CAPACITY, KEY_LIMIT),
            xs: [0.0; CAPACITY],
            ys: [0.0; CAPACITY],
            zs: [0.0; CAPACITY],
        }
    }

    /// `addComp`: `var dense = self.component_set.add(ent); self.xs[dense] = pos.x; ...`
    fn add_comp(&mut self, ent: Entity, pos: Vec3) {
        let (dense, _) = self.component_set.insert_full(ent);
        self.xs[dense] = pos.x;
        self.ys[dense] = pos.y;
        self.zs[dense] = pos.z;
    }

    /// `removeComp`: `removeWithInfo(ent, &dense_old, &dense_new)`, then
    /// `self.xs[dense_new] = self.xs[dense_old]; ...`. `Removed::index` is `dense_new` (where
    /// the removed component was), `Moved::from` is `dense_old` (where the last one was); when
    /// the removed component was the last one nothing moved and there is nothing to copy.
    fn remove_comp(&mut self, ent: Entity) {
        let Some(Removed { index: dense_new, moved }) = self.component_set.remove_with_info(ent)
        else {
            return; // zig asserts the entity is there; `removeWithInfoOrError` would error
        };
        if let Some(Moved { from: dense_old, .. }) = moved {
            self.xs[dense_new] = self.xs[dense_old];
            self.ys[dense_new] = self.ys[dense_old];
            self.zs[dense_new] = self.zs[dense_old];
        }
    }

    /// `updateComps`: `for (self.component_set.toSparseSlice()) |ent, dense| self.xs[dense] += 3;`
    fn update_comps(&mut self) {
        for (dense, _ent) in self.component_set.as_slice().iter().enumerate() {
            self.xs[dense] += 3.0;
        }
    }

    /// Not in the README's SOA system: reads a component back, for the checks below.
    fn get_comp(&self, ent: Entity) -> Option<Vec3> {
        let dense = self.component_set.get_index_of(ent)?;
        Some(Vec3 { x: self.xs[dense], y: self.ys[dense], z: self.zs[dense] })
    }
}

/// The SOA system on a derived storage: the columns are the storage's, and every removal moves
/// all of them in step, so `removeComp` has no copying left to do.
struct MyPositionSystemDerived {
    component_set: MyPositionSystemDerivedStorage,
}

impl MyPositionSystemDerived {
    fn new() -> Self {
        Self { component_set: MyPositionSystemDerivedStorage::bounded(CAPACITY, KEY_LIMIT) }
    }

    fn add_comp(&mut self, ent: Entity, pos: Vec3) {
        self.component_set.insert(ent, pos);
    }

    fn remove_comp(&mut self, ent: Entity) {
        self.component_set.remove(ent);
    }

    /// `self.xs[dense] += 3` for every dense index: the `x` column is a plain slice.
    fn update_comps(&mut self) {
        for x in self.component_set.x_mut() {
            *x += 3.0;
        }
    }

    fn get_comp(&self, ent: Entity) -> Option<Vec3> {
        self.component_set.get(ent).map(Vec3Ref::cloned)
    }
}

/// `const MyPositionSystemAOS = struct { component_set: SparseSetAOS(Entity, u8, Vec3) }`.
struct MyPositionSystemAos {
    component_set: SparseMap<Entity, Vec3, u8>,
}

impl MyPositionSystemAos {
    fn new() -> Self {
        Self { component_set: SparseMap::bounded(CAPACITY, KEY_LIMIT) }
    }

    /// `addComp`: `_ = self.component_set.add(ent, pos);`
    fn add_comp(&mut self, ent: Entity, pos: Vec3) {
        self.component_set.insert(ent, pos);
    }

    /// `removeComp`: `self.component_set.remove(ent);`
    fn remove_comp(&mut self, ent: Entity) {
        self.component_set.remove(ent);
    }

    /// `getComp`: `return self.component_set.getValueBySparse(ent).*;` (zig asserts the entity
    /// is there; here a missing one is `None`).
    fn get_comp(&self, ent: Entity) -> Option<Vec3> {
        self.component_set.get(ent).copied()
    }

    /// `updateComps`: `for (self.component_set.toValueSlice()) |*value, dense| value.x += 3;`
    fn update_comps(&mut self) {
        for value in self.component_set.values_mut() {
            value.x += 3.0;
        }
    }
}

/// The same steps on each system: add two, remove the first (the second moves to dense index
/// 0), update, read back.
macro_rules! exercise {
    ($system:expr) => {{
        let mut system = $system;
        system.add_comp(1, Vec3 { x: 1.0, y: 2.0, z: 3.0 });
        system.add_comp(2, Vec3 { x: 4.0, y: 5.0, z: 6.0 });
        system.remove_comp(1);
        system.update_comps();
        let comp = system.get_comp(2);
        assert_eq!(comp, Some(Vec3 { x: 7.0, y: 5.0, z: 6.0 }));
        assert_eq!(system.get_comp(1), None);
        comp
    }};
}

/// zig-sparse-set's `test "docs"`, which "uses all of the functionality", line by line.
fn docs_test() -> Result<(), Error> {
    // const DocsSparseSet = SparseSet(.{ .SparseT = Entity, .DenseT = u8, .ValueT = i32,
    //     .allow_resize = .NoResize, .value_layout = .InternalArrayOfStructs });
    // var ss = DocsSparseSet.init(allocator, 128, 8) catch unreachable;
    let mut ss = SparseMap::<Entity, i32, u8>::try_bounded(8, 128)?;

    let ent1: Entity = 1;
    let ent2: Entity = 2;
    // _ = try ss.addOrError(ent1);  (zig leaves the value undefined; Rust needs one)
    ss.try_insert(ent1, i32::default())?;
    // _ = try ss.addValueOrError(ent2, 2);
    ss.try_insert(ent2, 2)?;
    // expectEqual(@as(DenseT, 2), ss.len());
    assert_eq!(ss.len(), 2);
    // try ss.removeOrError(ent1);
    assert!(ss.remove(ent1).is_some());
    // try ss.removeWithInfoOrError(ent2, &old, &new);
    let (_, info) = ss.remove_with_info(ent2).expect("ent2 is there");
    assert_eq!(info, Removed { index: 0, moved: None }); // it was the last: nothing moved
    // _ = ss.toSparseSlice(); _ = ss.toValueSlice();
    let _ = (ss.keys(), ss.values());
    // expectEqual(@as(DenseT, 0), ss.len());
    assert_eq!(ss.len(), 0);
    // ss.clear();
    ss.clear();
    // expectEqual(@as(DenseT, 8), ss.remainingCapacity());  (a map answers through its index)
    assert_eq!(ss.as_sparse_set().remaining_capacity(), 8);

    // _ = try ss.addValueOrError(ent1, 10);
    ss.try_insert(ent1, 10)?;
    // expectEqual(@as(DenseT, 0), try ss.getBySparseOrError(ent1));
    assert_eq!(ss.get_index_of(ent1), Some(0));
    // expectEqual(@as(DocValueT, 10), (try ss.getValueBySparseOrError(ent1)).*);
    assert_eq!(ss.get(ent1), Some(&10));
    // expectEqual(@as(Entity, ent1), try ss.getByDenseOrError(0));
    // expectEqual(@as(DocValueT, 10), (try ss.getValueByDenseOrError(0)).*);
    assert_eq!(ss.get_index(0), Some((ent1, &10)));

    // The `OrError` twins' errors: past the capacity, past the sparse range.
    for ent in 10..17 {
        ss.try_insert(ent, 0)?;
    }
    assert_eq!(ss.try_insert(99, 0), Err(Error::Full { capacity: 8 }));
    assert_eq!(ss.try_insert(500, 0), Err(Error::KeyOutOfRange { index: 500, limit: 128 }));
    println!("test \"docs\": passed; past its bounds try_insert says {:?}", ss.try_insert(99, 0));
    Ok(())
}

fn main() {
    println!("SOA, columns by hand:  {:?}", exercise!(MyPositionSystemSoa::new()));
    println!("SOA, derived storage:  {:?}", exercise!(MyPositionSystemDerived::new()));
    println!("AOS, SparseMap:        {:?}", exercise!(MyPositionSystemAos::new()));

    // The hand-written system, filled to its 255 components and emptied in another order: the
    // columns never lose a component.
    let mut system = MyPositionSystemSoa::new();
    let ents: Vec<(u8, Entity)> = (0..=254_u8).map(|i| (i, u32::from(i) * 257)).collect();
    let comp = |i: u8| Vec3 { x: f32::from(i), y: 0.0, z: -f32::from(i) };
    for &(i, ent) in &ents {
        system.add_comp(ent, comp(i));
    }
    assert_eq!(system.component_set.try_insert(65535), Err(Error::Full { capacity: 255 }));
    for &(i, ent) in ents.iter().rev().step_by(2) {
        assert_eq!(system.get_comp(ent), Some(comp(i)));
        system.remove_comp(ent);
    }
    for &(i, ent) in &ents {
        assert_eq!(system.get_comp(ent), (i % 2 == 1).then(|| comp(i)));
    }
    println!(
        "filled to {CAPACITY} components, every other one removed: {} left, every one intact",
        system.component_set.len()
    );

    docs_test().expect("within the bounds");

    // "The lookup requires @sizeOf(DenseT) * MaxSparseValue bytes": 64 KiB for 65536 entities
    // with a u8 dense index. A bounded set allocates exactly that range up front; a growable one
    // allocates pages of 512 slots only where keys land.
    let bounded_u8 = SparseSet::<Entity, u8>::bounded(CAPACITY, KEY_LIMIT);
    let bounded_u32 = SparseSet::<Entity, u32>::bounded(CAPACITY, KEY_LIMIT);
    let mut growable_u8 = SparseSet::<Entity, u8>::new();
    for &(_, ent) in &ents {
        growable_u8.insert(ent);
    }
    println!(
        "bytes for entities below {KEY_LIMIT}: bounded u8 {}, bounded u32 {}, growable u8 with \
         {} spread-out entities {}",
        bounded_u8.allocated_bytes(),
        bounded_u32.allocated_bytes(),
        growable_u8.len(),
        growable_u8.allocated_bytes()
    );
    assert!(bounded_u8.allocated_bytes() >= KEY_LIMIT);
    assert!(bounded_u32.allocated_bytes() >= 4 * KEY_LIMIT);
    assert!(growable_u8.allocated_bytes() < bounded_u8.allocated_bytes());
}
