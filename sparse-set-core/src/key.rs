//! Keys: the values a sparse set is indexed by.

use core::fmt::Debug;
use core::hash::Hash;

use crate::error::Error;

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
///
/// # Implementing `Key` wrongly
///
/// The rules: equal keys return the same [`sparse_index`](Key::sparse_index) (and
/// [`sparse_slot`](Key::sparse_slot)) every time they are asked; [`SLOT_IS_KEY`](Key::SLOT_IS_KEY)
/// is `true` only if no two different keys share a slot; and
/// [`SLOT_AND_VERSION_ARE_KEY`](Key::SLOT_AND_VERSION_ARE_KEY) only if no two share a slot and a
/// [`version`](Key::version). The crate has no `unsafe` code, so breaking them cannot cause
/// undefined behaviour. What it does cause, call by call:
///
/// - **`SLOT_IS_KEY` claimed wrongly** (two different keys share a slot): a set still holds one
///   key per slot and stays consistent. Inserting a key whose slot holds the other one replaces
///   it in place (a map or derived storage hands its value back, as for an overwrite); `remove`
///   of either key removes whichever holds the slot; a lookup of the absent one (`contains`,
///   `get`, `get_mut`, `get_index_of`, the entry API, the calls built on them, a group's
///   upkeep) finds the present one. In builds with debug assertions that lookup panics instead,
///   naming both keys.
/// - **`SLOT_AND_VERSION_ARE_KEY` claimed wrongly** (two different keys share a slot and a
///   version): the same, except that nothing panics, and a lookup finds the other key only in
///   the slots from 0 up whose versions the set keeps beside them (the prefix of full pages);
///   elsewhere it compares the whole key and misses.
/// - **A `sparse_index` that is not a function of the key** (it reads a counter, a clock, a
///   global): one key may be stored in several slots and found in none of them, a lookup may
///   miss it or find it, and a removal may clear another key's slot; the set's invariant
///   checker reports it broken. `SparseSet::sort_by` and `sort_by_key` (which break ties by
///   the slots) may then panic; nothing else does. Combined with either claim above, a lookup
///   may also return a position past the keys, so that the calls which index with it (the
///   entry API, `get_disjoint_mut`, `sort_as`, `get_full`, a derived storage's `get`) panic
///   with an index out of bounds.
///
/// In every case: no call loops forever, removals and inserts never panic half-way, every
/// storage keeps one element per key (every column the length of the key slice, a group's
/// prefix no longer than any member), no value is dropped twice and none leaks.
///
/// ```
/// use sparse_set_core::{Key, SparseMap};
///
/// /// Wrong: `Half(2)` and `Half(3)` share slot 1, yet the slot is said to identify the key.
/// #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// struct Half(u32);
///
/// impl Key for Half {
///     const SLOT_IS_KEY: bool = true;
///     fn sparse_index(self) -> usize {
///         (self.0 / 2) as usize
///     }
/// }
///
/// let mut map = SparseMap::<Half, &str>::new();
/// map.insert(Half(2), "two");
/// assert_eq!(map.insert(Half(3), "three"), Some("two")); // replaced, not added
/// assert_eq!(map.keys(), &[Half(3)]);
/// assert_eq!(map.remove(Half(2)), Some("three")); // the slot alone decides
/// map.assert_invariants(); // still consistent
/// ```
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
    /// behaviour, but lookups may then find a different key that shares the slot (and panic,
    /// with debug assertions): see [Implementing `Key` wrongly](Key#implementing-key-wrongly).
    const SLOT_IS_KEY: bool = false;

    /// Whether the slot and the [`version`](Key::version) together identify the key: `true`
    /// only if no two different keys return the same `sparse_index` and the same `version`
    /// (an [`Entity`](crate::Entity): index and generation).
    ///
    /// The set then keeps each slot's version beside it for slots from 0 up, and lookups compare
    /// versions instead of reading the dense key: one memory access instead of two dependent
    /// ones. Claiming `true` wrongly cannot cause undefined behaviour, but lookups may then find
    /// a different key that shares the slot and the version: see
    /// [Implementing `Key` wrongly](Key#implementing-key-wrongly).
    const SLOT_AND_VERSION_ARE_KEY: bool = false;

    /// How many slots keys of this type reach: every key's
    /// [`sparse_slot`](Key::sparse_slot) is below it (256 for `u8`, 2^32 for `u32` and an
    /// [`Entity`](crate::Entity)'s index); `u64::MAX` (the default) for keys that may take any.
    ///
    /// A bounded storage refuses a key limit past it
    /// ([`Error::BoundPastKeys`](crate::Error::BoundPastKeys)), so that it never allocates for
    /// slots no key can take. Claiming fewer slots than the keys take cannot cause undefined
    /// behaviour: a bounded storage's key limit is then at most this, and it refuses the keys
    /// past it ([`Error::KeyOutOfRange`](crate::Error::KeyOutOfRange)).
    const SLOTS: u64 = u64::MAX;

    /// The slot of the sparse array this key occupies.
    ///
    /// Two keys that are not equal may share a slot (only one of them can be in a set at a time);
    /// equal keys must always return the same slot, whenever they are asked (see
    /// [Implementing `Key` wrongly](Key#implementing-key-wrongly) for what happens otherwise).
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

/// `Key` for the unsigned integers that widen to `usize`, with the slots each reaches.
macro_rules! impl_key_lossless {
    ($($t:ty => $slots:expr),*) => {$(
        impl Key for $t {
            const SLOT_IS_KEY: bool = true;
            const SLOTS: u64 = $slots;

            #[inline]
            fn sparse_index(self) -> usize {
                usize::from(self)
            }
        }
    )*};
}

impl_key_lossless!(u8 => 1 << u8::BITS, u16 => 1 << u16::BITS, usize => u64::MAX);

impl Key for u32 {
    const SLOT_IS_KEY: bool = true;
    const SLOTS: u64 = 1 << u32::BITS;

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

/// `Err(StaleKey)` if `key` is older than `held`, the different key in its slot.
#[inline]
pub(crate) fn check_not_stale<K: Key>(key: K, held: K) -> Result<(), Error> {
    if key.version() < held.version() {
        return Err(Error::StaleKey {
            index: key.sparse_slot(),
            version: key.version(),
            held: held.version(),
        });
    }
    Ok(())
}

#[cfg(not(any(target_pointer_width = "32", target_pointer_width = "64")))]
compile_error!("sparse-set-core needs a target whose usize is 32 or 64 bits wide");
