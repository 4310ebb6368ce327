//! Behaviour and regression tests of `SparseSet` and `Entities` through the public API.

use std::num::NonZeroU32;
use std::panic::{AssertUnwindSafe, catch_unwind};

use sparse_set_core::{Entities, Entity, Error, Moved, Permutation, Removed, SparseSet};

fn set_of(keys: &[u32]) -> SparseSet<u32> {
    let set: SparseSet<u32> = keys.iter().copied().collect();
    set.assert_invariants();
    set
}

#[test]
fn insert_reports_position_and_novelty() {
    let mut set = SparseSet::<u32>::new();
    assert_eq!(set.insert_full(10), (0, true));
    assert_eq!(set.insert_full(3), (1, true));
    assert_eq!(set.insert_full(10), (0, false));
    assert!(!set.insert(3));
    assert_eq!(set.as_slice(), &[10, 3]);
    assert_eq!(set.len(), 2);
    set.assert_invariants();
}

#[test]
fn removing_the_last_element_moves_nothing() {
    let mut set = set_of(&[1, 2, 3]);
    assert_eq!(set.remove_with_info(3), Some(Removed { index: 2, moved: None }));
    assert_eq!(set.as_slice(), &[1, 2]);
    set.assert_invariants();
}

#[test]
fn removing_from_a_one_element_set_leaves_it_empty_and_reusable() {
    let mut set = set_of(&[77]);
    assert_eq!(set.remove_with_info(77), Some(Removed { index: 0, moved: None }));
    assert!(set.is_empty());
    assert!(!set.contains(77));
    assert_eq!(set.remove_with_info(77), None);
    assert_eq!(set.insert_full(77), (0, true));
    set.assert_invariants();
}

#[test]
fn the_displaced_key_is_found_at_its_new_position() {
    let mut set = set_of(&[5, 6, 7, 8]);
    let info = set.remove_with_info(6).unwrap();
    assert_eq!(info, Removed { index: 1, moved: Some(Moved { key: 8, from: 3 }) });
    assert_eq!(set.get_index_of(8), Some(1));
    assert_eq!(set.get_index(1), Some(8));
    assert_eq!(set.as_slice(), &[5, 8, 7]);
    // The moved key can itself be removed correctly afterwards.
    assert_eq!(
        set.remove_with_info(8),
        Some(Removed { index: 1, moved: Some(Moved { key: 7, from: 2 }) })
    );
    assert_eq!(set.as_slice(), &[5, 7]);
    set.assert_invariants();
}

#[test]
fn external_columns_follow_remove_with_info() {
    let mut set = SparseSet::<u32>::new();
    let mut xs = Vec::new();
    for key in [4, 9, 2, 7] {
        let (index, _) = set.insert_full(key);
        assert_eq!(index, xs.len());
        xs.push(key * 10);
    }
    for key in [9, 7, 4] {
        let info = set.remove_with_info(key).unwrap();
        assert_eq!(xs.swap_remove(info.index), key * 10);
        for (position, &key) in set.as_slice().iter().enumerate() {
            assert_eq!(xs[position], key * 10);
        }
    }
}

#[test]
fn retain_visits_every_key_exactly_once_and_keeps_order() {
    let keys: Vec<u32> = (0..1000).map(|i| i * 7 % 1000).collect();
    let mut set = set_of(&keys);
    let mut visits = vec![0_u32; 1000];
    set.retain(|&key| {
        visits[key as usize] += 1;
        key % 3 != 0
    });
    assert!(visits.iter().all(|&count| count == 1));
    let expected: Vec<u32> = keys.iter().copied().filter(|key| key % 3 != 0).collect();
    assert_eq!(set.as_slice(), expected.as_slice());
    set.assert_invariants();
}

#[test]
fn a_panicking_retain_predicate_leaves_the_set_consistent() {
    let mut set = set_of(&(0..100).collect::<Vec<_>>());
    let result = catch_unwind(AssertUnwindSafe(|| {
        set.retain(|&key| {
            assert!(key != 50, "predicate fails at 50");
            key % 2 == 0
        });
    }));
    assert!(result.is_err());
    set.assert_invariants();
    // Nothing has been removed yet, and every key is still found.
    assert_eq!(set.len(), 100);
    assert!((0..100).all(|key| set.contains(key)));
}

#[test]
fn a_panicking_sort_comparator_leaves_the_set_consistent() {
    let mut set = set_of(&(0..200).rev().collect::<Vec<_>>());
    let mut calls = 0;
    let result = catch_unwind(AssertUnwindSafe(|| {
        set.sort_by(|a, b| {
            calls += 1;
            assert!(calls < 50, "comparator fails");
            a.cmp(b)
        });
    }));
    assert!(result.is_err());
    set.assert_invariants();
    assert_eq!(set.len(), 200);
}

#[test]
fn clear_then_reinserting_old_keys_gives_fresh_positions() {
    let mut set = set_of(&[100, 200, 300]);
    set.clear();
    assert!(set.is_empty());
    assert!(![100, 200, 300].iter().any(|&key| set.contains(key)));
    assert_eq!(set.insert_full(300), (0, true));
    assert_eq!(set.insert_full(100), (1, true));
    assert!(!set.contains(200), "a stale slot pointing at position 1 must not count");
    set.assert_invariants();
}

#[test]
fn clearing_keys_spread_thinly_empties_every_slot_however_many_pages_removals_left() {
    // Keys one a page, over a range wide enough for the index to hash its pages, with the
    // `u64` keys past `u32`. Clearing with all of them held, and again after removing all but a
    // few (the pages they emptied stay until `shrink_to_fit`), leaves no key behind, and every
    // key inserts again as new.
    let spread: Vec<u64> = (0..300_u64).map(|i| i * 70_001 + (i % 7) * (1 << 40)).collect();
    for keep in [spread.len(), 5] {
        let mut set: SparseSet<u64> = spread.iter().copied().collect();
        for &key in &spread[keep..] {
            assert!(set.remove(key));
        }
        set.clear();
        set.assert_invariants();
        assert!(set.is_empty() && !spread.iter().any(|&key| set.contains(key)));
        for (position, &key) in spread.iter().rev().enumerate() {
            assert_eq!(set.insert_full(key), (position, true));
        }
        set.assert_invariants();
        assert!(set.drain().eq(spread.iter().rev().copied()));
        assert!(!spread.iter().any(|&key| set.contains(key)));
        set.assert_invariants();
    }
}

#[test]
fn a_bounded_set_refuses_past_its_limits_and_stays_unchanged() {
    let mut set = SparseSet::<u32>::bounded(4, 128);
    for key in [1, 50, 100, 127] {
        assert_eq!(set.try_insert(key), Ok(true), "as `insert`: whether the key is new");
    }
    let before = set.clone();
    assert_eq!(set.try_insert(100), Ok(false));
    assert_eq!(set.try_insert(3), Err(Error::Full { capacity: 4 }));
    assert_eq!(set.try_insert(500), Err(Error::KeyOutOfRange { index: 500, limit: 128 }));
    assert_eq!(set.try_insert_full(50), Ok((1, false)), "an existing key is still accepted");
    assert_eq!(set.as_slice(), before.as_slice());
    assert_eq!(set.remaining_capacity(), 0);
    set.assert_invariants();

    set.remove(1);
    let err = set.try_insert(128).unwrap_err();
    assert_eq!(
        err.to_string(),
        "key 128 is outside the bounded key range 0..128; use keys below 128, or bound the storage with a higher key limit"
    );
    assert_eq!(set.try_insert_full(0), Ok((3, true)));
}

#[test]
fn a_key_limit_past_the_key_types_slots_is_refused_before_allocating() {
    // A `u8` key takes 256 slots: a limit past them would only allocate for slots no key takes.
    let past = |bound: u64, slots: u64| Error::BoundPastKeys { bound, slots };
    assert_eq!(SparseSet::<u8>::try_bounded(10, 1 << 24).unwrap_err(), past(1 << 24, 256));
    assert_eq!(SparseSet::<u16>::try_bounded(10, 1 << 26).unwrap_err(), past(1 << 26, 1 << 16));
    #[cfg(target_pointer_width = "64")]
    {
        let err = SparseSet::<u32>::try_bounded(10, 1 << 36).unwrap_err();
        assert_eq!(err, past(1 << 36, 1 << 32));
        let err = SparseSet::<Entity>::try_bounded(10, 1 << 34).unwrap_err();
        assert_eq!(err, past(1 << 34, 1 << 32));
        assert_eq!(
            err.to_string(),
            "bound 17179869184 is past the 4294967296 slots the keys can take; bound it to at \
             most 4294967296"
        );
    }
    // Up to every slot the keys take: each key fits.
    let mut every = SparseSet::<u8>::try_bounded(256, 256).unwrap();
    every.extend(0..=u8::MAX);
    assert_eq!((every.len(), every.key_limit()), (256, Some(256)));
    every.assert_invariants();
}

#[test]
fn plain_calls_panic_with_the_error_message_naming_the_key() {
    let result = catch_unwind(|| {
        let mut set = SparseSet::<u32>::bounded(8, 128);
        set.insert(500);
    });
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert_eq!(
        message,
        "cannot insert into a `SparseSet`: key 500 is outside the bounded key range 0..128; use keys below 128, or bound the storage with a higher key limit"
    );

    let result = catch_unwind(|| {
        let mut set = SparseSet::<u32>::bounded(8, 128);
        for key in 0..9 {
            set.insert(key);
        }
    });
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert_eq!(
        message,
        "cannot insert key 8 into a `SparseSet`: storage is full: its bounded capacity is 8 elements; remove some first, or bound it with a higher capacity"
    );
}

#[test]
fn a_u8_dense_width_refuses_the_256th_element() {
    let mut set = SparseSet::<u32, u8>::new();
    for key in 0..255 {
        assert!(set.try_insert(key * 3).is_ok());
    }
    let err = set.try_insert(9999).unwrap_err();
    assert_eq!(err, Error::DenseIndexOverflow { width: "u8", max_len: 255 });
    assert_eq!(
        err.to_string(),
        "storage is full: its dense index type `u8` addresses at most 255 elements; use a wider dense index type"
    );
    assert_eq!(set.len(), 255);
    assert!(!set.contains(9999));
    set.assert_invariants();
    // Removing one makes room again, and the positions still fit in a u8.
    assert!(set.remove(0));
    assert_eq!(set.try_insert_full(9999), Ok((254, true)));
    set.assert_invariants();
}

#[test]
fn a_generation_never_addresses_the_sparse_array() {
    let mut set = SparseSet::<Entity>::new();
    let old = Entity::from_parts(3, NonZeroU32::new(u32::MAX).unwrap());
    set.insert(old);
    // One page for index 3: the generation in the high bits was not used as an address.
    assert_eq!(set.sparse_pages(), 1);
    assert!(set.allocated_bytes() < 64 * 1024);
    let other = Entity::from_parts(3, NonZeroU32::new(7).unwrap());
    assert!(!set.contains(other), "same index, other generation");
    set.assert_invariants();
}

#[test]
fn stale_entity_handles_are_rejected_after_their_slot_is_reused() {
    let mut entities = Entities::new();
    let mut set = SparseSet::<Entity>::new();
    let a = entities.spawn();
    let b = entities.spawn();
    set.insert(a);
    set.insert(b);

    entities.despawn(a);
    set.remove(a);
    let reused = entities.spawn();
    assert_eq!(reused.index(), a.index());
    assert!(!set.contains(reused));
    set.insert(reused);
    assert!(set.contains(reused));
    assert!(!set.contains(a));
    assert!(!set.remove(a), "a stale handle must not remove the live entity");
    assert!(set.contains(reused));
    set.assert_invariants();
}

#[test]
fn inserting_over_a_stale_generation_replaces_it_in_place() {
    let mut entities = Entities::new();
    let mut set = SparseSet::<Entity>::new();
    let stale = entities.spawn();
    let other = entities.spawn();
    set.insert(stale);
    set.insert(other);
    entities.despawn(stale); // but the set still holds it
    let fresh = entities.spawn();
    assert_eq!(set.insert_full(fresh), (0, true));
    assert_eq!(set.as_slice(), &[fresh, other]);
    assert!(!set.contains(stale));
    set.assert_invariants();
}

#[test]
fn sorting_keeps_the_index_and_hands_the_permutation_to_parallel_arrays() {
    let mut set = set_of(&[40, 10, 30, 20]);
    let mut names = vec!["forty", "ten", "thirty", "twenty"];
    let keys = set.as_slice();
    let perm = Permutation::sorted_by(keys.len(), |a, b| keys[a].cmp(&keys[b]));
    set.apply_permutation(&perm);
    perm.apply(&mut names);
    assert_eq!(set.as_slice(), &[10, 20, 30, 40]);
    assert_eq!(names, ["ten", "twenty", "thirty", "forty"]);
    for (position, key) in set.iter().enumerate() {
        assert_eq!(set.get_index_of(key), Some(position));
    }

    set.sort_by_key(|&key| std::cmp::Reverse(key));
    assert_eq!(set.as_slice(), &[40, 30, 20, 10]);
    set.sort_unstable();
    assert_eq!(set.as_slice(), &[10, 20, 30, 40]);
    set.assert_invariants();
}

#[test]
fn swap_indices_pop_truncate_and_drain() {
    let mut set = set_of(&[1, 2, 3, 4, 5]);
    set.swap_indices(0, 4);
    assert_eq!(set.as_slice(), &[5, 2, 3, 4, 1]);
    set.assert_invariants();
    assert_eq!(set.pop(), Some(1));
    assert!(!set.contains(1));
    set.truncate(2);
    assert_eq!(set.as_slice(), &[5, 2]);
    assert!(!set.contains(4));
    assert_eq!(set.swap_remove_index(0), Some(5));
    assert_eq!(set.swap_remove_index(5), None);
    set.assert_invariants();
    let drained: Vec<u32> = set.drain().collect();
    assert_eq!(drained, [2]);
    assert!(set.is_empty());
}

#[test]
fn shrink_to_fit_releases_pages_no_key_uses() {
    // One key per page, each page compact.
    let top: u32 = if cfg!(miri) { 100_000 } else { 1_000_000 };
    let mut set: SparseSet<u32> = (0..top).step_by(512).collect();
    assert_eq!(set.sparse_pages(), top.div_ceil(512) as usize);
    set.retain(|&key| !(10_000..=top - 10_000).contains(&key));
    set.shrink_to_fit();
    // One key per page survives: 0, 512, ..., 9728 (20) and the 20 multiples of 512 past
    // `top - 10_000` (990_208, ..., 999_936 for a `top` of 1,000,000).
    assert_eq!(set.len(), 40);
    assert_eq!(set.sparse_pages(), 40);
    set.assert_invariants();
    assert!(set.contains((top - 1) / 512 * 512));
    // Pages come back on demand.
    set.insert(top / 2);
    assert!(set.contains(top / 2));
    set.assert_invariants();
}

#[test]
fn shrink_to_fit_keeps_full_pages_far_from_zero() {
    // Regression: when every page left after shrinking is a full page of the hash lane (nine
    // keys or more in one far page), the rebuilt directory kept `last` at 0, so every lookup
    // past slot 0 missed: the keys were lost to `contains`, `get` and `remove`.
    for far in [1_u64 << 40, 1 << 20, u64::MAX - 600] {
        let mut set: SparseSet<u64> = (far..far + 9).collect();
        set.extend((0..100).map(|i| (1 << 50) + i * 1000));
        set.retain(|&key| key < 1 << 50 || key >= far);
        set.retain(|&key| (far..far + 9).contains(&key));
        set.shrink_to_fit();
        set.assert_invariants();
        assert_eq!(set.sparse_pages(), 1);
        assert!((far..far + 9).all(|key| set.contains(key)), "far page at {far}");
        assert!(set.remove(far + 4));
        set.assert_invariants();
    }
}

#[test]
fn shrink_to_fit_keeps_a_full_page_at_the_top_of_u32() {
    // The model test's case: a full page at the top of the `u32` range, the keys from 0 gone.
    let mut set: SparseSet<u32> = (0..40).chain(u32::MAX - 20..=u32::MAX).collect();
    set.retain(|&key| key > 1000);
    set.shrink_to_fit();
    set.assert_invariants();
    assert!((u32::MAX - 20..=u32::MAX).all(|key| set.contains(key)));
    assert!(set.remove(u32::MAX - 3));
    set.assert_invariants();
}

#[test]
fn keys_across_the_whole_range_of_every_key_type() {
    let mut small = SparseSet::<u8, u8>::new();
    for key in 0..=254 {
        small.insert(key);
    }
    assert!(small.contains(254));
    small.assert_invariants();

    let mut wide = SparseSet::<u64, usize>::new();
    for key in [0, 1, u64::from(u32::MAX), u64::MAX, u64::MAX - 1, 1 << 40] {
        assert!(wide.insert(key));
    }
    assert!(wide.contains(u64::MAX) && wide.contains(1 << 40) && !wide.contains(2));
    assert!(wide.remove(u64::MAX));
    wide.assert_invariants();
    assert_eq!(wide.len(), 5);

    let mut shorts = SparseSet::<u16, u16>::new();
    shorts.extend([u16::MAX, 0, 12]);
    assert_eq!(shorts.as_slice(), &[u16::MAX, 0, 12]);
    shorts.assert_invariants();
}

#[test]
fn equality_ignores_order_and_debug_prints_a_set() {
    let a = set_of(&[1, 2, 3]);
    let b = set_of(&[3, 1, 2]);
    assert_eq!(a, b);
    assert_ne!(a, set_of(&[1, 2]));
    assert_eq!(format!("{a:?}"), "{1, 2, 3}");
    let owned: Vec<u32> = b.into_iter().collect();
    assert_eq!(owned, [3, 1, 2]);
}

#[test]
fn the_error_type_is_a_std_error() {
    fn takes(_: &dyn std::error::Error) {}
    takes(&Error::Full { capacity: 1 });
    assert_eq!(Error::AllocFailed.to_string(), "memory allocation failed");
}

#[test]
fn retain_with_moves_parallel_columns_and_reports_the_new_length() {
    let mut set = set_of(&[5, 6, 7, 8, 9]);
    let mut columns = (vec!['a', 'b', 'c', 'd', 'e'], vec![50, 60, 70, 80, 90]);
    let mut visited = Vec::new();
    let len = set.retain_with(
        &mut columns,
        |(letters, values), index, key| {
            visited.push((index, key, letters[index]));
            values[index] += 1;
            key % 2 == 1
        },
        |(letters, values), a, b| {
            letters.swap(a, b);
            values.swap(a, b);
        },
    );
    set.assert_invariants();
    columns.0.truncate(len);
    columns.1.truncate(len);
    assert_eq!(visited, [(0, 5, 'a'), (1, 6, 'b'), (2, 7, 'c'), (3, 8, 'd'), (4, 9, 'e')]);
    assert_eq!(set.as_slice(), &[5, 7, 9]);
    assert_eq!(columns, (vec!['a', 'c', 'e'], vec![51, 71, 91]));
}

#[test]
fn a_panicking_retain_with_leaves_set_and_columns_in_lockstep() {
    let mut set = set_of(&[1, 2, 3, 4, 5, 6]);
    let mut column: Vec<u32> = set.iter().map(|key| key * 10).collect();
    let result = catch_unwind(AssertUnwindSafe(|| {
        set.retain_with(
            &mut column,
            |_, _, key| {
                assert!(key != 5, "refuse 5");
                key % 2 == 0
            },
            |column, a, b| column.swap(a, b),
        )
    }));
    assert!(result.is_err());
    set.assert_invariants();
    // Nothing was removed yet, and every key still sits beside its own value.
    assert_eq!(set.len(), 6);
    for (position, key) in set.iter().enumerate() {
        assert_eq!(column[position], key * 10);
    }
}

#[test]
fn set_iterators_forward_every_method() {
    let set = set_of(&[4, 5, 6, 7]);
    assert_eq!(set.iter().count(), 4);
    assert_eq!(set.iter().nth(2), Some(6));
    assert_eq!(set.iter().last(), Some(7));
    assert_eq!(set.iter().rev().collect::<Vec<_>>(), [7, 6, 5, 4]);
    assert_eq!(set.iter().nth_back(1), Some(6));
    assert_eq!(set.iter().fold(0, |acc, key| acc * 10 + key), 4567);
    assert_eq!(set.iter().len(), 4);
    assert_eq!(format!("{:?}", set.iter()), "Iter([4, 5, 6, 7])");

    let mut into_iter = set.clone().into_iter();
    assert_eq!(into_iter.next(), Some(4));
    assert_eq!(into_iter.as_slice(), &[5, 6, 7]);
    assert_eq!(into_iter.next_back(), Some(7));
    assert_eq!(into_iter.len(), 2);

    let mut drained = set.clone();
    let mut drain = drained.drain();
    assert_eq!(drain.nth(1), Some(5));
    assert_eq!(drain.as_slice(), &[6, 7]);
    drop(drain);
    assert!(drained.is_empty());
    drained.assert_invariants();
}

#[test]
fn inserting_a_stale_handle_over_a_newer_entity_is_refused_and_changes_nothing() {
    let mut entities = Entities::new();
    let mut set = SparseSet::<Entity>::new();
    let stale = entities.spawn();
    entities.despawn(stale);
    let live = entities.spawn();
    assert_eq!(live.index(), stale.index());
    set.insert(live);
    let error = Error::StaleKey {
        index: u64::from(stale.index()),
        version: stale.generation().get(),
        held: live.generation().get(),
    };
    assert_eq!(set.try_insert(stale), Err(error));
    assert_eq!(
        error.to_string(),
        "entity 0v1 is stale: slot 0 holds or held 0v2; drop the old handle, or use the newer entity"
    );
    assert_eq!(set.as_slice(), &[live]);
    let panic = catch_unwind(AssertUnwindSafe(|| set.insert(stale))).unwrap_err();
    assert_eq!(
        panic.downcast_ref::<String>().map(String::as_str),
        Some(format!("cannot insert into a `SparseSet<Entity>`: {error}").as_str())
    );
    assert_eq!(set.as_slice(), &[live]);
    set.assert_invariants();
}

#[test]
fn keys_differing_only_above_32_bits_never_share_a_slot() {
    let mut set = SparseSet::<u64>::new();
    assert!(set.insert(5));
    assert!(set.insert((1 << 32) + 5));
    assert!(set.insert(u64::MAX));
    assert_eq!(set.as_slice(), &[5, (1 << 32) + 5, u64::MAX]);
    assert!(set.remove((1 << 32) + 5));
    assert!(set.contains(5) && set.contains(u64::MAX) && !set.contains((1 << 32) + 5));
    set.assert_invariants();
}

#[test]
fn huge_arguments_fail_fast_and_say_why() {
    assert_eq!(SparseSet::<u64>::try_bounded(8, usize::MAX).unwrap_err(), Error::CapacityOverflow);
    assert_eq!(
        SparseSet::<u64, usize>::try_with_capacity(usize::MAX).unwrap_err(),
        Error::CapacityOverflow
    );
    let mut set = SparseSet::<u64, usize>::new();
    assert_eq!(set.try_reserve(usize::MAX), Err(Error::CapacityOverflow));
    let mut narrow = SparseSet::<u32, u8>::new();
    narrow.reserve(10_000);
    assert_eq!(narrow.capacity(), 255, "a u8 width never holds more than 255 keys");
    assert_eq!(
        Error::CapacityOverflow.to_string(),
        "capacity overflow: the memory needed exceeds the address space"
    );
}

#[test]
fn panics_name_what_was_asked_and_the_limit_met() {
    let message = |f: fn()| *catch_unwind(f).unwrap_err().downcast::<String>().unwrap();
    assert_eq!(
        message(|| drop(SparseSet::<u32, u8>::bounded(300, 1000))),
        "cannot bound a `SparseSet<u32, u8>` to 300 elements with keys below 1000: storage is \
         full: its dense index type `u8` addresses at most 255 elements; use a wider dense index type"
    );
    assert_eq!(
        message(|| drop(SparseSet::<u32>::bounded(8, usize::MAX))),
        format!(
            "cannot bound a `SparseSet` to 8 elements with keys below {0}: bound {0} is past the \
             4294967296 slots the keys can take; bound it to at most 4294967296",
            usize::MAX
        )
    );
    assert_eq!(
        message(|| SparseSet::<u32>::from_iter([1, 2, 3]).swap_indices(1, 3)),
        "swap_indices(1, 3) out of bounds for length 3"
    );
    assert_eq!(
        message(|| SparseSet::<u64, usize>::new().reserve(usize::MAX)),
        "capacity overflow: the memory needed exceeds the address space"
    );
    assert_eq!(
        Error::EntitiesExhausted.to_string(),
        "entity index space exhausted: all 4294967296 slots are alive or retired"
    );
}
