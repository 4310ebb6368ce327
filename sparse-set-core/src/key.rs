//! Keys: the values a sparse set is indexed by.

use core::fmt::Debug;
use core::hash::Hash;

/// A value that can key a sparse set: it names one slot of the sparse array.
///
/// Only [`sparse_index`](Key::sparse_index) addresses the sparse array. The set still stores and
/// compares the whole key, so a key that carries more than its slot (such as the generation of an
/// [`Entity`](crate::Entity)) is matched exactly: a stale handle that shares its slot with a live
/// one is not found.
///
/// Implemented for `u8`, `u16`, `u32`, `u64`, `usize` and [`Entity`](crate::Entity).
///
/// # Implementing it for a newtype
///
/// ```
/// use sparse_set_core::{Key, SparseSet};
///
/// #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
/// struct TileId(u16);
///
/// impl Key for TileId {
///     fn sparse_index(self) -> usize {
///         usize::from(self.0)
///     }
/// }
///
/// let mut tiles = SparseSet::<TileId>::new();
/// tiles.insert(TileId(7));
/// assert!(tiles.contains(TileId(7)));
/// ```
///
/// Memory follows the slots actually used, so keys should be small, dense-ish integers: the sparse
/// array is allocated in pages of 512 slots around the slots in use.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot key a sparse set: it does not implement `Key`",
    label = "not a `Key`",
    note = "keys are `u8`, `u16`, `u32`, `u64`, `usize` and `Entity`; for another type (a signed integer, an id of your own), implement `Key` for a newtype that returns its slot, as the `Key` docs show"
)]
pub trait Key: Copy + Eq + Hash + Debug {
    /// Whether the slot alone identifies the key: `true` only if no two different keys return
    /// the same [`sparse_index`](Key::sparse_index).
    ///
    /// Lookups then trust the slot and skip reading the dense key, which saves a memory access
    /// per `contains` and `get`. Leave it `false` (the default) for keys that carry more than
    /// their slot, such as a generation. Claiming `true` wrongly cannot cause undefined
    /// behaviour, but lookups may then find a different key that shares the slot.
    const SLOT_IS_KEY: bool = false;

    /// Whether the slot and the [`version`](Key::version) together identify the key: `true`
    /// only if no two different keys return the same `sparse_index` and the same `version`
    /// (an [`Entity`](crate::Entity): index and generation).
    ///
    /// The set then keeps each slot's version beside it for slots from 0 up, and lookups compare
    /// versions instead of reading the dense key: one memory access instead of two dependent
    /// ones. Claiming `true` wrongly cannot cause undefined behaviour, but lookups may then find
    /// a different key that shares the slot and the version.
    const SLOT_AND_VERSION_ARE_KEY: bool = false;

    /// The slot of the sparse array this key occupies.
    ///
    /// Two keys that are not equal may share a slot (only one of them can be in a set at a time);
    /// equal keys must always return the same slot.
    fn sparse_index(self) -> usize;

    /// The slot as the set addresses it: any `u64`, on every target. The default widens
    /// [`sparse_index`](Key::sparse_index); keys wider than `usize` override it, so that they
    /// never share a slot where `usize` has 32 bits (`u64` does: on such targets its
    /// `sparse_index` is truncated, its `sparse_slot` is the whole value).
    #[inline]
    fn sparse_slot(self) -> u64 {
        self.sparse_index() as u64
    }

    /// The version of a key that carries one: an [`Entity`](crate::Entity)'s generation; `0`
    /// for keys that do not (the default).
    ///
    /// When a key is inserted into a slot held by a different key, the versions decide: a newer
    /// version replaces the held key (which is dead by construction: its entity was despawned),
    /// an older one is refused as stale ([`Error::StaleKey`](crate::Error::StaleKey)), so a
    /// handle kept past a despawn can never overwrite a live, newer entity's data.
    #[inline]
    fn version(self) -> u32 {
        0
    }
}

macro_rules! impl_key_lossless {
    ($($t:ty),*) => {$(
        impl Key for $t {
            const SLOT_IS_KEY: bool = true;

            #[inline]
            fn sparse_index(self) -> usize {
                usize::from(self)
            }
        }
    )*};
}

impl_key_lossless!(u8, u16, usize);

impl Key for u32 {
    const SLOT_IS_KEY: bool = true;

    #[inline]
    fn sparse_index(self) -> usize {
        // Lossless on every target this crate supports (`usize` is at least 32 bits).
        self as usize
    }
}

impl Key for u64 {
    const SLOT_IS_KEY: bool = true;

    /// The value itself on 64-bit targets; truncated to `usize` on 32-bit targets. The set
    /// addresses [`sparse_slot`](Key::sparse_slot), which is always the whole value.
    #[inline]
    fn sparse_index(self) -> usize {
        self as usize
    }

    #[inline]
    fn sparse_slot(self) -> u64 {
        self
    }
}

#[cfg(not(any(target_pointer_width = "32", target_pointer_width = "64")))]
compile_error!("sparse-set-core needs a target whose usize is 32 or 64 bits wide");
