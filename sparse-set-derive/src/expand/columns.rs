//! Column access: `x()` / `x_mut()` per field, and `{Name}Columns` / `{Name}ColumnsMut`, every
//! column at once next to the keys.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;
use crate::expand::tokens::{doc, key_text, zip_expr};

pub(super) fn expand(input: &Input<'_>) -> TokenStream {
    let structs = [definition(input, false), definition(input, true)];
    let accessors = accessors(input);
    let rows = [rows(input, false), rows(input, true)];
    quote! {
        #(#structs)*
        #accessors
        #(#rows)*
    }
}

/// `Rows` and `IntoIterator` for `{Name}Columns` (`mutable = false`) or `{Name}ColumnsMut`:
/// split every slice at one position; walk them as the storage's `{Name}Iter` / `{Name}IterMut`.
fn rows(input: &Input<'_>, mutable: bool) -> TokenStream {
    let Input { names, private: p, key: k, .. } = input;
    let lifetime = &names.lifetime;
    let lifetime = quote!(#lifetime);
    let with_lifetime = input.generics_with_lifetime();
    let (impl_generics, _, where_clause) = with_lifetime.split_for_impl();
    let (name, iter, view) = if mutable {
        (&names.columns_mut, &names.iter_mut, &names.muts)
    } else {
        (&names.columns, &names.iter, &names.refs)
    };
    let self_ty = input.borrowing(name, &lifetime);
    let iter_ty = input.borrowing(iter, &lifetime);
    let row_ty = input.borrowing(view, &lifetime);
    let accessors: Vec<_> = input.fields.iter().map(|field| &field.accessor).collect();
    let positions: Vec<syn::Index> = (0..accessors.len()).map(syn::Index::from).collect();
    let split = if mutable { quote!(split_at_mut) } else { quote!(split_at) };
    let inner = zip_expr(
        quote!(::core::iter::IntoIterator::into_iter(self.keys)),
        accessors
            .iter()
            .map(|accessor| quote!(::core::iter::IntoIterator::into_iter(self.#accessor))),
    );
    let usize = quote!(::core::primitive::usize);
    // Shared columns are shared slices: copied freely (one per thread of a parallel query).
    let copy = if mutable {
        TokenStream::new()
    } else {
        quote! {
            #[automatically_derived]
            impl #impl_generics ::core::clone::Clone for #self_ty #where_clause {
                #[inline]
                fn clone(&self) -> Self {
                    *self
                }
            }

            #[automatically_derived]
            impl #impl_generics ::core::marker::Copy for #self_ty #where_clause {}
        }
    };
    quote! {
        #copy

        #[automatically_derived]
        impl #impl_generics #p::Rows for #self_ty #where_clause {
            type Key = #k;
            type Row = #row_ty;
            type Iter = #iter_ty;

            #[inline]
            fn keys(&self) -> &[#k] {
                self.keys
            }

            #[inline]
            fn len(&self) -> #usize {
                let __len = self.keys.len();
                #(let __len = ::core::cmp::Ord::min(__len, self.#accessors.len());)*
                __len
            }

            #[inline]
            #[track_caller]
            fn split_at(self, mid: #usize) -> (Self, Self) {
                let __keys = self.keys.split_at(mid);
                let __columns = (#(self.#accessors.#split(mid),)*);
                (
                    #name { keys: __keys.0, #(#accessors: __columns.#positions.0,)* },
                    #name { keys: __keys.1, #(#accessors: __columns.#positions.1,)* },
                )
            }

            #[inline]
            fn into_rows(self) -> #iter_ty {
                #iter { __inner: #inner }
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::iter::IntoIterator for #self_ty #where_clause {
            type Item = (#k, #row_ty);
            type IntoIter = #iter_ty;

            /// Walks the rows: each key with the view of its element, in dense order.
            #[inline]
            fn into_iter(self) -> #iter_ty {
                #p::Rows::into_rows(self)
            }
        }
    }
}

fn definition(input: &Input<'_>, mutable: bool) -> TokenStream {
    let Input { vis, names, key: k, .. } = input;
    let lifetime = &names.lifetime;
    let storage = &names.storage;
    let (name, reference, summary) = if mutable {
        (
            &names.columns_mut,
            quote!(&#lifetime mut),
            format!(
                "Every column of a [`{storage}`] at once, mutably, with the keys read-only: from \
                 [`{storage}::columns_mut`].\n\nEach column is a slice in dense order and has the \
                 length of `keys`; row `i` of every column belongs to `keys[i]`. Borrowing the \
                 fields separately lets a loop write one column while reading another, or use \
                 columns of two storages, without `unsafe`. The slices cannot change length, so \
                 the storage stays consistent."
            ),
        )
    } else {
        (
            &names.columns,
            quote!(&#lifetime),
            format!(
                "Every column of a [`{storage}`] at once, with the keys: from \
                 [`{storage}::columns`].\n\nEach column is a slice in dense order and has the \
                 length of `keys`; row `i` of every column belongs to `keys[i]`."
            ),
        )
    };
    let summary = doc(&summary);
    let keys_doc = doc(&format!(
        "The keys (`{}`) in dense order: `keys[i]` owns row `i` of every column.",
        key_text(input)
    ));
    let generics = input.generics_with_lifetime();
    let params = &generics.params;
    let where_clause = &input.generics.where_clause;
    let fields = input.fields.iter().map(|field| {
        let text = format!(
            "The `{}` column: field `{}` of every element.",
            field.accessor,
            field.display_name()
        );
        let vis = field.vis;
        let accessor = &field.accessor;
        let ty = field.ty;
        quote!(#[doc = #text] #vis #accessor: #reference [#ty])
    });
    quote! {
        #summary
        #vis struct #name<#params> #where_clause {
            #keys_doc
            pub keys: &#lifetime [#k],
            #(#fields,)*
        }
    }
}

fn accessors(input: &Input<'_>) -> TokenStream {
    let Input { names, private: p, key: k, observer: o, .. } = input;
    let generics = input.storage_generics();
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let self_ty = input.storage_ty();
    let keys = &names.keys_field;
    let observer = &names.observer_field;
    let hear = input.hear();
    let row = input.borrowing(&names.refs, &quote!('_));
    // Handing a column out mutably reports every row as written.
    let written = quote! {
        #hear::written(&mut self.#observer, 0..self.#keys.len());
    };
    let columns_ty = input.borrowing(&names.columns, &quote!('_));
    let columns_mut_ty = input.borrowing(&names.columns_mut, &quote!('_));
    let columns_name = &names.columns;
    let columns_mut_name = &names.columns_mut;
    let column_fields: Vec<_> = input.fields.iter().map(|field| &field.column).collect();
    let accessor_names: Vec<_> = input.fields.iter().map(|field| &field.accessor).collect();
    let methods = input.fields.iter().map(|field| {
        let vis = field.vis;
        let ty = field.ty;
        let column = &field.column;
        let accessor = &field.accessor;
        let accessor_mut = &field.accessor_mut;
        // With tracked fields, a column reaches the field ticks for its own field only.
        let written = match (input.tracked_fields(), field.tracked) {
            (0, _) => written.clone(),
            (_, slot) => {
                let stamp = slot.map(|slot| {
                    quote!(self.#observer.0.written_field(#slot, 0..self.#keys.len());)
                });
                quote! {
                    <#o as #p::Observer<#k, #row>>::written(&mut self.#observer.1, 0..self.#keys.len());
                    #stamp
                }
            }
        };
        let shared = doc(&format!(
            "The `{}` column: field `{}` of every element, in dense order (row `i` belongs to \
             `keys()[i]`).\n\nComputes in **O(1)** time.",
            field.accessor,
            field.display_name()
        ));
        let exclusive = doc(&format!(
            "The `{}` column, mutably: field `{}` of every element, in dense order. The slice \
             cannot change length, so the columns stay in lockstep; for several columns at once \
             see [`columns_mut`](Self::columns_mut). Every row is reported to the observer as \
             written.\n\nComputes in **O(1)** time.",
            field.accessor,
            field.display_name()
        ));
        quote! {
            #shared
            #[inline]
            #[must_use]
            #vis fn #accessor(&self) -> &[#ty] {
                self.#column.as_slice()
            }

            #exclusive
            #[inline]
            #[must_use]
            #vis fn #accessor_mut(&mut self) -> &mut [#ty] {
                #written
                self.#column.as_mut_slice()
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #self_ty #where_clause {
            #(#methods)*

            /// Every column at once, with the keys.
            ///
            /// Computes in **O(1)** time.
            #[inline]
            #[must_use]
            pub fn columns(&self) -> #columns_ty {
                // Every column cut to the keys' length (which it has): one length for all, so
                // a loop over the rows checks its bounds once.
                let __keys = self.#keys.as_slice();
                #columns_name {
                    keys: __keys,
                    #(#accessor_names: &self.#column_fields[..__keys.len()],)*
                }
            }

            /// Every column at once, mutably, with the keys read-only: write one column while
            /// reading another (`x[i] += y[i]`) without `unsafe` or cloning. Every row is
            /// reported to the observer as written.
            ///
            /// Computes in **O(1)** time.
            #[inline]
            #[must_use]
            pub fn columns_mut(&mut self) -> #columns_mut_ty {
                #written
                let __keys = self.#keys.as_slice();
                #columns_mut_name {
                    keys: __keys,
                    #(#accessor_names: &mut self.#column_fields[..__keys.len()],)*
                }
            }
        }
    }
}
