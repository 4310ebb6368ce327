//! `Entity` (its bits) and `Entities` (its slots and free list) through serde; loading checks
//! the allocator's invariant through `Entities::from_parts`.

use alloc::vec::Vec;
use core::fmt;
use core::num::NonZeroU32;

use ::serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use ::serde::ser::{SerializeSeq, SerializeStruct, Serializer};
use ::serde::{Deserialize, Serialize};

use crate::entity::{Entities, Entity, Slot};
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

pub(super) const ENTITIES_FIELDS: &[&str] = &["slots", "free"];

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

/// Reads and validates an allocator: see the [module docs](crate::serialization) for what it refuses.
impl<'de> Deserialize<'de> for Entities {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("Entities", ENTITIES_FIELDS, EntitiesVisitor)
    }
}

pub(super) struct EntitiesVisitor;

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
        Entities::from_parts(slots, free).map_err(de::Error::custom)
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
        Entities::from_parts(slots, free).map_err(de::Error::custom)
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
