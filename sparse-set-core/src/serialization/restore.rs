//! Loading storages: [`Restore`], and the visitors that read a storage's struct and rows and
//! refuse what the module docs list, row by row, before the storage is handed out.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use ::serde::Deserialize;
use ::serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::dense::DenseIndex;
use crate::error::Error;
use crate::key::Key;
use crate::map::SparseMap;
use crate::serialization::MAX_BOUNDED_BYTES;
use crate::serialization::format::{
    Bounds, FieldIn, KeyRow, PairRow, Row, cautious, preallocated, push,
};
use crate::set::SparseSet;
use crate::storage::Storage;

/// A storage that deserializing can read, validating it, within a limit on the memory its bounds
/// may claim: what [`Load`](crate::serialization::Load) calls.
///
/// Implemented for [`SparseSet`] and [`SparseMap`], and for every storage `#[derive(SparseSoa)]`
/// generates with `#[sparse_soa(serde)]`. Their `Deserialize` impls call it with
/// [`MAX_BOUNDED_BYTES`].
pub trait Restore<'de>: Storage + Sized {
    /// Reads the storage from `deserializer`, refusing what the [module docs](crate::serialization) list, and
    /// bounds that would allocate more than `max_bounded_bytes` up front.
    ///
    /// Computes in **O(rows)** time.
    ///
    /// # Errors
    ///
    /// The deserializer's error, with a message naming the row, the key and the limit.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::serialization::Restore;
    ///
    /// let text = r#"{"bounds":{"capacity":4,"key_limit":100000},"keys":[3]}"#;
    /// let mut json = serde_json::Deserializer::from_str(text);
    /// let error = SparseSet::<u32>::restore(&mut json, 1024).unwrap_err();
    /// assert!(error.to_string().contains("more than the 1024 bytes"));
    /// let mut json = serde_json::Deserializer::from_str(text);
    /// let set = SparseSet::<u32>::restore(&mut json, 1 << 20).unwrap();
    /// assert_eq!(set.key_limit(), Some(100_000));
    /// ```
    fn restore<D: Deserializer<'de>>(
        deserializer: D,
        max_bounded_bytes: usize,
    ) -> Result<Self, D::Error>;
}

impl<'de, K: Key + Deserialize<'de>, D: DenseIndex> Restore<'de> for SparseSet<K, D> {
    fn restore<De: Deserializer<'de>>(
        deserializer: De,
        max_bounded_bytes: usize,
    ) -> Result<Self, De::Error> {
        restore::<Self, KeyRow<K>, De>(deserializer, max_bounded_bytes)
    }
}

impl<'de, K, V, D> Restore<'de> for SparseMap<K, V, D>
where
    K: Key + Deserialize<'de>,
    V: Deserialize<'de>,
    D: DenseIndex,
{
    fn restore<De: Deserializer<'de>>(
        deserializer: De,
        max_bounded_bytes: usize,
    ) -> Result<Self, De::Error> {
        restore::<Self, PairRow<K, V>, De>(deserializer, max_bounded_bytes)
    }
}

/// Reads and validates a set: see the [module docs](crate::serialization) for what it refuses.
impl<'de, K: Key + Deserialize<'de>, D: DenseIndex> Deserialize<'de> for SparseSet<K, D> {
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        Self::restore(deserializer, MAX_BOUNDED_BYTES)
    }
}

/// Reads and validates a map: see the [module docs](crate::serialization) for what it refuses.
impl<'de, K, V, D> Deserialize<'de> for SparseMap<K, V, D>
where
    K: Key + Deserialize<'de>,
    V: Deserialize<'de>,
    D: DenseIndex,
{
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        Self::restore(deserializer, MAX_BOUNDED_BYTES)
    }
}

/// What deserializing needs of a storage beyond [`Storage`] (which reserves room): to be made
/// empty, growable or bounded.
pub trait Rebuild: Storage + Default {
    /// The storage's `try_bounded`.
    ///
    /// # Errors
    ///
    /// As the storage's `try_bounded`.
    fn try_bounded(capacity: usize, key_limit: usize) -> Result<Self, Error>;

    /// The bytes [`try_bounded`](Self::try_bounded) allocates up front for these bounds: the
    /// key index and the values, and for a derived storage with tracked fields their stamps
    /// (`stamp_bytes` a row, which such a storage passes here).
    ///
    /// # Errors
    ///
    /// As `try_bounded` decides before allocating: `Error::DenseIndexOverflow`,
    /// `Error::BoundPastKeys` or `Error::CapacityOverflow`.
    fn bounded_bytes(capacity: usize, key_limit: usize) -> Result<usize, Error> {
        bounded_bytes::<Self>(capacity, key_limit, 0)
    }
}

/// [`Rebuild::bounded_bytes`] of a storage whose rows keep `stamp_bytes` beside their value.
///
/// # Errors
///
/// As [`Rebuild::bounded_bytes`].
pub fn bounded_bytes<S: Storage>(
    capacity: usize,
    key_limit: usize,
    stamp_bytes: usize,
) -> Result<usize, Error> {
    SparseSet::<S::Key, S::Dense>::bounded_bytes(
        capacity,
        key_limit,
        &[size_of::<S::Value>(), stamp_bytes],
    )
}

impl<K: Key, D: DenseIndex> Rebuild for SparseSet<K, D> {
    fn try_bounded(capacity: usize, key_limit: usize) -> Result<Self, Error> {
        Self::try_bounded(capacity, key_limit)
    }
}

impl<K: Key, V, D: DenseIndex> Rebuild for SparseMap<K, V, D> {
    fn try_bounded(capacity: usize, key_limit: usize) -> Result<Self, Error> {
        Self::try_bounded(capacity, key_limit)
    }
}

/// Reads a storage of rows `R`: the struct, in either order of its fields in a map, or as a
/// sequence (bounds first).
pub(super) fn restore<'de, S, R, De>(
    deserializer: De,
    max_bounded_bytes: usize,
) -> Result<S, De::Error>
where
    S: Rebuild,
    R: Row<S::Key, S::Value> + Deserialize<'de>,
    De: Deserializer<'de>,
{
    let visitor = StorageVisitor::<S, R> { max_bounded_bytes, marker: PhantomData };
    deserializer.deserialize_struct(R::STRUCT, R::FIELDS, visitor)
}

pub(super) struct StorageVisitor<S, R> {
    max_bounded_bytes: usize,
    marker: PhantomData<fn() -> (S, R)>,
}

impl<'de, S, R> Visitor<'de> for StorageVisitor<S, R>
where
    S: Rebuild,
    R: Row<S::Key, S::Value> + Deserialize<'de>,
{
    type Value = S;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a storage: a struct of `bounds` and `{}`", R::FIELDS[1])
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<S, A::Error> {
        let bounds: Option<Bounds> =
            seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let mut storage = make(bounds, self.max_bounded_bytes)?;
        let rows = RowsIn::<S, R> { storage: &mut storage, marker: PhantomData };
        seq.next_element_seed(rows)?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Ok(storage)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<S, A::Error> {
        let mut bounds: Option<Option<Bounds>> = None;
        let mut storage: Option<S> = None;
        // Rows that came before the bounds: kept until the storage can be made.
        let mut early: Option<Vec<R>> = None;
        while let Some(field) = map.next_key_seed(FieldIn(R::FIELDS))? {
            if field == 0 {
                if bounds.is_some() {
                    return Err(de::Error::duplicate_field("bounds"));
                }
                bounds = Some(map.next_value()?);
            } else {
                if storage.is_some() || early.is_some() {
                    return Err(de::Error::duplicate_field(R::FIELDS[1]));
                }
                if let Some(bounds) = bounds {
                    let mut made = make(bounds, self.max_bounded_bytes)?;
                    let rows = RowsIn::<S, R> { storage: &mut made, marker: PhantomData };
                    map.next_value_seed(rows)?;
                    storage = Some(made);
                } else {
                    early = Some(map.next_value_seed(BufferIn(PhantomData))?);
                }
            }
        }
        if let Some(storage) = storage {
            return Ok(storage);
        }
        let Some(rows) = early else {
            return Err(de::Error::missing_field(R::FIELDS[1]));
        };
        // A missing `bounds` is a growable storage, as `null` is.
        let mut storage: S = make(bounds.flatten(), self.max_bounded_bytes)?;
        storage.try_reserve(rows.len()).map_err(de::Error::custom)?;
        for (index, row) in rows.into_iter().enumerate() {
            let (key, value) = row.parts();
            insert_row(&mut storage, index, key, value)?;
        }
        Ok(storage)
    }
}

/// An empty storage with `bounds`, if they are valid and claim at most `max_bytes`.
pub(super) fn make<S: Rebuild, E: de::Error>(
    bounds: Option<Bounds>,
    max_bytes: usize,
) -> Result<S, E> {
    let Some(Bounds { capacity, key_limit }) = bounds else {
        return Ok(S::default());
    };
    match S::bounded_bytes(capacity, key_limit) {
        Err(Error::DenseIndexOverflow { width, max_len }) => Err(E::custom(format_args!(
            "bounded capacity {capacity} is more than dense index type `{width}` addresses \
             ({max_len} elements)"
        ))),
        Err(Error::BoundPastKeys { slots, .. }) => Err(E::custom(format_args!(
            "bounded key range 0..{key_limit} is past the {slots} slots the keys can take"
        ))),
        Err(_) => Err(E::custom(format_args!(
            "a bounded storage of capacity {capacity} and key range 0..{key_limit} needs more \
             memory than the address space has"
        ))),
        Ok(bytes) if bytes > max_bytes => Err(E::custom(format_args!(
            "a bounded storage of capacity {capacity} and key range 0..{key_limit} allocates \
             {bytes} bytes up front, more than the {max_bytes} bytes allowed (see \
             `serialization::Load::max_bounded_bytes`)"
        ))),
        Ok(_) => S::try_bounded(capacity, key_limit).map_err(|error| {
            E::custom(format_args!(
                "a bounded storage of capacity {capacity} and key range 0..{key_limit}: {error}"
            ))
        }),
    }
}

/// Inserts the row at `index`, refusing a key whose slot is taken (the same key, or another
/// version of it) and whatever the storage refuses, with a message naming the row and the key.
pub(super) fn insert_row<S: Storage, E: de::Error>(
    storage: &mut S,
    index: usize,
    key: S::Key,
    value: S::Value,
) -> Result<(), E> {
    let set = storage.as_sparse_set();
    if let Some(held) = set.slot_holder(key) {
        let at = set.get_index_of(held).unwrap_or(index);
        return Err(if held == key {
            E::custom(format_args!("row {index}: duplicate key {key:?} (row {at} holds it)"))
        } else {
            E::custom(format_args!(
                "row {index}: key {key:?} shares slot {} with key {held:?} of row {at}: a \
                 storage holds one key per slot",
                key.sparse_slot()
            ))
        });
    }
    match storage.try_insert(key, value) {
        Ok(_) => Ok(()),
        Err(Error::KeyOutOfRange { limit, .. }) => Err(E::custom(format_args!(
            "row {index}: key {key:?} is outside the bounded key range 0..{limit}"
        ))),
        Err(Error::Full { capacity }) => Err(E::custom(format_args!(
            "row {index}: key {key:?} does not fit: the bounded capacity is {capacity}"
        ))),
        Err(Error::DenseIndexOverflow { width, max_len }) => Err(E::custom(format_args!(
            "row {index}: key {key:?} does not fit: dense index type `{width}` addresses at \
             most {max_len} elements"
        ))),
        Err(error) => Err(E::custom(format_args!("row {index}: key {key:?}: {error}"))),
    }
}

/// The rows of a storage, inserted into it as they arrive.
pub(super) struct RowsIn<'s, S, R> {
    storage: &'s mut S,
    marker: PhantomData<fn() -> R>,
}

impl<'de, S, R> DeserializeSeed<'de> for RowsIn<'_, S, R>
where
    S: Rebuild,
    R: Row<S::Key, S::Value> + Deserialize<'de>,
{
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, S, R> Visitor<'de> for RowsIn<'_, S, R>
where
    S: Rebuild,
    R: Row<S::Key, S::Value> + Deserialize<'de>,
{
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {} of a storage, in dense order", R::FIELDS[1])
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // Does nothing for a bounded storage, which has its room already.
        let room = cautious::<(S::Key, S::Value)>(seq.size_hint());
        self.storage.try_reserve(room).map_err(de::Error::custom)?;
        let mut index = 0;
        while let Some(row) = seq.next_element::<R>()? {
            let (key, value) = row.parts();
            insert_row(self.storage, index, key, value)?;
            index += 1;
        }
        Ok(())
    }
}

/// Rows read before the bounds, kept as they are.
pub(super) struct BufferIn<R>(PhantomData<fn() -> R>);

impl<'de, R: Deserialize<'de>> DeserializeSeed<'de> for BufferIn<R> {
    type Value = Vec<R>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<R>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, R: Deserialize<'de>> Visitor<'de> for BufferIn<R> {
    type Value = Vec<R>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the rows of a storage, in dense order")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<R>, A::Error> {
        let mut rows = preallocated::<R, A::Error>(seq.size_hint())?;
        while let Some(row) = seq.next_element()? {
            push(&mut rows, row)?;
        }
        Ok(rows)
    }
}
