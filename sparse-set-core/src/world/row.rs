//! Whole rows: an entity's components stored in a world's storages in one call, as
//! `#[derive(World)]`'s `spawn`, `spawn_batch` and `insert` do.
//!
//! A **row** ([`Bundle`]) is one component, a tuple of 1 to 8, or a struct deriving `Bundle`
//! (whose fields, 1 to 8 components, are stored as the tuple of them would be). A **component** is a value
//! that has a storage in the world ([`Component`]): the derive implements it for the value type
//! of every storage field (`Position` for a `PositionSoa`, `T` for a `SparseMap<Entity, T>`),
//! and for the value type of every member and excluded storage of a group field written
//! `Group<(..), (..)>`. Each implementation names its field and its part by an index type
//! ([`At`]), which inference picks: a row that names a type with no storage in the world does
//! not compile, and neither does one that names a storage twice.
//!
//! # How a row is stored
//!
//! Every component is put into its storage; a group's member is put without touching the
//! prefix, and the group is finished once, after the last of its components: a row that
//! completes the group is then written to the end of the aligned prefix without a lookup in
//! the other members (see `Group`'s `rows.rs`). If a put fails, the puts before it are undone
//! in reverse order (a replaced value is put back, a new one removed), so a failed row changes
//! nothing; a spawn then also frees its entity. The one value not put back is one an older
//! generation of a live entity's slot left behind (despawned from the allocator alone): it was
//! not the entity's, so the entity's new one is removed and it is dropped. The groups are
//! finished on every path, also while unwinding, and the replaced values are dropped only
//! after that. (Rows of a tuple are
//! stored by `batch.rs`, which also stores a batch of rows a run at a time.)

use alloc::vec::Vec;
use core::marker::PhantomData;
use core::ops::Range;

use crate::entity::{Entities, Entity};
use crate::error::Error;
use crate::group::{
    ExcludedValue, Group, GroupExcluded, GroupMembers, Level, MemberValue, Nest, Nth,
};
use crate::observe::Observer;
use crate::query::member::SameKey;
use crate::storage::{Columnar, Storage, reserve_for_batch};

/// Where a component goes: field `N` of the world, of type `S`, part `P` of it ([`Whole`],
/// [`Member`], [`Excluded`], [`LevelMember`] or [`LevelExcluded`]). Written by the derive,
/// picked by inference; never by hand. (The field's type is named so that a
/// [`Component`] implementation is as visible as the storage it names: a private storage type
/// keeps it private.)
#[doc(hidden)]
pub struct At<const N: usize, P, S>(PhantomData<(P, S)>);

/// A storage field, whole.
#[doc(hidden)]
pub struct Whole;

/// Member `I` of a group field.
#[doc(hidden)]
pub struct Member<const I: usize>;

/// Excluded storage `I` of a group field.
#[doc(hidden)]
pub struct Excluded<const I: usize>;

/// Member `I` of level `D` of a group field's family (level 1 is the nested level).
#[doc(hidden)]
pub struct LevelMember<const D: usize, const I: usize>;

/// Excluded storage `I` of level `D` of a group field's family.
#[doc(hidden)]
pub struct LevelExcluded<const D: usize, const I: usize>;

/// A tag (a unit struct) stored in part `P`, a storage whose value is `()`: named by the
/// world field's `#[sparse_soa(tag = T)]`.
#[doc(hidden)]
pub struct Tag<P>(PhantomData<P>);

/// A place of a component in a world: its field and its part, as numbers, so that a row can
/// check at compile time that it names no storage twice.
#[doc(hidden)]
pub trait Place {
    /// The part of the field.
    type Part;
    /// The field and the part, as one number each.
    const WHERE: (usize, usize);
}

impl<const N: usize, S> Place for At<N, Whole, S> {
    type Part = Whole;
    const WHERE: (usize, usize) = (N, 0);
}

impl<const N: usize, const I: usize, S> Place for At<N, Member<I>, S> {
    type Part = Member<I>;
    const WHERE: (usize, usize) = (N, 1 + I);
}

impl<const N: usize, const I: usize, S> Place for At<N, Excluded<I>, S> {
    type Part = Excluded<I>;
    const WHERE: (usize, usize) = (N, 1 + 8 + I);
}

impl<const N: usize, const D: usize, const I: usize, S> Place for At<N, LevelMember<D, I>, S> {
    type Part = LevelMember<D, I>;
    const WHERE: (usize, usize) = (N, 1 + 16 * D + I);
}

impl<const N: usize, const D: usize, const I: usize, S> Place for At<N, LevelExcluded<D, I>, S> {
    type Part = LevelExcluded<D, I>;
    const WHERE: (usize, usize) = (N, 1 + 16 * D + 8 + I);
}

impl<const N: usize, P, S> Place for At<N, Tag<P>, S>
where
    At<N, P, S>: Place,
{
    type Part = Tag<P>;
    const WHERE: (usize, usize) = <At<N, P, S> as Place>::WHERE;
}

/// The key type of one storage of a world, checked against the world's key `K`: how a world's
/// storages are required to share one key type, with a message that says what to do when one
/// does not. Implemented for every key type with itself (`K: WorldKey<K>`), and nothing else
/// (sealed). Its conversions are those of the query's check of the same kind, [`SameKey`]
/// (the identity), and the one a run of rows needs, of a slice.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a storage keyed by `{Self}` in a world keyed by `{K}`",
    label = "keyed by `{Self}`, not `{K}`",
    note = "every storage of a world is keyed by the world's key: `Entity` in a world with an `Entities` field, else the first storage's key",
    note = "a derived storage is keyed by `u32` unless its struct names another key (`#[sparse_soa(key = Entity)]`); a map's key is its first parameter (`SparseMap<Entity, V>`)",
    note = "mark the field `#[sparse_soa(skip)]` if the world should not despawn from it"
)]
pub trait WorldKey<K>: SameKey<K> + sealed::SameType<K> + Sized {
    /// Keys of the world's type, as the storage's (the same type).
    fn from_world_slice(keys: &[K]) -> &[Self];
}

mod sealed {
    /// `Self` is `K`: what keeps [`WorldKey`](super::WorldKey) to its one implementation.
    pub trait SameType<K> {}

    impl<K> SameType<K> for K {}
}

impl<K> WorldKey<K> for K {
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the identity")]
    fn from_world_slice(keys: &[K]) -> &[K] {
        keys
    }
}

/// What a row needs of the storage of a field, for a component of type `V` in part `P`:
/// implemented for every [`Storage`] keyed by [`Entity`] (as [`Whole`]) and for every
/// [`Group`] (one implementation per member and per excluded storage).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot store a `{V}` of a world's row",
    label = "no storage for a `{V}`",
    note = "a storage field stores its values (or, marked `tag = ..`, its tag) when it is one storage keyed by `Entity`; a group field stores the values of its members and excluded storages",
    note = "the derive reads a group's members from the field's type as written: write the field `Group<(..), (..)>` in the world itself, not through a type alias"
)]
pub trait RowStorage<P, V> {
    /// Stores `value` under `entity`; the value it replaced. A group's prefix waits for
    /// [`finish`](Self::finish).
    ///
    /// # Errors
    ///
    /// As the storage's `try_insert`; nothing changed then.
    fn put(&mut self, entity: Entity, value: V) -> Result<Option<V>, Error>;
    /// Asks the processor for `entity`'s cell of the storage's sparse index, before
    /// [`put`](Self::put): `SparseSet::prefetch` (a group's member also asks for the cell of
    /// the key a completed row displaces). Changes nothing.
    fn prefetch(&self, entity: Entity);
    /// Undoes [`put`](Self::put), given what it returned.
    fn take_back(&mut self, entity: Entity, replaced: Option<V>);
    /// Whether the storage holds another version of `entity`'s slot (an older generation, left
    /// by a despawn from the allocator alone), which a put under `entity` replaces: its value
    /// is not the entity's own, so a failed row does not give it back to the entity.
    fn holds_other_version(&self, entity: Entity) -> bool;
    /// Room for `additional` more values, most of them under new keys whose sparse slots lie in
    /// `slots`, as a hint.
    fn reserve(&mut self, additional: usize, slots: Range<u64>);
    /// Ends the row: a group repairs its prefix for `entity`.
    fn finish(&mut self, entity: Entity);
    /// How many of `entities` (just spawned), from the first, [`put_run`](Self::put_run) can
    /// store as new rows without growing anything or failing: `Storage::fresh_run_len`.
    fn fresh_run_len(&self, entities: &[Entity]) -> usize;
    /// Stores the first `entities.len()` of `values` (drained from the front) under
    /// `entities`, no more of them than [`fresh_run_len`](Self::fresh_run_len) measured. A
    /// group's prefix waits for [`finish_run`](Self::finish_run).
    fn put_run(&mut self, entities: &[Entity], values: &mut Vec<V>);
    /// Ends the rows of a run: a group repairs its prefix for `entities`, in order.
    fn finish_run(&mut self, entities: &[Entity]);
}

// Bound by `WorldKey`, not `Key = Entity`: a storage of another key is then an error that
// says what to do, not a type mismatch.
impl<S: Storage<Key: WorldKey<Entity>>> RowStorage<Whole, S::Value> for S {
    #[inline]
    fn put(&mut self, entity: Entity, value: S::Value) -> Result<Option<S::Value>, Error> {
        self.try_insert(S::Key::from_key(entity), value)
    }

    #[inline]
    fn prefetch(&self, entity: Entity) {
        self.as_sparse_set().prefetch(S::Key::from_key(entity));
    }

    #[inline]
    fn take_back(&mut self, entity: Entity, replaced: Option<S::Value>) {
        let key = S::Key::from_key(entity);
        match replaced {
            // Held: replaced in place, which cannot fail.
            Some(value) => drop(self.try_insert(key, value)),
            None => drop(Storage::remove(self, key)),
        }
    }

    #[inline]
    fn holds_other_version(&self, entity: Entity) -> bool {
        self.as_sparse_set().other_version(S::Key::from_key(entity)).is_some()
    }

    #[inline]
    fn reserve(&mut self, additional: usize, slots: Range<u64>) {
        reserve_for_batch(self, additional, slots);
    }

    #[inline]
    fn finish(&mut self, _: Entity) {}

    #[inline]
    fn fresh_run_len(&self, entities: &[Entity]) -> usize {
        Storage::fresh_run_len(self, S::Key::from_world_slice(entities))
    }

    #[inline]
    fn put_run(&mut self, entities: &[Entity], values: &mut Vec<S::Value>) {
        self.push_fresh_run(S::Key::from_world_slice(entities), values);
    }

    #[inline]
    fn finish_run(&mut self, _: &[Entity]) {}
}

/// A tag is stored as `()` in its part; the replaced "value" given back is the tag itself.
impl<S: RowStorage<P, ()>, P, T> RowStorage<Tag<P>, T> for S {
    #[inline]
    fn put(&mut self, entity: Entity, tag: T) -> Result<Option<T>, Error> {
        Ok(self.put(entity, ())?.map(|()| tag))
    }

    #[inline]
    fn prefetch(&self, entity: Entity) {
        RowStorage::<P, ()>::prefetch(self, entity);
    }

    #[inline]
    fn take_back(&mut self, entity: Entity, replaced: Option<T>) {
        self.take_back(entity, replaced.map(drop));
    }

    #[inline]
    fn holds_other_version(&self, entity: Entity) -> bool {
        RowStorage::<P, ()>::holds_other_version(self, entity)
    }

    #[inline]
    fn reserve(&mut self, additional: usize, slots: Range<u64>) {
        RowStorage::<P, ()>::reserve(self, additional, slots);
    }

    #[inline]
    fn finish(&mut self, entity: Entity) {
        RowStorage::<P, ()>::finish(self, entity);
    }

    #[inline]
    fn fresh_run_len(&self, entities: &[Entity]) -> usize {
        RowStorage::<P, ()>::fresh_run_len(self, entities)
    }

    #[inline]
    fn put_run(&mut self, entities: &[Entity], tags: &mut Vec<T>) {
        // A `Vec` of `()` never allocates.
        let mut units: Vec<()> = core::iter::repeat_n((), entities.len()).collect();
        RowStorage::<P, ()>::put_run(self, entities, &mut units);
        tags.drain(..entities.len());
    }

    #[inline]
    fn finish_run(&mut self, entities: &[Entity]) {
        RowStorage::<P, ()>::finish_run(self, entities);
    }
}

type NthOf<T, const I: usize> = <T as Nth<I>>::Storage;

impl<M, X, N, const I: usize, O> RowStorage<Member<I>, <NthOf<M, I> as Storage>::Value>
    for Group<M, X, N, O>
where
    M: GroupMembers<Key = Entity> + Nth<I, Storage: Columnar<Key = Entity>>,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<Entity>,
    N: Nest<M::Key>,
{
    #[inline]
    fn put(
        &mut self,
        entity: Entity,
        value: <NthOf<M, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<M, I> as Storage>::Value>, Error> {
        self.put_member::<I>(entity, value)
    }

    #[inline]
    fn prefetch(&self, entity: Entity) {
        self.prefetch_member::<I>(entity);
    }

    #[inline]
    fn take_back(&mut self, entity: Entity, replaced: Option<<NthOf<M, I> as Storage>::Value>) {
        self.take_back_member::<I>(entity, replaced);
    }

    #[inline]
    fn holds_other_version(&self, entity: Entity) -> bool {
        self.members().nth().as_sparse_set().other_version(entity).is_some()
    }

    #[inline]
    fn reserve(&mut self, additional: usize, slots: Range<u64>) {
        self.reserve_member::<I>(additional, slots);
    }

    #[inline]
    fn finish(&mut self, entity: Entity) {
        self.finish_row(entity);
    }

    #[inline]
    fn fresh_run_len(&self, entities: &[Entity]) -> usize {
        self.member_run_len::<I>(entities)
    }

    #[inline]
    fn put_run(&mut self, entities: &[Entity], values: &mut Vec<<NthOf<M, I> as Storage>::Value>) {
        self.put_member_run::<I>(entities, values);
    }

    #[inline]
    fn finish_run(&mut self, entities: &[Entity]) {
        self.finish_rows(entities);
    }
}

impl<M, X, N, const I: usize, O> RowStorage<Excluded<I>, <NthOf<X, I> as Storage>::Value>
    for Group<M, X, N, O>
where
    M: GroupMembers<Key = Entity>,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<Entity> + Nth<I, Storage: Storage<Key = Entity>>,
    N: Nest<M::Key>,
{
    #[inline]
    fn put(
        &mut self,
        entity: Entity,
        value: <NthOf<X, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<X, I> as Storage>::Value>, Error> {
        self.put_excluded::<I>(entity, value)
    }

    #[inline]
    fn prefetch(&self, entity: Entity) {
        self.excluded().nth().as_sparse_set().prefetch(entity);
    }

    #[inline]
    fn take_back(&mut self, entity: Entity, replaced: Option<<NthOf<X, I> as Storage>::Value>) {
        self.take_back_excluded::<I>(entity, replaced);
    }

    #[inline]
    fn holds_other_version(&self, entity: Entity) -> bool {
        self.excluded().nth().as_sparse_set().other_version(entity).is_some()
    }

    #[inline]
    fn reserve(&mut self, additional: usize, slots: Range<u64>) {
        self.reserve_excluded::<I>(additional, slots);
    }

    #[inline]
    fn finish(&mut self, entity: Entity) {
        self.finish_row(entity);
    }

    #[inline]
    fn fresh_run_len(&self, entities: &[Entity]) -> usize {
        self.excluded_run_len::<I>(entities)
    }

    #[inline]
    fn put_run(&mut self, entities: &[Entity], values: &mut Vec<<NthOf<X, I> as Storage>::Value>) {
        self.put_excluded_run::<I>(entities, values);
    }

    #[inline]
    fn finish_run(&mut self, entities: &[Entity]) {
        self.finish_rows(entities);
    }
}

impl<M, X, N, const D: usize, const I: usize, O>
    RowStorage<LevelMember<D, I>, MemberValue<N, Entity, D, I>> for Group<M, X, N, O>
where
    M: GroupMembers<Key = Entity>,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<Entity>,
    N: Nest<Entity> + Level<Entity, D, Members: Nth<I, Storage: Columnar<Key = Entity>>>,
{
    #[inline]
    fn put(
        &mut self,
        entity: Entity,
        value: MemberValue<N, Entity, D, I>,
    ) -> Result<Option<MemberValue<N, Entity, D, I>>, Error> {
        self.put_level_member::<D, I>(entity, value)
    }

    #[inline]
    fn prefetch(&self, entity: Entity) {
        self.nested_level().level_members().nth().as_sparse_set().prefetch(entity);
    }

    #[inline]
    fn take_back(&mut self, entity: Entity, replaced: Option<MemberValue<N, Entity, D, I>>) {
        self.take_back_level_member::<D, I>(entity, replaced);
    }

    #[inline]
    fn holds_other_version(&self, entity: Entity) -> bool {
        let level = self.nested_level();
        level.level_members().nth().as_sparse_set().other_version(entity).is_some()
    }

    #[inline]
    fn reserve(&mut self, additional: usize, slots: Range<u64>) {
        self.reserve_level_member::<D, I>(additional, slots);
    }

    #[inline]
    fn finish(&mut self, entity: Entity) {
        self.finish_row(entity);
    }

    #[inline]
    fn fresh_run_len(&self, entities: &[Entity]) -> usize {
        self.level_member_run_len::<D, I>(entities)
    }

    #[inline]
    fn put_run(&mut self, entities: &[Entity], values: &mut Vec<MemberValue<N, Entity, D, I>>) {
        self.put_level_member_run::<D, I>(entities, values);
    }

    #[inline]
    fn finish_run(&mut self, entities: &[Entity]) {
        self.finish_rows(entities);
    }
}

impl<M, X, N, const D: usize, const I: usize, O>
    RowStorage<LevelExcluded<D, I>, ExcludedValue<N, Entity, D, I>> for Group<M, X, N, O>
where
    M: GroupMembers<Key = Entity>,
    O: Observer<M::Key, ()>,
    X: GroupExcluded<Entity>,
    N: Nest<Entity> + Level<Entity, D, Excluded: Nth<I, Storage: Storage<Key = Entity>>>,
{
    #[inline]
    fn put(
        &mut self,
        entity: Entity,
        value: ExcludedValue<N, Entity, D, I>,
    ) -> Result<Option<ExcludedValue<N, Entity, D, I>>, Error> {
        self.put_level_excluded::<D, I>(entity, value)
    }

    #[inline]
    fn prefetch(&self, entity: Entity) {
        self.nested_level().level_excluded().nth().as_sparse_set().prefetch(entity);
    }

    #[inline]
    fn take_back(&mut self, entity: Entity, replaced: Option<ExcludedValue<N, Entity, D, I>>) {
        self.take_back_level_excluded::<D, I>(entity, replaced);
    }

    #[inline]
    fn holds_other_version(&self, entity: Entity) -> bool {
        let level = self.nested_level();
        level.level_excluded().nth().as_sparse_set().other_version(entity).is_some()
    }

    #[inline]
    fn reserve(&mut self, additional: usize, slots: Range<u64>) {
        self.reserve_level_excluded::<D, I>(additional, slots);
    }

    #[inline]
    fn finish(&mut self, entity: Entity) {
        self.finish_row(entity);
    }

    #[inline]
    fn fresh_run_len(&self, entities: &[Entity]) -> usize {
        self.level_excluded_run_len::<D, I>(entities)
    }

    #[inline]
    fn put_run(&mut self, entities: &[Entity], values: &mut Vec<ExcludedValue<N, Entity, D, I>>) {
        self.put_level_excluded_run::<D, I>(entities, values);
    }

    #[inline]
    fn finish_run(&mut self, entities: &[Entity]) {
        self.finish_rows(entities);
    }
}

/// The value type of a field's storage, as the derive names it: a [`Storage`]'s `Value`; for a
/// [`Group`] (whose components are its members' values) a type no value has, so the
/// implementation the derive writes for the field as a whole can never be used.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a storage, so a world's rows cannot store into it",
    label = "not a storage",
    note = "mark the field `#[sparse_soa(skip)]` if it is not a storage, or `#[sparse_soa(entities)]` if it is the allocator under another name"
)]
pub trait FieldValue {
    /// The value type.
    type Value;
}

impl<S: Storage> FieldValue for S {
    type Value = S::Value;
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> FieldValue
    for Group<M, X, N, O>
{
    type Value = NoValue<M, X>;
}

/// A type without values: what a group field stores as a whole.
#[doc(hidden)]
pub enum NoValue<M, X> {
    #[doc(hidden)]
    Never(core::convert::Infallible, PhantomData<(M, X)>),
}

impl<M: GroupMembers<Key = Entity>, X: GroupExcluded<Entity>, N, O: Observer<M::Key, ()>>
    RowStorage<Whole, NoValue<M, X>> for Group<M, X, N, O>
{
    fn put(&mut self, _: Entity, value: NoValue<M, X>) -> Result<Option<NoValue<M, X>>, Error> {
        match value {
            NoValue::Never(never, _) => match never {},
        }
    }

    fn prefetch(&self, _: Entity) {}

    fn take_back(&mut self, _: Entity, _: Option<NoValue<M, X>>) {}

    fn holds_other_version(&self, _: Entity) -> bool {
        false
    }

    fn reserve(&mut self, _: usize, _: Range<u64>) {}

    fn finish(&mut self, _: Entity) {}

    fn fresh_run_len(&self, _: &[Entity]) -> usize {
        0
    }

    fn put_run(&mut self, _: &[Entity], _: &mut Vec<NoValue<M, X>>) {}

    fn finish_run(&mut self, _: &[Entity]) {}
}

/// A value with a storage in world `W`: one component of a row. `I` says where it goes (which
/// field, which part of it); inference picks it, and it is never written by hand.
///
/// `#[derive(World)]` implements it for the value type of every storage field, and of every
/// member and excluded storage of a group field written `Group<(..), (..)>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no storage in `{W}`",
    label = "no field of `{W}` stores a `{Self}`",
    note = "a row is a component, a tuple of 1 to 8, or a struct deriving `Bundle` whose 1 to 8 fields are components (not rows); each component's type is the value of one storage field of the world: `T` for a `TSoa` derived from `T`, `V` for a `SparseMap<Entity, V>`, or a member or excluded storage of a group field written `Group<(..), (..)>` in the world itself (not through a type alias), at any of its `Nested` levels",
    note = "a tag (a unit struct whose storage keeps keys alone, as `FrozenSoa` for `struct Frozen;`) is a component only through `#[sparse_soa(tag = Frozen)]` on its storage's field",
    note = "a world spawns rows only if it has an `Entities` field and no generic parameters"
)]
pub trait Component<W, I: Place>: Sized {
    /// The type of the field that stores it. (Its `RowStorage` bound is checked where a row
    /// is stored, not here, so that a field that is not a storage of the world's key is
    /// reported once, by the world's despawn.)
    #[doc(hidden)]
    type Storage;

    /// That field of `world`.
    #[doc(hidden)]
    fn storage(world: &mut W) -> &mut Self::Storage;
}

/// A row of world `W`: a [`Component`], a tuple of 1 to 8 components of distinct storages, or
/// a struct that derives `Bundle` (`sparse_soa::Bundle`), whose 1 to 8 fields are such
/// components. `I` says where each component goes; inference picks it.
///
/// Spawned by `#[derive(World)]`'s `spawn`, `try_spawn` and `spawn_batch`, and added to a live
/// entity by its `insert` and `try_insert`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a row of `{W}`",
    label = "not a component of `{W}`, a tuple of 1 to 8 of them, or a struct deriving `Bundle`",
    note = "a row is a component, a tuple of 1 to 8, or a struct deriving `Bundle` whose 1 to 8 fields are components; each component's type is the value of one storage field of the world",
    note = "a tag (a unit struct) is a component of the field marked `#[sparse_soa(tag = Tag)]`: mark its storage field so"
)]
pub trait Bundle<W, I>: Sized {
    /// What the row replaced, dropped once the row is stored.
    #[doc(hidden)]
    type Replaced;

    /// Whether the row names each storage once. The world's methods that take a row assert it
    /// where they are called, when the program is built: a row with one component twice does
    /// not build, and the error names the call. (The hidden methods below, which those methods
    /// call, check it again in debug builds.)
    #[doc(hidden)]
    const DISTINCT: bool = true;

    /// Stores every component under `entity`, finishing every group it put into (also while
    /// unwinding); on an error, undoes the puts made. `LIVE`: `entity` was alive before (an
    /// insert, not a spawn), so a value a put replaced may be its own, given back on an error,
    /// or an older generation's, which is not.
    ///
    /// # Errors
    ///
    /// The first storage's error, with the component it refused; nothing changed then, but
    /// for rows of older generations of `entity`'s slot a put replaced: those are gone.
    #[doc(hidden)]
    fn put<const LIVE: bool>(
        self,
        world: &mut W,
        entity: Entity,
    ) -> Result<Self::Replaced, Refused>;

    /// Asks the processor for `entity`'s cell of every storage the row names
    /// ([`RowStorage::prefetch`]), before [`put`](Self::put): the cells are random cache lines
    /// of separate storages, fetched together rather than one miss after another. Changes
    /// nothing. A row of one component has one cell, and asks for nothing.
    #[doc(hidden)]
    #[inline]
    fn prefetch(world: &mut W, entity: Entity) {
        let _ = (world, entity);
    }

    /// Room for `additional` more rows in every storage it names, most of them under new
    /// entities whose indices lie in `slots`, as a hint.
    #[doc(hidden)]
    fn reserve(world: &mut W, additional: usize, slots: Range<u64>);

    /// Spawns rows of `rows`, in order, as `spawn` would one by one: every row left if `all`,
    /// else the next row or run of rows (none once `rows` has ended). The entities spawned are
    /// appended to `spawned`, if given.
    ///
    /// # Panics
    ///
    /// Where `spawn` would, with its message; the rows spawned before stay.
    #[doc(hidden)]
    #[track_caller]
    fn spawn_rows<R: Iterator<Item = Self>>(
        world: &mut W,
        rows: &mut R,
        spawned: Option<&mut Vec<Entity>>,
        all: bool,
    ) where
        W: RowWorld;
}

/// Why a row was not stored: the error, and the type of the component whose storage refused
/// it (`None`: the world's allocator refused the entity), which the panicking `spawn` and
/// `insert` name.
#[doc(hidden)]
#[derive(Debug)]
pub struct Refused {
    /// What went wrong.
    pub error: Error,
    /// The component's type name, or `None` for the allocator.
    pub component: Option<&'static str>,
}

impl Refused {
    /// `error`, from the storage of component `C`.
    #[cold]
    #[must_use]
    pub fn by<C>(error: Error) -> Self {
        Refused { error, component: Some(core::any::type_name::<C>()) }
    }
}

/// One component, alone: the row's index type.
#[doc(hidden)]
pub struct One<I>(PhantomData<I>);

/// A struct deriving `Bundle`: the row's index type, `I` that of the tuple of its fields. (A
/// type of its own, so that a struct can be both a row of its fields and, in another world, a
/// component.)
#[doc(hidden)]
pub struct Fields<I>(PhantomData<I>);

/// A row of one component: what the derive's `Bundle` implementation for each component type
/// calls. (Written per component type rather than as one blanket implementation, so that a
/// tuple row has one candidate implementation, and a component without a storage is named in
/// the error.)
///
/// # Errors
///
/// As the storage's `try_insert`; nothing changed then.
#[doc(hidden)]
#[inline]
pub fn put_one<W, I: Place, C: Component<W, I, Storage: RowStorage<I::Part, C>>>(
    component: C,
    world: &mut W,
    entity: Entity,
) -> Result<Option<C>, Refused> {
    let storage = C::storage(world);
    let finish = Finish { storage: &mut *storage, entity, part: PhantomData::<(I::Part, C)> };
    finish.storage.put(entity, component).map_err(Refused::by::<C>)
}

/// Room for `additional` more rows of one component, as a hint.
#[doc(hidden)]
#[inline]
pub fn reserve_one<W, I: Place, C: Component<W, I, Storage: RowStorage<I::Part, C>>>(
    world: &mut W,
    additional: usize,
    slots: Range<u64>,
) {
    C::storage(world).reserve(additional, slots);
}

/// Finishes one storage's row when dropped: after the put, on the error path, or while
/// unwinding.
struct Finish<'s, S: RowStorage<P, V>, P, V> {
    storage: &'s mut S,
    entity: Entity,
    part: PhantomData<(P, V)>,
}

impl<S: RowStorage<P, V>, P, V> Drop for Finish<'_, S, P, V> {
    #[inline]
    fn drop(&mut self) {
        self.storage.finish(self.entity);
    }
}

/// Whether `places` names no place twice: a row's compile-time check.
#[doc(hidden)]
#[must_use]
pub const fn distinct(places: &[(usize, usize)]) -> bool {
    let mut i = 0;
    while i < places.len() {
        let mut j = i + 1;
        while j < places.len() {
            if places[i].0 == places[j].0 && places[i].1 == places[j].1 {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// What a world that spawns rows gives the runtime: its allocator and its despawn. Written by
/// `#[derive(World)]` for a world with an `Entities` field and no generic parameters.
#[doc(hidden)]
pub trait RowWorld {
    /// The world's allocator.
    fn entities(&mut self) -> &mut Entities;
    /// The world's `despawn`.
    fn despawn_entity(&mut self, entity: Entity);
}

/// `#[derive(World)]`'s `try_spawn`: a new entity with `row` stored for it; on an error the
/// entity is freed again and nothing else changed.
///
/// # Errors
///
/// The allocator's ([`Error::EntitiesExhausted`], [`Error::EntitiesFull`], [`Error::AllocFailed`]) or
/// the first failing storage's.
#[doc(hidden)]
#[inline]
pub fn try_spawn<W: RowWorld, B: Bundle<W, I>, I>(world: &mut W, row: B) -> Result<Entity, Error> {
    spawn_or_refuse(world, row).map_err(|refused| refused.error)
}

/// [`try_spawn`], with the component whose storage refused the row.
#[inline]
fn spawn_or_refuse<W: RowWorld, B: Bundle<W, I>, I>(
    world: &mut W,
    row: B,
) -> Result<Entity, Refused> {
    // A reused index's cells (random lines, one per storage) asked for before the allocator
    // reads its slot (another): the row's misses all at once.
    if let Some(upcoming) = world.entities().upcoming_reuse() {
        B::prefetch(world, upcoming);
    }
    let entity =
        world.entities().try_spawn().map_err(|error| Refused { error, component: None })?;
    match row.put::<false>(world, entity) {
        Ok(replaced) => {
            // A fresh entity replaces nothing, unless the allocator alone despawned an older
            // one that still has rows: those are dropped.
            drop(replaced);
            Ok(entity)
        }
        Err(refused) => {
            world.despawn_entity(entity);
            Err(refused)
        }
    }
}

/// `#[derive(World)]`'s `spawn`.
///
/// # Panics
///
/// Where [`try_spawn`] returns an error, with its message, naming the world and the component
/// whose storage refused the row (or the allocator), at the caller's line.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn spawn<W: RowWorld, B: Bundle<W, I>, I>(world: &mut W, row: B) -> Entity {
    match spawn_or_refuse(world, row) {
        Ok(entity) => entity,
        Err(refused) => fail_row::<W>("spawn a row into", None, &refused),
    }
}

/// `#[derive(World)]`'s `try_insert`: `row` stored for the live `entity`, replacing the values
/// it had in those storages.
///
/// # Errors
///
/// [`Error::NotAlive`] if the world's allocator does not hold `entity` alive; the first failing
/// storage's error. Nothing changed then.
#[doc(hidden)]
#[inline]
pub fn try_insert<W: RowWorld, B: Bundle<W, I>, I>(
    world: &mut W,
    entity: Entity,
    row: B,
) -> Result<(), Error> {
    insert_or_refuse(world, entity, row).map_err(|refused| refused.error)
}

/// [`try_insert`], with the component whose storage refused the row.
#[inline]
fn insert_or_refuse<W: RowWorld, B: Bundle<W, I>, I>(
    world: &mut W,
    entity: Entity,
    row: B,
) -> Result<(), Refused> {
    if !world.entities().is_alive(entity) {
        let error =
            Error::NotAlive { index: entity.index(), generation: entity.generation().get() };
        return Err(Refused { error, component: None });
    }
    B::prefetch(world, entity);
    row.put::<true>(world, entity).map(drop)
}

/// `#[derive(World)]`'s `insert`.
///
/// # Panics
///
/// Where [`try_insert`] returns an error, with its message, naming the world and the component
/// whose storage refused the row, at the caller's line.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn insert<W: RowWorld, B: Bundle<W, I>, I>(world: &mut W, entity: Entity, row: B) {
    if let Err(refused) = insert_or_refuse(world, entity, row) {
        fail_row::<W>("insert a row for", Some(entity), &refused);
    }
}

/// Panics for a row `W` refused: "cannot {what} {entity} `W`: the storage of `C` refused it:
/// {error}".
///
/// # Panics
///
/// Always: that is what it is for.
#[cold]
#[inline(never)]
#[track_caller]
fn fail_row<W>(what: &str, entity: Option<Entity>, refused: &Refused) -> ! {
    /// What could not be done, formatted where the panic's message is: nothing is allocated
    /// before the panic, which may be reporting that memory cannot be had.
    struct Subject<'a> {
        what: &'a str,
        entity: Option<Entity>,
        world: &'a str,
    }
    impl core::fmt::Display for Subject<'_> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            let Subject { what, world, .. } = self;
            match self.entity {
                Some(entity) => write!(f, "{what} {entity} in `{world}`"),
                None => write!(f, "{what} `{world}`"),
            }
        }
    }
    let error = &refused.error;
    let subject = Subject { what, entity, world: core::any::type_name::<W>() };
    match refused.component {
        Some(component) => {
            panic!("cannot {subject}: the storage of `{component}` refused it: {error}")
        }
        None if entity.is_some() => panic!("cannot {subject}: {error}"),
        None => panic!("cannot {subject}: its `Entities` refused a new entity: {error}"),
    }
}
