//! Without the `rayon` feature: the parallel methods (`Query::par_for_each`, `Group::par_iter`,
//! `Group::par_iter_mut`) are still named, so that calling one says which feature it needs
//! instead of that no such method exists. They cannot be called: their bound is never met.

use crate::group::{Group, GroupExcluded, GroupMembers, GroupRows, Nest};
use crate::observe::Observer;
use crate::query::Query;

/// What the parallel methods need: the `rayon` feature. Implemented by nothing, so a call to
/// one of them without the feature is an error that says so.
#[diagnostic::on_unimplemented(
    message = "parallel iteration needs the `rayon` feature of `sparse-soa`",
    label = "`rayon` is not enabled",
    note = "enable it in Cargo.toml: `features = [\"rayon\"]` on the `sparse-soa` dependency (or on `sparse-set-core`, if you depend on the core alone)"
)]
pub trait RayonFeature {
    /// Never called: nothing implements the trait.
    fn absent() -> !;
}

impl<M, W> Query<M, W> {
    /// Needs the `rayon` feature: see `Query::par_for_each` in the docs built with it.
    pub fn par_for_each<F>(self, _: F)
    where
        M: RayonFeature,
    {
        M::absent()
    }
}

impl<M: GroupRows, X: GroupExcluded<M::Key>, N, O: Observer<M::Key, ()>> Group<M, X, N, O> {
    /// Needs the `rayon` feature: see `Group::par_iter` in the docs built with it.
    pub fn par_iter(&self)
    where
        M: RayonFeature,
    {
        M::absent()
    }
}

impl<M: GroupMembers, X: GroupExcluded<M::Key>, N: Nest<M::Key>, O: Observer<M::Key, ()>>
    Group<M, X, N, O>
{
    /// Needs the `rayon` feature: see `Group::par_iter_mut` in the docs built with it.
    pub fn par_iter_mut(&mut self)
    where
        M: RayonFeature,
    {
        M::absent()
    }
}
