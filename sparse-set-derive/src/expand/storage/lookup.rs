//! Lookups by key and by dense position, returning the `{Name}Ref` / `{Name}Mut` views, and the
//! key index itself.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;
use crate::expand::storage::parts::Parts;

/// `get`, `get_mut`, `get_mut_untracked`, `get_disjoint_mut`, `get_key_value`, `get_full`,
/// `get_index`, `get_index_mut`: the views.
pub(super) fn views(input: &Input<'_>) -> TokenStream {
    let Parts {
        p,
        k,
        keys,
        refs,
        muts,
        ref_ty,
        mut_ty,
        columns,
        members,
        bindings,
        observer,
        hear,
        option,
        usize,
        ..
    } = &Parts::new(input);
    // The first column's length, the bound of every position the key index answers (a miss,
    // `usize::MAX`, is never below it). Every storage has a column (a struct without fields is a
    // tag, whose storage is a set); without one, no bound.
    let bound = columns
        .first()
        .map_or_else(|| quote!(#usize::MAX), |first| quote!(#p::Vec::len(&self.#first)));
    quote! {
        /// The element stored under `key`.
        ///
        /// Computes in **O(1)** time.
        // Always: a thin wrapper over the key index's lookup, which callers' loops must
        // inline whole (see `SparseSet::get_index_of`).
        #[inline(always)]
        #[allow(clippy::inline_always)]
        pub fn get(&self, key: #k) -> #option<#ref_ty> {
            // The lookup answers below the first column's length: one bound check for both.
            let __index = #p::get_index_below(&self.#keys, key, #bound)?;
            #option::Some(#refs { #(#members: &self.#columns[__index],)* })
        }

        /// The element stored under `key`, mutably; reported to the observer as written.
        ///
        /// Computes in **O(1)** time.
        // Always: a thin wrapper over the key index's lookup, which callers' loops must
        // inline whole (see `SparseSet::get_index_of`).
        #[inline(always)]
        #[allow(clippy::inline_always)]
        pub fn get_mut(&mut self, key: #k) -> #option<#mut_ty> {
            // A miss is `usize::MAX`, past every column: one bound check answers both.
            let __index = #p::get_index_of_or_max(&self.#keys, key);
            if __index >= #bound {
                return #option::None;
            }
            let __row = #muts { #(#members: &mut self.#columns[__index],)* };
            #hear::written(&mut self.#observer, __index..__index + 1);
            #option::Some(__row)
        }

        /// The element stored under `key`, mutably, **without reporting the write**: no
        /// change tick, no event to the observer. For writes that must not count.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        pub fn get_mut_untracked(&mut self, key: #k) -> #option<#mut_ty> {
            let __index = self.#keys.get_index_of(key)?;
            #option::Some(#muts { #(#members: &mut self.#columns[__index],)* })
        }

        /// The elements stored under several keys at once, mutably; `None` for a key not
        /// stored.
        ///
        /// Computes in **O(N²)** time for `N` keys (they are compared pairwise).
        ///
        /// # Panics
        ///
        /// If two of `keys` are equal, whether or not they are stored.
        #[track_caller]
        pub fn get_disjoint_mut<const __N: #usize>(
            &mut self,
            keys: [#k; __N],
        ) -> [#option<#mut_ty>; __N] {
            let __positions = #p::disjoint_positions(&self.#keys, keys);
            for __index in ::core::iter::Iterator::flatten(::core::iter::IntoIterator::into_iter(__positions)) {
                #hear::written(&mut self.#observer, __index..__index + 1);
            }
            #(let mut #bindings = #p::disjoint_rows_mut(&mut self.#columns, __positions);)*
            ::core::array::from_fn(|__place| {
                __positions[__place]?;
                #option::Some(#muts { #(#members: #bindings[__place].take()?,)* })
            })
        }

        /// The key and element stored under `key`.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        pub fn get_key_value(&self, key: #k) -> #option<(#k, #ref_ty)> {
            let __index = self.#keys.get_index_of(key)?;
            self.get_index(__index)
        }

        /// The dense position, key and element stored under `key`.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        pub fn get_full(&self, key: #k) -> #option<(#usize, #k, #ref_ty)> {
            let __index = self.#keys.get_index_of(key)?;
            let (__key, __value) = self.get_index(__index)?;
            #option::Some((__index, __key, __value))
        }

        /// The key and element at dense position `index`.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        pub fn get_index(&self, index: #usize) -> #option<(#k, #ref_ty)> {
            let __key = self.#keys.get_index(index)?;
            #option::Some((__key, #refs { #(#members: &self.#columns[index],)* }))
        }

        /// The key and mutable element at dense position `index`; reported to the observer as
        /// written.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        pub fn get_index_mut(&mut self, index: #usize) -> #option<(#k, #mut_ty)> {
            let __key = self.#keys.get_index(index)?;
            let __row = #muts { #(#members: &mut self.#columns[index],)* };
            #hear::written(&mut self.#observer, index..index + 1);
            #option::Some((__key, __row))
        }
    }
}

/// `contains_key`, `get_index_of`, `keys`, `as_sparse_set`: the key index.
pub(super) fn keys(input: &Input<'_>) -> TokenStream {
    let Parts { p, k, d, keys, option, usize, bool, .. } = &Parts::new(input);
    quote! {
        /// Whether `key` is stored.
        ///
        /// Computes in **O(1)** time.
        // Always: a thin wrapper over the key index's lookup, which callers' loops must
        // inline whole (see `SparseSet::get_index_of`).
        #[inline(always)]
        #[allow(clippy::inline_always)]
        #[must_use]
        pub fn contains_key(&self, key: #k) -> #bool {
            self.#keys.contains(key)
        }

        /// The dense position of `key`: its row in every column.
        ///
        /// Computes in **O(1)** time.
        // Always: a thin wrapper over the key index's lookup, which callers' loops must
        // inline whole (see `SparseSet::get_index_of`).
        #[inline(always)]
        #[allow(clippy::inline_always)]
        #[must_use]
        pub fn get_index_of(&self, key: #k) -> #option<#usize> {
            self.#keys.get_index_of(key)
        }

        /// The keys in dense order: `keys()[i]` owns row `i` of every column.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        #[must_use]
        pub fn keys(&self) -> &[#k] {
            self.#keys.as_slice()
        }

        /// The key index on its own.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        #[must_use]
        pub fn as_sparse_set(&self) -> &#p::SparseSet<#k, #d> {
            &self.#keys
        }
    }
}
