//! One query member, and what a walk holds of it.
//!
//! A [`Member`] is a storage as the caller passes it to [`query`](crate::query::query): `&S`,
//! `&mut S`, [`optional`](crate::query::optional)`(..)` of one of those, or a group. Before the
//! walk each member is taken apart once into its [`Fetch`]: the key index's lookup state (a
//! [`Probe`]: the sparse prefix as a slice, every rarer lane out of line) and the columns as
//! slices. The loop then holds plain slices in registers, looks a key up with one load, and
//! makes a view from the columns without going back through the storage.

use crate::key::Key;
use crate::observe::RowWrites;
use crate::rows::Rows;
use crate::set::{Probe, Quick};
use crate::storage::Columnar;

/// One query member: a storage borrowed shared (`&S`) or mutably (`&mut S`) or an
/// [`Optional`] one, or a group. Implemented for those forms over every [`Columnar`] storage;
/// the methods are the query's plumbing. The walk holds its [`Fetch`].
pub trait Member: Sized {
    /// The key type of the storage.
    type Key: Key;
    /// What the walk holds of the member: see [`Fetch`].
    type Fetch: Fetch<Key = Self::Key>;
    /// The member borrowed again, for a walk shorter than the member's borrow (a lending
    /// iterator's).
    type Reborrow<'q>: Member<Key = Self::Key>
    where
        Self: 'q;

    /// Whether keys this member lacks are skipped (`false` for [`Optional`] members).
    const REQUIRED: bool;

    /// The number of keys stored: what decides which required member drives.
    fn len(&self) -> usize;

    /// Whether nothing is stored.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The member taken apart for a walk.
    fn into_fetch(self) -> Self::Fetch;

    /// The member borrowed again for a shorter walk.
    fn reborrow(&mut self) -> Self::Reborrow<'_>;

    /// The address of the storage (or group) the member borrows: how
    /// [`Query::drive_by`](crate::query::Query::drive_by) finds the member of a storage.
    fn address(&self) -> *const ();
}

/// What a walk holds of one member: its lookup state and its columns, out of the storage once.
pub trait Fetch {
    /// The key type.
    type Key: Key;
    /// Where the member holds a key: a dense position, or for optional members maybe none.
    type Slot: Copy;
    /// What the full lookup needs, copied out of the fetch so that an out-of-line step can
    /// take it by value (a storage's [`Probe`]).
    type Locator: Copy;

    /// The member's keys in dense order: what it walks when it drives.
    fn keys(&self) -> &[Self::Key];

    /// How many positions the member walks when it drives: its keys, and for a storage the
    /// shortest of its keys and columns (all one length), so that a loop bounded by it reads
    /// the keys and the columns with no other check.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the driver's bound, in the loop")]
    fn driven_len(&self) -> usize {
        self.keys().len()
    }

    /// The slot of the driver's own element at dense position `index`.
    fn driven_slot(index: usize) -> Self::Slot;

    /// The walk about to begin hands out every row of this member, which drives: a mutable
    /// member's observer hears of them at once, instead of one event a row. Nothing by default.
    #[inline]
    fn visits_all(&mut self) {}

    /// What [`locate_slow`](Self::locate_slow) needs.
    fn locator(&self) -> Self::Locator;

    /// Where `key` is held, answered without a call where it can be (a storage's key in its
    /// sparse prefix), else [`Quick::Ask`]: what the walk's loop asks first, so that its
    /// common path makes no call and keeps its registers (the full lookup is a cold call).
    fn locate_quick(&self, key: Self::Key) -> Quick<Self::Slot>;

    /// Where `key` is held, by the full lookup (every lane of the sparse index); `None` when a
    /// required member lacks it.
    fn locate_slow(locator: Self::Locator, key: Self::Key) -> Option<Self::Slot>;

    /// How many slots of the sparse index [`locate_quick`](Self::locate_quick) answers for
    /// without a call (every key below it): `usize::MAX` for a member that answers every key
    /// the same way.
    #[inline]
    fn prefix_slots(&self) -> usize {
        usize::MAX
    }

    /// One past the largest slot of any key the member holds, so of any key it walks when it
    /// drives: `usize::MAX` when unknown. A walk whose other members' and filters'
    /// [`prefix_slots`](Self::prefix_slots) all reach it never asks.
    #[inline]
    fn slot_bound(&self) -> usize {
        usize::MAX
    }

    /// Makes [`locate_quick`](Self::locate_quick) ask about every key at or past slot `slots`
    /// (see [`Probe::narrow`](crate::set::Probe)); the answers stay the same.
    #[inline]
    fn narrow(&mut self, slots: usize) {
        let _ = slots;
    }

    /// Where `key` is held; `None` when a required member lacks it.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookup of a probed member, in the loop")]
    fn locate(&self, key: Self::Key) -> Option<Self::Slot> {
        match self.locate_quick(key) {
            Quick::Found(slot) => Some(slot),
            Quick::Missing => None,
            Quick::Ask => Self::locate_slow(self.locator(), key),
        }
    }
}

/// The view a [`Fetch`] lends for `'v`. (`Bound` is never named: its default, `&'v Self`,
/// states that the fetch outlives `'v` wherever the trait is used for every `'v`.)
pub trait FetchView<'v, Bound = &'v Self>: Fetch {
    /// The view of one element handed to the query's user.
    type View;

    /// The view at `slot`.
    ///
    /// # Panics
    ///
    /// If `slot` is past the storage's rows, which only a `Key` implemented wrongly can make
    /// a lookup return (see "Implementing `Key` wrongly" in the `Key` docs).
    fn view(&'v mut self, slot: Self::Slot) -> Self::View;
}

/// A [`Fetch`] of a shared borrow, whose views last as long as the borrow (so a query of such
/// members is a std [`Iterator`]).
pub trait FetchItem: Fetch {
    /// The view of one element, for the whole borrow.
    type Item;

    /// The view at `slot`, for the whole borrow.
    ///
    /// # Panics
    ///
    /// As [`FetchView::view`].
    fn item(&self, slot: Self::Slot) -> Self::Item;
}

/// The key type of one query member, checked against the first member's `K`: how a query's
/// members are required to share one key type, with a message that says what to do when they
/// do not. Implemented for every key type with itself (`K: SameKey<K>`), and nothing else.
#[diagnostic::on_unimplemented(
    message = "a query's members do not share one key type: a storage keyed by `{Self}` is among members keyed by `{K}`",
    label = "keyed by `{Self}`, not `{K}`",
    note = "every member of a query must have the key type of the first member",
    note = "a derived storage is keyed by `u32` unless its struct says otherwise: for `Entity` keys, add `#[sparse_soa(key = Entity)]` to the struct"
)]
pub trait SameKey<K> {
    /// The key, as the first member's key type (the same type).
    fn into_key(self) -> K;

    /// A key of the first member's type, as this one (the same type).
    fn from_key(key: K) -> Self;
}

impl<K> SameKey<K> for K {
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the identity")]
    fn into_key(self) -> K {
        self
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the identity")]
    fn from_key(key: K) -> K {
        key
    }
}

/// The [`Fetch`] of a shared member `&S`: the key index's [`Probe`] and the columns.
pub struct RefFetch<'a, S: Columnar + 'a> {
    probe: Probe<'a, S::Key, S::Dense>,
    columns: S::Columns<'a>,
}

/// The [`Fetch`] of a mutable member `&mut S`: the key index's [`Probe`] and the columns,
/// mutably, with what tells the storage's observer of each row the walk hands out
/// ([`Columnar::index_columns_and_writes`]).
pub struct MutFetch<'a, S: Columnar + 'a> {
    probe: Probe<'a, S::Key, S::Dense>,
    columns: S::ColumnsMut<'a>,
    /// `None` once the observer heard of every row at once: a walk of every row
    /// ([`Fetch::visits_all`]), or a split for threads.
    writes: Option<S::Writes<'a>>,
}

/// An optional query member, made by [`optional`](crate::query::optional).
#[derive(Debug, Clone, Copy)]
pub struct Optional<M>(pub(crate) M);

/// The [`Fetch`] of an [`Optional`] member: the inner member's, with every lookup found.
pub struct OptionalFetch<F>(F);

impl<'a, S: Columnar> Member for &'a S {
    type Key = S::Key;
    type Fetch = RefFetch<'a, S>;
    type Reborrow<'q>
        = &'a S
    where
        Self: 'q;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        S::len(self)
    }

    #[inline]
    fn into_fetch(self) -> RefFetch<'a, S> {
        RefFetch { probe: S::as_sparse_set(self).probe(), columns: self.columns() }
    }

    #[inline]
    fn reborrow(&mut self) -> &'a S {
        self
    }

    #[inline]
    fn address(&self) -> *const () {
        core::ptr::from_ref::<S>(*self).cast()
    }
}

impl<'a, S: Columnar> Member for &'a mut S {
    type Key = S::Key;
    type Fetch = MutFetch<'a, S>;
    type Reborrow<'q>
        = &'q mut S
    where
        Self: 'q;

    const REQUIRED: bool = true;

    #[inline]
    fn len(&self) -> usize {
        S::len(self)
    }

    #[inline]
    fn into_fetch(self) -> MutFetch<'a, S> {
        let (index, columns, writes) = self.index_columns_and_writes();
        MutFetch { probe: index.probe(), columns, writes: Some(writes) }
    }

    #[inline]
    fn reborrow(&mut self) -> &mut S {
        self
    }

    #[inline]
    fn address(&self) -> *const () {
        core::ptr::from_ref::<S>(&**self).cast()
    }
}

impl<M: Member> Member for Optional<M> {
    type Key = M::Key;
    type Fetch = OptionalFetch<M::Fetch>;
    type Reborrow<'q>
        = Optional<M::Reborrow<'q>>
    where
        Self: 'q;

    const REQUIRED: bool = false;

    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    fn into_fetch(self) -> OptionalFetch<M::Fetch> {
        OptionalFetch(self.0.into_fetch())
    }

    #[inline]
    fn reborrow(&mut self) -> Optional<M::Reborrow<'_>> {
        Optional(self.0.reborrow())
    }

    #[inline]
    fn address(&self) -> *const () {
        self.0.address()
    }
}

/// The fetches of storages: keys from the columns, lookups through the probe; a mutable one
/// names how its observer hears of every row at once.
macro_rules! storage_fetch {
    ($fetch:ident $(, $hear_all:ident)?) => {
        impl<'a, S: Columnar> Fetch for $fetch<'a, S> {
            type Key = S::Key;
            type Slot = usize;
            type Locator = Probe<'a, S::Key, S::Dense>;

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the driver's keys, in the loop")]
            fn keys(&self) -> &[S::Key] {
                self.columns.keys()
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the driver's bound, in the loop")]
            fn driven_len(&self) -> usize {
                Rows::len(&self.columns)
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "in the loop")]
            fn driven_slot(index: usize) -> usize {
                index
            }

            $(
                #[inline]
                fn visits_all(&mut self) {
                    self.$hear_all();
                }
            )?

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "in the loop")]
            fn locator(&self) -> Probe<'a, S::Key, S::Dense> {
                self.probe
            }

            #[inline(always)]
            #[allow(clippy::inline_always, reason = "the lookup of a probed member, in the loop")]
            fn locate_quick(&self, key: S::Key) -> Quick<usize> {
                self.probe.get_index_of_quick(key)
            }

            #[inline]
            fn locate_slow(probe: Probe<'a, S::Key, S::Dense>, key: S::Key) -> Option<usize> {
                probe.get_index_of(key)
            }

            #[inline]
            fn prefix_slots(&self) -> usize {
                self.probe.prefix_slots()
            }

            #[inline]
            fn slot_bound(&self) -> usize {
                self.probe.slot_bound()
            }

            #[inline]
            fn narrow(&mut self, slots: usize) {
                self.probe.narrow(slots);
            }
        }
    };
}

storage_fetch!(RefFetch);
storage_fetch!(MutFetch, hear_all);

impl<'v, 'a, S: Columnar> FetchView<'v> for RefFetch<'a, S> {
    type View = S::Ref<'a>;

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the view of one element, in the loop")]
    fn view(&'v mut self, slot: usize) -> S::Ref<'a> {
        S::row(&self.columns, slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'a, S: Columnar> FetchItem for RefFetch<'a, S> {
    type Item = S::Ref<'a>;

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the view of one element, in the loop")]
    fn item(&self, slot: usize) -> S::Ref<'a> {
        S::row(&self.columns, slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<'v, 'a, S: Columnar> FetchView<'v> for MutFetch<'a, S> {
    type View = S::Mut<'v>;

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the view of one element, in the loop")]
    fn view(&'v mut self, slot: usize) -> S::Mut<'v> {
        // The row is handed out: its write is assumed. (No code for a storage without an
        // observer.)
        if <S::Writes<'a> as RowWrites>::HEARS {
            if let Some(writes) = &mut self.writes {
                writes.written(slot..slot + 1);
            }
        }
        S::row_mut(&mut self.columns, slot).unwrap_or_else(|| past_rows(slot))
    }
}

impl<S: Columnar> MutFetch<'_, S> {
    /// The observer hears of every row at once, and of no row after.
    #[inline]
    fn hear_all(&mut self) {
        if let Some(mut writes) = self.writes.take() {
            writes.written(0..Rows::len(&self.columns));
        }
    }
}

#[cfg(feature = "rayon")]
impl<S: Columnar> SplitFetch for RefFetch<'_, S> {
    #[inline]
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (front, back) = Rows::split_at(self.columns, mid);
        (
            RefFetch { probe: self.probe, columns: front },
            RefFetch { probe: self.probe, columns: back },
        )
    }
}

/// A split for threads: the halves share no observer, so it hears of every row here, once.
#[cfg(feature = "rayon")]
impl<S: Columnar> SplitFetch for MutFetch<'_, S> {
    #[inline]
    fn split_at(mut self, mid: usize) -> (Self, Self) {
        self.hear_all();
        let (front, back) = Rows::split_at(self.columns, mid);
        let probe = self.probe;
        (
            MutFetch { probe, columns: front, writes: None },
            MutFetch { probe, columns: back, writes: None },
        )
    }
}

impl<F: Fetch> Fetch for OptionalFetch<F> {
    type Key = F::Key;
    type Slot = Option<F::Slot>;
    type Locator = F::Locator;

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the driver's keys, in the loop")]
    fn keys(&self) -> &[F::Key] {
        self.0.keys()
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "in the loop")]
    fn driven_slot(index: usize) -> Option<F::Slot> {
        Some(F::driven_slot(index))
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "in the loop")]
    fn locator(&self) -> F::Locator {
        self.0.locator()
    }

    #[inline]
    fn locate_slow(locator: F::Locator, key: F::Key) -> Option<Option<F::Slot>> {
        Some(F::locate_slow(locator, key))
    }

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the lookup of a probed member, in the loop")]
    fn locate_quick(&self, key: F::Key) -> Quick<Option<F::Slot>> {
        match self.0.locate_quick(key) {
            Quick::Found(slot) => Quick::Found(Some(slot)),
            Quick::Missing => Quick::Found(None),
            Quick::Ask => Quick::Ask,
        }
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

impl<'v, F: FetchView<'v>> FetchView<'v> for OptionalFetch<F> {
    type View = Option<F::View>;

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the view of one element, in the loop")]
    fn view(&'v mut self, slot: Option<F::Slot>) -> Option<F::View> {
        slot.map(|slot| self.0.view(slot))
    }
}

impl<F: FetchItem> FetchItem for OptionalFetch<F> {
    type Item = Option<F::Item>;

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "the view of one element, in the loop")]
    fn item(&self, slot: Option<F::Slot>) -> Option<F::Item> {
        slot.map(|slot| self.0.item(slot))
    }
}

/// A fetch whose rows split at a position, so that a parallel query's driver walks its chunks
/// on several threads (feature `rayon`). A half only ever drives: it answers its keys and its
/// views by its own positions, while its lookups still answer positions of the whole
/// storage, so a half is never probed.
#[cfg(feature = "rayon")]
pub trait SplitFetch: Fetch + Sized {
    /// The rows before `mid` and the rows from `mid` on.
    ///
    /// # Panics
    ///
    /// If `mid` is past the rows, as `slice::split_at`.
    fn split_at(self, mid: usize) -> (Self, Self);
}

/// An optional member splits as its storage does (it never drives; a parallel query may still
/// cut it when it copies members to each thread's set).
#[cfg(feature = "rayon")]
impl<F: SplitFetch> SplitFetch for OptionalFetch<F> {
    #[inline]
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (front, back) = self.0.split_at(mid);
        (OptionalFetch(front), OptionalFetch(back))
    }
}

/// A shared member's fetch is a pair of shared borrows: each thread of a parallel query gets
/// its own copy.
impl<'a, S: Columnar> Clone for RefFetch<'a, S>
where
    S::Columns<'a>: Clone,
{
    fn clone(&self) -> Self {
        RefFetch { probe: self.probe, columns: self.columns.clone() }
    }
}

impl<F: Clone> Clone for OptionalFetch<F> {
    fn clone(&self) -> Self {
        OptionalFetch(self.0.clone())
    }
}

/// Panics for a view past a storage's rows: a lookup returned it, which only a `Key`
/// implemented wrongly can make happen.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn past_rows(slot: usize) -> ! {
    panic!(
        "a lookup found row {slot}, past the storage's rows: a `Key` implemented wrongly (see \
         \"Implementing `Key` wrongly\" in the `Key` docs)"
    )
}
