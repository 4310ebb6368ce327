//! Saving storages: a struct of `bounds` and the rows in dense order.

use ::serde::Serialize;
use ::serde::ser::{SerializeSeq, SerializeStruct, Serializer};

use crate::dense::DenseIndex;
use crate::key::Key;
use crate::map::SparseMap;
use crate::serialization::format::{Bounds, KeyRow, PairRow, Row};
use crate::set::SparseSet;

/// A struct `SparseSet` of `bounds` and `keys`, in dense order.
impl<K: Key + Serialize, D: DenseIndex> Serialize for SparseSet<K, D> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct(KeyRow::<K>::STRUCT, 2)?;
        state.serialize_field("bounds", &Bounds::of(self))?;
        state.serialize_field("keys", self.as_slice())?;
        state.end()
    }
}

/// A struct `SparseMap` of `bounds` and `rows`, each `[key, value]`, in dense order.
impl<K: Key + Serialize, V: Serialize, D: DenseIndex> Serialize for SparseMap<K, V, D> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let rows = MapRowsOut { keys: self.keys(), values: self.values() };
        serialize_storage(serializer, self.as_sparse_set(), &rows)
    }
}

/// `bounds` and `rows` of a storage, as a struct `SparseMap`.
pub(super) fn serialize_storage<S: Serializer, K: Key, D: DenseIndex>(
    serializer: S,
    set: &SparseSet<K, D>,
    rows: &impl Serialize,
) -> Result<S::Ok, S::Error> {
    let mut state = serializer.serialize_struct(PairRow::<(), ()>::STRUCT, 2)?;
    state.serialize_field("bounds", &Bounds::of(set))?;
    state.serialize_field("rows", rows)?;
    state.end()
}

/// A map's rows: the keys and values side by side.
pub(super) struct MapRowsOut<'a, K, V> {
    keys: &'a [K],
    values: &'a [V],
}

impl<K: Serialize, V: Serialize> Serialize for MapRowsOut<'_, K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.keys.len()))?;
        for row in self.keys.iter().zip(self.values) {
            seq.serialize_element(&row)?;
        }
        seq.end()
    }
}

/// A derived storage's rows: each key with the element `value_at` makes for its position.
pub(super) struct StorageRowsOut<'a, K, F> {
    pub(super) keys: &'a [K],
    pub(super) value_at: F,
}

impl<K, V, F> Serialize for StorageRowsOut<'_, K, F>
where
    K: Serialize,
    V: Serialize,
    F: Fn(usize) -> Option<V>,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.keys.len()))?;
        for (index, key) in self.keys.iter().enumerate() {
            if let Some(value) = (self.value_at)(index) {
                seq.serialize_element(&(key, value))?;
            }
        }
        seq.end()
    }
}
