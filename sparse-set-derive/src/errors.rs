//! The error collector: every user error found while reading and checking the input, reported
//! together so that a user sees all problems at once, each at its own span.

/// Every error found so far; reported together, each at its own span.
#[derive(Default)]
pub(crate) struct Errors(Vec<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    /// `Err` with every error combined, if there is any.
    pub(crate) fn finish(self) -> syn::Result<()> {
        let mut errors = self.0.into_iter();
        let Some(mut first) = errors.next() else { return Ok(()) };
        for error in errors {
            first.combine(error);
        }
        Err(first)
    }
}
