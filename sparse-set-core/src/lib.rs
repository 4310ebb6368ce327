//! Sparse sets: integer-keyed storage with **O(1)** insert, remove and lookup, and iteration over
//! plain slices.
//!
//! This is the runtime of [`sparse-soa`](https://docs.rs/sparse-soa); it stands on its own for
//! anyone who wants the index ([`SparseSet`]) or the array-of-structs map ([`SparseMap`]) without
//! the derive.
//!
//! - [`SparseSet<K, D>`]: the index. A dense `Vec<K>` of keys, and a paged sparse array from each
//!   key's slot to its dense position. [`remove_with_info`](SparseSet::remove_with_info) reports
//!   how a swap-remove moved things, so arrays kept beside the set stay in lockstep.
//! - [`SparseMap<K, V, D>`]: values beside the index, with a `HashMap`-like API and the values as
//!   one slice.
//! - [`Entities`] / [`Entity`]: generational ids; a despawned entity's handle is rejected by every
//!   set keyed by `Entity`, even after its slot is reused.
//! - [`Storage`] and [`query()`]: code generic over storages, and walking up to 8 of them together
//!   (shared or mutable, optional, with tags and exclusions). [`join`] is its two-storage form.
//! - [`Group`]: storages kept **aligned** (the keys they all hold at the front of each, in one
//!   order), so a system over them walks plain slices side by side with no lookup; built on
//!   [`Columnar`] storages and their [`Rows`].
//! - [`observe`]: change events. A map's observer (its type parameter `O`, `()` when none)
//!   hears every insert, replace, remove and move after it happens: hooks of your own, a move
//!   [`Journal`](observe::Journal) for mirrors, change [`Ticks`](observe::Ticks), removal
//!   events.
//! - `par` (feature `rayon`): parallel iteration over storages, groups and queries.
//!
//! # Costs
//!
//! | operation | `SparseSet` / `SparseMap` | notes |
//! |---|---|---|
//! | `insert` | O(1) amortised | allocates when the dense side grows or a key is first in its page |
//! | `remove`, `remove_with_info` | O(1) | **swap-remove**: the last element moves into the gap |
//! | `contains`, `get`, `get_mut`, `get_index_of` | O(1) | one load for keys in the leading run of full pages (keys from 0 up; an `Entity`'s generation sits beside its slot), else the page, then the slot; then the dense key for a key its slot does not name (an `Entity` outside that run, a `Key` whose `SLOT_IS_KEY` is false) |
//! | `clear` | O(len) | resets the slots of the keys only: independent of the key space |
//! | iteration, `keys`, `values` | O(len) | plain slices, dense order |
//! | `retain` | O(len) | visits each element once, keeps relative order |
//! | sorting | O(len log len) | stable sorts of maps through one [`Permutation`]; the unstable ones, and every sort of a set, in place without allocating; a storage or group with an observer sorts through one `Permutation` (allocated), which it reports |
//! | `shrink_to_fit` | O(allocated sparse slots) | releases pages no key uses |
//! | a [`Group`]'s walk | O(len) | plain slices of every member, no lookups |
//! | a [`Group`]'s insert or remove | O(1) | the storage's, plus a lookup per storage of the group and a swap per member |
//!
//! # Memory
//!
//! The sparse array is split into pages of 512 slots, allocated the first time a key lands in
//! them. A page with up to 8 keys is compact (48 bytes with the default `u32` dense width); a
//! fuller one is a plain array (2 KiB). Memory follows the keys used, not the largest key: keys
//! `0` and `u32::MAX` together cost two compact pages, and uniformly random `u32` or `u64` keys
//! (hashed ids) cost 85 to 112 bytes each in a [`SparseSet`], its keys included. A narrower
//! dense width ([`DenseIndex`]: `u8`, `u16`, `u32`, `usize`) shrinks every page and bounds the
//! number of elements; exceeding it is an [`Error`], never a wrap-around.
//!
//! A [`bounded`](SparseSet::bounded) set allocates everything up front and never again: for
//! frame loops that must not touch the allocator.
//!
//! # Example
//!
//! ```
//! use sparse_set_core::{Entities, Entity, SparseMap};
//!
//! let mut entities = Entities::new();
//! let mut health: SparseMap<Entity, u32> = SparseMap::new();
//! let player = entities.spawn();
//! let monster = entities.spawn();
//! health.insert(player, 100);
//! health.insert(monster, 30);
//!
//! entities.despawn(monster);
//! health.remove(monster);
//! let reused = entities.spawn(); // same slot as `monster`, newer generation
//! assert!(health.get(monster).is_none() && health.get(reused).is_none());
//! assert_eq!(health.values(), &[100]);
//! ```
//!
//! # Features
//!
//! - `std` (default): links the standard library. No API depends on it: everything, the
//!   error types included (they implement `core::error::Error`), works with `alloc` alone, so
//!   `default-features = false` lets the crate build for targets without `std`. One thing
//!   differs without it: the seed of the hash lane (the pages of keys spread far apart) mixes
//!   the table's address and a counter, where with `std` it also draws from std's
//!   `RandomState`. The feature exists so that later `std`-only additions are not breaking
//!   changes.
//! - `rayon`: parallel iteration (module `par`): rayon's `par_iter` / `par_iter_mut` for
//!   [`SparseMap`] and derived storages, `par_iter` for [`SparseSet`] (its keys),
//!   `Group::par_iter` / `par_iter_mut`, `Query::par_for_each`. Implies `std`.
//! - `serde`: `Serialize` and `Deserialize` for [`Entity`], [`Entities`], [`SparseSet`] and
//!   [`SparseMap`], validating untrusted input; see the `serialization` module. Works without
//!   `std`.
//!
//! # Threads
//!
//! Every type here owns its data in `Vec`s and boxed pages, with no interior mutability, so it
//! is `Send` when its keys and values are `Send` and `Sync` when they are `Sync` (derived by the
//! compiler; nothing is implemented by hand). Share a storage with `&S` across threads to read
//! it; split its columns with [`Rows::split_at`] (or the `rayon` feature) to write in parallel.
//!
//! # Safety
//!
//! The crate contains no `unsafe` code, and `#![forbid(unsafe_code)]` makes that a promise.

#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[macro_use]
mod macros;

mod alive;
mod dense;
mod disjoint;
mod entity;
mod error;
pub mod group;
mod hint;
pub mod join;
mod key;
pub mod map;
pub mod observe;
mod pages;
#[cfg(feature = "rayon")]
#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
pub mod par;
#[cfg(not(feature = "rayon"))]
#[doc(hidden)]
pub mod par_off;
mod permutation;
pub mod query;
mod removed;
mod rows;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod serialization;
pub mod set;
mod storage;
mod unwind;
mod world;

pub use alive::{CheckAlive, NotAlive, check_alive};
pub use dense::DenseIndex;
pub use entity::{Entities, Entity};
pub use error::Error;
pub use group::Group;
pub use key::Key;
pub use map::SparseMap;
pub use permutation::Permutation;
pub use query::query;
pub use removed::{Moved, Removed};
pub use rows::{Aligned, AlignedIter, Rows};
pub use set::{Iter, SparseSet};
pub use storage::{Columnar, Storage, TrackedStorage};
pub use world::{Bundle, Component, SpawnBatch};

/// Items the code `#[derive(SparseSoa)]` generates calls through the `sparse-soa` facade. Not
/// public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::alive::check_world_alive;
    pub use crate::disjoint::{positions as disjoint_positions, rows_mut as disjoint_rows_mut};
    pub use crate::error::{
        fail_bounded, fail_insert, fail_swap, shrink, try_reserve, try_reserve_exact, vec_bytes,
    };
    pub use crate::observe::report_replacement;
    #[cfg(feature = "rayon")]
    pub use crate::par::ParRows;
    pub use crate::storage::pop_down_to;
    pub use crate::unwind::report_drain;
    pub use crate::world::{
        Allocator, At, Excluded, FieldValue, Fields, Keyed, LendAllocator, LevelExcluded,
        LevelMember, Member, NoValue, One, Place, Refused, RowStorage, RowWorld, Tag, Whole,
        WorldKey, WorldStorage, allocator, despawn, distinct, insert, put_one, reserve_one,
        retain_keys, spawn, spawn_batch, spawn_rows_one, try_insert, try_spawn, try_spawn_batch,
        world_storage,
    };
    #[cfg(feature = "rayon")]
    pub use rayon;

    use crate::{DenseIndex, Error, Key, Removed, SparseSet};

    /// What a derived storage's `try_bounded` asks before it allocates anything: whether its
    /// key index and columns (their element sizes in `columns`) fit the bounds and the address
    /// space.
    ///
    /// # Errors
    ///
    /// As `try_bounded`: [`Error::DenseIndexOverflow`], [`Error::BoundPastKeys`] or
    /// [`Error::CapacityOverflow`].
    pub fn check_bounded<K: Key, D: DenseIndex>(
        capacity: usize,
        key_limit: usize,
        columns: &[usize],
    ) -> Result<(), Error> {
        SparseSet::<K, D>::bounded_bytes(capacity, key_limit, columns).map(drop)
    }

    /// The dense position of `key` in `set`, or `usize::MAX` if it is not there: what a derived
    /// storage's `get_mut` reads its columns at, so that a miss is their bound check.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "as `SparseSet::get_index_of`, in callers' loops")]
    #[must_use]
    pub fn get_index_of_or_max<K: Key, D: DenseIndex, O: crate::observe::Observer<K, ()>>(
        set: &SparseSet<K, D, O>,
        key: K,
    ) -> usize {
        set.get_index_of_or_max(key)
    }

    /// The dense position of `key` in `set`, if it is there and below `len`: what a derived
    /// storage's `get` reads its columns at, `len` its first column's length, so that the
    /// lookup and the columns' bound check are one.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "as `SparseSet::get_index_of`, in callers' loops")]
    #[must_use]
    pub fn get_index_below<K: Key, D: DenseIndex, O: crate::observe::Observer<K, ()>>(
        set: &SparseSet<K, D, O>,
        key: K,
        len: usize,
    ) -> Option<usize> {
        set.get_index_below(key, len)
    }

    /// Swap-removes the key at dense position `index`; returns it and how the dense positions
    /// moved, or `None` if `index` is out of bounds. What a derived storage's
    /// `swap_remove_index` reports to its observer.
    #[inline]
    pub fn remove_at<K: Key, D: DenseIndex>(
        set: &mut SparseSet<K, D>,
        index: usize,
    ) -> Option<(K, Removed<K>)> {
        let key = set.get_index(index)?;
        Some((key, set.remove_index(index)))
    }

    /// What the serde impls of derived storages name: serde's traits, and the row format and its
    /// validation.
    #[cfg(feature = "serde")]
    pub mod serde {
        pub use crate::serialization::derive::{SerdeAttribute, restore_rows, serialize_rows};
        pub use crate::serialization::restore::{Rebuild, bounded_bytes};
        pub use crate::serialization::{MAX_BOUNDED_BYTES, Restore};
        pub use ::serde::{Deserialize, Deserializer, Serialize, Serializer};
    }
}
