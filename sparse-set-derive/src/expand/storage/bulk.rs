//! Bulk removal: `retain`, `clear`, `truncate` (`drain` is with the iterators). Every column is
//! truncated even if a field's `Drop` panics.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;
use crate::expand::storage::parts::Parts;

/// `retain`, `clear`, `truncate`.
pub(super) fn methods(input: &Input<'_>) -> TokenStream {
    let Parts { p, k, keys, muts, mut_ty, columns, members, usize, bool, .. } = &Parts::new(input);
    // `retain` hands the runtime's retain engine every column as one tuple of `&mut Vec`s.
    let positions: Vec<syn::Index> = (0..columns.len()).map(syn::Index::from).collect();
    quote! {
        /// Keeps only the elements for which `keep` returns `true`, visiting each exactly once
        /// in dense order; `keep` may change the element. Kept elements keep their relative
        /// order.
        ///
        /// If `keep` panics, nothing has been removed yet and the storage is consistent (in
        /// some order). If a field's `Drop` panics, every column is still truncated.
        ///
        /// Computes in **O(len)** time.
        pub fn retain<__F>(&mut self, mut keep: __F)
        where
            __F: ::core::ops::FnMut(#k, #mut_ty) -> #bool,
        {
            let __kept = self.#keys.retain_with(
                &mut (#(&mut self.#columns,)*),
                |__columns, __index, __key| {
                    keep(__key, #muts { #(#members: &mut __columns.#positions[__index],)* })
                },
                |__columns, __a, __b| {
                    #(__columns.#positions.swap(__a, __b);)*
                },
            );
            #p::truncate_columns(__kept, &mut [#(&mut self.#columns),*]);
        }

        /// Removes every element. Keeps all allocated memory.
        ///
        /// If a field's `Drop` panics, every column is still cleared.
        ///
        /// Computes in **O(len)** time (the values are dropped).
        pub fn clear(&mut self) {
            self.#keys.clear();
            #p::truncate_columns(0, &mut [#(&mut self.#columns),*]);
        }

        /// Keeps the first `len` elements in dense order and drops the rest; nothing else
        /// moves. Does nothing if `len >= self.len()`.
        ///
        /// If a field's `Drop` panics, every column is still truncated.
        ///
        /// Computes in **O(removed elements)** time.
        pub fn truncate(&mut self, len: #usize) {
            self.#keys.truncate(len);
            #p::truncate_columns(len, &mut [#(&mut self.#columns),*]);
        }
    }
}
