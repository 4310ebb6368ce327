//! Parallel iteration: one invocation of the runtime's `parallel!` macro with the storage's
//! types, which emits rayon's `IntoParallelIterator` for `&{Name}Soa`, `&mut {Name}Soa`,
//! `{Name}Columns` and `{Name}ColumnsMut` when `sparse-soa` is built with its `rayon` feature,
//! and nothing otherwise. The derive cannot see that feature; the runtime's macro can.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;

pub(super) fn expand(input: &Input<'_>) -> TokenStream {
    let Input { generics, names, private: p, .. } = input;
    let lifetime = &names.lifetime;
    let with_lifetime = input.generics_with_lifetime();
    let impl_generics = with_lifetime.split_for_impl().0;
    let storage = input.owning(&names.storage);
    let columns = input.borrowing(&names.columns, &quote!(#lifetime));
    let columns_mut = input.borrowing(&names.columns_mut, &quote!(#lifetime));
    let predicates = generics
        .where_clause
        .iter()
        .flat_map(|clause| clause.predicates.iter())
        .map(|predicate| quote!(#predicate,))
        .collect::<TokenStream>();
    let identity = quote!(::core::convert::identity);
    quote! {
        #p::parallel! {
            [#impl_generics] [&#lifetime #storage] [#columns] [#p::Columnar::columns] [#predicates]
            [#impl_generics] [&#lifetime mut #storage] [#columns_mut] [#p::Columnar::columns_mut] [#predicates]
            [#impl_generics] [#columns] [#columns] [#identity] [#predicates]
            [#impl_generics] [#columns_mut] [#columns_mut] [#identity] [#predicates]
        }
    }
}
