//! Serialization with [serde](https://serde.rs) (feature `serde`): [`Entity`], [`Entities`],
//! [`SparseSet`] and [`SparseMap`] implement `Serialize` and `Deserialize`, and so do the
//! storages `#[derive(SparseSoa)]` generates when marked `#[sparse_soa(serde)]` (in
//! `sparse-soa`).
//!
//! Deserializing validates everything: input that does not describe a state the API could have
//! made is refused with an error that names what is wrong, never a panic, and no length read
//! from the input is trusted for an allocation. Loading untrusted input is safe.
//!
//! (The module is not named `serde`, so that a glob import of this crate never makes the name
//! `serde` ambiguous in code that uses the serde crate.)
//!
//! # Formats
//!
//! | type | serialized as | in JSON |
//! |---|---|---|
//! | [`Entity`] | its [`to_bits`](Entity::to_bits): a `u64`, generation in the high half | `4294967296` (`0v1`) |
//! | [`Entities`] | a struct `Entities`: `slots`, each slot's generation and whether it is alive, in slot order; `free`, the free list in order | `{"slots":[[2,false],[1,true]],"free":[0]}` |
//! | [`SparseSet<K, D>`] | a struct `SparseSet`: `bounds`, and `keys` in dense order | `{"bounds":null,"keys":[7,3]}` |
//! | [`SparseMap<K, V, D>`], a derived storage | a struct `SparseMap`: `bounds`, and `rows`, each a key and its value, in dense order | `{"bounds":null,"rows":[[7,"seven"],[3,"three"]]}` |
//!
//! `bounds` is `null` (`None`) for a growable storage and `{"capacity":8,"key_limit":128}` for
//! a [`bounded`](SparseSet::bounded) one, which is bounded alike when loaded. A derived storage
//! has the format of a `SparseMap` whose values are the struct, so either loads what the other
//! saved. The dense width `D` is not part of the format: a set saved with one width loads with
//! another if its keys fit.
//!
//! Every storage keeps its dense order, so a round trip gives the same `keys()` slice and the
//! same values in the same positions. [`Entities`] keeps its generations and its free list, so
//! after a round trip [`spawn`](Entities::spawn) issues exactly the handles the original would
//! have issued, and every old handle is alive or stale exactly as before.
//!
//! ```
//! use sparse_set_core::{Entities, Entity, SparseMap};
//!
//! let mut entities = Entities::new();
//! let [a, b] = [entities.spawn(), entities.spawn()];
//! entities.despawn(a);
//! let mut health: SparseMap<Entity, u32> = SparseMap::new();
//! health.insert(b, 30);
//!
//! let saved = serde_json::to_string(&(&entities, &health)).unwrap();
//! let (mut entities, health): (Entities, SparseMap<Entity, u32>) =
//!     serde_json::from_str(&saved).unwrap();
//! assert!(!entities.is_alive(a) && entities.is_alive(b));
//! assert_eq!(health.get(b), Some(&30));
//! let c = entities.spawn(); // slot 0 again, one generation later, as before the round trip
//! assert_eq!((c.index(), c.generation().get()), (0, 2));
//! ```
//!
//! # What deserializing refuses
//!
//! Each of these is an error of the format (`serde_json::Error`, `postcard::Error`, ...) whose
//! message, in formats that keep messages (JSON does; postcard only says that deserializing
//! failed), names the row, the key and the limit:
//!
//! - in a storage: a duplicate key ("row 2: duplicate key 7 (row 0 holds it)"); for keys that
//!   carry a version, two versions of one slot (an [`Entity`] of the same index and another
//!   generation: a storage holds one key per slot); a key outside a bounded storage's key range;
//!   more rows than its capacity, or than the dense width addresses
//!   ([`DenseIndex::MAX_LEN`]);
//! - bounds that are invalid themselves (a capacity past what the dense width addresses), or
//!   that would allocate more than [`MAX_BOUNDED_BYTES`] up front (a bounded storage allocates
//!   its whole key range when it is made; [`Load::max_bounded_bytes`] raises the limit);
//! - in an [`Entities`]: generation 0, a free list entry past the slots, naming a live slot, or
//!   named twice, a dead slot missing from the free list (only a slot despawned at the last
//!   generation, `u32::MAX`, is retired and left off it), more slots than an index addresses;
//! - an [`Entity`] whose generation half is zero;
//! - malformed input: a row that is not a key and a value, a missing, duplicate or unknown
//!   field, a value of the wrong type.
//!
//! Lengths announced by the input only ever reserve a little memory (at most 1 MiB, as serde's
//! own collections do); everything else grows as elements actually arrive, fallibly: a failed
//! allocation is an error of the format, not an abort.
//!
//! # Storages keyed by `Entity`
//!
//! A storage and the allocator that issued its keys are saved separately, so nothing in a
//! storage's own data says whether its entities are alive. After loading both, check:
//! [`check_alive`] over a storage's keys, or, while deserializing, [`Load`] with
//! [`alive_in`](Load::alive_in). Either refuses a key the allocator does not say is alive,
//! naming it and what its slot holds.
//!
//! ```
//! use sparse_set_core::serialization::check_alive;
//! use sparse_set_core::{Entities, Entity, SparseMap};
//!
//! let mut entities = Entities::new();
//! let [a, b] = [entities.spawn(), entities.spawn()];
//! let mut health: SparseMap<Entity, u32> = SparseMap::new();
//! health.insert(a, 10);
//! health.insert(b, 20);
//! let saved_health = serde_json::to_string(&health).unwrap();
//! entities.despawn(b); // the allocator was saved later, after a despawn
//! let saved_entities = serde_json::to_string(&entities).unwrap();
//!
//! let entities: Entities = serde_json::from_str(&saved_entities).unwrap();
//! let health: SparseMap<Entity, u32> = serde_json::from_str(&saved_health).unwrap();
//! let error = check_alive(&entities, health.keys()).unwrap_err();
//! assert_eq!(error.entity(), b);
//! assert_eq!(error.to_string(), "entity 1v1 (position 1) is not alive: slot 1 is dead");
//! ```

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::num::NonZeroU32;

use ::serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use ::serde::ser::{SerializeSeq, SerializeStruct, Serializer};
use ::serde::{Deserialize, Serialize};

use crate::dense::DenseIndex;
use crate::entity::{Entities, Entity, Slot};
use crate::error::{Error, try_reserve, try_reserve_exact};
use crate::key::Key;
use crate::map::SparseMap;
use crate::set::SparseSet;
use crate::storage::Storage;

/// The most bytes a bounded storage read by `Deserialize` may allocate up front for its bounds:
/// 16 MiB.
///
/// A [`bounded`](SparseSet::bounded) storage allocates its capacity and the sparse pages of its
/// whole key range when it is made, so bounds read from the input are an allocation the input
/// asks for. Up to this many bytes it is granted (a key range of 4 million slots at the `u32`
/// width, 16 million at `u8`); past it, deserializing is refused, unless a [`Load`] with
/// [`max_bounded_bytes`](Load::max_bounded_bytes) sets another limit. Growable storages are not
/// concerned: they grow with the rows that actually arrive.
///
/// ```
/// use sparse_set_core::SparseSet;
/// use sparse_set_core::serialization::MAX_BOUNDED_BYTES;
///
/// let huge = r#"{"bounds":{"capacity":8,"key_limit":4000000000},"keys":[]}"#;
/// let error = serde_json::from_str::<SparseSet<u32>>(huge).unwrap_err();
/// assert!(error.to_string().contains(&format!("more than the {MAX_BOUNDED_BYTES} bytes")));
/// ```
pub const MAX_BOUNDED_BYTES: usize = 16 << 20;

/// The most bytes a length announced by the input may reserve before its elements arrive (the
/// limit serde's own collections use).
const MAX_PREALLOCATION: usize = 1 << 20;

// ---------------------------------------------------------------------------------------------
// Entity
// ---------------------------------------------------------------------------------------------

/// An entity is its [`to_bits`](Entity::to_bits): one `u64`.
impl Serialize for Entity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.to_bits())
    }
}

/// Reads a `u64` and unpacks it with [`Entity::from_bits`]; a zero generation half is an error.
impl<'de> Deserialize<'de> for Entity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let bits = u64::deserialize(deserializer)?;
        Entity::from_bits(bits).ok_or_else(|| {
            de::Error::invalid_value(
                de::Unexpected::Unsigned(bits),
                &"an entity: a u64 whose high half (the generation) is not zero",
            )
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Entities
// ---------------------------------------------------------------------------------------------

const ENTITIES_FIELDS: &[&str] = &["slots", "free"];

/// A struct `Entities` of `slots` (each `[generation, alive]`, in slot order) and `free` (the
/// free list, in order).
impl Serialize for Entities {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("Entities", 2)?;
        state.serialize_field("slots", &SlotsOut(&self.slots))?;
        state.serialize_field("free", &self.free)?;
        state.end()
    }
}

/// The slots as a sequence of `(generation, alive)`.
struct SlotsOut<'a>(&'a [Slot]);

impl Serialize for SlotsOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for slot in self.0 {
            seq.serialize_element(&(slot.generation.get(), slot.alive))?;
        }
        seq.end()
    }
}

/// Reads and validates an allocator: see the [module docs](self) for what it refuses.
impl<'de> Deserialize<'de> for Entities {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("Entities", ENTITIES_FIELDS, EntitiesVisitor)
    }
}

struct EntitiesVisitor;

impl<'de> Visitor<'de> for EntitiesVisitor {
    type Value = Entities;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an entity allocator: a struct of `slots` and `free`")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entities, A::Error> {
        let slots =
            seq.next_element_seed(SlotsIn)?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let free =
            seq.next_element_seed(FreeIn)?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
        validate_entities(slots, free)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entities, A::Error> {
        let mut slots = None;
        let mut free = None;
        while let Some(field) = map.next_key_seed(FieldIn(ENTITIES_FIELDS))? {
            if field == 0 {
                if slots.is_some() {
                    return Err(de::Error::duplicate_field("slots"));
                }
                slots = Some(map.next_value_seed(SlotsIn)?);
            } else {
                if free.is_some() {
                    return Err(de::Error::duplicate_field("free"));
                }
                free = Some(map.next_value_seed(FreeIn)?);
            }
        }
        let slots = slots.ok_or_else(|| de::Error::missing_field("slots"))?;
        let free = free.ok_or_else(|| de::Error::missing_field("free"))?;
        validate_entities(slots, free)
    }
}

/// The `slots` of an allocator: `(generation, alive)` pairs, generation 0 refused.
struct SlotsIn;

impl<'de> DeserializeSeed<'de> for SlotsIn {
    type Value = Vec<Slot>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<Slot>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SlotsIn {
    type Value = Vec<Slot>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of slots, each a generation and whether it is alive")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Slot>, A::Error> {
        let mut slots = preallocated::<Slot, A::Error>(seq.size_hint())?;
        while let Some((generation, alive)) = seq.next_element::<(u32, bool)>()? {
            let index = slots.len();
            let Some(generation) = NonZeroU32::new(generation) else {
                return Err(de::Error::custom(format_args!(
                    "slot {index} has generation 0, which no entity has"
                )));
            };
            push(&mut slots, Slot { generation, alive })?;
        }
        Ok(slots)
    }
}

/// The free list of an allocator: slot indices.
struct FreeIn;

impl<'de> DeserializeSeed<'de> for FreeIn {
    type Value = Vec<u32>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<u32>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for FreeIn {
    type Value = Vec<u32>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a free list: a sequence of slot indices")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u32>, A::Error> {
        let mut free = preallocated::<u32, A::Error>(seq.size_hint())?;
        while let Some(index) = seq.next_element::<u32>()? {
            push(&mut free, index)?;
        }
        Ok(free)
    }
}

/// The allocator of `slots` and `free`, if they make one the API could have made: every free
/// list entry names a dead slot, once; every dead slot below the last generation is on the free
/// list; there are at most 2^32 slots. `len` is counted, so it cannot disagree, and the free list
/// gets room for every slot.
fn validate_entities<E: de::Error>(slots: Vec<Slot>, mut free: Vec<u32>) -> Result<Entities, E> {
    let count = slots.len();
    if count as u64 > 1 << 32 {
        return Err(E::custom(format_args!(
            "{count} slots are more than the 2^32 an entity index addresses"
        )));
    }
    let mut on_free_list = Vec::new();
    try_reserve_exact(&mut on_free_list, count).map_err(E::custom)?;
    on_free_list.resize(count, false);
    for (position, &index) in free.iter().enumerate() {
        let Some(slot) = slots.get(index as usize) else {
            return Err(E::custom(format_args!(
                "free list entry {position} names slot {index}, but there are only {count} slots"
            )));
        };
        if slot.alive {
            return Err(E::custom(format_args!(
                "free list entry {position} names slot {index}, which is alive"
            )));
        }
        if core::mem::replace(&mut on_free_list[index as usize], true) {
            return Err(E::custom(format_args!("slot {index} is on the free list twice")));
        }
    }
    let mut len = 0;
    for (index, (slot, &is_free)) in slots.iter().zip(&on_free_list).enumerate() {
        len += usize::from(slot.alive);
        if !slot.alive && !is_free && slot.generation != NonZeroU32::MAX {
            return Err(E::custom(format_args!(
                "slot {index} is dead at generation {} but not on the free list: only a slot \
                 despawned at the last generation ({}) is retired",
                slot.generation,
                u32::MAX,
            )));
        }
    }
    // The allocator's own invariant: its free list has room for every slot, so that `despawn`
    // never allocates.
    let missing = count - free.len();
    try_reserve_exact(&mut free, missing).map_err(E::custom)?;
    Ok(Entities { slots, free, len })
}

// ---------------------------------------------------------------------------------------------
// Bounds
// ---------------------------------------------------------------------------------------------

const BOUNDS_FIELDS: &[&str] = &["capacity", "key_limit"];

/// A bounded storage's capacity and key limit, as saved.
#[derive(Clone, Copy)]
struct Bounds {
    capacity: usize,
    key_limit: usize,
}

impl Bounds {
    /// The bounds of `set`; `None` for a growable set.
    fn of<K: Key, D: DenseIndex>(set: &SparseSet<K, D>) -> Option<Self> {
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

struct BoundsVisitor;

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

// ---------------------------------------------------------------------------------------------
// Storages: serializing
// ---------------------------------------------------------------------------------------------

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
fn serialize_storage<S: Serializer, K: Key, D: DenseIndex>(
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
struct MapRowsOut<'a, K, V> {
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
struct StorageRowsOut<'a, K, F> {
    keys: &'a [K],
    value_at: F,
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

// ---------------------------------------------------------------------------------------------
// Storages: deserializing
// ---------------------------------------------------------------------------------------------

/// A storage that deserializing can read, validating it, within a limit on the memory its bounds
/// may claim: what [`Load`] calls.
///
/// Implemented for [`SparseSet`] and [`SparseMap`], and for every storage `#[derive(SparseSoa)]`
/// generates with `#[sparse_soa(serde)]`. Their `Deserialize` impls call it with
/// [`MAX_BOUNDED_BYTES`].
pub trait Restore<'de>: Storage + Sized {
    /// Reads the storage from `deserializer`, refusing what the [module docs](self) list, and
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

/// Reads and validates a set: see the [module docs](self) for what it refuses.
impl<'de, K: Key + Deserialize<'de>, D: DenseIndex> Deserialize<'de> for SparseSet<K, D> {
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        Self::restore(deserializer, MAX_BOUNDED_BYTES)
    }
}

/// Reads and validates a map: see the [module docs](self) for what it refuses.
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

impl<K: Key, D: DenseIndex> derive::Rebuild for SparseSet<K, D> {
    fn try_bounded(capacity: usize, key_limit: usize) -> Result<Self, Error> {
        Self::try_bounded(capacity, key_limit)
    }

    fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        Self::try_reserve(self, additional)
    }
}

impl<K: Key, V, D: DenseIndex> derive::Rebuild for SparseMap<K, V, D> {
    fn try_bounded(capacity: usize, key_limit: usize) -> Result<Self, Error> {
        Self::try_bounded(capacity, key_limit)
    }

    fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        Self::try_reserve(self, additional)
    }
}

/// How a storage's rows look: a set's are keys, every other storage's are `[key, value]`.
trait Row<K, V>: Sized {
    /// The struct's name.
    const STRUCT: &'static str;
    /// The struct's fields: `bounds`, then the rows.
    const FIELDS: &'static [&'static str];
    /// The key and the value of the row.
    fn parts(self) -> (K, V);
}

/// A row of a set: its key.
struct KeyRow<K>(K);

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
struct PairRow<K, V>(K, V);

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

struct PairRowVisitor<K, V>(PhantomData<fn() -> (K, V)>);

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

/// Reads a storage of rows `R`: the struct, in either order of its fields in a map, or as a
/// sequence (bounds first).
fn restore<'de, S, R, De>(deserializer: De, max_bounded_bytes: usize) -> Result<S, De::Error>
where
    S: derive::Rebuild,
    R: Row<S::Key, S::Value> + Deserialize<'de>,
    De: Deserializer<'de>,
{
    let visitor = StorageVisitor::<S, R> { max_bounded_bytes, marker: PhantomData };
    deserializer.deserialize_struct(R::STRUCT, R::FIELDS, visitor)
}

struct StorageVisitor<S, R> {
    max_bounded_bytes: usize,
    marker: PhantomData<fn() -> (S, R)>,
}

impl<'de, S, R> Visitor<'de> for StorageVisitor<S, R>
where
    S: derive::Rebuild,
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
fn make<S: derive::Rebuild, E: de::Error>(
    bounds: Option<Bounds>,
    max_bytes: usize,
) -> Result<S, E> {
    let Some(Bounds { capacity, key_limit }) = bounds else {
        return Ok(S::default());
    };
    let bytes = SparseSet::<S::Key, S::Dense>::bounded_bytes(capacity, key_limit).and_then(|set| {
        capacity
            .checked_mul(size_of::<S::Value>())
            .and_then(|values| values.checked_add(set))
            .ok_or(Error::CapacityOverflow)
    });
    match bytes {
        Err(Error::DenseIndexOverflow { width, max_len }) => Err(E::custom(format_args!(
            "bounded capacity {capacity} is more than dense index type `{width}` addresses \
             ({max_len} elements)"
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
fn insert_row<S: Storage, E: de::Error>(
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
struct RowsIn<'s, S, R> {
    storage: &'s mut S,
    marker: PhantomData<fn() -> R>,
}

impl<'de, S, R> DeserializeSeed<'de> for RowsIn<'_, S, R>
where
    S: derive::Rebuild,
    R: Row<S::Key, S::Value> + Deserialize<'de>,
{
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, S, R> Visitor<'de> for RowsIn<'_, S, R>
where
    S: derive::Rebuild,
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
struct BufferIn<R>(PhantomData<fn() -> R>);

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

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

/// A field name (or its position, for formats that number fields) among `self.0`.
struct FieldIn(&'static [&'static str]);

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
fn cautious<T>(hint: Option<usize>) -> usize {
    hint.unwrap_or(0).min(MAX_PREALLOCATION / size_of::<T>().max(1))
}

/// An empty `Vec` with room for what `hint` announces, [`cautious`]ly.
fn preallocated<T, E: de::Error>(hint: Option<usize>) -> Result<Vec<T>, E> {
    let mut vec = Vec::new();
    try_reserve_exact(&mut vec, cautious::<T>(hint)).map_err(E::custom)?;
    Ok(vec)
}

/// `vec.push(value)`, growing fallibly.
fn push<T, E: de::Error>(vec: &mut Vec<T>, value: T) -> Result<(), E> {
    try_reserve(vec, 1).map_err(E::custom)?;
    vec.push(value);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Loading storages keyed by `Entity`
// ---------------------------------------------------------------------------------------------

/// Deserializes a storage with options: check its keys against an [`Entities`] allocator, or
/// allow its bounds another amount of memory. A serde
/// [`DeserializeSeed`]: `Load::new().deserialize(deserializer)`.
///
/// Without options it reads what `Deserialize` reads.
/// [`alive_in(&entities)`](Self::alive_in) refuses a storage keyed by [`Entity`] holding a key
/// that `entities` does not say is alive (see [`check_alive`]);
/// [`max_bounded_bytes`](Self::max_bounded_bytes) replaces [`MAX_BOUNDED_BYTES`].
///
/// ```
/// use serde::de::DeserializeSeed;
/// use sparse_set_core::serialization::Load;
/// use sparse_set_core::{Entities, Entity, SparseMap};
///
/// let mut entities = Entities::new();
/// let [a, b] = [entities.spawn(), entities.spawn()];
/// let health: SparseMap<Entity, u32> = [(a, 10), (b, 20)].into_iter().collect();
/// let saved = serde_json::to_string(&health).unwrap();
///
/// let mut json = serde_json::Deserializer::from_str(&saved);
/// let loaded: SparseMap<Entity, u32> = Load::new().alive_in(&entities).deserialize(&mut json).unwrap();
/// assert_eq!(loaded.keys(), &[a, b]);
///
/// entities.despawn(a);
/// let mut json = serde_json::Deserializer::from_str(&saved);
/// let error = Load::<SparseMap<Entity, u32>>::new().alive_in(&entities).deserialize(&mut json);
/// assert_eq!(
///     error.unwrap_err().to_string(),
///     "entity 0v1 (position 0) is not alive: slot 0 is dead"
/// );
/// ```
///
/// A field of a struct that derives `Deserialize` takes options through serde's
/// `deserialize_with`:
///
/// ```
/// use serde::de::{DeserializeSeed, Deserializer};
/// use serde::Deserialize;
/// use sparse_set_core::serialization::Load;
/// use sparse_set_core::SparseSet;
///
/// /// A bounded set whose key range may take up to 1 GiB.
/// fn roomy<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SparseSet<u32>, D::Error> {
///     Load::new().max_bounded_bytes(1 << 30).deserialize(deserializer)
/// }
///
/// #[derive(Deserialize)]
/// struct Level {
///     #[serde(deserialize_with = "roomy")]
///     walls: SparseSet<u32>,
/// }
///
/// let walls = r#"{"bounds":{"capacity":2,"key_limit":5000000},"keys":[4999999]}"#;
/// assert!(serde_json::from_str::<SparseSet<u32>>(walls).is_err()); // 20 MB up front
/// let level: Level = serde_json::from_str(&format!(r#"{{"walls":{walls}}}"#)).unwrap();
/// assert_eq!(level.walls.key_limit(), Some(5_000_000));
/// ```
pub struct Load<'a, T> {
    max_bounded_bytes: usize,
    alive: Option<AliveCheck<'a, T>>,
}

/// The allocator to check keys against, and the check, made where the key type is known.
type AliveCheck<'a, T> = (&'a Entities, fn(&Entities, &T) -> Result<(), NotAlive>);

impl<T> Load<'_, T> {
    /// Options that read what `Deserialize` reads.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use serde::de::DeserializeSeed;
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::serialization::Load;
    ///
    /// let mut json = serde_json::Deserializer::from_str(r#"{"bounds":null,"keys":[4,2]}"#);
    /// let set: SparseSet<u32> = Load::new().deserialize(&mut json).unwrap();
    /// assert_eq!(set.as_slice(), &[4, 2]);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self { max_bounded_bytes: MAX_BOUNDED_BYTES, alive: None }
    }

    /// Allows a bounded storage's bounds to allocate up to `bytes` up front, instead of
    /// [`MAX_BOUNDED_BYTES`]. For loading bounded storages with a larger key range from
    /// trusted input, or for refusing smaller ones from untrusted input.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use serde::de::DeserializeSeed;
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::serialization::Load;
    ///
    /// let text = r#"{"bounds":{"capacity":4,"key_limit":1000},"keys":[3]}"#;
    /// let strict = Load::<SparseSet<u32, u8>>::new().max_bounded_bytes(100);
    /// assert!(strict.deserialize(&mut serde_json::Deserializer::from_str(text)).is_err());
    /// let set = Load::<SparseSet<u32, u8>>::new()
    ///     .deserialize(&mut serde_json::Deserializer::from_str(text))
    ///     .unwrap();
    /// assert_eq!((set.capacity(), set.key_limit()), (4, Some(1000)));
    /// ```
    #[must_use]
    pub const fn max_bounded_bytes(mut self, bytes: usize) -> Self {
        self.max_bounded_bytes = bytes;
        self
    }
}

impl<'a, T: Storage<Key = Entity>> Load<'a, T> {
    /// Refuses the storage if one of its keys is not alive in `entities`, with the message of
    /// [`NotAlive`]. The check runs once the storage is read.
    ///
    /// Computes in **O(1)** time; the check costs **O(len)**.
    ///
    /// ```
    /// use serde::de::DeserializeSeed;
    /// use sparse_set_core::serialization::Load;
    /// use sparse_set_core::{Entities, Entity, SparseSet};
    ///
    /// let mut entities = Entities::new();
    /// let e = entities.spawn();
    /// let text = serde_json::to_string(&[e].into_iter().collect::<SparseSet<Entity>>()).unwrap();
    /// let load = Load::<SparseSet<Entity>>::new().alive_in(&entities);
    /// let tagged = load.deserialize(&mut serde_json::Deserializer::from_str(&text)).unwrap();
    /// assert!(tagged.contains(e));
    /// ```
    #[must_use]
    pub fn alive_in(mut self, entities: &'a Entities) -> Self {
        self.alive = Some((entities, |entities: &Entities, storage: &T| {
            check_alive(entities, storage.keys())
        }));
        self
    }
}

impl<T> Default for Load<'_, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for Load<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Load<'_, T> {}

impl<T> fmt::Debug for Load<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Load")
            .field("max_bounded_bytes", &self.max_bounded_bytes)
            .field("alive_in", &self.alive.is_some())
            .finish()
    }
}

impl<'de, T: Restore<'de>> DeserializeSeed<'de> for Load<'_, T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        let storage = T::restore(deserializer, self.max_bounded_bytes)?;
        if let Some((entities, check)) = self.alive {
            check(entities, &storage).map_err(de::Error::custom)?;
        }
        Ok(storage)
    }
}

/// Checks that every entity of `keys` is alive in `entities`: the first that is not is the
/// error, with its position in `keys`.
///
/// For storages keyed by [`Entity`] loaded beside their allocator: pass each storage's keys
/// (`map.keys()`, `set.as_slice()`, a derived storage's `keys()`), or any other slice of
/// entities the saved data holds.
///
/// Computes in **O(`keys.len()`)** time.
///
/// # Errors
///
/// [`NotAlive`] for the first entity `entities` does not say is alive.
///
/// ```
/// use sparse_set_core::serialization::check_alive;
/// use sparse_set_core::Entities;
///
/// let mut entities = Entities::new();
/// let [a, b] = [entities.spawn(), entities.spawn()];
/// assert!(check_alive(&entities, &[a, b]).is_ok());
/// entities.despawn(a);
/// let c = entities.spawn(); // slot 0 again
/// let error = check_alive(&entities, &[b, a]).unwrap_err();
/// assert_eq!((error.entity(), error.position()), (a, 1));
/// assert_eq!(error.to_string(), "entity 0v1 (position 1) is not alive: slot 0 holds 0v2");
/// # assert_eq!(c.generation().get(), 2);
/// ```
pub fn check_alive(entities: &Entities, keys: &[Entity]) -> Result<(), NotAlive> {
    for (position, &entity) in keys.iter().enumerate() {
        if !entities.is_alive(entity) {
            let slot = match entities.slots.get(entity.index() as usize) {
                None => SlotState::Missing { slots: entities.slots.len() },
                Some(slot) if slot.alive => SlotState::Holds(slot.generation),
                Some(_) => SlotState::Dead,
            };
            return Err(NotAlive { position, entity, slot });
        }
    }
    Ok(())
}

/// An entity that its allocator does not say is alive: what [`check_alive`] and
/// [`Load::alive_in`] refuse.
///
/// Its message names the entity, its position and what its slot holds: "entity 3v1 (position
/// 0) is not alive: slot 3 holds 3v2", "... slot 3 is dead", "... the allocator has 2 slots".
///
/// ```
/// use sparse_set_core::serialization::check_alive;
/// use sparse_set_core::{Entities, Entity};
///
/// let stranger = Entity::from_bits((1 << 32) | 5).unwrap();
/// let error = check_alive(&Entities::new(), &[stranger]).unwrap_err();
/// assert_eq!(error.to_string(), "entity 5v1 (position 0) is not alive: the allocator has 0 slots");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotAlive {
    position: usize,
    entity: Entity,
    slot: SlotState,
}

/// What the slot of an entity that is not alive holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    /// The allocator has fewer slots.
    Missing { slots: usize },
    /// Another generation is alive there.
    Holds(NonZeroU32),
    /// Nothing is alive there.
    Dead,
}

impl NotAlive {
    /// The entity that is not alive.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::serialization::check_alive;
    /// use sparse_set_core::{Entities, Entity};
    ///
    /// let stranger = Entity::from_bits((1 << 32) | 5).unwrap();
    /// assert_eq!(check_alive(&Entities::new(), &[stranger]).unwrap_err().entity(), stranger);
    /// ```
    #[must_use]
    pub fn entity(&self) -> Entity {
        self.entity
    }

    /// Its position among the keys checked: for a storage's keys, its dense position, which is
    /// also its row in the serialized storage.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::serialization::check_alive;
    /// use sparse_set_core::Entities;
    ///
    /// let mut entities = Entities::new();
    /// let [a, b] = [entities.spawn(), entities.spawn()];
    /// entities.despawn(b);
    /// assert_eq!(check_alive(&entities, &[a, b]).unwrap_err().position(), 1);
    /// ```
    #[must_use]
    pub fn position(&self) -> usize {
        self.position
    }
}

impl fmt::Display for NotAlive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self { position, entity, slot } = *self;
        write!(f, "entity {entity} (position {position}) is not alive: ")?;
        let index = entity.index();
        match slot {
            SlotState::Missing { slots } => write!(f, "the allocator has {slots} slots"),
            SlotState::Holds(generation) => write!(f, "slot {index} holds {index}v{generation}"),
            SlotState::Dead => write!(f, "slot {index} is dead"),
        }
    }
}

impl core::error::Error for NotAlive {}

// ---------------------------------------------------------------------------------------------
// What derived storages call
// ---------------------------------------------------------------------------------------------

/// What the impls that `#[sparse_soa(serde)]` generates call, through `sparse-soa`'s
/// `__private`: the row format and its validation live here, once. Not public API.
pub(crate) mod derive {
    use super::{PairRow, StorageRowsOut};
    use crate::dense::DenseIndex;
    use crate::error::Error;
    use crate::key::Key;
    use crate::set::SparseSet;
    use crate::storage::Storage;
    use ::serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// What deserializing needs of a storage beyond [`Storage`]: to be made empty, growable or
    /// bounded, and to reserve room.
    pub trait Rebuild: Storage + Default {
        /// The storage's `try_bounded`.
        ///
        /// # Errors
        ///
        /// As the storage's `try_bounded`.
        fn try_bounded(capacity: usize, key_limit: usize) -> Result<Self, Error>;

        /// The storage's `try_reserve`: nothing for a bounded storage.
        ///
        /// # Errors
        ///
        /// As the storage's `try_reserve`.
        fn try_reserve(&mut self, additional: usize) -> Result<(), Error>;
    }

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
        super::serialize_storage(serializer, set, &rows)
    }

    /// Deserializes and validates a storage in the format of a `SparseMap`.
    ///
    /// # Errors
    ///
    /// The deserializer's, for everything the module docs list.
    pub fn restore_rows<'de, S, De>(
        deserializer: De,
        max_bounded_bytes: usize,
    ) -> Result<S, De::Error>
    where
        S: Rebuild,
        S::Key: Deserialize<'de>,
        S::Value: Deserialize<'de>,
        De: Deserializer<'de>,
    {
        super::restore::<S, PairRow<S::Key, S::Value>, De>(deserializer, max_bounded_bytes)
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::string::{String, ToString};
    use alloc::vec;
    use alloc::vec::Vec;
    use core::fmt::Debug;
    use core::num::NonZeroU32;

    use ::serde::Serialize;
    use ::serde::de::{DeserializeOwned, DeserializeSeed};

    use super::{Load, MAX_BOUNDED_BYTES, check_alive};
    use crate::entity::{Entities, Entity};
    use crate::map::SparseMap;
    use crate::set::SparseSet;

    fn through_json<T: Serialize + DeserializeOwned>(value: &T) -> T {
        let text = serde_json::to_string(value).expect("serializes");
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    fn through_postcard<T: Serialize + DeserializeOwned>(value: &T) -> T {
        let bytes = postcard::to_allocvec(value).expect("serializes");
        postcard::from_bytes(&bytes).unwrap_or_else(|error| panic!("{bytes:?}: {error}"))
    }

    /// The message JSON input is refused with; panics if it is accepted.
    fn refused<T: DeserializeOwned + Debug>(text: &str) -> String {
        match serde_json::from_str::<T>(text) {
            Ok(value) => panic!("{text} was accepted as {value:?}"),
            Err(error) => error.to_string(),
        }
    }

    fn assert_refused<T: DeserializeOwned + Debug>(text: &str, expected: &str) {
        let message = refused::<T>(text);
        assert!(message.contains(expected), "{text}: {message:?} does not say {expected:?}");
    }

    fn entity(index: u32, generation: u32) -> Entity {
        Entity::from_parts(index, NonZeroU32::new(generation).expect("not zero"))
    }

    /// An allocator with a history: spawns, despawns in a scattered order, reuses.
    fn allocator_with_history() -> (Entities, Vec<Entity>) {
        let mut entities = Entities::new();
        let mut handles = Vec::new();
        for round in 0..4_u32 {
            for _ in 0..6 {
                handles.push(entities.spawn());
            }
            for (at, &handle) in handles.clone().iter().enumerate() {
                if (at as u32 + round) % 3 == 0 {
                    entities.despawn(handle);
                }
            }
        }
        entities.assert_invariants();
        (entities, handles)
    }

    /// `copy` behaves as `original` from now on: the same handles alive, the same spawns.
    fn assert_same_allocator(mut original: Entities, mut copy: Entities, handles: &[Entity]) {
        copy.assert_invariants();
        assert_eq!(copy.len(), original.len());
        for &handle in handles {
            assert_eq!(copy.is_alive(handle), original.is_alive(handle), "{handle}");
        }
        for _ in 0..12 {
            assert_eq!(copy.spawn(), original.spawn());
        }
        copy.assert_invariants();
    }

    #[test]
    fn an_entity_is_its_bits() {
        let e = entity(3, 2);
        assert_eq!(serde_json::to_string(&e).unwrap(), (2_u64 << 32 | 3).to_string());
        assert_eq!(through_json(&e), e);
        assert_eq!(through_postcard(&e), e);
        assert_refused::<Entity>("7", "expected an entity");
        assert_refused::<Entity>("-1", "invalid value");
        assert!(postcard::from_bytes::<Entity>(&[7]).is_err());
    }

    #[test]
    fn entities_round_trip_with_their_generations_and_free_list() {
        let (original, handles) = allocator_with_history();
        assert_same_allocator(original.clone(), through_json(&original), &handles);
        assert_same_allocator(original.clone(), through_postcard(&original), &handles);
        assert_same_allocator(Entities::new(), through_json(&Entities::new()), &handles);
    }

    #[test]
    fn entities_keep_a_retired_slot_and_one_to_issue_at_the_last_generation() {
        let mut entities = Entities::new();
        let [a, b, c] = [entities.spawn(), entities.spawn(), entities.spawn()];
        entities.set_generation_for_test(0, NonZeroU32::MAX);
        entities.despawn(entity(a.index(), u32::MAX)); // retired
        entities.set_generation_for_test(1, NonZeroU32::new(u32::MAX - 1).unwrap());
        entities.despawn(entity(b.index(), u32::MAX - 1)); // on the free list at u32::MAX
        entities.assert_invariants();
        let text = serde_json::to_string(&entities).unwrap();
        assert_eq!(
            text,
            format!(
                r#"{{"slots":[[{max},false],[{max},false],[1,true]],"free":[1]}}"#,
                max = u32::MAX
            )
        );
        let handles = [a, b, c, entity(0, u32::MAX), entity(1, u32::MAX)];
        assert_same_allocator(entities.clone(), through_json(&entities), &handles);
        assert_same_allocator(entities.clone(), through_postcard(&entities), &handles);
    }

    #[test]
    fn entities_refuse_states_the_api_cannot_make() {
        let cases = [
            (r#"{"slots":[[0,true]],"free":[]}"#, "slot 0 has generation 0, which no entity has"),
            (
                r#"{"slots":[[2,false]],"free":[0,3]}"#,
                "free list entry 1 names slot 3, but there are only 1 slots",
            ),
            (
                r#"{"slots":[[1,true]],"free":[0]}"#,
                "free list entry 0 names slot 0, which is alive",
            ),
            (r#"{"slots":[[2,false]],"free":[0,0]}"#, "slot 0 is on the free list twice"),
            (
                r#"{"slots":[[1,true],[3,false]],"free":[]}"#,
                "slot 1 is dead at generation 3 but not on the free list",
            ),
            (r#"{"slots":[[1,true]]}"#, "missing field `free`"),
            (r#"{"free":[]}"#, "missing field `slots`"),
            (r#"{"slots":[],"free":[],"slots":[]}"#, "duplicate field `slots`"),
            (
                r#"{"slots":[],"free":[],"len":0}"#,
                "unknown field `len`, expected `slots` or `free`",
            ),
            (r#"{"slots":[[1]],"free":[]}"#, "invalid length 1"),
            (
                r#"{"slots":[[1,"yes"]],"free":[]}"#,
                "invalid type: string \"yes\", expected a boolean",
            ),
            (r#"{"slots":[[1,true]],"free":[-1]}"#, "invalid value"),
            (r"[]", "invalid length 0"),
        ];
        for (text, expected) in cases {
            assert_refused::<Entities>(text, expected);
        }
        // The same allocator in the order postcard reads: slots, then free list.
        let bytes = postcard::to_allocvec(&(vec![(1_u32, true), (3, false)], Vec::<u32>::new()));
        assert!(postcard::from_bytes::<Entities>(&bytes.unwrap()).is_err());
        // A free list given before the slots is fine.
        let entities: Entities =
            serde_json::from_str(r#"{"free":[1],"slots":[[1,true],[2,false]]}"#).unwrap();
        entities.assert_invariants();
        assert_eq!(entities.len(), 1);
    }

    #[test]
    fn sets_round_trip_in_dense_order() {
        let mut set: SparseSet<u32> = [9, 4, 1_000_000, 0, u32::MAX, 17].into_iter().collect();
        set.remove(4); // swap-remove: 17 moves to position 1
        assert_eq!(
            serde_json::to_string(&set).unwrap(),
            format!(r#"{{"bounds":null,"keys":[9,17,1000000,0,{}]}}"#, u32::MAX)
        );
        for copy in [through_json(&set), through_postcard(&set)] {
            copy.assert_invariants();
            assert_eq!(copy.as_slice(), set.as_slice());
            assert_eq!(copy.key_limit(), None);
        }
        let empty = SparseSet::<u64, usize>::new();
        assert!(through_postcard(&empty).is_empty());
    }

    #[test]
    fn bounded_sets_round_trip_bounded() {
        let mut set = SparseSet::<u32, u8>::bounded(8, 100);
        for key in [50, 3, 99] {
            set.insert(key);
        }
        let text = serde_json::to_string(&set).unwrap();
        assert_eq!(text, r#"{"bounds":{"capacity":8,"key_limit":100},"keys":[50,3,99]}"#);
        for copy in [through_json(&set), through_postcard(&set)] {
            copy.assert_invariants();
            assert_eq!(copy.as_slice(), &[50, 3, 99]);
            assert_eq!((copy.capacity(), copy.key_limit()), (8, Some(100)));
        }
    }

    #[test]
    fn a_narrow_set_round_trips_at_its_limit() {
        let set: SparseSet<u32, u8> = (0..255).map(|key| key * 7).collect();
        for copy in [through_json(&set), through_postcard(&set)] {
            copy.assert_invariants();
            assert_eq!(copy.as_slice(), set.as_slice());
        }
    }

    #[test]
    fn entity_keyed_storages_round_trip() {
        let (entities, handles) = allocator_with_history();
        let alive: Vec<Entity> = entities.iter().collect();
        let set: SparseSet<Entity> = alive.iter().rev().copied().collect();
        let map: SparseMap<Entity, String> = alive.iter().map(|&e| (e, e.to_string())).collect();
        for copy in [through_json(&set), through_postcard(&set)] {
            copy.assert_invariants();
            assert_eq!(copy.as_slice(), set.as_slice());
            for &handle in &handles {
                assert_eq!(copy.contains(handle), set.contains(handle), "{handle}");
            }
        }
        for copy in [through_json(&map), through_postcard(&map)] {
            copy.assert_invariants();
            assert_eq!(copy.keys(), map.keys());
            assert_eq!(copy.values(), map.values());
            assert!(check_alive(&entities, copy.keys()).is_ok());
        }
    }

    #[test]
    fn maps_round_trip_in_dense_order() {
        let mut map: SparseMap<u64, String, u16> =
            [(5, "five"), (1 << 40, "big"), (0, "zero"), (77, "seventy-seven")]
                .into_iter()
                .map(|(key, value)| (key, value.to_string()))
                .collect();
        map.remove(5);
        let text = serde_json::to_string(&map).unwrap();
        assert_eq!(
            text,
            r#"{"bounds":null,"rows":[[77,"seventy-seven"],[1099511627776,"big"],[0,"zero"]]}"#
        );
        for copy in [through_json(&map), through_postcard(&map)] {
            copy.assert_invariants();
            assert_eq!(copy.keys(), map.keys());
            assert_eq!(copy.values(), map.values());
        }
        let mut bounded = SparseMap::<u32, (u8, bool), u8>::bounded(4, 10);
        bounded.insert(9, (1, true));
        bounded.insert(2, (2, false));
        for copy in [through_json(&bounded), through_postcard(&bounded)] {
            copy.assert_invariants();
            assert_eq!(copy.keys(), &[9, 2]);
            assert_eq!(copy.values(), &[(1, true), (2, false)]);
            assert_eq!((copy.capacity(), copy.as_sparse_set().key_limit()), (4, Some(10)));
        }
    }

    #[test]
    fn storages_refuse_duplicate_keys_and_shared_slots() {
        assert_refused::<SparseSet<u32>>(
            r#"{"bounds":null,"keys":[7,3,7]}"#,
            "row 2: duplicate key 7 (row 0 holds it)",
        );
        assert_refused::<SparseMap<u32, u8>>(
            r#"{"bounds":null,"rows":[[7,1],[3,2],[3,3]]}"#,
            "row 2: duplicate key 3 (row 1 holds it)",
        );
        let (older, newer) = (entity(5, 1), entity(5, 2));
        for keys in [[older, newer], [newer, older]] {
            let text = format!(
                r#"{{"bounds":null,"rows":[[{},0],[{},1]]}}"#,
                keys[0].to_bits(),
                keys[1].to_bits()
            );
            assert_refused::<SparseMap<Entity, u8>>(
                &text,
                &format!(
                    "row 1: key {} shares slot 5 with key {} of row 0: a storage holds one key per slot",
                    keys[1], keys[0]
                ),
            );
        }
        let bytes = postcard::to_allocvec(&(None::<()>, [3_u32, 3])).unwrap();
        assert!(postcard::from_bytes::<SparseSet<u32>>(&bytes).is_err());
    }

    #[test]
    fn bounded_storages_refuse_what_does_not_fit() {
        assert_refused::<SparseSet<u32>>(
            r#"{"bounds":{"capacity":4,"key_limit":100},"keys":[3,100]}"#,
            "row 1: key 100 is outside the bounded key range 0..100",
        );
        assert_refused::<SparseMap<u32, char>>(
            r#"{"bounds":{"capacity":2,"key_limit":100},"rows":[[1,"a"],[2,"b"],[3,"c"]]}"#,
            "row 2: key 3 does not fit: the bounded capacity is 2",
        );
        assert_refused::<SparseSet<u32, u8>>(
            r#"{"bounds":{"capacity":256,"key_limit":100},"keys":[]}"#,
            "bounded capacity 256 is more than dense index type `u8` addresses (255 elements)",
        );
        let huge = usize::MAX;
        assert_refused::<SparseSet<u32>>(
            &format!(r#"{{"bounds":{{"capacity":0,"key_limit":{huge}}},"keys":[]}}"#),
            &format!("key range 0..{huge} needs more memory than the address space has"),
        );
        assert_refused::<SparseSet<u32>>(
            r#"{"bounds":{"capacity":0,"key_limit":100000000},"keys":[]}"#,
            &format!("more than the {MAX_BOUNDED_BYTES} bytes allowed"),
        );
        assert_refused::<SparseSet<u32>>(
            r#"{"bounds":{"capacity":0},"keys":[]}"#,
            "missing field `key_limit`",
        );
        assert_refused::<SparseSet<u32>>(
            r#"{"bounds":{"capacity":0,"limit":5},"keys":[]}"#,
            "unknown field `limit`, expected `capacity` or `key_limit`",
        );
        assert_refused::<SparseSet<u32>>(
            r#"{"bounds":{"capacity":-1,"key_limit":5},"keys":[]}"#,
            "invalid value: integer `-1`",
        );
    }

    #[test]
    fn a_narrow_width_refuses_more_rows_than_it_addresses() {
        let keys: Vec<u32> = (0..300).collect();
        let text = format!(r#"{{"bounds":null,"keys":{}}}"#, serde_json::to_string(&keys).unwrap());
        assert_refused::<SparseSet<u32, u8>>(
            &text,
            "row 255: key 255 does not fit: dense index type `u8` addresses at most 255 elements",
        );
        let bytes = postcard::to_allocvec(&(None::<()>, &keys)).unwrap();
        assert!(postcard::from_bytes::<SparseSet<u32, u8>>(&bytes).is_err());
        assert!(postcard::from_bytes::<SparseSet<u32, u16>>(&bytes).is_ok());
    }

    #[test]
    fn malformed_storages_are_refused() {
        let cases = [
            (
                r#"{"bounds":null,"rows":[[1]]}"#,
                "invalid length 1, expected a row: a key and its value",
            ),
            (r#"{"bounds":null,"rows":[1]}"#, "invalid type: integer `1`, expected a row"),
            (r#"{"bounds":null,"rows":[[1,2,3]]}"#, "trailing"),
            (r#"{"bounds":null,"rows":[["one",2]]}"#, "invalid type: string \"one\", expected u32"),
            (r#"{"bounds":null}"#, "missing field `rows`"),
            (r#"{"bounds":null,"rows":[],"rows":[]}"#, "duplicate field `rows`"),
            (r#"{"bounds":null,"bounds":null,"rows":[]}"#, "duplicate field `bounds`"),
            (r#"{"bounds":null,"keys":[]}"#, "unknown field `keys`, expected `bounds` or `rows`"),
            (r#"{"bounds":null,"rows":{}}"#, "invalid type: map, expected the rows of a storage"),
            (r"[null]", "invalid length 1, expected a storage"),
            (r"7", "invalid type: integer `7`, expected a storage"),
        ];
        for (text, expected) in cases {
            assert_refused::<SparseMap<u32, u8>>(text, expected);
        }
        assert!(postcard::from_bytes::<SparseMap<u32, u8>>(&[0, 1, 5]).is_err());
        assert!(postcard::from_bytes::<SparseMap<u32, u8>>(&[2]).is_err());
    }

    #[test]
    fn fields_may_come_in_any_order_and_bounds_may_be_left_out() {
        let set: SparseSet<u32> = serde_json::from_str(r#"{"keys":[4,2]}"#).unwrap();
        assert_eq!((set.as_slice(), set.key_limit()), (&[4, 2][..], None));
        let map: SparseMap<u32, u8> =
            serde_json::from_str(r#"{"rows":[[4,1],[2,2]],"bounds":{"capacity":3,"key_limit":5}}"#)
                .unwrap();
        map.assert_invariants();
        assert_eq!((map.keys(), map.capacity()), (&[4, 2][..], 3));
        // Rows read before their bounds are checked against them all the same.
        assert_refused::<SparseMap<u32, u8>>(
            r#"{"rows":[[4,1],[9,2]],"bounds":{"capacity":3,"key_limit":5}}"#,
            "row 1: key 9 is outside the bounded key range 0..5",
        );
        assert_refused::<SparseMap<u32, u8>>(
            r#"{"rows":[[4,1],[4,2]]}"#,
            "row 1: duplicate key 4 (row 0 holds it)",
        );
    }

    #[test]
    fn a_map_and_a_set_of_the_same_keys_are_told_apart_by_name() {
        let map: SparseMap<u32, ()> = [(1, ())].into_iter().collect();
        let text = serde_json::to_string(&map).unwrap();
        assert_eq!(text, r#"{"bounds":null,"rows":[[1,null]]}"#);
        assert_refused::<SparseSet<u32>>(
            &text,
            "unknown field `rows`, expected `bounds` or `keys`",
        );
    }

    #[test]
    fn load_checks_keys_against_the_allocator() {
        let (entities, handles) = allocator_with_history();
        let alive: Vec<Entity> = entities.iter().collect();
        let map: SparseMap<Entity, u8> = alive.iter().map(|&e| (e, 1)).collect();
        let text = serde_json::to_string(&map).unwrap();
        let load = Load::<SparseMap<Entity, u8>>::new().alive_in(&entities);
        let loaded = load.deserialize(&mut serde_json::Deserializer::from_str(&text)).unwrap();
        assert_eq!(loaded.keys(), map.keys());

        let dead = *handles.iter().find(|&&e| !entities.is_alive(e)).unwrap();
        let mut with_dead = map.clone();
        with_dead.insert(dead, 2);
        let text = serde_json::to_string(&with_dead).unwrap();
        let error = load.deserialize(&mut serde_json::Deserializer::from_str(&text)).unwrap_err();
        let position = with_dead.get_index_of(dead).unwrap();
        assert!(
            error
                .to_string()
                .starts_with(&format!("entity {dead} (position {position}) is not alive")),
            "{error}"
        );
        // Without the allocator, the same input loads.
        let plain = Load::<SparseMap<Entity, u8>>::new();
        assert!(plain.deserialize(&mut serde_json::Deserializer::from_str(&text)).is_ok());
    }

    #[test]
    fn check_alive_says_what_the_slot_holds() {
        let mut entities = Entities::new();
        let [a, b] = [entities.spawn(), entities.spawn()];
        entities.despawn(a);
        let c = entities.spawn();
        entities.despawn(b);
        assert_eq!(check_alive(&entities, &[c]), Ok(()));
        let message = |keys: &[Entity]| check_alive(&entities, keys).unwrap_err().to_string();
        assert_eq!(message(&[c, a]), "entity 0v1 (position 1) is not alive: slot 0 holds 0v2");
        assert_eq!(message(&[b]), "entity 1v1 (position 0) is not alive: slot 1 is dead");
        assert_eq!(
            message(&[entity(9, 1)]),
            "entity 9v1 (position 0) is not alive: the allocator has 2 slots"
        );
    }

    #[test]
    fn load_limits_what_bounds_may_allocate() {
        let text = r#"{"bounds":{"capacity":2,"key_limit":2000},"keys":[1999]}"#;
        let strict = Load::<SparseSet<u32>>::new().max_bounded_bytes(1000);
        let error = strict.deserialize(&mut serde_json::Deserializer::from_str(text)).unwrap_err();
        assert!(error.to_string().contains("more than the 1000 bytes allowed"), "{error}");
        let roomy = Load::<SparseSet<u32>>::new().max_bounded_bytes(1 << 20);
        let set = roomy.deserialize(&mut serde_json::Deserializer::from_str(text)).unwrap();
        assert_eq!((set.as_slice(), set.key_limit()), (&[1999][..], Some(2000)));
    }
}
