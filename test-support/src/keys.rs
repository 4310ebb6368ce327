//! Keys for the tests: ones that implement [`Key`] wrongly on purpose (see "Implementing `Key`
//! wrongly" in the `Key` docs), one whose ordering is a counted call, and [`Stream`], the
//! deterministic random stream the workloads draw from.

use std::cell::Cell;
use std::cmp::Ordering;

use sparse_set_core::Key;

use crate::panics::tick;

/// Claims `SLOT_IS_KEY`, but `Liar(2k)` and `Liar(2k + 1)` share slot `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Liar(pub u32);

impl Key for Liar {
    const SLOT_IS_KEY: bool = true;

    fn sparse_index(self) -> usize {
        (self.0 / 2) as usize
    }
}

/// Claims `SLOT_AND_VERSION_ARE_KEY`, but every key has version 1, and `Twin(2k)` and
/// `Twin(2k + 1)` share slot `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Twin(pub u32);

impl Key for Twin {
    const SLOT_AND_VERSION_ARE_KEY: bool = true;

    fn sparse_index(self) -> usize {
        (self.0 / 2) as usize
    }

    fn version(self) -> u32 {
        1
    }
}

thread_local! {
    /// Counts the calls of `Drifting::sparse_index`.
    static DRIFT: Cell<usize> = const { Cell::new(0) };
}

/// A key whose slot is not a function of the key: it drifts over three slots from one call to
/// the next (a thread-local counter). `SLOT` and `VERSION` are what it claims besides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Drifting<const SLOT: bool, const VERSION: bool>(pub u32);

impl<const SLOT: bool, const VERSION: bool> Key for Drifting<SLOT, VERSION> {
    const SLOT_IS_KEY: bool = SLOT;
    const SLOT_AND_VERSION_ARE_KEY: bool = VERSION;

    fn sparse_index(self) -> usize {
        let drift = DRIFT.with(|drift| drift.replace(drift.get() + 1));
        self.0 as usize + drift % 3
    }
}

/// A key whose ordering is a counted call ([`tick`]): `sort_keys` and the sets' sorts then
/// panic at each of their comparisons in turn in a [`sweep`](crate::panics::sweep).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OrdKey(pub u32);

impl Key for OrdKey {
    const SLOT_IS_KEY: bool = true;

    fn sparse_index(self) -> usize {
        self.0 as usize
    }
}

impl Ord for OrdKey {
    fn cmp(&self, other: &Self) -> Ordering {
        tick("a key comparison");
        self.0.cmp(&other.0)
    }
}

impl PartialOrd for OrdKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A deterministic stream of well-mixed values (splitmix64), seeded by its field.
pub struct Stream(pub u64);

impl Stream {
    /// The next value, below `below` (not zero).
    pub fn next_u64(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % below
    }

    /// The next value, below `below` (not zero).
    pub fn next(&mut self, below: u32) -> u32 {
        self.next_u64(u64::from(below)) as u32
    }

    /// The next position, below `below` (not zero).
    pub fn index(&mut self, below: usize) -> usize {
        self.next_u64(below as u64) as usize
    }
}
