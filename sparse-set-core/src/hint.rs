//! Hints to the processor that change no value: [`prefetch`] starts a load of a value whose
//! cache line the code after it will need, so that several independent misses (one sparse cell
//! in each storage of a row) overlap instead of following one another.
//!
//! # Invariant
//!
//! A hint only reads, through a shared reference, and returns nothing: its signature keeps the
//! invariant, so no test checks it. The callers' tests check that a prefetched lookup answers
//! as before (the world's `prefetch` test).

/// Reads `value` and throws it away, in a way the compiler keeps: the processor starts the load
/// here and goes on with the instructions after it while the load waits for memory, so a miss
/// on `value`'s cache line overlaps with the misses of the loads issued just after it.
///
/// Portable and safe (a plain load, not an architecture's prefetch instruction); the processor
/// waits for it only if its reorder window fills before the line arrives, by which time the
/// later loads are on their way too.
#[inline(always)]
#[expect(clippy::inline_always, reason = "one load, on every row's path")]
pub(crate) fn prefetch<T: Copy>(value: &T) {
    core::hint::black_box(*value);
}
