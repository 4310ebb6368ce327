//! Bulk removal: `retain`, `clear`, `truncate` (`drain` is with the iterators). Every column is
//! truncated even if a field's `Drop` panics.

use proc_macro2::TokenStream;
use quote::quote;

use super::Parts;
use crate::ast::Input;

/// `retain`, `clear`, `truncate`.
pub(super) fn methods(input: &Input<'_>) -> TokenStream {
    let Parts { p, k, keys, muts, mut_ty, columns, members, usize, bool, .. } = &Parts::new(input);
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
            let __len = self.#keys.len();
            let mut __kept: #usize = 0;
            for __read in 0..__len {
                let __key = self.#keys.as_slice()[__read];
                if keep(__key, #muts { #(#members: &mut self.#columns[__read],)* }) {
                    if __kept != __read {
                        self.#keys.swap_indices(__kept, __read);
                        #(self.#columns.swap(__kept, __read);)*
                    }
                    __kept += 1;
                }
            }
            self.#keys.truncate(__kept);
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
