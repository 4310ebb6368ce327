//! The entry API of [`SparseMap`]: [`Entry`], [`OccupiedEntry`], [`VacantEntry`].

use core::fmt;

use crate::dense::DenseIndex;
use crate::error::{Error, fail_insert};
use crate::key::Key;
use crate::map::SparseMap;
use crate::observe::Observer;
use crate::set::Vacancy;

/// The entry of one key in a [`SparseMap`], from [`SparseMap::entry`]: occupied or vacant.
///
/// ```
/// use sparse_set_core::SparseMap;
/// use sparse_set_core::map::Entry;
///
/// let mut map = SparseMap::<u32, u32>::new();
/// match map.entry(4) {
///     Entry::Occupied(_) => unreachable!(),
///     Entry::Vacant(vacant) => {
///         vacant.insert(40);
///     }
/// }
/// assert_eq!(map[4], 40);
/// ```
pub enum Entry<'a, K: Key, V, D: DenseIndex = u32, O: Observer<K, V> = ()> {
    /// The key is in the map.
    Occupied(OccupiedEntry<'a, K, V, D, O>),
    /// The key is not in the map. Its sparse slot may still hold an older version of it (an
    /// [`Entity`](crate::Entity) of an older generation, despawned but not removed from this
    /// map): inserting through the entry replaces that row in place and drops its value. To
    /// get that value back, insert with [`SparseMap::insert`], which returns it.
    Vacant(VacantEntry<'a, K, V, D, O>),
}

impl<'a, K: Key, V, D: DenseIndex, O: Observer<K, V>> Entry<'a, K, V, D, O> {
    /// The entry's key.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map = SparseMap::<u32, u32>::new();
    /// assert_eq!(map.entry(7).key(), 7);
    /// ```
    #[must_use]
    pub fn key(&self) -> K {
        match self {
            Entry::Occupied(entry) => entry.key(),
            Entry::Vacant(entry) => entry.key(),
        }
    }

    /// The value, inserting `default` first if the entry is vacant.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// As [`SparseMap::insert`], when vacant and the key is refused (it does not fit, or is
    /// older than the version its slot holds).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map = SparseMap::<u32, u32>::new();
    /// *map.entry(1).or_insert(10) += 1;
    /// *map.entry(1).or_insert(10) += 1;
    /// assert_eq!(map[1], 12);
    /// ```
    #[track_caller]
    pub fn or_insert(self, default: V) -> &'a mut V {
        match self {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => entry.insert(default),
        }
    }

    /// The value, inserting `make()` first if the entry is vacant. `make` is called only then.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// As [`SparseMap::insert`], when vacant and the key is refused (it does not fit, or is
    /// older than the version its slot holds).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map = SparseMap::<u32, String>::new();
    /// map.entry(1).or_insert_with(|| "one".to_owned()).push('!');
    /// assert_eq!(map[1], "one!");
    /// ```
    #[track_caller]
    pub fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        match self {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => entry.insert(make()),
        }
    }

    /// The value, inserting `make(key)` first if the entry is vacant.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// As [`SparseMap::insert`], when vacant and the key is refused (it does not fit, or is
    /// older than the version its slot holds).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map = SparseMap::<u32, u32>::new();
    /// assert_eq!(*map.entry(6).or_insert_with_key(|key| key * 2), 12);
    /// ```
    #[track_caller]
    pub fn or_insert_with_key(self, make: impl FnOnce(K) -> V) -> &'a mut V {
        match self {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => {
                let value = make(entry.key);
                entry.insert(value)
            }
        }
    }

    /// The value, inserting `V::default()` first if the entry is vacant.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// As [`SparseMap::insert`], when vacant and the key is refused (it does not fit, or is
    /// older than the version its slot holds).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map = SparseMap::<u32, Vec<u32>>::new();
    /// map.entry(1).or_default().push(5);
    /// assert_eq!(map[1], [5]);
    /// ```
    #[track_caller]
    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    /// Calls `f` on the value if the entry is occupied; returns the entry either way.
    ///
    /// Computes in **O(1)** time (plus `f`).
    ///
    /// ```
    /// # use sparse_set_core::SparseMap;
    /// let mut map = SparseMap::<u32, u32>::new();
    /// map.entry(1).and_modify(|v| *v += 1).or_insert(0);
    /// map.entry(1).and_modify(|v| *v += 1).or_insert(0);
    /// assert_eq!(map[1], 1);
    /// ```
    #[must_use]
    pub fn and_modify(mut self, f: impl FnOnce(&mut V)) -> Self {
        if let Entry::Occupied(entry) = &mut self {
            f(entry.get_mut());
        }
        self
    }
}

impl<K: Key, V: fmt::Debug, D: DenseIndex, O: Observer<K, V>> fmt::Debug for Entry<'_, K, V, D, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::Occupied(entry) => f.debug_tuple("Occupied").field(entry).finish(),
            Entry::Vacant(entry) => f.debug_tuple("Vacant").field(entry).finish(),
        }
    }
}

/// An entry whose key is in the map: part of [`Entry`].
///
/// ```
/// use sparse_set_core::SparseMap;
/// use sparse_set_core::map::Entry;
///
/// let mut map: SparseMap<u32, u32> = [(1, 10)].into_iter().collect();
/// if let Entry::Occupied(mut entry) = map.entry(1) {
///     assert_eq!(entry.insert(11), 10);
/// }
/// assert_eq!(map[1], 11);
/// ```
pub struct OccupiedEntry<'a, K: Key, V, D: DenseIndex = u32, O: Observer<K, V> = ()> {
    pub(super) map: &'a mut SparseMap<K, V, D, O>,
    pub(super) index: usize,
}

impl<'a, K: Key, V, D: DenseIndex, O: Observer<K, V>> OccupiedEntry<'a, K, V, D, O> {
    /// The entry's key.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map: SparseMap<u32, u32> = [(1, 10)].into_iter().collect();
    /// let Entry::Occupied(entry) = map.entry(1) else { unreachable!() };
    /// assert_eq!(entry.key(), 1);
    /// ```
    #[must_use]
    pub fn key(&self) -> K {
        self.map.set.as_slice()[self.index]
    }

    /// The entry's dense position.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map: SparseMap<u32, u32> = [(1, 10), (2, 20)].into_iter().collect();
    /// let Entry::Occupied(entry) = map.entry(2) else { unreachable!() };
    /// assert_eq!(entry.index(), 1);
    /// ```
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The value.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map: SparseMap<u32, u32> = [(1, 10)].into_iter().collect();
    /// let Entry::Occupied(entry) = map.entry(1) else { unreachable!() };
    /// assert_eq!(entry.get(), &10);
    /// ```
    #[must_use]
    pub fn get(&self) -> &V {
        &self.map.values[self.index]
    }

    /// The value, mutably, for as long as the entry lives. See
    /// [`into_mut`](Self::into_mut) for a reference that outlives the entry.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map: SparseMap<u32, u32> = [(1, 10)].into_iter().collect();
    /// let Entry::Occupied(mut entry) = map.entry(1) else { unreachable!() };
    /// *entry.get_mut() += 1;
    /// assert_eq!(entry.get(), &11);
    /// ```
    pub fn get_mut(&mut self) -> &mut V {
        match self.map.value_mut(self.index) {
            Some(value) => value,
            None => unreachable!("an occupied entry's position is in bounds"),
        }
    }

    /// The value, mutably, borrowed from the map for the entry's whole lifetime.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map: SparseMap<u32, u32> = [(1, 10)].into_iter().collect();
    /// let Entry::Occupied(entry) = map.entry(1) else { unreachable!() };
    /// *entry.into_mut() = 5;
    /// assert_eq!(map[1], 5);
    /// ```
    #[must_use]
    pub fn into_mut(self) -> &'a mut V {
        match self.map.value_mut(self.index) {
            Some(value) => value,
            None => unreachable!("an occupied entry's position is in bounds"),
        }
    }

    /// Replaces the value; returns the old one.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map: SparseMap<u32, u32> = [(1, 10)].into_iter().collect();
    /// let Entry::Occupied(mut entry) = map.entry(1) else { unreachable!() };
    /// assert_eq!(entry.insert(20), 10);
    /// assert_eq!(map[1], 20);
    /// ```
    pub fn insert(&mut self, value: V) -> V {
        let key = self.key();
        self.map.replace_at(key, self.index, value, false)
    }

    /// Removes the element by **swap-remove** (the last element moves into its position);
    /// returns its value.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map: SparseMap<u32, u32> = [(1, 10), (2, 20), (3, 30)].into_iter().collect();
    /// let Entry::Occupied(entry) = map.entry(1) else { unreachable!() };
    /// assert_eq!(entry.remove(), 10);
    /// assert_eq!(map.keys(), &[3, 2]);
    /// ```
    pub fn remove(self) -> V {
        self.remove_entry().1
    }

    /// Removes the element by **swap-remove**; returns its key and value.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map: SparseMap<u32, u32> = [(1, 10)].into_iter().collect();
    /// let Entry::Occupied(entry) = map.entry(1) else { unreachable!() };
    /// assert_eq!(entry.remove_entry(), (1, 10));
    /// assert!(map.is_empty());
    /// ```
    pub fn remove_entry(self) -> (K, V) {
        match self.map.swap_remove_index(self.index) {
            Some(pair) => pair,
            None => unreachable!("an occupied entry's position is in bounds"),
        }
    }
}

impl<K: Key, V: fmt::Debug, D: DenseIndex, O: Observer<K, V>> fmt::Debug
    for OccupiedEntry<'_, K, V, D, O>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OccupiedEntry")
            .field("key", &self.key())
            .field("value", self.get())
            .field("index", &self.index)
            .finish()
    }
}

/// An entry whose key is not in the map: part of [`Entry`].
///
/// ```
/// use sparse_set_core::SparseMap;
/// use sparse_set_core::map::Entry;
///
/// let mut map = SparseMap::<u32, u32>::new();
/// if let Entry::Vacant(entry) = map.entry(1) {
///     *entry.insert(10) += 1;
/// }
/// assert_eq!(map[1], 11);
/// ```
pub struct VacantEntry<'a, K: Key, V, D: DenseIndex = u32, O: Observer<K, V> = ()> {
    pub(super) map: &'a mut SparseMap<K, V, D, O>,
    pub(super) key: K,
    /// Where the key's empty slot is, when it is outside the set's prefix: the insert does not
    /// search for it again.
    pub(super) vacancy: Option<Vacancy>,
}

impl<'a, K: Key, V, D: DenseIndex, O: Observer<K, V>> VacantEntry<'a, K, V, D, O> {
    /// The key the entry would insert.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map = SparseMap::<u32, u32>::new();
    /// let Entry::Vacant(entry) = map.entry(3) else { unreachable!() };
    /// assert_eq!(entry.key(), 3);
    /// ```
    #[must_use]
    pub fn key(&self) -> K {
        self.key
    }

    /// Gives the key back without inserting.
    ///
    /// Computes in **O(1)** time.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map = SparseMap::<u32, u32>::new();
    /// let Entry::Vacant(entry) = map.entry(3) else { unreachable!() };
    /// assert_eq!(entry.into_key(), 3);
    /// assert!(map.is_empty());
    /// ```
    #[must_use]
    pub fn into_key(self) -> K {
        self.key
    }

    /// Inserts `value` under the entry's key; returns a reference to it.
    ///
    /// As with [`SparseMap::insert`], if the key's sparse slot is held by an older version of
    /// it (an [`Entity`](crate::Entity) of an older generation), that element is replaced in
    /// place and its value dropped; if it holds or has held a newer one, the key is stale and
    /// refused.
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Panics
    ///
    /// With a message naming the key and the [`Error`] that [`try_insert`](Self::try_insert)
    /// would return; the map is then unchanged.
    ///
    /// ```
    /// # use sparse_set_core::{SparseMap, map::Entry};
    /// let mut map = SparseMap::<u32, u32>::new();
    /// let Entry::Vacant(entry) = map.entry(3) else { unreachable!() };
    /// assert_eq!(*entry.insert(30), 30);
    /// ```
    #[track_caller]
    pub fn insert(self, value: V) -> &'a mut V {
        let key = self.key;
        match self.try_insert(value) {
            Ok(value) => value,
            Err(error) => fail_insert::<SparseMap<K, V, D, O>, _>(key, error),
        }
    }

    /// The fallible twin of [`insert`](Self::insert).
    ///
    /// Computes in **O(1)** amortised time.
    ///
    /// # Errors
    ///
    /// As [`SparseMap::try_insert`]; the map is then unchanged and `value` dropped.
    ///
    /// ```
    /// use sparse_set_core::{Error, SparseMap, map::Entry};
    ///
    /// let mut map = SparseMap::<u32, u32>::bounded(4, 8);
    /// let Entry::Vacant(entry) = map.entry(9) else { unreachable!() };
    /// assert_eq!(entry.try_insert(90), Err(Error::KeyOutOfRange { index: 9, limit: 8 }));
    /// ```
    pub fn try_insert(self, value: V) -> Result<&'a mut V, Error> {
        let index = match self.vacancy {
            Some(vacancy) => self.map.try_insert_vacant(self.key, vacancy, value)?,
            // In the prefix, or in a slot an older version of the key holds (which it replaces).
            None => self.map.try_insert_full(self.key, value)?.0,
        };
        match self.map.value_mut(index) {
            Some(value) => Ok(value),
            None => unreachable!("an inserted key's position is in bounds"),
        }
    }
}

impl<K: Key, V, D: DenseIndex, O: Observer<K, V>> fmt::Debug for VacantEntry<'_, K, V, D, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("VacantEntry").field(&self.key).finish()
    }
}
