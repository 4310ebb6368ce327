//! Checking that a storage's `Entity` keys are alive in an allocator: [`check_alive`] and
//! [`NotAlive`].

use core::fmt;
use core::num::NonZeroU32;

use crate::entity::{Entities, Entity};

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
/// use sparse_set_core::serialization::check_alive;
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
            let slot = match entities.slots.get(entity.index() as usize) {
                None => SlotState::Missing { slots: entities.slots.len() },
                Some(slot) if slot.alive => SlotState::Holds(slot.generation),
                Some(_) => SlotState::Dead,
            };
            return Err(NotAlive { position, entity, slot });
        }
    }
    Ok(())
}

/// An entity that its allocator does not say is alive: what [`check_alive`] and
/// [`Load::alive_in`](crate::serialization::Load::alive_in) refuse.
///
/// Its message names the entity, its position and what its slot holds: "entity 3v1 (position
/// 0) is not alive: slot 3 holds 3v2", "... slot 3 is dead", "... the allocator has 2 slots".
///
/// ```
/// use sparse_set_core::serialization::check_alive;
/// use sparse_set_core::{Entities, Entity};
///
/// let stranger = Entity::from_bits((1 << 32) | 5).unwrap();
/// let error = check_alive(&Entities::new(), &[stranger]).unwrap_err();
/// assert_eq!(error.to_string(), "entity 5v1 (position 0) is not alive: the allocator has 0 slots");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotAlive {
    position: usize,
    entity: Entity,
    slot: SlotState,
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
    /// use sparse_set_core::serialization::check_alive;
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
    /// use sparse_set_core::serialization::check_alive;
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
}

impl fmt::Display for NotAlive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self { position, entity, slot } = *self;
        write!(f, "entity {entity} (position {position}) is not alive: ")?;
        let index = entity.index();
        match slot {
            SlotState::Missing { slots } => write!(f, "the allocator has {slots} slots"),
            SlotState::Holds(generation) => write!(f, "slot {index} holds {index}v{generation}"),
            SlotState::Dead => write!(f, "slot {index} is dead"),
        }
    }
}

impl core::error::Error for NotAlive {}
