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
pub trait Key: Copy + Eq + Hash + Debug {
    /// The slot of the sparse array this key occupies.
    ///
    /// Two keys that are not equal may share a slot (only one of them can be in a set at a time);
    /// equal keys must always return the same slot.
    fn sparse_index(self) -> usize;
}

macro_rules! impl_key_lossless {
    ($($t:ty),*) => {$(
        impl Key for $t {
            #[inline]
            fn sparse_index(self) -> usize {
                usize::from(self)
            }
        }
    )*};
}

impl_key_lossless!(u8, u16, usize);

impl Key for u32 {
    #[inline]
    fn sparse_index(self) -> usize {
        // Lossless on every target this crate supports (`usize` is at least 32 bits).
        self as usize
    }
}

impl Key for u64 {
    /// On 64-bit targets the whole value; on 32-bit targets keys above `usize::MAX` share slots
    /// with smaller keys (they are still told apart by the full comparison).
    #[inline]
    fn sparse_index(self) -> usize {
        self as usize
    }
}

#[cfg(not(any(target_pointer_width = "32", target_pointer_width = "64")))]
compile_error!("sparse-set-core needs a target whose usize is at least 32 bits wide");
