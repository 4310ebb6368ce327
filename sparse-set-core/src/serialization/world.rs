//! A whole world through serde, checked on load: [`Alive`].

use ::serde::{Deserialize, Deserializer, Serialize, Serializer, de};

use crate::alive::CheckAlive;

/// A world loaded as one value and checked as part of the load: it deserializes `W` as `W`
/// itself does (every storage and the allocator validated on their own), then checks that
/// every key of every storage is alive in the world's allocator ([`CheckAlive`], which
/// `#[derive(World)]` implements). A key that is not is an error of the format naming the
/// field, the entity and what its slot holds, so rows of never-spawned or despawned entities
/// never load silently.
///
/// It saves as `W` does: `Alive(&world)` and `&world` write the same data.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use sparse_set_core::serialization::Alive;
/// use sparse_set_core::{CheckAlive, Entities, Entity, NotAlive, SparseMap};
///
/// #[derive(Default, Serialize, Deserialize)]
/// struct Game {
///     entities: Entities,
///     health: SparseMap<Entity, u32>,
/// }
///
/// // What `#[derive(World)]` implements (in `sparse-soa`), written out.
/// impl CheckAlive for Game {
///     fn check_alive(&self) -> Result<(), NotAlive> {
///         sparse_set_core::check_alive(&self.entities, self.health.keys())
///     }
/// }
///
/// let mut game = Game::default();
/// let hero = game.entities.spawn();
/// game.health.insert(hero, 10);
/// let saved = serde_json::to_string(&game).unwrap();
/// let Alive(loaded) = serde_json::from_str::<Alive<Game>>(&saved).unwrap();
/// assert_eq!(loaded.health.get(hero), Some(&10));
///
/// // The allocator forgot the hero, the health did not: refused.
/// game.entities.despawn(hero);
/// let saved = serde_json::to_string(&game).unwrap();
/// let error = serde_json::from_str::<Alive<Game>>(&saved).err().unwrap();
/// assert!(error.to_string().starts_with("entity 0v1 (position 0) is not alive: slot 0 is dead"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Alive<W>(pub W);

impl<W> Alive<W> {
    /// The world.
    ///
    /// Computes in **O(1)** time.
    pub fn into_inner(self) -> W {
        self.0
    }
}

/// Saves the world as `W` does.
impl<W: Serialize> Serialize for Alive<W> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// Loads `W`, then checks every stored entity alive in its allocator.
impl<'de, W: Deserialize<'de> + CheckAlive> Deserialize<'de> for Alive<W> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let world = W::deserialize(deserializer)?;
        world.check_alive().map_err(de::Error::custom)?;
        Ok(Alive(world))
    }
}
