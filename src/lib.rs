//! sparse-soa: sparse-set storage for integer keys, with a derive for struct-of-arrays columns.
//!
//! `#[derive(SparseSoa)]` turns a plain struct into a storage keyed by integers or
//! [`Entity`] handles: one sparse index ([`SparseSet`]) and one column (a `Vec`) per field, moved
//! in lockstep by every insert, swap-remove, retain and sort. Lookups, inserts and removals take
//! **O(1)** time; each column is a plain slice, so a loop over one field runs at slice speed.
//!
//! ```
//! use sparse_soa::SparseSoa;
//!
//! #[derive(SparseSoa, Debug, PartialEq)]
//! pub struct Position {
//!     pub x: f32,
//!     pub y: f32,
//! }
//!
//! let mut positions = PositionSoa::new();
//! positions.insert(42, Position { x: 1.0, y: 2.0 });
//! positions.insert(7, Position { x: 3.0, y: 4.0 });
//!
//! for x in positions.x_mut() {
//!     *x += 10.0; // one contiguous column
//! }
//! assert_eq!(positions.x(), &[11.0, 13.0]);
//! assert_eq!(positions.get(7).map(|p| *p.y), Some(4.0));
//!
//! // Swap-remove: the last element moves into the gap in every column.
//! assert_eq!(positions.remove(42), Some(Position { x: 11.0, y: 2.0 }));
//! assert_eq!(positions.keys(), &[7]);
//! ```
//!
//! New here? The [guide] goes from zero to a game tick: components, entities, a world, systems
//! over several storages with [`query()`], despawn, groups, parallel iteration; then keys and
//! dense widths, paging and memory, bounded mode, save and load, a map for readers coming
//! from `bevy_ecs`, shipyard, `soa_derive` or slotmap, and change events (mirrors, hooks,
//! ticks). The derive is described item by item,
//! attribute by attribute, in the [derive reference](derive_reference). Everything else here is re-exported from
//! [`sparse-set-core`](sparse_set_core), which works without the derive: [`SparseSet`] (the
//! index alone), [`SparseMap`] (array-of-structs values beside it), [`Entities`] (generational
//! ids), [`Storage`] and [`join`] (code generic over storages), [`Group`] (storages kept
//! aligned, walked without lookups), [`observe`] (change events of maps).
//!
//! # Features
//!
//! - `std` (default): links the standard library. No API depends on it: without it
//!   everything, the generated code included, needs only `core` and `alloc`; only the seed
//!   of the hash lane (the pages of keys spread far apart) is drawn differently, from the
//!   table's address and a counter instead of std's `RandomState`.
//! - `rayon`: parallel iteration (module `par`): `par_iter` / `par_iter_mut` for maps, groups
//!   and derived storages (the derive emits rayon's traits for them), `par_iter` for sets (their
//!   keys), and `Query::par_for_each`. Implies `std`.
//! - `serde`: `Serialize` and `Deserialize` for [`Entity`], [`Entities`], [`SparseSet`],
//!   [`SparseMap`], and for derived storages marked `#[sparse_soa(serde)]` (see the
//!   [derive reference](derive_reference#serde)). Deserializing validates untrusted input: the
//!   module `serialization` (with the feature) describes the formats, what is refused, and how to check
//!   the keys of storages keyed by `Entity` against their allocator. Works without `std`.
//!
//! # Safety
//!
//! Neither this crate, nor the core, nor the code the derive generates contains `unsafe`;
//! `#![forbid(unsafe_code)]` makes that a promise.

#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub use sparse_set_core::*;

/// Derives struct-of-arrays storage with a sparse index: see the
/// [derive reference](crate::derive_reference) for every generated item and attribute.
#[doc(inline)]
pub use sparse_set_derive::SparseSoa;

/// Derives one `despawn(entity)` and one `retain_entities(keep)` for a struct whose fields are
/// storages and optionally an [`Entities`] allocator: see the
/// [derive reference](crate::derive_reference#world) and the [guide].
#[doc(inline)]
pub use sparse_set_derive::World;

/// Derives [`Bundle`](trait@Bundle) for a struct whose 1 to 8 fields are components, so that a
/// world's `spawn`, `spawn_batch` and `insert` take it as they take the tuple of its fields:
/// see the [derive reference](crate::derive_reference#named-rows).
#[doc(inline)]
pub use sparse_set_derive::Bundle;

#[doc = include_str!("derive_reference.md")]
pub mod derive_reference {}

#[doc = include_str!("guide.md")]
pub mod guide {}

/// What the code `#[derive(SparseSoa)]` generates refers to. Not public API: it may change in
/// any release, which is why `sparse-soa` pins `sparse-set-derive` to its exact version.
#[doc(hidden)]
pub mod __private {
    pub use alloc::vec::{Drain as VecDrain, IntoIter as VecIntoIter, Vec};
    pub use sparse_set_core::__private::{
        Allocator, At, Excluded, FieldValue, Fields, Keyed, LendAllocator, LevelExcluded,
        LevelMember, Member, One, Refused, RowStorage, RowWorld, Tag, Whole, WorldKey,
        WorldStorage, allocator, check_bounded, check_world_alive, despawn, disjoint_positions,
        disjoint_rows_mut, fail_bounded, fail_insert, fail_swap, get_index_below,
        get_index_of_or_max, insert, pop_down_to, put_one, remove_at, report_drain,
        report_replacement, reserve_one, retain_keys, shrink, spawn, spawn_batch, spawn_rows_one,
        try_insert, try_reserve, try_reserve_exact, try_spawn, try_spawn_batch, vec_bytes,
        world_storage,
    };
    pub use sparse_set_core::observe::{
        FieldTicks, Observed, Observer, ObserverWrites, RemovedValues, RowChanges, RowWrites,
        Since, Tick, Ticks, Tracks,
    };
    pub use sparse_set_core::set::{Drain as SetDrain, IntoIter as SetIntoIter};
    pub use sparse_set_core::{
        Bundle, CheckAlive, Columnar, Component, DenseIndex, Error, NotAlive, Permutation, Removed,
        Rows, SparseSet, SpawnBatch, Storage, TrackedStorage,
    };
    pub use sparse_set_core::{Entities, Entity};

    /// The rayon impls of a derived storage (`IntoParallelIterator` for `&S`, `&mut S` and its
    /// two column views) when `sparse-soa` is built with the `rayon` feature; nothing without
    /// it. The derive invokes it for every storage, so the choice follows this crate's feature,
    /// not the user's.
    pub use crate::__parallel as parallel;
    #[cfg(feature = "rayon")]
    pub use sparse_set_core::__private::{ParRows, rayon};

    /// The serde impls of a derived storage marked `#[sparse_soa(serde)]` when `sparse-soa` is
    /// built with the `serde` feature; a compile error saying to enable it without. The derive
    /// invokes it only for storages marked so.
    pub use crate::__serde as serde_impls;
    #[cfg(feature = "serde")]
    pub use sparse_set_core::__private::serde;

    /// Implemented by every type with `Drop`, and by every struct `#[derive(SparseSoa)]` or
    /// `#[derive(Bundle)]` is used on (`D`: [`DeriveSparseSoa`] or [`DeriveBundle`], so that one
    /// struct can derive both): for a struct that implements `Drop` the two impls conflict, and
    /// the compile error names this trait. Both derives store a struct's fields apart (in
    /// columns, in components' storages), so there is no whole value for its `drop` to run on:
    /// moving the fields out of it is not allowed, and where every field is `Copy`, its `drop`
    /// would run while the fields stay stored.
    pub trait StructStoredAsFieldsMustNotImplementDrop<D> {}

    #[expect(drop_bounds, reason = "the bound is the point: it is what conflicts")]
    impl<T: Drop, D> StructStoredAsFieldsMustNotImplementDrop<D> for T {}

    /// `#[derive(SparseSoa)]`'s parameter of [`StructStoredAsFieldsMustNotImplementDrop`].
    pub enum DeriveSparseSoa {}

    /// `#[derive(Bundle)]`'s parameter of [`StructStoredAsFieldsMustNotImplementDrop`].
    pub enum DeriveBundle {}

    /// A column that can be truncated through a trait object, so that one call can truncate
    /// columns of different types.
    pub trait Column {
        /// `Vec::truncate`.
        fn truncate_to(&mut self, len: usize);
    }

    impl<T> Column for Vec<T> {
        fn truncate_to(&mut self, len: usize) {
            self.truncate(len);
        }
    }

    /// Truncates every column to `len`, even if dropping an element of one of them panics: the
    /// rest are truncated while the panic unwinds, so the columns keep one length.
    pub fn truncate_columns(len: usize, columns: &mut [&mut dyn Column]) {
        /// Truncates the columns after the current one when dropped.
        struct Rest<'s, 'c> {
            len: usize,
            columns: &'s mut [&'c mut dyn Column],
        }

        impl Drop for Rest<'_, '_> {
            fn drop(&mut self) {
                truncate_columns(self.len, self.columns);
            }
        }

        if let Some((first, columns)) = columns.split_first_mut() {
            let _rest = Rest { len, columns };
            first.truncate_to(len);
        }
    }

    /// A copy of `column`, allocated fallibly; with `keep_capacity`, with the same capacity (for
    /// bounded storages, which must not allocate after they are made).
    ///
    /// # Errors
    ///
    /// `Error::AllocFailed` if the memory cannot be had.
    pub fn try_clone_column<T: Clone>(
        column: &Vec<T>,
        keep_capacity: bool,
    ) -> Result<Vec<T>, Error> {
        let mut copy = Vec::new();
        let capacity = if keep_capacity { column.capacity() } else { column.len() };
        try_reserve_exact(&mut copy, capacity)?;
        copy.extend_from_slice(column);
        Ok(copy)
    }
}

/// With `rayon`: one `IntoParallelIterator` impl per `[impl generics] [self type] [rows type]
/// [conversion to the rows] [where predicates, each with a trailing comma]`.
#[cfg(feature = "rayon")]
#[doc(hidden)]
#[macro_export]
macro_rules! __parallel {
    ($([$($impl:tt)*] [$self_ty:ty] [$rows:ty] [$($into:tt)*] [$($predicates:tt)*])*) => {$(
        #[automatically_derived]
        impl $($impl)* $crate::__private::rayon::iter::IntoParallelIterator for $self_ty
        where
            $($predicates)*
            $rows: ::core::marker::Send,
            <$rows as $crate::__private::Rows>::Key: ::core::marker::Send,
            <$rows as $crate::__private::Rows>::Row: ::core::marker::Send,
        {
            type Iter = $crate::__private::ParRows<$rows>;
            type Item = (
                <$rows as $crate::__private::Rows>::Key,
                <$rows as $crate::__private::Rows>::Row,
            );

            /// The rows in parallel, each key with its element's view, split into chunks that
            /// keep every column in lockstep.
            #[inline]
            fn into_par_iter(self) -> Self::Iter {
                $crate::__private::ParRows::new($($into)*(self))
            }
        }
    )*};
}

/// Without `rayon`: nothing.
#[cfg(not(feature = "rayon"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __parallel {
    ($($tokens:tt)*) => {};
}

/// With `serde`: for a derived storage, `Serialize`, `Deserialize`, `Restore` and the runtime's
/// `Rebuild`, given `storage [impl generics] [impl generics with the deserializer's lifetime]
/// [that lifetime] [self type] [key type] [value type] [the function making a value from a
/// view] [where predicates] [the fields' `Clone` predicates] [the stamps' bytes a row]`, each
/// predicate with a trailing comma; for a tag (a `SparseSet`, which has the impls already),
/// nothing.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __serde {
    (tag) => {};
    // A storage whose struct lacks `#[sparse_soa(serde)]`: impls that cannot be used, whose
    // bound says which attribute is missing (the bound is higher-ranked, so it is checked where
    // the impl is used, not here).
    (unmarked [$($impl:tt)*] [$($impl_de:tt)*] [$de:lifetime] [$self_ty:ty] [$($predicates:tt)*]) => {
        #[automatically_derived]
        impl $($impl)* $crate::__private::serde::Serialize for $self_ty
        where
            $($predicates)*
            for<'__x> &'__x $self_ty: $crate::__private::serde::SerdeAttribute,
        {
            fn serialize<__S>(
                &self,
                _: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error>
            where
                __S: $crate::__private::serde::Serializer,
            {
                <&$self_ty as $crate::__private::serde::SerdeAttribute>::absent()
            }
        }

        #[automatically_derived]
        impl $($impl_de)* $crate::__private::serde::Deserialize<$de> for $self_ty
        where
            $($predicates)*
            for<'__x> &'__x $self_ty: $crate::__private::serde::SerdeAttribute,
        {
            fn deserialize<__D>(_: __D) -> ::core::result::Result<Self, __D::Error>
            where
                __D: $crate::__private::serde::Deserializer<$de>,
            {
                <&$self_ty as $crate::__private::serde::SerdeAttribute>::absent()
            }
        }
    };
    (
        storage
        [$($impl:tt)*] [$($impl_de:tt)*] [$de:lifetime] [$self_ty:ty] [$key:ty] [$value:ty]
        [$($cloned:tt)*] [$($predicates:tt)*] [$($clone_predicates:tt)*] [$stamps:expr]
    ) => {
        #[automatically_derived]
        impl $($impl)* $crate::__private::serde::Rebuild for $self_ty
        where
            $($predicates)*
        {
            #[inline]
            fn try_bounded(
                capacity: ::core::primitive::usize,
                key_limit: ::core::primitive::usize,
            ) -> ::core::result::Result<Self, $crate::__private::Error> {
                Self::try_bounded(capacity, key_limit)
            }

            #[inline]
            fn bounded_bytes(
                capacity: ::core::primitive::usize,
                key_limit: ::core::primitive::usize,
            ) -> ::core::result::Result<::core::primitive::usize, $crate::__private::Error> {
                $crate::__private::serde::bounded_bytes::<Self>(capacity, key_limit, $stamps)
            }
        }

        #[automatically_derived]
        impl $($impl)* $crate::__private::serde::Serialize for $self_ty
        where
            $($predicates)*
            $key: $crate::__private::serde::Serialize,
            $value: $crate::__private::serde::Serialize,
            $($clone_predicates)*
        {
            /// The storage as a `SparseMap` of its key type and the struct: its bounds, then
            /// each key with its element, cloned out of the columns one at a time.
            fn serialize<__S>(
                &self,
                __serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error>
            where
                __S: $crate::__private::serde::Serializer,
            {
                $crate::__private::serde::serialize_rows(
                    Self::as_sparse_set(self),
                    __serializer,
                    |__index| {
                        ::core::option::Option::map(Self::get_index(self, __index), |(_, __view)| {
                            $($cloned)*(__view)
                        })
                    },
                )
            }
        }

        #[automatically_derived]
        impl $($impl_de)* $crate::__private::serde::Deserialize<$de> for $self_ty
        where
            $($predicates)*
            $key: $crate::__private::serde::Deserialize<$de>,
            $value: $crate::__private::serde::Deserialize<$de>,
        {
            /// Reads the storage in the format of a `SparseMap`, validated: see
            /// `sparse_soa::serialization`.
            fn deserialize<__D>(__deserializer: __D) -> ::core::result::Result<Self, __D::Error>
            where
                __D: $crate::__private::serde::Deserializer<$de>,
            {
                $crate::__private::serde::restore_rows(
                    __deserializer,
                    $crate::__private::serde::MAX_BOUNDED_BYTES,
                )
            }
        }

        #[automatically_derived]
        impl $($impl_de)* $crate::__private::serde::Restore<$de> for $self_ty
        where
            $($predicates)*
            $key: $crate::__private::serde::Deserialize<$de>,
            $value: $crate::__private::serde::Deserialize<$de>,
        {
            fn restore<__D>(
                __deserializer: __D,
                max_bounded_bytes: ::core::primitive::usize,
            ) -> ::core::result::Result<Self, __D::Error>
            where
                __D: $crate::__private::serde::Deserializer<$de>,
            {
                $crate::__private::serde::restore_rows(__deserializer, max_bounded_bytes)
            }
        }
    };
}

/// Without `serde`: nothing for an unmarked storage, and a compile error at
/// `#[sparse_soa(serde)]`.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __serde {
    (unmarked $($tokens:tt)*) => {};
    ($($tokens:tt)*) => {
        ::core::compile_error! {
            "`#[sparse_soa(serde)]` needs the `serde` feature of `sparse-soa`: enable it in Cargo.toml, `features = [\"serde\"]` on the `sparse-soa` dependency (see the README's install section)"
        }
    };
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
