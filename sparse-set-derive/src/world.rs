//! `#[derive(World)]`: one `despawn` and one `retain_entities` for a struct whose fields are
//! storages, and optionally an `Entities` allocator; with the allocator (and no generic
//! parameters), whole rows: `spawn`, `try_spawn`, `spawn_batch`, `insert` and `try_insert`. The
//! same pipeline as `SparseSoa`, in one file because it is small: [`World::from_syn`] reads the
//! struct and its attributes, [`check`] reports what spans several fields, [`expand`] writes
//! the wiring. The algorithms are the runtime's (`__private::despawn`, `__private::retain_keys`,
//! `__private::spawn` and the row traits).

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Fields, Generics, Ident, Member, Type};

use crate::attr::{self, CrateContainer, WorldField};
use crate::errors::{self, Errors};
use crate::names;

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
    /// Its `tag = T` attributes: the unit structs a row stores in it.
    tags: Vec<attr::Spanned<Type>>,
}

impl<'a> World<'a> {
    /// Reads the struct and its attributes; problems that do not stop the reading go to
    /// `errors`. `Err` for an enum or a union.
    pub(crate) fn from_syn(input: &'a DeriveInput, errors: &mut Errors) -> syn::Result<Self> {
        let attrs = CrateContainer::from_attrs(&input.attrs, errors, "`World` struct", false);
        let fields = errors::struct_fields(
            input,
            "World",
            "it needs a struct whose fields are storages",
            "it needs a struct whose fields are storages",
        )?;
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
            let tags = field_attrs.tags;
            let not_a_storage = field_attrs.skip.is_some()
                || field_attrs.entities.is_some()
                || (is_entities(&field.ty) && field_attrs.entities.is_none());
            if not_a_storage {
                for tag in &tags {
                    errors.push(syn::Error::new(
                        tag.span,
                        "`tag` names the tag a storage field holds; this field is not a storage",
                    ));
                }
            }
            if field_attrs.skip.is_some() {
                continue;
            }
            if let Some(marked) = &field_attrs.entities {
                entities.push(Storage { member, ty: &field.ty, span: marked.span, tags });
            } else if is_entities(&field.ty) {
                entities.push(Storage { member, ty: &field.ty, span: field.ty.span(), tags });
            } else {
                storages.push(Storage { member, ty: &field.ty, span: field.ty.span(), tags });
            }
        }
        let private = names::private_path(attrs.krate.as_ref().map(|krate| &krate.value));
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
    let rows = !world.entities.is_empty() && world.generics.params.is_empty();
    // Each tag's name and the field that took it first: a tag is stored in one place.
    let mut seen: Vec<(String, &Member)> = Vec::new();
    for (at, storage) in world.storages.iter().enumerate() {
        for (index, tag) in storage.tags.iter().enumerate() {
            if !rows {
                errors.push(syn::Error::new(
                    tag.span,
                    "`tag` says which tag a row stores here, and only a world with an `Entities` field and no generic parameters spawns rows",
                ));
                continue;
            }
            if let Err(message) = tag_part(storage, index, &world.private) {
                errors.push(syn::Error::new(tag.span, message));
                continue;
            }
            if let Some(message) = misplaced_tag(world, at, &tag.value) {
                errors.push(syn::Error::new(tag.span, message));
                continue;
            }
            let name = tag.value.to_token_stream().to_string();
            if let Some((_, first)) = seen.iter().find(|(seen, _)| *seen == name) {
                let first = names::member_text(first);
                errors.push(syn::Error::new(
                    tag.span,
                    format!(
                        "`tag = {name}` is given to field `{first}` already: a row stores a tag in one storage, so give each tag to one field"
                    ),
                ));
            } else {
                seen.push((name, &storage.member));
            }
        }
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
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    let key = match (world.entities.first(), world.storages.first()) {
        (Some(_), _) => quote!(#p::Entity),
        (None, Some(first)) => {
            let ty = first.ty;
            quote_spanned!(first.span=> <#ty as #p::Keyed>::Key)
        }
        (None, None) => quote!(::core::primitive::u32),
    };
    let count = world.storages.len();
    let this = method_self();
    let borrows = world.storages.iter().map(|storage| {
        let member = &storage.member;
        quote_spanned!(storage.span=> #p::world_storage::<#key, _, _>(&mut #this.#member))
    });
    let storages = quote! {
        let mut __storages: [&mut dyn #p::WorldStorage<#key>; #count] = [#(#borrows),*];
    };
    let where_clause = where_clause_with(world, &key);
    let (despawn, retain) = match world.entities.first() {
        Some(entities) => {
            let member = &entities.member;
            // Through one function, so that a field that is no allocator is one error, there.
            let alloc_ty = entities.ty;
            let allocator = quote_spanned! {entities.ty.span()=>
                #p::allocator::<#alloc_ty, _>(&mut #this.#member)
            };
            (
                quote! {
                    // Removed from the storages even when dead: a storage may still hold it if
                    // it was despawned from the allocator alone. Never touches a newer
                    // generation.
                    #storages
                    #p::despawn(&mut __storages, entity);
                    #allocator.despawn(entity)
                },
                quote! {
                    #storages
                    #allocator.retain(|__entity| {
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
             handle never touches a newer entity of its slot.\n\nIf a removal panics (a \
             value's `Drop`, an observer's hook), the panic propagates with the entity still \
             alive and the storages after that one still holding it: despawning it again \
             finishes the despawn.\n\nComputes in **O(storages)** time.",
            "Asks `keep` about every live entity, once each, and despawns the ones it rejects \
             (from every storage and from the allocator).\n\nComputes in **O(slots + removed · \
             storages)** time, without allocating.",
        )
    };
    let rows = rows(world);
    let check_alive = check_alive(world);
    quote! {
        #rows

        #check_alive

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

/// For a world with an allocator: `CheckAlive` over every storage field (named in the error).
/// A trait method only, so that a `check_alive` of the user's own keeps compiling.
fn check_alive(world: &World<'_>) -> TokenStream {
    let World { ident, generics, private: p, .. } = world;
    let Some(entities) = world.entities.first() else { return TokenStream::new() };
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    let entity = quote!(#p::Entity);
    let where_clause = where_clause_with(world, &entity);
    let member = &entities.member;
    let alloc_ty = entities.ty;
    let this = method_self();
    let allocator =
        quote_spanned!(entities.ty.span()=> #p::allocator::<#alloc_ty, _>(&#this.#member));
    let storages = world.storages.iter().map(|storage| {
        let member = &storage.member;
        let name = names::field_name(member);
        quote_spanned!(storage.span=> (#name, #p::world_storage::<#entity, _, _>(&#this.#member)))
    });
    let result = quote!(::core::result::Result<(), #p::NotAlive>);
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::CheckAlive for #ident #ty_generics #where_clause {
            fn check_alive(&self) -> #result {
                #p::check_world_alive(#allocator, &[#(#storages),*])
            }
        }
    }
}

/// The world's own where clause, with [`generic_predicates`] added for a generic world.
fn where_clause_with(world: &World<'_>, key: &TokenStream) -> TokenStream {
    let where_clause = world.generics.where_clause.as_ref();
    let predicates = generic_predicates(world, key);
    if predicates.is_empty() {
        return where_clause.to_token_stream();
    }
    let existing = where_clause.map(|clause| clause.predicates.iter().collect::<Vec<_>>());
    let existing = existing.unwrap_or_default();
    quote!(where #(#existing,)* #(#predicates,)*)
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

/// The rows of a world with an allocator and no generic parameters: which field stores each
/// component type (a `Component` implementation per storage field, and per member and excluded
/// storage of a field written `Group<(..), (..)>`), and the methods that spawn and insert rows.
fn rows(world: &World<'_>) -> TokenStream {
    let Some(entities) = world.entities.first() else { return TokenStream::new() };
    if !world.generics.params.is_empty() {
        return TokenStream::new();
    }
    let components = components(world);
    let methods = row_methods(world, entities);
    quote! {
        #(#components)*

        #methods
    }
}

/// A `Component` and a one-component `Bundle` implementation per component type: the value of
/// each storage field, of each member and excluded storage of a field written
/// `Group<(..), (..)>`, and each `tag = T`.
fn components(world: &World<'_>) -> Vec<TokenStream> {
    let World { ident, private: p, .. } = world;
    let mut components = Vec::new();
    let mut checks = Vec::new();
    for (field, storage) in world.storages.iter().enumerate() {
        let (member, ty) = (&storage.member, storage.ty);
        let mut component = |span: Span, value: TokenStream, part: TokenStream, whole: bool| {
            let at = quote!(#p::At<#field, #part, #ty>);
            // What every method of the `Bundle` needs, as the impl's bound: a field that cannot
            // store the value (keyed by another key, say) is one error, at the attribute or the
            // field, instead of one in each method. The value keeps its own span: a tag that
            // names no type is reported there. A whole field's value is named through
            // `FieldValue`, bound too: a field that is no storage at all is reported by its
            // message, which says so.
            let bound = errors::respan(quote!(where #ty: #p::RowStorage<#part,), span);
            let field_value = if whole {
                errors::respan(quote!(#ty: #p::FieldValue,), span)
            } else {
                TokenStream::new()
            };
            let stores = quote_spanned!(span=> #bound #value>, #field_value);
            components.push(quote_spanned! {span=>
                #[automatically_derived]
                #[diagnostic::do_not_recommend]
                impl #p::Component<#ident, #at> for #value {
                    type Storage = #ty;

                    #[inline]
                    fn storage(world: &mut #ident) -> &mut #ty {
                        &mut world.#member
                    }
                }

                #[automatically_derived]
                #[diagnostic::do_not_recommend]
                impl #p::Bundle<#ident, #p::One<#at>> for #value #stores {
                    type Replaced = ::core::option::Option<Self>;

                    #[inline]
                    fn put<const LIVE: ::core::primitive::bool>(
                        self,
                        world: &mut #ident,
                        entity: #p::Entity,
                    ) -> ::core::result::Result<::core::option::Option<Self>, #p::Refused> {
                        #p::put_one::<#ident, #at, Self>(self, world, entity)
                    }

                    #[inline]
                    fn reserve(
                        world: &mut #ident,
                        additional: ::core::primitive::usize,
                        slots: ::core::ops::Range<::core::primitive::u64>,
                    ) {
                        #p::reserve_one::<#ident, #at, Self>(world, additional, slots);
                    }

                    #[inline]
                    #[track_caller]
                    fn spawn_rows<__R: ::core::iter::Iterator<Item = Self>>(
                        world: &mut #ident,
                        rows: &mut __R,
                        spawned: ::core::option::Option<&mut #p::Vec<#p::Entity>>,
                        all: ::core::primitive::bool,
                    ) {
                        #p::spawn_rows_one::<#ident, #at, Self, __R>(world, rows, spawned, all);
                    }
                }
            });
        };
        let value = quote_spanned!(storage.span=> <#ty as #p::FieldValue>::Value);
        component(storage.span, value, quote!(#p::Whole), true);
        if let Some(parts) = group_parts(ty) {
            for (part, part_ty) in parts.all() {
                let value = quote_spanned!(storage.span=> <#part_ty as #p::Storage>::Value);
                component(storage.span, value, part.tokens(p), false);
            }
        }
        for (index, tag) in storage.tags.iter().enumerate() {
            if let Ok(part) = tag_part(storage, index, p) {
                let value = &tag.value;
                component(tag.span, quote!(#value), quote!(#p::Tag<#part>), false);
                // A tag's storage keeps only the key: a value that holds something would be
                // dropped unseen. Checked where the world is compiled, at the attribute.
                let message = format!(
                    "`tag = {}` names a type that holds data, which a tag's storage would drop: a tag is a unit struct (`struct Frozen;`); store a value in a storage of its own",
                    value.to_token_stream()
                )
                // The message is `assert!`'s format string: a const generic's braces are text.
                .replace('{', "{{")
                .replace('}', "}}");
                checks.push(quote_spanned! {tag.span=>
                    const _: () = ::core::assert!(::core::mem::size_of::<#value>() == 0, #message);
                });
            }
        }
    }
    components.extend(checks);
    components
}

/// `RowWorld` and the world's `spawn`, `try_spawn`, `spawn_batch`, `insert`, `try_insert`.
fn row_methods(world: &World<'_>, entities: &Storage<'_>) -> TokenStream {
    let World { ident, private: p, .. } = world;
    let member = &entities.member;
    let alloc_ty = entities.ty;
    let this = method_self();
    let allocator =
        quote_spanned!(entities.ty.span()=> #p::allocator::<#alloc_ty, _>(&mut #this.#member));
    let entity = quote!(#p::Entity);
    let error = quote!(#p::Error);
    // Evaluated when the program is built, in the method the user calls: the error's note
    // names that call, with the row's types.
    let distinct = |row: TokenStream, index: TokenStream| {
        quote! {
            const {
                ::core::assert!(
                    <#row as #p::Bundle<Self, #index>>::DISTINCT,
                    "a row names one storage twice: each component of a row must go to a different storage (the note below names the call and the row's types)"
                );
            }
        }
    };
    let row_distinct = distinct(quote!(R), quote!(I));
    let batch_distinct = distinct(quote!(B), quote!(I));
    quote! {
        #[automatically_derived]
        impl #p::RowWorld for #ident {
            #[inline]
            fn entities(&mut self) -> &mut #p::Entities {
                #allocator
            }

            #[inline]
            fn despawn_entity(&mut self, entity: #entity) {
                Self::despawn(self, entity);
            }
        }

        #[automatically_derived]
        impl #ident {
            /// Spawns an entity with the components of `row`: one component, a tuple of 1 to 8,
            /// or a struct deriving `Bundle`, each component stored in the storage of its type.
            /// A row that completes a group is written straight into its aligned prefix.
            ///
            /// Computes in **O(components)** amortised time.
            ///
            /// # Panics
            ///
            /// Where [`try_spawn`](Self::try_spawn) returns an error, with its message; nothing
            /// changed then.
            #[inline]
            #[track_caller]
            pub fn spawn<R: #p::Bundle<Self, I>, I>(&mut self, row: R) -> #entity {
                #row_distinct
                #p::spawn(self, row)
            }

            /// The fallible twin of [`spawn`](Self::spawn).
            ///
            /// Computes in **O(components)** amortised time.
            ///
            /// # Errors
            ///
            /// The allocator's, or the first failing storage's (a bounded storage that is
            /// full, a failed allocation); nothing is stored then, and the entity is freed
            /// again (its generation stays used, as after any despawn). The storages that took
            /// a component before the refusal gave it back: their observers heard it stored and
            /// removed (a `Removals` lists the entity, a `Journal` records both).
            #[inline]
            pub fn try_spawn<R: #p::Bundle<Self, I>, I>(
                &mut self,
                row: R,
            ) -> ::core::result::Result<#entity, #error> {
                #row_distinct
                #p::try_spawn(self, row)
            }

            /// Spawns one entity per row of `rows`, reserving room first for as many as the
            /// iterator says it has at least. Returns an iterator of the new entities that
            /// spawns a row per step; dropped, it spawns the rows left, so
            /// `world.spawn_batch(rows);` spawns them all.
            ///
            /// The rows are stored a run at a time, gathered first in buffers the batch
            /// allocates (one per component, one for the run's entities), also when every
            /// storage is bounded; [`spawn`](Self::spawn) allocates nothing of its own.
            ///
            /// Computes in **O(rows × components)** amortised time.
            ///
            /// # Panics
            ///
            /// A step panics where [`spawn`](Self::spawn) would; the rows spawned before stay.
            #[inline]
            pub fn spawn_batch<R, B, I>(
                &mut self,
                rows: R,
            ) -> #p::SpawnBatch<'_, Self, R::IntoIter, B, I>
            where
                R: ::core::iter::IntoIterator<Item = B>,
                B: #p::Bundle<Self, I>,
            {
                #batch_distinct
                #p::spawn_batch(self, rows.into_iter())
            }

            /// The fallible twin of [`spawn_batch`](Self::spawn_batch): spawns one entity per
            /// row of `rows`, in order, as [`try_spawn`](Self::try_spawn) does (one row at a
            /// time, with room reserved first for as many as the iterator says it has at least),
            /// and returns the new entities. If a row is refused, the entities this call
            /// spawned are despawned again and the error returned: the world is as before but
            /// for the generations used up.
            ///
            /// Computes in **O(rows × components)** amortised time; allocates the `Vec` it
            /// returns, also when a row is then refused.
            ///
            /// # Errors
            ///
            /// The first refused row's, as [`try_spawn`](Self::try_spawn): the allocator's, or
            /// a storage's (a bounded storage that is full, a failed allocation).
            ///
            /// # Panics
            ///
            /// If the rows' iterator panics: the rows it gave before stay spawned.
            pub fn try_spawn_batch<R, B, I>(
                &mut self,
                rows: R,
            ) -> ::core::result::Result<#p::Vec<#entity>, #error>
            where
                R: ::core::iter::IntoIterator<Item = B>,
                B: #p::Bundle<Self, I>,
            {
                #batch_distinct
                #p::try_spawn_batch(self, rows)
            }

            /// Stores the components of `row` for the live `entity`, replacing the values it
            /// had in those storages (they are dropped).
            ///
            /// Computes in **O(components)** amortised time.
            ///
            /// # Panics
            ///
            /// Where [`try_insert`](Self::try_insert) returns an error, with its message:
            /// `entity` is not alive in this world, or a storage refused; nothing changed then.
            #[inline]
            #[track_caller]
            pub fn insert<R: #p::Bundle<Self, I>, I>(&mut self, entity: #entity, row: R) {
                #row_distinct
                #p::insert(self, entity, row);
            }

            /// The fallible twin of [`insert`](Self::insert).
            ///
            /// Computes in **O(components)** amortised time.
            ///
            /// # Errors
            ///
            /// [`Error::NotAlive`](#p::Error::NotAlive) if the world's allocator does not hold
            /// `entity` alive (it was despawned: a stale handle is refused by every storage),
            /// or the first failing storage's error; the world is unchanged then, but for rows
            /// an older generation of `entity` left in the storages the row names (despawned
            /// from the allocator alone), which the row replaced: those are dropped, not given
            /// to `entity`. The storages that took a component before the refusal gave it back:
            /// their observers heard both (an insert and a removal, or a replacement and the
            /// old value put back, which `Ticks` counts as a change).
            #[inline]
            pub fn try_insert<R: #p::Bundle<Self, I>, I>(
                &mut self,
                entity: #entity,
                row: R,
            ) -> ::core::result::Result<(), #error> {
                #row_distinct
                #p::try_insert(self, entity, row)
            }
        }
    }
}

/// `self`, as the generated methods name it: interpolated into tokens placed at a field, whose
/// span may come from a `macro_rules!` caller, where a `self` of that span would not resolve.
fn method_self() -> TokenStream {
    quote!(self)
}

/// The storage types a group field is written with: what the derive can name components by.
#[derive(Default)]
struct GroupParts<'a> {
    /// The group's members and excluded storages, then those of each nested level, from the
    /// outermost, if written `Nested<(..), (..), Nested<..>>`.
    levels: Vec<(Vec<&'a Type>, Vec<&'a Type>)>,
}

/// Which part of a group field a storage is: a member or an excluded storage of level `depth`
/// (0 is the group, 1 its nested level).
#[derive(Clone, Copy)]
struct Part {
    depth: usize,
    excluded: bool,
    index: usize,
}

impl Part {
    /// The part as the runtime names it: `Member<I>`, `Excluded<I>`, `LevelMember<D, I>` or
    /// `LevelExcluded<D, I>`.
    fn tokens(self, p: &TokenStream) -> TokenStream {
        let Part { depth, excluded, index } = self;
        match (depth, excluded) {
            (0, false) => quote!(#p::Member<#index>),
            (0, true) => quote!(#p::Excluded<#index>),
            (_, false) => quote!(#p::LevelMember<#depth, #index>),
            (_, true) => quote!(#p::LevelExcluded<#depth, #index>),
        }
    }
}

impl<'a> GroupParts<'a> {
    /// Every part, level by level from the group inward, members before excluded storages.
    fn all(&self) -> impl Iterator<Item = (Part, &'a Type)> + '_ {
        self.levels.iter().enumerate().flat_map(|(depth, (members, excluded))| {
            let kinds = [(false, members), (true, excluded)];
            kinds.into_iter().flat_map(move |(is_excluded, list)| {
                list.iter()
                    .enumerate()
                    .map(move |(index, &ty)| (Part { depth, excluded: is_excluded, index }, ty))
            })
        })
    }
}

/// The element types of `argument`, if it is a tuple type.
fn tuple_of(argument: &syn::GenericArgument) -> Option<Vec<&Type>> {
    match argument {
        syn::GenericArgument::Type(Type::Tuple(tuple)) => Some(tuple.elems.iter().collect()),
        _ => None,
    }
}

/// The angle-bracketed arguments of the last segment of `ty`, if it is named `name`.
fn arguments_of<'a>(
    ty: &'a Type,
    name: &str,
) -> Option<impl Iterator<Item = &'a syn::GenericArgument>> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last().filter(|segment| segment.ident == name)?;
    let syn::PathArguments::AngleBracketed(arguments) = &segment.arguments else { return None };
    Some(arguments.args.iter())
}

/// The member and excluded storage types of a field written `Group<(M, ..)>`,
/// `Group<(M, ..), (X, ..)>` or `Group<(M, ..), (X, ..), Nested<(M2, ..), (X2, ..)>>` (and an
/// observer after it, or after `()` for no nested level), the
/// nested level holding levels of its own the same way (`Nested<(M2, ..), (X2, ..),
/// Nested<..>>`; the last path segments named `Group` and `Nested`, with tuples): what the
/// derive can name components by. `None` for any other type, such as an alias of a group.
fn group_parts(ty: &Type) -> Option<GroupParts<'_>> {
    let mut parts = GroupParts::default();
    let mut arguments = arguments_of(ty, "Group")?;
    loop {
        let members = tuple_of(arguments.next()?)?;
        let excluded = match arguments.next() {
            Some(excluded) => tuple_of(excluded)?,
            None => Vec::new(),
        };
        parts.levels.push((members, excluded));
        let Some(nested) = arguments.next() else { return Some(parts) };
        let syn::GenericArgument::Type(nested) = nested else { return None };
        // `()`: no nested level (a group's observer may follow).
        if matches!(nested, Type::Tuple(tuple) if tuple.elems.is_empty()) {
            return Some(parts);
        }
        arguments = arguments_of(nested, "Nested")?;
    }
}

/// Where tag `index` of `storage` goes, as the part of `At`: the whole field, or for a group
/// field the member or excluded storage written `{Tag}Soa`. `Err` says what is wrong.
fn tag_part(storage: &Storage<'_>, index: usize, p: &TokenStream) -> Result<TokenStream, String> {
    let tag = &storage.tags[index].value;
    let Some(parts) = group_parts(storage.ty) else {
        return match index {
            0 => Ok(quote!(#p::Whole)),
            _ => Err("a storage field holds one tag: `tag` is given twice".to_owned()),
        };
    };
    let Some(name) = last_segment(tag) else {
        return Err("`tag` takes the unit struct's name, such as `tag = Frozen`".to_owned());
    };
    let storage_name = format!("{name}Soa");
    let mut found =
        parts.all().filter(|&(_, part)| last_segment(part).as_ref() == Some(&storage_name));
    match (found.next(), found.next()) {
        (Some((part, _)), None) => Ok(part.tokens(p)),
        _ => Err(format!(
            "no member or excluded storage of this group is written `{storage_name}` (once): in a group field, `tag = {name}` names the tag of the part written `{storage_name}`"
        )),
    }
}

/// The last segment of a type written as a path (`FrozenSoa` of `tags::FrozenSoa`).
fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(path) => path.path.segments.last().map(|segment| segment.ident.to_string()),
        _ => None,
    }
}

/// The storage types a field is written with: its own, or each part's of a group.
fn written_names(storage: &Storage<'_>) -> Vec<String> {
    match group_parts(storage.ty) {
        Some(parts) => parts.all().filter_map(|(_, part)| last_segment(part)).collect(),
        None => last_segment(storage.ty).into_iter().collect(),
    }
}

/// A tag put on the wrong field: `tag = Frozen` on a whole field written otherwise than
/// `FrozenSoa` (every tag storage is the same type, so only the names can tell) while another
/// field is written `FrozenSoa`, the storage `#[derive(SparseSoa)]` names for `Frozen`. Renamed
/// storages and aliases are left alone: no other field is written with the default name then.
fn misplaced_tag(world: &World<'_>, at: usize, tag: &Type) -> Option<String> {
    let storage = &world.storages[at];
    let name = last_segment(tag)?;
    let wanted = format!("{name}Soa");
    let written = last_segment(storage.ty)?;
    if group_parts(storage.ty).is_some() || written == wanted {
        return None;
    }
    let (_, other) = (world.storages.iter().enumerate())
        .find(|&(index, other)| index != at && written_names(other).contains(&wanted))?;
    Some(format!(
        "`tag = {name}` is on this field, written `{written}`, while field `{}` is written `{wanted}`, the storage of `{name}`: move the tag to that field",
        names::member_text(&other.member)
    ))
}
