//! Rows of a tuple and batches of rows: a tuple row is stored component by component and
//! finished once per field ([`Bundle`] for tuples of 1 to 8), and a batch ([`SpawnBatch`])
//! stores rows a run at a time.
//!
//! # How a run is stored
//!
//! Up to [`RUN`] rows are gathered column by column, new entities are spawned for them in one
//! pass, and every storage the rows name measures how many of those entities it can store as
//! new rows at once (`RowStorage::fresh_run_len`: new keys on the insert's common path, with
//! room reserved). The shortest run is stored in every storage with no lookup per row and
//! nothing to undo (the write phase cannot fail), and every group is finished once for the run.
//! The entities past the run are given back to the allocator last first, so the rows left are
//! spawned one by one with the same entities. The only user code that runs while rows are
//! gathered is the rows' iterator; if it panics, the rows gathered are spawned one by one.

use alloc::vec::Vec;
use core::marker::PhantomData;
use core::ops::Range;

use crate::entity::Entity;
use crate::error::{Error, reserve_or_fail};
use crate::world::row::{
    Bundle, Component, Place, Refused, RowStorage, RowWorld, distinct, spawn, try_spawn,
};

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
            const DISTINCT: bool = distinct(&[$($i::WHERE),+]);

            #[inline]
            #[allow(non_snake_case, reason = "the components, named as their types")]
            fn put<const LIVE: bool>(
                self,
                world: &mut W,
                entity: Entity,
            ) -> Result<Self::Replaced, Refused> {
                // The world's methods refuse such a row when the program is built; this is for
                // a caller of the hidden method itself.
                debug_assert!(Self::DISTINCT, "a row names one storage twice");
                // Into a live entity, which storages hold an older generation of its slot:
                // what they replace is not the entity's own (a spawn asks nothing).
                let stale = [$(
                    LIVE && RowStorage::<$i::Part, $c>::holds_other_version($c::storage(world), entity)
                ),+];
                let guard = FinishAll::<W, Self, ($($i,)+)> { world, entity, row: PhantomData };
                let ($($c,)+) = self;
                let mut replaced: Self::Replaced = ($(row_tuple!(@none $c),)+);
                let failed = 'put: {
                    $(
                        match $c::storage(&mut *guard.world).put(entity, $c) {
                            Ok(value) => replaced.$n = Some(value),
                            Err(error) => break 'put Some(Refused::by::<$c>(error)),
                        }
                    )+
                    None
                };
                if let Some(error) = failed {
                    $(row_tuple!(@undo guard replaced stale entity $rev);)+
                    // The groups are finished, then the older generations' values dropped.
                    drop(guard);
                    drop(replaced);
                    return Err(error);
                }
                drop(guard);
                Ok(replaced)
            }

            #[inline]
            fn prefetch(world: &mut W, entity: Entity) {
                $(RowStorage::<$i::Part, $c>::prefetch($c::storage(world), entity);)+
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
                debug_assert!(Self::DISTINCT, "a row names one storage twice");
                spawn_runs::<W, Self, ($($i,)+), R>(world, rows, spawned, all);
            }
        }

        impl<W, $($i: Place, $c: Component<W, $i, Storage: RowStorage<$i::Part, $c>>),+>
            Runs<W, ($($i,)+)> for ($($c,)+)
        {
            type Buffers = ($(Vec<$c>,)+);

            #[inline]
            fn reserve_buffers(buffers: &mut Self::Buffers, rows: usize) -> Result<(), Error> {
                $(crate::error::try_reserve(&mut buffers.$n, rows)?;)+
                Ok(())
            }

            #[inline]
            fn gather(buffers: &mut Self::Buffers, rows: impl Iterator<Item = Self>) {
                // std's `Extend` for a tuple of `Vec`s: one pass, and no check of each
                // buffer's room when the rows' length is known (a `map` of a range is).
                Extend::extend(buffers, rows);
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
    (@undo $guard:ident $replaced:ident $stale:ident $entity:ident ($c:ident $n:tt)) => {
        if let Some(value) = $replaced.$n.take() {
            if $stale[$n] {
                // An older generation's value: the entity's new one goes, and that one is
                // dropped after the groups are finished, not given to the entity.
                $c::storage(&mut *$guard.world).take_back($entity, None);
                $replaced.$n = Some(value);
            } else {
                $c::storage(&mut *$guard.world).take_back($entity, value);
            }
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
    /// Room in `buffers` for `rows` more rows, so that gathering no more than that many never
    /// allocates (std's `Extend` would abort when memory cannot be had).
    fn reserve_buffers(buffers: &mut Self::Buffers, rows: usize) -> Result<(), Error>;
    /// Moves the components of every row of `rows` to the end of `buffers`. If `rows` panics,
    /// `buffers` holds the rows it gave before, each whole.
    fn gather(buffers: &mut Self::Buffers, rows: impl Iterator<Item = Self>);
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
        // Room for the entities handed out, before any is spawned: a failed allocation panics
        // with nothing stored (the rows gathered are spawned one by one as the batch drops).
        if let Some(spawned) = spawned.as_deref_mut() {
            reserve_or_fail(spawned, rows);
        }
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
            spawn_listed(self.world, row, spawned.as_deref_mut());
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

/// `spawn`, with the entity appended to `spawned` if given: a row stored on its own.
///
/// # Panics
///
/// Where `spawn` would, with its message.
#[track_caller]
fn spawn_listed<W: RowWorld, B: Bundle<W, I>, I>(
    world: &mut W,
    row: B,
    spawned: Option<&mut Vec<Entity>>,
) {
    match spawned {
        Some(spawned) => {
            // The entity's room first, so that a failed allocation panics with nothing stored.
            reserve_or_fail(spawned, 1);
            spawned.push(spawn(world, row));
        }
        None => drop(spawn(world, row)),
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
        let wanted = at_least.min(RUN);
        // Without room for a run's buffers, one by one: each spawn then panics where memory
        // cannot be had, rather than the gathering aborting.
        if at_least < MIN_RUN || B::reserve_buffers(&mut gathered.buffers, wanted).is_err() {
            let Some(row) = rows.next() else { break };
            spawn_listed(gathered.world, row, spawned.as_deref_mut());
        } else {
            B::gather(&mut gathered.buffers, rows.by_ref().take(wanted));
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

/// Room in the allocator and in every storage a row names for as many rows as `size_hint` says
/// there are at least, most of them under the new entities' slots, as a hint (a failed
/// reservation is left for the spawns to report). Returns that many.
fn reserve_rows<W: RowWorld, B: Bundle<W, I>, I>(
    world: &mut W,
    (at_least, _): (usize, Option<usize>),
) -> usize {
    if at_least > 0 {
        let entities = world.entities();
        let _ = entities.try_reserve(at_least);
        let slots = entities.fresh_slots(at_least);
        B::reserve(world, at_least, slots);
    }
    at_least
}

/// `#[derive(World)]`'s `try_spawn_batch`: a new entity per row, in order, each as
/// [`try_spawn`] stores it; on the first refused row, the entities spawned so far are
/// despawned again (last first) and its error returned.
///
/// # Errors
///
/// The first refused row's; the world is as before then, but for the generations used.
#[doc(hidden)]
pub fn try_spawn_batch<W: RowWorld, B: Bundle<W, I>, I, R: IntoIterator<Item = B>>(
    world: &mut W,
    rows: R,
) -> Result<Vec<Entity>, Error> {
    let rows = rows.into_iter();
    let at_least = reserve_rows::<W, B, I>(world, rows.size_hint());
    let mut spawned = Vec::new();
    let _ = spawned.try_reserve(at_least);
    for row in rows {
        let refused = match try_spawn(world, row) {
            Ok(entity) => match spawned.try_reserve(1) {
                Ok(()) => {
                    spawned.push(entity);
                    continue;
                }
                // The entity is in the world: despawned with the others.
                Err(error) => {
                    world.despawn_entity(entity);
                    Error::from(error)
                }
            },
            Err(error) => error,
        };
        for entity in spawned.into_iter().rev() {
            world.despawn_entity(entity);
        }
        return Err(refused);
    }
    Ok(spawned)
}

/// The iterator `#[derive(World)]`'s `spawn_batch` returns: it yields the entity of each row,
/// in order; dropped, it spawns the rows left. Made by that method (through [`spawn_batch`],
/// after the method's check that the rows name each storage once), which reserves room for the
/// rows the iterator says it has at least.
///
/// Rows are spawned a run at a time (up to 256, as many as the rows' `size_hint`
/// promises): every storage stores its part of the run in one loop, and every group is finished
/// once per run, which is what makes a batch cheaper than as many `spawn`s. A step may so spawn
/// rows ahead of the entity it yields; the world cannot be seen while the batch borrows it, so
/// only the moment a failing row panics tells. The last rows (fewer than 16) and a row the run
/// cannot take (a storage holds an older generation of its entity, or is full) are spawned one
/// at a time, as `spawn` does.
///
/// # Panics
///
/// A step panics where `spawn` would, with its message; the rows spawned before stay. If the
/// rows' iterator panics, the rows it gave before are spawned. A batch dropped after a step
/// panicked, with no step since (as while that panic unwinds), spawns no more rows: its
/// iterator is not asked again, where a second panic would abort.
pub struct SpawnBatch<'w, W: RowWorld, R: Iterator<Item = B>, B: Bundle<W, I>, I> {
    world: &'w mut W,
    rows: R,
    /// The entities of rows spawned ahead (a run at a time), not yielded yet: from `next` on.
    spawned: Vec<Entity>,
    next: usize,
    /// Set while a step spawns rows; still set when dropped, the step panicked.
    stepping: bool,
    index: PhantomData<I>,
}

/// `#[derive(World)]`'s `spawn_batch`, once the method has checked that the rows name each
/// storage once ([`Bundle::DISTINCT`]): the batch of `rows` into `world`, with room reserved
/// for as many rows as `rows` has at least (a hint: a failed reservation is left for the spawns
/// to report).
#[inline]
pub fn spawn_batch<W: RowWorld, R: Iterator<Item = B>, B: Bundle<W, I>, I>(
    world: &mut W,
    rows: R,
) -> SpawnBatch<'_, W, R, B, I> {
    reserve_rows::<W, B, I>(world, rows.size_hint());
    SpawnBatch { world, rows, spawned: Vec::new(), next: 0, stepping: false, index: PhantomData }
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
            self.stepping = true;
            B::spawn_rows(self.world, &mut self.rows, Some(&mut self.spawned), false);
            self.stepping = false;
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
        // A step that panicked (the rows' iterator, or a row `spawn` refuses) is unwinding:
        // asking the iterator again could panic a second time, which would abort.
        if !self.stepping {
            B::spawn_rows(self.world, &mut self.rows, None, true);
        }
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
