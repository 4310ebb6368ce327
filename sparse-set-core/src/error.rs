//! The error type of every fallible call.

use alloc::vec::Vec;
use core::fmt;

/// Why a `try_` call refused to change a set or map.
///
/// A refused call leaves its collection unchanged. The plain (non-`try_`) twin of each call panics
/// with this error's message.
///
/// ```
/// use sparse_set_core::{Error, SparseSet};
///
/// let mut set = SparseSet::<u32>::bounded(8, 128);
/// let err = set.try_insert(500).unwrap_err();
/// assert_eq!(err, Error::KeyOutOfRange { index: 500, limit: 128 });
/// assert_eq!(err.to_string(), "key 500 is outside the bounded key range 0..128; use keys below 128, or bound the storage with a higher key limit");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// A bounded set was given a key whose sparse index is not below its key limit.
    KeyOutOfRange {
        /// The key's slot ([`Key::sparse_slot`](crate::Key::sparse_slot)).
        index: u64,
        /// The exclusive upper bound of sparse indices the set accepts.
        limit: u64,
    },
    /// A bounded set already holds as many elements as its fixed capacity.
    Full {
        /// The fixed capacity.
        capacity: usize,
    },
    /// The set already holds as many elements as its dense index width can address.
    DenseIndexOverflow {
        /// The dense index type, such as `"u8"`.
        width: &'static str,
        /// The most elements that width addresses.
        max_len: usize,
    },
    /// The allocator could not provide memory the call needed.
    AllocFailed,
    /// The memory a call needed is more than the address space allows (more than `isize::MAX`
    /// bytes, or more pages than a sparse array addresses): no allocation was even tried.
    CapacityOverflow,
    /// A bound was asked past the slots its keys can take: a bounded storage's key limit past
    /// [`Key::SLOTS`](crate::Key::SLOTS) of its key type (256 for `u8` keys), or a bounded
    /// [`Entities`](crate::Entities) past the `2^32` indices an entity has. Nothing was
    /// allocated.
    BoundPastKeys {
        /// The bound asked for.
        bound: u64,
        /// The slots the keys can take: the highest bound accepted.
        slots: u64,
    },
    /// [`Entities`](crate::Entities) has no slot left to spawn in: all `2^32` entity indices
    /// are alive or retired.
    EntitiesExhausted,
    /// A bounded [`Entities`](crate::Entities) has no slot left to spawn in: all `capacity`
    /// slots of its bound are alive or retired. (A full storage reports
    /// [`Full`](Error::Full).)
    EntitiesFull {
        /// The bound: the most slots the allocator holds.
        capacity: usize,
    },
    /// A key older than the one holding its slot, or than the newest one its slot has held, was
    /// inserted: for an [`Entity`](crate::Entity), a handle kept past its despawn. Nothing
    /// changed. (A storage keeps the newest version each slot has seen, held or not; see
    /// "Stale keys" in the [`set`](crate::set) module docs.)
    StaleKey {
        /// The slot both keys address ([`Key::sparse_slot`](crate::Key::sparse_slot)).
        index: u64,
        /// The version of the refused key ([`Key::version`](crate::Key::version)).
        version: u32,
        /// The version of the key that holds the slot, or the newest that held it.
        held: u32,
    },
    /// An [`Entity`](crate::Entity) that is not alive in the world's
    /// [`Entities`](crate::Entities) was given components through the world (`insert` of
    /// `#[derive(World)]`): it was despawned, or never spawned by that allocator. Nothing
    /// changed.
    NotAlive {
        /// The entity's index.
        index: u32,
        /// The entity's generation.
        generation: u32,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::KeyOutOfRange { index, limit } => {
                write!(
                    f,
                    "key {index} is outside the bounded key range 0..{limit}; use keys below {limit}, or bound the storage with a higher key limit"
                )
            }
            Error::Full { capacity } => {
                let elements = if capacity == 1 { "element" } else { "elements" };
                write!(
                    f,
                    "storage is full: its bounded capacity is {capacity} {elements}; remove some first, or bound it with a higher capacity"
                )
            }
            Error::DenseIndexOverflow { width, max_len } => write!(
                f,
                "storage is full: its dense index type `{width}` addresses at most {max_len} elements; use a wider dense index type"
            ),
            Error::AllocFailed => f.write_str("memory allocation failed"),
            Error::CapacityOverflow => {
                f.write_str("capacity overflow: the memory needed exceeds the address space")
            }
            Error::BoundPastKeys { bound, slots } => write!(
                f,
                "bound {bound} is past the {slots} slots the keys can take; bound it to at most {slots}"
            ),
            Error::EntitiesExhausted => f.write_str(
                "entity index space exhausted: all 4294967296 slots are alive or retired",
            ),
            Error::EntitiesFull { capacity } => {
                let slots = if capacity == 1 { "slot" } else { "slots" };
                write!(
                    f,
                    "the entity allocator is full: it is bounded to {capacity} {slots}, every one alive or retired; despawn entities, or bound it higher"
                )
            }
            Error::NotAlive { index, generation } => write!(
                f,
                "entity {index}v{generation} is not alive in this world: despawned, or spawned by another `Entities`; drop the handle, or spawn a new entity"
            ),
            Error::StaleKey { index, version, held } => {
                write!(
                    f,
                    "entity {index}v{version} is stale: slot {index} holds or held {index}v{held}; drop the old handle, or use the newer entity"
                )
            }
        }
    }
}

impl core::error::Error for Error {}

/// A failed reservation, as [`Error::AllocFailed`]. The conversion cannot tell a capacity
/// overflow apart; the crate's own calls check the capacity first and report
/// [`Error::CapacityOverflow`] for it.
impl From<alloc::collections::TryReserveError> for Error {
    fn from(_: alloc::collections::TryReserveError) -> Self {
        Error::AllocFailed
    }
}

/// `Vec::try_reserve` that tells a capacity overflow from a failed allocation.
///
/// # Errors
///
/// [`Error::CapacityOverflow`] if `len + additional` elements need more than `isize::MAX`
/// bytes (nothing is allocated); [`Error::AllocFailed`] if the allocator refuses.
#[inline]
pub fn try_reserve<T>(vec: &mut Vec<T>, additional: usize) -> Result<(), Error> {
    if vec.capacity() - vec.len() >= additional {
        return Ok(());
    }
    check_capacity::<T>(vec.len(), additional)?;
    vec.try_reserve(additional).map_err(|_| Error::AllocFailed)
}

/// `Vec::try_reserve_exact` that tells a capacity overflow from a failed allocation.
///
/// # Errors
///
/// As [`try_reserve`].
pub fn try_reserve_exact<T>(vec: &mut Vec<T>, additional: usize) -> Result<(), Error> {
    check_capacity::<T>(vec.len(), additional)?;
    vec.try_reserve_exact(additional).map_err(|_| Error::AllocFailed)
}

/// `Err(CapacityOverflow)` if `len + additional` elements of `T` exceed `isize::MAX` bytes.
fn check_capacity<T>(len: usize, additional: usize) -> Result<(), Error> {
    len.checked_add(additional)
        .and_then(|total| total.checked_mul(size_of::<T>()))
        .filter(|&bytes| isize::try_from(bytes).is_ok())
        .map(|_| ())
        .ok_or(Error::CapacityOverflow)
}

/// `Vec::shrink_to_fit` that keeps the vector as it is when the allocator refuses the smaller
/// allocation (where `shrink_to_fit` would abort): the elements move into an exact allocation.
pub fn shrink<T>(vec: &mut Vec<T>) {
    shrink_to(vec, 0);
}

/// [`shrink`] to a capacity of at least `min` (and the length): what a vector that must keep
/// room for `min` elements releases.
pub(crate) fn shrink_to<T>(vec: &mut Vec<T>, min: usize) {
    let capacity = vec.len().max(min);
    if vec.capacity() <= capacity {
        return;
    }
    if capacity == 0 {
        *vec = Vec::new();
        return;
    }
    let mut exact = Vec::new();
    if exact.try_reserve_exact(capacity).is_ok() {
        exact.append(vec);
        *vec = exact;
    }
}

/// Bytes of heap memory `vec` holds: its capacity, not its length.
#[must_use]
pub fn vec_bytes<T>(vec: &Vec<T>) -> usize {
    vec.capacity() * size_of::<T>()
}

/// `vec.push(value)` that panics, never aborts, when the memory for it cannot be had: how an
/// observer that collects events grows in a call that returns no `Result`.
///
/// # Panics
///
/// If the vector must grow and cannot.
#[inline]
#[track_caller]
pub(crate) fn push_or_fail<T>(vec: &mut Vec<T>, value: T) {
    reserve_or_fail(vec, 1);
    vec.push(value);
}

/// `try_reserve` (amortised growth) that panics, never aborts, when the memory cannot be had:
/// room asked for before a plain call changes anything.
///
/// # Panics
///
/// If the memory cannot be had.
#[inline]
#[track_caller]
pub(crate) fn reserve_or_fail<T>(vec: &mut Vec<T>, additional: usize) {
    if let Err(error) = try_reserve(vec, additional) {
        fail(error);
    }
}

/// `try_reserve_exact` that panics, never aborts, when the memory cannot be had: an observer's
/// reservation in a call that returns no `Result` (attaching it).
///
/// # Panics
///
/// If the memory cannot be had.
#[track_caller]
pub(crate) fn reserve_exact_or_fail<T>(vec: &mut Vec<T>, additional: usize) {
    if let Err(error) = try_reserve_exact(vec, additional) {
        fail(error);
    }
}

/// A copy of `vec`, with its capacity if `keep_room` (else its length), which panics, never
/// aborts, when the memory cannot be had: how an observer that keeps room for a bounded
/// storage's events clones, so that the copy allocates no more than the original.
///
/// # Panics
///
/// If the memory cannot be had, or `T::clone` panics (the elements cloned so far are dropped).
#[track_caller]
pub(crate) fn clone_with_room<T: Clone>(vec: &Vec<T>, keep_room: bool) -> Vec<T> {
    let mut copy = Vec::new();
    reserve_exact_or_fail(&mut copy, if keep_room { vec.capacity() } else { vec.len() });
    copy.extend_from_slice(vec);
    copy
}

/// Panics with `error`'s message: the plain twin of a `try_` call whose error names everything
/// the message needs.
///
/// # Panics
///
/// Always: that is what it is for.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn fail(error: Error) -> ! {
    panic!("{error}")
}

/// Panics for a `swap_indices(a, b)` out of bounds for a storage of `len` rows, naming all
/// three: out of line, so that the swap's common path stores nothing for the message.
///
/// # Panics
///
/// Always: that is what it is for.
#[cold]
#[inline(never)]
#[track_caller]
pub fn fail_swap(a: usize, b: usize, len: usize) -> ! {
    panic!("swap_indices({a}, {b}) out of bounds for length {len}")
}

/// Panics for a bounded `S` that `error` refused to make, with a message naming the storage,
/// the bounds asked for and the error (which names the limit it met).
///
/// # Panics
///
/// Always: that is what it is for.
#[cold]
#[inline(never)]
#[track_caller]
pub fn fail_bounded<S: ?Sized>(capacity: usize, key_limit: usize, error: Error) -> ! {
    let storage = ShortName(core::any::type_name::<S>());
    panic!("cannot bound a `{storage}` to {capacity} elements with keys below {key_limit}: {error}")
}

/// Panics for an insert of `key` into an `S` that `error` refused, with a message that names
/// the storage, the key and the limit (every error that has one names it).
///
/// # Panics
///
/// Always: that is what it is for.
#[cold]
#[inline(never)]
#[track_caller]
pub fn fail_insert<S: ?Sized, K: fmt::Debug>(key: K, error: Error) -> ! {
    let storage = ShortName(core::any::type_name::<S>());
    match error {
        // These name the key themselves.
        Error::KeyOutOfRange { .. } | Error::StaleKey { .. } => {
            panic!("cannot insert into a `{storage}`: {error}")
        }
        _ => panic!("cannot insert key {key:?} into a `{storage}`: {error}"),
    }
}

/// A type's name without its module paths: `SparseMap<u32, char>` for
/// `sparse_set_core::map::SparseMap<u32, char>`, which is what a user wrote.
#[derive(Clone, Copy)]
pub(crate) struct ShortName(pub(crate) &'static str);

impl fmt::Display for ShortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Each run of path characters keeps what follows its last `::`; the punctuation
        // between runs (`<`, `, `, `&`, ...) is written as it is.
        let mut rest = self.0;
        while !rest.is_empty() {
            let run = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let (path, tail) = rest.split_at(run);
            f.write_str(path.rsplit("::").next().unwrap_or(path))?;
            let punctuation = tail
                .find(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
                .unwrap_or(tail.len());
            f.write_str(&tail[..punctuation])?;
            rest = &tail[punctuation..];
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use super::ShortName;

    #[test]
    fn short_names_drop_module_paths_only() {
        let cases = [
            ("sparse_set_core::set::SparseSet<u32>", "SparseSet<u32>"),
            ("a::B<c::D, [e::F; 3], &g::H>", "B<D, [F; 3], &H>"),
            ("u8", "u8"),
            ("", ""),
        ];
        for (name, short) in cases {
            assert_eq!(ShortName(name).to_string(), short);
        }
    }
}
