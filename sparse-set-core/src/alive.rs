//! Checking that stored `Entity` keys are alive in an allocator: [`check_alive`] over a slice
//! of keys, [`CheckAlive`] over a whole world (`#[derive(World)]` implements it), and the error
//! both return, [`NotAlive`]. Meant for data loaded from outside, where a storage and its
//! allocator were saved separately.

use core::fmt;
use core::num::NonZeroU32;

use crate::entity::{Entities, Entity};
use crate::world::WorldStorage;

/// Checks that every entity of `keys` is alive in `entities`: the first that is not is the
/// error, with its position in `keys`.
///
/// For storages keyed by [`Entity`] loaded beside their allocator: pass each storage's keys
/// (`map.keys()`, `set.as_slice()`, a derived storage's `keys()`), or any other slice of
/// entities the saved data holds.
///
/// Computes in **O(`keys.len()`)** time.
///
/// # Errors
///
/// [`NotAlive`] for the first entity `entities` does not say is alive.
///
/// ```
/// use sparse_set_core::check_alive;
/// use sparse_set_core::Entities;
///
/// let mut entities = Entities::new();
/// let [a, b] = [entities.spawn(), entities.spawn()];
/// assert!(check_alive(&entities, &[a, b]).is_ok());
/// entities.despawn(a);
/// let c = entities.spawn(); // slot 0 again
/// let error = check_alive(&entities, &[b, a]).unwrap_err();
/// assert_eq!((error.entity(), error.position()), (a, 1));
/// assert_eq!(error.to_string(), "entity 0v1 (position 1) is not alive: slot 0 holds 0v2");
/// # assert_eq!(c.generation().get(), 2);
/// ```
pub fn check_alive(entities: &Entities, keys: &[Entity]) -> Result<(), NotAlive> {
    for (position, &entity) in keys.iter().enumerate() {
        if !entities.is_alive(entity) {
            return Err(not_alive(entities, position, entity));
        }
    }
    Ok(())
}

/// The error for `entity`, at `position`, which `entities` does not hold alive.
fn not_alive(entities: &Entities, position: usize, entity: Entity) -> NotAlive {
    let slot = match entities.slots.get(entity.index() as usize) {
        None => SlotState::Missing { slots: entities.slots.len() },
        Some(slot) if slot.alive => SlotState::Holds(slot.generation),
        Some(_) => SlotState::Dead,
    };
    NotAlive { position, entity, slot, storage: None }
}

/// An entity that its allocator does not say is alive: what [`check_alive`], [`CheckAlive`]
/// and (feature `serde`) `serialization::Load::alive_in` and `serialization::Alive` refuse.
///
/// Its message names the entity, its position and what its slot holds: "entity 3v1 (position
/// 0) is not alive: slot 3 holds 3v2", "... slot 3 is dead", "... the allocator has 2 slots".
///
/// ```
/// use sparse_set_core::check_alive;
/// use sparse_set_core::{Entities, Entity};
///
/// let stranger = Entity::from_bits((1 << 32) | 5).unwrap();
/// let error = check_alive(&Entities::new(), &[stranger]).unwrap_err();
/// assert_eq!(error.to_string(), "entity 5v1 (position 0) is not alive: the allocator has 0 slots");
/// let mut one = Entities::new();
/// one.spawn();
/// let error = check_alive(&one, &[stranger]).unwrap_err();
/// assert_eq!(error.to_string(), "entity 5v1 (position 0) is not alive: the allocator has 1 slot");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotAlive {
    position: usize,
    entity: Entity,
    slot: SlotState,
    /// The world's field holding the key, and for a group the storage of the group (counting
    /// its members, then its excluded storages): set by [`check_world_alive`].
    storage: Option<(&'static str, Option<usize>)>,
}

/// What the slot of an entity that is not alive holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    /// The allocator has fewer slots.
    Missing { slots: usize },
    /// Another generation is alive there.
    Holds(NonZeroU32),
    /// Nothing is alive there.
    Dead,
}

impl NotAlive {
    /// The entity that is not alive.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::check_alive;
    /// use sparse_set_core::{Entities, Entity};
    ///
    /// let stranger = Entity::from_bits((1 << 32) | 5).unwrap();
    /// assert_eq!(check_alive(&Entities::new(), &[stranger]).unwrap_err().entity(), stranger);
    /// ```
    #[must_use]
    pub fn entity(&self) -> Entity {
        self.entity
    }

    /// Its position among the keys checked: for a storage's keys, its dense position, which is
    /// also its row in the serialized storage.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::check_alive;
    /// use sparse_set_core::Entities;
    ///
    /// let mut entities = Entities::new();
    /// let [a, b] = [entities.spawn(), entities.spawn()];
    /// entities.despawn(b);
    /// assert_eq!(check_alive(&entities, &[a, b]).unwrap_err().position(), 1);
    /// ```
    #[must_use]
    pub fn position(&self) -> usize {
        self.position
    }

    /// The world's field that holds the entity, when a whole world was checked
    /// ([`CheckAlive`]); `None` for [`check_alive`] over a slice.
    ///
    /// Computes in **O(1)** time.
    #[must_use]
    pub fn storage(&self) -> Option<&'static str> {
        self.storage.map(|(field, _)| field)
    }
}

/// A world whose stored `Entity` keys can be checked against its allocator: implemented by
/// `#[derive(World)]` (in `sparse-soa`) for a world with an `Entities` field, checking every
/// storage field, and every member and excluded storage of a group field.
///
/// With the `serde` feature, `serialization::Alive` loads a world and runs this check as part
/// of the load.
pub trait CheckAlive {
    /// Checks that every key of every storage is alive in the world's allocator.
    ///
    /// Computes in **O(n)** time for n stored keys.
    ///
    /// # Errors
    ///
    /// [`NotAlive`] for the first key that is not, naming its field
    /// ([`NotAlive::storage`]).
    fn check_alive(&self) -> Result<(), NotAlive>;
}

/// What a world's `CheckAlive` runs: every key of every part of every `(field, storage)` of
/// `storages` checked alive in `entities`.
///
/// # Errors
///
/// The first key that is not alive, naming the field and, for a group, the part.
pub fn check_world_alive(
    entities: &Entities,
    storages: &[(&'static str, &dyn WorldStorage<Entity>)],
) -> Result<(), NotAlive> {
    for &(field, storage) in storages {
        let parts = storage.parts();
        for part in 0..parts {
            let mut position = 0;
            while let Some(key) = storage.key_at(part, position) {
                if !entities.is_alive(key) {
                    let mut error = not_alive(entities, position, key);
                    error.storage = Some((field, (parts > 1).then_some(part)));
                    return Err(error);
                }
                position += 1;
            }
        }
    }
    Ok(())
}

impl fmt::Display for NotAlive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self { position, entity, slot, storage } = *self;
        match storage {
            Some((field, None)) => write!(f, "`{field}`: ")?,
            Some((field, Some(part))) => write!(f, "`{field}` (storage {part} of the group): ")?,
            None => {}
        }
        write!(f, "entity {entity} (position {position}) is not alive: ")?;
        let index = entity.index();
        match slot {
            SlotState::Missing { slots: 1 } => f.write_str("the allocator has 1 slot"),
            SlotState::Missing { slots } => write!(f, "the allocator has {slots} slots"),
            SlotState::Holds(generation) => write!(f, "slot {index} holds {index}v{generation}"),
            SlotState::Dead => write!(f, "slot {index} is dead"),
        }
    }
}

impl core::error::Error for NotAlive {}
