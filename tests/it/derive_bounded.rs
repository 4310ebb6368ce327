//! A bounded derived storage never allocates after construction: inserts, removals, column
//! loops, retain and clear all run within the memory reserved up front. Sorting is the one
//! documented exception: it allocates its permutation.
//!
//! Only allocations made by the test's own thread are counted.

use sparse_soa::{Entities, Entity, SparseSoa, Storage};

/// How many allocation calls `f` makes on this thread.
fn allocations_during(f: impl FnOnce()) -> usize {
    sparse_soa_test_support::allocations_during(f).1
}

#[derive(SparseSoa, Clone, Debug, PartialEq)]
#[sparse_soa(key = Entity, dense = u16)]
struct Body {
    x: f32,
    y: f32,
    mass: f64,
    tag: u8,
}

#[test]
fn a_bounded_storage_never_allocates_after_construction() {
    let capacity: usize = if cfg!(miri) { 100 } else { 1000 };
    let mut entities = Entities::with_capacity(2 * capacity);
    let handles: Vec<Entity> = (0..2 * capacity).map(|_| entities.spawn()).collect();
    let outsider = entities.spawn();
    let mut bodies = BodySoa::bounded(capacity, 4096);

    let calls = allocations_during(|| {
        for round in 0..3 {
            let start = round * capacity / 2;
            for (x, &entity) in (0_u16..).zip(&handles[start..start + capacity]) {
                bodies.insert(entity, Body { x: f32::from(x), y: 0.0, mass: 1.0, tag: 0 });
            }
            assert!(
                bodies.try_insert(outsider, Body { x: 0.0, y: 0.0, mass: 0.0, tag: 1 }).is_err(),
                "full"
            );
            for x in bodies.x_mut() {
                *x += 1.0;
            }
            let columns = bodies.columns_mut();
            for (y, x) in columns.y.iter_mut().zip(columns.x.iter()) {
                *y += *x;
            }
            for &entity in handles.iter().step_by(7) {
                bodies.remove(entity);
            }
            bodies.retain(|_, body| *body.x > 10.0);
            bodies.clear();
            bodies.shrink_to_fit();
        }
    });
    assert_eq!(calls, 0);
    bodies.assert_invariants();

    for (x, &entity) in (0_u16..).zip(&handles[..100]) {
        bodies.insert(entity, Body { x: -f32::from(x), y: 0.0, mass: 1.0, tag: 0 });
    }
    let calls = allocations_during(|| bodies.sort_by(|_, a, _, b| a.x.total_cmp(b.x)));
    assert!(calls > 0, "sorting allocates its permutation, as documented");
    assert_eq!(bodies.x().first(), Some(&-99.0));
    bodies.assert_invariants();
}

/// A wide row: its columns alone can pass the address space where the key index does not.
#[derive(SparseSoa)]
#[sparse_soa(dense = usize)]
struct Wide {
    bytes: [u8; 1 << 16],
    more: [u8; 1 << 16],
}

/// Narrow columns with wide stamps: 3 bytes a row in the keys and columns, 12 in the stamps
/// of its tracked fields.
#[derive(SparseSoa)]
#[sparse_soa(key = u8, dense = usize)]
struct Flags {
    #[sparse_soa(track)]
    on: u8,
    #[sparse_soa(track)]
    seen: u8,
}

/// `try_bounded` decides up front, its columns included: bounds it refuses allocate nothing and
/// name the bound at fault, and where the allocator cannot give what the bounds need, the
/// columns are reserved, never written, before the key index writes its pages.
#[test]
#[cfg(target_pointer_width = "64")]
fn try_bounded_refuses_before_allocating() {
    use sparse_soa::Error;
    use sparse_soa_test_support::measure;

    let (result, usage) = measure(|| BodySoa::try_bounded(300_000, 16));
    let refused = Error::DenseIndexOverflow { width: "u16", max_len: 65_535 };
    assert_eq!((result.err(), usage.calls), (Some(refused), 0));
    // An `Entity` index reaches 2^32 slots: a key limit past them asks for slots no key takes.
    let (result, usage) = measure(|| BodySoa::try_bounded(8, usize::MAX));
    let refused = Error::BoundPastKeys { bound: usize::MAX as u64, slots: 1 << 32 };
    assert_eq!((result.err(), usage.calls), (Some(refused), 0));
    let (result, usage) = measure(|| BodySoa::try_bounded(8, (1 << 32) + 1));
    let refused = Error::BoundPastKeys { bound: (1 << 32) + 1, slots: 1 << 32 };
    assert_eq!((result.err(), usage.calls), (Some(refused), 0));
    let (result, usage) = measure(|| FlagsSoa::try_bounded(8, 1 << 24));
    let refused = Error::BoundPastKeys { bound: 1 << 24, slots: 256 };
    assert_eq!((result.err(), usage.calls), (Some(refused), 0));
    // Two columns of 2^46 rows of 64 KiB each: each column alone fits the address space
    // (2^62 bytes), both together do not.
    let (result, usage) = measure(|| WideSoa::try_bounded(1 << 46, 16));
    assert_eq!((result.err(), usage.calls), (Some(Error::CapacityOverflow), 0));
    // The tracked fields' stamps count too: 2^60 rows of 3 bytes fit the address space, with
    // their 12 bytes of stamps they do not.
    let (result, usage) = measure(|| FlagsSoa::try_bounded(1 << 60, 16));
    assert_eq!((result.err(), usage.calls), (Some(Error::CapacityOverflow), 0));
    // Bounds the address space holds but the allocator may not: where it fails, the columns
    // and the dense keys were reserved (never written) and the pages never had. (Not under
    // miri, which stops at an allocation this large instead of failing it.)
    if cfg!(miri) {
        return;
    }
    let (result, usage) = measure(|| BodySoa::try_bounded(60_000, 1 << 40));
    if result.is_err() {
        assert!(usage.allocated <= 2 << 20, "{} bytes allocated before failing", usage.allocated);
    }
}
