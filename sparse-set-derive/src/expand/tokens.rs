//! Token helpers every generated artifact shares: doc attributes, where clauses with the
//! fields' bounds, the key and dense types as users wrote them, and zipped column iterators.

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{GenericParam, Type, WhereClause};

use crate::ast::Input;
use crate::names::type_text;

/// `#[doc = "..."]`.
pub(super) fn doc(text: &str) -> TokenStream {
    quote!(#[doc = #text])
}

/// The user's where clause with `extra` predicates appended.
pub(super) fn where_with(clause: Option<&WhereClause>, extra: &[TokenStream]) -> TokenStream {
    let existing: Vec<TokenStream> = clause
        .map(|clause| clause.predicates.iter().map(ToTokens::to_token_stream).collect())
        .unwrap_or_default();
    if existing.is_empty() && extra.is_empty() {
        return TokenStream::new();
    }
    quote!(where #(#existing,)* #(#extra,)*)
}

/// One predicate per field: `Ty: Trait`. A field type that mentions none of the struct's generic
/// parameters gets `for<'__b> Ty: Trait` instead, which the compiler checks where the impl is
/// used rather than where it is written: the impl then simply does not apply when the field type
/// lacks the trait, instead of failing to compile. The span is the field's, so an unmet bound is
/// reported on the field.
pub(super) fn field_bounds(input: &Input<'_>, bound: &TokenStream) -> Vec<TokenStream> {
    let mut seen: Vec<String> = Vec::new();
    let mut predicates = Vec::new();
    for field in &input.fields {
        let ty = field.ty;
        let text = ty.to_token_stream().to_string();
        if seen.contains(&text) {
            continue;
        }
        seen.push(text);
        let span = syn::spanned::Spanned::span(ty);
        if mentions_generics(input, ty) {
            predicates.push(quote::quote_spanned!(span=> #ty: #bound));
        } else {
            predicates.push(quote::quote_spanned!(span=> for<'__b> #ty: #bound));
        }
    }
    predicates
}

/// Whether `ty` names one of the struct's generic parameters.
fn mentions_generics(input: &Input<'_>, ty: &Type) -> bool {
    let mut idents = Vec::new();
    let mut lifetimes = Vec::new();
    for param in &input.generics.params {
        match param {
            GenericParam::Type(param) => idents.push(param.ident.to_string()),
            GenericParam::Const(param) => idents.push(param.ident.to_string()),
            GenericParam::Lifetime(param) => lifetimes.push(param.lifetime.ident.to_string()),
        }
    }
    if idents.is_empty() && lifetimes.is_empty() {
        return false;
    }
    scan(ty.to_token_stream(), &idents, &lifetimes)
}

/// The key type as users wrote it, for docs.
pub(super) fn key_text(input: &Input<'_>) -> String {
    input.attrs.key.as_ref().map_or_else(|| String::from("u32"), |key| type_text(&key.value))
}

/// The dense width as users wrote it, for docs.
pub(super) fn dense_text(input: &Input<'_>) -> String {
    input.attrs.dense.as_ref().map_or_else(|| String::from("u32"), |dense| dense.value.to_string())
}

/// Whether `tokens` contain one of `idents`, or one of `lifetimes` after an apostrophe.
fn scan(tokens: TokenStream, idents: &[String], lifetimes: &[String]) -> bool {
    let mut after_apostrophe = false;
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => {
                let text = ident.to_string();
                let list = if after_apostrophe { lifetimes } else { idents };
                if list.contains(&text) {
                    return true;
                }
                after_apostrophe = false;
            }
            TokenTree::Punct(punct) => after_apostrophe = punct.as_char() == '\'',
            TokenTree::Group(group) => {
                if scan(group.stream(), idents, lifetimes) {
                    return true;
                }
                after_apostrophe = false;
            }
            TokenTree::Literal(_) => after_apostrophe = false,
        }
    }
    false
}

/// `zip(zip(keys, a), b)...`: the value.
pub(super) fn zip_expr(
    keys: TokenStream,
    columns: impl Iterator<Item = TokenStream>,
) -> TokenStream {
    columns.fold(keys, |zipped, column| quote!(::core::iter::Iterator::zip(#zipped, #column)))
}

#[cfg(test)]
mod tests {
    use quote::quote;
    use syn::{DeriveInput, Type, parse_quote};

    use super::{mentions_generics, scan};
    use crate::ast::Input;
    use crate::errors::Errors;

    fn strings(names: &[&str]) -> Vec<String> {
        names.iter().map(|&name| String::from(name)).collect()
    }

    #[test]
    fn scan_finds_idents_at_any_depth() {
        let idents = strings(&["T", "N"]);
        assert!(scan(quote!(T), &idents, &[]));
        assert!(scan(quote!(Vec<T>), &idents, &[]));
        assert!(scan(quote!(Option<(u8, Box<[u8; N]>)>), &idents, &[]));
        assert!(scan(quote!(<T as Trait>::Output), &idents, &[]));
        assert!(!scan(quote!(Vec<Tee>), &idents, &[]));
        assert!(!scan(quote!(u32), &idents, &[]));
    }

    #[test]
    fn scan_finds_lifetimes_after_an_apostrophe_only() {
        let lifetimes = strings(&["a"]);
        assert!(scan(quote!(&'a str), &[], &lifetimes));
        assert!(scan(quote!(Cow<'a, [u8]>), &[], &lifetimes));
        assert!(scan(quote!(Box<dyn Fn(&'a u8)>), &[], &lifetimes));
        // A type named like the lifetime, and a lifetime named like a type, are not matches.
        assert!(!scan(quote!(a), &[], &lifetimes));
        assert!(!scan(quote!(&'b a), &[], &lifetimes));
        assert!(!scan(quote!(&'static str), &[], &lifetimes));
        assert!(!scan(quote!(&'a str), &strings(&["a"]), &[]));
    }

    #[test]
    fn mentions_generics_of_the_struct() {
        let input: DeriveInput = parse_quote! {
            struct Thing<'s, T, const N: usize> { a: &'s T, b: [u8; N] }
        };
        let mut errors = Errors::default();
        let model = Input::from_syn(&input, &mut errors);
        let model = errors.finish(model).expect("the sample struct derives");
        let mentions = |ty: Type| mentions_generics(&model, &ty);
        assert!(mentions(parse_quote!(&'s str)));
        assert!(mentions(parse_quote!(Vec<T>)));
        assert!(mentions(parse_quote!([u8; N])));
        assert!(!mentions(parse_quote!(u32)));
        assert!(!mentions(parse_quote!(&'static str)));
        assert!(!mentions(parse_quote!(Tee)));
    }

    #[test]
    fn a_struct_without_generics_mentions_none() {
        let input: DeriveInput = parse_quote! {
            struct Plain { t: T }
        };
        let mut errors = Errors::default();
        let model = Input::from_syn(&input, &mut errors);
        let model = errors.finish(model).expect("the sample struct derives");
        assert!(!mentions_generics(&model, &parse_quote!(T)));
    }
}
