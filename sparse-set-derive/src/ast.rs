//! The input model: the struct, its fields and generics, borrowed from syn with spans kept, plus
//! the names and paths the expansion uses.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;
use syn::{
    Attribute, DeriveInput, Fields, GenericParam, Generics, Ident, Member, Type, Visibility,
};

use crate::attr;
use crate::errors::{self, Errors};
use crate::names::{self, Names};

/// Named (`struct P { x: f32 }`) or tuple (`struct P(f32)`) fields.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Named,
    Tuple,
}

/// A struct `#[derive(SparseSoa)]` accepted the shape of.
pub(crate) struct Input<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) vis: &'a Visibility,
    pub(crate) generics: &'a Generics,
    pub(crate) style: Style,
    /// A unit struct: a tag, whose storage is a `SparseSet` of the keys that have it.
    pub(crate) tag: bool,
    pub(crate) fields: Vec<Field<'a>>,
    pub(crate) attrs: attr::Container,
    pub(crate) names: Names,
    /// The path of the runtime's `__private` module.
    pub(crate) private: TokenStream,
    /// The key type.
    pub(crate) key: TokenStream,
    /// The dense index type.
    pub(crate) dense: TokenStream,
    /// The storage's observer type parameter: `O`, or `__O` when the struct names an `O`
    /// already (a type parameter, or a type its fields use).
    pub(crate) observer: Ident,
    /// `#[sparse_soa(serde)]`: emit the serde impls. The span of the key, where a build of
    /// `sparse-soa` without its `serde` feature reports that it is missing.
    pub(crate) serde: Option<Span>,
}

/// One field: one column.
pub(crate) struct Field<'a> {
    pub(crate) original: &'a syn::Field,
    /// `x`, or `0` for a tuple field.
    pub(crate) member: Member,
    pub(crate) vis: &'a Visibility,
    pub(crate) ty: &'a Type,
    pub(crate) attrs: attr::Field,
    /// The field's doc comments, carried over to the views of it.
    pub(crate) docs: Vec<&'a Attribute>,
    /// `x`: the shared column accessor.
    pub(crate) accessor: Ident,
    /// `x_mut`: the mutable column accessor.
    pub(crate) accessor_mut: Ident,
    /// `__field_0`: the field's value in flight.
    pub(crate) binding: Ident,
    /// `__column_0`: the storage's `Vec` for this field.
    pub(crate) column: Ident,
    /// With `#[sparse_soa(track)]`: the field's slot among the tracked fields (its column of
    /// stamps in the storage's `FieldTicks`).
    pub(crate) tracked: Option<usize>,
}

impl<'a> Input<'a> {
    /// Reads the struct and its attributes; problems that do not stop the reading go to `errors`.
    /// `Err` when the shape cannot be derived for at all (an enum, a union).
    pub(crate) fn from_syn(input: &'a DeriveInput, errors: &mut Errors) -> syn::Result<Self> {
        let attrs = attr::Container::from_attrs(&input.attrs, errors);
        let fields = errors::struct_fields(
            input,
            "SparseSoa",
            "it stores a struct's fields as columns; derive it for a struct, with the enum as one of its fields",
            "it stores a struct's fields as columns; derive it for a struct",
        )?;
        let (style, tag, fields) = match fields {
            Fields::Named(fields) => (Style::Named, false, Some(&fields.named)),
            Fields::Unnamed(fields) => (Style::Tuple, false, Some(&fields.unnamed)),
            Fields::Unit => (Style::Named, true, None),
        };
        let mut fields: Vec<Field<'a>> = fields
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(index, field)| Field::from_syn(field, index, errors))
            .collect();
        let mut slots = 0..;
        for field in &mut fields {
            if field.attrs.track.is_some() {
                field.tracked = slots.next();
            }
        }
        let lifetimes = names::lifetimes_in(input.to_token_stream());
        let names =
            Names::new(&input.ident, attrs.name.as_ref().map(|name| &name.value), &lifetimes);
        let private = names::private_path(attrs.krate.as_ref().map(|krate| &krate.value));
        let key = attrs
            .key
            .as_ref()
            .map_or_else(|| quote!(::core::primitive::u32), |key| key.value.to_token_stream());
        let dense = attrs.dense.as_ref().map_or_else(
            || quote!(::core::primitive::u32),
            |width| {
                let width = &width.value;
                quote!(::core::primitive::#width)
            },
        );
        let serde = attrs.serde.as_ref().map(|serde| serde.span);
        let observer = if names_ident(input.to_token_stream(), "O") {
            Ident::new("__O", Span::call_site())
        } else {
            Ident::new("O", Span::call_site())
        };
        Ok(Input {
            observer,
            serde,
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            style,
            tag,
            fields,
            attrs,
            names,
            private,
            key,
            dense,
        })
    }

    /// The generic arguments of the struct, as written in a type: `'s, T, N`.
    pub(crate) fn generic_args(&self) -> Vec<TokenStream> {
        self.generics
            .params
            .iter()
            .map(|param| match param {
                GenericParam::Lifetime(param) => param.lifetime.to_token_stream(),
                GenericParam::Type(param) => param.ident.to_token_stream(),
                GenericParam::Const(param) => param.ident.to_token_stream(),
            })
            .collect()
    }

    /// `Name<#lifetime, args...>` for one of the borrowing helper types.
    pub(crate) fn borrowing(&self, name: &Ident, lifetime: &TokenStream) -> TokenStream {
        let args = self.generic_args();
        quote!(#name<#lifetime #(, #args)*>)
    }

    /// `Name<args...>` for the storage, the struct, or an owning helper type.
    pub(crate) fn owning(&self, name: &Ident) -> TokenStream {
        let args = self.generic_args();
        if args.is_empty() { quote!(#name) } else { quote!(#name<#(#args),*>) }
    }

    /// The struct's generics with the borrowing lifetime added in front.
    pub(crate) fn generics_with_lifetime(&self) -> Generics {
        let mut generics = self.generics.clone();
        let lifetime = syn::LifetimeParam::new(self.names.lifetime.clone());
        generics.params.insert(0, GenericParam::Lifetime(lifetime));
        generics
    }

    /// The storage's generics: the struct's, then the observer's type parameter, bounded on
    /// observing rows seen as `{Name}Ref` views (`O: for<'r> Observer<K, NameRef<'r, ..>>`).
    pub(crate) fn storage_generics(&self) -> Generics {
        with_observer(self, self.generics.clone())
    }

    /// [`storage_generics`](Self::storage_generics) with the borrowing lifetime in front.
    pub(crate) fn storage_generics_with_lifetime(&self) -> Generics {
        with_observer(self, self.generics_with_lifetime())
    }

    /// `NameSoa<args..., O>`: the storage with any observer.
    pub(crate) fn storage_ty(&self) -> TokenStream {
        let name = &self.names.storage;
        let args = self.generic_args();
        let observer = &self.observer;
        quote!(#name<#(#args,)* #observer>)
    }

    /// `O: for<'r> Observer<K, NameRef<'r, ..>>`: what every impl of the storage asks of its
    /// observer.
    pub(crate) fn observer_bound(&self) -> TokenStream {
        let (p, k, observer) = (&self.private, &self.key, &self.observer);
        let row = self.borrowing(&self.names.refs, &quote!('__row));
        quote!(#observer: for<'__row> #p::Observer<#k, #row>)
    }

    /// How many fields are marked `#[sparse_soa(track)]`.
    pub(crate) fn tracked_fields(&self) -> usize {
        self.fields.iter().filter(|field| field.tracked.is_some()).count()
    }

    /// The type of the storage's observer field: `O`, or `(FieldTicks<N>, O)` when `N` fields
    /// are tracked (the field ticks hear every event first).
    pub(crate) fn observer_field_ty(&self) -> TokenStream {
        let (p, observer) = (&self.private, &self.observer);
        match self.tracked_fields() {
            0 => quote!(#observer),
            n => quote!((#p::FieldTicks<#n>, #observer)),
        }
    }

    /// The observer field's value holding `observer` and, with tracked fields, `ticks`.
    pub(crate) fn observer_value(
        &self,
        ticks: &TokenStream,
        observer: &TokenStream,
    ) -> TokenStream {
        if self.tracked_fields() == 0 { quote!(#observer) } else { quote!((#ticks, #observer)) }
    }

    /// `.1` with tracked fields, where the user's observer is the pair's second; nothing
    /// otherwise. Appended to `self.__observer`.
    pub(crate) fn user_observer(&self) -> TokenStream {
        if self.tracked_fields() == 0 { TokenStream::new() } else { quote!(.1) }
    }

    /// `<ObserverFieldType as Observer<K, NameRef<'_, ..>>>`: the path events are reported
    /// through.
    pub(crate) fn hear(&self) -> TokenStream {
        let (p, k) = (&self.private, &self.key);
        let ty = self.observer_field_ty();
        let row = self.borrowing(&self.names.refs, &quote!('_));
        quote!(<#ty as #p::Observer<#k, #row>>)
    }

    /// A span to report whole-struct problems at.
    pub(crate) fn span(&self) -> Span {
        self.ident.span()
    }
}

/// `generics` with the observer's type parameter appended and bounded.
fn with_observer(input: &Input<'_>, mut generics: Generics) -> Generics {
    let observer = &input.observer;
    generics.params.push(syn::parse_quote!(#observer));
    let bound = input.observer_bound();
    generics.make_where_clause().predicates.push(syn::parse_quote!(#bound));
    generics
}

/// Whether `tokens` contain the identifier `name` anywhere.
fn names_ident(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => ident == name,
        proc_macro2::TokenTree::Group(group) => names_ident(group.stream(), name),
        _ => false,
    })
}

impl<'a> Field<'a> {
    fn from_syn(field: &'a syn::Field, index: usize, errors: &mut Errors) -> Self {
        let attrs = attr::Field::from_attrs(&field.attrs, errors);
        let member = match &field.ident {
            Some(ident) => Member::Named(ident.clone()),
            None => Member::Unnamed(syn::Index { index: index as u32, span: field.ty.span() }),
        };
        let accessor = names::accessor(
            field.ident.as_ref(),
            index,
            attrs.rename.as_ref().map(|rename| &rename.value),
        );
        let accessor_mut = names::accessor_mut(&accessor);
        Field {
            original: field,
            member,
            vis: &field.vis,
            ty: &field.ty,
            docs: field.attrs.iter().filter(|attr| attr.path().is_ident("doc")).collect(),
            attrs,
            accessor,
            accessor_mut,
            binding: names::binding(index),
            column: names::column_field(index),
            tracked: None,
        }
    }

    /// The span to report problems with this field at: its name, or its type for a tuple field.
    pub(crate) fn span(&self) -> Span {
        match &self.original.ident {
            Some(ident) => ident.span(),
            None => self.ty.span(),
        }
    }

    /// The name users know the field by, for messages and `Debug`: `x`, `type`, `0`.
    pub(crate) fn display_name(&self) -> String {
        match &self.member {
            Member::Named(ident) => syn::ext::IdentExt::unraw(ident).to_string(),
            Member::Unnamed(index) => index.index.to_string(),
        }
    }
}
