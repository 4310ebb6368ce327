//! Every identifier the derive generates is made here, and nowhere else; so is the text of types
//! shown in messages and docs.

use proc_macro2::{Spacing, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote};
use syn::ext::IdentExt;
use syn::{GenericParam, Generics, Ident, Lifetime, Path};

/// The path of the runtime's `__private` module, which all generated code names things
/// through: under `krate` (the `crate = path` attribute) if given, else `::sparse_soa`.
pub(crate) fn private_path(krate: Option<&Path>) -> TokenStream {
    krate.map_or_else(|| quote!(::sparse_soa::__private), |path| quote!(#path::__private))
}

/// The storage's inherent methods, its column accessors aside. A column accessor must take none
/// of these names, nor one of [`STORAGE_TRAIT_METHODS`]. Kept by hand; a unit test compares it
/// with the methods the expansion emits.
pub(crate) const STORAGE_METHODS: &[&str] = &[
    "new",
    "with_capacity",
    "try_with_capacity",
    "bounded",
    "try_bounded",
    "len",
    "is_empty",
    "capacity",
    "remaining_capacity",
    "key_limit",
    "allocated_bytes",
    "reserve",
    "try_reserve",
    "reserve_slots",
    "shrink_to_fit",
    "insert",
    "insert_full",
    "try_insert",
    "try_insert_full",
    "remove",
    "remove_with_info",
    "swap_remove_index",
    "swap_remove",
    "pop",
    "get",
    "get_mut",
    "get_disjoint_mut",
    "get_key_value",
    "get_full",
    "get_index",
    "get_index_mut",
    "get_index_of",
    "contains_key",
    "keys",
    "as_sparse_set",
    "iter",
    "iter_mut",
    "retain",
    "drain",
    "clear",
    "truncate",
    "swap_indices",
    "sort_by",
    "sort_by_key",
    "sort_unstable_by",
    "sort_as",
    "sort_keys",
    "columns",
    "columns_mut",
    "try_clone",
    "with_observer",
    "observed_by",
    "into_unobserved",
    "observer",
    "observer_mut",
    "ticks",
    "ticks_mut",
    "changed_since",
    "added_since",
    "get_mut_untracked",
    "set_if_neq",
];

/// Methods of the storage's traits that users call as methods (`storage.clone()`), which an
/// inherent column accessor of the same name would shadow; with them rayon's, which the
/// storage has with the `rayon` feature (`storage.par_iter()`), reserved with or without it so
/// that a struct's names do not depend on a feature.
pub(crate) const STORAGE_TRAIT_METHODS: &[&str] = &[
    "clone",
    "clone_from",
    "default",
    "eq",
    "ne",
    "fmt",
    "extend",
    "from_iter",
    "into_iter",
    "to_owned",
    "par_iter",
    "par_iter_mut",
    "into_par_iter",
];

/// The names of the generated types and the lifetime they borrow with.
pub(crate) struct Names {
    /// `PositionSoa`, or the `name` attribute.
    pub(crate) storage: Ident,
    /// `PositionRef`.
    pub(crate) refs: Ident,
    /// `PositionMut`.
    pub(crate) muts: Ident,
    /// `PositionColumns`.
    pub(crate) columns: Ident,
    /// `PositionColumnsMut`.
    pub(crate) columns_mut: Ident,
    /// `PositionIter`.
    pub(crate) iter: Ident,
    /// `PositionIterMut`.
    pub(crate) iter_mut: Ident,
    /// `PositionIntoIter`.
    pub(crate) into_iter: Ident,
    /// `PositionDrain`.
    pub(crate) drain: Ident,
    /// `'a`, or the first of `'b`, `'c`, ... the struct does not already use.
    pub(crate) lifetime: Lifetime,
    /// The storage's private field holding the key index.
    pub(crate) keys_field: Ident,
    /// The storage's private field holding its observer.
    pub(crate) observer_field: Ident,
    /// `'__de`: the deserializer's lifetime in the serde impls.
    pub(crate) de_lifetime: Lifetime,
}

impl Names {
    /// The names for struct `ident` (renamed to `name`), whose tokens name the lifetimes
    /// `lifetimes` (its parameters, and any other: a `for<'a>` in a field's type).
    pub(crate) fn new(ident: &Ident, name: Option<&Ident>, lifetimes: &[String]) -> Self {
        let base = ident.unraw();
        let make = |suffix: &str| format_ident!("{base}{suffix}", span = Span::call_site());
        Names {
            storage: name.cloned().unwrap_or_else(|| make("Soa")),
            refs: make("Ref"),
            muts: make("Mut"),
            columns: make("Columns"),
            columns_mut: make("ColumnsMut"),
            iter: make("Iter"),
            iter_mut: make("IterMut"),
            into_iter: make("IntoIter"),
            drain: make("Drain"),
            lifetime: fresh_lifetime(lifetimes),
            keys_field: format_ident!("__keys"),
            observer_field: format_ident!("__observer"),
            de_lifetime: Lifetime::new("'__de", Span::call_site()),
        }
    }

    /// Every generated type name other than the storage's, for collision checks.
    pub(crate) fn helper_types(&self) -> [&Ident; 8] {
        [
            &self.refs,
            &self.muts,
            &self.columns,
            &self.columns_mut,
            &self.iter,
            &self.iter_mut,
            &self.into_iter,
            &self.drain,
        ]
    }
}

/// `'a`, or the first of `'b`, `'c`, ... that is not in `used`: a lifetime the generated
/// items declare, which must not be the struct's own nor shadow one its tokens bind (a
/// `for<'a>` in a field's type or a `where` clause).
fn fresh_lifetime(used: &[String]) -> Lifetime {
    let name = ('a'..='z')
        .map(String::from)
        .find(|name| !used.contains(name))
        .unwrap_or_else(|| String::from("__soa"));
    Lifetime::new(&format!("'{name}"), Span::call_site())
}

/// The names of every lifetime `tokens` mention (`'a` gives `a`), in any position.
pub(crate) fn lifetimes_in(tokens: TokenStream) -> Vec<String> {
    let mut found = Vec::new();
    let mut quote = false;
    for tree in tokens {
        match tree {
            TokenTree::Punct(punct) => {
                quote = punct.as_char() == '\'' && punct.spacing() == Spacing::Joint;
                continue;
            }
            TokenTree::Ident(ident) if quote => found.push(ident.to_string()),
            TokenTree::Group(group) => found.extend(lifetimes_in(group.stream())),
            _ => {}
        }
        quote = false;
    }
    found
}

/// A type parameter named `base` (`__W`), or `base` with underscores appended, that none of
/// `generics`' parameters takes: what a derive adds to the struct's own parameters.
pub(crate) fn fresh_type_param(generics: &Generics, base: &str) -> Ident {
    let used: Vec<String> = generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Type(param) => Some(param.ident.to_string()),
            GenericParam::Const(param) => Some(param.ident.to_string()),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    let mut name = String::from(base);
    while used.contains(&name) {
        name.push('_');
    }
    Ident::new(&name, Span::call_site())
}

/// The name of a field's column accessors: the `rename` attribute, the field's name, or
/// `column_{index}` for a tuple field.
pub(crate) fn accessor(field_ident: Option<&Ident>, index: usize, rename: Option<&Ident>) -> Ident {
    let mut ident = match (rename, field_ident) {
        (Some(rename), _) => rename.clone(),
        (None, Some(ident)) => ident.clone(),
        (None, None) => format_ident!("column_{index}"),
    };
    ident.set_span(Span::call_site());
    ident
}

/// `x_mut` for `x`, `type_mut` for `r#type`.
pub(crate) fn accessor_mut(accessor: &Ident) -> Ident {
    format_ident!("{}_mut", accessor.unraw(), span = Span::call_site())
}

/// The local a field's value is bound to while it moves between a struct and the columns.
pub(crate) fn binding(index: usize) -> Ident {
    format_ident!("__field_{index}")
}

/// The storage's private field holding a column.
pub(crate) fn column_field(index: usize) -> Ident {
    format_ident!("__column_{index}")
}

/// A world field's name as the user wrote it (`positions`, `r#type` as `type`, `0`), for
/// messages.
pub(crate) fn field_name(member: &syn::Member) -> String {
    match member {
        syn::Member::Named(ident) => ident.unraw().to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    }
}

/// Prints a type for messages and docs.
pub(crate) fn type_text(ty: &impl ToTokens) -> String {
    ty.to_token_stream()
        .to_string()
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
}

/// A field's name as written: `health`, or `0` in a tuple struct.
pub(crate) fn member_text(member: &syn::Member) -> String {
    match member {
        syn::Member::Named(ident) => ident.to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use syn::ext::IdentExt;
    use syn::{DeriveInput, Generics, Ident, ImplItem, Item, Type, parse_quote};

    use super::{
        Names, STORAGE_METHODS, STORAGE_TRAIT_METHODS, accessor, accessor_mut, fresh_lifetime,
        fresh_type_param, lifetimes_in, type_text,
    };
    use crate::ast::Input;
    use crate::errors::Errors;

    /// The methods the expansion of `input` gives its storage: those of the inherent impls
    /// (column accessors aside), and per trait implemented for it, the trait's name and methods.
    fn emitted_methods(input: &DeriveInput) -> (BTreeSet<String>, Vec<(String, String)>) {
        let mut errors = Errors::default();
        let model = Input::from_syn(input, &mut errors);
        let model = errors.finish(model).expect("the sample struct derives");
        let file: syn::File =
            syn::parse2(crate::expand::expand(&model)).expect("the expansion is Rust");
        let accessors: BTreeSet<String> = model
            .fields
            .iter()
            .flat_map(|field| [&field.accessor, &field.accessor_mut])
            .map(|accessor| accessor.unraw().to_string())
            .collect();
        let mut inherent = BTreeSet::new();
        let mut traits = Vec::new();
        for item in file.items {
            let Item::Impl(item) = item else { continue };
            if !is_storage(&item.self_ty, &model.names.storage) {
                continue;
            }
            for impl_item in &item.items {
                let ImplItem::Fn(method) = impl_item else { continue };
                let name = method.sig.ident.unraw().to_string();
                match &item.trait_ {
                    None if accessors.contains(&name) => {}
                    None => assert!(inherent.insert(name.clone()), "`{name}` emitted twice"),
                    Some((_, path, _)) => {
                        let name_of_trait = path.segments.last().unwrap().ident.to_string();
                        traits.push((name_of_trait, name));
                    }
                }
            }
        }
        (inherent, traits)
    }

    /// Whether `ty` is the storage, or a reference to it.
    fn is_storage(ty: &Type, storage: &Ident) -> bool {
        match ty {
            Type::Path(path) => {
                path.qself.is_none()
                    && path.path.segments.last().is_some_and(|segment| segment.ident == *storage)
            }
            Type::Reference(reference) => is_storage(&reference.elem, storage),
            _ => false,
        }
    }

    fn samples() -> Vec<DeriveInput> {
        vec![
            parse_quote! {
                pub struct Position { pub x: f32, pub y: f32 }
            },
            parse_quote! {
                struct Pair(u8, #[sparse_soa(rename = "second")] String);
            },
            parse_quote! {
                #[sparse_soa(name = "Things", key = Entity, dense = u16, crate = my::rt)]
                pub struct Thing<'s, T: Clone, const N: usize>
                where
                    T: Default,
                {
                    pub a: &'s T,
                    pub r#type: [u8; N],
                }
            },
        ]
    }

    #[test]
    fn storage_methods_lists_every_inherent_method_emitted() {
        let listed: BTreeSet<String> =
            STORAGE_METHODS.iter().map(|&name| String::from(name)).collect();
        assert_eq!(listed.len(), STORAGE_METHODS.len(), "STORAGE_METHODS has a duplicate");
        for input in samples() {
            let (inherent, _) = emitted_methods(&input);
            let unlisted: Vec<_> = inherent.difference(&listed).collect();
            let missing: Vec<_> = listed.difference(&inherent).collect();
            assert!(
                unlisted.is_empty() && missing.is_empty(),
                "for `{}`: emitted but not in STORAGE_METHODS: {unlisted:?}; \
                 in STORAGE_METHODS but not emitted: {missing:?}",
                input.ident,
            );
        }
    }

    #[test]
    fn storage_trait_methods_lists_every_trait_method_emitted() {
        for input in samples() {
            let (inherent, traits) = emitted_methods(&input);
            assert!(!traits.is_empty());
            for (name_of_trait, method) in traits {
                if ["Storage", "Columnar", "Observed", "TrackedStorage"]
                    .contains(&name_of_trait.as_str())
                {
                    // The runtime's traits forward to the inherent methods, but for the
                    // invariant checker, which no column accessor can shadow for a caller who
                    // writes `Storage::assert_invariants(&storage)`, and the plumbing queries
                    // use and a batch of rows stores its runs with, which the runtime calls
                    // through the trait on a type parameter. `Observed` forwards to inherent
                    // methods of the same names; `TrackedStorage::changes` is what the query
                    // filter reads.
                    let plumbing = [
                        "assert_invariants",
                        "index_and_columns_mut",
                        "index_columns_and_writes",
                        "prefix_columns_mut",
                        "index_and_prefix_mut",
                        "row",
                        "row_mut",
                        "fresh_run_len",
                        "push_fresh_run",
                        "changes",
                    ];
                    assert!(
                        inherent.contains(&method) || plumbing.contains(&method.as_str()),
                        "`Storage::{method}` is not inherent",
                    );
                } else {
                    assert!(
                        STORAGE_TRAIT_METHODS.contains(&method.as_str()),
                        "`{name_of_trait}::{method}` is not in STORAGE_TRAIT_METHODS",
                    );
                }
            }
        }
    }

    #[test]
    fn accessor_is_the_rename_the_field_name_or_the_position() {
        let x: Ident = parse_quote!(x);
        let mass: Ident = parse_quote!(mass);
        assert_eq!(accessor(Some(&x), 0, None), "x");
        assert_eq!(accessor(Some(&x), 0, Some(&mass)), "mass");
        assert_eq!(accessor(None, 2, None), "column_2");
        assert_eq!(accessor(None, 2, Some(&mass)), "mass");
    }

    #[test]
    fn accessors_of_raw_identifiers() {
        let ty: Ident = parse_quote!(r#type);
        let shared = accessor(Some(&ty), 0, None);
        assert_eq!(shared.to_string(), "r#type");
        assert_eq!(accessor_mut(&shared), "type_mut");
        assert_eq!(accessor_mut(&parse_quote!(x)), "x_mut");
        assert_eq!(accessor_mut(&parse_quote!(column_0)), "column_0_mut");
    }

    #[test]
    fn fresh_lifetime_skips_every_lifetime_the_struct_names() {
        let fresh = |tokens: proc_macro2::TokenStream| fresh_lifetime(&lifetimes_in(tokens));
        assert_eq!(fresh(quote::quote!()).to_string(), "'a");
        assert_eq!(fresh(quote::quote!(<T, const N: usize>)).to_string(), "'a");
        assert_eq!(fresh(quote::quote!(<'a, T>)).to_string(), "'b");
        assert_eq!(fresh(quote::quote!(<'b, 'a, 'c>)).to_string(), "'d");
        assert_eq!(fresh(quote::quote!(<'x>)).to_string(), "'a");
        // Bound inside a field's type or a `where` clause, or a field named `a`.
        let input = quote::quote! {
            struct S<F> where F: for<'a> Fn(&'a u8) { f: F, g: for<'b> fn(&'b u8), a: u8 }
        };
        assert_eq!(fresh(input).to_string(), "'c");
    }

    #[test]
    fn fresh_type_param_skips_the_structs_parameters() {
        let fresh = |generics: Generics| fresh_type_param(&generics, "__W").to_string();
        assert_eq!(fresh(parse_quote!(<T>)), "__W");
        assert_eq!(fresh(parse_quote!(<'__W, __W, const __W_: usize>)), "__W__");
    }

    #[test]
    fn fresh_lifetime_when_every_letter_is_taken() {
        let params: Vec<syn::Lifetime> = ('a'..='z')
            .map(|letter| syn::Lifetime::new(&format!("'{letter}"), proc_macro2::Span::call_site()))
            .collect();
        let generics: Generics = parse_quote!(<#(#params),*>);
        let used = lifetimes_in(quote::ToTokens::to_token_stream(&generics));
        assert_eq!(fresh_lifetime(&used).to_string(), "'__soa");
    }

    #[test]
    fn names_derive_from_the_struct() {
        let names =
            Names::new(&parse_quote!(Position), None, &lifetimes_in(quote::quote!(<'a, T>)));
        assert_eq!(names.storage, "PositionSoa");
        assert_eq!(names.refs, "PositionRef");
        assert_eq!(names.muts, "PositionMut");
        assert_eq!(names.columns, "PositionColumns");
        assert_eq!(names.columns_mut, "PositionColumnsMut");
        assert_eq!(names.iter, "PositionIter");
        assert_eq!(names.iter_mut, "PositionIterMut");
        assert_eq!(names.into_iter, "PositionIntoIter");
        assert_eq!(names.drain, "PositionDrain");
        assert_eq!(names.lifetime.to_string(), "'b");
        assert_eq!(names.keys_field, "__keys");
    }

    #[test]
    fn name_sets_the_storage_only() {
        let positions: Ident = parse_quote!(Positions);
        let names = Names::new(&parse_quote!(Position), Some(&positions), &[]);
        assert_eq!(names.storage, "Positions");
        assert_eq!(names.refs, "PositionRef");
        let helpers: Vec<String> = names.helper_types().iter().map(ToString::to_string).collect();
        assert!(!helpers.contains(&String::from("Positions")));
        assert_eq!(helpers.len(), 8);
    }

    #[test]
    fn names_of_a_raw_identifier() {
        let names = Names::new(&parse_quote!(r#Match), None, &[]);
        assert_eq!(names.storage, "MatchSoa");
        assert_eq!(names.refs, "MatchRef");
    }

    #[test]
    fn type_text_prints_types_as_written() {
        let text = |ty: Type| type_text(&ty);
        assert_eq!(text(parse_quote!(u32)), "u32");
        assert_eq!(text(parse_quote!(Vec<u8>)), "Vec<u8>");
        assert_eq!(text(parse_quote!(::core::primitive::u32)), "::core::primitive::u32");
        assert_eq!(text(parse_quote!(my::Entity)), "my::Entity");
        assert_eq!(text(parse_quote!(Option<Vec<T>>)), "Option<Vec<T>>");
        assert_eq!(text(parse_quote!(Box<str>)), "Box<str>");
        assert_eq!(text(parse_quote!([u8])), "[u8]");
    }
}
