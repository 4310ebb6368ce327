//! The generated code needs only `core` and `alloc`: this crate is `#![no_std]` and brings in
//! `std` solely for the test harness, so nothing from std's prelude is in scope.

#![no_std]

extern crate alloc;
extern crate std;

use alloc::string::String;
use sparse_soa::SparseSoa;

#[derive(SparseSoa, Clone, Debug, PartialEq)]
struct Named {
    id: u32,
    name: String,
}

#[test]
fn works_without_std() {
    let mut names = NamedSoa::new();
    names.insert(1, Named { id: 10, name: String::from("ten") });
    names.insert(2, Named { id: 20, name: String::from("twenty") });
    names.sort_by_key(|_, value| core::cmp::Reverse(*value.id));
    assert_eq!(names.keys(), &[2, 1]);
    let copy = names.clone();
    assert_eq!(copy, names);
    assert_eq!(names.remove(2).map(|value| value.id), Some(20));
    assert_eq!(alloc::format!("{names:?}"), "{1: Named { id: 10, name: \"ten\" }}");
    let drained: alloc::vec::Vec<_> = names.drain().collect();
    assert_eq!(drained.len(), 1);
}

/// The serde impls of a derived storage need no `std` either.
#[cfg(feature = "serde")]
#[derive(SparseSoa, serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
#[sparse_soa(serde, dense = u16)]
struct Saved {
    id: u32,
    name: String,
}

#[cfg(feature = "serde")]
#[test]
fn serde_without_std() {
    let mut saved = SavedSoa::new();
    saved.insert(7, Saved { id: 70, name: String::from("seventy") });
    saved.insert(3, Saved { id: 30, name: String::from("thirty") });
    let bytes = postcard::to_allocvec(&saved).unwrap();
    let loaded: SavedSoa = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(loaded, saved);
    assert_eq!(loaded.keys(), &[7, 3]);
}
