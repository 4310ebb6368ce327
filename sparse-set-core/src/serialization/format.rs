//! The pieces of the formats that saving and loading share: a bounded storage's bounds, the
//! rows of sets (keys) and of every other storage (`[key, value]`), field names, and growing
//! collections from untrusted lengths.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use ::serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use ::serde::ser::{SerializeStruct, Serializer};
use ::serde::{Deserialize, Serialize};

use crate::dense::DenseIndex;
use crate::error::{try_reserve, try_reserve_exact};
use crate::key::Key;
use crate::serialization::MAX_PREALLOCATION;
use crate::set::SparseSet;

pub(super) const BOUNDS_FIELDS: &[&str] = &["capacity", "key_limit"];

/// A bounded storage's capacity and key limit, as saved.
#[derive(Clone, Copy)]
pub(super) struct Bounds {
    pub(super) capacity: usize,
    pub(super) key_limit: usize,
}

impl Bounds {
    /// The bounds of `set`; `None` for a growable set.
    pub(super) fn of<K: Key, D: DenseIndex>(set: &SparseSet<K, D>) -> Option<Self> {
        set.key_limit().map(|key_limit| Bounds { capacity: set.capacity(), key_limit })
    }
}

impl Serialize for Bounds {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("Bounds", 2)?;
        state.serialize_field("capacity", &self.capacity)?;
        state.serialize_field("key_limit", &self.key_limit)?;
        state.end()
    }
}

impl<'de> Deserialize<'de> for Bounds {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("Bounds", BOUNDS_FIELDS, BoundsVisitor)
    }
}

pub(super) struct BoundsVisitor;

impl<'de> Visitor<'de> for BoundsVisitor {
    type Value = Bounds;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the bounds of a bounded storage: a struct of `capacity` and `key_limit`")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Bounds, A::Error> {
        let capacity = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let key_limit = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Ok(Bounds { capacity, key_limit })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Bounds, A::Error> {
        let mut fields: [Option<usize>; 2] = [None, None];
        while let Some(field) = map.next_key_seed(FieldIn(BOUNDS_FIELDS))? {
            if fields[field].is_some() {
                return Err(de::Error::duplicate_field(BOUNDS_FIELDS[field]));
            }
            fields[field] = Some(map.next_value()?);
        }
        let [capacity, key_limit] = fields;
        Ok(Bounds {
            capacity: capacity.ok_or_else(|| de::Error::missing_field("capacity"))?,
            key_limit: key_limit.ok_or_else(|| de::Error::missing_field("key_limit"))?,
        })
    }
}

/// How a storage's rows look: a set's are keys, every other storage's are `[key, value]`.
pub(super) trait Row<K, V>: Sized {
    /// The struct's name.
    const STRUCT: &'static str;
    /// The struct's fields: `bounds`, then the rows.
    const FIELDS: &'static [&'static str];
    /// The key and the value of the row.
    fn parts(self) -> (K, V);
}

/// A row of a set: its key.
pub(super) struct KeyRow<K>(pub(super) K);

impl<K> Row<K, ()> for KeyRow<K> {
    const STRUCT: &'static str = "SparseSet";
    const FIELDS: &'static [&'static str] = &["bounds", "keys"];

    fn parts(self) -> (K, ()) {
        (self.0, ())
    }
}

impl<'de, K: Deserialize<'de>> Deserialize<'de> for KeyRow<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        K::deserialize(deserializer).map(KeyRow)
    }
}

/// A row of a map or a derived storage: a key and its value.
pub(super) struct PairRow<K, V>(pub(super) K, pub(super) V);

impl<K, V> Row<K, V> for PairRow<K, V> {
    const STRUCT: &'static str = "SparseMap";
    const FIELDS: &'static [&'static str] = &["bounds", "rows"];

    fn parts(self) -> (K, V) {
        (self.0, self.1)
    }
}

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for PairRow<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_tuple(2, PairRowVisitor(PhantomData))
    }
}

pub(super) struct PairRowVisitor<K, V>(PhantomData<fn() -> (K, V)>);

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for PairRowVisitor<K, V> {
    type Value = PairRow<K, V>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a row: a key and its value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let key = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let value = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Ok(PairRow(key, value))
    }
}

/// A field name (or its position, for formats that number fields) among `self.0`.
pub(super) struct FieldIn(pub(super) &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for FieldIn {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for FieldIn {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<usize, E> {
        usize::try_from(value).ok().filter(|&index| index < self.0.len()).ok_or_else(|| {
            E::invalid_value(de::Unexpected::Unsigned(value), &"the index of a field")
        })
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<usize, E> {
        self.0.iter().position(|&name| name == value).ok_or_else(|| E::unknown_field(value, self.0))
    }

    fn visit_bytes<E: de::Error>(self, value: &[u8]) -> Result<usize, E> {
        match core::str::from_utf8(value) {
            Ok(value) => self.visit_str(value),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(value), &self)),
        }
    }
}

/// How many elements of `T` to reserve for a sequence announcing `hint`: at most
/// [`MAX_PREALLOCATION`] bytes' worth, whatever the input claims.
pub(super) fn cautious<T>(hint: Option<usize>) -> usize {
    hint.unwrap_or(0).min(MAX_PREALLOCATION / size_of::<T>().max(1))
}

/// An empty `Vec` with room for what `hint` announces, [`cautious`]ly.
pub(super) fn preallocated<T, E: de::Error>(hint: Option<usize>) -> Result<Vec<T>, E> {
    let mut vec = Vec::new();
    try_reserve_exact(&mut vec, cautious::<T>(hint)).map_err(E::custom)?;
    Ok(vec)
}

/// `vec.push(value)`, growing fallibly.
pub(super) fn push<T, E: de::Error>(vec: &mut Vec<T>, value: T) -> Result<(), E> {
    try_reserve(vec, 1).map_err(E::custom)?;
    vec.push(value);
    Ok(())
}
