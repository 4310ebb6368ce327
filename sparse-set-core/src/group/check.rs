//! The group's invariant, checked rather than assumed: [`Group::assert_invariants`] panics with
//! the first [`Misaligned`], and loading a group (feature `serde`) refuses its storages with it.

use core::fmt;

use crate::group::{Group, GroupExcluded, GroupMembers, GroupRows, Nest};
use crate::observe::Observer;

/// How storages break a group's invariant (the [module docs](super)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misaligned<K> {
    /// The nested level's prefix is longer than the group's.
    NestedTooLong { len: usize, outer_len: usize },
    /// The prefix is longer than a member.
    TooLong { len: usize, member: usize, member_len: usize },
    /// The members hold different keys at a position of the prefix.
    Differ { position: usize },
    /// A key of the prefix is held by an excluded storage.
    Excluded { key: K, position: usize },
    /// A key every member holds and no excluded storage holds is past the prefix in member
    /// `member`.
    Outside { key: K, member: usize, position: usize },
}

impl<K: fmt::Debug> fmt::Display for Misaligned<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Misaligned::NestedTooLong { len, outer_len } => write!(
                f,
                "the nested level's aligned prefix ({len} keys) is longer than the group's \
                 ({outer_len} keys)"
            ),
            Misaligned::TooLong { len, member, member_len } => write!(
                f,
                "the aligned prefix ({len} keys) is longer than member {member} ({member_len} keys)"
            ),
            Misaligned::Differ { position } => {
                write!(f, "the members hold different keys at aligned position {position}")
            }
            Misaligned::Excluded { key, position } => write!(
                f,
                "aligned key {key:?} (position {position}) is held by an excluded storage"
            ),
            Misaligned::Outside { key, member, position } => write!(
                f,
                "key {key:?} is held by every member and no excluded storage, but is not aligned \
                 (position {position} of member {member})"
            ),
        }
    }
}

impl<M: GroupRows, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    Group<M, X, N, O>
{
    /// The group's invariant over its keys (the storages' own are theirs), and the nested
    /// level's: the first way it is broken.
    ///
    /// Computes in **O(total len)** time.
    pub(crate) fn check_aligned(&self) -> Result<(), Misaligned<M::Key>> {
        let len = self.len;
        for member in 0..self.members.count() {
            let member_len = self.members.member_keys(member).len();
            if member_len < len {
                return Err(Misaligned::TooLong { len, member, member_len });
            }
        }
        for (position, &key) in self.members.first_keys()[..len].iter().enumerate() {
            if !self.members.same_key_at(position) {
                return Err(Misaligned::Differ { position });
            }
            if self.excluded.holds(key) {
                return Err(Misaligned::Excluded { key, position });
            }
        }
        self.check_outside()?;
        self.nested.check(&self.members, &self.excluded, len)
    }

    /// The last rule of the invariant: every key that qualifies is in the prefix. Looks past it
    /// in the smallest member.
    fn check_outside(&self) -> Result<(), Misaligned<M::Key>> {
        let len = self.len;
        let member = self.members.smallest();
        for (position, &key) in self.members.member_keys(member).iter().enumerate().skip(len) {
            if self.members.positions(key).is_some() && !self.excluded.holds(key) {
                return Err(Misaligned::Outside { key, member, position });
            }
        }
        Ok(())
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Group<M, X> {
    /// A group of storages that are aligned already (as a group left them), without moving a
    /// key: its prefix is every leading position where the members hold the same key and no
    /// excluded storage holds it.
    ///
    /// Computes in **O(total len)** time.
    ///
    /// # Errors
    ///
    /// The first way the storages are not a group's, as [`Misaligned`].
    #[cfg_attr(
        not(feature = "serde"),
        expect(dead_code, reason = "loading (feature `serde`) is its caller")
    )]
    pub(crate) fn from_aligned_parts(members: M, excluded: X) -> Result<Self, Misaligned<M::Key>> {
        let shortest =
            (0..members.count()).map(|member| members.member_keys(member).len()).min().unwrap_or(0);
        let len = members.first_keys()[..shortest]
            .iter()
            .enumerate()
            .take_while(|&(position, &key)| members.same_key_at(position) && !excluded.holds(key))
            .count();
        // The prefix holds by construction (within every member, the same key at each
        // position, none excluded): what is left to check is that no qualifying key is past it.
        let group = Group { members, excluded, nested: (), len, observer: () };
        group.check_outside()?;
        Ok(group)
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>> Group<M, X> {
    /// This group with nested levels of storages that are aligned already (as a family left
    /// them), without moving a key: each level's prefix is every leading position of the
    /// prefix around it where the level's members hold that prefix's key and no excluded
    /// storage of the level holds it.
    ///
    /// Computes in **O(total len)** time.
    ///
    /// # Errors
    ///
    /// The first way the storages are not a family's, as [`Misaligned`].
    #[cfg_attr(
        not(feature = "serde"),
        expect(dead_code, reason = "loading (feature `serde`) is its caller")
    )]
    pub(crate) fn with_aligned_levels<N: Nest<M::Key>>(
        self,
        mut nested: N,
    ) -> Result<Group<M, X, N>, Misaligned<M::Key>> {
        nested.measure(&self.members, self.len);
        let Group { members, excluded, len, .. } = self;
        let group = Group { members, excluded, nested, len, observer: () };
        // The prefixes hold by construction: what is left is that no qualifying key is past
        // one.
        group.check_aligned()?;
        Ok(group)
    }
}

/// The length of an aligned prefix that `members` and `excluded` (a level's) keep inside the
/// first `outer_len` keys of `outer` (the levels around it): every leading position where each
/// member holds the outer key and no excluded storage holds it.
pub(super) fn aligned_len<O, M, X>(outer: &O, outer_len: usize, members: &M, excluded: &X) -> usize
where
    O: GroupRows,
    M: GroupRows<Key = O::Key>,
    X: GroupExcluded<O::Key>,
{
    let shortest = (0..members.count())
        .map(|member| members.member_keys(member).len())
        .fold(outer_len, usize::min);
    let keys = outer.first_keys();
    (0..shortest)
        .take_while(|&position| {
            members.same_key_at(position)
                && members.key_at(0, position) == keys.get(position).copied()
                && !excluded.holds(keys[position])
        })
        .count()
}
