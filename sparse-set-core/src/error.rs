//! The error type of every fallible call.

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
/// assert_eq!(err.to_string(), "key 500 is outside the bounded key range 0..128");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// A bounded set was given a key whose sparse index is not below its key limit.
    KeyOutOfRange {
        /// The key's sparse index ([`Key::sparse_index`](crate::Key::sparse_index)).
        index: usize,
        /// The exclusive upper bound of sparse indices the set accepts.
        limit: usize,
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
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::KeyOutOfRange { index, limit } => {
                write!(f, "key {index} is outside the bounded key range 0..{limit}")
            }
            Error::Full { capacity } => write!(f, "set is full: capacity {capacity}"),
            Error::DenseIndexOverflow { width, max_len } => write!(
                f,
                "set is full: dense index type `{width}` addresses at most {max_len} elements"
            ),
            Error::AllocFailed => f.write_str("memory allocation failed"),
        }
    }
}

impl core::error::Error for Error {}

impl From<alloc::collections::TryReserveError> for Error {
    fn from(_: alloc::collections::TryReserveError) -> Self {
        Error::AllocFailed
    }
}
