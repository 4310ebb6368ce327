//! Panic injection: a value whose `Clone` and `Drop` are counted calls, comparisons and
//! iterator steps that are counted calls too, and [`sweep`], which runs an operation once with
//! each of its counted calls panicking in turn.
//!
//! ```
//! use sparse_soa_test_support::panics::{Tracked, live, sweep};
//!
//! // An operation that clones two values and drops one: three counted calls.
//! let calls = sweep(
//!     || vec![Tracked::new(1), Tracked::new(2)],
//!     |values| {
//!         let copy = values.clone();
//!         values.pop();
//!         drop(copy);
//!     },
//!     |values, _panicked| assert!(values.len() <= 2),
//! );
//! assert_eq!(calls, 5); // two clones, the drop of the value popped, two drops of the copies
//! assert_eq!(live(), 0);
//! ```
//!
//! Every counter is per thread, so tests running side by side do not disturb each other.

use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

thread_local! {
    /// Live `Tracked` values.
    static LIVE: Cell<usize> = const { Cell::new(0) };
    /// The ids of every `Tracked` value dropped so far.
    static DROPPED: RefCell<BTreeSet<u64>> = const { RefCell::new(BTreeSet::new()) };
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
    /// Drops of a value that was dropped already.
    static DROPPED_TWICE: Cell<usize> = const { Cell::new(0) };
    /// Counted calls since the last reset.
    static CALLS: Cell<usize> = const { Cell::new(0) };
    /// `Some(n)`: the `n`-th counted call from now panics (once).
    static FUSE: Cell<Option<usize>> = const { Cell::new(None) };
    /// Whether this thread runs an operation whose panics a sweep expects.
    static EXPECTING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the panics it raises on this thread kept quiet: the process's panic hook (set
/// once, wrapping the one it replaces) prints nothing for them, and prints every other panic as
/// before. A sweep raises thousands of expected panics; their messages would bury the one that
/// matters.
pub(crate) fn expecting_panics<T>(f: impl FnOnce() -> T) -> T {
    /// Puts the flag back, also when `f` panics.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            EXPECTING.set(self.0);
        }
    }
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !EXPECTING.try_with(Cell::get).unwrap_or(false) {
                previous(info);
            }
        }));
    });
    let _restore = Restore(EXPECTING.replace(true));
    f()
}

/// Counts one call (a clone, a drop, a comparison, an iterator step, ...) and panics if it is
/// the call the current [`sweep`] run injects a panic into.
///
/// # Panics
///
/// When the fuse set by [`sweep`] burns down to this call.
pub fn tick(what: &str) {
    CALLS.with(|calls| calls.set(calls.get() + 1));
    match FUSE.get() {
        Some(1) => {
            FUSE.set(None);
            panic!("injected panic in {what}");
        }
        Some(n) => FUSE.set(Some(n - 1)),
        None => {}
    }
}

/// `a.cmp(b)`, as a counted call: a comparator that panics when the sweep says so.
///
/// # Panics
///
/// As [`tick`].
pub fn compare<T: Ord + ?Sized>(a: &T, b: &T) -> Ordering {
    tick("a comparison");
    a.cmp(b)
}

/// The number of [`Tracked`] values alive on this thread.
#[must_use]
pub fn live() -> usize {
    LIVE.with(Cell::get)
}

/// How many drops of a [`Tracked`] value on this thread were second drops (each also panics).
#[must_use]
pub fn dropped_twice() -> usize {
    DROPPED_TWICE.with(Cell::get)
}

/// A value with a unique id and a `label` (what it stands for: tests label a value with its
/// key), counted while alive. Its `Clone` and `Drop` are counted calls ([`tick`]), so either
/// can be the one that panics; a second drop of one value fails the test.
///
/// Equal, ordered and hashed by label.
pub struct Tracked {
    id: u64,
    /// What the value stands for.
    pub label: u32,
}

impl Tracked {
    /// A new value, not a counted call.
    #[must_use]
    pub fn new(label: u32) -> Self {
        LIVE.with(|live| live.set(live.get() + 1));
        let id = NEXT_ID.with(|next| next.replace(next.get() + 1));
        Tracked { id, label }
    }
}

impl Clone for Tracked {
    fn clone(&self) -> Self {
        tick("a clone");
        Tracked::new(self.label)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let first = DROPPED.with(|dropped| dropped.borrow_mut().insert(self.id));
        if !first {
            // Counted before the assertion, so that a caller catching the panic still sees it.
            DROPPED_TWICE.with(|twice| twice.set(twice.get() + 1));
        }
        assert!(first, "value {} (label {}) dropped twice", self.id, self.label);
        LIVE.with(|live| live.set(live.get() - 1));
        // A drop while unwinding must not panic (that would abort): it is not counted.
        if !std::thread::panicking() {
            tick("a drop");
        }
    }
}

impl fmt::Debug for Tracked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tracked({}#{})", self.label, self.id)
    }
}

impl PartialEq for Tracked {
    fn eq(&self, other: &Self) -> bool {
        self.label == other.label
    }
}

impl Eq for Tracked {}

/// A value whose `Drop` panics when it was made with `true`: a drop the caller cannot prevent
/// (a replaced or despawned value) that unwinds through the storage.
pub struct Bomb(pub bool);

impl Drop for Bomb {
    fn drop(&mut self) {
        assert!(!self.0, "a value's drop panicked");
    }
}

/// An iterator whose every step is a counted call ([`tick`]): for sweeping the calls that take
/// an iterator (`extend`, `from_iter`, ...).
pub struct Ticking<I>(pub I);

impl<I: Iterator> Iterator for Ticking<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        tick("an iterator step");
        self.0.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

/// Prints how far the sweep `name` went (seen with `--nocapture`) and returns `calls`, for an
/// assertion on it.
pub fn reached(name: &str, calls: usize) -> usize {
    println!("{name}: every one of {calls} calls panicked in turn");
    calls
}

/// Runs `op` on a value made by `make`: first once to count its calls ([`tick`]), then once per
/// `n` from 1 to that count on a fresh value with the `n`-th call panicking. After every run
/// `check(&value, panicked)` inspects the value (the invariant checker, the columns' lengths,
/// each value still under its key), then the value is dropped and every [`Tracked`] value made
/// since the run began must be gone: nothing leaks, and nothing was dropped twice (a second drop
/// fails at once). Returns the count, so a test can say how far it swept.
///
/// `make` and `check` are not counted. The operation must be deterministic: each run makes the
/// same calls.
///
/// # Panics
///
/// If a run with `n` no larger than the count does not panic, or `check` panics, or values
/// leak.
pub fn sweep<S>(
    mut make: impl FnMut() -> S,
    mut op: impl FnMut(&mut S),
    mut check: impl FnMut(&S, bool),
) -> usize {
    let calls = run(&mut make, &mut op, &mut check, None);
    for n in 1..=calls {
        run(&mut make, &mut op, &mut check, Some(n));
    }
    calls
}

/// One run of [`sweep`]: returns the number of counted calls `op` made.
fn run<S>(
    make: &mut impl FnMut() -> S,
    op: &mut impl FnMut(&mut S),
    check: &mut impl FnMut(&S, bool),
    fuse: Option<usize>,
) -> usize {
    let before = live();
    let mut value = make();
    CALLS.set(0);
    FUSE.set(fuse);
    let result = expecting_panics(|| catch_unwind(AssertUnwindSafe(|| op(&mut value))));
    FUSE.set(None);
    let calls = CALLS.get();
    match (fuse, &result) {
        (None, Err(_)) => panic!("the operation panics without an injected panic"),
        (Some(n), Ok(())) => panic!("call {n} was not reached: the operation is not deterministic"),
        _ => {}
    }
    check(&value, result.is_err());
    drop(value);
    assert_eq!(live(), before, "values leaked (injected panic at call {fuse:?})");
    calls
}
