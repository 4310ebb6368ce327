//! The compile-fail (UI) tests of `#[derive(SparseSoa)]`: `tests/derive_ui.rs` runs the cases of
//! `tests/ui/` with trybuild. Nothing here; see `tests/ui/README.md`.
//!
//! The tests are a package of their own, apart from sparse-soa's, because trybuild builds its
//! cases with every dependency of the package whose test runs it, from scratch, in a target
//! directory of its own: here that is sparse-soa and the crates the cases name, not every
//! crate sparse-soa's other tests use.

#![no_std]
