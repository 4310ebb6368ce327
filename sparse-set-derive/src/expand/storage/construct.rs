//! Construction (`new`, `with_capacity`, `bounded`) and capacity (`len`, `reserve`,
//! `shrink_to_fit`, ...): the key index and every column sized together.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Input;
use crate::expand::storage::parts::Parts;

/// `new`, `with_capacity`, `try_with_capacity`, `bounded`, `try_bounded`: storages without an
/// observer.
pub(super) fn construction(input: &Input<'_>) -> TokenStream {
    let Parts { p, k, d, keys, columns, observer, usize, result, .. } = &Parts::new(input);
    let types = input.fields.iter().map(|field| field.ty);
    // The stamps of tracked fields are bytes a row too, counted with the columns.
    let stamps = match input.tracked_fields() {
        0 => TokenStream::new(),
        n => quote!(#p::FieldTicks::<#n>::ROW_BYTES,),
    };
    let fresh = input.observer_value(&quote!(#p::FieldTicks::new()), &quote!(()));
    // A bounded storage's field ticks reserve their room once, too.
    let bounded = input.observer_value(
        &quote! {{
            let mut __ticks = #p::FieldTicks::new();
            __ticks.try_reserve_exact(capacity)?;
            __ticks
        }},
        &quote!(()),
    );
    quote! {
        /// An empty storage. Does not allocate.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        #[must_use]
        pub const fn new() -> Self {
            Self { #keys: #p::SparseSet::new(), #(#columns: #p::Vec::new(),)* #observer: #fresh }
        }

        /// An empty storage with room for `capacity` elements in the key index and in every
        /// column before any of them reallocates. A capacity past what the dense index width
        /// addresses is capped to it.
        ///
        /// Computes in **O(1)** time, plus the allocations.
        ///
        /// # Panics
        ///
        /// If a column would need more than `isize::MAX` bytes, or an allocation fails; see
        /// [`try_with_capacity`](Self::try_with_capacity).
        #[must_use]
        #[track_caller]
        pub fn with_capacity(capacity: #usize) -> Self {
            match Self::try_with_capacity(capacity) {
                #result::Ok(__storage) => __storage,
                #result::Err(__error) => ::core::panic!("{}", __error),
            }
        }

        /// The fallible twin of [`with_capacity`](Self::with_capacity).
        ///
        /// Computes in **O(1)** time, plus the allocations.
        ///
        /// # Errors
        ///
        /// `Error::CapacityOverflow` if a column would need more than `isize::MAX` bytes
        /// (nothing is allocated for it); `Error::AllocFailed` if the memory cannot be had.
        pub fn try_with_capacity(capacity: #usize) -> #result<Self, #p::Error> {
            let mut __storage = Self::new();
            __storage.try_reserve(capacity)?;
            #result::Ok(__storage)
        }

        /// A storage of fixed size that never allocates after this call: it holds at most
        /// `capacity` elements, each with a key whose sparse index is below `key_limit`.
        ///
        /// Past either bound the `try_` calls return an error and the plain calls panic,
        /// leaving the storage unchanged; `reserve` and `shrink_to_fit` do nothing. Only the
        /// stable sorts (`sort_by`, `sort_by_key`) allocate (a permutation of `len`
        /// positions); `sort_unstable_by` and `sort_keys` sort in place. With an observer
        /// (`observed_by`) every sort allocates the permutation it reports, and removal
        /// events kept past `capacity` removals between clears grow.
        ///
        /// Computes in **O(`capacity + key_limit`)** time.
        ///
        /// # Panics
        ///
        /// If `capacity` exceeds what the dense index width addresses, or an allocation fails,
        /// with a message naming both bounds and the error [`try_bounded`](Self::try_bounded)
        /// would return.
        #[must_use]
        #[track_caller]
        pub fn bounded(capacity: #usize, key_limit: #usize) -> Self {
            match Self::try_bounded(capacity, key_limit) {
                #result::Ok(__storage) => __storage,
                #result::Err(__error) => #p::fail_bounded::<Self>(capacity, key_limit, __error),
            }
        }

        /// The fallible twin of [`bounded`](Self::bounded).
        ///
        /// Computes in **O(`capacity + key_limit`)** time.
        ///
        /// # Errors
        ///
        /// `Error::DenseIndexOverflow` if `capacity` exceeds what the dense index width
        /// addresses; `Error::BoundPastKeys` if `key_limit` is past the slots the key type
        /// takes (`Key::SLOTS`); `Error::CapacityOverflow` if the memory `capacity` and
        /// `key_limit` imply exceeds the address space (all checked before that memory is
        /// allocated);
        /// `Error::AllocFailed` if the memory cannot be had.
        pub fn try_bounded(capacity: #usize, key_limit: #usize) -> #result<Self, #p::Error> {
            // Decided before anything is allocated; the columns reserved (not written) before
            // the key index writes its pages, so a failure touches no memory.
            #p::check_bounded::<#k, #d>(
                capacity,
                key_limit,
                &[#(::core::mem::size_of::<#types>(),)* #stamps],
            )?;
            #(
                let mut #columns = #p::Vec::new();
                #p::try_reserve_exact(&mut #columns, capacity)?;
            )*
            let __observer = #bounded;
            let #keys = #p::SparseSet::try_bounded(capacity, key_limit)?;
            #result::Ok(Self { #keys, #(#columns,)* #observer: __observer })
        }
    }
}

/// `with_observer`, `observed_by`, `into_unobserved`, `observer`, `observer_mut`.
pub(super) fn observer(input: &Input<'_>) -> TokenStream {
    let Parts { p, k, keys, columns, observer, .. } = &Parts::new(input);
    let o = &input.observer;
    let storage = &input.names.storage;
    let args = input.generic_args();
    let row = input.borrowing(&input.names.refs, &quote!('__row));
    let any_row = input.borrowing(&input.names.refs, &quote!('_));
    let unobserved = input.owning(storage);
    let user = input.user_observer();
    let attached = input.observer_value(&quote!(#p::FieldTicks::new()), &quote!(observer));
    let moved = input.observer_value(&quote!(self.#observer.0), &quote!(observer));
    let detached = input.observer_value(&quote!(self.#observer.0), &quote!(()));
    quote! {
        /// An empty storage reporting every change to `observer` (see `sparse_soa::observe`).
        /// Does not allocate. The observer is taken as it is and told nothing (this is a
        /// `const fn`), so give it fresh, as `new` or `default` makes it; one that followed
        /// another storage (from `into_unobserved`) goes through `observed_by`, which tells it
        /// the keys it now follows.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        #[must_use]
        pub const fn with_observer(observer: #o) -> Self {
            Self { #keys: #p::SparseSet::new(), #(#columns: #p::Vec::new(),)* #observer: #attached }
        }

        /// The same storage, reporting from now on to `observer`, which is told the rows the
        /// storage holds already and, for a bounded storage, its capacity (`Observer::attached`).
        /// Keeps the storage's memory and bounds; the old observer is dropped.
        ///
        /// Computes in **O(1)** time, plus what `attached` costs.
        ///
        /// # Panics
        ///
        /// If the observer's `attached` panics: the observers of this crate reserve their room
        /// there (for the rows it is told of and, for a bounded storage, its capacity), and
        /// panic if that memory cannot be had.
        #[must_use]
        pub fn observed_by<__P>(self, mut observer: __P) -> #storage<#(#args,)* __P>
        where
            __P: for<'__row> #p::Observer<#k, #row>,
        {
            let __bound = self.#keys.key_limit().map(|_| self.capacity());
            #p::Observer::<#k, #any_row>::attached(&mut observer, self.#keys.as_slice(), __bound);
            #storage { #keys: self.#keys, #(#columns: self.#columns,)* #observer: #moved }
        }

        /// The storage without its observer, and the observer. Keeps the storage's memory and
        /// bounds.
        ///
        /// Computes in **O(1)** time.
        #[must_use]
        pub fn into_unobserved(self) -> (#unobserved, #o) {
            (
                #storage { #keys: self.#keys, #(#columns: self.#columns,)* #observer: #detached },
                self.#observer #user,
            )
        }

        /// The storage's observer.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        #[must_use]
        pub fn observer(&self) -> &#o {
            &self.#observer #user
        }

        /// The storage's observer, mutably: to drain or clear what it collected. The rows
        /// cannot be reached through it.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        pub fn observer_mut(&mut self) -> &mut #o {
            &mut self.#observer #user
        }
    }
}

/// `len`, `is_empty`, the capacity reports (`capacity`, `remaining_capacity`, `key_limit`,
/// `allocated_bytes`), `reserve`, `try_reserve`, `shrink_to_fit`.
pub(super) fn capacity(input: &Input<'_>) -> TokenStream {
    let Parts { p, keys, columns, observer, usize, bool, result, d, hear, .. } = &Parts::new(input);
    // The stamps of tracked fields are the storage's memory too, sized with its columns.
    let tracked = input.tracked_fields() > 0;
    let stamp_bytes = tracked.then(|| quote!(+ self.#observer.0.allocated_bytes()));
    // The observer's room (a `Ticks`' stamps, and the tracked fields' in the pair) grows with
    // the columns.
    let reserve_stamps = quote!(#hear::try_reserve(&mut self.#observer, __additional)?;);
    let shrink_stamps = tracked.then(|| quote!(self.#observer.0.shrink_to_fit();));
    // A narrow dense width never reserves room it cannot use.
    let capped = quote! {
        ::core::cmp::min(additional, <#d as #p::DenseIndex>::MAX_LEN - self.#keys.len())
    };
    quote! {
        /// The number of elements.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        #[must_use]
        pub fn len(&self) -> #usize {
            self.#keys.len()
        }

        /// Whether the storage holds no elements.
        ///
        /// Computes in **O(1)** time.
        #[inline]
        #[must_use]
        pub fn is_empty(&self) -> #bool {
            self.#keys.is_empty()
        }

        /// How many elements fit before the key index or a column reallocates; for a bounded
        /// storage, its fixed capacity.
        ///
        /// Computes in **O(1)** time.
        #[must_use]
        pub fn capacity(&self) -> #usize {
            let __capacity = self.#keys.capacity();
            #(let __capacity = ::core::cmp::min(__capacity, self.#columns.capacity());)*
            __capacity
        }

        /// `capacity() - len()`: how many more elements fit without reallocating (for a
        /// bounded storage, at all).
        ///
        /// Computes in **O(1)** time.
        #[must_use]
        pub fn remaining_capacity(&self) -> #usize {
            self.capacity() - self.len()
        }

        /// The exclusive bound on sparse indices of a bounded storage; `None` for a growable
        /// one.
        ///
        /// Computes in **O(1)** time.
        #[must_use]
        pub fn key_limit(&self) -> ::core::option::Option<#usize> {
            self.#keys.key_limit()
        }

        /// Bytes of heap memory the storage holds: its key index (dense keys, sparse pages and
        /// page directory) plus every column's capacity, and the change ticks of tracked
        /// fields. Memory the fields own themselves (a `String`'s text) and the observer's are
        /// not counted.
        ///
        /// Computes in **O(directory size)** time.
        #[must_use]
        pub fn allocated_bytes(&self) -> #usize {
            self.#keys.allocated_bytes() #(+ #p::vec_bytes(&self.#columns))* #stamp_bytes
        }

        /// Reserves room for `additional` more elements in the key index and every column,
        /// capped to what the dense index width still addresses. Does nothing for a bounded
        /// storage.
        ///
        /// Computes in **O(len)** time when it reallocates.
        ///
        /// # Panics
        ///
        /// If a new capacity needs more than `isize::MAX` bytes or an allocation fails, with
        /// the message of the error [`try_reserve`](Self::try_reserve) would return; the
        /// contents are then unchanged.
        #[track_caller]
        pub fn reserve(&mut self, additional: #usize) {
            if let #result::Err(__error) = self.try_reserve(additional) {
                ::core::panic!("{}", __error);
            }
        }

        /// The fallible twin of [`reserve`](Self::reserve).
        ///
        /// Computes in **O(len)** time when it reallocates.
        ///
        /// # Errors
        ///
        /// `Error::CapacityOverflow` if a new capacity needs more than `isize::MAX` bytes;
        /// `Error::AllocFailed` if the memory cannot be had. The contents are unchanged either
        /// way (some columns may have grown their capacity).
        ///
        /// `Ok` is not a promise of room for `additional` elements: as
        /// [`reserve`](Self::reserve), a bounded storage reserves nothing and a request past
        /// what the dense width addresses is capped, so the insert past
        /// [`remaining_capacity`](Self::remaining_capacity) is the one that returns
        /// `Error::Full` or `Error::DenseIndexOverflow`.
        pub fn try_reserve(&mut self, additional: #usize) -> #result<(), #p::Error> {
            if self.#keys.key_limit().is_none() {
                let __additional = #capped;
                self.#keys.try_reserve(__additional)?;
                #(#p::try_reserve(&mut self.#columns, __additional)?;)*
                #reserve_stamps
            }
            #result::Ok(())
        }

        /// A hint before inserting new keys that fill `slots` (their `Key::sparse_slot`s): the
        /// key index lays its flat prefix out over them where room for that many keys is
        /// reserved and they fill at least half of the slots it adds (see
        /// `SparseSet::reserve_slots`). Never fails.
        ///
        /// Computes in **O(slots added)** time.
        #[inline]
        pub fn reserve_slots(&mut self, slots: ::core::ops::Range<::core::primitive::u64>) {
            #p::SparseSet::reserve_slots(&mut self.#keys, slots);
        }

        /// Releases spare capacity of the key index (including unused sparse pages) and of
        /// every column. Does nothing for a bounded storage. Where the allocator refuses a
        /// smaller allocation, that part keeps its memory: this never fails.
        ///
        /// Computes in **O(len + allocated sparse slots)** time.
        pub fn shrink_to_fit(&mut self) {
            if self.#keys.key_limit().is_none() {
                self.#keys.shrink_to_fit();
                #(#p::shrink(&mut self.#columns);)*
                #shrink_stamps
            }
        }
    }
}
