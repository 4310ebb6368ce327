//! Removing keys from a set: one key by swap-remove (the last key fills the gap, its slot
//! rewritten), the last keys at once (`truncate`, `drain`, `clear`), and the versions a
//! versioned set keeps for the slots it empties (the [`set`](crate::set) module's "Stale keys").

use crate::dense::DenseIndex;
use crate::key::Key;
use crate::observe::Observer;
use crate::removed::{Moved, Removed};
use crate::set::{Drain, SparseSet};
use crate::unwind::{report_drain, then};

impl<K: Key, D: DenseIndex, O: Observer<K, ()>> SparseSet<K, D, O> {
    /// Removes `key` by **swap-remove**: the last key moves into its position. Returns whether
    /// it was present.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 2, 3].into_iter().collect();
    /// assert!(set.remove(1));
    /// assert_eq!(set.as_slice(), &[3, 2]);
    /// assert!(!set.remove(1));
    /// ```
    #[inline]
    pub fn remove(&mut self, key: K) -> bool {
        self.remove_with_info(key).is_some()
    }

    /// [`remove`](Self::remove) under indexmap's name for it: removes `key` by
    /// **swap-remove**; returns whether it was there.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 2, 3].into_iter().collect();
    /// assert!(set.swap_remove(1));
    /// assert_eq!(set.as_slice(), &[3, 2]);
    /// ```
    #[inline]
    pub fn swap_remove(&mut self, key: K) -> bool {
        self.remove(key)
    }

    /// Removes `key` by **swap-remove** and reports which position it vacated and which key
    /// moved in (see [`Removed`]); `None` if it was absent.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 2, 3].into_iter().collect();
    /// let mut names = vec!["one", "two", "three"];
    /// let info = set.remove_with_info(1).unwrap();
    /// names.swap_remove(info.index);
    /// assert_eq!(names, ["three", "two"]);
    /// ```
    #[inline]
    pub fn remove_with_info(&mut self, key: K) -> Option<Removed<K>> {
        let slot = key.sparse_slot();
        // `index < len` holds for every key implemented as `Key` asks; the checks make a key
        // that is not (see "Implementing `Key` wrongly" in its docs) miss instead of panicking,
        // so that removals never panic (a group repairs its prefix after them).
        let index = if K::SLOT_IS_KEY {
            // The slot alone identifies the key: read and zero it in one lookup.
            let index = self.sparse.take_in(slot, Self::STRIDE).to_usize().checked_sub(1)?;
            (index < self.dense.len()).then_some(index)?
        } else {
            let index = self.get_index_of(key).filter(|&index| index < self.dense.len())?;
            self.take_slot(key);
            index
        };
        let key = self.dense.swap_remove(index);
        let removed = self.fill_gap(index);
        self.observer.removed(key, &(), removed);
        Some(removed)
    }

    /// Swap-removes the key at `index` (which must be in bounds), fixes the moved key's slot
    /// and reports the removal.
    #[inline]
    pub(crate) fn remove_index(&mut self, index: usize) -> Removed<K> {
        let key = self.dense.swap_remove(index);
        self.take_slot(key);
        let removed = self.fill_gap(index);
        self.observer.removed(key, &(), removed);
        removed
    }

    /// Zeroes the slot of `key`, which holds it. In a versioned set a slot outside the prefix
    /// keeps `key`'s version in the graves, as a prefix slot keeps it in its cell.
    #[inline(always)]
    #[expect(clippy::inline_always, reason = "on every removal's path")]
    fn take_slot(&mut self, key: K) -> D {
        let slot = key.sparse_slot();
        if K::SLOT_AND_VERSION_ARE_KEY {
            if let Some(cell) = self.sparse.prefix_cell_mut(slot, Self::STRIDE) {
                return core::mem::replace(&mut cell[0], D::ZERO);
            }
            return self.take_slot_outside_prefix(key);
        }
        self.sparse.take_in(slot, Self::STRIDE)
    }

    /// [`take_slot`](Self::take_slot) of a versioned key outside the prefix.
    #[cold]
    #[inline(never)]
    fn take_slot_outside_prefix(&mut self, key: K) -> D {
        let slot = key.sparse_slot();
        let taken = self.sparse.take_outside_prefix(slot);
        if taken != D::ZERO {
            self.graves.bury(slot, key.version());
        }
        taken
    }

    /// After a swap-remove at `index` (slot already cleared): re-points the key that moved in.
    #[inline]
    fn fill_gap(&mut self, index: usize) -> Removed<K> {
        let moved = self.dense.get(index).map(|&key| {
            self.sparse.set_in(key.sparse_slot(), D::from_usize(index + 1), Self::STRIDE);
            Moved { key, from: self.dense.len() }
        });
        Removed { index, moved }
    }

    /// Removes the key at dense position `index` by **swap-remove**; `None` if out of bounds.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 2, 3].into_iter().collect();
    /// assert_eq!(set.swap_remove_index(0), Some(1));
    /// assert_eq!(set.as_slice(), &[3, 2]);
    /// ```
    pub fn swap_remove_index(&mut self, index: usize) -> Option<K> {
        let key = self.get_index(index)?;
        self.remove_index(index);
        Some(key)
    }

    /// Removes and returns the last key in dense order; nothing else moves.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 2].into_iter().collect();
    /// assert_eq!(set.pop(), Some(2));
    /// assert_eq!(set.as_slice(), &[1]);
    /// ```
    pub fn pop(&mut self) -> Option<K> {
        let key = self.dense.pop()?;
        self.take_slot(key);
        self.observer.removed(key, &(), Removed { index: self.dense.len(), moved: None });
        Some(key)
    }

    /// Takes back the key just pushed (the last), whose insert a caller could not finish: its
    /// slot is emptied as if it had never been stored, with no grave (a removal outside the
    /// prefix leaves one) and no report: for a set without an observer (a map's index). The
    /// version a slot of the prefix keeps beside its value stays the key's.
    pub(crate) fn undo_push(&mut self) {
        debug_assert!(!O::OBSERVES, "an observed set cannot take back what it reported");
        if let Some(key) = self.dense.pop() {
            self.sparse.take(key.sparse_slot());
        }
    }

    /// Keeps the first `len` keys in dense order and removes the rest; nothing else moves. Does
    /// nothing if `len >= self.len()`.
    ///
    /// Computes in **O(keys removed)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 2, 3].into_iter().collect();
    /// set.truncate(1);
    /// assert_eq!(set.as_slice(), &[1]);
    /// assert!(!set.contains(3));
    /// ```
    pub fn truncate(&mut self, len: usize) {
        if O::OBSERVES {
            // Key by key from the end, so that every removal is reported on a consistent set;
            // a hook that panics leaves the rest popped while unwinding, as a map's `truncate`.
            let pop_down = |set: &mut Self| {
                while set.dense.len() > len {
                    set.pop();
                }
            };
            then(self, pop_down, pop_down);
            return;
        }
        for at in len..self.dense.len() {
            self.take_slot(self.dense[at]);
        }
        self.dense.truncate(len);
    }

    /// Removes every key, yielding them in dense order. The set is empty as soon as this is
    /// called, even if the iterator is leaked; it keeps its memory. A set with an observer
    /// reports every key's removal when `drain` is called, front to back, each with
    /// `moved: None`; if a hook panics, the keys after it are still reported while the panic
    /// unwinds (a second panicking hook aborts, as in every bulk removal) and the set is
    /// emptied.
    ///
    /// Computes in **O(len)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 2].into_iter().collect();
    /// assert_eq!(set.drain().collect::<Vec<_>>(), [1, 2]);
    /// assert!(set.is_empty());
    /// ```
    pub fn drain(&mut self) -> Drain<'_, K> {
        if O::OBSERVES {
            // Every key's removal, front to back, while the keys are still there to be seen.
            report_drain(
                self,
                self.dense.len(),
                |set, index| {
                    let key = set.dense[index];
                    set.observer.removed(key, &(), Removed { index, moved: None });
                },
                |set| {
                    set.reset_slots();
                    set.dense.clear();
                },
            );
        }
        self.reset_slots();
        Drain::new(self.dense.drain(..))
    }

    /// Zeroes the slot of every key: the sparse half of emptying the set.
    fn reset_slots(&mut self) {
        if K::SLOT_AND_VERSION_ARE_KEY {
            let prefix = self.sparse.prefix_slots() as u64;
            for key in self.dense.iter().filter(|key| key.sparse_slot() >= prefix) {
                self.graves.bury(key.sparse_slot(), key.version());
            }
        }
        self.sparse.clear_all(self.dense.iter().map(|key| key.sparse_slot()));
    }

    /// Removes every key. Keeps all allocated memory.
    ///
    /// Computes in **O(len)** time: the slot of each key is reset (keys spread thinly, whose
    /// pages hold a few slots each, by emptying those pages whole when there are at most `len`
    /// of them), so the cost does not depend on the key space (the module docs say why this is
    /// not O(1)).
    ///
    /// ```
    /// # use sparse_set_core::SparseSet;
    /// let mut set: SparseSet<u32> = [1, 2].into_iter().collect();
    /// set.clear();
    /// assert!(set.is_empty() && !set.contains(1));
    /// set.insert(2);
    /// assert_eq!(set.get_index_of(2), Some(0));
    /// ```
    pub fn clear(&mut self) {
        if O::OBSERVES {
            self.truncate(0);
            return;
        }
        self.reset_slots();
        self.dense.clear();
    }
}
