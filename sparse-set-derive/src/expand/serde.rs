//! Serde: for a struct marked `#[sparse_soa(serde)]`, one invocation of the runtime's
//! `serde_impls!` macro with the storage's types. With `sparse-soa`'s `serde` feature it emits
//! `Serialize` and `Deserialize` for `{Name}Soa` (in the format of a `SparseMap` of the key and
//! the struct; the rows and their validation are the runtime's), and the runtime's `Restore` and
//! `Rebuild`; without it, a compile error at the attribute saying to enable the feature. The
//! derive cannot see that feature; the runtime's macro can. For an unmarked struct, with the
//! feature, the macro emits impls that cannot be used, so that saving such a storage says to add
//! the attribute; without the feature, nothing.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};

use crate::ast::Input;
use crate::errors;

pub(super) fn expand(input: &Input<'_>) -> TokenStream {
    let Some(span) = input.serde else { return unmarked(input) };
    if input.tag {
        // A tag's storage is a `SparseSet`, which has the impls already.
        return invocation(input, span, quote!(tag));
    }
    let Input { generics, names, key, .. } = input;
    let impl_generics = generics.split_for_impl().0;
    let de = &names.de_lifetime;
    let mut with_de = (*generics).clone();
    with_de.params.insert(0, syn::GenericParam::Lifetime(syn::LifetimeParam::new(de.clone())));
    let impl_de = with_de.split_for_impl().0;
    let storage = input.owning(&names.storage);
    let value = errors::respan(input.owning(input.ident), span);
    let refs = &names.refs;
    let cloned = quote!(#refs::cloned);
    let predicates: TokenStream = generics
        .where_clause
        .iter()
        .flat_map(|clause| clause.predicates.iter())
        .map(|predicate| quote!(#predicate,))
        .collect();
    let clone_predicates = clone_bounds(input);
    let p = &input.private;
    let stamps = match input.tracked_fields() {
        0 => quote!(0),
        n => quote!(#p::FieldTicks::<#n>::ROW_BYTES),
    };
    let arguments = quote! {
        storage
        [#impl_generics] [#impl_de] [#de] [#storage] [#key] [#value]
        [#cloned] [#predicates] [#clone_predicates] [#stamps]
    };
    invocation(input, span, arguments)
}

/// For a struct without `#[sparse_soa(serde)]`: with the `serde` feature, impls of serde's traits
/// that cannot be used, whose bound tells the user to add the attribute (a tag's storage is a
/// `SparseSet`, serializable already: nothing).
fn unmarked(input: &Input<'_>) -> TokenStream {
    if input.tag {
        return TokenStream::new();
    }
    let Input { generics, names, .. } = input;
    let impl_generics = generics.split_for_impl().0;
    let de = &names.de_lifetime;
    let mut with_de = (*generics).clone();
    with_de.params.insert(0, syn::GenericParam::Lifetime(syn::LifetimeParam::new(de.clone())));
    let impl_de = with_de.split_for_impl().0;
    let storage = input.owning(&names.storage);
    let predicates: TokenStream = generics
        .where_clause
        .iter()
        .flat_map(|clause| clause.predicates.iter())
        .map(|predicate| quote!(#predicate,))
        .collect();
    let p = &input.private;
    quote! {
        #p::serde_impls! { unmarked [#impl_generics] [#impl_de] [#de] [#storage] [#predicates] }
    }
}

/// `Ty: Clone,` for each field type, spanned at the field: serializing clones the elements out of
/// the columns. Unlike the optional traits' bounds (`field_bounds`), these are checked where they
/// are written, so a field type without `Clone` is an error at that field rather than a storage
/// that is silently not `Serialize`: the attribute asked for the impl.
fn clone_bounds(input: &Input<'_>) -> TokenStream {
    let mut seen: Vec<String> = Vec::new();
    let mut predicates = TokenStream::new();
    for field in &input.fields {
        let ty = field.ty;
        let text = ty.to_token_stream().to_string();
        if seen.contains(&text) {
            continue;
        }
        seen.push(text);
        let span = syn::spanned::Spanned::span(ty);
        predicates.extend(quote_spanned!(span=> #ty: ::core::clone::Clone,));
    }
    predicates
}

/// `__private::serde_impls! { arguments }`, the macro's path and braces spanned at the attribute:
/// that is where a build without the `serde` feature reports it missing, and where a struct
/// without serde's traits is reported.
fn invocation(input: &Input<'_>, span: Span, arguments: TokenStream) -> TokenStream {
    let p = &input.private;
    let mut path = errors::respan(quote!(#p::serde_impls!), span);
    let mut braces = proc_macro2::Group::new(proc_macro2::Delimiter::Brace, arguments);
    braces.set_span(span);
    path.extend([TokenTree::Group(braces)]);
    path
}
