//! Steps that a panic must not cut short: [`then`] runs a second step after the first, also
//! while the first one's panic unwinds. What keeps several parts in step when code of the
//! user's (an observer's hook) panics between them: the elements of a tuple of observers, the
//! members of a group moving one row.
//!
//! # Invariant
//!
//! `rest` runs exactly once, after `first`, whether `first` returns or panics. A second panic,
//! from `rest` while `first`'s unwinds, aborts the process, as a destructor that panics while
//! unwinding does.

/// Runs `first`, then `rest`, on `state`, also while unwinding if `first` panics (see the
/// module docs).
#[inline]
pub(crate) fn then<S: ?Sized>(
    state: &mut S,
    first: impl FnOnce(&mut S),
    rest: impl FnOnce(&mut S),
) {
    /// Dropped while unwinding, it runs the rest.
    struct Rest<'s, S: ?Sized, F: FnOnce(&mut S)> {
        state: &'s mut S,
        rest: Option<F>,
    }

    impl<S: ?Sized, F: FnOnce(&mut S)> Drop for Rest<'_, S, F> {
        fn drop(&mut self) {
            if let Some(rest) = self.rest.take() {
                rest(self.state);
            }
        }
    }

    let guard = Rest { state, rest: Some(rest) };
    first(guard.state);
    // Taken before it runs: a rest that panics on its own is not run again by the drop.
    let mut guard = guard;
    if let Some(rest) = guard.rest.take() {
        rest(guard.state);
    }
}

/// What `drain` does first in a storage with an observer: `report(state, index)` for every row
/// `0..len`, front to back, before the rows are handed out, so that an iterator leaked with
/// `mem::forget` leaves the observer in step with the storage, which `drain` empties at once. If
/// a report panics, the rows after it are reported while unwinding and `empty(state)` empties
/// the storage then (dropping the values the drain would have handed out): every row reported
/// once and the storage empty, as after a drain run to its end.
#[doc(hidden)]
#[inline]
pub fn report_drain<S: ?Sized>(
    state: &mut S,
    len: usize,
    report: impl FnMut(&mut S, usize),
    empty: impl FnOnce(&mut S),
) {
    /// Reports the rows from `*next` on.
    fn report_from<S: ?Sized>(
        state: &mut S,
        len: usize,
        next: &mut usize,
        report: &mut impl FnMut(&mut S, usize),
    ) {
        while *next < len {
            let index = *next;
            // Counted before it is reported: a report that panics is not made twice.
            *next += 1;
            report(state, index);
        }
    }

    let mut all = (state, report, 0, false);
    then(
        &mut all,
        |(state, report, next, done)| {
            report_from(*state, len, next, report);
            *done = true;
        },
        |(state, report, next, done)| {
            if !*done {
                report_from(*state, len, next, report);
                empty(*state);
            }
        },
    );
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use std::cell::Cell;
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::vec::Vec;

    use super::then;

    #[test]
    fn the_rest_runs_once_whether_the_first_step_returns_or_panics() {
        let mut steps = Vec::new();
        then(&mut steps, |steps| steps.push("first"), |steps| steps.push("rest"));
        assert_eq!(steps, ["first", "rest"]);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            then(
                &mut steps,
                |steps| {
                    steps.push("first");
                    panic!("first");
                },
                |steps| steps.push("rest"),
            );
        }));
        assert!(caught.is_err());
        assert_eq!(steps, ["first", "rest", "first", "rest"]);
        // A rest that panics on its own is not run again by the drop.
        let runs = Cell::new(0);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            then(
                &mut (),
                |()| {},
                |()| {
                    runs.set(runs.get() + 1);
                    panic!("rest");
                },
            );
        }));
        assert!(caught.is_err());
        assert_eq!(runs.get(), 1);
    }
}
