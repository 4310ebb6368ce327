//! Serialization with [serde](https://serde.rs) (feature `serde`): [`Entity`], [`Entities`],
//! [`SparseSet`] and [`SparseMap`] implement `Serialize` and `Deserialize`, and so do the
//! storages `#[derive(SparseSoa)]` generates when marked `#[sparse_soa(serde)]` (in
//! `sparse-soa`).
//!
//! Deserializing validates everything: input that does not describe a state the API could have
//! made is refused with an error that names what is wrong, never a panic, and no length read
//! from the input is trusted for an allocation. Loading untrusted input is safe.
//!
//! (The module is not named `serde`, so that a glob import of this crate never makes the name
//! `serde` ambiguous in code that uses the serde crate.)
//!
//! # Formats
//!
//! | type | serialized as | in JSON |
//! |---|---|---|
//! | [`Entity`] | its [`to_bits`](Entity::to_bits): a `u64`, generation in the high half | `4294967296` (`0v1`) |
//! | [`Entities`] | a struct `Entities`: `slots`, each slot's generation and whether it is alive, in slot order; `free`, the free list in order; `bound`, a bounded allocator's capacity (`null` for a growable one) | `{"slots":[[2,false],[1,true]],"free":[0],"bound":null}` |
//! | [`SparseSet<K, D>`] | a struct `SparseSet`: `bounds`, and `keys` in dense order | `{"bounds":null,"keys":[7,3]}` |
//! | [`SparseMap<K, V, D>`], a derived storage | a struct `SparseMap`: `bounds`, and `rows`, each a key and its value, in dense order | `{"bounds":null,"rows":[[7,"seven"],[3,"three"]]}` |
//! | [`Group<M, X>`] | a struct `Group`: `members`, a tuple of the members, and `excluded`, a tuple of the excluded storages (unit for none) | `{"members":[{..},{..}],"excluded":[{..}]}` |
//!
//! `bounds` is `null` (`None`) for a growable storage and `{"capacity":8,"key_limit":128}` for
//! a [`bounded`](SparseSet::bounded) one, which is bounded alike when loaded. A derived storage
//! has the format of a `SparseMap` whose values are the struct, so either loads what the other
//! saved. The dense width `D` is not part of the format: a set saved with one width loads with
//! another if its keys fit.
//!
//! Every storage keeps its dense order, so a round trip gives the same `keys()` slice and the
//! same values in the same positions. [`Entities`] keeps its generations, its free list and its
//! bound, so after a round trip [`spawn`](Entities::spawn) issues exactly the handles the
//! original would have issued (a bounded one refuses where the original would), and every old
//! handle is alive or stale exactly as before.
//!
//! ```
//! use sparse_set_core::{Entities, Entity, SparseMap};
//!
//! let mut entities = Entities::new();
//! let [a, b] = [entities.spawn(), entities.spawn()];
//! entities.despawn(a);
//! let mut health: SparseMap<Entity, u32> = SparseMap::new();
//! health.insert(b, 30);
//!
//! let saved = serde_json::to_string(&(&entities, &health)).unwrap();
//! let (mut entities, health): (Entities, SparseMap<Entity, u32>) =
//!     serde_json::from_str(&saved).unwrap();
//! assert!(!entities.is_alive(a) && entities.is_alive(b));
//! assert_eq!(health.get(b), Some(&30));
//! let c = entities.spawn(); // slot 0 again, one generation later, as before the round trip
//! assert_eq!((c.index(), c.generation().get()), (0, 2));
//! ```
//!
//! # What deserializing refuses
//!
//! Each of these is an error of the format (`serde_json::Error`, `postcard::Error`, ...) whose
//! message, in formats that keep messages (JSON does; postcard only says that deserializing
//! failed), names the row, the key and the limit:
//!
//! - in a storage: a duplicate key ("row 2: duplicate key 7 (row 0 holds it)"); for keys that
//!   carry a version, two versions of one slot (an [`Entity`] of the same index and another
//!   generation: a storage holds one key per slot); a key outside a bounded storage's key range;
//!   more rows than its capacity, or than the dense width addresses
//!   ([`DenseIndex::MAX_LEN`]);
//! - bounds that are invalid themselves (a capacity past what the dense width addresses), or
//!   that would allocate more than [`MAX_BOUNDED_BYTES`] up front (a bounded storage allocates
//!   its whole key range when it is made; [`Load::max_bounded_bytes`] raises the limit);
//! - in an [`Entities`]: generation 0, a free list entry past the slots, naming a live slot, or
//!   named twice, a dead slot missing from the free list (only a slot despawned at the last
//!   generation, `u32::MAX`, is retired and left off it), more slots than an index addresses
//!   or than its `bound`, a bound that would allocate more than [`MAX_BOUNDED_BYTES`] up front
//!   (12 bytes a slot; [`Entities::restore`] sets another limit);
//! - an [`Entity`] whose generation half is zero;
//! - in a [`Group`]: storages that are not aligned as a group leaves them (members holding
//!   different keys at a position of the prefix, a key of the prefix held by an excluded
//!   storage, a key every member holds and no excluded storage holds left past the prefix):
//!   "not a group: key 7 is held by every member and no excluded storage, but is not aligned
//!   (position 3 of member 1)". A group is never realigned on load: its order is kept as saved;
//! - malformed input: a row that is not a key and a value, a missing, duplicate or unknown
//!   field, a value of the wrong type. (In input read as a map, such as a JSON object, a
//!   missing `bounds`, or an allocator's missing `bound`, is not refused: it reads as `null`, a
//!   growable storage or allocator. Input in sequence form, as postcard's, has every field.)
//!
//! Lengths announced by the input only ever reserve a little memory (at most 1 MiB, as serde's
//! own collections do); everything else grows as elements actually arrive, fallibly: a failed
//! allocation is an error of the format, not an abort.
//!
//! # Storages keyed by `Entity`
//!
//! A storage and the allocator that issued its keys are saved separately, so nothing in a
//! storage's own data says whether its entities are alive. A whole world (`#[derive(World)]`,
//! in `sparse-soa`) loads as one value through [`Alive`], which checks every storage's keys
//! against the world's allocator as part of the load. For storages loaded one by one, check:
//! [`check_alive`] over a storage's keys, or, while deserializing, [`Load`] with
//! [`alive_in`](Load::alive_in). Each refuses a key the allocator does not say is alive,
//! naming it and what its slot holds.
//!
//! ```
//! use sparse_set_core::serialization::check_alive;
//! use sparse_set_core::{Entities, Entity, SparseMap};
//!
//! let mut entities = Entities::new();
//! let [a, b] = [entities.spawn(), entities.spawn()];
//! let mut health: SparseMap<Entity, u32> = SparseMap::new();
//! health.insert(a, 10);
//! health.insert(b, 20);
//! let saved_health = serde_json::to_string(&health).unwrap();
//! entities.despawn(b); // the allocator was saved later, after a despawn
//! let saved_entities = serde_json::to_string(&entities).unwrap();
//!
//! let entities: Entities = serde_json::from_str(&saved_entities).unwrap();
//! let health: SparseMap<Entity, u32> = serde_json::from_str(&saved_health).unwrap();
//! let error = check_alive(&entities, health.keys()).unwrap_err();
//! assert_eq!(error.entity(), b);
//! assert_eq!(error.to_string(), "entity 1v1 (position 1) is not alive: slot 1 is dead");
//! ```
//!
//! # Files
//!
//! `format.rs` holds what saving and loading share (bounds, rows, field names, cautious
//! growth), so that `storage.rs` (saving) and `restore.rs` (loading) never import each other;
//! `entities.rs` is the allocator's format; `group.rs` a group's; `world.rs` a checked world;
//! `load.rs` loading with options; `derive.rs` what derived storages call. The liveness check
//! this module re-exports lives in the crate's `alive.rs`, beside the allocator it asks.

pub(crate) mod derive;
mod entities;
mod format;
mod group;
mod load;
pub(crate) mod restore;
mod storage;
#[cfg(test)]
mod tests;
mod world;

pub use crate::alive::{NotAlive, check_alive};
#[cfg(doc)]
use crate::dense::DenseIndex;
#[cfg(doc)]
use crate::entity::{Entities, Entity};
#[cfg(doc)]
use crate::group::Group;
#[cfg(doc)]
use crate::map::SparseMap;
#[cfg(doc)]
use crate::set::SparseSet;
pub use load::Load;
pub use restore::Restore;
pub use world::Alive;

/// The most bytes a bounded storage read by `Deserialize` may allocate up front for its bounds:
/// 16 MiB.
///
/// A [`bounded`](SparseSet::bounded) storage allocates its capacity and the sparse pages of its
/// whole key range when it is made (and, for a derived storage with tracked fields, their
/// stamps for the whole capacity), so bounds read from the input are an allocation the input
/// asks for. Up to this many bytes it is granted (a key range of 4 million slots at the `u32`
/// width, 16 million at `u8`); past it, deserializing is refused, unless a [`Load`] with
/// [`max_bounded_bytes`](Load::max_bounded_bytes) sets another limit. Growable storages are not
/// concerned: they grow with the rows that actually arrive.
///
/// ```
/// use sparse_set_core::SparseSet;
/// use sparse_set_core::serialization::MAX_BOUNDED_BYTES;
///
/// let huge = r#"{"bounds":{"capacity":8,"key_limit":4000000000},"keys":[]}"#;
/// let error = serde_json::from_str::<SparseSet<u32>>(huge).unwrap_err();
/// assert!(error.to_string().contains(&format!("more than the {MAX_BOUNDED_BYTES} bytes")));
/// ```
pub const MAX_BOUNDED_BYTES: usize = 16 << 20;

/// The most bytes a length announced by the input may reserve before its elements arrive (the
/// limit serde's own collections use).
pub(crate) const MAX_PREALLOCATION: usize = 1 << 20;
