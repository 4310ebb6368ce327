//! Bulk removal: `retain`, `clear`, `truncate` (`drain` is with the iterators). Every column is
//! truncated even if a field's `Drop` panics.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;
use crate::expand::storage::parts::Parts;

/// `retain`, `clear`, `truncate`.
pub(super) fn methods(input: &Input<'_>) -> TokenStream {
    let Parts {
        p,
        k,
        keys,
        muts,
        mut_ty,
        columns,
        members,
        observer,
        hear,
        observes,
        usize,
        bool,
        ..
    } = &Parts::new(input);
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
            if #observes {
                // `keep` sees every row mutably: all count as written. Then the same moves,
                // each reported, and the rejected tail popped row by row.
                #hear::written(&mut self.#observer, 0..self.#keys.len());
                let mut __kept: #usize = 0;
                for __read in 0..self.#keys.len() {
                    let __key = self.#keys.as_slice()[__read];
                    if keep(__key, #muts { #(#members: &mut self.#columns[__read],)* }) {
                        if __kept != __read {
                            self.swap_indices(__kept, __read);
                        }
                        __kept += 1;
                    }
                }
                self.truncate(__kept);
                return;
            }
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
            if #observes {
                self.truncate(0);
                return;
            }
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
            if #observes {
                // Row by row from the end, so that every removal is reported on a consistent
                // storage; a field's `Drop` or a hook that panics still leaves `len` rows.
                #p::pop_down_to(self, len);
                return;
            }
            self.#keys.truncate(len);
            #p::truncate_columns(len, &mut [#(&mut self.#columns),*]);
        }
    }
}
