//! sparse-soa: sparse-set storage for integer keys, with a derive for struct-of-arrays columns.

#![no_std]

pub use sparse_set_core::*;
