//! `Entity` (its bits) and `Entities` (its slots and free list) through serde; loading checks
//! the allocator's invariant through `Entities::from_parts`.

use alloc::vec::Vec;
use core::fmt;
use core::num::NonZeroU32;

use ::serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use ::serde::ser::{SerializeSeq, SerializeStruct, Serializer};
use ::serde::{Deserialize, Serialize};

use crate::entity::{Entities, Entity, Slot};
use crate::serialization::MAX_BOUNDED_BYTES;
use crate::serialization::format::{FieldIn, preallocated, push};

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

pub(super) const ENTITIES_FIELDS: &[&str] = &["slots", "free", "bound"];

/// A struct `Entities` of `slots` (each `[generation, alive]`, in slot order), `free` (the
/// free list, in order) and `bound` (a bounded allocator's capacity, `None` for a growable one).
impl Serialize for Entities {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("Entities", 3)?;
        state.serialize_field("slots", &SlotsOut(&self.slots))?;
        state.serialize_field("free", &self.free)?;
        state.serialize_field("bound", &self.bound)?;
        state.end()
    }
}

/// The slots as a sequence of `(generation, alive)`.
pub(super) struct SlotsOut<'a>(&'a [Slot]);

impl Serialize for SlotsOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for slot in self.0 {
            seq.serialize_element(&(slot.generation.get(), slot.alive))?;
        }
        seq.end()
    }
}

/// Reads and validates an allocator: see the [module docs](crate::serialization) for what it
/// refuses. A bound may allocate up to [`MAX_BOUNDED_BYTES`] up front
/// ([`Entities::restore`] sets another limit).
impl<'de> Deserialize<'de> for Entities {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Entities::restore(deserializer, MAX_BOUNDED_BYTES)
    }
}

impl Entities {
    /// Reads an allocator from `deserializer`, as its `Deserialize` does, with another limit on
    /// the memory a bounded allocator's `bound` may claim up front than
    /// [`MAX_BOUNDED_BYTES`]: `max_bounded_bytes` (a bound of n slots allocates 12 n bytes).
    ///
    /// Computes in **O(slots)** time.
    ///
    /// # Errors
    ///
    /// The deserializer's error, naming what the [module docs](crate::serialization) list, or
    /// the limit.
    ///
    /// ```
    /// use sparse_set_core::Entities;
    ///
    /// let saved = serde_json::to_string(&Entities::bounded(2_000_000)).unwrap();
    /// assert!(serde_json::from_str::<Entities>(&saved).is_err()); // 24 MB up front
    /// let mut json = serde_json::Deserializer::from_str(&saved);
    /// let entities = Entities::restore(&mut json, 32 << 20).unwrap();
    /// assert_eq!(entities.key_limit(), Some(2_000_000));
    /// ```
    pub fn restore<'de, D: Deserializer<'de>>(
        deserializer: D,
        max_bounded_bytes: usize,
    ) -> Result<Self, D::Error> {
        let visitor = EntitiesVisitor { max_bounded_bytes };
        deserializer.deserialize_struct("Entities", ENTITIES_FIELDS, visitor)
    }
}

pub(super) struct EntitiesVisitor {
    pub(super) max_bounded_bytes: usize,
}

impl EntitiesVisitor {
    /// The allocator of `slots` and `free`, bounded to `bound` if that claims at most the
    /// limit.
    fn make<E: de::Error>(
        &self,
        slots: Vec<Slot>,
        free: Vec<u32>,
        bound: Option<usize>,
    ) -> Result<Entities, E> {
        let per_slot = size_of::<Slot>() + size_of::<u32>();
        if let Some(bound) = bound {
            let bytes = bound.saturating_mul(per_slot);
            if bytes > self.max_bounded_bytes {
                return Err(E::custom(format_args!(
                    "an allocator bounded to {bound} slots allocates {bytes} bytes up front, \
                     more than the {} bytes allowed (see `Entities::restore`)",
                    self.max_bounded_bytes
                )));
            }
        }
        Entities::from_parts(slots, free, bound).map_err(E::custom)
    }
}

impl<'de> Visitor<'de> for EntitiesVisitor {
    type Value = Entities;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an entity allocator: a struct of `slots`, `free` and `bound`")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entities, A::Error> {
        let slots =
            seq.next_element_seed(SlotsIn)?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let free =
            seq.next_element_seed(FreeIn)?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
        let bound = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(2, &self))?;
        self.make(slots, free, bound)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entities, A::Error> {
        let (mut slots, mut free, mut bound) = (None, None, None);
        while let Some(field) = map.next_key_seed(FieldIn(ENTITIES_FIELDS))? {
            match field {
                0 if slots.is_some() => return Err(de::Error::duplicate_field("slots")),
                0 => slots = Some(map.next_value_seed(SlotsIn)?),
                1 if free.is_some() => return Err(de::Error::duplicate_field("free")),
                1 => free = Some(map.next_value_seed(FreeIn)?),
                _ if bound.is_some() => return Err(de::Error::duplicate_field("bound")),
                _ => bound = Some(map.next_value::<Option<usize>>()?),
            }
        }
        let slots = slots.ok_or_else(|| de::Error::missing_field("slots"))?;
        let free = free.ok_or_else(|| de::Error::missing_field("free"))?;
        // A missing `bound` is a growable allocator, as `null` is.
        self.make(slots, free, bound.flatten())
    }
}

/// The `slots` of an allocator: `(generation, alive)` pairs, generation 0 refused.
pub(super) struct SlotsIn;

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
pub(super) struct FreeIn;

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
