//! Whole rows: an entity's components stored in a world's storages in one call, as
//! `#[derive(World)]`'s `spawn`, `spawn_batch` and `insert` do.
//!
//! A **row** ([`Bundle`]) is one component or a tuple of 1 to 8. A **component** is a value
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
//! nothing; a spawn then also frees its entity. The groups are finished on every path, also
//! while unwinding, and the replaced values are dropped only after that.

use alloc::vec::Vec;
use core::marker::PhantomData;
use core::ops::Range;

use crate::entity::{Entities, Entity};
use crate::error::{Error, fail};
use crate::group::{Group, GroupExcluded, GroupExcludedMut, GroupMembers, Nest, Nested, Nth};
use crate::storage::{Columnar, Storage, reserve_for_batch};

/// Where a component goes: field `N` of the world, part `P` of it ([`Whole`], [`Member`],
/// [`Excluded`], [`NestedMember`] or [`NestedExcluded`]). Written by the derive, picked by inference; never by hand.
#[doc(hidden)]
pub struct At<const N: usize, P>(PhantomData<P>);

/// A storage field, whole.
#[doc(hidden)]
pub struct Whole;

/// Member `I` of a group field.
#[doc(hidden)]
pub struct Member<const I: usize>;

/// Excluded storage `I` of a group field.
#[doc(hidden)]
pub struct Excluded<const I: usize>;

/// Member `I` of a group field's nested level.
#[doc(hidden)]
pub struct NestedMember<const I: usize>;

/// Excluded storage `I` of a group field's nested level.
#[doc(hidden)]
pub struct NestedExcluded<const I: usize>;

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

impl<const N: usize> Place for At<N, Whole> {
    type Part = Whole;
    const WHERE: (usize, usize) = (N, 0);
}

impl<const N: usize, const I: usize> Place for At<N, Member<I>> {
    type Part = Member<I>;
    const WHERE: (usize, usize) = (N, 1 + I);
}

impl<const N: usize, const I: usize> Place for At<N, Excluded<I>> {
    type Part = Excluded<I>;
    const WHERE: (usize, usize) = (N, 1 + 8 + I);
}

impl<const N: usize, const I: usize> Place for At<N, NestedMember<I>> {
    type Part = NestedMember<I>;
    const WHERE: (usize, usize) = (N, 1 + 16 + I);
}

impl<const N: usize, const I: usize> Place for At<N, NestedExcluded<I>> {
    type Part = NestedExcluded<I>;
    const WHERE: (usize, usize) = (N, 1 + 24 + I);
}

impl<const N: usize, P> Place for At<N, Tag<P>>
where
    At<N, P>: Place,
{
    type Part = Tag<P>;
    const WHERE: (usize, usize) = <At<N, P> as Place>::WHERE;
}

/// What a row needs of the storage of a field, for a component of type `V` in part `P`:
/// implemented for every [`Storage`] keyed by [`Entity`] (as [`Whole`]) and for every
/// [`Group`] (one implementation per member and per excluded storage).
#[doc(hidden)]
pub trait RowStorage<P, V> {
    /// Stores `value` under `entity`; the value it replaced. A group's prefix waits for
    /// [`finish`](Self::finish).
    ///
    /// # Errors
    ///
    /// As the storage's `try_insert`; nothing changed then.
    fn put(&mut self, entity: Entity, value: V) -> Result<Option<V>, Error>;
    /// Undoes [`put`](Self::put), given what it returned.
    fn take_back(&mut self, entity: Entity, replaced: Option<V>);
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

impl<S: Storage<Key = Entity>> RowStorage<Whole, S::Value> for S {
    #[inline]
    fn put(&mut self, entity: Entity, value: S::Value) -> Result<Option<S::Value>, Error> {
        self.try_insert(entity, value)
    }

    #[inline]
    fn take_back(&mut self, entity: Entity, replaced: Option<S::Value>) {
        match replaced {
            // Held: replaced in place, which cannot fail.
            Some(value) => drop(self.try_insert(entity, value)),
            None => drop(Storage::remove(self, entity)),
        }
    }

    #[inline]
    fn reserve(&mut self, additional: usize, slots: Range<u64>) {
        reserve_for_batch(self, additional, slots);
    }

    #[inline]
    fn finish(&mut self, _: Entity) {}

    #[inline]
    fn fresh_run_len(&self, entities: &[Entity]) -> usize {
        Storage::fresh_run_len(self, entities)
    }

    #[inline]
    fn put_run(&mut self, entities: &[Entity], values: &mut Vec<S::Value>) {
        self.push_fresh_run(entities, values);
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
    fn take_back(&mut self, entity: Entity, replaced: Option<T>) {
        self.take_back(entity, replaced.map(drop));
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

impl<M, X, N, const I: usize> RowStorage<Member<I>, <NthOf<M, I> as Storage>::Value>
    for Group<M, X, N>
where
    M: GroupMembers<Key = Entity> + Nth<I, Storage: Columnar<Key = Entity>>,
    X: GroupExcluded<Entity>,
    N: Nest<M>,
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
    fn take_back(&mut self, entity: Entity, replaced: Option<<NthOf<M, I> as Storage>::Value>) {
        self.take_back_member::<I>(entity, replaced);
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

impl<M, X, N, const I: usize> RowStorage<Excluded<I>, <NthOf<X, I> as Storage>::Value>
    for Group<M, X, N>
where
    M: GroupMembers<Key = Entity>,
    X: GroupExcluded<Entity> + Nth<I, Storage: Storage<Key = Entity>>,
    N: Nest<M>,
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
    fn take_back(&mut self, entity: Entity, replaced: Option<<NthOf<X, I> as Storage>::Value>) {
        self.take_back_excluded::<I>(entity, replaced);
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

impl<M, X, M2, X2, const I: usize> RowStorage<NestedMember<I>, <NthOf<M2, I> as Storage>::Value>
    for Group<M, X, Nested<M2, X2>>
where
    M: GroupMembers<Key = Entity>,
    X: GroupExcluded<Entity>,
    M2: GroupMembers<Key = Entity> + Nth<I, Storage: Columnar<Key = Entity>>,
    X2: GroupExcludedMut<Entity>,
{
    #[inline]
    fn put(
        &mut self,
        entity: Entity,
        value: <NthOf<M2, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<M2, I> as Storage>::Value>, Error> {
        self.put_nested_member::<I>(entity, value)
    }

    #[inline]
    fn take_back(&mut self, entity: Entity, replaced: Option<<NthOf<M2, I> as Storage>::Value>) {
        self.take_back_nested_member::<I>(entity, replaced);
    }

    #[inline]
    fn reserve(&mut self, additional: usize, slots: Range<u64>) {
        self.reserve_nested_member::<I>(additional, slots);
    }

    #[inline]
    fn finish(&mut self, entity: Entity) {
        self.finish_row(entity);
    }

    #[inline]
    fn fresh_run_len(&self, entities: &[Entity]) -> usize {
        self.nested_member_run_len::<I>(entities)
    }

    #[inline]
    fn put_run(&mut self, entities: &[Entity], values: &mut Vec<<NthOf<M2, I> as Storage>::Value>) {
        self.put_nested_member_run::<I>(entities, values);
    }

    #[inline]
    fn finish_run(&mut self, entities: &[Entity]) {
        self.finish_rows(entities);
    }
}

impl<M, X, M2, X2, const I: usize> RowStorage<NestedExcluded<I>, <NthOf<X2, I> as Storage>::Value>
    for Group<M, X, Nested<M2, X2>>
where
    M: GroupMembers<Key = Entity>,
    X: GroupExcluded<Entity>,
    M2: GroupMembers<Key = Entity>,
    X2: GroupExcludedMut<Entity> + Nth<I, Storage: Storage<Key = Entity>>,
{
    #[inline]
    fn put(
        &mut self,
        entity: Entity,
        value: <NthOf<X2, I> as Storage>::Value,
    ) -> Result<Option<<NthOf<X2, I> as Storage>::Value>, Error> {
        self.put_nested_excluded::<I>(entity, value)
    }

    #[inline]
    fn take_back(&mut self, entity: Entity, replaced: Option<<NthOf<X2, I> as Storage>::Value>) {
        self.take_back_nested_excluded::<I>(entity, replaced);
    }

    #[inline]
    fn reserve(&mut self, additional: usize, slots: Range<u64>) {
        self.reserve_nested_excluded::<I>(additional, slots);
    }

    #[inline]
    fn finish(&mut self, entity: Entity) {
        self.finish_row(entity);
    }

    #[inline]
    fn fresh_run_len(&self, entities: &[Entity]) -> usize {
        self.nested_excluded_run_len::<I>(entities)
    }

    #[inline]
    fn put_run(&mut self, entities: &[Entity], values: &mut Vec<<NthOf<X2, I> as Storage>::Value>) {
        self.put_nested_excluded_run::<I>(entities, values);
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
pub trait FieldValue {
    /// The value type.
    type Value;
}

impl<S: Storage> FieldValue for S {
    type Value = S::Value;
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N> FieldValue for Group<M, X, N> {
    type Value = NoValue<M, X>;
}

/// A type without values: what a group field stores as a whole.
#[doc(hidden)]
pub enum NoValue<M, X> {
    #[doc(hidden)]
    Never(core::convert::Infallible, PhantomData<(M, X)>),
}

impl<M: GroupMembers<Key = Entity>, X: GroupExcluded<Entity>, N> RowStorage<Whole, NoValue<M, X>>
    for Group<M, X, N>
{
    fn put(&mut self, _: Entity, value: NoValue<M, X>) -> Result<Option<NoValue<M, X>>, Error> {
        match value {
            NoValue::Never(never, _) => match never {},
        }
    }

    fn take_back(&mut self, _: Entity, _: Option<NoValue<M, X>>) {}

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
    note = "a row is a component or a tuple of 1 to 8; each component's type is the value of one storage field of the world: `T` for a `TSoa` derived from `T`, `V` for a `SparseMap<Entity, V>`, or a member of a group field written `Group<(..), (..)>`",
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

/// A row of world `W`: a [`Component`] or a tuple of 1 to 8 components of distinct storages.
/// `I` says where each component goes; inference picks it.
///
/// Spawned by `#[derive(World)]`'s `spawn`, `try_spawn` and `spawn_batch`, and added to a live
/// entity by its `insert` and `try_insert`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a row of `{W}`",
    label = "not a component of `{W}` or a tuple of 1 to 8 of them",
    note = "a row is a component or a tuple of 1 to 8; each component's type is the value of one storage field of the world"
)]
pub trait Bundle<W, I>: Sized {
    /// What the row replaced, dropped once the row is stored.
    #[doc(hidden)]
    type Replaced;

    /// Stores every component under `entity`, finishing every group it put into (also while
    /// unwinding); on an error, undoes the puts made.
    ///
    /// # Errors
    ///
    /// The first storage's error; nothing changed then.
    #[doc(hidden)]
    fn put(self, world: &mut W, entity: Entity) -> Result<Self::Replaced, Error>;

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
        mut spawned: Option<&mut Vec<Entity>>,
        all: bool,
    ) where
        W: RowWorld,
    {
        for row in rows {
            let entity = spawn(world, row);
            if let Some(spawned) = spawned.as_deref_mut() {
                spawned.push(entity);
            }
            if !all {
                break;
            }
        }
    }
}

/// One component, alone: the row's index type.
#[doc(hidden)]
pub struct One<I>(PhantomData<I>);

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
) -> Result<Option<C>, Error> {
    let storage = C::storage(world);
    let finish = Finish { storage: &mut *storage, entity, part: PhantomData::<(I::Part, C)> };
    finish.storage.put(entity, component)
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

/// [`Bundle::spawn_rows`] for rows of one component: as rows of a tuple of one, a run at a
/// time.
///
/// # Panics
///
/// Where `spawn` would, with its message; the rows spawned before stay.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn spawn_rows_one<W, I, C, R>(
    world: &mut W,
    rows: &mut R,
    spawned: Option<&mut Vec<Entity>>,
    all: bool,
) where
    W: RowWorld,
    I: Place,
    C: Component<W, I, Storage: RowStorage<I::Part, C>>,
    R: Iterator<Item = C>,
{
    let mut rows = rows.map(|component| (component,));
    spawn_runs::<W, (C,), (I,), _>(world, &mut rows, spawned, all);
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

/// Whether a place later in `places` than `index` is in the same field: then that one
/// finishes the field's row, not this one.
const fn finished_later(places: &[(usize, usize)], index: usize) -> bool {
    let mut j = index + 1;
    while j < places.len() {
        if places[j].0 == places[index].0 {
            return true;
        }
        j += 1;
    }
    false
}

/// Finishes every field a tuple row put into, once each, when dropped.
struct FinishAll<'w, W, B: Rowed<W, I>, I> {
    world: &'w mut W,
    entity: Entity,
    row: PhantomData<(B, I)>,
}

/// What [`FinishAll`] calls: a tuple row's finishing, one call per field it names.
trait Rowed<W, I> {
    fn finish_all(world: &mut W, entity: Entity);
}

impl<W, B: Rowed<W, I>, I> Drop for FinishAll<'_, W, B, I> {
    #[inline]
    fn drop(&mut self) {
        B::finish_all(self.world, self.entity);
    }
}

macro_rules! row_tuple {
    ($(($c:ident $i:ident $n:tt))+ ; $($rev:tt)+) => {
        impl<W, $($i: Place, $c: Component<W, $i, Storage: RowStorage<$i::Part, $c>>),+> Rowed<W, ($($i,)+)>
            for ($($c,)+)
        {
            #[inline]
            fn finish_all(world: &mut W, entity: Entity) {
                let places = [$($i::WHERE),+];
                $(
                    if !finished_later(&places, $n) {
                        $c::storage(world).finish(entity);
                    }
                )+
            }
        }

        impl<W, $($i: Place, $c: Component<W, $i, Storage: RowStorage<$i::Part, $c>>),+>
            Bundle<W, ($($i,)+)> for ($($c,)+)
        {
            type Replaced = ($(Option<Option<$c>>,)+);

            #[inline]
            #[allow(non_snake_case, reason = "the components, named as their types")]
            fn put(self, world: &mut W, entity: Entity) -> Result<Self::Replaced, Error> {
                const {
                    assert!(
                        distinct(&[$($i::WHERE),+]),
                        "a row names one storage twice: each component of a row must go to a different storage"
                    );
                }
                let guard = FinishAll::<W, Self, ($($i,)+)> { world, entity, row: PhantomData };
                let ($($c,)+) = self;
                let mut replaced: Self::Replaced = ($(row_tuple!(@none $c),)+);
                let failed = 'put: {
                    $(
                        match $c::storage(&mut *guard.world).put(entity, $c) {
                            Ok(value) => replaced.$n = Some(value),
                            Err(error) => break 'put Some(error),
                        }
                    )+
                    None
                };
                if let Some(error) = failed {
                    $(row_tuple!(@undo guard replaced entity $rev);)+
                    return Err(error);
                }
                drop(guard);
                Ok(replaced)
            }

            #[inline]
            fn reserve(world: &mut W, additional: usize, slots: Range<u64>) {
                $($c::storage(world).reserve(additional, slots.clone());)+
            }

            #[track_caller]
            fn spawn_rows<R: Iterator<Item = Self>>(
                world: &mut W,
                rows: &mut R,
                spawned: Option<&mut Vec<Entity>>,
                all: bool,
            ) where
                W: RowWorld,
            {
                spawn_runs::<W, Self, ($($i,)+), R>(world, rows, spawned, all);
            }
        }

        impl<W, $($i: Place, $c: Component<W, $i, Storage: RowStorage<$i::Part, $c>>),+>
            Runs<W, ($($i,)+)> for ($($c,)+)
        {
            type Buffers = ($(Vec<$c>,)+);

            #[inline]
            #[allow(non_snake_case, reason = "the components, named as their types")]
            fn gather(buffers: &mut Self::Buffers, row: Self) {
                let ($($c,)+) = row;
                $(buffers.$n.push($c);)+
            }

            #[inline]
            fn gathered(buffers: &Self::Buffers) -> usize {
                buffers.0.len()
            }

            #[inline]
            fn run_len(world: &mut W, entities: &[Entity]) -> usize {
                let mut run = entities.len();
                $(
                    run = run.min(RowStorage::<$i::Part, $c>::fresh_run_len(
                        $c::storage(world),
                        &entities[..run],
                    ));
                )+
                run
            }

            #[inline]
            fn put_run(world: &mut W, entities: &[Entity], buffers: &mut Self::Buffers) {
                $($c::storage(world).put_run(entities, &mut buffers.$n);)+
                let places = [$($i::WHERE),+];
                $(
                    if !finished_later(&places, $n) {
                        $c::storage(world).finish_run(entities);
                    }
                )+
            }

            #[inline]
            fn take_rows(buffers: &mut Self::Buffers) -> impl Iterator<Item = Self> {
                let mut drains = ($(buffers.$n.drain(..),)+);
                core::iter::from_fn(move || Some(($(drains.$n.next()?,)+)))
            }
        }
    };
    (@none $c:ident) => { None };
    (@undo $guard:ident $replaced:ident $entity:ident ($c:ident $n:tt)) => {
        if let Some(value) = $replaced.$n.take() {
            $c::storage(&mut *$guard.world).take_back($entity, value);
        }
    };
}

row_tuple!((A IA 0); (A 0));
row_tuple!((A IA 0) (B IB 1); (B 1) (A 0));
row_tuple!((A IA 0) (B IB 1) (C IC 2); (C 2) (B 1) (A 0));
row_tuple!((A IA 0) (B IB 1) (C IC 2) (D ID 3); (D 3) (C 2) (B 1) (A 0));
row_tuple!((A IA 0) (B IB 1) (C IC 2) (D ID 3) (E IE 4); (E 4) (D 3) (C 2) (B 1) (A 0));
row_tuple!(
    (A IA 0) (B IB 1) (C IC 2) (D ID 3) (E IE 4) (F IF 5);
    (F 5) (E 4) (D 3) (C 2) (B 1) (A 0)
);
row_tuple!(
    (A IA 0) (B IB 1) (C IC 2) (D ID 3) (E IE 4) (F IF 5) (G IG 6);
    (G 6) (F 5) (E 4) (D 3) (C 2) (B 1) (A 0)
);
row_tuple!(
    (A IA 0) (B IB 1) (C IC 2) (D ID 3) (E IE 4) (F IF 5) (G IG 6) (H IH 7);
    (H 7) (G 6) (F 5) (E 4) (D 3) (C 2) (B 1) (A 0)
);

/// A tuple row's parts for spawning many rows at once ([`spawn_runs`]): its components gathered
/// column by column, and every storage it names measured, filled and finished for a run of new
/// entities at once.
trait Runs<W, I>: Sized {
    /// One `Vec` per component.
    type Buffers: Default;
    /// Moves `row`'s components to the end of `buffers`.
    fn gather(buffers: &mut Self::Buffers, row: Self);
    /// How many rows `buffers` holds.
    fn gathered(buffers: &Self::Buffers) -> usize;
    /// How many of `entities`, from the first, every storage the row names can store as new
    /// rows at once (the least of their `RowStorage::fresh_run_len`).
    fn run_len(world: &mut W, entities: &[Entity]) -> usize;
    /// Stores the first `entities.len()` rows of `buffers` (drained) under `entities`, no more
    /// than [`run_len`](Self::run_len) measured, and finishes every field once.
    fn put_run(world: &mut W, entities: &[Entity], buffers: &mut Self::Buffers);
    /// The rows left in `buffers`, drained in order.
    fn take_rows(buffers: &mut Self::Buffers) -> impl Iterator<Item = Self>;
}

/// How many rows a batch gathers at most before it stores them: enough to make each storage's
/// loop long, few enough that the gathered rows stay in the first-level cache.
const RUN: usize = 256;

/// Fewer rows than this left (as the iterator's `size_hint` says) are spawned one by one.
const MIN_RUN: usize = 16;

/// The rows gathered for a run and the world they go to. Dropped with rows in it (the rows
/// iterator panicked while they were gathered), it spawns them one by one, as a batch spawning
/// row by row would have; a row that cannot be spawned then is dropped, since a second panic
/// while unwinding would abort.
struct Gathered<'w, W: RowWorld, B: Bundle<W, I> + Runs<W, I>, I> {
    world: &'w mut W,
    buffers: B::Buffers,
    entities: Vec<Entity>,
}

impl<W: RowWorld, B: Bundle<W, I> + Runs<W, I>, I> Gathered<'_, W, B, I> {
    /// Stores the rows gathered: a run of them at once, the rest one by one.
    ///
    /// New entities are spawned for all of them, and every storage measures how many it can
    /// store at once ([`Runs::run_len`]: new keys on the common path, with room reserved). The
    /// entities past the shortest run are given back to the allocator, last first, so the rows
    /// left get the same entities when they are spawned one by one (a storage holding a row of
    /// an older generation of one of them, for instance).
    #[track_caller]
    fn store(&mut self, mut spawned: Option<&mut Vec<Entity>>) {
        let rows = B::gathered(&self.buffers);
        // Room for the run in every storage, and its sparse index laid out over the entities'
        // new slots (a hint; the run measures what it finds).
        let slots = self.world.entities().fresh_slots(rows);
        B::reserve(self.world, rows, slots);
        self.entities.clear();
        if self.entities.try_reserve(rows).is_ok() {
            self.world.entities().spawn_into(rows, &mut self.entities);
        }
        let run = B::run_len(self.world, &self.entities);
        let allocator = self.world.entities();
        for &entity in self.entities[run..].iter().rev() {
            allocator.undo_spawn(entity);
        }
        if run > 0 {
            B::put_run(self.world, &self.entities[..run], &mut self.buffers);
            if let Some(spawned) = spawned.as_deref_mut() {
                spawned.extend_from_slice(&self.entities[..run]);
            }
        }
        for row in B::take_rows(&mut self.buffers) {
            let entity = spawn(self.world, row);
            if let Some(spawned) = spawned.as_deref_mut() {
                spawned.push(entity);
            }
        }
    }
}

impl<W: RowWorld, B: Bundle<W, I> + Runs<W, I>, I> Drop for Gathered<'_, W, B, I> {
    fn drop(&mut self) {
        for row in B::take_rows(&mut self.buffers) {
            let _ = try_spawn(self.world, row);
        }
    }
}

/// [`Bundle::spawn_rows`] a run of rows at a time: the rows are gathered column by column, and
/// each storage stores its part of the run in one loop (no lookup per row, no value replaced,
/// nothing to undo), then each group is finished once for the run. Rows the run cannot take (a
/// storage that holds an older generation of the entity, or is full) and the last few rows are
/// spawned one by one.
///
/// # Panics
///
/// Where `spawn` would, with its message; the rows spawned before stay.
#[track_caller]
fn spawn_runs<W: RowWorld, B: Bundle<W, I> + Runs<W, I>, I, R: Iterator<Item = B>>(
    world: &mut W,
    rows: &mut R,
    mut spawned: Option<&mut Vec<Entity>>,
    all: bool,
) {
    let mut gathered =
        Gathered::<W, B, I> { world, buffers: B::Buffers::default(), entities: Vec::new() };
    loop {
        let (at_least, _) = rows.size_hint();
        if at_least < MIN_RUN {
            let Some(row) = rows.next() else { break };
            let entity = spawn(gathered.world, row);
            if let Some(spawned) = spawned.as_deref_mut() {
                spawned.push(entity);
            }
        } else {
            let wanted = at_least.min(RUN);
            for row in rows.by_ref().take(wanted) {
                B::gather(&mut gathered.buffers, row);
            }
            // Fewer rows than the hint promised: the rows ended (as a `for` loop, ask no more).
            let ended = B::gathered(&gathered.buffers) < wanted;
            gathered.store(spawned.as_deref_mut());
            if ended {
                break;
            }
        }
        if !all {
            break;
        }
    }
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
/// The allocator's ([`Error::EntitiesExhausted`], [`Error::AllocFailed`]) or the first failing
/// storage's.
#[doc(hidden)]
#[inline]
pub fn try_spawn<W: RowWorld, B: Bundle<W, I>, I>(world: &mut W, row: B) -> Result<Entity, Error> {
    let entity = world.entities().try_spawn()?;
    match row.put(world, entity) {
        Ok(replaced) => {
            // A fresh entity replaces nothing, unless the allocator alone despawned an older
            // one that still has rows: those are dropped.
            drop(replaced);
            Ok(entity)
        }
        Err(error) => {
            world.despawn_entity(entity);
            Err(error)
        }
    }
}

/// `#[derive(World)]`'s `spawn`.
///
/// # Panics
///
/// Where [`try_spawn`] returns an error, with its message.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn spawn<W: RowWorld, B: Bundle<W, I>, I>(world: &mut W, row: B) -> Entity {
    try_spawn(world, row).unwrap_or_else(|error| fail(error))
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
    if !world.entities().is_alive(entity) {
        return Err(Error::NotAlive {
            index: entity.index(),
            generation: entity.generation().get(),
        });
    }
    row.put(world, entity).map(drop)
}

/// `#[derive(World)]`'s `insert`.
///
/// # Panics
///
/// Where [`try_insert`] returns an error, with its message.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn insert<W: RowWorld, B: Bundle<W, I>, I>(world: &mut W, entity: Entity, row: B) {
    try_insert(world, entity, row).unwrap_or_else(|error| fail(error));
}

/// The iterator `#[derive(World)]`'s `spawn_batch` returns: it yields the entity of each row,
/// in order; dropped, it spawns the rows left. Made by [`SpawnBatch::new`], which reserves room
/// for the rows the iterator says it has at least.
///
/// Rows of a tuple are spawned a run at a time (up to 256, as many as the rows' `size_hint`
/// promises): every storage stores its part of the run in one loop, and every group is finished
/// once per run, which is what makes a batch cheaper than as many `spawn`s. A step may so spawn
/// rows ahead of the entity it yields; the world cannot be seen while the batch borrows it, so
/// only the moment a failing row panics tells. The last rows, a row the run cannot take (a
/// storage holds an older generation of its entity, or is full) and rows of one component are
/// spawned one at a time, as `spawn` does.
///
/// # Panics
///
/// A step panics where `spawn` would, with its message; the rows spawned before stay. If the
/// rows' iterator panics, the rows it gave before are spawned.
pub struct SpawnBatch<'w, W: RowWorld, R: Iterator<Item = B>, B: Bundle<W, I>, I> {
    world: &'w mut W,
    rows: R,
    /// The entities of rows spawned ahead (a run at a time), not yielded yet: from `next` on.
    spawned: Vec<Entity>,
    next: usize,
    index: PhantomData<I>,
}

impl<'w, W: RowWorld, R: Iterator<Item = B>, B: Bundle<W, I>, I> SpawnBatch<'w, W, R, B, I> {
    /// The batch of `rows` into `world`, with room reserved for as many rows as `rows` has at
    /// least (a hint: a failed reservation is left for the spawns to report).
    #[doc(hidden)]
    pub fn new(world: &'w mut W, rows: R) -> Self {
        let (at_least, _) = rows.size_hint();
        if at_least > 0 {
            let entities = world.entities();
            let _ = entities.try_reserve(at_least);
            let slots = entities.fresh_slots(at_least);
            B::reserve(world, at_least, slots);
        }
        SpawnBatch { world, rows, spawned: Vec::new(), next: 0, index: PhantomData }
    }
}

impl<W: RowWorld, R: Iterator<Item = B>, B: Bundle<W, I>, I> Iterator
    for SpawnBatch<'_, W, R, B, I>
{
    type Item = Entity;

    #[inline]
    #[track_caller]
    fn next(&mut self) -> Option<Entity> {
        if self.next == self.spawned.len() {
            self.spawned.clear();
            self.next = 0;
            B::spawn_rows(self.world, &mut self.rows, Some(&mut self.spawned), false);
        }
        let entity = self.spawned.get(self.next).copied()?;
        self.next += 1;
        Some(entity)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let ready = self.spawned.len() - self.next;
        let (at_least, at_most) = self.rows.size_hint();
        (at_least.saturating_add(ready), at_most.and_then(|at_most| at_most.checked_add(ready)))
    }
}

impl<W: RowWorld, R: ExactSizeIterator<Item = B>, B: Bundle<W, I>, I> ExactSizeIterator
    for SpawnBatch<'_, W, R, B, I>
{
}

impl<W: RowWorld, R: Iterator<Item = B>, B: Bundle<W, I>, I> Drop for SpawnBatch<'_, W, R, B, I> {
    fn drop(&mut self) {
        B::spawn_rows(self.world, &mut self.rows, None, true);
    }
}

impl<W: RowWorld, R: Iterator<Item = B>, B: Bundle<W, I>, I> core::fmt::Debug
    for SpawnBatch<'_, W, R, B, I>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SpawnBatch")
            .field("size_hint", &self.rows.size_hint())
            .finish_non_exhaustive()
    }
}
