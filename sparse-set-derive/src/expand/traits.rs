//! Trait implementations of the storage: `Default`, `Extend`, `FromIterator`, `Debug`, `Clone`,
//! `PartialEq`, `Eq` (each only when the fields allow), and the runtime's `Storage`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;
use crate::expand::tokens::{field_bounds, where_with};

pub(super) fn expand(input: &Input<'_>) -> TokenStream {
    let construct = construct(input);
    let field_traits = field_traits(input);
    let storage = storage(input);
    let columnar = columnar(input);
    quote! {
        #construct
        #field_traits
        #storage
        #columnar
    }
}

/// `Columnar::Writes` and `index_columns_and_writes`: the observer hears of each row a query
/// hands out.
fn columnar_writes(input: &Input<'_>) -> (TokenStream, TokenStream) {
    let Input { names, private: p, key: k, dense: d, .. } = input;
    let lifetime = &names.lifetime;
    let (keys, observer) = (&names.keys_field, &names.observer_field);
    let columns_mut_name = &names.columns_mut;
    let refs = input.borrowing(&names.refs, &quote!(#lifetime));
    let observer_ty = input.observer_field_ty();
    let accessors = input.fields.iter().map(|field| &field.accessor);
    let column_fields = input.fields.iter().map(|field| &field.column);
    let ty = quote! {
        type Writes<#lifetime> = #p::ObserverWrites<#lifetime, #k, #refs, #observer_ty>
        where
            Self: #lifetime;
    };
    let method = quote! {
        #[inline]
        fn index_columns_and_writes(
            &mut self,
        ) -> (&#p::SparseSet<#k, #d>, Self::ColumnsMut<'_>, Self::Writes<'_>) {
            // Every column cut to the keys' length, as `index_and_prefix_mut` cuts them: one
            // bound check a row for all of them.
            let __keys = self.#keys.as_slice();
            let __len = __keys.len();
            (
                &self.#keys,
                #columns_mut_name {
                    keys: __keys,
                    #(#accessors: &mut self.#column_fields[..__len],)*
                },
                #p::ObserverWrites::new(&mut self.#observer),
            )
        }
    };
    (ty, method)
}

/// The runtime's `Columnar`, forwarding to the inherent `columns`, `columns_mut` and
/// `swap_indices`: what groups, `sort_as` and parallel iteration work through.
fn columnar(input: &Input<'_>) -> TokenStream {
    let Input { ident, names, private: p, key: k, dense: d, .. } = input;
    let value = input.owning(ident);
    let generics = input.storage_generics();
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let self_ty = input.storage_ty();
    let hear = input.hear();
    let lifetime = &names.lifetime;
    let keys = &names.keys_field;
    let (refs, muts) = (&names.refs, &names.muts);
    let accessors: Vec<_> = input.fields.iter().map(|field| &field.accessor).collect();
    let members: Vec<_> = input.fields.iter().map(|field| &field.member).collect();
    let columns_ty = input.borrowing(&names.columns, &quote!(#lifetime));
    let columns_mut_ty = input.borrowing(&names.columns_mut, &quote!(#lifetime));
    // The row view named by its type rather than `Self::Mut<'__v>`, whose `Self: '__v` would
    // ask it of the observer too.
    let columns_mut_anon = input.borrowing(&names.columns_mut, &quote!('_));
    let mut_v = input.borrowing(muts, &quote!('__v));
    let usize = quote!(::core::primitive::usize);
    let (writes_ty, writes) = columnar_writes(input);
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::Columnar for #self_ty #where_clause {
            const OBSERVES: ::core::primitive::bool = #hear::OBSERVES;

            type Columns<#lifetime> = #columns_ty where Self: #lifetime;
            type ColumnsMut<#lifetime> = #columns_mut_ty where Self: #lifetime;
            #writes_ty

            #[inline]
            fn columns(&self) -> Self::Columns<'_> {
                Self::columns(self)
            }

            #[inline]
            fn columns_mut(&mut self) -> Self::ColumnsMut<'_> {
                Self::columns_mut(self)
            }

            #[inline]
            fn index_and_columns_mut(
                &mut self,
            ) -> (&#p::SparseSet<#k, #d>, Self::ColumnsMut<'_>) {
                <Self as #p::Columnar>::index_and_prefix_mut(self, self.#keys.len())
            }

            #writes

            #[inline]
            fn prefix_columns_mut(&mut self, len: #usize) -> Self::ColumnsMut<'_> {
                <Self as #p::Columnar>::index_and_prefix_mut(self, len).1
            }

            #[inline]
            fn index_and_prefix_mut(
                &mut self,
                len: #usize,
            ) -> (&#p::SparseSet<#k, #d>, Self::ColumnsMut<'_>) {
                // The prefix cut first (a `len` past the rows panics before anyone hears).
                let (__index, __columns, mut __writes) =
                    <Self as #p::Columnar>::index_columns_and_writes(self);
                let __prefix = #p::Rows::split_at(__columns, len).0;
                #p::RowWrites::written(&mut __writes, 0..len);
                (__index, __prefix)
            }

            #[inline]
            fn row<#lifetime>(
                columns: &Self::Columns<#lifetime>,
                index: #usize,
            ) -> ::core::option::Option<Self::Ref<#lifetime>>
            where
                Self: #lifetime,
            {
                ::core::option::Option::Some(#refs {
                    #(#members: columns.#accessors.get(index)?,)*
                })
            }

            #[inline]
            fn row_mut<'__v>(
                columns: &'__v mut #columns_mut_anon,
                index: #usize,
            ) -> ::core::option::Option<#mut_v> {
                ::core::option::Option::Some(#muts {
                    #(#members: columns.#accessors.get_mut(index)?,)*
                })
            }

            #[inline]
            #[track_caller]
            fn swap_indices(&mut self, a: #usize, b: #usize) {
                Self::swap_indices(self, a, b);
            }

            #[inline]
            fn swap_remove_index(&mut self, index: #usize) -> ::core::option::Option<(#k, #value)> {
                Self::swap_remove_index(self, index)
            }
        }
    }
}

/// `Default`, `Extend` and `FromIterator`, which need nothing of the fields.
fn construct(input: &Input<'_>) -> TokenStream {
    let Input { ident, key: k, .. } = input;
    let generics = input.storage_generics();
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let self_ty = input.storage_ty();
    let value = input.owning(ident);
    // `Default` and `FromIterator` make a storage without an observer: one impl for `O = ()`,
    // so that `NameSoa::default()` infers its observer (a generic impl would leave it open).
    let (unobserved_generics, _, unobserved_where) = input.generics.split_for_impl();
    let unobserved = input.owning(&input.names.storage);
    quote! {
        #[automatically_derived]
        impl #unobserved_generics ::core::default::Default for #unobserved #unobserved_where {
            /// An empty storage. Does not allocate.
            #[inline]
            fn default() -> Self {
                Self::new()
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::iter::Extend<(#k, #value)> for #self_ty #where_clause {
            /// Inserts every pair, reserving room for the iterator's lower size bound first; a
            /// later pair with the same key replaces an earlier one. An `Entity` of a newer
            /// generation counts as the same key: it replaces its older version's row (whose
            /// value is dropped), and an older version met after a newer one panics, as `insert`
            /// does (`Error::StaleKey`).
            ///
            /// # Panics
            ///
            /// As `insert`.
            fn extend<__I>(&mut self, iter: __I)
            where
                __I: ::core::iter::IntoIterator<Item = (#k, #value)>,
            {
                let __iter = ::core::iter::IntoIterator::into_iter(iter);
                self.reserve(::core::iter::Iterator::size_hint(&__iter).0);
                for (__key, __value) in __iter {
                    self.insert(__key, __value);
                }
            }
        }

        #[automatically_derived]
        impl #unobserved_generics ::core::iter::FromIterator<(#k, #value)> for #unobserved #unobserved_where {
            /// A storage of every pair; a later pair with the same key replaces an earlier one. An
            /// `Entity` of a newer generation counts as the same key: it replaces its older
            /// version's row (whose value is dropped), and an older version met after a newer one
            /// panics, as `insert` does (`Error::StaleKey`).
            ///
            /// # Panics
            ///
            /// As `insert`.
            fn from_iter<__I>(iter: __I) -> Self
            where
                __I: ::core::iter::IntoIterator<Item = (#k, #value)>,
            {
                let mut __storage = Self::new();
                ::core::iter::Extend::extend(&mut __storage, iter);
                __storage
            }
        }
    }
}

/// `Debug`, `Clone`, `PartialEq` and `Eq`, each bounded on the fields having the trait.
fn field_traits(input: &Input<'_>) -> TokenStream {
    let Input { names, private: p, observer: o, .. } = input;
    let generics = input.storage_generics();
    let impl_generics = generics.split_for_impl().0;
    let user_where = generics.where_clause.as_ref();
    let self_ty = input.storage_ty();
    let keys = &names.keys_field;
    let observer = &names.observer_field;
    let columns: Vec<_> = input.fields.iter().map(|field| &field.column).collect();
    let option = quote!(::core::option::Option);
    let result = quote!(::core::result::Result);
    let usize = quote!(::core::primitive::usize);
    let bool = quote!(::core::primitive::bool);
    let debug_where = where_with(user_where, &field_bounds(input, &quote!(::core::fmt::Debug)));
    let mut clone_bounds = field_bounds(input, &quote!(::core::clone::Clone));
    clone_bounds.push(quote!(#o: ::core::clone::Clone));
    let clone_where = where_with(user_where, &clone_bounds);
    let eq_where = where_with(user_where, &field_bounds(input, &quote!(::core::cmp::PartialEq)));
    let eq_full_where = where_with(user_where, &field_bounds(input, &quote!(::core::cmp::Eq)));
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #self_ty #debug_where {
            /// Formats the storage as a map from keys to elements, in dense order.
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                __f.debug_map().entries(self.iter()).finish()
            }
        }

        #[automatically_derived]
        impl #impl_generics #self_ty #clone_where {
            /// The fallible twin of `clone`: a copy of the keys, every column and the observer;
            /// a bounded storage's copy is bounded alike, with the same capacity.
            ///
            /// Computes in **O(len + allocated sparse slots)** time.
            ///
            /// # Errors
            ///
            /// `Error::AllocFailed` if the storage's own memory (the key index, the columns)
            /// cannot be had; nothing is allocated then. The fields' `Clone` allocates as it
            /// always does (a `String`'s aborts when memory cannot be had, as it would anywhere).
            ///
            /// # Panics
            ///
            /// If a field's `Clone` panics; the elements cloned so far are dropped.
            pub fn try_clone(&self) -> #result<Self, #p::Error> {
                let __bounded = self.#keys.key_limit().is_some();
                #result::Ok(Self {
                    #keys: self.#keys.try_clone()?,
                    #(#columns: #p::try_clone_column(&self.#columns, __bounded)?,)*
                    #observer: ::core::clone::Clone::clone(&self.#observer),
                })
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::clone::Clone for #self_ty #clone_where {
            /// A copy of the keys and every column; a bounded storage's copy is bounded alike,
            /// with the same capacity.
            ///
            /// # Panics
            ///
            /// If a field's `Clone` panics (the elements cloned so far are dropped: nothing
            /// leaks), or the memory cannot be had (with the message of the error `try_clone`
            /// would return).
            #[track_caller]
            fn clone(&self) -> Self {
                match self.try_clone() {
                    #result::Ok(__copy) => __copy,
                    #result::Err(__error) => ::core::panic!("{}", __error),
                }
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::cmp::PartialEq for #self_ty #eq_where {
            /// Two storages are equal when they hold the same keys with equal elements, in any
            /// dense order.
            #[allow(unpredictable_function_pointer_comparisons, reason = "the fields compared as `#[derive(PartialEq)]` compares them")]
            fn eq(&self, other: &Self) -> #bool {
                if self.#keys.len() != other.#keys.len() {
                    return false;
                }
                let __keys = self.#keys.as_slice();
                for __index in 0..__keys.len() {
                    let __other: #usize = match other.#keys.get_index_of(__keys[__index]) {
                        #option::Some(__other) => __other,
                        #option::None => return false,
                    };
                    if #(self.#columns[__index] != other.#columns[__other])||* {
                        return false;
                    }
                }
                true
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::cmp::Eq for #self_ty #eq_full_where {}
    }
}

/// `Storage`'s methods of memory: reserving, shrinking, and the runs of new rows a batch checks
/// for room, forwarding to the inherent methods.
fn memory(input: &Input<'_>) -> TokenStream {
    let p = &input.private;
    let fresh_run = fresh_run(input);
    quote! {
        #[inline]
        fn try_reserve(
            &mut self,
            additional: ::core::primitive::usize,
        ) -> ::core::result::Result<(), #p::Error> {
            Self::try_reserve(self, additional)
        }

        #[inline]
        fn reserve_slots(&mut self, slots: ::core::ops::Range<::core::primitive::u64>) {
            Self::reserve_slots(self, slots);
        }

        #[inline]
        fn shrink_to_fit(&mut self) {
            Self::shrink_to_fit(self);
        }

        #fresh_run
    }
}

/// The runtime's `Storage`, forwarding to the inherent methods, and its invariant checker, which
/// also checks the columns (a trait method, so that no column accessor name is taken by it).
fn storage(input: &Input<'_>) -> TokenStream {
    let Input { ident, names, private: p, key: k, dense: d, observer: o, .. } = input;
    let generics = input.storage_generics();
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let self_ty = input.storage_ty();
    let observer = &names.observer_field;
    let user = input.user_observer();
    let value = input.owning(ident);
    let keys = &names.keys_field;
    let columns = input.fields.iter().map(|field| &field.column);
    let memory = memory(input);
    let messages = input.fields.iter().map(|field| {
        format!("column `{}` has a different length than the keys", field.display_name())
    });
    let lifetime = &names.lifetime;
    let ref_ty = input.borrowing(&names.refs, &quote!(#lifetime));
    let mut_ty = input.borrowing(&names.muts, &quote!(#lifetime));
    let option = quote!(::core::option::Option);
    let usize = quote!(::core::primitive::usize);
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::Storage for #self_ty #where_clause {
            type Key = #k;
            type Dense = #d;
            type Value = #value;
            type Ref<#lifetime> = #ref_ty where Self: #lifetime;
            type Mut<#lifetime> = #mut_ty where Self: #lifetime;

            #[inline]
            fn as_sparse_set(&self) -> &#p::SparseSet<#k, #d> {
                &self.#keys
            }

            #[inline]
            fn get_index(&self, index: #usize) -> #option<(#k, Self::Ref<'_>)> {
                Self::get_index(self, index)
            }

            #[inline]
            fn get_index_mut(&mut self, index: #usize) -> #option<(#k, Self::Mut<'_>)> {
                Self::get_index_mut(self, index)
            }

            #[inline]
            #[track_caller]
            fn insert(&mut self, key: #k, value: #value) -> #option<#value> {
                Self::insert(self, key, value)
            }

            #[inline]
            fn try_insert(
                &mut self,
                key: #k,
                value: #value,
            ) -> ::core::result::Result<#option<#value>, #p::Error> {
                Self::try_insert(self, key, value)
            }

            #memory

            #[inline]
            fn remove(&mut self, key: #k) -> #option<#value> {
                Self::remove(self, key)
            }

            #[inline]
            fn get(&self, key: #k) -> #option<Self::Ref<'_>> {
                Self::get(self, key)
            }

            #[inline]
            fn get_mut(&mut self, key: #k) -> #option<Self::Mut<'_>> {
                Self::get_mut(self, key)
            }

            /// Checks the invariants of the key index, and that every column has the length of
            /// the key slice. Panics describing the first one broken.
            fn assert_invariants(&self) {
                self.#keys.assert_invariants();
                #(
                    ::core::assert_eq!(
                        self.#columns.len(),
                        self.#keys.len(),
                        #messages,
                    );
                )*
            }
        }

        #[automatically_derived]
        impl #impl_generics #p::Observed for #self_ty #where_clause {
            type Observer = #o;

            #[inline]
            fn observer(&self) -> &#o {
                &self.#observer #user
            }

            #[inline]
            fn observer_mut(&mut self) -> &mut #o {
                &mut self.#observer #user
            }
        }
    }
}

/// The `Storage` methods a batch of whole rows stores a run of new rows with: the run's length
/// is the key index's, capped by the room every column has; the values then move into the
/// columns in one pass, through std's `Extend` for a tuple of `Vec`s, which writes each field
/// without a check of its room when the iterator's length is known (a drain is).
fn fresh_run(input: &Input<'_>) -> TokenStream {
    let Input { ident, names, private: p, key: k, .. } = input;
    let keys = &names.keys_field;
    let observer = &names.observer_field;
    let refs = &names.refs;
    let hear = input.hear();
    let columns: Vec<_> = input.fields.iter().map(|field| &field.column).collect();
    let members: Vec<_> = input.fields.iter().map(|field| &field.member).collect();
    let value = input.owning(ident);
    let bindings: Vec<_> = input.fields.iter().map(|field| &field.binding).collect();
    // std extends tuples of up to `EXTEND_TUPLE_MAX` collections; more fields nest (the last
    // is a tuple of the rest), with the same three shapes: the columns taken, a row's fields,
    // the places the columns go back to.
    let taken: Vec<_> =
        columns.iter().map(|column| quote!(::core::mem::take(&mut self.#column))).collect();
    let fields: Vec<_> = bindings.iter().map(|binding| quote!(#binding)).collect();
    let places: Vec<_> = columns.iter().map(|column| quote!(self.#column)).collect();
    let (taken, fields, places) = (nest(&taken), nest(&fields), nest(&places));
    let usize = quote!(::core::primitive::usize);
    quote! {
        #[inline]
        fn fresh_run_len(&self, keys: &[#k]) -> #usize {
            // No more than every column's room, nor the room the observer keeps for rows'
            // events.
            let mut __room = ::core::cmp::Ord::min(
                keys.len(),
                #hear::spare_rows(&self.#observer),
            );
            #(__room = ::core::cmp::Ord::min(
                __room,
                self.#columns.capacity() - self.#columns.len(),
            );)*
            #p::SparseSet::fresh_run_len(&self.#keys, &keys[..__room])
        }

        #[inline]
        fn push_fresh_run(&mut self, keys: &[#k], values: &mut #p::Vec<#value>) {
            let __pushed = #p::SparseSet::push_fresh_run(&mut self.#keys, keys);
            ::core::debug_assert_eq!(
                __pushed,
                keys.len(),
                "a run longer than `fresh_run_len` measured"
            );
            // The columns are taken out for the extend and put back after it; nothing in
            // between runs the caller's code or can fail (room is reserved, the values only
            // move), so they are always put back.
            let mut __columns = #taken;
            ::core::iter::Extend::extend(
                &mut __columns,
                ::core::iter::Iterator::map(values.drain(..__pushed), |__value| {
                    let #ident { #(#members: #bindings,)* } = __value;
                    #fields
                }),
            );
            #places = __columns;
            if #hear::OBSERVES {
                let __start = self.#keys.len() - __pushed;
                for __index in __start..self.#keys.len() {
                    #hear::inserted(
                        &mut self.#observer,
                        self.#keys.as_slice()[__index],
                        __index,
                        &#refs { #(#members: &self.#columns[__index],)* },
                    );
                }
            }
        }
    }
}

/// The most collections std's `Extend` for tuples takes in one tuple.
const EXTEND_TUPLE_MAX: usize = 12;

/// `items` as a tuple std's `Extend` takes: up to [`EXTEND_TUPLE_MAX`] as one tuple, more with
/// the last of those a tuple of the rest, nested as deep as it takes.
fn nest(items: &[TokenStream]) -> TokenStream {
    if items.len() <= EXTEND_TUPLE_MAX {
        quote!((#(#items,)*))
    } else {
        let (head, rest) = items.split_at(EXTEND_TUPLE_MAX - 1);
        let rest = nest(rest);
        quote!((#(#head,)* #rest,))
    }
}
