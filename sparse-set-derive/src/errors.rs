//! The error collector: every user error found while reading and checking the input, reported
//! together so that a user sees all problems at once, each at its own span.

/// Every error found so far; reported together, each at its own span.
#[derive(Default)]
pub(crate) struct Errors(Vec<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    /// The model, if it was read (`Ok`) and nothing was reported; otherwise `Err` with every
    /// error in the order found, followed by the one that stopped the reading, if any.
    pub(crate) fn finish<T>(mut self, model: syn::Result<T>) -> syn::Result<T> {
        let last = match model {
            Err(stop) => stop,
            Ok(model) => match self.0.pop() {
                None => return Ok(model),
                Some(last) => last,
            },
        };
        // Combined back to front, so that the messages keep the order they were found in.
        Err(self.0.into_iter().rev().fold(last, |later, mut earlier| {
            earlier.combine(later);
            earlier
        }))
    }
}
