//! A query's filters: storages whose keys it skips ([`Query::without`]), storages a key must all
//! be in ([`With`], from [`Query::with`]) or in one of ([`AnyOf`], from [`Query::any_of`]),
//! without fetching them; and the lookup state a walk holds of them ([`ExcludeFetch`]: a
//! [`Probe`] per storage). Every filter answers one question per key: is it skipped?
//!
//! [`Query::without`]: crate::query::Query::without
//! [`Query::with`]: crate::query::Query::with
//! [`Query::any_of`]: crate::query::Query::any_of

use crate::key::Key;
use crate::observe::{RowChanges, Tick};
use crate::set::{Probe, Quick};
use crate::storage::Storage;
use crate::storage::TrackedStorage;

/// A query's filter: storages whose keys a query skips: `()` (none), `&S` for any [`Storage`]
/// or a `&Group` (its aligned keys), a tuple of 1 to 8 of them, or [`With`] / [`AnyOf`] over
/// those.
pub trait Exclude<K: Key>: Copy {
    /// What a walk holds of them: each storage's [`Probe`].
    type Fetch: ExcludeFetch<K> + Copy;

    /// Whether the filter skips nothing (`()`, and tuples of `()`): a query with such a filter
    /// and one required member knows its exact length.
    const NONE: bool = false;

    /// The storages' lookup state for a walk.
    fn into_fetch(self) -> Self::Fetch;

    /// Whether any of the storages holds `key`.
    #[inline]
    fn holds(&self, key: K) -> bool {
        self.into_fetch().holds(key)
    }
}

/// What a walk holds of its filter: `holds(key)` says the key is skipped.
pub trait ExcludeFetch<K> {
    /// Whether any of the storages holds `key` (for a filter: whether it skips `key`).
    fn holds(&self, key: K) -> bool;

    /// [`holds`](Self::holds) answered without a call where it can be (every storage's key in
    /// its sparse prefix), else `None`.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookups of excluded storages, in the loop")]
    fn holds_quick(&self, key: K) -> Option<bool> {
        Some(self.holds(key))
    }

    /// Whether every one of the storages holds `key` (one storage: whether it does).
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookups of filtered storages, in the loop")]
    fn holds_all(&self, key: K) -> bool {
        self.holds(key)
    }

    /// [`holds_all`](Self::holds_all) answered without a call where it can be, else `None`.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookups of filtered storages, in the loop")]
    fn holds_all_quick(&self, key: K) -> Option<bool> {
        self.holds_quick(key)
    }

    /// How many slots of the sparse index the quick answers cover (every key below it), as
    /// [`Fetch::prefix_slots`](crate::query::Fetch::prefix_slots).
    #[inline]
    fn prefix_slots(&self) -> usize {
        usize::MAX
    }

    /// Makes the quick answers ask about every key at or past slot `slots`, as
    /// [`Fetch::narrow`](crate::query::Fetch::narrow); the answers stay the same.
    #[inline]
    fn narrow(&mut self, slots: usize) {
        let _ = slots;
    }
}

impl<K: Key> Exclude<K> for () {
    type Fetch = ();

    const NONE: bool = true;

    #[inline]
    fn into_fetch(self) {}
}

impl<K: Key> ExcludeFetch<K> for () {
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "nothing to look up")]
    fn holds(&self, _: K) -> bool {
        false
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "nothing to look up")]
    fn holds_all(&self, _: K) -> bool {
        true
    }
}

/// A filter that keeps the keys every one of its storages holds, without fetching them: what
/// [`Query::with`](crate::query::Query::with) adds (bevy's `With<T>`).
#[derive(Clone, Copy, Debug)]
pub struct With<F>(pub(crate) F);

/// A filter that keeps the keys at least one of its storages holds, without fetching them: what
/// [`Query::any_of`](crate::query::Query::any_of) adds (bevy's `Or<(With<A>, With<B>)>`).
#[derive(Clone, Copy, Debug)]
pub struct AnyOf<F>(pub(crate) F);

/// The [`ExcludeFetch`] of [`With`]: skips a key some storage lacks.
#[derive(Clone, Copy, Debug)]
pub struct WithFetch<F>(F);

/// The [`ExcludeFetch`] of [`AnyOf`]: skips a key every storage lacks.
#[derive(Clone, Copy, Debug)]
pub struct AnyOfFetch<F>(F);

impl<K: Key, F: Exclude<K>> Exclude<K> for With<F> {
    type Fetch = WithFetch<F::Fetch>;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        WithFetch(self.0.into_fetch())
    }
}

impl<K: Key, F: Exclude<K>> Exclude<K> for AnyOf<F> {
    type Fetch = AnyOfFetch<F::Fetch>;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        AnyOfFetch(self.0.into_fetch())
    }
}

impl<K: Copy, F: ExcludeFetch<K>> ExcludeFetch<K> for WithFetch<F> {
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookups of filtered storages, in the loop")]
    fn holds(&self, key: K) -> bool {
        !self.0.holds_all(key)
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookups of filtered storages, in the loop")]
    fn holds_quick(&self, key: K) -> Option<bool> {
        self.0.holds_all_quick(key).map(|all| !all)
    }

    #[inline]
    fn prefix_slots(&self) -> usize {
        self.0.prefix_slots()
    }

    #[inline]
    fn narrow(&mut self, slots: usize) {
        self.0.narrow(slots);
    }
}

impl<K: Copy, F: ExcludeFetch<K>> ExcludeFetch<K> for AnyOfFetch<F> {
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookups of filtered storages, in the loop")]
    fn holds(&self, key: K) -> bool {
        !self.0.holds(key)
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookups of filtered storages, in the loop")]
    fn holds_quick(&self, key: K) -> Option<bool> {
        self.0.holds_quick(key).map(|any| !any)
    }

    #[inline]
    fn prefix_slots(&self) -> usize {
        self.0.prefix_slots()
    }

    #[inline]
    fn narrow(&mut self, slots: usize) {
        self.0.narrow(slots);
    }
}

impl<'a, S: Storage> Exclude<S::Key> for &'a S {
    type Fetch = Probe<'a, S::Key, S::Dense>;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        S::as_sparse_set(self).probe()
    }
}

impl<K: Key, D: crate::dense::DenseIndex> ExcludeFetch<K> for Probe<'_, K, D> {
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookup of an excluded storage, in the loop")]
    fn holds(&self, key: K) -> bool {
        self.contains(key)
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookup of an excluded storage, in the loop")]
    fn holds_quick(&self, key: K) -> Option<bool> {
        match self.get_index_of_quick(key) {
            Quick::Found(_) => Some(true),
            Quick::Missing => Some(false),
            Quick::Ask => None,
        }
    }

    #[inline]
    fn prefix_slots(&self) -> usize {
        Probe::prefix_slots(self)
    }

    #[inline]
    fn narrow(&mut self, slots: usize) {
        Probe::narrow(self, slots);
    }
}

/// A filter that keeps the keys whose row in a storage with change ticks changed after a tick:
/// what [`Query::changed`](crate::query::Query::changed) adds (bevy's `Changed<T>`). A key
/// the storage does not hold is skipped.
pub struct Changed<'a, S> {
    pub(crate) storage: &'a S,
    pub(crate) since: Tick,
}

impl<S> Clone for Changed<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Changed<'_, S> {}

impl<S> core::fmt::Debug for Changed<'_, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Changed").field("since", &self.since).finish_non_exhaustive()
    }
}

/// The [`ExcludeFetch`] of [`Changed`]: skips a key whose row did not change, or is absent.
#[derive(Clone, Copy)]
pub struct ChangedFetch<'a, K, D: crate::dense::DenseIndex> {
    probe: Probe<'a, K, D>,
    changes: RowChanges<'a>,
    since: Tick,
}

impl<'a, S: TrackedStorage> Exclude<S::Key> for Changed<'a, S> {
    type Fetch = ChangedFetch<'a, S::Key, S::Dense>;

    #[inline]
    fn into_fetch(self) -> Self::Fetch {
        ChangedFetch {
            probe: S::as_sparse_set(self.storage).probe(),
            changes: self.storage.changes(),
            since: self.since,
        }
    }
}

impl<K, D: crate::dense::DenseIndex> core::fmt::Debug for ChangedFetch<'_, K, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ChangedFetch").field("since", &self.since).finish_non_exhaustive()
    }
}

impl<K: Key, D: crate::dense::DenseIndex> ExcludeFetch<K> for ChangedFetch<'_, K, D> {
    #[inline]
    fn holds(&self, key: K) -> bool {
        match self.probe.get_index_of(key) {
            Some(index) => !self.changes.changed_at_since(index, self.since),
            None => true,
        }
    }
}

macro_rules! exclude_tuple {
    ($($member:ident $i:tt),+) => {
        impl<K: Key, $($member: Exclude<K>),+> Exclude<K> for ($($member,)+) {
            type Fetch = ($($member::Fetch,)+);

            const NONE: bool = $($member::NONE)&&+;

            #[inline]
            fn into_fetch(self) -> Self::Fetch {
                ($(self.$i.into_fetch(),)+)
            }
        }

        impl<K: Key, $($member: ExcludeFetch<K>),+> ExcludeFetch<K> for ($($member,)+) {
            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the lookups of excluded storages, in the loop")]
            fn holds(&self, key: K) -> bool {
                $(self.$i.holds(key))||+
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the lookups of excluded storages, in the loop")]
            fn holds_quick(&self, key: K) -> Option<bool> {
                $(
                    if self.$i.holds_quick(key)? {
                        return Some(true);
                    }
                )+
                Some(false)
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the lookups of filtered storages, in the loop")]
            fn holds_all(&self, key: K) -> bool {
                $(self.$i.holds_all(key))&&+
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the lookups of filtered storages, in the loop")]
            fn holds_all_quick(&self, key: K) -> Option<bool> {
                $(
                    if !self.$i.holds_all_quick(key)? {
                        return Some(false);
                    }
                )+
                Some(true)
            }

            #[inline]
            fn prefix_slots(&self) -> usize {
                usize::MAX$(.min(self.$i.prefix_slots()))+
            }

            #[inline]
            fn narrow(&mut self, slots: usize) {
                $(self.$i.narrow(slots);)+
            }
        }
    };
}

exclude_tuple!(A 0);
exclude_tuple!(A 0, B 1);
exclude_tuple!(A 0, B 1, C 2);
exclude_tuple!(A 0, B 1, C 2, E 3);
exclude_tuple!(A 0, B 1, C 2, E 3, G 4);
exclude_tuple!(A 0, B 1, C 2, E 3, G 4, H 5);
exclude_tuple!(A 0, B 1, C 2, E 3, G 4, H 5, I 6);
exclude_tuple!(A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7);
