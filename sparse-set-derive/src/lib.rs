//! The derive macros of [sparse-soa](https://docs.rs/sparse-soa): `#[derive(SparseSoa)]`,
//! `#[derive(World)]` and `#[derive(Bundle)]`. Depend on `sparse-soa` and use them through it
//! (`sparse_soa::SparseSoa`). The reference of what they generate is in the `sparse-soa`
//! documentation, module `derive_reference`.
//!
//! `SparseSoa` is a pipeline, one module per stage:
//!
//! 1. `ast`: the input model, read from syn, with the attributes (`attr`) and the generated
//!    names and type texts (`names`);
//! 2. `check`: the checks that span several parts;
//! 3. `expand`: one module per generated artifact, each a pure function of the model.
//!
//! Every user error found by the first two stages goes to the collector in `errors`, and they
//! leave together, before anything is expanded. `errors` and `names` depend on no other stage.
//! `World` (`world`) and `Bundle` (`bundle`) are the same three stages, each in one file
//! because it is small.

#![forbid(unsafe_code)]

mod ast;
mod attr;
mod bundle;
mod check;
mod errors;
mod expand;
mod names;
mod world;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives struct-of-arrays storage with a sparse index for a struct: `{Name}Soa`, views
/// `{Name}Ref` / `{Name}Mut`, column slices, iterators and trait implementations. See the
/// `sparse_soa::derive_reference` documentation for every generated item and attribute.
#[proc_macro_derive(SparseSoa, attributes(sparse_soa))]
pub fn derive_sparse_soa(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match derive(&input) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

fn derive(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let mut errors = errors::Errors::default();
    let model = ast::Input::from_syn(input, &mut errors);
    if let Ok(model) = &model {
        check::check(model, &mut errors);
    }
    let model = errors.finish(model)?;
    Ok(expand::expand(&model))
}

/// Derives `despawn` and `retain_entities` for a struct whose fields are storages (and
/// optionally an `Entities` allocator): one call removes an entity from every storage. See the
/// `sparse_soa::derive_reference` documentation, section `World`.
#[proc_macro_derive(World, attributes(sparse_soa))]
pub fn derive_world(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut errors = errors::Errors::default();
    let model = world::World::from_syn(&input, &mut errors);
    if let Ok(model) = &model {
        world::check(model, &mut errors);
    }
    match errors.finish(model) {
        Ok(model) => world::expand(&model).into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// Derives `Bundle` for a struct whose 1 to 8 fields are components: a `#[derive(World)]`
/// world's `spawn`, `spawn_batch` and `insert` then take the struct as they take the tuple of
/// its fields. See the `sparse_soa::derive_reference` documentation, section `World`.
#[proc_macro_derive(Bundle, attributes(sparse_soa))]
pub fn derive_bundle(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut errors = errors::Errors::default();
    let model = bundle::Row::from_syn(&input, &mut errors);
    if let Ok(model) = &model {
        bundle::check(model, &mut errors);
    }
    match errors.finish(model) {
        Ok(model) => bundle::expand(&model).into(),
        Err(error) => error.to_compile_error().into(),
    }
}
