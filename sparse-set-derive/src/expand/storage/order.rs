//! Reordering: `swap_indices` and the sorts. A sort computes one permutation and applies it to
//! the keys and to every column.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;
use crate::expand::storage::parts::Parts;

/// `swap_indices`, `sort_by`, `sort_by_key`, `sort_unstable_by`, `sort_as`, `sort_keys`.
pub(super) fn methods(input: &Input<'_>) -> TokenStream {
    let Parts { p, k, keys, refs, ref_ty, columns, members, observer, hear, usize, .. } =
        &Parts::new(input);
    let (at_a, at_b, at_i) = (view(input, "__a"), view(input, "__b"), view(input, "__i"));
    let compare = quote!(|__a, __b| compare(&__keys[__a], #at_a, &__keys[__b], #at_b));
    let sort_by = permute(input, &quote!(#p::Permutation::sorted_by(__keys.len(), #compare)));
    let sort_unstable =
        permute(input, &quote!(#p::Permutation::sorted_unstable_by(__keys.len(), #compare)));
    let sort_by_key = permute(
        input,
        &quote!(#p::Permutation::sorted_by_key(__keys.len(), |__i| f(&__keys[__i], #at_i))),
    );
    // The unstable sort runs in place in the runtime's sort engine: every column as one tuple
    // of `&mut Vec`s, swapped together with the keys.
    let positions: Vec<syn::Index> = (0..columns.len()).map(syn::Index::from).collect();
    let in_place = |index: &str| {
        let index = quote::format_ident!("{index}");
        quote!(#refs { #(#members: &__columns.#positions[#index],)* })
    };
    let (in_place_a, in_place_b) = (in_place("__a"), in_place("__b"));
    // The observer rides along as the tuple's last element: tracked fields' stamps follow
    // each swap in place; the user's observer, when it listens, takes the permutation path.
    let at_observer = syn::Index::from(columns.len());
    let user_observes = {
        let (o, row) = (&input.observer, input.borrowing(&input.names.refs, &quote!('_)));
        quote!(<#o as #p::Observer<#k, #row>>::OBSERVES)
    };
    quote! {
        /// Swaps the elements at dense positions `a` and `b`, in the keys and every column.
        ///
        /// Computes in **O(1)** time.
        ///
        /// # Panics
        ///
        /// If `a` or `b` is out of bounds; the storage is then unchanged.
        #[track_caller]
        pub fn swap_indices(&mut self, a: #usize, b: #usize) {
            let __len = self.#keys.len();
            if a >= __len || b >= __len {
                #p::fail_swap(a, b, __len);
            }
            self.#keys.swap_indices(a, b);
            #(self.#columns.swap(a, b);)*
            #hear::swapped(&mut self.#observer, a, b);
        }

        /// Sorts the elements (stably) with a comparator of two keys and elements; keys and
        /// every column move together.
        ///
        /// The order is computed first and then applied to the keys and to each column
        /// through one permutation (**O(len)** swaps per column), so a comparator that panics
        /// does so before anything has moved.
        ///
        /// Computes in **O(len log len)** time and allocates **O(len)** memory (the unstable
        /// sorts allocate nothing).
        ///
        /// # Panics
        ///
        /// If `compare` panics or the permutation's memory cannot be had; the storage is then
        /// unchanged.
        pub fn sort_by<__F>(&mut self, mut compare: __F)
        where
            __F: ::core::ops::FnMut(&#k, #ref_ty, &#k, #ref_ty) -> ::core::cmp::Ordering,
        {
            #sort_by
        }

        /// Sorts the elements (stably) by the key `f` extracts from each key and element; keys
        /// and every column move together through one permutation, as in
        /// [`sort_by`](Self::sort_by).
        ///
        /// Computes in **O(len log len)** time and allocates **O(len)** memory.
        ///
        /// # Panics
        ///
        /// If `f` panics or the permutation's memory cannot be had; the storage is then
        /// unchanged.
        pub fn sort_by_key<__T, __F>(&mut self, mut f: __F)
        where
            __T: ::core::cmp::Ord,
            __F: ::core::ops::FnMut(&#k, #ref_ty) -> __T,
        {
            #sort_by_key
        }

        /// Sorts the elements (unstably) with a comparator of two keys and elements, in
        /// place: the keys and every column are swapped together, elements that compare equal
        /// may be reordered, and nothing is allocated (a bounded storage stays
        /// allocation-free).
        ///
        /// If `compare` panics, the storage holds the same elements, each key with its
        /// element, in some order.
        ///
        /// A storage with an observer sorts through one permutation of `len` positions
        /// instead (allocated), which it reports: an observer hears of one permutation, not
        /// of each swap. (Tracked fields alone do not count: their stamps follow the swaps.)
        ///
        /// Computes in **O(len log len)** time.
        pub fn sort_unstable_by<__F>(&mut self, mut compare: __F)
        where
            __F: ::core::ops::FnMut(&#k, #ref_ty, &#k, #ref_ty) -> ::core::cmp::Ordering,
        {
            if #user_observes {
                #sort_unstable
                return;
            }
            self.#keys.sort_unstable_with(
                &mut (#(&mut self.#columns,)* &mut self.#observer,),
                |__columns, __keys, __a, __b| {
                    compare(&__keys[__a], #in_place_a, &__keys[__b], #in_place_b)
                },
                |__columns, __a, __b| {
                    #(__columns.#positions.swap(__a, __b);)*
                    #hear::swapped(__columns.#at_observer, __a, __b);
                },
            );
        }

        /// Reorders the storage to follow `order` (`EnTT`'s `sort_as`): the keys of `order` that
        /// the storage holds move to the front, in the order they have in `order`, every
        /// column along; the other elements follow, in an unspecified order. Returns how many
        /// moved to the front.
        ///
        /// Typical use: `velocities.sort_as(positions.keys())`, so that both storages hold their
        /// shared keys at the same positions. A storage in a group cannot be reached mutably:
        /// sort the group instead.
        ///
        /// Computes in **O(`order.len()`)** time; allocates nothing.
        pub fn sort_as(&mut self, order: &[#k]) -> #usize {
            #p::Columnar::sort_as(self, order)
        }

        /// Sorts the elements by key, ascending, in place; every column moves along and
        /// nothing is allocated.
        ///
        /// Computes in **O(len log len)** time.
        pub fn sort_keys(&mut self)
        where
            for<'__b> #k: ::core::cmp::Ord,
        {
            // Keys are unique, so the unstable sort gives the one ascending order.
            self.sort_unstable_by(|__a, _, __b, _| ::core::cmp::Ord::cmp(__a, __b));
        }
    }
}

/// The body of a sort: `permutation`, an expression that may read the key slice as `__keys`,
/// computes the order, which then moves the keys and every column. The one place a permutation
/// is applied.
fn permute(input: &Input<'_>, permutation: &TokenStream) -> TokenStream {
    let Parts { keys, columns, observer, hear, .. } = &Parts::new(input);
    quote! {
        let __permutation = {
            let __keys = self.#keys.as_slice();
            #permutation
        };
        self.#keys.apply_permutation(&__permutation);
        #(__permutation.apply(self.#columns.as_mut_slice());)*
        #hear::permuted(&mut self.#observer, &__permutation);
    }
}

/// `{Name}Ref { x: &self.__column_0[index], ... }`: the element at the dense position held
/// by the local `index`.
fn view(input: &Input<'_>, index: &str) -> TokenStream {
    let Parts { refs, columns, members, .. } = &Parts::new(input);
    let index = quote::format_ident!("{index}");
    quote!(#refs { #(#members: &self.#columns[#index],)* })
}
