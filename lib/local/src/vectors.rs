//! Exact semantic search for the embedded backend: each owner's (chatbot's or Mind's) embeddings are loaded once into
//! one contiguous matrix and scanned with dot products (vectors are unit length, so the dot
//! product is the cosine). Any chunk write drops the cached matrices; the next search reloads.

use lore_domain::id::SourceId;
use lore_domain::source::SourceOwner;
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
        v
    }

    /// The `k` rows most similar to `query` among `allowed` sources: `(rowid, score)` best first.
    /// Large matrices are scanned on several threads (the scan is bound by memory bandwidth, and
    /// one core does not saturate it), each keeping its own best `k`.
    pub fn top_k(&self, query: &[f32], allowed: &HashSet<&SourceId>, k: usize) -> Vec<(i64, f32)> {
        if query.len() != self.dims || k == 0 {
            return Vec::new();
        }
        let allowed_idx: Vec<bool> = self.sources.iter().map(|s| allowed.contains(s)).collect();
        let rows = self.rowids.len();
        let threads = if self.matrix.len() >= PARALLEL_SCAN_FLOATS {
            std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_SCAN_THREADS)
        } else {
            1
        };
        let per = rows.div_ceil(threads).max(1);
        let scan = |from: usize| self.scan(query, &allowed_idx, k, from, (from + per).min(rows));
        let mut best: Vec<Scored> = if threads == 1 {
            scan(0).into_vec()
        } else {
            std::thread::scope(|s| {
                let parts: Vec<_> = (0..rows).step_by(per).map(|from| s.spawn(move || scan(from))).collect();
                parts.into_iter().flat_map(|h| h.join().map(BinaryHeap::into_vec).unwrap_or_default()).collect()
            })
        };
        best.sort();
        best.truncate(k);
        best.into_iter().map(|s| (s.1, s.0)).collect()
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

/// Matrices of at least this many floats (~10k rows of 384 dimensions) are scanned in parallel.
const PARALLEL_SCAN_FLOATS: usize = 4 * 1024 * 1024;
const MAX_SCAN_THREADS: usize = 4;

/// Dot product with eight independent accumulators, which the compiler turns into SIMD (a plain
/// iterator sum must add in order and stays scalar): about 4× faster on the benchmark's rows.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (mut xs, mut ys) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut xs).zip(&mut ys) {
        for ((sum, x), y) in acc.iter_mut().zip(x).zip(y) {
            *sum += x * y;
        }
    }
    let tail: f32 = xs.remainder().iter().zip(ys.remainder()).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

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
}
