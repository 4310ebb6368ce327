//! [`Probe`]: a set's lookup state taken out of the set once, for a loop that looks up many
//! keys (a query's probed members and exclusions). The common lane, the sparse prefix, is read
//! inline from two registers' worth of state; every other lane is a call, so the loop's
//! registers stay with the loop.

use crate::dense::DenseIndex;
use crate::key::Key;
use crate::pages::Prefix;
use crate::set::SparseSet;

/// A set's lookup state, taken out once for a loop that looks up many keys (the common lane,
/// the sparse prefix, read inline; every other lane a call). Made by
/// [`SparseSet::probe`]; it answers what [`SparseSet::get_index_of`] answers.
///
/// ```
/// use sparse_set_core::SparseSet;
///
/// let set: SparseSet<u32> = (0..1000).collect();
/// let probe = set.probe();
/// let found = [3, 999, 5000].map(|key| probe.get_index_of(key));
/// assert_eq!(found, [Some(3), Some(999), None]);
/// ```
pub struct Probe<'a, K, D: DenseIndex> {
    /// The prefix's words, `SparseSet::STRIDE` per slot.
    prefix: &'a [D],
    /// The dense keys, for keys whose slot does not identify them.
    dense: &'a [K],
    /// Everything else: the lanes past the prefix, out of line.
    set: &'a SparseSet<K, D>,
}

impl<K: Key, D: DenseIndex> core::fmt::Debug for Probe<'_, K, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Probe").field("set", self.set).finish_non_exhaustive()
    }
}

impl<K, D: DenseIndex> Clone for Probe<'_, K, D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K, D: DenseIndex> Copy for Probe<'_, K, D> {}

impl<'a, K: Key, D: DenseIndex> Probe<'a, K, D> {
    /// The probe of `set`.
    #[inline]
    pub(crate) fn new(set: &'a SparseSet<K, D>) -> Self {
        Probe { prefix: set.sparse.prefix_words(), dense: set.as_slice(), set }
    }

    /// How many slots the prefix holds: the keys [`get_index_of_quick`](Self::get_index_of_quick)
    /// answers without a call are those whose slot is below it.
    #[inline]
    pub(crate) fn prefix_slots(&self) -> usize {
        self.prefix.len() / SparseSet::<K, D>::STRIDE
    }

    /// One past the largest slot any key of the set can have: a walk driven by this set whose
    /// probes' prefixes all reach it never needs a call to look a key up.
    #[inline]
    pub(crate) fn slot_bound(&self) -> usize {
        self.set.sparse.slot_bound()
    }

    /// The probe with its prefix cut to the first `slots` slots: keys past them are answered
    /// by the full lookup, the same answers. A walk cuts every probe it holds to the shortest
    /// prefix among them, so that one bound check answers for all of them.
    #[inline]
    pub(crate) fn narrow(&mut self, slots: usize) {
        let words = slots.min(self.prefix_slots()) * SparseSet::<K, D>::STRIDE;
        self.prefix = &self.prefix[..words];
    }

    /// The dense position of `key`, if the set holds it: [`SparseSet::get_index_of`].
    ///
    /// Computes in **O(1)** time: one load for a key of the prefix.
    ///
    /// ```
    /// use sparse_set_core::{Entities, SparseSet};
    ///
    /// let mut entities = Entities::new();
    /// let set: SparseSet<_> = (0..3).map(|_| entities.spawn()).collect();
    /// let probe = set.probe();
    /// assert_eq!(probe.get_index_of(set.as_slice()[2]), Some(2));
    /// ```
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "the lookup of a probed member, in its loop")]
    #[must_use]
    pub fn get_index_of(&self, key: K) -> Option<usize> {
        let stride = SparseSet::<K, D>::STRIDE;
        let at = usize::try_from(key.sparse_slot()).unwrap_or(usize::MAX);
        if K::SLOT_AND_VERSION_ARE_KEY {
            let cell =
                at.checked_mul(stride).and_then(|start| self.prefix.get(start..start + stride));
            if let Some(cell) = cell {
                if Prefix::<D>::version_in(cell) != key.version() {
                    return None;
                }
                return cell[0].to_usize().checked_sub(1);
            }
        } else if let Some(&value) = self.prefix.get(at) {
            let position = value.to_usize().checked_sub(1)?;
            if K::SLOT_IS_KEY {
                return Some(position);
            }
            return match self.dense.get(position) {
                Some(&found) if found == key => Some(position),
                _ => None,
            };
        }
        self.set.get_index_of_cold(key)
    }

    /// [`get_index_of`](Self::get_index_of) answered from the sparse prefix alone, with no
    /// call: [`Quick::Ask`] for a key outside the prefix, which `get_index_of` answers. A loop
    /// whose common path asks only this keeps its registers (see the `query` module).
    ///
    /// Computes in **O(1)** time: one load.
    ///
    /// ```
    /// use sparse_set_core::set::Quick;
    /// use sparse_set_core::SparseSet;
    ///
    /// let set: SparseSet<u32> = (0..1000).collect();
    /// let probe = set.probe();
    /// assert_eq!(probe.get_index_of_quick(7), Quick::Found(7));
    /// assert_eq!(probe.get_index_of_quick(1 << 20), Quick::Ask);
    /// ```
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "the lookup of a probed member, in its loop")]
    #[must_use]
    pub fn get_index_of_quick(&self, key: K) -> Quick<usize> {
        let stride = SparseSet::<K, D>::STRIDE;
        let at = usize::try_from(key.sparse_slot()).unwrap_or(usize::MAX);
        if K::SLOT_AND_VERSION_ARE_KEY {
            let cell =
                at.checked_mul(stride).and_then(|start| self.prefix.get(start..start + stride));
            let Some(cell) = cell else { return Quick::Ask };
            if Prefix::<D>::version_in(cell) != key.version() {
                return Quick::Missing;
            }
            return Quick::from(cell[0].to_usize().checked_sub(1));
        }
        let Some(&value) = self.prefix.get(at) else { return Quick::Ask };
        let Some(position) = value.to_usize().checked_sub(1) else { return Quick::Missing };
        if K::SLOT_IS_KEY {
            return Quick::Found(position);
        }
        match self.dense.get(position) {
            Some(&found) if found == key => Quick::Found(position),
            _ => Quick::Missing,
        }
    }

    /// Whether the set holds `key`.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// use sparse_set_core::SparseSet;
    ///
    /// let set: SparseSet<u32> = [4, 8].into_iter().collect();
    /// assert!(set.probe().contains(8) && !set.probe().contains(5));
    /// ```
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "the lookup of a probed member, in its loop")]
    #[must_use]
    pub fn contains(&self, key: K) -> bool {
        self.get_index_of(key).is_some()
    }
}

/// A lookup answered without a call ([`Probe::get_index_of_quick`]): found, missing, or to be
/// asked of the full lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quick<T> {
    /// Found, at this answer.
    Found(T),
    /// Not held.
    Missing,
    /// Not answerable from the prefix: ask the full lookup.
    Ask,
}

impl<T> From<Option<T>> for Quick<T> {
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "in the lookup loops")]
    fn from(found: Option<T>) -> Self {
        match found {
            Some(found) => Quick::Found(found),
            None => Quick::Missing,
        }
    }
}

#[cfg(test)]
mod tests {
    use core::num::NonZeroU32;

    use super::Quick;
    use crate::entity::Entity;
    use crate::set::SparseSet;

    /// A probe cut short asks about every key past the cut, and its full answers are the ones
    /// of the whole probe: for plain keys and for versioned ones (a stale version included).
    #[test]
    fn a_narrowed_probe_asks_past_its_cut_and_answers_the_same() {
        let set: SparseSet<u32> = (0..300).filter(|key| key % 3 != 0).collect();
        let whole = set.probe();
        let mut cut = whole;
        cut.narrow(100);
        assert_eq!(cut.prefix_slots(), 100.min(whole.prefix_slots()));
        for key in 0..400 {
            assert_eq!(cut.get_index_of(key), whole.get_index_of(key), "key {key}");
            assert_eq!(cut.get_index_of(key), set.get_index_of(key), "key {key}");
            if key >= 100 {
                assert_eq!(cut.get_index_of_quick(key), Quick::Ask, "key {key}");
            } else {
                assert_eq!(cut.get_index_of_quick(key), whole.get_index_of_quick(key));
            }
        }
        // A cut past the prefix changes nothing.
        let mut wide = whole;
        wide.narrow(usize::MAX);
        assert_eq!(wide.prefix_slots(), whole.prefix_slots());

        let entity = |index, generation| {
            Entity::from_parts(index, NonZeroU32::new(generation).expect("a generation"))
        };
        let entities: SparseSet<Entity> = (0..200).map(|index| entity(index, 2)).collect();
        let mut cut = entities.probe();
        cut.narrow(50);
        for index in [0, 49, 50, 199, 200] {
            for generation in [1, 2] {
                let key = entity(index, generation);
                assert_eq!(cut.get_index_of(key), entities.get_index_of(key), "{key:?}");
            }
        }
        assert_eq!(cut.get_index_of_quick(entity(60, 2)), Quick::Ask);
        assert_eq!(cut.get_index_of_quick(entity(10, 1)), Quick::Missing);
        assert_eq!(cut.get_index_of_quick(entity(10, 2)), Quick::Found(10));
    }
}
