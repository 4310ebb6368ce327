//! `#[derive(Bundle)]`: a struct whose fields are components is a row that a `#[derive(World)]`
//! world spawns and inserts whole, as it would the tuple of its fields. The same pipeline as
//! `SparseSoa`, in one file because it is small: [`Row::from_syn`] reads the struct, [`check`]
//! reports what spans several fields, [`expand`] writes the wiring: one `Bundle` implementation
//! that hands the tuple of the fields to the runtime's tuple rows (`sparse_set_core`'s
//! `world/batch.rs`), where the algorithms are.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Generics, Ident, Member, Type, parse_quote};

use crate::attr::{self, CrateContainer};
use crate::errors::{self, Errors};
use crate::expand;
use crate::names;

/// The most components a row holds: the runtime's tuples go up to 8.
const MAX_FIELDS: usize = 8;

/// A struct `#[derive(Bundle)]` accepted the shape of.
pub(crate) struct Row<'a> {
    ident: &'a Ident,
    generics: &'a Generics,
    /// Every field, in order: how to name it, and its type (a component's).
    fields: Vec<(Member, &'a Type)>,
    /// The path of the runtime's `__private` module.
    private: TokenStream,
}

impl<'a> Row<'a> {
    /// Reads the struct and its attributes; problems that do not stop the reading go to
    /// `errors`. `Err` for an enum or a union.
    pub(crate) fn from_syn(input: &'a DeriveInput, errors: &mut Errors) -> syn::Result<Self> {
        let attrs = CrateContainer::from_attrs(&input.attrs, errors, "`Bundle` struct", true);
        let fields = errors::struct_fields(
            input,
            "Bundle",
            "a row is a struct whose fields are components",
            "a row is a struct whose fields are components",
        )?;
        let fields = fields
            .iter()
            .enumerate()
            .map(|(index, field)| {
                attr::no_field_attrs(&field.attrs, errors, "`Bundle` struct");
                let member = match &field.ident {
                    Some(ident) => Member::Named(ident.clone()),
                    None => Member::Unnamed(index.into()),
                };
                (member, &field.ty)
            })
            .collect();
        let private = names::private_path(attrs.krate.as_ref().map(|krate| &krate.value));
        Ok(Row { ident: &input.ident, generics: &input.generics, fields, private })
    }
}

/// What spans the fields: a row holds 1 to [`MAX_FIELDS`] components.
pub(crate) fn check(row: &Row<'_>, errors: &mut Errors) {
    if row.fields.is_empty() {
        errors.push(syn::Error::new(
            row.ident.span(),
            "a row needs at least one field, each a component of the world that spawns it",
        ));
    }
    // Two fields of one type name one storage twice, which the world refuses only when the
    // program is built (a constant of the row's index): said here, at the second field.
    for (index, (member, ty)) in row.fields.iter().enumerate() {
        let text = names::type_text(ty);
        let earlier =
            row.fields[..index].iter().find(|(_, earlier)| names::type_text(earlier) == text);
        if let Some((first, _)) = earlier {
            errors.push(syn::Error::new(
                ty.span(),
                format!(
                    "field `{}` has the type of field `{}`: a row stores each component in its own storage, so it holds one of each type; drop one of them, or wrap one in a type of its own",
                    names::member_text(member),
                    names::member_text(first)
                ),
            ));
        }
    }
    if let Some((_, ty)) = row.fields.get(MAX_FIELDS) {
        errors.push(syn::Error::new(
            ty.span(),
            format!(
                "a row holds at most {MAX_FIELDS} components, and this is field {}: move the rest into a second row and add it with the world's `insert`",
                MAX_FIELDS + 1
            ),
        ));
    }
}

/// `Bundle<W, Fields<I>>` for the struct wherever the tuple of its fields is `Bundle<W, I>`:
/// every method hands that tuple to the tuple's.
pub(crate) fn expand(row: &Row<'_>) -> TokenStream {
    let Row { ident, private: p, .. } = row;
    let types = row.fields.iter().map(|(_, ty)| ty);
    let tuple = quote!((#(#types,)*));
    let fields_of = |value: &TokenStream| {
        let members = row.fields.iter().map(|(member, _)| member);
        quote!((#(#value.#members,)*))
    };
    // Spanned as the methods that declare them below: a struct declared by a `macro_rules!`
    // has its name's span from the caller, where a `self` of another span would not resolve.
    let span = ident.span();
    let own = fields_of(&quote_spanned!(span=> self));
    let each = fields_of(&quote_spanned!(span=> __row));

    // The world, the index, the rows and the put's kind, named apart from the struct's own
    // parameters (a method's parameter may not take an impl's name).
    let w = names::fresh_type_param(row.generics, "__W");
    let i = names::fresh_type_param(row.generics, "__I");
    let r = names::fresh_type_param(row.generics, "__R");
    let live = names::fresh_type_param(row.generics, "__LIVE");
    let mut generics = row.generics.clone();
    generics.params.push(parse_quote!(#w));
    generics.params.push(parse_quote!(#i));
    generics.make_where_clause().predicates.push(parse_quote!(#tuple: #p::Bundle<#w, #i>));
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (_, ty_generics, _) = row.generics.split_for_impl();
    let as_tuple = quote!(<#tuple as #p::Bundle<#w, #i>>);
    let no_drop = expand::no_drop(ident, row.generics, p, "DeriveBundle");
    quote_spanned! {span=>
        #no_drop

        #[automatically_derived]
        impl #impl_generics #p::Bundle<#w, #p::Fields<#i>> for #ident #ty_generics #where_clause {
            type Replaced = #as_tuple::Replaced;
            const DISTINCT: ::core::primitive::bool = #as_tuple::DISTINCT;

            #[inline]
            fn put<const #live: ::core::primitive::bool>(
                self,
                world: &mut #w,
                entity: #p::Entity,
            ) -> ::core::result::Result<Self::Replaced, #p::Refused> {
                #as_tuple::put::<#live>(#own, world, entity)
            }

            #[inline]
            fn prefetch(world: &mut #w, entity: #p::Entity) {
                #as_tuple::prefetch(world, entity);
            }

            #[inline]
            fn reserve(
                world: &mut #w,
                additional: ::core::primitive::usize,
                slots: ::core::ops::Range<::core::primitive::u64>,
            ) {
                #as_tuple::reserve(world, additional, slots);
            }

            #[inline]
            #[track_caller]
            fn spawn_rows<#r: ::core::iter::Iterator<Item = Self>>(
                world: &mut #w,
                rows: &mut #r,
                spawned: ::core::option::Option<&mut #p::Vec<#p::Entity>>,
                all: ::core::primitive::bool,
            ) where
                #w: #p::RowWorld,
            {
                let mut rows = ::core::iter::Iterator::map(rows, |__row: Self| #each);
                #as_tuple::spawn_rows(world, &mut rows, spawned, all);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::{DeriveInput, parse_quote};

    use super::{Row, check, expand};
    use crate::errors::Errors;

    /// The messages `input` gets from reading and checking it; the expansion's text if none.
    fn derive(input: &DeriveInput) -> Result<String, Vec<String>> {
        let mut errors = Errors::default();
        let model = Row::from_syn(input, &mut errors);
        if let Ok(model) = &model {
            check(model, &mut errors);
        }
        match errors.finish(model) {
            Ok(model) => Ok(expand(&model).to_string()),
            Err(error) => Err(error.into_iter().map(|error| error.to_string()).collect()),
        }
    }

    #[test]
    fn one_to_eight_fields_are_a_row() {
        assert!(
            derive(&parse_quote!(
                struct One(u8);
            ))
            .is_ok()
        );
        assert!(
            derive(&parse_quote!(
                struct Eight(u8, u16, u32, u64, i8, i16, i32, i64);
            ))
            .is_ok()
        );
    }

    #[test]
    fn every_error_is_reported_at_once() {
        let input = parse_quote! {
            #[sparse_soa(kee = Entity, crate = sparse_soa)]
            struct Nine(#[sparse_soa(skip)] u8, u16, u32, u64, i8, i16, i32, i64, #[sparse_soa] f32);
        };
        let messages = derive(&input).unwrap_err();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].starts_with("unknown sparse_soa attribute `kee`"));
        assert!(messages[1].starts_with("a field of a `Bundle` struct takes no"));
        assert!(messages[2].starts_with("expected a list of options"));
        assert!(messages[3].contains("this is field 9"));
        assert_eq!(
            derive(&parse_quote!(
                struct Empty {}
            ))
            .unwrap_err()
            .len(),
            1
        );
        assert_eq!(
            derive(&parse_quote!(
                enum E {
                    A(u8),
                }
            ))
            .unwrap_err()
            .len(),
            1
        );
    }

    #[test]
    fn two_fields_of_one_type_are_refused_at_the_second() {
        let messages = derive(&parse_quote!(
            struct Move {
                from: Position,
                by: f32,
                to: Position,
                speed: ::core::primitive::f32,
            }
        ))
        .unwrap_err();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].starts_with("field `to` has the type of field `from`"));
        // Types written differently are the world's to tell apart (a path may name another).
        assert!(
            derive(&parse_quote!(
                struct Pair<T>(T, my::T, Vec<T>, Vec<u8>);
            ))
            .is_ok()
        );
    }

    #[test]
    fn the_world_and_index_parameters_take_names_the_struct_leaves_free() {
        let expansion = derive(&parse_quote!(
            struct Pair<__W, __I, __R, const __LIVE: bool> {
                a: __W,
                b: __I,
                c: __R,
            }
        ))
        .unwrap();
        let text = expansion.replace(' ', "");
        assert!(text.contains("fnput<const__LIVE_:"));
        assert!(text.contains("fnspawn_rows<__R_:"));
        assert!(text.contains(
            "Bundle<__W_,::sparse_soa::__private::Fields<__I_>>forPair<__W,__I,__R,__LIVE>"
        ));
    }

    #[test]
    fn the_keys_of_sparse_soa_are_left_to_it() {
        let input = parse_quote! {
            #[sparse_soa(key = Entity, dense = u16, name = "Ships", serde)]
            struct Ship { #[sparse_soa(track)] a: A, #[sparse_soa(rename = "bee")] b: B }
        };
        assert!(derive(&input).is_ok());
    }

    #[test]
    fn the_row_hands_its_fields_to_the_tuple_of_their_types_in_order() {
        let expansion = derive(&parse_quote! {
            #[sparse_soa(crate = my::runtime)]
            struct Ship<T> where T: Copy { b: B, a: T }
        })
        .unwrap();
        let text = expansion.replace(' ', "");
        assert!(text.contains("Bundle<__W,my::runtime::__private::Fields<__I>>forShip<T>"));
        assert!(text.contains("whereT:Copy,(B,T,):my::runtime::__private::Bundle<__W,__I>"));
        assert!(text.contains("::put::<__LIVE>((self.b,self.a,),world,entity)"));
        assert!(text.contains("|__row:Self|(__row.b,__row.a,)"));
    }
}
