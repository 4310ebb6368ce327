//! The algorithms behind `#[derive(World)]` (in `sparse-soa`): removing a key from every storage
//! of a world, and retaining the keys a predicate keeps (this file); storing a whole row of
//! components for one entity (`row.rs`), and rows of a tuple and batches of rows stored a run
//! at a time (`batch.rs`). The generated code only lists the world's storages,
//! as a slice of [`WorldStorage`] trait objects, and names the storage of each component type;
//! the algorithms are here. Apart from [`Bundle`], [`Component`] and [`SpawnBatch`], which
//! appear in the generated methods' signatures, not public API: reached through `__private`,
//! and may change in any release.

mod batch;
mod row;

pub use batch::{SpawnBatch, spawn_batch, spawn_rows_one, try_spawn_batch};
pub use row::{
    At, Bundle, Component, Excluded, FieldValue, Fields, LevelExcluded, LevelMember, Member,
    NoValue, One, Place, Refused, RowStorage, RowWorld, Tag, Whole, WorldKey, distinct, insert,
    put_one, reserve_one, spawn, try_insert, try_spawn,
};

use crate::entity::Entities;
use crate::group::{Group, GroupExcluded, GroupExcludedMut, GroupMembers, GroupRows, KeySet, Nest};
use crate::observe::Observer;
use crate::query::member::SameKey;
use crate::storage::Storage;

/// A storage of a world, seen through a trait object so that one slice can hold storages of
/// different types: what despawning and retaining need of it, and nothing more.
///
/// A storage walks as one or more **parts**, each a list of keys by dense position: a
/// [`Storage`] is one part; a [`Group`] is one part per storage it owns, and removes a key
/// from all of them at once, keeping itself aligned.
///
/// Implemented for every [`Storage`] and every [`Group`] keyed by `K` (a key of another type is
/// refused through [`WorldKey`], whose message says what to do).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a storage keyed by `{K}`, so `World` cannot despawn from it",
    label = "not a storage keyed by `{K}`",
    note = "a world's fields are storages (`SparseMap`, `SparseSet`, a derived `...Soa`, a `Group` of them) all keyed by the world's key, plus an optional `Entities` allocator",
    note = "mark the field `#[sparse_soa(skip)]` if it is not a storage, or `#[sparse_soa(entities)]` if it is the allocator under another name"
)]
pub trait WorldStorage<K> {
    /// The number of key lists the storage walks as.
    fn parts(&self) -> usize;
    /// The number of keys in part `part`.
    fn key_count(&self, part: usize) -> usize;
    /// The key at dense position `index` of part `part`, if there is one.
    fn key_at(&self, part: usize, index: usize) -> Option<K>;
    /// Whether part `part` holds `key`.
    fn part_contains(&self, part: usize, key: K) -> bool;
    /// Removes `key` from every part (dropping the values), as a swap-remove in each; whether
    /// any held it.
    fn remove(&mut self, key: K) -> bool;
    /// Asks the processor for the cells [`remove`](Self::remove) reads first, one in every
    /// part; changes nothing (see [`KeySet::prefetch`]).
    fn prefetch(&self, key: K);
}

// Over every key `K` the storage's key is the same type as (`WorldKey`), not over `S::Key`
// itself: a storage of another key is then an error that says what to do, not a type
// mismatch.
impl<S: Storage<Key: WorldKey<K>>, K> WorldStorage<K> for S {
    #[inline]
    fn parts(&self) -> usize {
        1
    }

    #[inline]
    fn key_count(&self, _: usize) -> usize {
        Storage::len(self)
    }

    #[inline]
    fn key_at(&self, _: usize, index: usize) -> Option<K> {
        Storage::keys(self).get(index).map(|&key| key.into_key())
    }

    #[inline]
    fn part_contains(&self, _: usize, key: K) -> bool {
        Storage::contains_key(self, S::Key::from_key(key))
    }

    #[inline]
    fn remove(&mut self, key: K) -> bool {
        Storage::remove(self, S::Key::from_key(key)).is_some()
    }

    #[inline]
    fn prefetch(&self, key: K) {
        KeySet::prefetch(self, S::Key::from_key(key));
    }
}

/// A group walks as one part per member, then one per excluded storage, then one per storage
/// of its nested level, and removes a key from all of them with [`Group::remove`], which keeps
/// it aligned.
impl<M, X, N, O, K> WorldStorage<K> for Group<M, X, N, O>
where
    M: GroupMembers<Key: WorldKey<K>>,
    O: Observer<M::Key, ()>,
    X: GroupExcludedMut<M::Key>,
    N: Nest<M::Key>,
{
    #[inline]
    fn parts(&self) -> usize {
        self.members().count() + self.excluded().count() + self.nested_level().storage_count()
    }

    #[inline]
    fn key_count(&self, part: usize) -> usize {
        self.part(part).map_or(0, |part| part.key_slice().len())
    }

    #[inline]
    fn key_at(&self, part: usize, index: usize) -> Option<K> {
        self.part(part)?.key_slice().get(index).map(|&key| key.into_key())
    }

    #[inline]
    fn part_contains(&self, part: usize, key: K) -> bool {
        let key = M::Key::from_key(key);
        self.part(part).is_some_and(|part| part.holds(key))
    }

    #[inline]
    fn remove(&mut self, key: K) -> bool {
        Group::remove(self, M::Key::from_key(key))
    }

    #[inline]
    fn prefetch(&self, key: K) {
        let key = M::Key::from_key(key);
        // Through the tuples of storages, level by level: no trait object.
        self.members().prefetch(key);
        self.excluded().prefetch(key);
        self.nested_level().prefetch(key);
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    Group<M, X, N, O>
{
    /// Part `part`'s keys: a member's, then an excluded storage's, then a nested level's
    /// storage's.
    fn part(&self, part: usize) -> Option<&dyn KeySet<M::Key>> {
        let Some(excluded) = part.checked_sub(self.members().count()) else {
            return self.members().part(part);
        };
        match excluded.checked_sub(self.excluded().count()) {
            None => self.excluded().part(excluded),
            Some(nested) => self.nested_level().storage(nested),
        }
    }
}

/// The key a storage of a world is keyed by: how a world without an allocator names its key
/// (that of its first storage). Implemented for every [`Storage`] and every [`Group`].
pub trait Keyed {
    /// The key type.
    type Key: Copy;
}

impl<S: Storage> Keyed for S {
    type Key = S::Key;
}

impl<M: GroupRows, X, N, O: Observer<M::Key, ()>> Keyed for Group<M, X, N, O> {
    type Key = M::Key;
}

/// `storage` (`&S` or `&mut S`) as a world's trait object, shared or mutable alike. The
/// generated code passes every storage field through it, so a field that is not a storage of
/// the world's key is reported on that field once (one function, one bound, however many
/// methods use the field), with [`WorldStorage`]'s note on what to do.
#[inline]
pub fn world_storage<'a, K: 'a, S: WorldStorage<K> + 'a, R: Lend<'a, S>>(storage: R) -> R::Dyn<K> {
    storage.lend()
}

/// A shared or mutable reference to a storage, which [`world_storage`] turns into a trait
/// object of the same kind.
pub trait Lend<'a, S: 'a> {
    /// `&dyn WorldStorage<K>` or `&mut dyn WorldStorage<K>`.
    type Dyn<K: 'a>;
    /// The storage as that trait object.
    fn lend<K: 'a>(self) -> Self::Dyn<K>
    where
        S: WorldStorage<K>;
}

impl<'a, S: 'a> Lend<'a, S> for &'a S {
    type Dyn<K: 'a> = &'a dyn WorldStorage<K>;

    #[inline]
    fn lend<K: 'a>(self) -> &'a dyn WorldStorage<K>
    where
        S: WorldStorage<K>,
    {
        self
    }
}

impl<'a, S: 'a> Lend<'a, S> for &'a mut S {
    type Dyn<K: 'a> = &'a mut dyn WorldStorage<K>;

    #[inline]
    fn lend<K: 'a>(self) -> &'a mut dyn WorldStorage<K>
    where
        S: WorldStorage<K>,
    {
        self
    }
}

/// What a world's allocator field is: an [`Entities`](Entities), which a field of that
/// type, or one marked `#[sparse_soa(entities)]`, must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `Entities` allocator",
    label = "not `Entities`",
    note = "a world's allocator is a field of type `Entities` (found by that name, or marked `#[sparse_soa(entities)]` when written through an alias); a storage field needs no attribute"
)]
pub trait Allocator {
    /// The allocator.
    fn entities(&self) -> &Entities;
    /// The allocator, mutably.
    fn entities_mut(&mut self) -> &mut Entities;
}

impl Allocator for Entities {
    #[inline]
    fn entities(&self) -> &Entities {
        self
    }

    #[inline]
    fn entities_mut(&mut self) -> &mut Entities {
        self
    }
}

/// `allocator` (`&A` or `&mut A`) as the world's `Entities`, shared or mutable alike. The
/// generated code passes the allocator field through it, so a field that is no allocator is
/// reported on that field once, with [`Allocator`]'s note on what to do.
#[inline]
pub fn allocator<'a, A: Allocator + 'a, R: LendAllocator<'a, A>>(allocator: R) -> R::Entities {
    allocator.lend()
}

/// A shared or mutable reference to an allocator, which [`allocator`] turns into one to its
/// `Entities` of the same kind.
pub trait LendAllocator<'a, A: 'a> {
    /// `&Entities` or `&mut Entities`.
    type Entities;
    /// The allocator's `Entities`.
    fn lend(self) -> Self::Entities
    where
        A: Allocator;
}

impl<'a, A: 'a> LendAllocator<'a, A> for &'a A {
    type Entities = &'a Entities;

    #[inline]
    fn lend(self) -> &'a Entities
    where
        A: Allocator,
    {
        self.entities()
    }
}

impl<'a, A: 'a> LendAllocator<'a, A> for &'a mut A {
    type Entities = &'a mut Entities;

    #[inline]
    fn lend(self) -> &'a mut Entities
    where
        A: Allocator,
    {
        self.entities_mut()
    }
}

/// Removes `key` from every storage (dropping its values); whether any held it.
///
/// Computes in **O(storages)** time.
pub fn despawn<K: Copy>(storages: &mut [&mut dyn WorldStorage<K>], key: K) -> bool {
    // Every storage's cell of `key` (a random cache line each, one per member of a group) asked
    // for before the first removal reads its own: the misses overlap instead of following one
    // another.
    for storage in storages.iter() {
        WorldStorage::prefetch(&**storage, key);
    }
    let mut held = false;
    for storage in storages {
        held |= storage.remove(key);
    }
    held
}

/// Asks `keep` once per key in the union of the storages' keys and removes each key it rejects
/// from every storage, at the moment it is rejected. Allocates nothing.
///
/// The storages are walked in order, and each storage part by part, each part from its last
/// dense position down to 0. A key that an earlier storage or an earlier part holds is skipped:
/// it was asked there and kept, since a rejected key leaves every storage at once. Removing a
/// rejected key changes only positions at or after the current one in the part being walked (a
/// swap-remove moves the last key into the current position; a group first swaps the key to the
/// end of its aligned prefix, which is after it too), positions the walk has already passed, so
/// walking backwards visits every key of every part exactly once.
///
/// Computes in **O(total len × parts)** time.
pub fn retain_keys<K: Copy>(
    storages: &mut [&mut dyn WorldStorage<K>],
    mut keep: impl FnMut(K) -> bool,
) {
    for walked in 0..storages.len() {
        for part in 0..storages[walked].parts() {
            let mut index = storages[walked].key_count(part);
            while index > 0 {
                index -= 1;
                // Re-read at every step: a rejection moves keys. `key_at` also guards the index.
                let Some(key) = storages[walked].key_at(part, index) else { continue };
                let asked_before = storages[..walked].iter().any(|earlier| {
                    (0..earlier.parts())
                        .any(|earlier_part| earlier.part_contains(earlier_part, key))
                }) || (0..part)
                    .any(|earlier_part| storages[walked].part_contains(earlier_part, key));
                if asked_before {
                    continue;
                }
                if !keep(key) {
                    despawn(storages, key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::collections::BTreeSet;
    use alloc::vec;
    use alloc::vec::Vec;

    use super::*;
    use crate::entity::Entity;
    use crate::map::SparseMap;
    use crate::set::SparseSet;

    #[test]
    fn despawn_removes_from_every_storage_that_holds_the_key() {
        let mut a: SparseMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
        let mut b: SparseSet<u32> = [2, 3].into_iter().collect();
        assert!(despawn(&mut [&mut a, &mut b], 2));
        assert_eq!((a.keys(), b.as_slice()), (&[1][..], &[3][..]));
        assert!(despawn(&mut [&mut a, &mut b], 3));
        assert!(!despawn(&mut [&mut a, &mut b], 3));
        assert_eq!((a.keys(), b.as_slice()), (&[1][..], &[][..]));
    }

    /// A prefetch reads and changes nothing, for a key held, missing, past every page, or of a
    /// group's excluded storage; the removal after it removes what it removed without it.
    #[test]
    fn a_prefetch_changes_nothing_and_despawn_still_removes_everywhere() {
        let a: SparseMap<u32, char> = [(1, 'a'), (2, 'b'), (3, 'c')].into_iter().collect();
        let b: SparseMap<u32, u8> = [(2, 20), (3, 30)].into_iter().collect();
        let frozen: SparseSet<u32> = [1, 70_000].into_iter().collect();
        let mut group = Group::with_excluded((a, b), (frozen,));
        let mut tags: SparseSet<u32> = [3, 4].into_iter().collect();
        let parts = |group: &Group<_, _>, tags: &SparseSet<u32>| {
            let keys = (0..group.parts()).map(|part| {
                (0..group.key_count(part)).filter_map(|at| group.key_at(part, at)).collect()
            });
            (keys.collect::<Vec<Vec<u32>>>(), tags.as_slice().to_vec(), group.len())
        };
        let before = parts(&group, &tags);
        for key in [1, 2, 3, 4, 5, 70_000, u32::MAX] {
            WorldStorage::prefetch(&group, key);
            WorldStorage::prefetch(&tags, key);
        }
        assert_eq!(parts(&group, &tags), before);
        assert!(despawn(&mut [&mut group, &mut tags], 3));
        assert!(despawn(&mut [&mut group, &mut tags], 70_000));
        let (keys, tags, len) = parts(&group, &tags);
        assert_eq!(keys, [vec![2, 1], vec![2], vec![1]]);
        assert_eq!((tags, len), (vec![4], 1));
    }

    /// A row's prefetch of a group's member reads the entity's cell and the cell of the
    /// member's first key past the prefix (the row a completed row displaces), for a fresh
    /// entity, a held one and a member holding nothing past the prefix, and changes nothing;
    /// the row put after it still completes the group.
    #[test]
    fn a_row_prefetch_changes_nothing_and_the_completed_row_still_joins() {
        type Motion = Group<(SparseMap<Entity, u8>, SparseMap<Entity, u8>)>;
        let mut entities = Entities::new();
        let [a, b, c, d] = [(); 4].map(|()| entities.spawn());
        let positions: SparseMap<Entity, u8> = [(a, 1), (b, 2), (c, 3)].into_iter().collect();
        let velocities: SparseMap<Entity, u8> = [(a, 10)].into_iter().collect();
        let mut group: Motion = Group::new((positions, velocities));
        let keys = |group: &Motion| {
            let (positions, velocities) = group.members();
            (positions.keys().to_vec(), velocities.keys().to_vec(), group.len())
        };
        let before = keys(&group);
        assert_eq!(before, (vec![a, b, c], vec![a], 1));
        for entity in [a, c, d] {
            RowStorage::<Member<0>, u8>::prefetch(&group, entity);
            RowStorage::<Member<1>, u8>::prefetch(&group, entity);
        }
        assert_eq!(keys(&group), before);
        assert_eq!(RowStorage::<Member<1>, u8>::put(&mut group, c, 30), Ok(None));
        RowStorage::<Member<1>, u8>::finish(&mut group, c);
        assert_eq!(keys(&group), (vec![a, c, b], vec![a, c], 2));
        group.assert_invariants();
    }

    #[test]
    fn retain_keys_asks_each_key_of_the_union_once() {
        let mut a: SparseMap<u32, u32> = (0..20).map(|key| (key, key)).collect();
        let mut b: SparseSet<u32> = (10..30).collect();
        let mut c: SparseSet<u32> = [5, 25, 40, 41].into_iter().collect();
        let mut asked = Vec::new();
        retain_keys(&mut [&mut a, &mut b, &mut c], |key| {
            asked.push(key);
            key % 3 != 0
        });
        let unique: BTreeSet<u32> = asked.iter().copied().collect();
        assert_eq!(unique.len(), asked.len(), "a key was asked twice: {asked:?}");
        assert_eq!(unique, (0..30).chain([40, 41]).collect());
        for keys in [a.keys(), b.as_slice(), c.as_slice()] {
            assert!(keys.iter().all(|key| key % 3 != 0), "a rejected key was kept: {keys:?}");
        }
        assert_eq!((a.len(), b.len(), c.len()), (13, 14, 4));
        a.assert_invariants();
        b.assert_invariants();
        c.assert_invariants();
        assert!(a.iter().all(|(key, &value)| key == value));
    }

    #[test]
    fn retain_keys_rejecting_everything_empties_every_storage() {
        let mut a: SparseSet<u32> = (0..10).collect();
        let mut b: SparseSet<u32> = (5..15).rev().collect();
        let mut asked = 0;
        retain_keys(&mut [&mut a, &mut b], |_| {
            asked += 1;
            false
        });
        assert_eq!(asked, 15);
        assert!(a.is_empty() && b.is_empty());
    }
}
