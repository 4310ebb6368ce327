//! Column access: `x()` / `x_mut()` per field, and `{Name}Columns` / `{Name}ColumnsMut`, every
//! column at once next to the keys.

use proc_macro2::TokenStream;
use quote::quote;

use super::{doc, key_text};
use crate::ast::Input;

pub(super) fn expand(input: &Input<'_>) -> TokenStream {
    let structs = [definition(input, false), definition(input, true)];
    let accessors = accessors(input);
    quote! {
        #(#structs)*
        #accessors
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
    let Input { generics, names, .. } = input;
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let self_ty = input.owning(&names.storage);
    let keys = &names.keys_field;
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
        let shared = doc(&format!(
            "The `{}` column: field `{}` of every element, in dense order (row `i` belongs to \
             `keys()[i]`).\n\nComputes in **O(1)** time.",
            field.accessor,
            field.display_name()
        ));
        let exclusive = doc(&format!(
            "The `{}` column, mutably: field `{}` of every element, in dense order. The slice \
             cannot change length, so the columns stay in lockstep; for several columns at once \
             see [`columns_mut`](Self::columns_mut).\n\nComputes in **O(1)** time.",
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
                #columns_name {
                    keys: self.#keys.as_slice(),
                    #(#accessor_names: self.#column_fields.as_slice(),)*
                }
            }

            /// Every column at once, mutably, with the keys read-only: write one column while
            /// reading another (`x[i] += y[i]`) without `unsafe` or cloning.
            ///
            /// Computes in **O(1)** time.
            #[inline]
            #[must_use]
            pub fn columns_mut(&mut self) -> #columns_mut_ty {
                #columns_mut_name {
                    keys: self.#keys.as_slice(),
                    #(#accessor_names: self.#column_fields.as_mut_slice(),)*
                }
            }
        }
    }
}
