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
//! threads cannot disturb them. While a thread panics its allocations always succeed, so that a
//! call which panics because an allocation was refused unwinds instead of aborting (the panic
//! itself allocates its message).
//!
//! [`sweep_try`], [`sweep_plain`] and [`sweep_never_fails`] run an operation once per allocation
//! it makes, with that allocation (and every later one) refused; the [`panics`] module does the
//! same with injected panics. The [`keys`] module has the tests' deliberately wrong `Key`
//! implementations, a key whose ordering is a counted call, and the workloads' random
//! [`Stream`](keys::Stream). The [`mirror`] module keeps the change-event tests' mirrors. With the feature `proptest`, the `model` module has the model
//! tests' proptest configuration.

pub mod keys;
pub mod mirror;
#[cfg(feature = "proptest")]
pub mod model;
pub mod panics;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};
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

/// Whether this thread's next allocation must fail; counts it down otherwise. Never while the
/// thread panics: the panic's own message and payload must be had.
fn refuse() -> bool {
    if std::thread::panicking() {
        return false;
    }
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

/// The most allocations an operation given to [`sweep_try`] or [`sweep_plain`] may make.
const SWEEP_LIMIT: usize = 100_000;

/// Runs the fallible `op` on a value made by `make` once for every `n` = 0, 1, 2, ..., with
/// every allocation after the first `n` refused ([`failing_after`]), until it returns `Ok`.
/// Every refusal must be `refused` (the "allocation failed" error) and leave the value as it
/// was: `snapshot` (its contents: keys, values, order) is compared before and after. After
/// every run `check` inspects the value (the invariant checkers). Returns the number of
/// refused runs: the allocations `op` makes before it can succeed.
///
/// Meaningful only in a binary that installs [`CountingAlloc`]; a test should assert that the
/// count is not zero for an operation that allocates.
///
/// # Panics
///
/// If `op` fails otherwise, changes the value when it fails, panics, or never succeeds.
pub fn sweep_try<S, T: PartialEq + Debug, R, E: PartialEq + Debug>(
    mut make: impl FnMut() -> S,
    mut op: impl FnMut(&mut S) -> Result<R, E>,
    refused: &E,
    mut snapshot: impl FnMut(&S) -> T,
    mut check: impl FnMut(&S),
) -> usize {
    for n in 0..SWEEP_LIMIT {
        let mut value = make();
        let before = snapshot(&value);
        let result = failing_after(n, || op(&mut value));
        check(&value);
        match result {
            Ok(_) => return n,
            Err(error) => {
                assert_eq!(&error, refused, "after {n} allocations");
                assert_eq!(snapshot(&value), before, "a refusal after {n} allocations changed it");
            }
        }
    }
    panic!("the operation never succeeded")
}

/// Runs the infallible `op` on a value made by `make` once for every `n` = 0, 1, 2, ..., with
/// every allocation after the first `n` refused ([`failing_after`]), until it completes without
/// a panic. A panic must carry a message containing `message` (it came from the refused
/// allocation, not from something else), and `check` then inspects the value: consistent, and
/// whatever else the caller expects. Returns the number of runs that panicked.
///
/// An allocation that the code under test does not ask for fallibly aborts the process rather
/// than panicking (that is what `Vec::push` does when memory cannot be had): such an abort is a
/// finding.
///
/// # Panics
///
/// If a panic has another message, `check` panics, or `op` never completes.
pub fn sweep_plain<S, R>(
    mut make: impl FnMut() -> S,
    mut op: impl FnMut(&mut S) -> R,
    message: &str,
    mut check: impl FnMut(&S, bool),
) -> usize {
    for n in 0..SWEEP_LIMIT {
        let mut value = make();
        let result = panics::expecting_panics(|| {
            catch_unwind(AssertUnwindSafe(|| failing_after(n, || drop(op(&mut value)))))
        });
        if let Err(payload) = &result {
            let text = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("");
            assert!(text.contains(message), "after {n} allocations: unexpected panic {text:?}");
        }
        check(&value, result.is_err());
        if result.is_ok() {
            return n;
        }
    }
    panic!("the operation never completed")
}

/// Runs `op`, which keeps what it cannot change when memory cannot be had (neither fails nor
/// panics: `shrink_to_fit`), on a value made by `make` once for every `n` from 0 to the number
/// of allocations it makes unhindered, with every allocation after the first `n` refused
/// ([`failing_after`]). After every run `check` inspects the value and `snapshot` (its
/// contents: keys, values, order) must be what it was before. Returns the number of
/// allocations.
///
/// # Panics
///
/// If `op` panics, `check` panics, or a run changes the value's contents.
pub fn sweep_never_fails<S, T: PartialEq + Debug, R>(
    mut make: impl FnMut() -> S,
    mut op: impl FnMut(&mut S) -> R,
    mut snapshot: impl FnMut(&S) -> T,
    mut check: impl FnMut(&S),
) -> usize {
    let mut probe = make();
    let ((), points) = allocations_during(|| drop(op(&mut probe)));
    for n in 0..=points {
        let mut value = make();
        let before = snapshot(&value);
        failing_after(n, || drop(op(&mut value)));
        check(&value);
        assert_eq!(snapshot(&value), before, "a run with {n} allocations changed it");
    }
    points
}

/// What a plain call's panic says when memory cannot be had: the message [`sweep_plain`] is
/// given.
pub const REFUSED: &str = "memory allocation failed";

/// Prints how far the sweep `name` went (seen with `--nocapture`) and returns `points`, for an
/// assertion on it.
pub fn reached(name: &str, points: usize) -> usize {
    println!("{name}: refused at each of {points} allocation points in turn");
    points
}

/// Bytes currently allocated through [`CountingAlloc`] by the whole process.
///
/// Process-wide, so not for tests: a test binary runs its tests side by side, and every
/// thread's allocations move it. Tests measure their own thread ([`measure`]); the benchmarks
/// read this.
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
