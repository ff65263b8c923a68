//! Keyword search for the embedded backend: BM25 over an in-memory inverted index per owner
//! (chatbot or Mind), built from the chunk texts on first use. A write to a source marks that
//! source stale; the next search re-reads that source alone and folds it into the index (the
//! other sources' postings are kept, re-numbered, not re-read).
//!
//! The ranking is FTS5's `bm25()` (k1 1.2, b 0.75, IDF floored at 1e-6) over the terms of
//! `lore_keywords::each_term` (each chunk folded by its own language), computed over the owner's
//! chunks: the same numbers SQLite gives for an FTS5 index of those terms that holds that owner
//! alone. An SQLite FTS5 table scored every match with a B-tree read per row and
//! could not stop early (96 ms p99 at 100k chunks); its statistics also spanned every workspace,
//! so one tenant's texts moved another's scores. Here a query reads the postings of its terms and
//! nothing else.

use lore_domain::id::SourceId;
use lore_domain::language::Language;
use lore_domain::source::SourceOwner;
use lore_keywords::{Bm25, LanguageSet, QueryTerm};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{self, AtomicU64};
use std::sync::{Arc, Mutex};

/// One owner's chunks as postings: for each term, the chunks holding it and how often.
#[derive(Default)]
pub(crate) struct OwnerKeywords {
    /// Chunk i is row `rowids[i]` of source `sources[source_of[i]]`, `lengths[i]` terms long.
    rowids: Vec<i64>,
    lengths: Vec<u32>,
    /// Chunk i's language ([`LanguageSet::position`]): which of a question's terms it counts.
    language_of: Vec<u8>,
    source_of: Vec<u32>,
    sources: Vec<SourceId>,
    /// Per source (as `sources`): the languages of its chunks, which a question is folded for.
    languages: Vec<LanguageSet>,
    total_terms: u64,
    /// Per term, `(chunk, count)` by ascending chunk. A cold build hashes every term occurrence
    /// of every chunk; aHash (keyed at random per map, as std's SipHash is) does that faster.
    postings: HashMap<Box<[u8]>, Vec<(u32, u32)>, ahash::RandomState>,
}

impl OwnerKeywords {
    /// This index with the sources in `changed` replaced by their `(rowid, text, language)` rows as `read`
    /// returns them (none: the source is gone), read one source at a time so that no more than
    /// one source's texts are held at once. Kept chunks are re-numbered; only the changed texts
    /// are cut into terms.
    pub(crate) fn updated<E>(
        &self,
        changed: &[SourceId],
        mut read: impl FnMut(&SourceId) -> Result<Vec<(i64, String, Option<Language>)>, E>,
    ) -> Result<Self, E> {
        let replaced: HashSet<&SourceId> = changed.iter().collect();
        let mut next = OwnerKeywords::default();
        let mut source_index: Vec<Option<u32>> = Vec::with_capacity(self.sources.len());
        for (s, &languages) in self.sources.iter().zip(&self.languages) {
            source_index.push((!replaced.contains(s)).then(|| {
                next.sources.push(s.clone());
                next.languages.push(languages);
                (next.sources.len() - 1) as u32
            }));
        }
        // Kept chunks, in their order: old number -> new number.
        let mut renumber: Vec<u32> = vec![u32::MAX; self.rowids.len()];
        for (old, &source) in self.source_of.iter().enumerate() {
            if let Some(new_source) = source_index[source as usize] {
                renumber[old] = next.rowids.len() as u32;
                next.rowids.push(self.rowids[old]);
                next.lengths.push(self.lengths[old]);
                next.language_of.push(self.language_of[old]);
                next.source_of.push(new_source);
                next.total_terms += u64::from(self.lengths[old]);
            }
        }
        for (term, list) in &self.postings {
            let kept: Vec<(u32, u32)> = list
                .iter()
                .filter_map(|&(doc, count)| {
                    let new = renumber[doc as usize];
                    (new != u32::MAX).then_some((new, count))
                })
                .collect();
            if !kept.is_empty() {
                next.postings.insert(term.clone(), kept);
            }
        }
        for source in changed {
            let rows = read(source)?;
            if rows.is_empty() {
                continue;
            }
            next.sources.push(source.clone());
            let source_no = (next.sources.len() - 1) as u32;
            let mut languages = LanguageSet::default();
            for (rowid, content, language) in &rows {
                languages.insert(*language);
                let doc = next.rowids.len() as u32;
                // Each occurrence goes straight to its term's postings: the chunk's own entry is
                // the last one of the list when the term came up before in this chunk (sorting the
                // chunk's terms to count them was a third of a cold build).
                let postings = &mut next.postings;
                let mut length = 0u32;
                lore_keywords::each_term(content, *language, |term| {
                    length = length.saturating_add(1);
                    match postings.get_mut(term) {
                        Some(list) => match list.last_mut() {
                            Some((last, count)) if *last == doc => *count = count.saturating_add(1),
                            _ => list.push((doc, 1)),
                        },
                        None => {
                            postings.insert(term.into(), vec![(doc, 1)]);
                        }
                    }
                });
                next.rowids.push(*rowid);
                next.lengths.push(length);
                next.language_of.push(LanguageSet::position(*language));
                next.source_of.push(source_no);
                next.total_terms += u64::from(length);
            }
            next.languages.push(languages);
        }
        // Lists grown by doubling hold up to twice their length.
        next.postings.values_mut().for_each(Vec::shrink_to_fit);
        next.postings.shrink_to_fit();
        Ok(next)
    }

    /// The languages of the chunks of `allowed` sources: what a question is folded for.
    pub(crate) fn languages(&self, allowed: &HashSet<&SourceId>) -> LanguageSet {
        self.sources
            .iter()
            .zip(&self.languages)
            .filter(|(s, _)| allowed.contains(s))
            .fold(LanguageSet::default(), |all, (_, &l)| all.union(l))
    }

    fn postings(&self, term: &[u8]) -> &[(u32, u32)] {
        self.postings.get(term).map_or(&[], Vec::as_slice)
    }

    /// BM25's best `k` chunks of the `allowed` sources for `terms`, `(rowid, relevance)` best
    /// first, ties by rowid. Statistics (chunk count, average length, chunks per term) cover
    /// every chunk of the owner. `rows`, when given, are the only chunks (by rowid) that may be
    /// returned (the search `language` filter). A chunk counts only the terms its own language's
    /// folding gives ([`QueryTerm`]); the folds of one word weigh alike (`shared_df`).
    pub(crate) fn top_k(
        &self,
        allowed: &HashSet<&SourceId>,
        rows_allowed: Option<&HashSet<i64>>,
        terms: &[QueryTerm],
        k: usize,
    ) -> Vec<(i64, f32)> {
        let rows = self.rowids.len();
        if terms.is_empty() || k == 0 || rows == 0 {
            return Vec::new();
        }
        let bm25 = Bm25::new(rows as u64, self.total_terms);
        let in_scope: Vec<bool> = self.sources.iter().map(|s| allowed.contains(s)).collect();
        let mut scores = vec![0.0f64; rows];
        let mut touched: Vec<u32> = Vec::new();
        let df: Vec<(u32, u64)> = terms.iter().map(|t| (t.piece, self.postings(&t.term).len() as u64)).collect();
        for (term, df) in terms.iter().zip(lore_keywords::shared_df(&df, rows as u64)) {
            let list = self.postings(&term.term);
            let idf = bm25.idf(df);
            for &(doc, count) in list {
                let d = doc as usize;
                if !in_scope[self.source_of[d] as usize]
                    || !term.counts_in(self.language_of[d])
                    || rows_allowed.is_some_and(|r| !r.contains(&self.rowids[d]))
                {
                    continue;
                }
                if scores[d] == 0.0 {
                    touched.push(doc);
                }
                scores[d] += bm25.weight(idf, count, self.lengths[d]);
            }
        }
        let candidates = touched.iter().map(|&doc| (scores[doc as usize], self.rowids[doc as usize]));
        lore_keywords::best_k(candidates, k).into_iter().map(|(score, rowid)| (rowid, score as f32)).collect()
    }
}

/// The indexes, per owner. Like the vector cache (`vectors.rs`), every chunk write marks what it
/// changes stale inside its transaction and again after the commit, and bumps the write epoch; a
/// search keeps what it built only if no write came in between.
#[derive(Default)]
pub struct KeywordCache {
    entries: Mutex<HashMap<SourceOwner, Entry>>,
    writes: AtomicU64,
}

struct Entry {
    index: Arc<OwnerKeywords>,
    /// Sources whose chunks must be read again before the next search.
    stale: HashSet<SourceId>,
}

/// What a search starts from: the write epoch, and the owner's cached index with the sources to
/// read again (`None`: nothing cached, read every source of the owner).
pub(crate) struct Snapshot {
    pub epoch: u64,
    pub cached: Option<(Arc<OwnerKeywords>, Vec<SourceId>)>,
}

impl KeywordCache {
    pub(crate) fn snapshot(&self, owner: &SourceOwner) -> Snapshot {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let epoch = self.writes.load(atomic::Ordering::SeqCst);
        let cached = entries.get(owner).map(|e| (e.index.clone(), e.stale.iter().cloned().collect()));
        Snapshot { epoch, cached }
    }

    /// Keeps the owner's up-to-date `index`, unless a chunk write came in since `epoch`.
    pub(crate) fn put(&self, owner: &SourceOwner, index: &Arc<OwnerKeywords>, epoch: u64) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if self.writes.load(atomic::Ordering::SeqCst) == epoch {
            entries.insert(owner.clone(), Entry { index: index.clone(), stale: HashSet::new() });
        }
    }

    /// Marks `source` of `owner` stale (with `None` for the owner: wherever it is cached).
    pub(crate) fn source_changed(&self, owner: Option<&SourceOwner>, source: &SourceId) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        self.writes.fetch_add(1, atomic::Ordering::SeqCst);
        for (o, entry) in entries.iter_mut() {
            let affected = match owner {
                Some(want) => want == o,
                None => entry.index.sources.contains(source),
            };
            if affected {
                entry.stale.insert(source.clone());
            }
        }
    }

    /// Forgets `owner`'s index.
    pub(crate) fn owner_gone(&self, owner: &SourceOwner) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        self.writes.fetch_add(1, atomic::Ordering::SeqCst);
        entries.remove(owner);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use lore_domain::id::ChatbotId;

    pub(crate) type Rows = Vec<(i64, String, Option<Language>)>;

    fn rows(list: &[(i64, &str)]) -> Rows {
        list.iter().map(|(r, s)| (*r, s.to_string(), Some(Language::English))).collect()
    }

    /// `index` with `changes` applied.
    pub(crate) fn update(index: &OwnerKeywords, changes: &[(SourceId, Rows)]) -> OwnerKeywords {
        let ids: Vec<SourceId> = changes.iter().map(|c| c.0.clone()).collect();
        let read =
            |s: &SourceId| Ok::<_, ()>(changes.iter().find(|c| &c.0 == s).map(|c| c.1.clone()).unwrap_or_default());
        index.updated(&ids, read).unwrap()
    }

    #[test]
    fn an_index_counts_terms_per_chunk_and_replaces_a_source_alone() {
        let (a, b) = (SourceId::generate(), SourceId::generate());
        let index = update(
            &OwnerKeywords::default(),
            &[
                (a.clone(), rows(&[(7, "Refunds refund the REFUND"), (9, "no match here")])),
                (b.clone(), rows(&[(3, "refund")])),
            ],
        );
        assert_eq!(index.postings(b"refund"), &[(0, 3), (2, 1)]);
        assert_eq!(index.postings(b"match"), &[(1, 1)]);
        assert!(index.postings(b"refunds").is_empty(), "stored stemmed");
        assert_eq!((index.lengths.as_slice(), index.total_terms), ([4, 3, 1].as_slice(), 8));
        let next = update(&index, &[(a.clone(), rows(&[(11, "match")])), (b.clone(), Vec::new())]);
        assert_eq!(next.rowids, [11], "source b is gone, source a holds its new chunk");
        assert!(next.postings(b"refund").is_empty());
        assert_eq!(next.postings(b"match"), &[(0, 1)]);
        assert_eq!(next.sources, [a]);
    }

    #[test]
    fn scores_rank_rarer_terms_first_and_skip_sources_out_of_scope() {
        let (a, b) = (SourceId::generate(), SourceId::generate());
        let index = update(
            &OwnerKeywords::default(),
            &[
                (a.clone(), rows(&[(1, "refund policy"), (2, "shipping policy")])),
                (b.clone(), rows(&[(3, "refund refund"), (4, "policy")])),
            ],
        );
        let terms = lore_keywords::query_terms(&["refund".to_owned()], &[Some(Language::English)]);
        let both: HashSet<&SourceId> = [&a, &b].into_iter().collect();
        let top = index.top_k(&both, None, &terms, 10);
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), [3, 1], "two mentions in a short chunk first");
        assert!(top.iter().all(|t| t.1 > 0.0));
        let only_a: HashSet<&SourceId> = [&a].into_iter().collect();
        assert_eq!(index.top_k(&only_a, None, &terms, 10).iter().map(|t| t.0).collect::<Vec<_>>(), [1]);
        let absent = lore_keywords::query_terms(&["absent".to_owned()], &[Some(Language::English)]);
        assert!(index.top_k(&both, None, &absent, 10).is_empty());
    }

    #[test]
    fn a_chunk_counts_only_the_terms_its_own_language_folds_the_question_into() {
        let (en, fr) = (Some(Language::English), Some(Language::French));
        let source = SourceId::generate();
        // "tests" folds to "test" for English and French, stays "tests" for a chunk of no language.
        let index = update(
            &OwnerKeywords::default(),
            &[(
                source.clone(),
                vec![
                    (1, "the test suite".to_owned(), en),
                    (2, "une suite de test".to_owned(), fr),
                    (3, "test test tests".to_owned(), None),
                ],
            )],
        );
        let all: HashSet<&SourceId> = [&source].into_iter().collect();
        let words = ["tests".to_owned()];
        let english_only = lore_keywords::query_terms(&words, &[en]);
        let ranked = |terms| index.top_k(&all, None, terms, 10).iter().map(|t| t.0).collect::<Vec<_>>();
        assert_eq!(ranked(&english_only), [1], "the French chunk's 'test' is not the English folding's");
        let every = lore_keywords::query_terms(&words, &[None, en, fr]);
        let mut got = ranked(&every);
        got.sort_unstable();
        assert_eq!(got, [1, 2, 3]);
        let with_every = index.top_k(&all, None, &every, 10);
        let score_of = |row| with_every.iter().find(|t| t.0 == row).map(|t| t.1).unwrap();
        assert_eq!(
            score_of(3),
            score_of(1),
            "the unstemmed chunk counts its one 'tests' (as the English chunk its one 'test', as rare), \
             not its two 'test' by the English folding as well"
        );
        assert!(score_of(2) < score_of(1), "a longer chunk with one mention");
    }

    #[test]
    fn a_write_marks_its_source_stale_and_a_search_across_it_caches_nothing() {
        let cache = KeywordCache::default();
        let owner = SourceOwner::Chatbot(ChatbotId::generate());
        let (a, b) = (SourceId::generate(), SourceId::generate());
        let index = Arc::new(update(
            &OwnerKeywords::default(),
            &[(a.clone(), rows(&[(1, "x")])), (b.clone(), rows(&[(2, "y")]))],
        ));
        let before = cache.snapshot(&owner);
        assert!(before.cached.is_none());
        cache.source_changed(Some(&owner), &a);
        cache.put(&owner, &index, before.epoch);
        assert!(cache.snapshot(&owner).cached.is_none(), "built across a write: not kept");
        cache.put(&owner, &index, cache.snapshot(&owner).epoch);
        assert!(cache.snapshot(&owner).cached.unwrap().1.is_empty());
        cache.source_changed(None, &a);
        assert_eq!(cache.snapshot(&owner).cached.unwrap().1, vec![a.clone()], "found where it is cached");
        cache.source_changed(None, &SourceId::generate());
        assert_eq!(cache.snapshot(&owner).cached.unwrap().1.len(), 1, "another owner's source: not this one's");
        cache.source_changed(Some(&owner), &SourceId::generate());
        assert_eq!(cache.snapshot(&owner).cached.unwrap().1.len(), 2, "a new source of the owner is read too");
        cache.owner_gone(&owner);
        assert!(cache.snapshot(&owner).cached.is_none());
    }
}
