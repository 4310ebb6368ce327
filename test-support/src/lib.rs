//! Helpers shared by the tests and benchmarks of the sparse-soa workspace. Not published.
//!
//! [`CountingAlloc`] is the one counting allocator of the workspace. A test binary installs it
//! with
//!
//! ```
//! use sparse_soa_test_support::{CountingAlloc, measure};
//!
//! #[global_allocator]
//! static GLOBAL: CountingAlloc = CountingAlloc;
//!
//! # fn main() {
//! let (bytes, usage) = measure(|| vec![0_u8; 16]);
//! assert_eq!((usage.calls, usage.live()), (1, 16));
//! # drop(bytes);
//! # }
//! ```
//!
//! and then asks what a closure allocated ([`measure`], [`allocations_during`]), makes every
//! allocation of a closure fail ([`failing_allocations`]) or every one after the first `n`
//! ([`failing_after`]), or reads the bytes the whole process holds ([`live_bytes`]).
//!
//! Per-closure numbers count only the calling thread's allocations, so the test harness's other
//! threads cannot disturb them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A global allocator that forwards to [`System`], counting per thread (calls, bytes allocated,
/// bytes freed) and for the whole process (bytes live), and that refuses allocations on request.
pub struct CountingAlloc;

thread_local! {
    static CALLS: Cell<usize> = const { Cell::new(0) };
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
    static FREED: Cell<usize> = const { Cell::new(0) };
    /// `Some(n)`: the next `n` allocations succeed, every later one fails.
    static FAIL_AFTER: Cell<Option<usize>> = const { Cell::new(None) };
}

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Whether this thread's next allocation must fail; counts it down otherwise.
fn refuse() -> bool {
    // `try_with`: the allocator may run while thread-locals are being torn down.
    FAIL_AFTER
        .try_with(|fail| match fail.get() {
            None => false,
            Some(0) => true,
            Some(n) => {
                fail.set(Some(n - 1));
                false
            }
        })
        .unwrap_or(false)
}

fn record(allocated: usize, freed: usize) {
    let _ = CALLS.try_with(|calls| calls.set(calls.get() + usize::from(allocated > 0)));
    let _ = ALLOCATED.try_with(|total| total.set(total.get() + allocated));
    let _ = FREED.try_with(|total| total.set(total.get() + freed));
}

/// Runs `allocate` unless this thread's allocations are to fail; counts `size` bytes allocated
/// and `freed` bytes freed if it returns memory.
fn counted(size: usize, freed: usize, allocate: impl FnOnce() -> *mut u8) -> *mut u8 {
    if refuse() {
        return std::ptr::null_mut();
    }
    let ptr = allocate();
    if !ptr.is_null() {
        record(size, freed);
        LIVE.fetch_sub(freed, Ordering::Relaxed);
        LIVE.fetch_add(size, Ordering::Relaxed);
    }
    ptr
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, or refuses
// with a null pointer, which the `GlobalAlloc` contract allows. The counters are thread-locals
// with const initialisers and an atomic, none of which allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        counted(layout.size(), 0, || unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        counted(layout.size(), 0, || unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees: `ptr` came from `System` through us.
        unsafe { System.dealloc(ptr, layout) };
        record(0, layout.size());
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        counted(new_size, layout.size(), || unsafe { System.realloc(ptr, layout, new_size) })
    }
}

/// What a closure allocated on the calling thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Bytes allocated, counting a reallocation's new size.
    pub allocated: usize,
    /// Bytes freed, counting a reallocation's old size.
    pub freed: usize,
    /// Allocation and reallocation calls.
    pub calls: usize,
}

impl Usage {
    /// Bytes still held at the end: allocated minus freed.
    #[must_use]
    pub fn live(self) -> usize {
        self.allocated - self.freed
    }
}

fn snapshot() -> Usage {
    Usage {
        allocated: ALLOCATED.with(Cell::get),
        freed: FREED.with(Cell::get),
        calls: CALLS.with(Cell::get),
    }
}

/// Runs `f` and reports what it allocated on this thread. Meaningful only in a binary that
/// installs [`CountingAlloc`] as its global allocator (otherwise every count is zero).
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Usage) {
    let before = snapshot();
    let value = f();
    let after = snapshot();
    let usage = Usage {
        allocated: after.allocated - before.allocated,
        freed: after.freed - before.freed,
        calls: after.calls - before.calls,
    };
    (value, usage)
}

/// Runs `f` and reports how many allocation calls it made on this thread.
pub fn allocations_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let (value, usage) = measure(f);
    (value, usage.calls)
}

/// Runs `f` with every allocation on this thread failing.
pub fn failing_allocations<T>(f: impl FnOnce() -> T) -> T {
    failing_after(0, f)
}

/// Runs `f` letting the first `n` allocations on this thread succeed and failing every later
/// one; restores normal allocation afterwards, also if `f` panics.
pub fn failing_after<T>(n: usize, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FAIL_AFTER.with(|fail| fail.set(self.0));
        }
    }
    let _restore = Restore(FAIL_AFTER.with(|fail| fail.replace(Some(n))));
    f()
}

/// Bytes currently allocated through [`CountingAlloc`] by the whole process.
#[must_use]
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static GLOBAL: CountingAlloc = CountingAlloc;

    #[test]
    fn counts_this_threads_allocations() {
        let (boxed, usage) = measure(|| Box::new([0_u64; 4]));
        assert_eq!(usage, Usage { allocated: 32, freed: 0, calls: 1 });
        let ((), usage) = measure(|| drop(boxed));
        assert_eq!(usage, Usage { allocated: 0, freed: 32, calls: 0 });
    }

    #[test]
    fn fails_every_allocation_after_the_first_n_then_recovers() {
        let mut results = [false; 4];
        failing_after(2, || {
            for result in &mut results {
                *result = Vec::<u8>::new().try_reserve_exact(8).is_ok();
            }
        });
        assert_eq!(results, [true, true, false, false]);
        assert!(Vec::<u8>::new().try_reserve_exact(8).is_ok());
        assert!(failing_allocations(|| Vec::<u8>::new().try_reserve_exact(8).is_err()));
    }
}
