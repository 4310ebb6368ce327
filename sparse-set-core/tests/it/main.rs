//! The core's integration tests, through the public API as a user would use it: one binary (each
//! file in `tests/` would be a binary of its own to compile and link), one module per topic.
//!
//! The binary's allocator is test-support's `CountingAlloc`. It counts and refuses allocations
//! per thread, so the allocation tests (`alloc_failure`, `memory`, some of `map`'s) run beside
//! the others without seeing their allocations.

use sparse_soa_test_support::CountingAlloc;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

mod adversarial_keys;
mod alloc_failure;
mod entities;
mod map;
mod map_model;
mod memory;
mod panic_sweep;
mod set;
mod set_model;
mod stale_model;
