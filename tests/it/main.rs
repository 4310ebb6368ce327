//! The facade's integration tests, through the public API as a user would use it: one binary
//! (each file in `tests/` would be a binary of its own to compile and link), one module per
//! topic. The modules of the optional features build with them: `parallel` with `rayon`, `serde`
//! with `serde`.
//!
//! The binary's allocator is test-support's `CountingAlloc`. It counts and refuses allocations
//! per thread, so the allocation tests (`allocation_bounds`, `derive_alloc_failure`,
//! `derive_bounded`, some of `serde`'s) run beside the others without seeing their allocations.
//!
//! Apart, as binaries of their own: `derive_hygiene` (the user's strictest crate-level lints) and
//! `derive_no_std` (a `#![no_std]` crate). The compile-fail cases (trybuild) are a package of
//! their own, `ui-tests/`.

use sparse_soa_test_support::CountingAlloc;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

mod allocation_bounds;
mod deep_family;
mod derive_adversarial_keys;
mod derive_alloc_failure;
mod derive_api;
mod derive_bounded;
mod derive_model;
mod derive_observe;
mod derive_panic_sweep;
mod derive_panics;
mod derive_ticks;
mod derive_zig_seed;
mod group_hooks;
mod group_memory;
mod group_model;
mod named_rows;
mod nested_model;
mod observe;
mod observe_set;
#[cfg(feature = "rayon")]
mod parallel;
mod parity;
mod query_lookup;
mod query_model;
mod query_writes;
#[cfg(feature = "serde")]
mod serde;
#[cfg(feature = "serde")]
mod serde_group;
mod ticks;
mod world;
mod world_rows;
