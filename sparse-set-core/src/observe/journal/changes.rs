//! The ordered operations of a [`Journal`](crate::observe::Journal): how they are recorded
//! (`Op`, compact), and how a mirror reads them ([`Changes`], [`Change`], [`Order`]), or learns
//! that they are gone ([`Resync`]).
//!
//! # Invariant
//!
//! A `Permute(n)` operation is followed by exactly `ceil(n / ORDER_PER_OP)` `Order` operations
//! holding its order; no `Order` operation stands anywhere else.

use core::fmt;
use core::iter::FusedIterator;
use core::ops::Range;

/// Positions a permutation's order packs into one operation.
pub(super) const ORDER_PER_OP: usize = 2;

/// One recorded operation, positions as `u32` so that an operation on `u32` or
/// [`Entity`](crate::Entity) keys takes at most 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op<K> {
    Push(K),
    Replace(u32, K),
    Write(u32, u32),
    SwapRemove(u32),
    Swap(u32, u32),
    /// A permutation of this many positions; its order follows in `Order` operations.
    Permute(u32),
    Order([u32; ORDER_PER_OP]),
    Truncate(u32),
}

/// The journal's operations passed its limit (or it was attached to a storage holding rows):
/// the ordered changes are gone, and a mirror that needs them rebuilds from the storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resync {
    /// The journal's limit, in bytes.
    pub limit: usize,
}

impl fmt::Display for Resync {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the journal's changes passed its limit of {} bytes: rebuild the mirror from the storage, then clear the journal",
            self.limit
        )
    }
}

impl core::error::Error for Resync {}

/// One change of a storage's rows, as [`Journal::changes`](crate::observe::Journal::changes) yields them. Replaying them in order
/// on a `Vec` of the keys (push, assign, `swap_remove`, `swap`, reorder, `truncate`) gives the
/// storage's keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change<'a, K> {
    /// A row with `key` was pushed at the end.
    Push {
        /// The new row's key.
        key: K,
    },
    /// The row at `index` was overwritten by an insert; its key is now `key` (the same key, or
    /// a newer generation of it).
    Replace {
        /// The row's position.
        index: usize,
        /// The row's key now.
        key: K,
    },
    /// The values of `rows` were handed out mutably, and may have changed. Rows handed out one
    /// by one in ascending order, as a query's walk does, are one operation while at most 64
    /// rows lie between one and the next: those rows count as written too here (the
    /// [`patch`](super::Journal::patch) stays exact).
    Write {
        /// The positions written.
        rows: Range<usize>,
    },
    /// The row at `index` was removed by a swap-remove: the last row moved into `index`, and the
    /// storage is one shorter (`Vec::swap_remove`).
    SwapRemove {
        /// The removed row's position.
        index: usize,
    },
    /// The rows at `a` and `b` traded places.
    Swap {
        /// One position.
        a: usize,
        /// The other.
        b: usize,
    },
    /// The rows were reordered: the row now at `i` was at the `i`-th position `order` yields.
    Permute {
        /// The old position of each new position, in order.
        order: Order<'a, K>,
    },
    /// The storage was cut to `len` rows.
    Truncate {
        /// The new length.
        len: usize,
    },
}

/// The ordered operations of a [`Journal`](crate::observe::Journal): an iterator of [`Change`]s.
#[derive(Clone)]
pub struct Changes<'a, K> {
    ops: &'a [Op<K>],
}

impl<'a, K> Changes<'a, K> {
    /// The changes `ops` record.
    pub(super) fn new(ops: &'a [Op<K>]) -> Self {
        Self { ops }
    }
}

impl<'a, K: Copy> Iterator for Changes<'a, K> {
    type Item = Change<'a, K>;

    fn next(&mut self) -> Option<Change<'a, K>> {
        let (&op, rest) = self.ops.split_first()?;
        self.ops = rest;
        Some(match op {
            Op::Push(key) => Change::Push { key },
            Op::Replace(index, key) => Change::Replace { index: index as usize, key },
            Op::Write(start, end) => Change::Write { rows: start as usize..end as usize },
            Op::SwapRemove(index) => Change::SwapRemove { index: index as usize },
            Op::Swap(a, b) => Change::Swap { a: a as usize, b: b as usize },
            Op::Permute(len) => {
                let words = (len as usize).div_ceil(ORDER_PER_OP);
                let (order, rest) = self.ops.split_at(words);
                self.ops = rest;
                Change::Permute { order: Order { ops: order, len: len as usize, next: 0 } }
            }
            Op::Truncate(len) => Change::Truncate { len: len as usize },
            Op::Order(_) => unreachable!("an order outside a permutation"),
        })
    }
}

impl<K: Copy> FusedIterator for Changes<'_, K> {}

impl<K: Copy + fmt::Debug> fmt::Debug for Changes<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}

/// The order of a [`Change::Permute`]: for each new position in turn, the old position of the
/// row now there.
pub struct Order<'a, K> {
    ops: &'a [Op<K>],
    len: usize,
    next: usize,
}

impl<K> Clone for Order<'_, K> {
    fn clone(&self) -> Self {
        Self { ops: self.ops, len: self.len, next: self.next }
    }
}

impl<K> Iterator for Order<'_, K> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.next == self.len {
            return None;
        }
        let Op::Order(pair) = &self.ops[self.next / ORDER_PER_OP] else {
            unreachable!("a permutation's order is made of `Order` operations")
        };
        let old = pair[self.next % ORDER_PER_OP] as usize;
        self.next += 1;
        Some(old)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.len - self.next;
        (left, Some(left))
    }
}

impl<K> ExactSizeIterator for Order<'_, K> {}
impl<K> FusedIterator for Order<'_, K> {}

impl<K> PartialEq for Order<'_, K> {
    fn eq(&self, other: &Self) -> bool {
        Iterator::eq(self.clone(), other.clone())
    }
}

impl<K> Eq for Order<'_, K> {}

impl<K> fmt::Debug for Order<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}
