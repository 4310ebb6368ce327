//! Insert and remove: every column moves in lockstep with the key index, and a failure leaves
//! the storage unchanged.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;
use crate::expand::storage::parts::Parts;

/// `insert`, `insert_full`, `try_insert`, `try_insert_full`.
pub(super) fn insert(input: &Input<'_>) -> TokenStream {
    let parts = &Parts::new(input);
    let Parts {
        p,
        k,
        ident,
        keys,
        value,
        columns,
        members,
        bindings,
        observer,
        hear,
        observes,
        option,
        result,
        usize,
        ..
    } = parts;
    let first = columns[0];
    let new_row = parts.row_at(&quote!(__index));
    let old_row = parts.row_of_bindings();
    quote! {
        /// Stores `value` under `key`; returns the value it replaced.
        ///
        /// A new key is appended at the end of every column. If `key`'s sparse slot is held
        /// by an older version of it (for an `Entity`: the same index, an older generation,
        /// so a despawned entity), that element is replaced in place and returned; if it
        /// holds a newer one, or has held one since emptied, `key` is stale and refused
        /// (`Error::StaleKey`), changing nothing.
        ///
        /// Computes in **O(1)** amortised time.
        ///
        /// # Panics
        ///
        /// With a message naming `key` and the error [`try_insert`](Self::try_insert) would
        /// return (which names the limit); the storage is then unchanged and `value` dropped.
        #[inline]
        #[track_caller]
        pub fn insert(&mut self, key: #k, value: #value) -> #option<#value> {
            self.insert_full(key, value).1
        }

        /// Stores `value` under `key`; returns its dense position and the value it replaced.
        ///
        /// Computes in **O(1)** amortised time.
        ///
        /// # Panics
        ///
        /// As [`insert`](Self::insert).
        #[inline]
        #[track_caller]
        pub fn insert_full(&mut self, key: #k, value: #value) -> (#usize, #option<#value>) {
            match self.try_insert_full(key, value) {
                #result::Ok(__inserted) => __inserted,
                #result::Err(__error) => #p::fail_insert::<Self, _>(key, __error),
            }
        }

        /// The fallible twin of [`insert`](Self::insert).
        ///
        /// Every column reserves its room before any is written, so a failure leaves the
        /// storage unchanged.
        ///
        /// Computes in **O(1)** amortised time.
        ///
        /// # Errors
        ///
        /// `Error::StaleKey` when `key`'s slot holds or has held a newer version of it; and
        /// for a new key only, `Error::KeyOutOfRange` and `Error::Full` past a bounded
        /// storage's limits, `Error::DenseIndexOverflow` when the dense index width is
        /// exhausted, `Error::AllocFailed` when memory cannot be had. The storage is then
        /// unchanged and `value` is dropped.
        #[inline]
        pub fn try_insert(&mut self, key: #k, value: #value) -> #result<#option<#value>, #p::Error> {
            match self.try_insert_full(key, value) {
                #result::Ok((_, __replaced)) => #result::Ok(__replaced),
                #result::Err(__error) => #result::Err(__error),
            }
        }

        /// The fallible twin of [`insert_full`](Self::insert_full).
        ///
        /// Computes in **O(1)** amortised time.
        ///
        /// # Errors
        ///
        /// As [`try_insert`](Self::try_insert); the storage is then unchanged.
        pub fn try_insert_full(
            &mut self,
            key: #k,
            value: #value,
        ) -> #result<(#usize, #option<#value>), #p::Error> {
            let #ident { #(#members: #bindings,)* } = value;
            // Room for one more row, reserved only when a column is full (the common case
            // makes one comparison per column). A bounded storage has its room already;
            // reserving there could allocate.
            if #(self.#columns.len() == self.#columns.capacity())||* {
                if self.#keys.key_limit().is_none() {
                    #(self.#columns.try_reserve(1)?;)*
                }
            }
            // The observer's room for a row too (stamps), so its event allocates nothing; a
            // bounded storage's observer reserved its capacity when attached.
            if #observes && self.#keys.key_limit().is_none() {
                #hear::try_reserve(&mut self.#observer, 1)?;
            }
            let (__index, __new) = self.#keys.try_insert_full(key)?;
            if __new && __index == self.#first.len() {
                #(self.#columns.push(#bindings);)*
                if #observes {
                    #hear::inserted(&mut self.#observer, key, __index, &#new_row);
                }
                #result::Ok((__index, #option::None))
            } else {
                // The old fields, each in the local its new value was in.
                #(let #bindings = ::core::mem::replace(&mut self.#columns[__index], #bindings);)*
                if #observes {
                    // `__new`: `key` took over the row of an older version of it.
                    #p::report_replacement(
                        &mut self.#observer, key, __index, &#old_row, &#new_row, __new,
                    );
                }
                #result::Ok((__index, #option::Some(#ident { #(#members: #bindings,)* })))
            }
        }
    }
}

/// `remove`, `remove_with_info`, `swap_remove_index`, `pop`: all swap-removes.
pub(super) fn remove(input: &Input<'_>) -> TokenStream {
    let parts = &Parts::new(input);
    let Parts {
        p,
        k,
        ident,
        keys,
        value,
        columns,
        members,
        bindings,
        observer,
        hear,
        observes,
        option,
        usize,
        ..
    } = parts;
    let removed_row = parts.row_of_bindings();
    quote! {
        /// Removes `key` by **swap-remove** (the last element moves into its place in every
        /// column); returns its value.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        pub fn remove(&mut self, key: #k) -> #option<#value> {
            match self.remove_with_info(key) {
                #option::Some((__value, _)) => #option::Some(__value),
                #option::None => #option::None,
            }
        }

        /// `remove` under indexmap's name for it: removes `key` by **swap-remove**; returns
        /// its value.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        pub fn swap_remove(&mut self, key: #k) -> #option<#value> {
            self.remove(key)
        }

        /// Removes `key` by **swap-remove**; returns its value and how the dense positions
        /// moved (`Removed`), for arrays kept beside the storage.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        pub fn remove_with_info(&mut self, key: #k) -> #option<(#value, #p::Removed<#k>)> {
            let __removed = self.#keys.remove_with_info(key)?;
            let __index = __removed.index;
            #(let #bindings = self.#columns.swap_remove(__index);)*
            if #observes {
                #hear::removed(&mut self.#observer, key, &#removed_row, __removed);
            }
            #option::Some((#ident { #(#members: #bindings,)* }, __removed))
        }

        /// Removes the element at dense position `index` by **swap-remove**; returns its key
        /// and value, or `None` if `index` is out of bounds.
        ///
        /// Computes in **O(1)** time.
        pub fn swap_remove_index(&mut self, index: #usize) -> #option<(#k, #value)> {
            let (__key, __removed) = #p::remove_at(&mut self.#keys, index)?;
            #(let #bindings = self.#columns.swap_remove(index);)*
            if #observes {
                #hear::removed(&mut self.#observer, __key, &#removed_row, __removed);
            }
            #option::Some((__key, #ident { #(#members: #bindings,)* }))
        }

        /// Removes and returns the last element in dense order; nothing else moves.
        ///
        /// Computes in **O(1)** time.
        pub fn pop(&mut self) -> #option<(#k, #value)> {
            let __key = self.#keys.pop()?;
            #(let #bindings = self.#columns.pop()?;)*
            if #observes {
                let __removed = #p::Removed { index: self.#keys.len(), moved: #option::None };
                #hear::removed(&mut self.#observer, __key, &#removed_row, __removed);
            }
            #option::Some((__key, #ident { #(#members: #bindings,)* }))
        }
    }
}
