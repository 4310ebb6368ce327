//! Every identifier the derive generates is made here, and nowhere else; so is the text of types
//! shown in messages and docs.

use proc_macro2::Span;
use quote::{ToTokens, format_ident};
use syn::ext::IdentExt;
use syn::{GenericParam, Generics, Ident, Lifetime};

/// The methods the storage defines (inherent, or from a trait users call as methods). A column
/// accessor must not take one of these names.
pub(crate) const STORAGE_METHODS: &[&str] = &[
    "new",
    "with_capacity",
    "bounded",
    "try_bounded",
    "len",
    "is_empty",
    "capacity",
    "reserve",
    "try_reserve",
    "shrink_to_fit",
    "insert",
    "insert_full",
    "try_insert",
    "try_insert_full",
    "remove",
    "remove_with_info",
    "swap_remove_index",
    "pop",
    "get",
    "get_mut",
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
    "sort_keys",
    "columns",
    "columns_mut",
    "debug_assert_invariants",
    // Trait methods that an inherent method of the same name would shadow.
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
}

impl Names {
    pub(crate) fn new(ident: &Ident, name: Option<&Ident>, generics: &Generics) -> Self {
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
            lifetime: fresh_lifetime(generics),
            keys_field: format_ident!("__keys"),
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

fn fresh_lifetime(generics: &Generics) -> Lifetime {
    let used: Vec<String> = generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Lifetime(param) => Some(param.lifetime.ident.to_string()),
            _ => None,
        })
        .collect();
    let name = ('a'..='z')
        .map(String::from)
        .find(|name| !used.contains(name))
        .unwrap_or_else(|| String::from("__soa"));
    Lifetime::new(&format!("'{name}"), Span::call_site())
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
