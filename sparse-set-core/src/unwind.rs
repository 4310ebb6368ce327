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
