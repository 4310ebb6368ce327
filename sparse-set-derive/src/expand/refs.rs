//! The views of one element: `{Name}Ref<'a>` (the fields as `&`) and `{Name}Mut<'a>` (as
//! `&mut`), with the fields' names and visibility.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Input, Style};
use crate::expand::tokens::{doc, field_bounds, where_with};

pub(super) fn expand(input: &Input<'_>) -> TokenStream {
    let ref_definition = definition(input, false);
    let mut_definition = definition(input, true);
    let ref_impls = ref_impls(input);
    let mut_impls = mut_impls(input);
    let ref_debug = debug(input, &input.names.refs);
    let mut_debug = debug(input, &input.names.muts);
    quote! {
        #ref_definition
        #mut_definition
        #ref_impls
        #mut_impls
        #ref_debug
        #mut_debug
    }
}

fn definition(input: &Input<'_>, mutable: bool) -> TokenStream {
    let Input { vis, ident, names, .. } = input;
    let lifetime = &names.lifetime;
    let (name, reference, summary) = if mutable {
        (
            &names.muts,
            quote!(&#lifetime mut),
            format!(
                "One [`{ident}`] element of a [`{storage}`], mutably: each field as `&mut`, \
                 borrowed from its column.",
                storage = names.storage,
            ),
        )
    } else {
        (
            &names.refs,
            quote!(&#lifetime),
            format!(
                "One [`{ident}`] element of a [`{storage}`]: each field as `&`, borrowed from its \
                 column.",
                storage = names.storage,
            ),
        )
    };
    let summary = doc(&summary);
    let generics = input.generics_with_lifetime();
    let params = &generics.params;
    let where_clause = &input.generics.where_clause;
    let fields = input.fields.iter().map(|field| {
        let docs = if field.docs.is_empty() {
            let text = format!("The `{}` field.", field.display_name());
            quote!(#[doc = #text])
        } else {
            let docs = &field.docs;
            quote!(#(#docs)*)
        };
        let vis = field.vis;
        let ty = field.ty;
        // The generated field is spanned at the derive, not at the user's field: a view's field
        // that user code never reads is no dead code of theirs.
        let name = field.original.ident.as_ref().map(|ident| {
            let mut ident = ident.clone();
            ident.set_span(proc_macro2::Span::call_site());
            quote!(#ident:)
        });
        quote!(#docs #vis #name #reference #ty)
    });
    match input.style {
        Style::Named => quote! {
            #summary
            #vis struct #name<#params> #where_clause {
                #(#fields,)*
            }
        },
        Style::Tuple => quote! {
            #summary
            #vis struct #name<#params>(#(#fields,)*) #where_clause;
        },
    }
}

fn ref_impls(input: &Input<'_>) -> TokenStream {
    let Input { ident, generics, names, .. } = input;
    let with_lifetime = input.generics_with_lifetime();
    let (impl_generics, _, where_clause) = with_lifetime.split_for_impl();
    let ref_ty = input.borrowing(&names.refs, &{
        let lifetime = &names.lifetime;
        quote!(#lifetime)
    });
    let value = input.owning(ident);
    let members: Vec<_> = input.fields.iter().map(|field| &field.member).collect();
    let clone_where = where_with(
        generics.where_clause.as_ref(),
        &field_bounds(input, &quote!(::core::clone::Clone)),
    );
    let eq_where = where_with(
        with_lifetime.where_clause.as_ref(),
        &field_bounds(input, &quote!(::core::cmp::PartialEq)),
    );
    let eq_full_where = where_with(
        with_lifetime.where_clause.as_ref(),
        &field_bounds(input, &quote!(::core::cmp::Eq)),
    );
    let observer_where = where_with(
        with_lifetime.where_clause.as_ref(),
        &field_bounds(input, &quote!(::core::clone::Clone)),
    );
    let (p, k) = (&input.private, &input.key);
    // Not for a key that names one of the struct's type parameters: the orphan rules refuse
    // the impl then (the parameter would come before the first local type).
    let removed_values = (!names_type_parameter(k, input.generics)).then(|| {
        quote! {
            /// A removal of a row is recorded with a clone of the element.
            #[automatically_derived]
            impl #impl_generics #p::Observer<#k, #ref_ty> for #p::RemovedValues<#k, #value> #observer_where {
                fn attached(&mut self, _: &[#k], __bound: ::core::option::Option<::core::primitive::usize>) {
                    self.reserve_for(__bound);
                }

                #[inline]
                fn removed(&mut self, __key: #k, __row: &#ref_ty, _: #p::Removed<#k>) {
                    self.record(__key, #ident { #(#members: ::core::clone::Clone::clone(__row.#members),)* });
                }
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::clone::Clone for #ref_ty #where_clause {
            #[inline]
            fn clone(&self) -> Self {
                *self
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::marker::Copy for #ref_ty #where_clause {}

        #[automatically_derived]
        impl #impl_generics ::core::cmp::PartialEq for #ref_ty #eq_where {
            #[inline]
            #[allow(unpredictable_function_pointer_comparisons, reason = "the fields compared as `#[derive(PartialEq)]` compares them")]
            fn eq(&self, other: &Self) -> ::core::primitive::bool {
                true #(&& *self.#members == *other.#members)*
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::cmp::Eq for #ref_ty #eq_full_where {}

        #removed_values

        #[automatically_derived]
        impl #impl_generics #ref_ty #where_clause {
            /// The element, cloned out of the storage.
            ///
            /// Computes in **O(1)** time (plus the fields' clones).
            #[must_use]
            pub fn cloned(self) -> #value #clone_where {
                #ident { #(#members: ::core::clone::Clone::clone(self.#members),)* }
            }
        }
    }
}

fn mut_impls(input: &Input<'_>) -> TokenStream {
    let names = &input.names;
    let with_lifetime = input.generics_with_lifetime();
    let (impl_generics, _, where_clause) = with_lifetime.split_for_impl();
    let lifetime = &names.lifetime;
    let mut_ty = input.borrowing(&names.muts, &quote!(#lifetime));
    let ref_ty = input.borrowing(&names.refs, &quote!(#lifetime));
    let refs = &names.refs;
    let members: Vec<_> = input.fields.iter().map(|field| &field.member).collect();
    let as_ref_ty = input.borrowing(&names.refs, &quote!('_));
    quote! {
        #[automatically_derived]
        impl #impl_generics #mut_ty #where_clause {
            /// The same element, read-only, for as long as this view would have lasted.
            ///
            /// Computes in **O(1)** time.
            #[inline]
            #[must_use]
            pub fn into_ref(self) -> #ref_ty {
                #refs { #(#members: self.#members,)* }
            }

            /// The same element, read-only, for a shorter borrow.
            ///
            /// Computes in **O(1)** time.
            #[inline]
            #[must_use]
            pub fn as_ref(&self) -> #as_ref_ty {
                #refs { #(#members: &*self.#members,)* }
            }
        }
    }
}

/// `Debug` prints a view like the struct itself: `Position { x: 1.0, y: 2.0 }`.
fn debug(input: &Input<'_>, name: &syn::Ident) -> TokenStream {
    let with_lifetime = input.generics_with_lifetime();
    let (impl_generics, _, _) = with_lifetime.split_for_impl();
    let lifetime = &input.names.lifetime;
    let ty = input.borrowing(name, &quote!(#lifetime));
    let where_clause = where_with(
        input.generics.where_clause.as_ref(),
        &field_bounds(input, &quote!(::core::fmt::Debug)),
    );
    let struct_name = syn::ext::IdentExt::unraw(input.ident).to_string();
    let body = match input.style {
        Style::Named => {
            let fields = input.fields.iter().map(|field| {
                let member = &field.member;
                let text = field.display_name();
                quote!(.field(#text, &self.#member))
            });
            quote!(__f.debug_struct(#struct_name) #(#fields)* .finish())
        }
        Style::Tuple => {
            let fields = input.fields.iter().map(|field| {
                let member = &field.member;
                quote!(.field(&self.#member))
            });
            quote!(__f.debug_tuple(#struct_name) #(#fields)* .finish())
        }
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #ty #where_clause {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #body
            }
        }
    }
}

/// Whether `tokens` (a type) name one of `generics`' type parameters.
fn names_type_parameter(tokens: &TokenStream, generics: &syn::Generics) -> bool {
    fn walk(tokens: TokenStream, params: &[&proc_macro2::Ident]) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Ident(ident) => params.contains(&&ident),
            proc_macro2::TokenTree::Group(group) => walk(group.stream(), params),
            _ => false,
        })
    }
    let params: Vec<_> = generics.type_params().map(|param| &param.ident).collect();
    walk(tokens.clone(), &params)
}
