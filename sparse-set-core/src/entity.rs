//! Generational entity ids ([`Entity`]) and their allocator ([`Entities`]).
//!
//! # Invariant
//!
//! Of an allocator's slots (the generation each hands out next, or has handed out while alive)
//! and its free list (the dead slots to reuse, the most recently freed last):
//!
//! 1. there are at most 2^32 slots (an entity index is a `u32`);
//! 2. every free-list entry names a slot that exists and is dead, and no slot is listed twice;
//! 3. every dead slot below the last generation (`u32::MAX`) is on the free list: a dead slot
//!    at the last generation is either listed (bumped to `u32::MAX`, still to be issued) or
//!    **retired** (despawned at `u32::MAX`, never issued again), and only the list tells; no
//!    dead slot is at the first generation (a despawn bumps it, and a slot never issued is no
//!    slot yet);
//! 4. `len` counts the alive slots;
//! 5. the free list has room for every slot, so `despawn` never allocates;
//! 6. a bounded allocator ([`Entities::bounded`]) has at most `capacity` slots, and room for
//!    all of them from the start, so it never allocates after it is made.
//!
//! [`Entities::from_parts`] is where these rules are written: loading checks untrusted parts with
//! it, and [`Entities::assert_invariants`] checks a live allocator with it.

use alloc::vec::Vec;
use core::fmt;
use core::num::NonZeroU32;
use core::ops::Range;

use crate::error::{Error, fail, shrink, shrink_to, try_reserve, try_reserve_exact};
use crate::key::Key;

/// A generational id: a slot `index` plus the `generation` of that slot it was issued for.
///
/// Issued by [`Entities::spawn`]. When an entity is despawned its slot's generation is bumped, so
/// the old handle no longer matches: [`Entities::is_alive`] rejects it, and so does every
/// [`SparseSet`](crate::SparseSet) or [`SparseMap`](crate::SparseMap) keyed by `Entity`, even after
/// the slot is reused: a lookup misses it, and an insert is refused
/// ([`Error::StaleKey`](crate::Error::StaleKey)) once the storage has held a newer generation of
/// the slot (a world's insert checks the allocator itself). Only the index addresses a set's
/// sparse array.
///
/// `Entity` is 8 bytes and, because the generation is never zero, so is `Option<Entity>`.
///
/// ```
/// use sparse_set_core::{Entities, Entity};
///
/// assert_eq!(size_of::<Entity>(), 8);
/// assert_eq!(size_of::<Option<Entity>>(), 8);
///
/// let mut entities = Entities::new();
/// let e = entities.spawn();
/// assert_eq!((e.index(), e.generation().get()), (0, 1));
/// assert_eq!(e.to_string(), "0v1");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entity {
    // Field order makes the derived `Ord` sort by index first.
    index: u32,
    generation: NonZeroU32,
}

impl Entity {
    /// Builds an entity from its parts. Prefer [`Entities::spawn`]; this is for serialisation
    /// and tests.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use core::num::NonZeroU32;
    /// use sparse_set_core::Entity;
    ///
    /// let e = Entity::from_parts(3, NonZeroU32::new(2).unwrap());
    /// assert_eq!(e.index(), 3);
    /// ```
    #[must_use]
    pub const fn from_parts(index: u32, generation: NonZeroU32) -> Self {
        Self { index, generation }
    }

    /// The slot this entity addresses.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// assert_eq!(entities.spawn().index(), 0);
    /// assert_eq!(entities.spawn().index(), 1);
    /// ```
    #[must_use]
    pub const fn index(self) -> u32 {
        self.index
    }

    /// The generation of the slot this entity was issued for; starts at 1.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// let first = entities.spawn();
    /// entities.despawn(first);
    /// let second = entities.spawn(); // reuses slot 0
    /// assert_eq!(second.generation().get(), first.generation().get() + 1);
    /// ```
    #[must_use]
    pub const fn generation(self) -> NonZeroU32 {
        self.generation
    }

    /// Packs the entity into a `u64`: generation in the high half, index in the low half.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{Entities, Entity};
    /// let e = Entities::new().spawn();
    /// assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
    /// ```
    #[must_use]
    pub const fn to_bits(self) -> u64 {
        ((self.generation.get() as u64) << 32) | self.index as u64
    }

    /// Unpacks [`to_bits`](Self::to_bits); `None` when the generation half is zero.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entity;
    /// assert_eq!(Entity::from_bits(7), None); // generation 0 is never issued
    /// assert_eq!(Entity::from_bits((1 << 32) | 7).map(Entity::index), Some(7));
    /// ```
    #[must_use]
    pub const fn from_bits(bits: u64) -> Option<Self> {
        match NonZeroU32::new((bits >> 32) as u32) {
            Some(generation) => Some(Self { index: bits as u32, generation }),
            None => None,
        }
    }
}

impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.index, self.generation)
    }
}

impl Key for Entity {
    /// Index and generation are the whole entity.
    const SLOT_AND_VERSION_ARE_KEY: bool = true;
    /// An index is a `u32`.
    const SLOTS: u64 = 1 << u32::BITS;

    /// The index alone: the generation never addresses the sparse array.
    #[inline]
    fn sparse_index(self) -> usize {
        self.index as usize
    }

    #[inline]
    fn version(self) -> u32 {
        self.generation.get()
    }
}

/// One slot of the allocator: the generation it hands out next (or has handed out, when alive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) generation: NonZeroU32,
    pub(crate) alive: bool,
}

/// Why a slot list and a free list make no allocator: the rule of the module's invariant they
/// break.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PartsError {
    /// Rule 1: more slots than an entity index addresses.
    TooManySlots { count: usize },
    /// Rule 2: free-list entry `position` names a slot past the last.
    FreeOutOfRange { position: usize, index: u32, count: usize },
    /// Rule 2: free-list entry `position` names a slot that is alive.
    FreeAlive { position: usize, index: u32 },
    /// Rule 2: a slot listed twice.
    FreeTwice { index: u32 },
    /// Rule 3: a dead slot below the last generation that is not on the free list.
    DeadNotFree { index: usize, generation: NonZeroU32 },
    /// Rule 3: a dead slot at the first generation, which no despawn leaves.
    DeadAtFirst { index: usize },
    /// A bounded allocator holding more slots than its bound.
    PastBound { count: usize, bound: usize },
    /// The memory the check or the free list needs cannot be had.
    Alloc(Error),
}

impl fmt::Display for PartsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PartsError::TooManySlots { count } => {
                write!(f, "{count} slots are more than the 2^32 an entity index addresses")
            }
            PartsError::FreeOutOfRange { position, index, count } => write!(
                f,
                "free list entry {position} names slot {index}, but there are only {count} slots"
            ),
            PartsError::FreeAlive { position, index } => {
                write!(f, "free list entry {position} names slot {index}, which is alive")
            }
            PartsError::FreeTwice { index } => write!(f, "slot {index} is on the free list twice"),
            PartsError::DeadNotFree { index, generation } => write!(
                f,
                "slot {index} is dead at generation {generation} but not on the free list: only a \
                 slot despawned at the last generation ({}) is retired",
                u32::MAX,
            ),
            PartsError::DeadAtFirst { index } => write!(
                f,
                "slot {index} is dead at generation 1, which no despawn leaves: despawning bumps \
                 a slot's generation"
            ),
            PartsError::PastBound { count, bound } => {
                write!(f, "{count} slots are more than the allocator's bound of {bound}")
            }
            PartsError::Alloc(error) => fmt::Display::fmt(&error, f),
        }
    }
}

/// An allocator of generational [`Entity`] ids.
///
/// `spawn` reuses the slots of despawned entities (most recently freed first) with their
/// generation bumped, so ids stay small and dense, which is what sparse sets want.
///
/// A slot whose generation reaches `u32::MAX` is **retired** when it is despawned: it is never
/// handed out again, rather than wrapping round to a generation that old handles might still hold.
/// That costs 8 bytes of memory per retired slot after about four billion reuses of one slot.
///
/// The free list has room for every slot, so [`despawn`](Self::despawn) never allocates (and
/// [`spawn`](Self::spawn) reserves that room before it adds a slot); the module docs state the
/// whole invariant.
///
/// ```
/// use sparse_set_core::Entities;
///
/// let mut entities = Entities::new();
/// let a = entities.spawn();
/// let b = entities.spawn();
/// assert!(entities.despawn(a));
/// assert!(!entities.is_alive(a));
/// let c = entities.spawn(); // slot 0 again, one generation later
/// assert_eq!(c.index(), a.index());
/// assert_ne!(c, a);
/// assert!(entities.is_alive(b) && entities.is_alive(c));
/// assert_eq!(entities.len(), 2);
/// ```
#[derive(Debug, Default)]
pub struct Entities {
    pub(crate) slots: Vec<Slot>,
    /// Dead slots to reuse; `spawn` pops the last one.
    pub(crate) free: Vec<u32>,
    pub(crate) len: usize,
    /// The fixed number of slots of a bounded allocator (rule 6).
    pub(crate) bound: Option<usize>,
}

/// Two allocators are equal when they hand out the same entities from now on: the same slots
/// (alive or not, at the same generations) and the same free list, in the same order. Capacity
/// and bounds are not compared, as `Vec`'s equality ignores its capacity.
///
/// ```
/// # use sparse_set_core::Entities;
/// let mut a = Entities::new();
/// let mut b = Entities::with_capacity(100);
/// let (x, y) = (a.spawn(), b.spawn());
/// assert_eq!(a, b);
/// a.despawn(x);
/// assert_ne!(a, b); // b's slot 0 is alive
/// b.despawn(y);
/// assert_eq!(a, b);
/// ```
impl PartialEq for Entities {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.slots == other.slots && self.free == other.free
    }
}

impl Eq for Entities {}

impl Clone for Entities {
    /// A copy of the allocator, with room on its free list for every slot (so that its
    /// `despawn` never allocates either).
    ///
    /// # Panics
    ///
    /// If the memory cannot be had, with the message of [`Error::AllocFailed`].
    #[track_caller]
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(value) => value,
            Err(error) => fail(error),
        }
    }
}

impl Entities {
    /// An empty allocator. Does not allocate.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// assert!(Entities::new().is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self { slots: Vec::new(), free: Vec::new(), len: 0, bound: None }
    }

    /// An empty allocator with room for `capacity` slots before it reallocates: the first
    /// `capacity` spawns allocate nothing (and no despawn ever does).
    ///
    /// Computes in **O(1)** time (plus the allocation).
    ///
    /// # Panics
    ///
    /// If the memory cannot be had, with the message of the [`Error`] that
    /// [`try_with_capacity`](Self::try_with_capacity) would return.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let entities = Entities::with_capacity(1000);
    /// assert_eq!(entities.len(), 0);
    /// ```
    #[must_use]
    #[track_caller]
    pub fn with_capacity(capacity: usize) -> Self {
        match Self::try_with_capacity(capacity) {
            Ok(value) => value,
            Err(error) => fail(error),
        }
    }

    /// The fallible twin of [`with_capacity`](Self::with_capacity).
    ///
    /// Computes in **O(1)** time (plus the allocation).
    ///
    /// # Errors
    ///
    /// [`Error::CapacityOverflow`] if `capacity` slots need more than `isize::MAX` bytes
    /// (nothing is allocated); [`Error::AllocFailed`] if the memory cannot be had.
    ///
    /// ```
    /// use sparse_set_core::{Entities, Error};
    ///
    /// assert!(Entities::try_with_capacity(1000).is_ok());
    /// assert_eq!(Entities::try_with_capacity(usize::MAX).unwrap_err(), Error::CapacityOverflow);
    /// ```
    pub fn try_with_capacity(capacity: usize) -> Result<Self, Error> {
        let mut entities = Self::new();
        try_reserve_exact(&mut entities.slots, capacity)?;
        try_reserve_exact(&mut entities.free, capacity)?;
        Ok(entities)
    }

    /// An allocator of fixed size that never allocates after this call: it holds at most
    /// `capacity` slots, so every entity index is below `capacity` (storages bounded with a
    /// `key_limit` of `capacity` take every entity it spawns). Despawned slots are reused as
    /// usual; past `capacity` live and retired slots, [`try_spawn`](Self::try_spawn) returns
    /// [`Error::EntitiesFull`] and [`spawn`](Self::spawn) panics, leaving the allocator unchanged.
    /// [`try_reserve`](Self::try_reserve) does nothing.
    ///
    /// Computes in **O(1)** time (plus the allocation).
    ///
    /// # Panics
    ///
    /// If `capacity` is more than the `2^32` slots an entity index addresses, or the memory
    /// cannot be had, with a message naming the capacity and the [`Error`] that
    /// [`try_bounded`](Self::try_bounded) would return.
    ///
    /// ```
    /// use sparse_set_core::{Entities, Error};
    ///
    /// let mut entities = Entities::bounded(2);
    /// let a = entities.spawn();
    /// let _b = entities.spawn();
    /// assert_eq!(entities.try_spawn(), Err(Error::EntitiesFull { capacity: 2 }));
    /// entities.despawn(a);
    /// assert_eq!(entities.spawn().index(), a.index()); // a freed slot is reused
    /// ```
    #[must_use]
    #[track_caller]
    pub fn bounded(capacity: usize) -> Self {
        match Self::try_bounded(capacity) {
            Ok(entities) => entities,
            Err(error) => panic!("cannot bound an `Entities` to {capacity} slots: {error}"),
        }
    }

    /// The fallible twin of [`bounded`](Self::bounded).
    ///
    /// Computes in **O(1)** time (plus the allocation).
    ///
    /// # Errors
    ///
    /// [`Error::BoundPastKeys`] if `capacity` is more than the `2^32` slots an entity index
    /// addresses; [`Error::CapacityOverflow`] if the slots need more than `isize::MAX`
    /// bytes (nothing is allocated); [`Error::AllocFailed`] if the memory cannot be had.
    ///
    /// ```
    /// use sparse_set_core::{Entities, Error};
    ///
    /// assert_eq!(Entities::try_bounded(1000).unwrap().capacity(), 1000);
    /// # #[cfg(target_pointer_width = "64")]
    /// assert_eq!(
    ///     Entities::try_bounded(1 << 33).unwrap_err(),
    ///     Error::BoundPastKeys { bound: 1 << 33, slots: 1 << 32 },
    /// );
    /// ```
    pub fn try_bounded(capacity: usize) -> Result<Self, Error> {
        if capacity as u64 > Entity::SLOTS {
            return Err(Error::BoundPastKeys { bound: capacity as u64, slots: Entity::SLOTS });
        }
        let mut entities = Self::try_with_capacity(capacity)?;
        entities.bound = Some(capacity);
        Ok(entities)
    }

    /// How many slots the allocator holds before it reallocates; for a bounded allocator, its
    /// fixed capacity. Live, free and retired slots all count.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// assert_eq!(Entities::bounded(8).capacity(), 8);
    /// assert!(Entities::with_capacity(8).capacity() >= 8);
    /// ```
    #[must_use]
    pub fn capacity(&self) -> usize {
        // The slots an entity index addresses, 2^32, where `usize` holds that many.
        let addressable = usize::try_from(1_u64 << 32).unwrap_or(usize::MAX);
        self.bound.unwrap_or_else(|| self.slots.capacity().min(addressable))
    }

    /// How many more entities [`spawn`](Self::spawn) issues without reallocating (for a
    /// bounded allocator, at all): the free slots plus the room for new ones.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::bounded(8);
    /// let e = entities.spawn();
    /// assert_eq!(entities.remaining_capacity(), 7);
    /// entities.despawn(e);
    /// assert_eq!(entities.remaining_capacity(), 8);
    /// ```
    #[must_use]
    pub fn remaining_capacity(&self) -> usize {
        self.capacity().saturating_sub(self.slots.len()) + self.free.len()
    }

    /// The exclusive bound on the indices a bounded allocator issues (its capacity); `None`
    /// for a growable one.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// assert_eq!(Entities::bounded(8).key_limit(), Some(8));
    /// assert_eq!(Entities::new().key_limit(), None);
    /// ```
    #[must_use]
    pub fn key_limit(&self) -> Option<usize> {
        self.bound
    }

    /// Bytes of heap memory the allocator holds: its slots and its free list.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// assert_eq!(Entities::new().allocated_bytes(), 0);
    /// assert!(Entities::bounded(100).allocated_bytes() >= 100 * 8);
    /// ```
    #[must_use]
    pub fn allocated_bytes(&self) -> usize {
        self.slots.capacity() * size_of::<Slot>() + self.free.capacity() * size_of::<u32>()
    }

    /// Makes room for `additional` more spawns without reallocating: the free slots are used
    /// first, and new slots reserved for the rest. Does nothing for a bounded allocator.
    ///
    /// Computes in **O(1)** time (plus the allocation).
    ///
    /// # Panics
    ///
    /// If the memory cannot be had, with the message of the [`Error`] that
    /// [`try_reserve`](Self::try_reserve) would return; the allocator is then unchanged.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// entities.reserve(100);
    /// assert!(entities.allocated_bytes() >= 100 * 8);
    /// ```
    #[track_caller]
    pub fn reserve(&mut self, additional: usize) {
        if let Err(error) = self.try_reserve(additional) {
            fail(error);
        }
    }

    /// The fallible twin of [`reserve`](Self::reserve): makes room for `additional` more
    /// spawns without reallocating, the free slots first, new slots for the rest.
    ///
    /// Computes in **O(1)** time (plus the allocation).
    ///
    /// # Errors
    ///
    /// [`Error::CapacityOverflow`] or [`Error::AllocFailed`]; the allocator is unchanged.
    /// A bounded allocator reserves nothing and returns `Ok` (its room is fixed): the spawn
    /// past [`remaining_capacity`](Self::remaining_capacity) is the one that returns
    /// [`Error::EntitiesFull`].
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// entities.try_reserve(100).unwrap();
    /// let e = entities.spawn();
    /// assert!(entities.is_alive(e));
    /// ```
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        if self.bound.is_some() {
            return Ok(());
        }
        let new_slots = additional.saturating_sub(self.free.len());
        try_reserve(&mut self.slots, new_slots)?;
        // `despawn` pushes to the free list without allocating: room for every slot.
        self.reserve_free_list(self.slots.len().saturating_add(new_slots))
    }

    /// Releases the memory the allocator holds past its slots (a growable one: a bounded one
    /// keeps its memory, so that it never allocates again). Every slot stays, alive, free or
    /// retired, each at its generation: a slot's generation is what refuses its old handles.
    /// The free list keeps room for every slot, so `despawn` still never allocates. Where the
    /// allocator refuses a smaller allocation, that part keeps its memory (this never fails,
    /// and never aborts).
    ///
    /// Computes in **O(slots)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::with_capacity(1_000);
    /// let e = entities.spawn();
    /// entities.shrink_to_fit();
    /// assert!(entities.capacity() < 1_000);
    /// assert!(entities.despawn(e));
    /// ```
    pub fn shrink_to_fit(&mut self) {
        if self.bound.is_some() {
            return;
        }
        shrink(&mut self.slots);
        shrink_to(&mut self.free, self.slots.len());
    }

    /// Room on the free list for `slots` slots in all, those it lists included (rule 5: room
    /// for every slot, so that `despawn` never allocates). Reserves nothing when it has the room.
    fn reserve_free_list(&mut self, slots: usize) -> Result<(), Error> {
        let room = slots.saturating_sub(self.free.len());
        try_reserve(&mut self.free, room)
    }

    /// The indices, as sparse slots, of the slots the next `spawns` spawns add past the ones
    /// there are (the freed slots they reuse first are not in it): what a batch of spawns
    /// tells its storages to lay their sparse index out for (`Storage::reserve_slots`).
    pub(crate) fn fresh_slots(&self, spawns: usize) -> Range<u64> {
        let start = self.slots.len() as u64;
        start..start.saturating_add(spawns.saturating_sub(self.free.len()) as u64)
    }

    /// Issues a new live entity, reusing a freed slot if there is one.
    ///
    /// Computes in **O(1)** amortised time; allocates only when it adds a slot past the
    /// capacity.
    ///
    /// # Panics
    ///
    /// If all `2^32` slots are alive or retired, or a bounded allocator's `capacity` slots are,
    /// or the memory for a new slot cannot be had, with the message of the [`Error`] that
    /// [`try_spawn`](Self::try_spawn) would return; the allocator is then unchanged.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// let e = entities.spawn();
    /// assert!(entities.is_alive(e));
    /// ```
    #[track_caller]
    pub fn spawn(&mut self) -> Entity {
        match self.try_spawn() {
            Ok(entity) => entity,
            Err(error) => panic!("cannot spawn an entity: {error}"),
        }
    }

    /// The freed index the next [`try_spawn`](Self::try_spawn) reuses, if there is one, under
    /// the first generation: a key for asking storages for that index's cells ahead of the
    /// spawn (their cells depend on the index alone), read without touching the slot itself.
    /// Not the entity the spawn returns, whose generation is newer. (A new index comes after
    /// the last one spawned, whose cells are in the cache already: `None`.)
    #[inline]
    pub(crate) fn upcoming_reuse(&self) -> Option<Entity> {
        let index = *self.free.last()?;
        Some(Entity { index, generation: NonZeroU32::MIN })
    }

    /// The fallible twin of [`spawn`](Self::spawn).
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// Leaving the allocator unchanged: [`Error::EntitiesExhausted`] if all `2^32` slots are
    /// alive or retired; [`Error::EntitiesFull`] if a bounded allocator's `capacity` slots are;
    /// [`Error::AllocFailed`] if a new slot is needed and its memory cannot
    /// be had.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// let e = entities.try_spawn().unwrap();
    /// assert!(entities.is_alive(e));
    /// ```
    pub fn try_spawn(&mut self) -> Result<Entity, Error> {
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            debug_assert!(!slot.alive);
            slot.alive = true;
            self.len += 1;
            return Ok(Entity { index, generation: slot.generation });
        }
        if let Some(capacity) = self.bound
            && self.slots.len() >= capacity
        {
            return Err(Error::EntitiesFull { capacity });
        }
        let index = u32::try_from(self.slots.len()).map_err(|_| Error::EntitiesExhausted)?;
        // Room for the slot, and on the (empty) free list for every slot, before anything
        // changes.
        try_reserve(&mut self.slots, 1)?;
        self.reserve_free_list(self.slots.len() + 1)?;
        self.slots.push(Slot { generation: NonZeroU32::MIN, alive: true });
        self.len += 1;
        Ok(Entity { index, generation: NonZeroU32::MIN })
    }

    /// Spawns up to `count` entities into `spawned`, as that many [`try_spawn`](Self::try_spawn)s
    /// would in turn (freed slots first, then new ones), stopping where the next would fail.
    /// What a batch of rows spawns its run of entities with: one pass, no result per entity.
    pub(crate) fn spawn_into(&mut self, count: usize, spawned: &mut Vec<Entity>) {
        let reused = count.min(self.free.len());
        // The free list's last slots, last first, as `pop` hands them out.
        for index in self.free.drain(self.free.len() - reused..).rev() {
            let slot = &mut self.slots[index as usize];
            slot.alive = true;
            spawned.push(Entity { index, generation: slot.generation });
        }
        let start = self.slots.len();
        // New slots stop at a bounded allocator's capacity and at the last `u32` index.
        let indices = usize::try_from(1_u64 << 32).unwrap_or(usize::MAX);
        let limit = self.bound.unwrap_or(indices).min(indices);
        let mut fresh = (count - reused).min(limit.saturating_sub(start));
        // Room for the slots, and on the free list for every slot, before anything changes.
        if try_reserve(&mut self.slots, fresh).is_err()
            || self.reserve_free_list(start + fresh).is_err()
        {
            fresh = 0;
        }
        self.slots.resize(start + fresh, Slot { generation: NonZeroU32::MIN, alive: true });
        spawned.extend((start..start + fresh).map(|index| Entity {
            // Below `1 << 32`: the limit above.
            index: index as u32,
            generation: NonZeroU32::MIN,
        }));
        self.len += reused + fresh;
    }

    /// Undoes the [`try_spawn`](Self::try_spawn) that returned `entity`, as if it had not
    /// happened: given back in the reverse order of their spawns, entities leave the allocator
    /// exactly as it was (a new slot is dropped again, a reused one goes back on the free list
    /// with its generation), so the next spawns issue the same entities. What a batch of rows
    /// does with the entities it spawned for rows it then stores one by one.
    pub(crate) fn undo_spawn(&mut self, entity: Entity) {
        debug_assert!(self.is_alive(entity), "only a live entity can be given back");
        let index = entity.index as usize;
        self.len -= 1;
        // A reused slot's generation was bumped when it was freed: only a new slot has the
        // first generation, and only the last slot can be the newest.
        if index + 1 == self.slots.len() && entity.generation == NonZeroU32::MIN {
            self.slots.pop();
        } else {
            self.slots[index].alive = false;
            // Within the room `try_spawn` reserved for every slot: no allocation.
            self.free.push(entity.index);
        }
    }

    /// The fallible twin of `clone`: a copy of the allocator, bounded alike (with its full
    /// capacity) if it is bounded.
    ///
    /// Computes in **O(slots)** time.
    ///
    /// # Errors
    ///
    /// [`Error::AllocFailed`] if the memory cannot be had; nothing is allocated then.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// let e = entities.spawn();
    /// let mut copy = entities.try_clone().unwrap();
    /// assert!(copy.despawn(e) && entities.is_alive(e));
    /// ```
    pub fn try_clone(&self) -> Result<Self, Error> {
        // A bounded copy gets its full room too (rule 6).
        let room = self.bound.unwrap_or(self.slots.len());
        let mut slots = Vec::new();
        try_reserve_exact(&mut slots, room)?;
        slots.extend_from_slice(&self.slots);
        let mut free = Vec::new();
        try_reserve_exact(&mut free, room)?;
        free.extend_from_slice(&self.free);
        Ok(Self { slots, free, len: self.len, bound: self.bound })
    }

    /// Despawns `entity`: returns `true` if it was alive. Its slot's generation is bumped, so the
    /// handle (and every copy of it) is stale from now on.
    ///
    /// Computes in **O(1)** time; never allocates.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// let e = entities.spawn();
    /// assert!(entities.despawn(e));
    /// assert!(!entities.despawn(e)); // already gone
    /// ```
    pub fn despawn(&mut self, entity: Entity) -> bool {
        if !self.is_alive(entity) {
            return false;
        }
        let slot = &mut self.slots[entity.index as usize];
        slot.alive = false;
        self.len -= 1;
        // A slot at the last generation is retired instead of wrapping to an old generation.
        if let Some(next) = slot.generation.checked_add(1) {
            slot.generation = next;
            // Within the room `try_spawn` reserved for every slot: no allocation.
            debug_assert!(self.free.len() < self.free.capacity());
            self.free.push(entity.index);
        }
        true
    }

    /// Whether `entity` is alive: its slot is in use and of the same generation.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// let e = entities.spawn();
    /// entities.despawn(e);
    /// let reused = entities.spawn();
    /// assert!(!entities.is_alive(e));
    /// assert!(entities.is_alive(reused));
    /// ```
    #[must_use]
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.slots
            .get(entity.index as usize)
            .is_some_and(|slot| slot.alive && slot.generation == entity.generation)
    }

    /// The live entity in slot `index`, if any.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// let e = entities.spawn();
    /// assert_eq!(entities.get(0), Some(e));
    /// assert_eq!(entities.get(1), None);
    /// ```
    #[must_use]
    pub fn get(&self, index: u32) -> Option<Entity> {
        let slot = self.slots.get(index as usize)?;
        slot.alive.then_some(Entity { index, generation: slot.generation })
    }

    /// The number of live entities.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// entities.spawn();
    /// assert_eq!(entities.len(), 1);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no entity is alive.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// assert!(Entities::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Iterates over the live entities in slot order.
    ///
    /// Computes in **O(slots)** time: every slot ever issued is visited.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// let a = entities.spawn();
    /// let b = entities.spawn();
    /// entities.despawn(a);
    /// assert_eq!(entities.iter().collect::<Vec<_>>(), [b]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = Entity> + '_ {
        (0..).zip(&self.slots).filter_map(|(index, slot)| {
            slot.alive.then_some(Entity { index, generation: slot.generation })
        })
    }

    /// Asks `keep` about every live entity, once each in slot order, and despawns those it
    /// rejects (as [`despawn`](Self::despawn) does).
    ///
    /// Computes in **O(slots)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// let [a, b, c] = [entities.spawn(), entities.spawn(), entities.spawn()];
    /// entities.retain(|entity| entity != b);
    /// assert_eq!(entities.iter().collect::<Vec<_>>(), [a, c]);
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(Entity) -> bool) {
        // Slots are numbered by `u32` (checked when each was made).
        for (index, at) in (0..).zip(0..self.slots.len()) {
            let slot = &self.slots[at];
            if !slot.alive {
                continue;
            }
            let entity = Entity { index, generation: slot.generation };
            if !keep(entity) {
                self.despawn(entity);
            }
        }
    }

    /// Despawns every live entity (bumping each slot's generation).
    ///
    /// Computes in **O(slots)** time.
    ///
    /// ```
    /// # use sparse_set_core::Entities;
    /// let mut entities = Entities::new();
    /// let e = entities.spawn();
    /// entities.clear();
    /// assert!(!entities.is_alive(e) && entities.is_empty());
    /// ```
    pub fn clear(&mut self) {
        for index in 0..self.slots.len() {
            if let Some(entity) = self.get(index as u32) {
                self.despawn(entity);
            }
        }
    }

    /// An allocator of `slots` and `free`, bounded to `bound` slots if it is `Some`, if they
    /// keep the module's invariant (rules 1 to 3; `len` is counted, and the free list given
    /// room for every slot, or a bounded allocator both lists room for `bound`); else what
    /// breaks it.
    ///
    /// # Errors
    ///
    /// The first rule broken, as a [`PartsError`]; [`PartsError::PastBound`] if `bound` is
    /// smaller than the slots (or past the 2^32 an index addresses:
    /// [`PartsError::TooManySlots`]); [`PartsError::Alloc`] if the lists' room (or the check's
    /// own scratch memory) cannot be had.
    #[cfg_attr(
        not(feature = "serde"),
        expect(dead_code, reason = "loading (feature `serde`) is its caller")
    )]
    pub(crate) fn from_parts(
        mut slots: Vec<Slot>,
        mut free: Vec<u32>,
        bound: Option<usize>,
    ) -> Result<Self, PartsError> {
        let len = Self::check_parts(&slots, &free)?;
        let room = match bound {
            Some(bound) if bound as u64 > 1 << 32 => {
                return Err(PartsError::TooManySlots { count: bound });
            }
            Some(bound) if bound < slots.len() => {
                return Err(PartsError::PastBound { count: slots.len(), bound });
            }
            Some(bound) => {
                let missing = bound - slots.len();
                try_reserve_exact(&mut slots, missing).map_err(PartsError::Alloc)?;
                bound
            }
            // Room on the free list for every slot the slot list has room for: the spawns
            // `remaining_capacity` promises then reallocate neither list.
            None => slots.capacity(),
        };
        let missing = room - free.len();
        try_reserve_exact(&mut free, missing).map_err(PartsError::Alloc)?;
        Ok(Entities { slots, free, len, bound })
    }

    /// Checks rules 1 to 3 of the module's invariant over `slots` and `free`; returns the number
    /// of alive slots (rule 4's `len`).
    fn check_parts(slots: &[Slot], free: &[u32]) -> Result<usize, PartsError> {
        let count = slots.len();
        if count as u64 > 1 << 32 {
            return Err(PartsError::TooManySlots { count });
        }
        let mut listed = Vec::new();
        try_reserve_exact(&mut listed, count).map_err(PartsError::Alloc)?;
        listed.resize(count, false);
        for (position, &index) in free.iter().enumerate() {
            let Some(slot) = slots.get(index as usize) else {
                return Err(PartsError::FreeOutOfRange { position, index, count });
            };
            if slot.alive {
                return Err(PartsError::FreeAlive { position, index });
            }
            if core::mem::replace(&mut listed[index as usize], true) {
                return Err(PartsError::FreeTwice { index });
            }
        }
        let mut len = 0;
        for (index, (slot, &is_free)) in slots.iter().zip(&listed).enumerate() {
            len += usize::from(slot.alive);
            if !slot.alive && slot.generation == NonZeroU32::MIN {
                return Err(PartsError::DeadAtFirst { index });
            }
            if !slot.alive && !is_free && slot.generation != NonZeroU32::MAX {
                return Err(PartsError::DeadNotFree { index, generation: slot.generation });
            }
        }
        Ok(len)
    }

    /// Checks the allocator's invariant (the module docs); panics with a description of the
    /// first rule broken.
    ///
    /// Computes in **O(slots)** time. Meant for tests and debugging. It checks in release builds
    /// too (the checks are `assert!`, not `debug_assert!`).
    #[doc(hidden)]
    pub fn assert_invariants(&self) {
        match Self::check_parts(&self.slots, &self.free) {
            Ok(alive) => assert_eq!(alive, self.len, "len does not count the alive slots"),
            Err(error) => panic!("{error}"),
        }
        assert!(
            self.free.capacity() >= self.slots.len(),
            "the free list has room for {} of {} slots",
            self.free.capacity(),
            self.slots.len()
        );
        if let Some(capacity) = self.bound {
            assert!(
                self.slots.len() <= capacity
                    && self.slots.capacity() >= capacity
                    && self.free.capacity() >= capacity,
                "a bounded allocator of {capacity} slots holds {} (room for {} slots, {} free)",
                self.slots.len(),
                self.slots.capacity(),
                self.free.capacity()
            );
        }
    }

    #[cfg(test)]
    pub(crate) fn set_generation_for_test(&mut self, index: u32, generation: NonZeroU32) {
        self.slots[index as usize].generation = generation;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_at_the_last_generation_is_retired_not_wrapped() {
        let mut entities = Entities::new();
        let e = entities.spawn();
        entities.set_generation_for_test(0, NonZeroU32::MAX);
        let last = Entity::from_parts(e.index(), NonZeroU32::MAX);
        assert!(entities.is_alive(last));
        assert!(entities.despawn(last));
        let next = entities.spawn();
        assert_eq!(next.index(), 1, "the retired slot 0 must not be handed out again");
        assert!(!entities.is_alive(last));
        assert!(!entities.is_alive(e));
        entities.assert_invariants();
    }

    #[test]
    fn retain_asks_each_live_entity_once_and_despawns_the_rejected() {
        let mut entities = Entities::new();
        let spawned: Vec<Entity> = (0..6).map(|_| entities.spawn()).collect();
        assert!(entities.despawn(spawned[4]));
        let mut asked = Vec::new();
        entities.retain(|entity| {
            asked.push(entity);
            entity.index() % 2 == 1
        });
        entities.assert_invariants();
        assert_eq!(asked, [spawned[0], spawned[1], spawned[2], spawned[3], spawned[5]]);
        assert_eq!(entities.iter().collect::<Vec<_>>(), [spawned[1], spawned[3], spawned[5]]);
        assert_eq!(entities.len(), 3);
        for &rejected in &[spawned[0], spawned[2]] {
            assert!(!entities.is_alive(rejected));
            assert!(!entities.despawn(rejected));
        }
        // The rejected slots are free again, with their generations bumped.
        let reused = [entities.spawn(), entities.spawn(), entities.spawn()];
        let mut indices: Vec<u32> = reused.iter().map(|entity| entity.index()).collect();
        indices.sort_unstable();
        assert_eq!(indices, [0, 2, 4]);
        assert!(reused.iter().all(|entity| entity.generation().get() == 2));
        entities.assert_invariants();
    }

    #[test]
    fn retain_retires_a_rejected_slot_at_the_last_generation() {
        let mut entities = Entities::new();
        let e = entities.spawn();
        entities.set_generation_for_test(0, NonZeroU32::MAX);
        let last = Entity::from_parts(e.index(), NonZeroU32::MAX);
        entities.retain(|_| false);
        entities.assert_invariants();
        assert!(entities.is_empty() && !entities.is_alive(last));
        assert_eq!(entities.spawn().index(), 1);
    }

    /// A run spawned at once issues what as many `try_spawn`s would, in the same order, and
    /// reserves nothing while freed slots are left: a bounded allocator's free list keeps its
    /// capacity (a run once asked for room for every slot on top of the freed slots still
    /// listed, growing it past its bound).
    #[test]
    fn a_run_spawns_as_spawn_does_and_reserves_only_for_new_slots() {
        let mut one_by_one = Entities::bounded(8);
        let mut at_once = Entities::bounded(8);
        let mut run = Vec::new();
        at_once.spawn_into(5, &mut run);
        let spawned: Vec<Entity> = (0..5).map(|_| one_by_one.spawn()).collect();
        assert_eq!(run, spawned);
        // Three new slots up to the bound, which stops the run.
        run.clear();
        at_once.spawn_into(4, &mut run);
        let spawned: Vec<Entity> = spawned.into_iter().chain(run.iter().copied()).collect();
        assert_eq!(run, (0..3).map(|_| one_by_one.spawn()).collect::<Vec<_>>());
        for &entity in &spawned {
            assert!(one_by_one.despawn(entity));
            assert!(at_once.despawn(entity));
        }
        let free_capacity = at_once.free.capacity();
        // Freed slots only: no new slot, nothing reserved.
        run.clear();
        at_once.spawn_into(2, &mut run);
        at_once.spawn_into(7, &mut run);
        assert_eq!(at_once.free.capacity(), free_capacity);
        let expected: Vec<Entity> = (0..8).map(|_| one_by_one.spawn()).collect();
        assert_eq!(run, expected);
        assert_eq!(one_by_one.try_spawn(), Err(Error::EntitiesFull { capacity: 8 }));
        assert_eq!(at_once, one_by_one);
        at_once.assert_invariants();
    }

    #[test]
    fn the_upcoming_reuse_is_the_index_the_next_spawn_reuses() {
        let mut entities = Entities::new();
        assert_eq!(entities.upcoming_reuse(), None, "nothing freed: a new index comes next");
        let spawned: Vec<Entity> = (0..4).map(|_| entities.spawn()).collect();
        assert_eq!(entities.upcoming_reuse(), None);
        assert!(entities.despawn(spawned[1]));
        assert!(entities.despawn(spawned[3]));
        for _ in 0..2 {
            let upcoming = entities.upcoming_reuse().expect("a freed index");
            let reused = entities.spawn();
            assert_eq!(upcoming.index(), reused.index());
            assert!(upcoming.generation() < reused.generation(), "only the index is named");
        }
        assert_eq!(entities.upcoming_reuse(), None);
        entities.assert_invariants();
    }

    #[test]
    fn stale_handles_are_rejected_after_reuse() {
        let mut entities = Entities::new();
        let first = entities.spawn();
        assert!(entities.despawn(first));
        let second = entities.spawn();
        assert_eq!(second.index(), first.index());
        assert!(!entities.despawn(first));
        assert!(entities.is_alive(second));
        entities.assert_invariants();
    }

    #[test]
    fn shrink_to_fit_keeps_every_slot_and_room_to_despawn_them() {
        let mut entities = Entities::with_capacity(4_096);
        let all: Vec<Entity> = (0..1_000).map(|_| entities.spawn()).collect();
        for &entity in all.iter().step_by(2) {
            entities.despawn(entity);
        }
        let before = entities.clone();
        entities.shrink_to_fit();
        entities.assert_invariants(); // the free list has room for every slot
        assert_eq!(entities, before, "the same slots, generations and free list");
        assert_eq!(entities.capacity(), 1_000);
        assert!(!entities.is_alive(all[0]) && entities.is_alive(all[1]));
        for &entity in all.iter().skip(1).step_by(2) {
            assert!(entities.despawn(entity));
        }
        entities.assert_invariants();
        let mut bounded = Entities::bounded(64);
        bounded.shrink_to_fit();
        assert_eq!(bounded.capacity(), 64);
    }
}
