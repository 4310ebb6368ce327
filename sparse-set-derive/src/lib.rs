//! The `#[derive(SparseSoa)]` macro of sparse-soa.
