//! Storages whose keys a query skips: [`Exclude`], and the lookup state a walk holds of them
//! ([`ExcludeFetch`]: a [`Probe`] per storage).

use crate::key::Key;
use crate::set::{Probe, Quick};
use crate::storage::Storage;

/// Storages whose keys a query skips: `()` (none), `&S` for any [`Storage`], or a tuple of 1 to
/// 8 of them.
pub trait Exclude<K: Key>: Copy {
    /// What a walk holds of them: each storage's [`Probe`].
    type Fetch: ExcludeFetch<K> + Copy;

    /// The storages' lookup state for a walk.
    fn into_fetch(self) -> Self::Fetch;

    /// Whether any of the storages holds `key`.
    #[inline]
    fn holds(&self, key: K) -> bool {
        self.into_fetch().holds(key)
    }
}

/// What a walk holds of its excluded storages.
pub trait ExcludeFetch<K> {
    /// Whether any of the storages holds `key`.
    fn holds(&self, key: K) -> bool;

    /// [`holds`](Self::holds) answered without a call where it can be (every storage's key in
    /// its sparse prefix), else `None`.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookups of excluded storages, in the loop")]
    fn holds_quick(&self, key: K) -> Option<bool> {
        Some(self.holds(key))
    }
}

impl<K: Key> Exclude<K> for () {
    type Fetch = ();

    #[inline]
    fn into_fetch(self) {}
}

impl<K: Key> ExcludeFetch<K> for () {
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "nothing to look up")]
    fn holds(&self, _: K) -> bool {
        false
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
}

macro_rules! exclude_tuple {
    ($($member:ident $i:tt),+) => {
        impl<K: Key, $($member: Exclude<K>),+> Exclude<K> for ($($member,)+) {
            type Fetch = ($($member::Fetch,)+);

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
