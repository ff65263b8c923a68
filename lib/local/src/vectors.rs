//! Exact semantic search for the embedded backend: each owner's (chatbot's or Mind's) embeddings are loaded once into
//! one contiguous matrix and scanned with dot products (vectors are unit length, so the dot
//! product is the cosine). Any chunk write drops the cached matrices; the next search reloads.
//!
//! Large matrices are also kept as 8-bit codes, a quarter of the bytes, and searched in two
//! passes: the codes give every row an approximate score with a proven error bound, the best
//! candidates are scored exactly, and the answer stands only when no other row's bound can
//! reach it (else the whole matrix is scanned exactly). The results are those of the exact scan;
//! the scan is bound by memory bandwidth, so reading a quarter of the bytes is most of the gain.

use lore_domain::id::SourceId;
use lore_domain::source::SourceOwner;
use lore_domain::vector::dot;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::atomic::{self, AtomicU64};
use std::sync::{Arc, Mutex};

/// Little-endian f32s: the stored form of an embedding.
pub(crate) fn encode_vector(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(crate) fn decode_vector(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// One owner's embeddings of one model.
pub(crate) struct OwnerVectors {
    pub dims: usize,
    /// Row i of `matrix` belongs to chunk `rowids[i]` of source `sources[source_of[i]]`.
    pub matrix: Vec<f32>,
    pub rowids: Vec<i64>,
    pub source_of: Vec<u32>,
    pub sources: Vec<SourceId>,
    /// The rows as 8-bit codes, for matrices of at least [`CODED_MIN_FLOATS`] floats.
    coded: Option<Coded>,
}

impl OwnerVectors {
    /// Builds from `(rowid, source id, embedding bytes)` rows; rows of another size are skipped.
    pub fn build(rows: Vec<(i64, String, Vec<u8>)>) -> Self {
        let mut v = OwnerVectors {
            dims: 0,
            matrix: Vec::new(),
            rowids: Vec::new(),
            source_of: Vec::new(),
            sources: Vec::new(),
            coded: None,
        };
        let mut index: HashMap<String, u32> = HashMap::new();
        for (rowid, source, bytes) in rows {
            let e = decode_vector(&bytes);
            if v.dims == 0 {
                v.dims = e.len();
            }
            if e.len() != v.dims || e.is_empty() {
                continue;
            }
            let Some(id) = SourceId::parse(&source) else { continue };
            let n = *index.entry(source).or_insert_with(|| {
                v.sources.push(id);
                (v.sources.len() - 1) as u32
            });
            v.matrix.extend_from_slice(&e);
            v.rowids.push(rowid);
            v.source_of.push(n);
        }
        if v.matrix.len() >= CODED_MIN_FLOATS {
            v.coded = Some(Coded::new(&v.matrix, v.dims));
        }
        v
    }

    /// The `k` rows most similar to `query` among `allowed` sources: `(rowid, score)` best first.
    /// Each part of the rows ([`Self::in_parts`]) keeps its own best `k`.
    pub fn top_k(&self, query: &[f32], allowed: &HashSet<&SourceId>, k: usize) -> Vec<(i64, f32)> {
        if query.len() != self.dims || k == 0 {
            return Vec::new();
        }
        let allowed_idx: Vec<bool> = self.sources.iter().map(|s| allowed.contains(s)).collect();
        if let Some(found) = self.coded.as_ref().and_then(|coded| self.top_k_coded(coded, query, &allowed_idx, k)) {
            return found;
        }
        let parts = self.in_parts(|from, to| self.scan(query, &allowed_idx, k, from, to));
        let mut best: Vec<Scored> =
            parts.into_iter().flat_map(|p| p.map(BinaryHeap::into_vec).unwrap_or_default()).collect();
        best.sort();
        best.truncate(k);
        best.into_iter().map(|s| (s.1, s.0)).collect()
    }

    /// `scan(from, to)` over consecutive parts of the rows, one per thread for large matrices (the
    /// scan is bound by memory bandwidth, and one core does not saturate it); `None` for a part
    /// whose thread failed.
    fn in_parts<T: Send>(&self, scan: impl Fn(usize, usize) -> T + Sync) -> Vec<Option<T>> {
        let rows = self.rowids.len();
        let threads = if self.matrix.len() >= PARALLEL_SCAN_FLOATS {
            std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_SCAN_THREADS)
        } else {
            1
        };
        if threads == 1 {
            return vec![Some(scan(0, rows))];
        }
        let per = rows.div_ceil(threads).max(1);
        let scan = &scan;
        std::thread::scope(|s| {
            let parts: Vec<_> =
                (0..rows).step_by(per).map(|from| s.spawn(move || scan(from, (from + per).min(rows)))).collect();
            parts.into_iter().map(|h| h.join().ok()).collect()
        })
    }

    /// [`Self::top_k`] in two passes over the codes; `None` when the first pass cannot prove its
    /// candidates hold the exact top `k` (then the caller scans exactly).
    ///
    /// The query is coded too, and a row's approximate score `a` (the coded query's dot product
    /// with the coded row, in integers) misses its exact score by at most
    /// `|q| · e_row + e_q · |row coded|` (Cauchy–Schwarz, `e` the norms of the rounding errors)
    /// plus the float rounding of the sums, so no row scores above that bound. The first pass keeps the `candidates` best rows by
    /// `a`, and the highest such bound among the rows it drops. The candidates are then scored
    /// exactly; if the `k`-th best of them beats every dropped row's bound, they are the answer.
    fn top_k_coded(&self, coded: &Coded, query: &[f32], allowed_idx: &[bool], k: usize) -> Option<Vec<(i64, f32)>> {
        let coded_query = CodedQuery::new(query);
        let candidates = (k * 4).max(MIN_CANDIDATES);
        let parts: Vec<(Vec<Candidate>, f32)> = self
            .in_parts(|from, to| coded.scan(self, &coded_query, allowed_idx, candidates, from, to))
            .into_iter()
            // A part that failed proves nothing: its bound makes the caller scan exactly.
            .map(|p| p.unwrap_or((Vec::new(), f32::INFINITY)))
            .collect();
        let dropped_bound = parts.iter().map(|(_, bound)| *bound).fold(f32::NEG_INFINITY, f32::max);
        let mut best: Vec<Scored> = parts
            .iter()
            .flat_map(|(kept, _)| kept)
            .map(|c| Scored(dot(self.row(c.row), query), self.rowids[c.row]))
            .collect();
        best.sort();
        best.truncate(k);
        let kth = if best.len() == k { best[k - 1].0 } else { f32::NEG_INFINITY };
        (dropped_bound < kth || dropped_bound == f32::NEG_INFINITY)
            .then(|| best.into_iter().map(|s| (s.1, s.0)).collect())
    }

    fn row(&self, i: usize) -> &[f32] {
        &self.matrix[i * self.dims..(i + 1) * self.dims]
    }

    /// The best `k` of rows `from..to`.
    fn scan(&self, query: &[f32], allowed_idx: &[bool], k: usize, from: usize, to: usize) -> BinaryHeap<Scored> {
        let mut heap: BinaryHeap<Scored> = BinaryHeap::with_capacity(k + 1);
        for i in from..to {
            if !allowed_idx[self.source_of[i] as usize] {
                continue;
            }
            let score = dot(&self.matrix[i * self.dims..(i + 1) * self.dims], query);
            if heap.len() < k {
                heap.push(Scored(score, self.rowids[i]));
            } else if heap.peek().is_some_and(|worst| score > worst.0) {
                heap.pop();
                heap.push(Scored(score, self.rowids[i]));
            }
        }
        heap
    }
}

/// Matrices of at least this many floats (~20k rows of 384 dimensions) are also kept as codes
/// and searched in two passes; below, one exact pass takes a few milliseconds.
const CODED_MIN_FLOATS: usize = 8 * 1024 * 1024;
/// The first pass keeps at least this many candidates (4 × k when more).
const MIN_CANDIDATES: usize = 64;
/// Added to every bound, for the float rounding of the scaling and of the comparisons.
const SLACK: f32 = 1e-4;

/// A matrix as signed 8-bit codes: row `i` is approximately `step[i] × codes[i]`.
struct Coded {
    codes: Vec<i8>,
    /// The value of one code step of each row (its largest magnitude / 127).
    step: Vec<f32>,
    /// The Euclidean norm of each row's rounding error, rounded up.
    error: Vec<f32>,
    /// The Euclidean norm of each coded row (`step × codes`), rounded up.
    norm: Vec<f32>,
}

impl Coded {
    fn new(matrix: &[f32], dims: usize) -> Self {
        let rows = matrix.len() / dims;
        let mut coded = Coded {
            codes: Vec::with_capacity(matrix.len()),
            step: Vec::with_capacity(rows),
            error: Vec::with_capacity(rows),
            norm: Vec::with_capacity(rows),
        };
        for row in matrix.chunks_exact(dims) {
            let (step, error, norm) = code_into(row, &mut coded.codes);
            coded.step.push(step);
            coded.error.push(error);
            coded.norm.push(norm);
        }
        coded
    }

    /// The best `keep` rows of `from..to` by approximate score, and the highest bound of the
    /// allowed rows left out.
    fn scan(
        &self,
        v: &OwnerVectors,
        query: &CodedQuery,
        allowed_idx: &[bool],
        keep: usize,
        from: usize,
        to: usize,
    ) -> (Vec<Candidate>, f32) {
        let mut heap: BinaryHeap<Candidate> = BinaryHeap::with_capacity(keep + 1);
        let mut dropped = f32::NEG_INFINITY;
        let dot_codes = dot_codes_for_this_cpu();
        for i in from..to {
            if !allowed_idx[v.source_of[i] as usize] {
                continue;
            }
            let sum = dot_codes(&self.codes[i * v.dims..(i + 1) * v.dims], &query.codes);
            let approx = self.step[i] * query.step * sum as f32;
            // q·v − q̂·v̂ = q·(v − v̂) + (q − q̂)·v̂, each term bounded by Cauchy–Schwarz; then the
            // exact scan's own float rounding.
            let bound = approx + query.norm * self.error[i] + (query.error + query.rounding) * self.norm[i] + SLACK;
            let candidate = Candidate { approx, row: i, bound };
            if heap.len() < keep {
                heap.push(candidate);
            } else if heap.peek().is_some_and(|worst| approx > worst.approx) {
                if let Some(out) = heap.pop() {
                    dropped = dropped.max(out.bound);
                }
                heap.push(candidate);
            } else {
                dropped = dropped.max(candidate.bound);
            }
        }
        (heap.into_vec(), dropped)
    }
}

/// A row kept by the first pass: min-heap by approximate score, like [`Scored`].
#[derive(Clone, Copy)]
struct Candidate {
    approx: f32,
    row: usize,
    bound: f32,
}

impl PartialEq for Candidate {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Candidate {
    fn cmp(&self, o: &Self) -> Ordering {
        o.approx.total_cmp(&self.approx).then(self.row.cmp(&o.row))
    }
}

/// Codes `row` onto `codes` (`step × code` ≈ value, codes in −127..=127); returns the step, the
/// norm of the rounding error and the norm of the coded row, both rounded up so the bounds they
/// give are never below the truth.
fn code_into(row: &[f32], codes: &mut Vec<i8>) -> (f32, f32, f32) {
    let largest = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let step = if largest > 0.0 && largest.is_finite() { largest / 127.0 } else { 1.0 };
    let (mut error, mut norm) = (0.0f64, 0.0f64);
    for x in row {
        let code = (x / step).round().clamp(-127.0, 127.0);
        codes.push(code as i8);
        let coded = f64::from(code) * f64::from(step);
        error += (f64::from(*x) - coded).powi(2);
        norm += coded * coded;
    }
    let up = |x: f64| (x.sqrt() * (1.0 + 1e-6)) as f32 + f32::EPSILON;
    (step, up(error), up(norm))
}

/// The query, coded like the rows.
struct CodedQuery {
    codes: Vec<i8>,
    step: f32,
    /// Norms, rounded up: of the rounding error, and of the query itself.
    error: f32,
    norm: f32,
    /// How far the exact scan's float sum of `dims` products may be from the true dot product,
    /// per unit of the row's norm: `dims × ε × |q|` (the classic bound for a sum of products).
    rounding: f32,
}

impl CodedQuery {
    fn new(query: &[f32]) -> Self {
        let mut codes = Vec::with_capacity(query.len());
        let (step, error, _) = code_into(query, &mut codes);
        let norm = query.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
        let norm = (norm * (1.0 + 1e-6)) as f32 + f32::EPSILON;
        Self { codes, step, error, norm, rounding: query.len() as f32 * f32::EPSILON * norm }
    }
}

/// The integer dot product of two rows of codes: exact (|sum| ≤ dims × 127², far inside i32).
/// An integer sum may be reordered, so the plain sum vectorises as it is.
#[inline(always)]
fn dot_codes(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum()
}

lore_domain::for_this_cpu! {
    /// [`dot_codes`] for this processor: the default x86-64 target stops at SSE2, whose 8-bit
    /// products take several instructions each, and the codes pass is then bound by arithmetic
    /// instead of memory.
    fn dot_codes_for_this_cpu = dot_codes(a: &[i8], b: &[i8]) -> i32
}

/// Matrices of at least this many floats (~10k rows of 384 dimensions) are scanned in parallel.
const PARALLEL_SCAN_FLOATS: usize = 4 * 1024 * 1024;
const MAX_SCAN_THREADS: usize = 4;

/// Min-heap entry by score (the heap keeps the k best; its top is the worst of them).
struct Scored(f32, i64);

impl PartialEq for Scored {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scored {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.partial_cmp(&self.0).unwrap_or(Ordering::Equal).then(self.1.cmp(&o.1))
    }
}

/// The matrices, per owner and model. A write to the chunks invalidates its owner's matrix twice:
/// inside its transaction and again after it committed, and bumps the write epoch each time. A
/// search records the epoch before it reads the rows and may cache what it built only if no write
/// came in between: otherwise it may have read the rows from before that write's commit, and the
/// stale matrix would hide the write's chunks until the next one.
#[derive(Default)]
pub struct VectorCache {
    entries: Mutex<HashMap<(SourceOwner, String), Arc<OwnerVectors>>>,
    writes: AtomicU64,
}

impl VectorCache {
    pub(crate) fn get(&self, owner: &SourceOwner, model: &str) -> Option<Arc<OwnerVectors>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).get(&(owner.clone(), model.to_owned())).cloned()
    }

    /// The write epoch, to pass to [`Self::put`]; read it before reading the rows.
    pub(crate) fn epoch(&self) -> u64 {
        self.writes.load(atomic::Ordering::SeqCst)
    }

    /// Keeps `v` unless a write invalidated the cache since `epoch`.
    pub(crate) fn put(&self, owner: &SourceOwner, model: &str, v: Arc<OwnerVectors>, epoch: u64) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if self.writes.load(atomic::Ordering::SeqCst) == epoch {
            entries.insert((owner.clone(), model.to_owned()), v);
        }
    }

    /// Forgets `owner`'s matrices (every owner's with `None`), and refuses what searches that
    /// started before this call would cache.
    pub(crate) fn invalidate(&self, owner: Option<&SourceOwner>) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        self.writes.fetch_add(1, atomic::Ordering::SeqCst);
        match owner {
            Some(o) => entries.retain(|(k, _), _| k != o),
            None => entries.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_domain::id::{ChatbotId, MindId};

    #[test]
    fn a_matrix_built_across_a_write_is_not_cached_and_invalidation_is_per_owner() {
        let cache = VectorCache::default();
        let (a, b) = (SourceOwner::Chatbot(ChatbotId::generate()), SourceOwner::Mind(MindId::generate()));
        let matrix = || Arc::new(OwnerVectors::build(Vec::new()));
        let before = cache.epoch();
        cache.invalidate(Some(&a)); // a write committed while the search read its rows
        cache.put(&a, "m", matrix(), before);
        assert!(cache.get(&a, "m").is_none(), "built from rows older than the write: not kept");
        let now = cache.epoch();
        cache.put(&a, "m", matrix(), now);
        cache.put(&b, "m", matrix(), now);
        assert!(cache.get(&a, "m").is_some());
        cache.invalidate(Some(&b));
        assert!(cache.get(&a, "m").is_some(), "another owner's write keeps this matrix");
        assert!(cache.get(&b, "m").is_none());
        cache.invalidate(None);
        assert!(cache.get(&a, "m").is_none(), "an ownerless write drops every matrix");
    }

    #[test]
    fn top_k_is_exact_ordered_and_filtered() {
        let a = SourceId::generate();
        let b = SourceId::generate();
        let rows = vec![
            (1, a.to_string(), encode_vector(&[1.0, 0.0])),
            (2, a.to_string(), encode_vector(&[0.6, 0.8])),
            (3, b.to_string(), encode_vector(&[0.0, 1.0])),
            (4, a.to_string(), encode_vector(&[1.0, 0.0, 0.0])), // another size: skipped
        ];
        let v = OwnerVectors::build(rows);
        let both: HashSet<&SourceId> = [&a, &b].into_iter().collect();
        assert_eq!(v.top_k(&[0.0, 1.0], &both, 2), vec![(3, 1.0), (2, 0.8)]);
        let only_a: HashSet<&SourceId> = [&a].into_iter().collect();
        assert_eq!(v.top_k(&[0.0, 1.0], &only_a, 5), vec![(2, 0.8), (1, 0.0)]);
        assert!(v.top_k(&[1.0, 0.0, 0.0], &both, 3).is_empty(), "query of another size");
    }

    /// A matrix large enough for the parallel scan (and rows of a size the SIMD loop leaves a
    /// remainder of) gives exactly the brute-force top k, filtered and ordered.
    #[test]
    fn the_parallel_scan_returns_the_exact_top_k() {
        let dims = 387;
        let n = PARALLEL_SCAN_FLOATS / dims + 500;
        let sources = [SourceId::generate(), SourceId::generate()];
        let mut seed = 0x9e37_79b9_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed % 2001) as f32 / 1000.0 - 1.0
        };
        let vectors: Vec<Vec<f32>> = (0..n).map(|_| (0..dims).map(|_| next()).collect()).collect();
        let rows =
            vectors.iter().enumerate().map(|(i, e)| (i as i64, sources[i % 2].to_string(), encode_vector(e))).collect();
        let v = OwnerVectors::build(rows);
        assert!(v.matrix.len() >= PARALLEL_SCAN_FLOATS);
        let query: Vec<f32> = (0..dims).map(|_| next()).collect();
        let only_first: HashSet<&SourceId> = [&sources[0]].into_iter().collect();
        let mut expected: Vec<(i64, f32)> =
            vectors.iter().enumerate().filter(|(i, _)| i % 2 == 0).map(|(i, e)| (i as i64, dot(e, &query))).collect();
        expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        expected.truncate(25);
        assert_eq!(v.top_k(&query, &only_first, 25), expected);
        let plain: f32 = vectors[0].iter().zip(&query).map(|(a, b)| a * b).sum();
        assert!((dot(&vectors[0], &query) - plain).abs() < 1e-3, "the SIMD sum is the dot product");
    }

    /// Unit vectors of `dims` dimensions: `base` plus `spread` times noise, normalised.
    fn unit_rows(n: usize, dims: usize, base: &[f32], spread: f32, seed: u32) -> Vec<Vec<f32>> {
        let mut seed = seed;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed % 2001) as f32 / 1000.0 - 1.0
        };
        (0..n)
            .map(|_| {
                let row: Vec<f32> = (0..dims).map(|j| base.get(j).copied().unwrap_or(0.0) + spread * next()).collect();
                let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
                row.into_iter().map(|x| x / norm).collect()
            })
            .collect()
    }

    fn brute_force(vectors: &[Vec<f32>], query: &[f32], keep: impl Fn(usize) -> bool, k: usize) -> Vec<(i64, f32)> {
        let mut all: Vec<(i64, f32)> =
            vectors.iter().enumerate().filter(|(i, _)| keep(*i)).map(|(i, e)| (i as i64, dot(e, query))).collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        all.truncate(k);
        all
    }

    /// Large matrices are searched through their 8-bit codes, and the answer is the exact
    /// scan's, filtered and ordered; the codes are a quarter of the floats' bytes.
    #[test]
    fn the_coded_search_returns_the_exact_top_k() {
        let dims = 387;
        let n = CODED_MIN_FLOATS / dims + 100;
        let sources = [SourceId::generate(), SourceId::generate()];
        let vectors = unit_rows(n, dims, &[], 1.0, 0x2545_f491);
        let rows = vectors
            .iter()
            .enumerate()
            .map(|(i, e)| (i as i64, sources[i % 3 % 2].to_string(), encode_vector(e)))
            .collect();
        let v = OwnerVectors::build(rows);
        let coded = v.coded.as_ref().expect("a matrix this large is coded");
        assert_eq!(coded.codes.len(), v.matrix.len());
        let only_first: HashSet<&SourceId> = [&sources[0]].into_iter().collect();
        let allowed_idx: Vec<bool> = v.sources.iter().map(|s| only_first.contains(s)).collect();
        for (q, query) in unit_rows(8, dims, &[], 1.0, 0x9e37_79b9).iter().enumerate() {
            // A query near a stored row, as real questions are near their answer.
            let query: Vec<f32> = query.iter().zip(&vectors[q * 3]).map(|(a, b)| 0.3 * a + b).collect();
            let expected = brute_force(&vectors, &query, |i| i % 3 % 2 == 0, 10);
            assert_eq!(v.top_k(&query, &only_first, 10), expected, "query {q}");
            assert_eq!(v.top_k_coded(coded, &query, &allowed_idx, 10), Some(expected), "answered from the codes");
        }
    }

    /// When rows score closer together than the codes can tell apart, the first pass cannot
    /// prove its candidates and the exact scan answers: still the exact top k.
    #[test]
    fn rows_the_codes_cannot_tell_apart_are_scanned_exactly() {
        let dims = 384;
        let n = CODED_MIN_FLOATS / dims + 100;
        let base: Vec<f32> = (0..dims).map(|j| if j % 2 == 0 { 1.0 } else { -1.0 }).collect();
        let vectors = unit_rows(n, dims, &base, 1e-4, 0x1234_5678);
        let source = SourceId::generate();
        let rows = vectors.iter().enumerate().map(|(i, e)| (i as i64, source.to_string(), encode_vector(e))).collect();
        let v = OwnerVectors::build(rows);
        let all: HashSet<&SourceId> = [&source].into_iter().collect();
        let query = unit_rows(1, dims, &base, 0.5, 7).remove(0);
        let allowed_idx = vec![true];
        assert_eq!(v.top_k_coded(v.coded.as_ref().unwrap(), &query, &allowed_idx, 10), None, "no proof from the codes");
        assert_eq!(v.top_k(&query, &all, 10), brute_force(&vectors, &query, |_| true, 10));
    }
}
