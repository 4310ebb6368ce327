//! Change ticks of a storage whose observer keeps them (`Ticks`, or a tuple that starts with
//! it), or of a struct with tracked fields: `ticks`, `changed_since`, `added_since`, and for
//! tracked fields `{field}_changed_since`; and `set_if_neq` for every storage, the write that
//! counts only where it changes something. The methods can be called only on
//! such storages (the observer's `Tracks` bound on each, or, for tracked fields, only their
//! structs have them), so asking an untracked storage for changes does not compile.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;
use crate::expand::storage::parts::Parts;

/// The change ticks' `impl` block and the `TrackedStorage` impl: for storages whose observer
/// `Tracks`, or, for a struct with tracked fields, for every storage of it.
pub(super) fn expand(input: &Input<'_>) -> TokenStream {
    let Parts { p, k, keys, observer, .. } = &Parts::new(input);
    let o = &input.observer;
    let mut generics = input.storage_generics();
    // The inherent methods carry the observer's bound each, not the block: asking an
    // untracked storage for changes then reports `Tracks`' own message (rustc shows a block's
    // unmet bound only as a missing method).
    let inherent = generics.clone();
    let n = input.tracked_fields();
    let bound = if n == 0 { quote!(where #o: #p::Tracks) } else { TokenStream::new() };
    // Where the ticks are, their type, and what only tracked fields add.
    let (ticks_ty, ticks, ticks_mut, extra) = if n == 0 {
        generics.make_where_clause().predicates.push(syn::parse_quote!(#o: #p::Tracks));
        (
            quote!(#p::Ticks),
            quote!(#p::Tracks::ticks(&self.#observer)),
            quote!(#p::Tracks::ticks_mut(&mut self.#observer)),
            set_if_neq(input),
        )
    } else {
        (
            quote!(#p::FieldTicks<#n>),
            quote!(&self.#observer.0),
            quote!(&mut self.#observer.0),
            fields(input),
        )
    };
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (inherent_generics, _, inherent_where) = inherent.split_for_impl();
    let self_ty = input.storage_ty();
    quote! {
        #[automatically_derived]
        impl #inherent_generics #self_ty #inherent_where {
            /// The change ticks: the clock (`advance` it once per frame), when each row was
            /// added and last changed (with tracked fields: when each tracked field did).
            ///
            /// Computes in **O(1)** time.
            #[inline]
            #[must_use]
            pub fn ticks(&self) -> &#ticks_ty #bound {
                #ticks
            }

            /// The change ticks, mutably: to advance the clock.
            ///
            /// Computes in **O(1)** time.
            #[inline]
            pub fn ticks_mut(&mut self) -> &mut #ticks_ty #bound {
                #ticks_mut
            }

            /// The keys of the rows changed after `since` (inserted, replaced, or handed out
            /// mutably; with tracked fields, a tracked field of them), in dense order.
            ///
            /// Computes in **O(1)** time; the iterator runs in O(len).
            #[must_use]
            pub fn changed_since(&self, since: #p::Tick) -> #p::Since<'_, #k> #bound {
                self.ticks().rows_changed_since(self.#keys.as_slice(), since)
            }

            /// The keys of the rows added after `since`, in dense order. An insert over a
            /// present key is a change, not an addition; an `Entity` that takes over the row an
            /// older generation of its slot left behind (despawned from the allocator alone, its
            /// rows never removed) is an addition (`Observer::renewed`).
            ///
            /// Computes in **O(1)** time; the iterator runs in O(len).
            #[must_use]
            pub fn added_since(&self, since: #p::Tick) -> #p::Since<'_, #k> #bound {
                self.ticks().rows_added_since(self.#keys.as_slice(), since)
            }

            #extra
        }

        #[automatically_derived]
        impl #impl_generics #p::TrackedStorage for #self_ty #where_clause {
            type Ticks = #ticks_ty;

            #[inline]
            fn changes(&self) -> #p::RowChanges<'_> {
                Self::ticks(self).changes()
            }

            #[inline]
            fn ticks(&self) -> &#ticks_ty {
                Self::ticks(self)
            }

            #[inline]
            fn ticks_mut(&mut self) -> &mut #ticks_ty {
                Self::ticks_mut(self)
            }
        }
    }
}

/// What tracked fields add: `{field}_changed_since` per tracked field, and `set_if_neq`.
fn fields(input: &Input<'_>) -> TokenStream {
    let Parts { p, k, keys, observer, .. } = &Parts::new(input);
    let per_field = input.fields.iter().filter_map(|field| Some((field.tracked?, field))).map(
        |(slot, field)| {
            let name = quote::format_ident!(
                "{}_changed_since",
                syn::ext::IdentExt::unraw(&field.accessor)
            );
            let text = format!(
                "The keys of the rows whose field `{}` changed after `since` (inserted, replaced, \
             written through `get_mut` or its column), in dense order.\n\nComputes in **O(1)** \
             time; the iterator runs in O(len).",
                field.display_name()
            );
            let vis = field.vis;
            quote! {
                #[doc = #text]
                #[must_use]
                #vis fn #name(&self, since: #p::Tick) -> #p::Since<'_, #k> {
                    self.#observer.0.field_changed_since(self.#keys.as_slice(), #slot, since)
                }
            }
        },
    );
    let set_if_neq = set_if_neq(input);
    quote! {
        #(#per_field)*
        #set_if_neq
    }
}

/// `set_if_neq`: every field compared first, then, if any differs, the observer told of one
/// write of the row and the fields that differ written. With tracked fields, each field that
/// differs stamps its own tick, and the user's observer hears the write.
fn set_if_neq(input: &Input<'_>) -> TokenStream {
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
        option,
        bool,
        hear,
        ..
    } = &Parts::new(input);
    let o = &input.observer;
    let row = input.borrowing(&input.names.refs, &quote!('_));
    // Field `i` differs: `__differs[i]`.
    let differs: Vec<_> = (0..input.fields.len()).map(syn::Index::from).collect();
    let stamps = input.fields.iter().zip(&differs).map(|(field, i)| match field.tracked {
        Some(slot) => {
            quote!(if __differs[#i] { self.#observer.0.written_field(#slot, __index..__index + 1); })
        }
        None => TokenStream::new(),
    });
    let written = if input.tracked_fields() > 0 {
        quote!(<#o as #p::Observer<#k, #row>>::written(&mut self.#observer.1, __index..__index + 1))
    } else {
        quote!(#hear::written(&mut self.#observer, __index..__index + 1))
    };
    let compared = crate::expand::tokens::field_bounds(input, &quote!(::core::cmp::PartialEq));
    quote! {
            /// Writes `value` over the row of `key` field by field, only where it differs;
            /// returns whether any field did. The observer hears of one write if any field
            /// differs, and of nothing otherwise (a write that changes nothing is no change:
            /// with `Ticks`, the row's changed tick stays). With tracked fields only the fields
            /// that differ count as changed (a write through `get_mut` counts for every tracked
            /// field). Does nothing when `key` is absent.
            ///
            /// The fields are compared with `PartialEq`: a NaN field counts as changed every
            /// time, and `-0.0` written over `0.0` as unchanged (it is not written). Every field
            /// is compared before any is written, and the observer hears of the write before it
            /// happens, as `get_mut` reports when it hands the row out: a comparison that
            /// panics changes nothing, and a value's drop that panics leaves a write the
            /// observer knows of.
            ///
            /// Computes in **O(1)** time, plus the comparisons.
            #[allow(unpredictable_function_pointer_comparisons, reason = "the fields compared as `#[derive(PartialEq)]` compares them")]
            pub fn set_if_neq(&mut self, key: #k, value: #value) -> #bool
            where
                #(#compared,)*
            {
                let #option::Some(__index) = self.#keys.get_index_of(key) else {
                    return false;
                };
                let #ident { #(#members: #bindings,)* } = value;
                // `ne` rather than `!=`: a float field is compared as the user asked, without
                // the lint on comparing floats for equality.
                let __differs = [
                    #(::core::cmp::PartialEq::ne(&self.#columns[__index], &#bindings),)*
                ];
                if !__differs.contains(&true) {
                    return false;
                }
                #(#stamps)*
                #written;
                #(
                    if __differs[#differs] {
                        self.#columns[__index] = #bindings;
                    }
                )*
                true
            }
    }
}
