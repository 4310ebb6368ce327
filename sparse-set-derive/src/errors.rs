//! The error collector: every user error found while reading and checking the input, reported
//! together so that a user sees all problems at once, each at its own span.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::ToTokens;

/// The fields of `input` if it is a struct. For an enum or a union, the error that stops the
/// reading, at its `enum` or `union` keyword: "`{derive}` cannot be derived for enums:
/// {enums}" (unions alike).
pub(crate) fn struct_fields<'a>(
    input: &'a syn::DeriveInput,
    derive: &str,
    enums: &str,
    unions: &str,
) -> syn::Result<&'a syn::Fields> {
    match &input.data {
        syn::Data::Struct(data) => Ok(&data.fields),
        syn::Data::Enum(data) => Err(syn::Error::new(
            data.enum_token.span,
            format!("`{derive}` cannot be derived for enums: {enums}"),
        )),
        syn::Data::Union(data) => Err(syn::Error::new(
            data.union_token.span,
            format!("`{derive}` cannot be derived for unions: {unions}"),
        )),
    }
}

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

/// `tokens` with every span placed at `span`, groups included, each keeping where its names
/// resolve: where the compiler reports an error in generated code that names the user's tokens
/// (a type, a path).
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            // `located_at`: each token keeps where its name resolves (a path passed through
            // a `macro_rules!` still finds its crate), and only its place in the source moves.
            if let TokenTree::Group(group) = &tree {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(group.span().located_at(span));
                tree = TokenTree::Group(inner);
            } else {
                tree.set_span(tree.span().located_at(span));
            }
            tree.into_token_stream()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::Errors;

    fn error(message: &str) -> syn::Error {
        syn::Error::new(Span::call_site(), message)
    }

    fn messages<T>(result: syn::Result<T>) -> Vec<String> {
        match result {
            Ok(_) => Vec::new(),
            Err(error) => error.into_iter().map(|error| error.to_string()).collect(),
        }
    }

    #[test]
    fn nothing_reported_gives_the_model() {
        let errors = Errors::default();
        assert_eq!(errors.finish(Ok(7)).ok(), Some(7));
    }

    #[test]
    fn every_error_is_reported_in_the_order_found() {
        let mut errors = Errors::default();
        errors.push(error("first"));
        errors.push(error("second"));
        errors.push(error("third"));
        assert_eq!(messages(errors.finish(Ok(7))), ["first", "second", "third"]);
    }

    #[test]
    fn the_error_that_stopped_the_reading_comes_last() {
        let mut errors = Errors::default();
        errors.push(error("first"));
        errors.push(error("second"));
        assert_eq!(messages(errors.finish::<()>(Err(error("stop")))), ["first", "second", "stop"]);
    }

    #[test]
    fn the_error_that_stopped_the_reading_alone() {
        let errors = Errors::default();
        assert_eq!(messages(errors.finish::<()>(Err(error("stop")))), ["stop"]);
    }
}
