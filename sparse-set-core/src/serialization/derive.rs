//! What the impls that `#[sparse_soa(serde)]` generates call, through `sparse-soa`'s
//! `__private`: the row format and its validation live here, once. Not public API.

use crate::dense::DenseIndex;
use crate::key::Key;
use crate::serialization::format::PairRow;
use crate::serialization::restore::{Rebuild, restore};
use crate::serialization::storage::{StorageRowsOut, serialize_storage};
use crate::set::SparseSet;
use ::serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Serializes a storage as a `SparseMap`: the bounds of its key index `set`, then each key
/// with the value `value_at` makes for its dense position (`None` never happens for a
/// position below `set.len()`).
///
/// # Errors
///
/// The serializer's.
pub fn serialize_rows<K, D, V, Ser>(
    set: &SparseSet<K, D>,
    serializer: Ser,
    value_at: impl Fn(usize) -> Option<V>,
) -> Result<Ser::Ok, Ser::Error>
where
    K: Key + Serialize,
    D: DenseIndex,
    V: Serialize,
    Ser: Serializer,
{
    let rows = StorageRowsOut { keys: set.as_slice(), value_at };
    serialize_storage(serializer, set, &rows)
}

/// Deserializes and validates a storage in the format of a `SparseMap`.
///
/// # Errors
///
/// The deserializer's, for everything the module docs list.
pub fn restore_rows<'de, S, De>(deserializer: De, max_bounded_bytes: usize) -> Result<S, De::Error>
where
    S: Rebuild,
    S::Key: Deserialize<'de>,
    S::Value: Deserialize<'de>,
    De: Deserializer<'de>,
{
    restore::<S, PairRow<S::Key, S::Value>, De>(deserializer, max_bounded_bytes)
}

/// What a derived storage whose struct lacks `#[sparse_soa(serde)]` would need to be saved or
/// loaded: nothing implements it, so using such a storage with serde is an error that says
/// which attribute is missing (instead of suggesting to derive `Serialize` on the generated
/// type).
#[diagnostic::on_unimplemented(
    message = "this storage cannot be saved or loaded: its struct has no `#[sparse_soa(serde)]`",
    label = "no `#[sparse_soa(serde)]` on its struct",
    note = "add `#[sparse_soa(serde)]` beside `#[derive(SparseSoa)]`: the storage then implements `Serialize` and `Deserialize`, in the format of a `SparseMap`, validated on load"
)]
pub trait SerdeAttribute {
    /// Never called: nothing implements the trait.
    fn absent() -> !;
}
