//! Iterators: `{Name}Iter` (`iter`, `&storage`), `{Name}IterMut` (`iter_mut`, `&mut storage`),
//! `{Name}IntoIter` (by value) and `{Name}Drain` (`drain`).
//!
//! Each wraps one `Zip` of the key slice's iterator with every column's. The standard library
//! walks a zip of slice iterators with a single counter and no bounds checks, so iterating a
//! storage costs what iterating its slices costs.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::ast::Input;
use crate::expand::tokens::{doc, key_text, zip_expr};

/// What one kind of iterator is made of.
struct Kind<'a> {
    name: &'a Ident,
    /// Whether the iterator type borrows the storage (has the lifetime parameter).
    borrows: bool,
    summary: String,
    /// The iterator of the keys and of a column of `ty`.
    keys_iter: TokenStream,
    column_iter: &'a dyn Fn(&syn::Type) -> TokenStream,
    /// The item's value part.
    value_ty: TokenStream,
    /// How the key is taken out of what the keys iterator yields.
    key_expr: TokenStream,
    /// The struct each item's value is built as.
    value_name: &'a Ident,
}

pub(super) fn expand(input: &Input<'_>) -> TokenStream {
    let Input { ident, names, private: p, key: k, .. } = input;
    let lifetime = &names.lifetime;
    let lifetime = quote!(#lifetime);
    let storage = &names.storage;
    let value = input.owning(ident);
    let ref_ty = input.borrowing(&names.refs, &lifetime);
    let mut_ty = input.borrowing(&names.muts, &lifetime);
    let slice_iter = |ty: &syn::Type| quote!(::core::slice::Iter<#lifetime, #ty>);
    let slice_iter_mut = |ty: &syn::Type| quote!(::core::slice::IterMut<#lifetime, #ty>);
    let into_iter = |ty: &syn::Type| quote!(#p::VecIntoIter<#ty>);
    let drain = |ty: &syn::Type| quote!(#p::VecDrain<#lifetime, #ty>);
    let kinds = [
        Kind {
            name: &names.iter,
            borrows: true,
            summary: format!(
                "An iterator over the keys and elements of a [`{storage}`] in dense order, \
                 yielding `({key}, {refs})`: from [`{storage}::iter`].",
                key = key_text(input),
                refs = names.refs,
            ),
            keys_iter: quote!(::core::slice::Iter<#lifetime, #k>),
            column_iter: &slice_iter,
            value_ty: ref_ty,
            key_expr: quote!(*__key),
            value_name: &names.refs,
        },
        Kind {
            name: &names.iter_mut,
            borrows: true,
            summary: format!(
                "An iterator over the keys and mutable elements of a [`{storage}`] in dense order, \
                 yielding `({key}, {muts})`: from [`{storage}::iter_mut`].",
                key = key_text(input),
                muts = names.muts,
            ),
            keys_iter: quote!(::core::slice::Iter<#lifetime, #k>),
            column_iter: &slice_iter_mut,
            value_ty: mut_ty,
            key_expr: quote!(*__key),
            value_name: &names.muts,
        },
        Kind {
            name: &names.into_iter,
            borrows: false,
            summary: format!(
                "An iterator that moves the keys and elements out of a [`{storage}`] in dense \
                 order, yielding `({key}, {ident})`: from `IntoIterator`.",
                key = key_text(input),
            ),
            keys_iter: quote!(#p::SetIntoIter<#k>),
            column_iter: &into_iter,
            value_ty: value.clone(),
            key_expr: quote!(__key),
            value_name: ident,
        },
        Kind {
            name: &names.drain,
            borrows: true,
            summary: format!(
                "A draining iterator over the keys and elements of a [`{storage}`] in dense \
                 order, yielding `({key}, {ident})`: from [`{storage}::drain`]. The storage is \
                 already empty; elements not yielded are dropped with the iterator.",
                key = key_text(input),
            ),
            keys_iter: quote!(#p::SetDrain<#lifetime, #k>),
            column_iter: &drain,
            value_ty: value.clone(),
            key_expr: quote!(__key),
            value_name: ident,
        },
    ];
    let iterators = kinds.iter().map(|kind| iterator(input, kind));
    let methods = methods(input);
    quote! {
        #(#iterators)*
        #methods
    }
}

/// `zip(zip(keys, a), b)...`: the type.
fn zip_type(keys: TokenStream, columns: impl Iterator<Item = TokenStream>) -> TokenStream {
    columns.fold(keys, |zipped, column| quote!(::core::iter::Zip<#zipped, #column>))
}

/// `((__key, __field_0), __field_1)...`: the pattern of one zipped item.
fn zip_pattern(input: &Input<'_>) -> TokenStream {
    input.fields.iter().fold(quote!(__key), |pattern, field| {
        let binding = &field.binding;
        quote!((#pattern, #binding))
    })
}

fn iterator(input: &Input<'_>, kind: &Kind<'_>) -> TokenStream {
    let Input { vis, generics, key: k, .. } = input;
    let lifetime = &input.names.lifetime;
    let with_lifetime = input.generics_with_lifetime();
    let definition_generics = if kind.borrows { &with_lifetime } else { generics };
    let params = &definition_generics.params;
    let (impl_generics, _, where_clause) = definition_generics.split_for_impl();
    let name = kind.name;
    let ty =
        if kind.borrows { input.borrowing(name, &quote!(#lifetime)) } else { input.owning(name) };
    let inner = zip_type(
        kind.keys_iter.clone(),
        input.fields.iter().map(|field| (kind.column_iter)(field.ty)),
    );
    let pattern = zip_pattern(input);
    let key_expr = &kind.key_expr;
    let value_name = kind.value_name;
    let members = input.fields.iter().map(|field| &field.member);
    let bindings = input.fields.iter().map(|field| &field.binding);
    let make = quote!((#key_expr, #value_name { #(#members: #bindings,)* }));
    let value_ty = &kind.value_ty;
    let summary = doc(&kind.summary);
    let option = quote!(::core::option::Option);
    let usize = quote!(::core::primitive::usize);
    let clone = if kind.borrows && kind.name == &input.names.iter {
        quote! {
            #[automatically_derived]
            impl #impl_generics ::core::clone::Clone for #ty #where_clause {
                fn clone(&self) -> Self {
                    Self { __inner: ::core::clone::Clone::clone(&self.__inner) }
                }
            }
        }
    } else {
        TokenStream::new()
    };
    quote! {
        #summary
        #vis struct #name<#params> #where_clause {
            __inner: #inner,
        }

        #[automatically_derived]
        impl #impl_generics ::core::iter::Iterator for #ty #where_clause {
            type Item = (#k, #value_ty);

            #[inline]
            fn next(&mut self) -> #option<Self::Item> {
                let #pattern = ::core::iter::Iterator::next(&mut self.__inner)?;
                #option::Some(#make)
            }

            #[inline]
            fn size_hint(&self) -> (#usize, #option<#usize>) {
                ::core::iter::Iterator::size_hint(&self.__inner)
            }

            #[inline]
            fn fold<__B, __Fold>(self, init: __B, mut f: __Fold) -> __B
            where
                __Fold: ::core::ops::FnMut(__B, Self::Item) -> __B,
            {
                ::core::iter::Iterator::fold(self.__inner, init, move |__acc, #pattern| f(__acc, #make))
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::iter::DoubleEndedIterator for #ty #where_clause {
            #[inline]
            fn next_back(&mut self) -> #option<Self::Item> {
                let #pattern = ::core::iter::DoubleEndedIterator::next_back(&mut self.__inner)?;
                #option::Some(#make)
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::iter::ExactSizeIterator for #ty #where_clause {}

        #[automatically_derived]
        impl #impl_generics ::core::iter::FusedIterator for #ty #where_clause {}

        #clone
    }
}

fn methods(input: &Input<'_>) -> TokenStream {
    let Input { names, key: k, .. } = input;
    let generics = input.storage_generics();
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let self_ty = input.storage_ty();
    let keys = &names.keys_field;
    let observer = &names.observer_field;
    let hear = input.hear();
    let iter_ty = input.borrowing(&names.iter, &quote!('_));
    let iter_mut_ty = input.borrowing(&names.iter_mut, &quote!('_));
    let drain_ty = input.borrowing(&names.drain, &quote!('_));
    let iter_name = &names.iter;
    let iter_mut_name = &names.iter_mut;
    let into_iter_name = &names.into_iter;
    let drain_name = &names.drain;
    let columns: Vec<_> = input.fields.iter().map(|field| &field.column).collect();
    let iter = zip_expr(
        quote!(self.#keys.as_slice().iter()),
        columns.iter().map(|column| quote!(self.#column.iter())),
    );
    let iter_mut = zip_expr(
        quote!(self.#keys.as_slice().iter()),
        columns.iter().map(|column| quote!(self.#column.iter_mut())),
    );
    let drain = zip_expr(
        quote!(self.#keys.drain()),
        columns.iter().map(|column| quote!(self.#column.drain(..))),
    );
    let into_iter = zip_expr(
        quote!(::core::iter::IntoIterator::into_iter(self.#keys)),
        columns.iter().map(|column| quote!(::core::iter::IntoIterator::into_iter(self.#column))),
    );
    let lifetime = &names.lifetime;
    let with_lifetime = input.storage_generics_with_lifetime();
    let (impl_generics_lifetime, _, _) = with_lifetime.split_for_impl();
    let value = input.owning(input.ident);
    let ref_ty = input.borrowing(&names.refs, &quote!(#lifetime));
    let mut_ty = input.borrowing(&names.muts, &quote!(#lifetime));
    let iter_ty_lifetime = input.borrowing(&names.iter, &quote!(#lifetime));
    let iter_mut_ty_lifetime = input.borrowing(&names.iter_mut, &quote!(#lifetime));
    let into_iter_ty = input.owning(&names.into_iter);
    let report_drain = report_drain(input);
    quote! {
        #[automatically_derived]
        impl #impl_generics #self_ty #where_clause {
            /// Iterates over the keys and elements in dense order.
            ///
            /// Computes in **O(1)** time per step, with no per-element bounds checks.
            #[inline]
            pub fn iter(&self) -> #iter_ty {
                #iter_name { __inner: #iter }
            }

            /// Iterates over the keys and mutable elements in dense order. Every row is
            /// reported to the observer as written.
            ///
            /// Computes in **O(1)** time per step, with no per-element bounds checks.
            #[inline]
            pub fn iter_mut(&mut self) -> #iter_mut_ty {
                #hear::written(&mut self.#observer, 0..self.#keys.len());
                #iter_mut_name { __inner: #iter_mut }
            }

            /// Removes every element, yielding each key and value in dense order. The storage is
            /// empty as soon as this is called, even if the iterator is leaked; it keeps its
            /// memory.
            ///
            /// A storage with an observer reports every row's removal when `drain` is called,
            /// front to back, each with `moved: None` (every row from its position on is
            /// gone), before the rows are handed out; if a hook panics, the rows after it are
            /// still reported while the panic unwinds (a second panicking hook aborts, as in
            /// every bulk removal) and the storage is emptied, dropping their values.
            ///
            /// Computes in **O(len)** time when called (each key's slot is reset, and with an
            /// observer each row reported), plus **O(1)** per element yielded or dropped.
            pub fn drain(&mut self) -> #drain_ty {
                #report_drain
                #drain_name { __inner: #drain }
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::iter::IntoIterator for #self_ty #where_clause {
            type Item = (#k, #value);
            type IntoIter = #into_iter_ty;

            /// Moves the keys and elements out in dense order.
            #[inline]
            fn into_iter(self) -> Self::IntoIter {
                #into_iter_name { __inner: #into_iter }
            }
        }

        #[automatically_derived]
        impl #impl_generics_lifetime ::core::iter::IntoIterator for &#lifetime #self_ty #where_clause {
            type Item = (#k, #ref_ty);
            type IntoIter = #iter_ty_lifetime;

            #[inline]
            fn into_iter(self) -> Self::IntoIter {
                self.iter()
            }
        }

        #[automatically_derived]
        impl #impl_generics_lifetime ::core::iter::IntoIterator for &#lifetime mut #self_ty #where_clause {
            type Item = (#k, #mut_ty);
            type IntoIter = #iter_mut_ty_lifetime;

            #[inline]
            fn into_iter(self) -> Self::IntoIter {
                self.iter_mut()
            }
        }
    }
}

/// What `drain` does first for a storage with an observer: reports every row's removal, front
/// to back, while the rows are still there to be seen (the runtime's `report_drain`, which
/// also empties the storage if a hook panics).
fn report_drain(input: &Input<'_>) -> TokenStream {
    let Input { names, private: p, .. } = input;
    let (keys, observer, refs) = (&names.keys_field, &names.observer_field, &names.refs);
    let columns = input.fields.iter().map(|field| &field.column);
    let members = input.fields.iter().map(|field| &field.member);
    let hear = input.hear();
    let emptied = input.fields.iter().map(|field| &field.column);
    quote! {
        if #hear::OBSERVES {
            #p::report_drain(
                self,
                self.#keys.len(),
                |__storage, __index| {
                    #hear::removed(
                        &mut __storage.#observer,
                        __storage.#keys.as_slice()[__index],
                        &#refs { #(#members: &__storage.#columns[__index],)* },
                        #p::Removed { index: __index, moved: ::core::option::Option::None },
                    );
                },
                |__storage| {
                    __storage.#keys.clear();
                    #p::truncate_columns(0, &mut [#(&mut __storage.#emptied),*]);
                },
            );
        }
    }
}
