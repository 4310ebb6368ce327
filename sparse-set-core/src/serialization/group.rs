//! A [`Group`] through serde: a struct `Group` of its `members` and `excluded` storages, each
//! in its own format, and for a group with a [`Nested`] level a third field, `nested`, a struct
//! `Nested` of the level's `members` and `excluded` (and its own `nested`, for a level inside
//! it). Loading re-checks the alignment: the storages must be aligned as a family leaves them,
//! or the load is refused naming the key or position that is not.

use core::fmt;
use core::marker::PhantomData;

use ::serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use ::serde::ser::{SerializeStruct, Serializer};
use ::serde::{Deserialize, Serialize};

use crate::group::{Group, GroupExcluded, GroupExcludedMut, GroupMembers, Nest, Nested};
use crate::serialization::format::FieldIn;

/// The fields of a group's struct (and of a nested level's), and of a group with a nested
/// level's (and of a level with one inside it).
const GROUP_FIELDS: &[&str] = &["members", "excluded"];
const FAMILY_FIELDS: &[&str] = &["members", "excluded", "nested"];

/// A struct `Group` of `members` (a tuple of the members' formats) and `excluded` (a tuple of
/// the excluded storages' formats; unit when there are none).
impl<M: GroupMembers + Serialize, X: GroupExcluded<M::Key> + Serialize> Serialize for Group<M, X> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("Group", 2)?;
        state.serialize_field("members", self.members())?;
        state.serialize_field("excluded", self.excluded())?;
        state.end()
    }
}

/// A struct `Group` of `members`, `excluded` and `nested`: the nested level as a struct
/// `Nested` of its own `members` and `excluded` (and `nested`, for a level inside it).
impl<M, X, M2, X2, N3> Serialize for Group<M, X, Nested<M2, X2, N3>>
where
    M: GroupMembers + Serialize,
    X: GroupExcluded<M::Key> + Serialize,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key>,
    N3: Nest<M::Key>,
    Nested<M2, X2, N3>: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("Group", 3)?;
        state.serialize_field("members", self.members())?;
        state.serialize_field("excluded", self.excluded())?;
        state.serialize_field("nested", self.nested_level())?;
        state.end()
    }
}

/// A struct `Nested` of `members` and `excluded`.
impl<M: Serialize, X: Serialize> Serialize for Nested<M, X> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("Nested", 2)?;
        state.serialize_field("members", self.members())?;
        state.serialize_field("excluded", self.excluded())?;
        state.end()
    }
}

/// A struct `Nested` of `members`, `excluded` and `nested`, the level inside it.
impl<M: Serialize, X: Serialize, M3: Serialize, X3: Serialize, N4> Serialize
    for Nested<M, X, Nested<M3, X3, N4>>
where
    Nested<M3, X3, N4>: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("Nested", 3)?;
        state.serialize_field("members", self.members())?;
        state.serialize_field("excluded", self.excluded())?;
        state.serialize_field("nested", self.nested())?;
        state.end()
    }
}

/// Reads every storage (each validated as on its own), then checks that they are aligned as a
/// group leaves them: the keys every member holds and no excluded storage holds first, in the
/// same order in every member. Storages that are not are refused, not realigned: a saved group
/// is always aligned, so misaligned input was not saved by one.
impl<'de, M, X> Deserialize<'de> for Group<M, X>
where
    M: GroupMembers + Deserialize<'de>,
    X: GroupExcluded<M::Key> + Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let visitor = PartsVisitor::<(M, X)>::new(GROUP_FIELDS, "a group");
        let (members, excluded) =
            deserializer.deserialize_struct("Group", GROUP_FIELDS, visitor)?;
        Group::from_aligned_parts(members, excluded).map_err(not_a_group)
    }
}

/// As a group without a nested level, and then each nested level: its keys that qualify must
/// start the prefix around it, in the same order in the level's members.
impl<'de, M, X, M2, X2, N3> Deserialize<'de> for Group<M, X, Nested<M2, X2, N3>>
where
    M: GroupMembers + Deserialize<'de>,
    X: GroupExcluded<M::Key> + Deserialize<'de>,
    M2: GroupMembers<Key = M::Key>,
    X2: GroupExcludedMut<M::Key>,
    N3: Nest<M::Key>,
    Nested<M2, X2, N3>: Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let visitor = PartsVisitor::<(M, X, Nested<M2, X2, N3>)>::new(FAMILY_FIELDS, "a group");
        let (members, excluded, nested) =
            deserializer.deserialize_struct("Group", FAMILY_FIELDS, visitor)?;
        let group = Group::from_aligned_parts(members, excluded).map_err(not_a_group)?;
        group.with_aligned_levels(nested).map_err(not_a_group)
    }
}

/// A detached level: its storages, aligned when [`Group::nest`] takes it.
impl<'de, M: Deserialize<'de>, X: Deserialize<'de>> Deserialize<'de> for Nested<M, X> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let visitor = PartsVisitor::<(M, X)>::new(GROUP_FIELDS, "a nested level");
        let (members, excluded) =
            deserializer.deserialize_struct("Nested", GROUP_FIELDS, visitor)?;
        Ok(Nested::detached(members, excluded))
    }
}

/// A detached level with the levels inside it: their storages, aligned when [`Group::nest`]
/// takes the outermost.
impl<'de, M, X, M3, X3, N4> Deserialize<'de> for Nested<M, X, Nested<M3, X3, N4>>
where
    M: Deserialize<'de>,
    X: Deserialize<'de>,
    Nested<M3, X3, N4>: Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let visitor =
            PartsVisitor::<(M, X, Nested<M3, X3, N4>)>::new(FAMILY_FIELDS, "a nested level");
        let (members, excluded, inner) =
            deserializer.deserialize_struct("Nested", FAMILY_FIELDS, visitor)?;
        Ok(Nested::detached(members, excluded).nest(inner))
    }
}

fn not_a_group<E: de::Error>(misaligned: impl fmt::Display) -> E {
    E::custom(format_args!("not a group: {misaligned}"))
}

/// The fields of a group's or a level's struct, in order: a tuple of their types, read as a map
/// or a sequence. The fields' names are the visitor's.
trait Parts<'de>: Sized {
    /// The fields read so far, one `Option` each.
    type Slots: Default;

    /// Reads field `field` (named `names[field]`) from `map` into `slots`.
    fn read<A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        field: usize,
        names: &'static [&'static str],
        map: &mut A,
    ) -> Result<(), A::Error>;

    /// Reads every field in order from `seq`.
    fn read_seq<A: SeqAccess<'de>>(
        seq: &mut A,
        expected: &dyn de::Expected,
    ) -> Result<Self, A::Error>;

    /// The fields, or the first missing one.
    fn finish<E: de::Error>(slots: Self::Slots, names: &'static [&'static str]) -> Result<Self, E>;
}

/// One field into its slot, refusing a second copy.
fn read_slot<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    slot: &mut Option<T>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// The next element of `seq`, or the error of a sequence of `index` elements.
fn next<'de, A: SeqAccess<'de>, T: Deserialize<'de>>(
    seq: &mut A,
    index: usize,
    expected: &dyn de::Expected,
) -> Result<T, A::Error> {
    seq.next_element()?.ok_or_else(|| de::Error::invalid_length(index, expected))
}

/// A field that was read, or the error naming it missing.
fn field<T, E: de::Error>(slot: Option<T>, name: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| E::missing_field(name))
}

impl<'de, A: Deserialize<'de>, B: Deserialize<'de>> Parts<'de> for (A, B) {
    type Slots = (Option<A>, Option<B>);

    fn read<M: MapAccess<'de>>(
        slots: &mut Self::Slots,
        field: usize,
        names: &'static [&'static str],
        map: &mut M,
    ) -> Result<(), M::Error> {
        match field {
            0 => read_slot(&mut slots.0, names[0], map),
            _ => read_slot(&mut slots.1, names[1], map),
        }
    }

    fn read_seq<S: SeqAccess<'de>>(
        seq: &mut S,
        expected: &dyn de::Expected,
    ) -> Result<Self, S::Error> {
        Ok((next(seq, 0, expected)?, next(seq, 1, expected)?))
    }

    fn finish<E: de::Error>(
        (a, b): Self::Slots,
        names: &'static [&'static str],
    ) -> Result<Self, E> {
        Ok((field(a, names[0])?, field(b, names[1])?))
    }
}

impl<'de, A: Deserialize<'de>, B: Deserialize<'de>, C: Deserialize<'de>> Parts<'de> for (A, B, C) {
    type Slots = (Option<A>, Option<B>, Option<C>);

    fn read<M: MapAccess<'de>>(
        slots: &mut Self::Slots,
        field: usize,
        names: &'static [&'static str],
        map: &mut M,
    ) -> Result<(), M::Error> {
        match field {
            0 => read_slot(&mut slots.0, names[0], map),
            1 => read_slot(&mut slots.1, names[1], map),
            _ => read_slot(&mut slots.2, names[2], map),
        }
    }

    fn read_seq<S: SeqAccess<'de>>(
        seq: &mut S,
        expected: &dyn de::Expected,
    ) -> Result<Self, S::Error> {
        Ok((next(seq, 0, expected)?, next(seq, 1, expected)?, next(seq, 2, expected)?))
    }

    fn finish<E: de::Error>(
        (a, b, c): Self::Slots,
        names: &'static [&'static str],
    ) -> Result<Self, E> {
        Ok((field(a, names[0])?, field(b, names[1])?, field(c, names[2])?))
    }
}

/// Reads the fields of `P`, named `names`, from a struct written as a map or a sequence.
struct PartsVisitor<P> {
    names: &'static [&'static str],
    /// What the struct is, for the error of input that is not one.
    what: &'static str,
    parts: PhantomData<P>,
}

impl<P> PartsVisitor<P> {
    fn new(names: &'static [&'static str], what: &'static str) -> Self {
        PartsVisitor { names, what, parts: PhantomData }
    }
}

impl<'de, P: Parts<'de>> Visitor<'de> for PartsVisitor<P> {
    type Value = P;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a struct of ", self.what)?;
        for (index, name) in self.names.iter().enumerate() {
            let separator = match index {
                0 => "",
                _ if index + 1 == self.names.len() => " and ",
                _ => ", ",
            };
            write!(f, "{separator}`{name}`")?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<P, A::Error> {
        P::read_seq(&mut seq, &self)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<P, A::Error> {
        let mut slots = P::Slots::default();
        while let Some(field) = map.next_key_seed(FieldIn(self.names))? {
            P::read(&mut slots, field, self.names, &mut map)?;
        }
        P::finish(slots, self.names)
    }
}
