//! Change ticks of a storage whose observer keeps them (`Ticks`, or a tuple that starts with
//! it): `ticks`, `changed_since`, `added_since`, and the writes that do not count
//! (`get_mut_untracked`). The methods exist only for such storages, so asking an untracked
//! storage for changes does not compile.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;
use crate::expand::storage::parts::Parts;

/// The `impl` block for storages whose observer `Tracks`, and their `TrackedStorage` impl.
pub(super) fn expand(input: &Input<'_>) -> TokenStream {
    let Parts { p, k, keys, muts, mut_ty, columns, members, observer, option, .. } =
        &Parts::new(input);
    let o = &input.observer;
    let mut generics = input.storage_generics();
    generics.make_where_clause().predicates.push(syn::parse_quote!(#o: #p::Tracks));
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let self_ty = input.storage_ty();
    quote! {
        #[automatically_derived]
        impl #impl_generics #self_ty #where_clause {
            /// The change ticks of the rows, and the clock (`advance` it once per frame).
            ///
            /// Computes in **O(1)** time.
            #[inline]
            #[must_use]
            pub fn ticks(&self) -> &#p::Ticks {
                #p::Tracks::ticks(&self.#observer)
            }

            /// The change ticks, mutably: to advance the clock.
            ///
            /// Computes in **O(1)** time.
            #[inline]
            pub fn ticks_mut(&mut self) -> &mut #p::Ticks {
                #p::Tracks::ticks_mut(&mut self.#observer)
            }

            /// The keys of the rows changed after `since` (inserted, replaced, or handed out
            /// mutably), in dense order.
            ///
            /// Computes in **O(1)** time; the iterator runs in O(len).
            #[must_use]
            pub fn changed_since(&self, since: #p::Tick) -> #p::Since<'_, #k> {
                #p::since(self.#keys.as_slice(), self.ticks(), since, false)
            }

            /// The keys of the rows added after `since`, in dense order.
            ///
            /// Computes in **O(1)** time; the iterator runs in O(len).
            #[must_use]
            pub fn added_since(&self, since: #p::Tick) -> #p::Since<'_, #k> {
                #p::since(self.#keys.as_slice(), self.ticks(), since, true)
            }

            /// The element stored under `key`, mutably, **without reporting the write**: no
            /// change tick, no journal entry. For writes that must not count.
            ///
            /// Computes in **O(1)** time.
            #[inline]
            pub fn get_mut_untracked(&mut self, key: #k) -> #option<#mut_ty> {
                let __index = self.#keys.get_index_of(key)?;
                #option::Some(#muts { #(#members: &mut self.#columns[__index],)* })
            }
        }

        #[automatically_derived]
        impl #impl_generics #p::TrackedStorage for #self_ty #where_clause {
            #[inline]
            fn ticks(&self) -> &#p::Ticks {
                #p::Tracks::ticks(&self.#observer)
            }
        }
    }
}
