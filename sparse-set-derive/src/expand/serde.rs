//! Serde: for a struct marked `#[sparse_soa(serde)]`, one invocation of the runtime's
//! `serde_impls!` macro with the storage's types. With `sparse-soa`'s `serde` feature it emits
//! `Serialize` and `Deserialize` for `{Name}Soa` (in the format of a `SparseMap` of the key and
//! the struct; the rows and their validation are the runtime's), and the runtime's `Restore` and
//! `Rebuild`; without it, a compile error at the attribute saying to enable the feature. The
//! derive cannot see that feature; the runtime's macro can. Unmarked structs get nothing.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};

use super::field_bounds;
use crate::ast::Input;

pub(super) fn expand(input: &Input<'_>) -> TokenStream {
    let Some(span) = input.serde else { return TokenStream::new() };
    // Spanned at the attribute: that is where a missing feature, or a struct without serde's
    // traits, is reported.
    let p = respan(input.private.clone(), span);
    if input.tag {
        // A tag's storage is a `SparseSet`, which has the impls already.
        return quote!(#p::serde_impls! { tag });
    }
    let Input { generics, names, key, .. } = input;
    let impl_generics = generics.split_for_impl().0;
    let de = &names.de_lifetime;
    let mut with_de = (*generics).clone();
    with_de.params.insert(0, syn::GenericParam::Lifetime(syn::LifetimeParam::new(de.clone())));
    let impl_de = with_de.split_for_impl().0;
    let storage = input.owning(&names.storage);
    let value = respan(input.owning(input.ident), span);
    let (refs, row) = (&names.refs, &names.row);
    let ref_ty = input.borrowing(refs, &quote!('_));
    let to_value = quote!(|#row: #ref_ty| #refs::cloned(#row));
    let predicates: TokenStream = generics
        .where_clause
        .iter()
        .flat_map(|clause| clause.predicates.iter())
        .map(|predicate| quote!(#predicate,))
        .collect();
    let clones: TokenStream = field_bounds(input, &quote!(::core::clone::Clone))
        .into_iter()
        .map(|predicate| quote!(#predicate,))
        .collect();
    quote! {
        #p::serde_impls! {
            storage
            [#impl_generics] [#impl_de] [#de] [#storage] [#key] [#value]
            [#to_value] [#predicates] [#clones]
        }
    }
}

/// `tokens` with every span set to `span`, groups included.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(group) = &tree {
                let mut inner = proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = TokenTree::Group(inner);
            } else {
                tree.set_span(span);
            }
            tree.into_token_stream()
        })
        .collect()
}
