//! `Entities` from the outside: bounded mode (refusals leave it unchanged, freed slots are
//! reused, no allocation after it is made), the capacity reports, and equality (the same
//! entities handed out from now on).

use proptest::prelude::*;
use sparse_set_core::{Entities, Entity, Error};
use sparse_soa_test_support::{allocations_during, model};

#[test]
fn a_bounded_allocator_refuses_past_its_capacity_and_stays_unchanged() {
    let mut entities = Entities::bounded(3);
    assert_eq!((entities.capacity(), entities.key_limit()), (3, Some(3)));
    let spawned: Vec<Entity> = (0..3).map(|_| entities.spawn()).collect();
    assert_eq!(entities.remaining_capacity(), 0);
    let before = entities.clone();
    assert_eq!(entities.try_spawn(), Err(Error::EntitiesFull { capacity: 3 }));
    assert_eq!(entities, before);
    entities.assert_invariants();

    // A freed slot is reused, one generation later; indices stay below the capacity.
    assert!(entities.despawn(spawned[1]));
    assert_eq!(entities.remaining_capacity(), 1);
    let reused = entities.spawn();
    assert_eq!(reused.index(), 1);
    assert_eq!(reused.generation().get(), 2);
    assert!(entities.iter().all(|entity| (entity.index() as usize) < 3));

    // `try_reserve` of a bounded allocator does nothing, and succeeds.
    assert_eq!(entities.try_reserve(1000), Ok(()));
    assert_eq!(entities.capacity(), 3);
    entities.assert_invariants();
}

#[test]
fn the_plain_spawn_of_a_full_allocator_panics_naming_the_limit() {
    let message = std::panic::catch_unwind(|| {
        let mut entities = Entities::bounded(1);
        entities.spawn();
        entities.spawn();
    })
    .unwrap_err();
    assert_eq!(
        message.downcast_ref::<String>().unwrap(),
        "cannot spawn an entity: the entity allocator is full: it is bounded to 1 slot, every one \
         alive or retired; despawn entities, or bound it higher"
    );
}

#[test]
fn try_bounded_refuses_what_an_entity_index_cannot_address() {
    assert!(Entities::try_bounded(0).is_ok());
    assert_eq!(
        Entities::try_bounded(0).unwrap().try_spawn(),
        Err(Error::EntitiesFull { capacity: 0 })
    );
    #[cfg(target_pointer_width = "64")]
    {
        let past = |bound: u64| Error::BoundPastKeys { bound, slots: 1 << 32 };
        assert_eq!(Entities::try_bounded((1 << 32) + 1).unwrap_err(), past((1 << 32) + 1));
        assert_eq!(Entities::try_bounded(1 << 40).unwrap_err(), past(1 << 40));
        assert_eq!(Entities::try_bounded(usize::MAX).unwrap_err(), past(usize::MAX as u64));
        let message = std::panic::catch_unwind(|| drop(Entities::bounded(usize::MAX)));
        assert_eq!(
            message.unwrap_err().downcast_ref::<String>().unwrap(),
            &format!(
                "cannot bound an `Entities` to {0} slots: bound {0} is past the 4294967296 slots \
                 the keys can take; bound it to at most 4294967296",
                usize::MAX
            )
        );
    }
}

#[test]
fn a_bounded_allocator_and_its_copy_never_allocate() {
    const CAPACITY: usize = if cfg!(miri) { 16 } else { 1_000 };
    let mut entities = Entities::bounded(CAPACITY);
    let mut copy = entities.clone();
    for allocator in [&mut entities, &mut copy] {
        let ((), calls) = allocations_during(|| {
            for round in 0..40 {
                if round % 3 == 2 {
                    allocator.retain(|entity| entity.index() % 2 == 0);
                } else {
                    while allocator.try_spawn().is_ok() {}
                    assert_eq!(allocator.len(), CAPACITY);
                    allocator.clear();
                }
                assert_eq!(allocator.try_reserve(10), Ok(()));
            }
        });
        assert_eq!(calls, 0);
        allocator.assert_invariants();
    }
}

#[test]
fn capacity_reports_count_free_slots_and_room() {
    let mut entities = Entities::with_capacity(10);
    assert!(entities.capacity() >= 10);
    assert_eq!(entities.key_limit(), None);
    let a = entities.spawn();
    let _b = entities.spawn();
    assert_eq!(entities.remaining_capacity(), entities.capacity() - 2);
    entities.despawn(a);
    assert_eq!(entities.remaining_capacity(), entities.capacity() - 1);
    assert!(entities.allocated_bytes() >= 10 * (8 + 4));
    assert_eq!(Entities::new().allocated_bytes(), 0);
}

#[test]
fn equal_allocators_hand_out_the_same_entities() {
    let mut a = Entities::new();
    let mut b = Entities::bounded(8);
    let spawned: Vec<Entity> = (0..4).map(|_| a.spawn()).collect();
    (0..4).for_each(|_| {
        b.spawn();
    });
    assert_eq!(a, b, "bounds and capacity are not compared");
    // The same live set, but the free lists in another order: not equal.
    a.despawn(spawned[1]);
    a.despawn(spawned[2]);
    b.despawn(spawned[2]);
    b.despawn(spawned[1]);
    assert_ne!(a, b);
    assert_ne!(a.spawn(), b.spawn());
}

/// One step of the equality property.
#[derive(Clone, Debug)]
enum Step {
    Spawn,
    /// Despawns the live entity at this position of `iter()` (modulo the live count).
    Despawn(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![Just(Step::Spawn), any::<usize>().prop_map(Step::Despawn)]
}

fn replay(steps: &[Step], entities: &mut Entities) {
    for step in steps {
        match *step {
            Step::Spawn => {
                let _ = entities.try_spawn();
            }
            Step::Despawn(at) => {
                let live: Vec<Entity> = entities.iter().collect();
                if !live.is_empty() {
                    entities.despawn(live[at % live.len()]);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(model::config())]

    /// Equality means "the same entities from now on": two allocators compare equal exactly
    /// when they hold the same live entities and their next spawns agree.
    #[test]
    fn equality_is_what_the_live_set_and_the_next_spawns_tell(
        first in prop::collection::vec(step(), 0..40),
        second in prop::collection::vec(step(), 0..40),
    ) {
        let (mut a, mut b) = (Entities::new(), Entities::new());
        replay(&first, &mut a);
        replay(&second, &mut b);
        a.assert_invariants();
        b.assert_invariants();
        let equal = a == b;
        prop_assert_eq!(equal, b == a);
        let same_live = a.iter().eq(b.iter());
        // More spawns than there are slots: past every free slot, into new ones.
        let next_a: Vec<Entity> = (0..64).map(|_| a.spawn()).collect();
        let next_b: Vec<Entity> = (0..64).map(|_| b.spawn()).collect();
        prop_assert_eq!(equal, same_live && next_a == next_b);
    }
}

/// A loaded allocator keeps the promise of `remaining_capacity`: that many spawns reallocate
/// nothing, whatever room its slots were left with by the loading.
#[cfg(feature = "serde")]
#[test]
fn a_loaded_allocator_spawns_its_remaining_capacity_without_allocating() {
    for alive in [1, 5, 17, 100] {
        let slots: Vec<String> = (0..alive).map(|_| "[1,true]".to_owned()).collect();
        let json = format!(r#"{{"slots":[{}],"free":[],"bound":null}}"#, slots.join(","));
        let mut entities: Entities = serde_json::from_str(&json).expect("loads");
        let room = entities.remaining_capacity();
        let ((), calls) = allocations_during(|| {
            for _ in 0..room {
                entities.spawn();
            }
        });
        assert_eq!(calls, 0, "{room} spawns after loading {alive} slots");
        assert_eq!(entities.len(), alive + room);
    }
}
