//! `#[sparse_soa(...)]` attributes: parsed with `parse_nested_meta`, every problem reported.
//!
//! `SparseSoa`: container (on the struct) `name = "..."`, `key = Type`,
//! `dense = u8 | u16 | u32 | usize`, `crate = path`, `serde`; field `rename = "..."`, `track`.
//!
//! `World`: container `crate = path`; field `entities`, `skip`, `tag = T`.
//!
//! `Bundle`: container `crate = path`; no field keys. It leaves `SparseSoa`'s keys to that
//! derive, so that one struct can derive both.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Attribute, Ident, LitStr, Path, Token, Type};

use crate::errors::Errors;

const CONTAINER_KEYS: &[&str] = &["name", "key", "dense", "crate", "serde"];
const FIELD_KEYS: &[&str] = &["rename", "track"];
const CRATE_CONTAINER_KEYS: &[&str] = &["crate"];
const WORLD_FIELD_KEYS: &[&str] = &["entities", "skip", "tag"];
const DENSE_WIDTHS: &[&str] = &["u8", "u16", "u32", "usize"];

/// An attribute value and the span of the key that set it.
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// The struct-level attributes.
#[derive(Default)]
pub(crate) struct Container {
    /// `name = "Positions"`: the storage's name.
    pub(crate) name: Option<Spanned<Ident>>,
    /// `key = Entity`: the key type.
    pub(crate) key: Option<Spanned<Type>>,
    /// `dense = u16`: the dense index width, already checked to be one of [`DENSE_WIDTHS`].
    pub(crate) dense: Option<Spanned<Ident>>,
    /// `crate = path`: where the runtime is, for crates that re-export it.
    pub(crate) krate: Option<Spanned<Path>>,
    /// `serde`: emit `Serialize` and `Deserialize` for the storage.
    pub(crate) serde: Option<Spanned<()>>,
}

/// The field-level attributes.
#[derive(Default)]
pub(crate) struct Field {
    /// `rename = "mass"`: the column accessor's name.
    pub(crate) rename: Option<Spanned<Ident>>,
    /// `track`: the field has change ticks of its own.
    pub(crate) track: Option<Spanned<()>>,
}

impl Container {
    pub(crate) fn from_attrs(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut container = Container::default();
        for attr in sparse_soa_attrs(attrs, errors) {
            let result = attr.parse_nested_meta(|meta| {
                let key = path_name(&meta.path);
                let span = key_span(&meta.path);
                match key.as_str() {
                    "name" => {
                        let name = parse_ident_value(&meta, "name", "Positions");
                        if let Some(name) = recover(&meta, name, errors)? {
                            set_once(&mut container.name, name, span, "name", errors);
                        }
                    }
                    "key" => {
                        let ty = parse_type_value(&meta, "key", "a type", "Entity");
                        if let Some(ty) = recover(&meta, ty, errors)? {
                            set_once(&mut container.key, ty, span, "key", errors);
                        }
                    }
                    "dense" => {
                        if let Some(width) = parse_dense_value(&meta, errors)? {
                            set_once(&mut container.dense, width, span, "dense", errors);
                        }
                    }
                    "crate" => {
                        if let Some(path) = recover(&meta, parse_path_value(&meta), errors)? {
                            set_once(&mut container.krate, path, span, "crate", errors);
                        }
                    }
                    "serde" => {
                        if takes_no_value(&meta, "serde", errors)? {
                            set_once(&mut container.serde, (), span, "serde", errors);
                        }
                    }
                    _ if FIELD_KEYS.contains(&key.as_str()) => {
                        errors.push(syn::Error::new(
                            span,
                            format!(
                                "`{key}` is a field attribute: put it on a field, not on the struct"
                            ),
                        ));
                        skip_value(&meta)?;
                    }
                    _ => {
                        errors.push(unknown(&key, span, "struct", CONTAINER_KEYS));
                        skip_value(&meta)?;
                    }
                }
                Ok(())
            });
            if let Err(error) = result {
                errors.push(error);
            }
        }
        container
    }
}

impl Field {
    pub(crate) fn from_attrs(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut field = Field::default();
        for attr in sparse_soa_attrs(attrs, errors) {
            let result = attr.parse_nested_meta(|meta| {
                let key = path_name(&meta.path);
                let span = key_span(&meta.path);
                match key.as_str() {
                    "rename" => {
                        let name = parse_ident_value(&meta, "rename", "mass");
                        if let Some(name) = recover(&meta, name, errors)? {
                            set_once(&mut field.rename, name, span, "rename", errors);
                        }
                    }
                    "track" => {
                        if takes_no_value(&meta, "track", errors)? {
                            set_once(&mut field.track, (), span, "track", errors);
                        }
                    }
                    _ if CONTAINER_KEYS.contains(&key.as_str()) => {
                        errors.push(syn::Error::new(
                            span,
                            format!("`{key}` is a struct attribute: put it on the struct, not on a field"),
                        ));
                        skip_value(&meta)?;
                    }
                    _ => {
                        errors.push(unknown(&key, span, "field", FIELD_KEYS));
                        skip_value(&meta)?;
                    }
                }
                Ok(())
            });
            if let Err(error) = result {
                errors.push(error);
            }
        }
        field
    }
}

/// The struct-level attributes of `#[derive(World)]` and `#[derive(Bundle)]`.
#[derive(Default)]
pub(crate) struct CrateContainer {
    /// `crate = path`: where the runtime is.
    pub(crate) krate: Option<Spanned<Path>>,
}

/// The field-level attributes of `#[derive(World)]`.
#[derive(Default)]
pub(crate) struct WorldField {
    /// `entities`: this field is the `Entities` allocator.
    pub(crate) entities: Option<Spanned<()>>,
    /// `skip`: this field is not a storage.
    pub(crate) skip: Option<Spanned<()>>,
    /// `tag = Frozen`, once per tag: a row stores the unit struct `Frozen` in this field's tag
    /// storage (or, in a group field, in the member or excluded storage written `FrozenSoa`).
    pub(crate) tags: Vec<Spanned<syn::Type>>,
}

impl CrateContainer {
    /// Reads `attrs` of a struct; `level` names it in errors ("`World` struct"). With
    /// `beside_sparse_soa`, `SparseSoa`'s keys are left to that derive.
    pub(crate) fn from_attrs(
        attrs: &[Attribute],
        errors: &mut Errors,
        level: &str,
        beside_sparse_soa: bool,
    ) -> Self {
        let mut container = CrateContainer::default();
        for attr in sparse_soa_attrs(attrs, errors) {
            let result = attr.parse_nested_meta(|meta| {
                let key = path_name(&meta.path);
                let span = key_span(&meta.path);
                if key == "crate" {
                    if let Some(path) = recover(&meta, parse_path_value(&meta), errors)? {
                        set_once(&mut container.krate, path, span, "crate", errors);
                    }
                } else if beside_sparse_soa && CONTAINER_KEYS.contains(&key.as_str()) {
                    skip_value(&meta)?;
                } else {
                    errors.push(unknown(&key, span, level, CRATE_CONTAINER_KEYS));
                    skip_value(&meta)?;
                }
                Ok(())
            });
            if let Err(error) = result {
                errors.push(error);
            }
        }
        container
    }
}

impl WorldField {
    pub(crate) fn from_attrs(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut field = WorldField::default();
        for attr in sparse_soa_attrs(attrs, errors) {
            let result = attr.parse_nested_meta(|meta| {
                let key = path_name(&meta.path);
                let span = key_span(&meta.path);
                match key.as_str() {
                    "entities" => {
                        if takes_no_value(&meta, "entities", errors)? {
                            set_once(&mut field.entities, (), span, "entities", errors);
                        }
                    }
                    "skip" => {
                        if takes_no_value(&meta, "skip", errors)? {
                            set_once(&mut field.skip, (), span, "skip", errors);
                        }
                    }
                    "tag" => {
                        let value =
                            parse_type_value(&meta, "tag", "the unit struct's name", "Frozen");
                        if let Some(value) = recover(&meta, value, errors)? {
                            field.tags.push(Spanned { value, span });
                        }
                    }
                    _ => {
                        errors.push(unknown(&key, span, "`World` field", WORLD_FIELD_KEYS));
                        skip_value(&meta)?;
                    }
                }
                Ok(())
            });
            if let Err(error) = result {
                errors.push(error);
            }
        }
        field
    }
}

/// Reports every key of the `#[sparse_soa(...)]` attributes among `attrs` but `SparseSoa`'s
/// (left to that derive): a field of `level` ("`Bundle` struct") takes none of its own.
pub(crate) fn no_field_attrs(attrs: &[Attribute], errors: &mut Errors, level: &str) {
    for attr in sparse_soa_attrs(attrs, errors) {
        let result = attr.parse_nested_meta(|meta| {
            let key = path_name(&meta.path);
            if !FIELD_KEYS.contains(&key.as_str()) {
                errors.push(syn::Error::new(
                    key_span(&meta.path),
                    format!(
                        "a field of a {level} takes no sparse_soa attributes, and `{key}` is not one of `SparseSoa`'s (`rename`, `track`), which it leaves to that derive"
                    ),
                ));
            }
            skip_value(&meta)
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
}

/// The `#[sparse_soa(...)]` attributes among `attrs`; reports every other form of it.
fn sparse_soa_attrs<'a>(attrs: &'a [Attribute], errors: &mut Errors) -> Vec<&'a Attribute> {
    let mut found = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("sparse_soa")) {
        match &attr.meta {
            syn::Meta::List(_) => found.push(attr),
            syn::Meta::Path(_) | syn::Meta::NameValue(_) => errors.push(syn::Error::new_spanned(
                attr,
                "expected a list of options: `#[sparse_soa(...)]`",
            )),
        }
    }
    found
}

/// An unknown key at `level` ("struct" or "field"): names the nearest valid key, as rustc does
/// for a misspelled name, and lists them all.
fn unknown(key: &str, span: Span, level: &str, valid: &[&str]) -> syn::Error {
    let list = valid.iter().map(|key| format!("`{key}`")).collect::<Vec<_>>().join(", ");
    let hint = match closest(key, valid) {
        Some(nearest) => format!("; did you mean `{nearest}`?"),
        None => String::new(),
    };
    syn::Error::new(
        span,
        format!("unknown sparse_soa attribute `{key}`{hint} (valid on a {level}: {list})"),
    )
}

/// The candidate nearest to `key` by edit distance, if it is close enough to be a typo: at most
/// a third of the key's length, and at least one edit (the rule rustc uses for suggestions).
fn closest<'a>(key: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (key.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|&candidate| (edit_distance(key, candidate), candidate))
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance with adjacent transpositions counted as one edit (so `nmae` is one edit
/// from `name`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // rows[i][j]: the distance between a[..i] and b[..j].
    let mut rows = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let substitution = rows[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut best = substitution.min(rows[i - 1][j] + 1).min(rows[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

fn set_once<T>(
    slot: &mut Option<Spanned<T>>,
    value: T,
    span: Span,
    key: &str,
    errors: &mut Errors,
) {
    if slot.is_some() {
        errors.push(syn::Error::new(span, format!("duplicate sparse_soa attribute `{key}`")));
    } else {
        *slot = Some(Spanned { value, span });
    }
}

/// The key as written (`crate` included), for messages.
fn path_name(path: &Path) -> String {
    path.segments.iter().map(|segment| segment.ident.to_string()).collect::<Vec<_>>().join("::")
}

fn key_span(path: &Path) -> Span {
    path.segments.first().map_or_else(Span::call_site, |segment| segment.ident.span())
}

/// Checks for `=` after the key, with a message that shows the expected form.
fn expect_eq(meta: &ParseNestedMeta<'_>, form: &str) -> syn::Result<()> {
    if meta.input.peek(Token![=]) { Ok(()) } else { Err(meta.error(format!("expected `{form}`"))) }
}

/// `key = "ident"`.
fn parse_ident_value(meta: &ParseNestedMeta<'_>, key: &str, example: &str) -> syn::Result<Ident> {
    expect_eq(meta, &format!("{key} = \"{example}\""))?;
    let value = meta.value()?;
    // A name written bare (`rename = mass`) is shown back quoted, a keyword raw where Rust
    // allows it (`rename = type`: `"r#type"`).
    let shown = value
        .fork()
        .call(Ident::parse_any)
        .ok()
        .and_then(|ident| identifier_form(&ident.to_string()))
        .unwrap_or_else(|| example.to_owned());
    let lit: LitStr = value.parse().map_err(|error| {
        syn::Error::new(error.span(), format!("expected a string: `{key} = \"{shown}\"`"))
    })?;
    let text = lit.value();
    // The whole text, no more: the parser skips spaces and comments around an identifier.
    match syn::parse_str::<Ident>(&text) {
        Ok(mut ident) if ident == text => {
            ident.set_span(lit.span());
            Ok(ident)
        }
        _ => {
            // A keyword is an identifier written raw (`r#type`), where Rust allows it.
            let hint = identifier_form(&text).map_or_else(String::new, |raw| {
                format!("; a keyword is written raw: `{key} = \"{raw}\"`")
            });
            Err(syn::Error::new(
                lit.span(),
                format!("`{key}` must be a Rust identifier, and `{text}` is not one{hint}"),
            ))
        }
    }
}

/// `text` as an identifier is written: itself if it is one, else its raw form if that is one
/// (`type`: `r#type`); `None` for text no identifier spells (`self`, `a b`).
fn identifier_form(text: &str) -> Option<String> {
    [text.to_owned(), format!("r#{text}")]
        .into_iter()
        .find(|form| syn::parse_str::<Ident>(form).is_ok_and(|ident| ident == form.as_str()))
}

/// `key = Type` (`key = Entity`), `tag = Frozen`: a type written as a type, not a string;
/// `what` names it in the messages.
fn parse_type_value(
    meta: &ParseNestedMeta<'_>,
    key: &str,
    what: &str,
    example: &str,
) -> syn::Result<Type> {
    expect_eq(meta, &format!("{key} = {example}"))?;
    let value = meta.value()?;
    if value.peek(LitStr) {
        let lit: LitStr = value.parse()?;
        return Err(syn::Error::new(
            lit.span(),
            format!("expected {what}, not a string: `{key} = {}`", lit.value()),
        ));
    }
    value.parse::<Type>().map_err(|error| {
        syn::Error::new(
            error.span(),
            format!("expected {what} after `{key} =`, such as `{key} = {example}`"),
        )
    })
}

/// `dense = u16`: `None` (after reporting it) when the width is not one of [`DENSE_WIDTHS`].
fn parse_dense_value(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
) -> syn::Result<Option<Ident>> {
    expect_eq(meta, "dense = u32")?;
    let value = meta.value()?;
    let expected = "`dense` must be one of `u8`, `u16`, `u32`, `usize`";
    let tokens = take_value(value)?;
    let mut iter = tokens.clone().into_iter();
    if let (Some(TokenTree::Ident(ident)), None) = (iter.next(), iter.next()) {
        if DENSE_WIDTHS.contains(&ident.to_string().as_str()) {
            return Ok(Some(ident));
        }
    }
    let shown = tokens.to_string();
    if shown.is_empty() {
        errors.push(syn::Error::new(key_span(&meta.path), expected));
    } else {
        errors.push(syn::Error::new_spanned(tokens, format!("{expected}, not `{shown}`")));
    }
    Ok(None)
}

/// A key's value as parsed: on `Err` the error is reported and the rest of the value skipped,
/// so that parsing goes on and the keys after it are checked too (every error of an attribute
/// in one compile).
fn recover<T>(
    meta: &ParseNestedMeta<'_>,
    parsed: syn::Result<T>,
    errors: &mut Errors,
) -> syn::Result<Option<T>> {
    match parsed {
        Ok(value) => Ok(Some(value)),
        Err(error) => {
            errors.push(error);
            skip_value(meta)?;
            Ok(None)
        }
    }
}

/// `crate = path` or `crate = "path"`.
fn parse_path_value(meta: &ParseNestedMeta<'_>) -> syn::Result<Path> {
    expect_eq(meta, "crate = path::to::sparse_soa")?;
    let value = meta.value()?;
    if value.peek(LitStr) {
        let lit: LitStr = value.parse()?;
        return lit.parse_with(Path::parse_mod_style).map_err(|_| {
            syn::Error::new(
                lit.span(),
                format!("`crate` must be a path, and `{}` is not one", lit.value()),
            )
        });
    }
    Path::parse_mod_style(value).map_err(|error| {
        syn::Error::new(
            error.span(),
            "expected a path after `crate =`, such as `crate = my_crate::sparse_soa`",
        )
    })
}

/// Whether a flag (`serde`) stands alone, as it must; a value after it (`= ...` or `(...)`) is
/// reported, and skipped so that parsing goes on.
fn takes_no_value(meta: &ParseNestedMeta<'_>, key: &str, errors: &mut Errors) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        errors.push(syn::Error::new(
            key_span(&meta.path),
            format!("`{key}` takes no value: write `#[sparse_soa({key})]`"),
        ));
        skip_value(meta)?;
        return Ok(false);
    }
    Ok(true)
}

/// Consumes the rest of a key's value (`= ...` up to the next comma, `(...)`, or, inside a value
/// whose parse stopped, up to the next comma), so that parsing goes on and later keys are
/// checked too.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let value = meta.value()?;
        take_value(value)?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: TokenTree = meta.input.parse()?;
    } else {
        take_value(meta.input)?;
    }
    Ok(())
}

/// Every token up to the next top-level comma.
fn take_value(input: ParseStream<'_>) -> syn::Result<TokenStream> {
    input.step(|cursor| {
        let mut rest = *cursor;
        let mut tokens = TokenStream::new();
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, TokenTree::Punct(punct) if punct.as_char() == ',') {
                break;
            }
            tokens.extend(quote!(#tree));
            rest = next;
        }
        Ok((tokens, rest))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_insertions_deletions_substitutions_and_swaps() {
        assert_eq!(edit_distance("name", "name"), 0);
        assert_eq!(edit_distance("nmae", "name"), 1);
        assert_eq!(edit_distance("nam", "name"), 1);
        assert_eq!(edit_distance("names", "name"), 1);
        assert_eq!(edit_distance("kye", "key"), 1);
        assert_eq!(edit_distance("colour", "crate"), 5);
        assert_eq!(edit_distance("", "key"), 3);
    }

    #[test]
    fn only_close_keys_are_suggested() {
        assert_eq!(closest("nmae", CONTAINER_KEYS), Some("name"));
        assert_eq!(closest("denes", CONTAINER_KEYS), Some("dense"));
        assert_eq!(closest("renmae", FIELD_KEYS), Some("rename"));
        assert_eq!(closest("sedre", CONTAINER_KEYS), Some("serde"));
        assert_eq!(closest("colour", CONTAINER_KEYS), None);
        assert_eq!(closest("x", CONTAINER_KEYS), None);
    }
}
