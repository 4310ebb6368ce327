//! The generated code, one module per artifact. Each is a pure function of the model that cannot
//! fail: every user error has been reported by `check` before expansion starts.

mod columns;
mod iter;
mod parallel;
mod refs;
mod serde;
mod storage;
mod tag;
mod tokens;
mod traits;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{Generics, Ident};

use crate::ast::Input;

/// Everything `#[derive(SparseSoa)]` generates for `input`.
pub(crate) fn expand(input: &Input<'_>) -> TokenStream {
    let no_drop = no_drop(input.ident, input.generics, &input.private, "DeriveSparseSoa");
    if input.tag {
        let tag = tag::expand(input);
        let serde = serde::expand(input);
        return quote!(#no_drop #tag #serde);
    }
    let storage = storage::expand(input);
    let refs = refs::expand(input);
    let columns = columns::expand(input);
    let iter = iter::expand(input);
    let traits = traits::expand(input);
    let parallel = parallel::expand(input);
    let serde = serde::expand(input);
    quote! {
        #no_drop
        #storage
        #refs
        #columns
        #iter
        #traits
        #parallel
        #serde
    }
}

/// The impl that conflicts with the runtime's impl for every type with `Drop`: the fields of a
/// derived struct (`SparseSoa`'s columns, `Bundle`'s components) are stored apart, so a struct
/// that implements `Drop` is refused, with an error at its name. `derive` names the derive
/// (`DeriveSparseSoa`, `DeriveBundle`), so that one struct can derive both.
pub(crate) fn no_drop(
    ident: &Ident,
    generics: &Generics,
    p: &TokenStream,
    derive: &str,
) -> TokenStream {
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let derive = Ident::new(derive, ident.span());
    quote_spanned! {ident.span()=>
        impl #impl_generics #p::StructStoredAsFieldsMustNotImplementDrop<#p::#derive>
            for #ident #type_generics #where_clause {}
    }
}
