//! A [`Group`] through serde: a struct `Group` of its `members` and `excluded` storages, each
//! in its own format. Loading re-checks the alignment: the storages must be aligned as a group
//! leaves them, or the load is refused naming the key or position that is not.

use core::fmt;
use core::marker::PhantomData;

use ::serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use ::serde::ser::{SerializeStruct, Serializer};
use ::serde::{Deserialize, Serialize};

use crate::group::{Group, GroupExcluded, GroupMembers};
use crate::serialization::format::FieldIn;

const GROUP_FIELDS: &[&str] = &["members", "excluded"];

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
        deserializer.deserialize_struct("Group", GROUP_FIELDS, GroupVisitor(PhantomData))
    }
}

struct GroupVisitor<M, X>(PhantomData<(M, X)>);

impl<M: GroupMembers, X: GroupExcluded<M::Key>> GroupVisitor<M, X> {
    fn assemble<E: de::Error>(members: M, excluded: X) -> Result<Group<M, X>, E> {
        Group::from_aligned_parts(members, excluded)
            .map_err(|misaligned| E::custom(format_args!("not a group: {misaligned}")))
    }
}

impl<'de, M, X> Visitor<'de> for GroupVisitor<M, X>
where
    M: GroupMembers + Deserialize<'de>,
    X: GroupExcluded<M::Key> + Deserialize<'de>,
{
    type Value = Group<M, X>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a group: a struct of `members` and `excluded`")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let members = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let excluded = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Self::assemble(members, excluded)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = None;
        let mut excluded = None;
        while let Some(field) = map.next_key_seed(FieldIn(GROUP_FIELDS))? {
            if field == 0 {
                if members.is_some() {
                    return Err(de::Error::duplicate_field("members"));
                }
                members = Some(map.next_value()?);
            } else {
                if excluded.is_some() {
                    return Err(de::Error::duplicate_field("excluded"));
                }
                excluded = Some(map.next_value()?);
            }
        }
        let members = members.ok_or_else(|| de::Error::missing_field("members"))?;
        let excluded = excluded.ok_or_else(|| de::Error::missing_field("excluded"))?;
        Self::assemble(members, excluded)
    }
}
