//! [`Load`]: loading a storage with options (keys checked alive, another limit on what bounds
//! may allocate).

use core::fmt;

use ::serde::de::{self, DeserializeSeed, Deserializer};

use crate::alive::{NotAlive, check_alive};
use crate::entity::{Entities, Entity};
use crate::serialization::MAX_BOUNDED_BYTES;
use crate::serialization::restore::Restore;
use crate::storage::Storage;

/// Deserializes a storage with options: check its keys against an [`Entities`] allocator, or
/// allow its bounds another amount of memory. A serde
/// [`DeserializeSeed`]: `Load::new().deserialize(deserializer)`.
///
/// Without options it reads what `Deserialize` reads.
/// [`alive_in(&entities)`](Self::alive_in) refuses a storage keyed by [`Entity`] holding a key
/// that `entities` does not say is alive (see [`check_alive`]);
/// [`max_bounded_bytes`](Self::max_bounded_bytes) replaces [`MAX_BOUNDED_BYTES`].
///
/// ```
/// use serde::de::DeserializeSeed;
/// use sparse_set_core::serialization::Load;
/// use sparse_set_core::{Entities, Entity, SparseMap};
///
/// let mut entities = Entities::new();
/// let [a, b] = [entities.spawn(), entities.spawn()];
/// let health: SparseMap<Entity, u32> = [(a, 10), (b, 20)].into_iter().collect();
/// let saved = serde_json::to_string(&health).unwrap();
///
/// let mut json = serde_json::Deserializer::from_str(&saved);
/// let loaded: SparseMap<Entity, u32> = Load::new().alive_in(&entities).deserialize(&mut json).unwrap();
/// assert_eq!(loaded.keys(), &[a, b]);
///
/// entities.despawn(a);
/// let mut json = serde_json::Deserializer::from_str(&saved);
/// let error = Load::<SparseMap<Entity, u32>>::new().alive_in(&entities).deserialize(&mut json);
/// assert_eq!(
///     error.unwrap_err().to_string(),
///     "entity 0v1 (position 0) is not alive: slot 0 is dead"
/// );
/// ```
///
/// A field of a struct that derives `Deserialize` takes options through serde's
/// `deserialize_with`:
///
/// ```
/// use serde::de::{DeserializeSeed, Deserializer};
/// use serde::Deserialize;
/// use sparse_set_core::serialization::Load;
/// use sparse_set_core::SparseSet;
///
/// /// A bounded set whose key range may take up to 1 GiB.
/// fn roomy<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SparseSet<u32>, D::Error> {
///     Load::new().max_bounded_bytes(1 << 30).deserialize(deserializer)
/// }
///
/// #[derive(Deserialize)]
/// struct Level {
///     #[serde(deserialize_with = "roomy")]
///     walls: SparseSet<u32>,
/// }
///
/// let walls = r#"{"bounds":{"capacity":2,"key_limit":5000000},"keys":[4999999]}"#;
/// assert!(serde_json::from_str::<SparseSet<u32>>(walls).is_err()); // 20 MB up front
/// let level: Level = serde_json::from_str(&format!(r#"{{"walls":{walls}}}"#)).unwrap();
/// assert_eq!(level.walls.key_limit(), Some(5_000_000));
/// ```
pub struct Load<'a, T> {
    max_bounded_bytes: usize,
    alive: Option<AliveCheck<'a, T>>,
}

/// The allocator to check keys against, and the check, made where the key type is known.
type AliveCheck<'a, T> = (&'a Entities, fn(&Entities, &T) -> Result<(), NotAlive>);

impl<T> Load<'_, T> {
    /// Options that read what `Deserialize` reads.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use serde::de::DeserializeSeed;
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::serialization::Load;
    ///
    /// let mut json = serde_json::Deserializer::from_str(r#"{"bounds":null,"keys":[4,2]}"#);
    /// let set: SparseSet<u32> = Load::new().deserialize(&mut json).unwrap();
    /// assert_eq!(set.as_slice(), &[4, 2]);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self { max_bounded_bytes: MAX_BOUNDED_BYTES, alive: None }
    }

    /// Allows a bounded storage's bounds to allocate up to `bytes` up front, instead of
    /// [`MAX_BOUNDED_BYTES`]. For loading bounded storages with a larger key range from
    /// trusted input, or for refusing smaller ones from untrusted input.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use serde::de::DeserializeSeed;
    /// use sparse_set_core::SparseSet;
    /// use sparse_set_core::serialization::Load;
    ///
    /// let text = r#"{"bounds":{"capacity":4,"key_limit":1000},"keys":[3]}"#;
    /// let strict = Load::<SparseSet<u32, u8>>::new().max_bounded_bytes(100);
    /// assert!(strict.deserialize(&mut serde_json::Deserializer::from_str(text)).is_err());
    /// let set = Load::<SparseSet<u32, u8>>::new()
    ///     .deserialize(&mut serde_json::Deserializer::from_str(text))
    ///     .unwrap();
    /// assert_eq!((set.capacity(), set.key_limit()), (4, Some(1000)));
    /// ```
    #[must_use]
    pub const fn max_bounded_bytes(mut self, bytes: usize) -> Self {
        self.max_bounded_bytes = bytes;
        self
    }
}

impl<'a, T: Storage<Key = Entity>> Load<'a, T> {
    /// Refuses the storage if one of its keys is not alive in `entities`, with the message of
    /// [`NotAlive`]. The check runs once the storage is read.
    ///
    /// Computes in **O(1)** time; the check costs **O(len)**.
    ///
    /// ```
    /// use serde::de::DeserializeSeed;
    /// use sparse_set_core::serialization::Load;
    /// use sparse_set_core::{Entities, Entity, SparseSet};
    ///
    /// let mut entities = Entities::new();
    /// let e = entities.spawn();
    /// let text = serde_json::to_string(&[e].into_iter().collect::<SparseSet<Entity>>()).unwrap();
    /// let load = Load::<SparseSet<Entity>>::new().alive_in(&entities);
    /// let tagged = load.deserialize(&mut serde_json::Deserializer::from_str(&text)).unwrap();
    /// assert!(tagged.contains(e));
    /// ```
    #[must_use]
    pub fn alive_in(mut self, entities: &'a Entities) -> Self {
        self.alive = Some((entities, |entities: &Entities, storage: &T| {
            check_alive(entities, storage.keys())
        }));
        self
    }
}

impl<T> Default for Load<'_, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for Load<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Load<'_, T> {}

impl<T> fmt::Debug for Load<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Load")
            .field("max_bounded_bytes", &self.max_bounded_bytes)
            .field("alive_in", &self.alive.is_some())
            .finish()
    }
}

impl<'de, T: Restore<'de>> DeserializeSeed<'de> for Load<'_, T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        let storage = T::restore(deserializer, self.max_bounded_bytes)?;
        if let Some((entities, check)) = self.alive {
            check(entities, &storage).map_err(de::Error::custom)?;
        }
        Ok(storage)
    }
}
