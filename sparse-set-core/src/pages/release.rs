//! Releasing pages (`shrink_to_fit`): every page rebuilt in the smallest form that fits its
//! slots, empty pages dropped, the directory sized to the pages left. Nothing changes if the
//! memory for the rebuilt pages cannot be had.

use alloc::vec::Vec;

use crate::dense::DenseIndex;
use crate::error::{Error, shrink, try_reserve};
use crate::pages::compact::Compact;
use crate::pages::{
    COMPACT, COMPACT_LEN, Entry, Found, PAGE_LEN, PageRef, Pages, flat_index, new_full,
};

impl<D: DenseIndex> Pages<D> {
    /// Every page number with a page, and the page's slots.
    pub(super) fn pages(&self) -> impl Iterator<Item = (u64, PageRef<'_, D>)> + '_ {
        let stride = self.prefix.stride();
        let prefix = self.prefix.pages_words().enumerate();
        let prefix =
            prefix.map(move |(number, words)| (number as u64, PageRef::Prefix(words, stride)));
        let flat = self.flat_full.iter().zip(&self.flat_compact).enumerate();
        let flat = flat.filter_map(|(number, (full, &entry))| {
            let page = match full {
                Some(full) => PageRef::Full(full),
                None => self.page_ref(entry)?,
            };
            Some((number as u64, page))
        });
        let hashed =
            self.hash.iter().filter_map(|(page, entry)| Some((page, self.page_ref(entry)?)));
        prefix.chain(flat).chain(hashed)
    }

    /// The page an entry other than `EMPTY` names.
    pub(super) fn page_ref(&self, entry: Entry) -> Option<PageRef<'_, D>> {
        match Found::of(entry) {
            Found::Compact(index) => self.compact.get(index).map(PageRef::Compact),
            Found::HashedFull(index) => self.hashed_full.get(index)?.as_deref().map(PageRef::Full),
            Found::Prefix(_) | Found::FlatFull(_) | Found::Missing => None,
        }
    }

    /// Adds page number `page`, which has no page, holding `values` in the smallest form that
    /// fits them; nothing if they are all zero.
    pub(super) fn adopt(&mut self, page: u64, values: PageRef<'_, D>) -> Result<(), Error> {
        let compact = match values {
            PageRef::Compact(compact) => Some(*compact),
            PageRef::Full(values) => Compact::from_full(values),
            PageRef::Prefix(..) => Compact::from_full(&values.values()),
        };
        match compact {
            Some(compact) if compact.len() == 0 => Ok(()),
            Some(compact) => {
                try_reserve(&mut self.compact, 1)?;
                self.reserve_entry(page)?;
                self.compact.push(compact);
                self.add_entry(page, COMPACT | (self.compact.len() - 1) as Entry);
                Ok(())
            }
            None => {
                if flat_index(page) == self.prefix_pages() {
                    self.prefix.try_reserve_pages(1)?;
                    match values {
                        // A prefix page stays one, with the versions of its slots.
                        PageRef::Prefix(words, stride) if stride == self.prefix.stride() => {
                            self.prefix.push_words(words);
                        }
                        _ => self.prefix.push_values(&values.values()),
                    }
                    self.refresh_last();
                    return Ok(());
                }
                let mut full = new_full::<D>()?;
                full.copy_from_slice(&values.values());
                try_reserve(&mut self.hashed_full, 1)?;
                self.reserve_entry(page)?;
                let number = flat_index(page);
                if number < self.flat_full.len() {
                    self.flat_full[number] = Some(full);
                    self.flat_named += 1;
                } else {
                    self.hashed_full.push(Some(full));
                    self.hash.put(page, (self.hashed_full.len() - 1) as Entry);
                    self.refresh_last();
                }
                Ok(())
            }
        }
    }

    /// The slots of the prefix that [`release_empty_pages`](Self::release_empty_pages) keeps in
    /// it: those of its pages from page 0 up that hold more slots than a compact page takes
    /// (the first page with fewer turns compact or goes, and the prefix ends there).
    pub(crate) fn prefix_slots_kept_by_release(&self) -> usize {
        let stride = self.prefix.stride();
        let kept = self
            .prefix
            .pages_words()
            .take_while(|words| PageRef::Prefix(words, stride).used() > COMPACT_LEN);
        kept.count() * PAGE_LEN
    }

    /// Releases every page whose slots are all zero, turns full pages with few slots in use
    /// compact, drops freed compact pages, and sizes the directory to the pages left. If the
    /// memory for the rebuilt pages cannot be had, nothing changes.
    pub(crate) fn release_empty_pages(&mut self) {
        let mut pages: Vec<(u64, PageRef<'_, D>)> = Vec::new();
        if pages.try_reserve_exact(self.page_count()).is_err() {
            return;
        }
        pages.extend(self.pages());
        pages.sort_unstable_by_key(|&(page, _)| page);
        let mut rebuilt = Self::new(self.prefix.is_versioned());
        for &(page, values) in &pages {
            if rebuilt.adopt(page, values).is_err() {
                return;
            }
        }
        drop(pages);
        rebuilt.prefix.shrink();
        shrink(&mut rebuilt.flat_full);
        shrink(&mut rebuilt.flat_compact);
        shrink(&mut rebuilt.hashed_full);
        shrink(&mut rebuilt.compact);
        *self = rebuilt;
    }
}
