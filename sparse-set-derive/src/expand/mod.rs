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
use quote::quote;

use crate::ast::Input;

/// Everything `#[derive(SparseSoa)]` generates for `input`.
pub(crate) fn expand(input: &Input<'_>) -> TokenStream {
    if input.tag {
        let tag = tag::expand(input);
        let serde = serde::expand(input);
        return quote!(#tag #serde);
    }
    let storage = storage::expand(input);
    let refs = refs::expand(input);
    let columns = columns::expand(input);
    let iter = iter::expand(input);
    let traits = traits::expand(input);
    let parallel = parallel::expand(input);
    let serde = serde::expand(input);
    quote! {
        #storage
        #refs
        #columns
        #iter
        #traits
        #parallel
        #serde
    }
}
