//! `#[derive(World)]`: one `despawn` and one `retain_entities` for a struct whose fields are
//! storages, and optionally an `Entities` allocator. The same pipeline as `SparseSoa`, in one
//! file because it is small: [`World::from_syn`] reads the struct and its attributes, [`check`]
//! reports what spans several fields, [`expand`] writes the wiring. The algorithms are the
//! runtime's (`__private::despawn`, `__private::retain_keys`).

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Generics, Ident, Member, Type};

use crate::attr::{WorldContainer, WorldField};
use crate::errors::Errors;

/// A struct `#[derive(World)]` accepted the shape of.
pub(crate) struct World<'a> {
    ident: &'a Ident,
    generics: &'a Generics,
    /// The `Entities` field: marked `#[sparse_soa(entities)]`, or of a type named `Entities`.
    entities: Vec<Storage<'a>>,
    /// Every other field not marked `#[sparse_soa(skip)]`.
    storages: Vec<Storage<'a>>,
    /// The path of the runtime's `__private` module.
    private: TokenStream,
}

/// One field the world acts on.
struct Storage<'a> {
    member: Member,
    ty: &'a Type,
    /// Where to report about the field: its `entities` attribute, or the field.
    span: Span,
}

impl<'a> World<'a> {
    /// Reads the struct and its attributes; problems that do not stop the reading go to
    /// `errors`. `Err` for an enum or a union.
    pub(crate) fn from_syn(input: &'a DeriveInput, errors: &mut Errors) -> syn::Result<Self> {
        let attrs = WorldContainer::from_attrs(&input.attrs, errors);
        let fields = match &input.data {
            Data::Struct(data) => &data.fields,
            Data::Enum(data) => {
                return Err(syn::Error::new(
                    data.enum_token.span,
                    "`World` cannot be derived for enums: it needs a struct whose fields are storages",
                ));
            }
            Data::Union(data) => {
                return Err(syn::Error::new(
                    data.union_token.span,
                    "`World` cannot be derived for unions: it needs a struct whose fields are storages",
                ));
            }
        };
        let mut entities = Vec::new();
        let mut storages = Vec::new();
        let named = matches!(fields, Fields::Named(_));
        for (index, field) in fields.iter().enumerate() {
            let field_attrs = WorldField::from_attrs(&field.attrs, errors);
            let member = match (&field.ident, named) {
                (Some(ident), true) => Member::Named(ident.clone()),
                _ => Member::Unnamed(index.into()),
            };
            if let (Some(_), Some(marked)) = (&field_attrs.skip, &field_attrs.entities) {
                errors.push(syn::Error::new(
                    marked.span,
                    "a field cannot be both `entities` and `skip`",
                ));
                continue;
            }
            if field_attrs.skip.is_some() {
                continue;
            }
            if let Some(marked) = &field_attrs.entities {
                entities.push(Storage { member, ty: &field.ty, span: marked.span });
            } else if is_entities(&field.ty) {
                entities.push(Storage { member, ty: &field.ty, span: field.ty.span() });
            } else {
                storages.push(Storage { member, ty: &field.ty, span: field.ty.span() });
            }
        }
        let private = attrs.krate.as_ref().map_or_else(
            || quote!(::sparse_soa::__private),
            |krate| {
                let path = &krate.value;
                quote!(#path::__private)
            },
        );
        Ok(World { ident: &input.ident, generics: &input.generics, entities, storages, private })
    }
}

/// Whether `ty` is a path whose last segment is `Entities`: the allocator, found without an
/// attribute.
fn is_entities(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => {
            path.qself.is_none()
                && path.path.segments.last().is_some_and(|segment| segment.ident == "Entities")
        }
        _ => false,
    }
}

/// The checks that span several fields.
pub(crate) fn check(world: &World<'_>, errors: &mut Errors) {
    for extra in world.entities.iter().skip(1) {
        errors.push(syn::Error::new(
            extra.span,
            "a `World` has at most one `Entities` field: mark other fields of that type `#[sparse_soa(skip)]`",
        ));
    }
    if world.storages.is_empty() {
        errors.push(syn::Error::new(
            world.ident.span(),
            format!(
                "`{}` has no storage field for `World` to despawn from: add a field such as `positions: PositionSoa` or `SparseMap<Entity, T>`",
                world.ident
            ),
        ));
    }
}

/// `despawn` and `retain_entities`.
pub(crate) fn expand(world: &World<'_>) -> TokenStream {
    let World { ident, generics, private: p, .. } = world;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let key = match (world.entities.first(), world.storages.first()) {
        (Some(_), _) => quote!(#p::Entity),
        (None, Some(first)) => {
            let ty = first.ty;
            quote_spanned!(first.span=> <#ty as #p::Keyed>::Key)
        }
        (None, None) => quote!(::core::primitive::u32),
    };
    let count = world.storages.len();
    let borrows = world.storages.iter().map(|storage| {
        let member = &storage.member;
        quote_spanned!(storage.span=> #p::world_storage::<#key, _>(&mut self.#member))
    });
    let storages = quote! {
        let mut __storages: [&mut dyn #p::WorldStorage<#key>; #count] = [#(#borrows),*];
    };
    let predicates = generic_predicates(world, &key);
    let where_clause = if predicates.is_empty() {
        where_clause.to_token_stream()
    } else {
        let existing = where_clause.map(|clause| clause.predicates.iter().collect::<Vec<_>>());
        let existing = existing.unwrap_or_default();
        quote!(where #(#existing,)* #(#predicates,)*)
    };
    let (despawn, retain) = match world.entities.first() {
        Some(entities) => {
            let member = &entities.member;
            (
                quote! {
                    // Removed from the storages even when dead: a storage may still hold it if
                    // it was despawned from the allocator alone. Never touches a newer
                    // generation.
                    #storages
                    #p::despawn(&mut __storages, entity);
                    self.#member.despawn(entity)
                },
                quote! {
                    #storages
                    self.#member.retain(|__entity| {
                        let __keep = keep(__entity);
                        if !__keep {
                            #p::despawn(&mut __storages, __entity);
                        }
                        __keep
                    });
                },
            )
        }
        None => (
            quote! {
                #storages
                #p::despawn(&mut __storages, entity)
            },
            quote! {
                #storages
                #p::retain_keys(&mut __storages, &mut keep);
            },
        ),
    };
    let (despawn_doc, retain_doc) = if world.entities.is_empty() {
        (
            "Removes `entity` from every storage of the world (a swap-remove in each); returns \
             whether any storage held it.\n\nComputes in **O(storages)** time.",
            "Asks `keep` about every key stored in any storage of the world, once each, and \
             removes the ones it rejects from every storage.\n\nComputes in **O(n · storages)** \
             time for n stored keys, without allocating.",
        )
    } else {
        (
            "Despawns `entity`: removes it from every storage of the world (a swap-remove in \
             each) and from the `Entities` allocator. Returns whether it was alive. A stale \
             handle never touches a newer entity of its slot.\n\nComputes in \
             **O(storages)** time.",
            "Asks `keep` about every live entity, once each, and despawns the ones it rejects \
             (from every storage and from the allocator).\n\nComputes in **O(slots + removed · \
             storages)** time, without allocating.",
        )
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #ident #ty_generics #where_clause {
            #[doc = #despawn_doc]
            pub fn despawn(&mut self, entity: #key) -> ::core::primitive::bool {
                #despawn
            }

            #[doc = #retain_doc]
            pub fn retain_entities(
                &mut self,
                mut keep: impl ::core::ops::FnMut(#key) -> ::core::primitive::bool,
            ) {
                #retain
            }
        }
    }
}

/// For a generic world, what its field types must be: storages of the key. (A concrete type is
/// checked where it is used, with an error on the field.)
fn generic_predicates(world: &World<'_>, key: &TokenStream) -> Vec<TokenStream> {
    if world.generics.params.is_empty() {
        return Vec::new();
    }
    let p = &world.private;
    let mut predicates = Vec::new();
    if world.entities.is_empty() {
        if let Some(first) = world.storages.first() {
            let ty = first.ty;
            predicates.push(quote_spanned!(first.span=> #ty: #p::Keyed));
        }
    }
    for storage in &world.storages {
        let ty = storage.ty;
        predicates.push(quote_spanned!(storage.span=> #ty: #p::WorldStorage<#key>));
    }
    predicates
}
