//! Checks that span several parts of the input (shape, names, collisions). Their problems join
//! those found while reading the input in the one error collector, [`Errors`].

use std::collections::BTreeMap;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::Type;

use crate::ast::{Field, Input, Style};
use crate::errors::Errors;
use crate::names::{STORAGE_METHODS, STORAGE_TRAIT_METHODS, type_text};

/// Checks `input` as a whole; problems go to `errors`.
pub(crate) fn check(input: &Input<'_>, errors: &mut Errors) {
    check_has_fields(input, errors);
    check_key(input, errors);
    check_tag(input, errors);
    check_storage_name(input, errors);
    check_accessors(input, errors);
    for field in &input.fields {
        check_field(field, errors);
    }
}

fn check_has_fields(input: &Input<'_>, errors: &mut Errors) {
    if input.fields.is_empty() && !input.tag {
        let shape = match input.style {
            Style::Named => "`{}`",
            Style::Tuple => "`()`",
        };
        errors.push(syn::Error::new(
            input.span(),
            format!(
                "`SparseSoa` needs at least one field, and `{}` has none ({shape}); use `SparseSet` to store keys alone",
                input.ident
            ),
        ));
    }
}

/// Types that are no key, written as such: the signed, 128-bit and floating-point numbers,
/// `bool`, `char` and text. The runtime's `Key` bound refuses them too, but once per method of
/// the storage (dozens of errors for one mistake); named here, the attribute gets one.
const NOT_KEYS: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u128", "f32", "f64", "bool", "char", "str",
    "String",
];

/// `key = T` where `T` is one of [`NOT_KEYS`], written alone or through `core`, `std` or
/// `alloc` (`core::primitive::i32`, `std::string::String`); a path elsewhere may name a type
/// of one's own (`ids::String`), which the runtime's bound judges.
fn check_key(input: &Input<'_>, errors: &mut Errors) {
    let Some(key) = &input.attrs.key else { return };
    let ty = match &key.value {
        Type::Reference(reference) => &*reference.elem,
        ty => ty,
    };
    // A type the storage cannot name, or one no crate may implement `Key` for: one error here,
    // not one per method.
    let written = match ty {
        Type::Infer(_) => Some("`_` names no type"),
        Type::ImplTrait(_) => Some("`impl Trait` names no type a storage can hold"),
        Type::TraitObject(_) => Some("a trait object is no key"),
        Type::Never(_) => Some("`!` has no values to key rows with"),
        Type::Tuple(_) | Type::Array(_) | Type::Slice(_) | Type::BareFn(_) | Type::Ptr(_) => {
            Some("a tuple, array, slice, function pointer or raw pointer is no key")
        }
        _ => None,
    };
    if let Some(problem) = written {
        errors.push(syn::Error::new_spanned(
            &key.value,
            format!(
                "{problem}: keys are `u8`, `u16`, `u32`, `u64`, `usize` and `Entity`; write one of them, or a type of your own that implements `Key`, as the `Key` docs show"
            ),
        ));
        return;
    }
    let Type::Path(path) = ty else { return };
    let segments = &path.path.segments;
    let (Some(first), Some(last)) = (segments.first(), segments.last()) else { return };
    if path.qself.is_none() && segments.len() == 1 && last.ident == "Self" {
        errors.push(syn::Error::new_spanned(
            &key.value,
            format!(
                "`key = Self` names `{}` itself, which cannot key its own storage: the key is what finds a row, such as `u32` or `Entity`; write `key = u32`, `key = Entity`, or an id type of your own that implements `Key`",
                input.ident
            ),
        ));
        return;
    }
    let from_std =
        segments.len() == 1 || ["core", "std", "alloc"].iter().any(|krate| first.ident == krate);
    let name = last.ident.to_string();
    if path.qself.is_some()
        || !from_std
        || !last.arguments.is_none()
        || !NOT_KEYS.contains(&name.as_str())
    {
        return;
    }
    errors.push(syn::Error::new_spanned(
        &key.value,
        format!(
            "`{name}` cannot key a sparse set: keys are `u8`, `u16`, `u32`, `u64`, `usize` and `Entity`; for another type (a signed integer, an id of your own), implement `Key` for a newtype that returns its slot, as the `Key` docs show"
        ),
    ));
}

/// A tag's storage is a type alias of `SparseSet`, which has no room for the struct's generics.
fn check_tag(input: &Input<'_>, errors: &mut Errors) {
    if input.tag && !input.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(
            input.generics,
            format!(
                "a tag cannot have generic parameters: the storage of `{}` is a `SparseSet` of the keys that have it, with nothing to be generic over; remove them",
                input.ident
            ),
        ));
    }
}

fn check_storage_name(input: &Input<'_>, errors: &mut Errors) {
    let Some(name) = &input.attrs.name else { return };
    let wanted = &name.value;
    if wanted == input.ident {
        errors.push(syn::Error::new(
            name.value.span(),
            format!("`name` must differ from the struct's own name `{}`", input.ident),
        ));
    } else if input.names.helper_types().contains(&wanted) {
        errors.push(syn::Error::new(
            name.value.span(),
            format!("`name = \"{wanted}\"` collides with the generated type `{wanted}`; choose another name"),
        ));
    }
}

/// Column accessors must not take a storage method's name, nor each other's.
fn check_accessors(input: &Input<'_>, errors: &mut Errors) {
    let storage = &input.names.storage;
    // With tracked fields the storage has one `{field}_changed_since` per tracked field too.
    let mut tracked_methods: Vec<String> = Vec::new();
    if input.tracked_fields() > 0 {
        for field in input.fields.iter().filter(|field| field.tracked.is_some()) {
            let accessor = syn::ext::IdentExt::unraw(&field.accessor);
            tracked_methods.push(format!("{accessor}_changed_since"));
        }
    }
    let mut taken: BTreeMap<String, &Field<'_>> = BTreeMap::new();
    for field in &input.fields {
        let span = field.attrs.rename.as_ref().map_or_else(|| field.span(), |rename| rename.span);
        let how = if field.attrs.rename.is_some() {
            "choose another name in `#[sparse_soa(rename = \"...\")]`"
        } else {
            "rename the accessors with `#[sparse_soa(rename = \"...\")]` on the field"
        };
        for accessor in [&field.accessor, &field.accessor_mut] {
            let text = syn::ext::IdentExt::unraw(accessor).to_string();
            if STORAGE_METHODS.contains(&text.as_str())
                || STORAGE_TRAIT_METHODS.contains(&text.as_str())
                || tracked_methods.contains(&text)
            {
                errors.push(syn::Error::new(
                    span,
                    format!(
                        "field `{}` would get the column accessor `{text}`, which collides with `{storage}::{text}`; {how}",
                        field.display_name()
                    ),
                ));
                break;
            }
            if let Some(other) = taken.get(&text) {
                errors.push(syn::Error::new(
                    span,
                    format!(
                        "field `{}` would get the column accessor `{text}`, which field `{}` already has; {how}",
                        field.display_name(),
                        other.display_name()
                    ),
                ));
                break;
            }
        }
        for accessor in [&field.accessor, &field.accessor_mut] {
            taken.entry(syn::ext::IdentExt::unraw(accessor).to_string()).or_insert(field);
        }
    }
}

fn check_field(field: &Field<'_>, errors: &mut Errors) {
    if let Some(span) = self_in(field.ty.to_token_stream()) {
        errors.push(syn::Error::new(
            span,
            "a field's type cannot mention `Self` in a `SparseSoa` struct, since the generated types reuse it; write the struct's name instead",
        ));
    }
    if let Some(what) = unsized_kind(field.ty) {
        errors.push(syn::Error::new_spanned(
            field.ty,
            format!(
                "field `{}` has the unsized type `{}` ({what}); a column stores sized values, such as `Box<{}>`",
                field.display_name(),
                type_text(field.ty),
                type_text(field.ty)
            ),
        ));
    }
}

/// Where `tokens` mention `Self` first, at any depth.
fn self_in(tokens: TokenStream) -> Option<proc_macro2::Span> {
    tokens.into_iter().find_map(|tree| match tree {
        TokenTree::Ident(ident) if ident == "Self" => Some(ident.span()),
        TokenTree::Group(group) => self_in(group.stream()),
        _ => None,
    })
}

/// Types that are unsized on their face: `str`, slices, trait objects.
fn unsized_kind(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Slice(_) => Some("a slice"),
        Type::TraitObject(_) => Some("a trait object"),
        Type::Path(path) if path.qself.is_none() && path.path.is_ident("str") => {
            Some("a string slice")
        }
        Type::Paren(inner) => unsized_kind(&inner.elem),
        Type::Group(inner) => unsized_kind(&inner.elem),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;
    use syn::{DeriveInput, Type, parse_quote};

    use super::{check, self_in, unsized_kind};
    use crate::ast::Input;
    use crate::errors::Errors;

    /// The messages `input` gets from reading and checking it.
    fn messages(input: &DeriveInput) -> Vec<String> {
        let mut errors = Errors::default();
        let model = Input::from_syn(input, &mut errors);
        if let Ok(model) = &model {
            check(model, &mut errors);
        }
        match errors.finish(model) {
            Ok(_) => Vec::new(),
            Err(error) => error.into_iter().map(|error| error.to_string()).collect(),
        }
    }

    #[test]
    fn mentions_self_finds_self_at_any_depth() {
        assert!(self_in(quote!(Self)).is_some());
        assert!(self_in(quote!(Vec<Self>)).is_some());
        assert!(self_in(quote!(Box<[Option<(u8, Self)>; 3]>)).is_some());
        assert!(self_in(quote!(<Self as Trait>::Output)).is_some());
    }

    #[test]
    fn mentions_self_ignores_names_that_only_contain_self() {
        assert!(self_in(quote!(u32)).is_none());
        assert!(self_in(quote!(SelfRef)).is_none());
        assert!(self_in(quote!(Vec<Selfish>)).is_none());
        assert!(self_in(quote!(self_::Type)).is_none());
    }

    #[test]
    fn unsized_kind_names_unsized_types() {
        let kind = |ty: Type| unsized_kind(&ty);
        assert_eq!(kind(parse_quote!(str)), Some("a string slice"));
        assert_eq!(kind(parse_quote!([u8])), Some("a slice"));
        assert_eq!(kind(parse_quote!(dyn Fn(u8) -> u8)), Some("a trait object"));
        assert_eq!(kind(parse_quote!((str))), Some("a string slice"));
        assert_eq!(kind(parse_quote!(([u8]))), Some("a slice"));
    }

    #[test]
    fn unsized_kind_accepts_sized_types() {
        let kind = |ty: Type| unsized_kind(&ty);
        assert_eq!(kind(parse_quote!(&str)), None);
        assert_eq!(kind(parse_quote!(Box<str>)), None);
        assert_eq!(kind(parse_quote!([u8; 4])), None);
        assert_eq!(kind(parse_quote!(Box<dyn Fn()>)), None);
        // A path that merely ends in `str` may be a user's sized type.
        assert_eq!(kind(parse_quote!(my::str)), None);
    }

    #[test]
    fn a_sound_struct_has_no_errors() {
        let input = parse_quote! {
            struct Body<T> { position: [f32; 3], mass: T, name: String }
        };
        assert_eq!(messages(&input), Vec::<String>::new());
    }

    #[test]
    fn a_key_written_as_a_type_that_is_no_key_is_refused_once() {
        for key in [
            quote!(i32),
            quote!(core::primitive::i64),
            quote!(::std::string::String),
            quote!(&'static str),
        ] {
            let input = parse_quote! { #[sparse_soa(key = #key)] struct Body { mass: f32 } };
            let messages = messages(&input);
            assert_eq!(messages.len(), 1, "{key}: {messages:#?}");
            assert!(messages[0].contains("cannot key a sparse set"), "{key}: {messages:#?}");
        }
        for key in [
            quote!(_),
            quote!(impl Copy),
            quote!(dyn Copy),
            quote!(!),
            quote!((u32, u32)),
            quote!([u32; 2]),
            quote!(fn() -> u32),
            quote!(*const u32),
        ] {
            let input = parse_quote! { #[sparse_soa(key = #key)] struct Body { mass: f32 } };
            let messages = messages(&input);
            assert_eq!(messages.len(), 1, "{key}: {messages:#?}");
            assert!(messages[0].contains("keys are `u8`"), "{key}: {messages:#?}");
        }
        for key in [
            quote!(u64),
            quote!(Entity),
            quote!(sparse_soa::Entity),
            quote!(MyId),
            quote!(ids::String),
        ] {
            let input = parse_quote! { #[sparse_soa(key = #key)] struct Body { mass: f32 } };
            assert_eq!(messages(&input), Vec::<String>::new(), "{key}");
        }
    }

    #[test]
    fn key_self_is_refused_once() {
        {
            let key = quote!(Self);
            let input = parse_quote! { #[sparse_soa(key = #key)] struct Body { mass: f32 } };
            let messages = messages(&input);
            assert_eq!(messages.len(), 1, "{key}: {messages:#?}");
            assert!(messages[0].starts_with("`key = Self` names `Body` itself"), "{messages:#?}");
        }
    }

    #[test]
    fn every_problem_is_reported_together() {
        let input = parse_quote! {
            #[sparse_soa(nmae = "Bodies")]
            struct Body { len: u32, text: str, next: Box<Self> }
        };
        let messages = messages(&input);
        assert_eq!(messages.len(), 4, "{messages:#?}");
        assert!(
            messages[0].starts_with("unknown sparse_soa attribute `nmae`; did you mean `name`?")
        );
        assert!(messages[1].starts_with("field `len` would get the column accessor `len`"));
        assert!(messages[2].starts_with("field `text` has the unsized type `str`"));
        assert!(messages[3].starts_with("a field's type cannot mention `Self`"));
    }

    #[test]
    fn accessors_may_take_the_invariant_checkers_name() {
        let input = parse_quote! {
            struct Body { assert_invariants: u32, debug_assert_invariants: u32 }
        };
        assert_eq!(messages(&input), Vec::<String>::new());
    }

    #[test]
    fn accessors_may_not_take_a_trait_method_name() {
        let input = parse_quote! {
            struct Body { clone: u32 }
        };
        let messages = messages(&input);
        assert_eq!(messages.len(), 1, "{messages:#?}");
        assert!(messages[0].contains("collides with `BodySoa::clone`"));
    }
}
