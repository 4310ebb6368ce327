//! Change events: the [`Observer`] a storage calls on every change, and the observers that ship
//! with the crate: a move [`Journal`] for mirrors, change [`Ticks`] for systems that want the
//! rows changed since they last ran, and [`Removals`] / [`RemovedValues`] that a system reads
//! after the fact.
//!
//! A storage holds one observer, chosen by a type parameter (`SparseMap<K, V, D, O = ()>`,
//! `SparseSet<K, D, O = ()>` with `()` for values, a derived `{Name}Soa<O = ()>`, and a group's
//! `Group<M, X, N, O = ()>` for its aligned prefix). The
//! default `()` listens to nothing: it is zero-sized and its methods are empty, so a storage
//! without events has the size and the code it would have without this module. Several observers
//! combine as a tuple, `(Journal<K>, Removals<K>)`, each called in order.
//!
//! # Invariant
//!
//! Every effective change is reported exactly once, **after** the storage is consistent again:
//!
//! - a new row: [`inserted`](Observer::inserted), at its final position;
//! - an insert over a present key: [`replaced`](Observer::replaced), with the old and new value;
//!   over the row an older version of the key left behind (an `Entity` of an older
//!   generation): [`renewed`](Observer::renewed), which is `replaced` unless an observer
//!   tells them apart;
//! - a removed row: [`removed`](Observer::removed), after the swap-remove, with the removed value
//!   and where the last row went ([`Removed`]). Bulk removals (`truncate`, `clear`, `drain`,
//!   `retain`) report each row;
//! - values handed out mutably: [`written`](Observer::written), when the reference is handed
//!   out (a write is assumed): the row of `get_mut`, every row of `values_mut`, `iter_mut`,
//!   `columns_mut` and `retain`, each row a query's mutable member visits ([`RowWrites`]; all
//!   at once when a `for_each` visits every row of its one required member, or when a parallel
//!   walk splits the storage, whose threads share no observer);
//! - rows that change places without leaving: [`swapped`](Observer::swapped), or one
//!   [`permuted`](Observer::permuted) for a sort of the storage itself. `sort_as` (which
//!   allocates nothing) reports its swaps; a group's sort of its own prefix reports one
//!   permutation to the group's observer and the swaps that apply it to each member's own, and
//!   a family's sort of an inner level reports swaps to both.
//!
//! An observer is a field of the storage and its methods get `&mut self` alone, so a hook cannot
//! reach the storage it observes: the storage is mutably borrowed while the hook runs, and any
//! attempt is a borrow error at compile time. Reactions that change other storages collect what
//! they need (keys, say) and apply it through the world afterwards.
//!
//! # A hook that panics
//!
//! It leaves the storage valid, since it runs after the storage is consistent. Around it:
//!
//! - in a tuple, the observers after it still hear the event, while the panic unwinds, so a
//!   [`Journal`] or [`Ticks`] beside a hook that panics stays in step with the storage;
//! - a bulk removal (`truncate`, `clear`, `drain`, which reports every row when it is called,
//!   the removals that end a `retain`) goes on removing the rows it was asked to while the
//!   panic unwinds, reporting each, as a `Vec` drops the rest of its elements when one's `Drop`
//!   panics. A hook that panics again then aborts the process, as a second panic while
//!   unwinding does;
//! - in a group (and a family), a member's hook that panics between the members' moves does not
//!   stop them: the other members make the move while the panic unwinds, the prefix is repaired
//!   (a change through a handle is carried through: the key is inserted, or removed, and its
//!   row joins or leaves every prefix it now qualifies for), and the group's own observer hears
//!   of it. A sort of an observed group that stops part of the way leaves the prefix aligned and
//!   tells the group's observer to start again from the keys ([`attached`](Observer::attached):
//!   a [`Journal`] asks for a resync). A second hook that panics while the first unwinds aborts
//!   the process, as above.
//!
//! A hook that would read the map it observes does not compile: the map cannot move into its
//! observed form while the hook borrows it.
//!
//! ```compile_fail
//! use sparse_set_core::SparseMap;
//! use sparse_set_core::observe::Observer;
//!
//! struct Peek<'a>(&'a SparseMap<u32, i32>);
//!
//! impl Observer<u32, i32> for Peek<'_> {
//!     fn inserted(&mut self, _: u32, _: usize, _: &i32) {
//!         let _ = self.0.len();
//!     }
//! }
//!
//! let map = SparseMap::<u32, i32>::new();
//! let peek = Peek(&map);
//! let mut observed = map.observed_by(peek); // error[E0505]: `map` is moved while borrowed
//! observed.insert(1, 1);
//! ```
//!
//! (Shared through a `RefCell` instead, the storage is borrowed mutably while the hook runs, so
//! the hook's `borrow` panics at run time, and the storage stays valid.)
//!
//! Replaying the events in order on a `Vec` of the keys gives the storage's keys: the
//! [`Journal`] relies on it, and its tests check it after every step.

mod fields;
mod journal;
mod removals;
mod ticks;

use core::fmt;
use core::marker::PhantomData;
use core::ops::Range;

use crate::error::Error;
use crate::permutation::Permutation;
use crate::removed::Removed;
use crate::unwind::then;

pub use fields::FieldTicks;
pub use journal::{Change, Changes, DirtyRanges, DirtyRows, Journal, Order, Patch, Resync};
pub use removals::{Removals, RemovedValues};
pub use ticks::{MAX_AGE, RowChanges, Since, Tick, Ticks, Tracks};

/// What a storage calls on every change to its rows. Every method has an empty default body:
/// implement the ones you need.
///
/// The events, and when they fire, are listed in the [module docs](self). Positions are dense
/// positions in the storage after the change.
///
/// ```
/// use sparse_set_core::observe::Observer;
/// use sparse_set_core::{Removed, SparseMap};
///
/// /// Counts the health points that left the map.
/// #[derive(Default)]
/// struct Fallen(u32);
///
/// impl Observer<u32, u32> for Fallen {
///     fn removed(&mut self, _key: u32, health: &u32, _removed: Removed<u32>) {
///         self.0 += health;
///     }
/// }
///
/// let mut health = SparseMap::<u32, u32, u32, Fallen>::default();
/// health.insert(1, 10);
/// health.insert(2, 20);
/// health.remove(1);
/// assert_eq!(health.observer().0, 10);
/// health.clear();
/// assert_eq!(health.observer().0, 30);
/// ```
pub trait Observer<K, V> {
    /// Whether the observer listens at all. Only `()` (and tuples of `()`) say `false`; a
    /// storage then keeps its bulk paths (`truncate` drops its tail at once, an unstable sort
    /// swaps in place) instead of reporting row by row.
    const OBSERVES: bool = true;

    /// The observer was attached to a storage that holds `keys` already, through a call such
    /// as [`SparseMap::observed_by`](crate::SparseMap::observed_by). `bound` is the capacity of
    /// a bounded storage: an observer that must not allocate either reserves here.
    #[inline]
    fn attached(&mut self, keys: &[K], bound: Option<usize>) {
        let _ = (keys, bound);
    }

    /// Makes room for the events of `additional` more rows, so that the next `additional`
    /// [`inserted`](Self::inserted) allocate nothing: an observer that keeps state per row
    /// (such as [`Ticks`]' stamps) reserves it here. A storage asks it before it changes
    /// anything, in each insert of a new row and in its `reserve`, so a failed allocation is the
    /// `try_` call's `Err` (and the plain call's panic), never an abort. (A bounded storage's
    /// observer reserved its capacity when [`attached`](Self::attached), so it finds room, and
    /// a derived bounded storage does not ask.) Nothing by default.
    ///
    /// # Errors
    ///
    /// [`Error::CapacityOverflow`] or [`Error::AllocFailed`], as the storage's `try_reserve`.
    #[inline]
    fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        let _ = additional;
        Ok(())
    }

    /// How many more rows' [`inserted`](Self::inserted) events it takes without allocating:
    /// what a batch of new rows measures its run by. `usize::MAX` by default (an observer that
    /// keeps no state per row).
    #[inline]
    fn spare_rows(&self) -> usize {
        usize::MAX
    }

    /// A new row `key` was pushed at `index` (the last position), holding `value`.
    #[inline]
    fn inserted(&mut self, key: K, index: usize, value: &V) {
        let _ = (key, index, value);
    }

    /// An insert of `key` overwrote the row at `index`, which `key` held: `old` was its value,
    /// `new` is.
    #[inline]
    fn replaced(&mut self, key: K, index: usize, old: &V, new: &V) {
        let _ = (key, index, old, new);
    }

    /// An insert of `key` took over the row at `index` from an older version of it (an
    /// [`Entity`](crate::Entity) of an older generation of the same slot, despawned but never
    /// removed from this storage): the row now holds `key`, with `new` where `old` was. To
    /// the storage's order it is an overwrite; to the keys it is a new row, so change
    /// [`Ticks`] count it as added. The older key itself is not at hand (its slot holds `key`
    /// now), so [`Removals`] do not list it: remove an entity's rows when it is despawned,
    /// as a world's `despawn` does.
    ///
    /// By default the same as [`replaced`](Self::replaced).
    #[inline]
    fn renewed(&mut self, key: K, index: usize, old: &V, new: &V) {
        self.replaced(key, index, old, new);
    }

    /// The row of `key`, holding `value`, left the storage. `removed.index` is where it was;
    /// `removed.moved` says which key the swap-remove moved into that position, and from where.
    ///
    /// `moved` is `None` when the row was the last, and during a `drain`, which empties the
    /// storage before it hands out the rows: then every row from `removed.index` on is gone.
    #[inline]
    fn removed(&mut self, key: K, value: &V, removed: Removed<K>) {
        let _ = (key, value, removed);
    }

    /// The values of the rows in `rows` were handed out mutably: consider them written.
    #[inline]
    fn written(&mut self, rows: Range<usize>) {
        let _ = rows;
    }

    /// The rows at `a` and `b` traded places (keys and values).
    #[inline]
    fn swapped(&mut self, a: usize, b: usize) {
        let _ = (a, b);
    }

    /// The rows were reordered by `permutation`: the row now at `i` was at
    /// `permutation.order()[i]`. A sort of the storage reports one permutation, not its swaps
    /// (`sort_as` and a group's sort, seen by a member, report swaps).
    #[inline]
    fn permuted(&mut self, permutation: &Permutation) {
        let _ = permutation;
    }
}

/// A storage that reports to an [`Observer`]: how a handle that shows a storage read-only (a
/// group's member handles, [`MemberMut`](crate::group::MemberMut) and the others) still reaches
/// its observer mutably. Changing the observer never changes the rows.
pub trait Observed {
    /// The observer's type.
    type Observer;

    /// The observer.
    fn observer(&self) -> &Self::Observer;

    /// The observer, mutably: to drain or clear what it collected.
    fn observer_mut(&mut self) -> &mut Self::Observer;
}

/// What a walk over a storage's rows tells of each row it hands out mutably: a query's mutable
/// member reports the rows it visits, not every row of the storage (made by
/// [`Columnar::index_columns_and_writes`](crate::Columnar::index_columns_and_writes)).
pub trait RowWrites {
    /// Whether [`written`](Self::written) tells anyone: `false` for a storage without an
    /// observer, whose walks then make no call.
    const HEARS: bool;

    /// The values of the rows in `rows` were handed out mutably: the storage's observer hears
    /// [`Observer::written`].
    fn written(&mut self, rows: Range<usize>);
}

/// The [`RowWrites`] of a storage that reports to no observer, or that told its observer of
/// every row when it handed out its columns: it tells no one.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoWrites;

impl RowWrites for NoWrites {
    const HEARS: bool = false;

    #[inline]
    fn written(&mut self, rows: Range<usize>) {
        let _ = rows;
    }
}

/// The [`RowWrites`] of a storage with an observer `O` of rows `V`: each row's write goes to
/// the observer's [`written`](Observer::written).
pub struct ObserverWrites<'a, K, V, O> {
    observer: &'a mut O,
    row: PhantomData<fn(K, &V)>,
}

impl<'a, K, V, O: Observer<K, V>> ObserverWrites<'a, K, V, O> {
    /// What tells `observer` of each row written.
    #[inline]
    pub fn new(observer: &'a mut O) -> Self {
        Self { observer, row: PhantomData }
    }
}

impl<K, V, O: Observer<K, V>> RowWrites for ObserverWrites<'_, K, V, O> {
    const HEARS: bool = O::OBSERVES;

    #[inline(always)]
    #[allow(clippy::inline_always, reason = "a row's event, in a query's loop")]
    fn written(&mut self, rows: Range<usize>) {
        self.observer.written(rows);
    }
}

impl<K, V, O> fmt::Debug for ObserverWrites<'_, K, V, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObserverWrites").finish_non_exhaustive()
    }
}

/// Tells `observer` of an insert of `key` over the row at `index`: [`renewed`](Observer::renewed)
/// when `renewed` (the row was an older version's of `key`), else
/// [`replaced`](Observer::replaced). What a map's and a derived storage's insert call, with the
/// flag their set's insert returns, so that the choice sits in one place.
#[doc(hidden)]
#[inline]
pub fn report_replacement<K, V, O: Observer<K, V>>(
    observer: &mut O,
    key: K,
    index: usize,
    old: &V,
    new: &V,
    renewed: bool,
) {
    if renewed {
        observer.renewed(key, index, old, new);
    } else {
        observer.replaced(key, index, old, new);
    }
}

/// No observer: nothing is reported, and nothing is paid.
impl<K, V> Observer<K, V> for () {
    const OBSERVES: bool = false;
}

/// One event to every element of a tuple of observers, in order, each after the one before it
/// has returned or panicked (see `unwind::then`).
macro_rules! tell_each {
    ($tuple:ident . $method:ident ($($arg:expr),*); $index:tt) => {
        $tuple.$index.$method($($arg),*)
    };
    ($tuple:ident . $method:ident ($($arg:expr),*); $index:tt $($rest:tt)+) => {
        then(
            $tuple,
            |tuple| tuple.$index.$method($($arg),*),
            |tuple| tell_each!(tuple.$method($($arg),*); $($rest)+),
        )
    };
}

/// Tuples of observers: each is called in order, the first element first. An element whose
/// hook panics does not keep the event from the elements after it: they hear it while the
/// panic unwinds (a second panic then aborts), so that a [`Journal`] or [`Ticks`] beside a
/// hook that panics stays in step with the storage.
macro_rules! observer_tuple {
    ($($name:ident $index:tt),+) => {
        impl<K: Copy, V, $($name: Observer<K, V>),+> Observer<K, V> for ($($name,)+) {
            const OBSERVES: bool = false $(|| $name::OBSERVES)+;

            #[inline]
            fn attached(&mut self, keys: &[K], bound: Option<usize>) {
                tell_each!(self.attached(keys, bound); $($index)+);
            }

            #[inline]
            fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
                $(self.$index.try_reserve(additional)?;)+
                Ok(())
            }

            #[inline]
            fn spare_rows(&self) -> usize {
                let room = usize::MAX;
                $(let room = room.min(self.$index.spare_rows());)+
                room
            }

            #[inline]
            fn inserted(&mut self, key: K, index: usize, value: &V) {
                tell_each!(self.inserted(key, index, value); $($index)+);
            }

            #[inline]
            fn replaced(&mut self, key: K, index: usize, old: &V, new: &V) {
                tell_each!(self.replaced(key, index, old, new); $($index)+);
            }

            #[inline]
            fn renewed(&mut self, key: K, index: usize, old: &V, new: &V) {
                tell_each!(self.renewed(key, index, old, new); $($index)+);
            }

            #[inline]
            fn removed(&mut self, key: K, value: &V, removed: Removed<K>) {
                tell_each!(self.removed(key, value, removed); $($index)+);
            }

            #[inline]
            fn written(&mut self, rows: Range<usize>) {
                tell_each!(self.written(rows.clone()); $($index)+);
            }

            #[inline]
            fn swapped(&mut self, a: usize, b: usize) {
                tell_each!(self.swapped(a, b); $($index)+);
            }

            #[inline]
            fn permuted(&mut self, permutation: &Permutation) {
                tell_each!(self.permuted(permutation); $($index)+);
            }
        }
    };
}

observer_tuple!(A 0);
observer_tuple!(A 0, B 1);
observer_tuple!(A 0, B 1, C 2);
observer_tuple!(A 0, B 1, C 2, E 3);
