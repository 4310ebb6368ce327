//! The pieces the storage's methods are written with: the runtime path, the key and dense
//! types, the names of the generated views, and per field its column, member and binding.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, Member};

use crate::ast::Input;

/// The pieces the storage's methods are written with, under the names the methods use.
pub(super) struct Parts<'i> {
    /// The path of the runtime's `__private` module.
    pub(super) p: &'i TokenStream,
    /// The key type.
    pub(super) k: &'i TokenStream,
    /// The dense index type.
    pub(super) d: &'i TokenStream,
    /// The struct's name, to build and destructure values with.
    pub(super) ident: &'i Ident,
    /// The storage's field holding the key index.
    pub(super) keys: &'i Ident,
    /// `{Name}Ref` and `{Name}Mut`, to build views with.
    pub(super) refs: &'i Ident,
    pub(super) muts: &'i Ident,
    /// The struct as a type: `Name<args...>`.
    pub(super) value: TokenStream,
    /// The views as types: `{Name}Ref<'_, args...>` and `{Name}Mut<'_, args...>`.
    pub(super) ref_ty: TokenStream,
    pub(super) mut_ty: TokenStream,
    /// Per field, in order: its column, its member in the struct, its local while it moves.
    pub(super) columns: Vec<&'i Ident>,
    pub(super) members: Vec<&'i Member>,
    pub(super) bindings: Vec<&'i Ident>,
    /// The storage's field holding its observer.
    pub(super) observer: &'i Ident,
    /// `<O as Observer<K, NameRef<'_, ..>>>::OBSERVES`: whether events are reported at all (the
    /// code that builds them is skipped when not). With tracked fields, `O` here is the pair of
    /// the field ticks and the user's observer.
    pub(super) observes: TokenStream,
    /// `<O as Observer<K, NameRef<'_, ..>>>`: the path the events are called through.
    pub(super) hear: TokenStream,
    pub(super) option: TokenStream,
    pub(super) result: TokenStream,
    pub(super) usize: TokenStream,
    pub(super) bool: TokenStream,
}

impl<'i> Parts<'i> {
    /// `NameRef { x: &self.__column_0[index], .. }`: the row at dense position `index`.
    pub(super) fn row_at(&self, index: &TokenStream) -> TokenStream {
        let Parts { refs, columns, members, .. } = self;
        quote!(#refs { #(#members: &self.#columns[#index],)* })
    }

    /// `NameRef { x: &__field_0, .. }`: a view of a row whose fields are in the locals
    /// `bindings` (not of a value of the struct: the fields of a `#[repr(packed)]` struct
    /// cannot be borrowed).
    pub(super) fn row_of_bindings(&self) -> TokenStream {
        let Parts { refs, members, bindings, .. } = self;
        quote!(#refs { #(#members: &#bindings,)* })
    }

    pub(super) fn new(input: &'i Input<'_>) -> Self {
        let names = &input.names;
        let hear = input.hear();
        Parts {
            observer: &names.observer_field,
            observes: quote!(#hear::OBSERVES),
            hear,
            p: &input.private,
            k: &input.key,
            d: &input.dense,
            ident: input.ident,
            keys: &names.keys_field,
            refs: &names.refs,
            muts: &names.muts,
            value: input.owning(input.ident),
            ref_ty: input.borrowing(&names.refs, &quote!('_)),
            mut_ty: input.borrowing(&names.muts, &quote!('_)),
            columns: input.fields.iter().map(|field| &field.column).collect(),
            members: input.fields.iter().map(|field| &field.member).collect(),
            bindings: input.fields.iter().map(|field| &field.binding).collect(),
            option: quote!(::core::option::Option),
            result: quote!(::core::result::Result),
            usize: quote!(::core::primitive::usize),
            bool: quote!(::core::primitive::bool),
        }
    }
}
