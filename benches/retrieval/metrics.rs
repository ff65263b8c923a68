//! Ranking metrics of the retrieval benchmark, and the fusions (reciprocal-rank, score) used by
//! its fusion sweep. Pure functions: the bench (`benches/retrieval/main.rs`) uses them as a
//! module, and the `retrieval_metrics` test target (`metrics_test.rs`) checks them against values
//! worked out by hand, so `cargo test` exercises them without running the benchmark.
//!
//! - **nDCG@k** (graded): DCG = Σ_{i=1..k} (2^rel_i − 1) / log2(i + 1) over the ranking, divided
//!   by the DCG of the ideal ranking (the judged passages sorted by grade). Grades are 2 (the
//!   answer) and 1 (related); unjudged passages count 0.
//! - **recall@k**: judged passages (any grade) in the first k, over all judged passages.
//! - **MRR@k**: 1 / rank of the first judged passage (any grade) in the first k, else 0.
//! - **percentile**: nearest-rank (the smallest value with at least p % of the values at or below).
//! - **paired sign-flip test**: how often randomly swapping the two systems' per-query scores gives
//!   a mean difference at least as large (in absolute value) as the observed one (two-sided p).

use std::collections::{HashMap, HashSet};

/// Relevance grades of one query: passage id → grade (1 or 2).
pub type Judgements = HashMap<String, u8>;

fn gain(grade: u8) -> f64 {
    f64::from((1u32 << grade) - 1)
}

fn discount(rank0: usize) -> f64 {
    ((rank0 + 2) as f64).log2()
}

/// `ranked` without repeated ids, first occurrence kept (a passage split into several chunks
/// counts once, at its best rank).
pub fn dedup<S: AsRef<str>>(ranked: &[S]) -> Vec<String> {
    let mut seen = HashSet::new();
    ranked.iter().map(|s| s.as_ref().to_owned()).filter(|s| seen.insert(s.clone())).collect()
}

/// Graded nDCG of the first `k` of `ranked` (ids, best first, no repeats).
pub fn ndcg_at<S: AsRef<str>>(ranked: &[S], judged: &Judgements, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, id)| gain(judged.get(id.as_ref()).copied().unwrap_or(0)) / discount(i))
        .sum();
    let mut ideal: Vec<u8> = judged.values().copied().collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal.iter().take(k).enumerate().map(|(i, g)| gain(*g) / discount(i)).sum();
    if idcg == 0.0 { 0.0 } else { dcg / idcg }
}

/// Share of the judged passages found in the first `k` of `ranked`.
pub fn recall_at<S: AsRef<str>>(ranked: &[S], judged: &Judgements, k: usize) -> f64 {
    if judged.is_empty() {
        return 0.0;
    }
    let found = ranked.iter().take(k).filter(|id| judged.contains_key(id.as_ref())).count();
    found as f64 / judged.len() as f64
}

/// 1 / rank of the first judged passage in the first `k` of `ranked`, 0 when there is none.
pub fn reciprocal_rank<S: AsRef<str>>(ranked: &[S], judged: &Judgements, k: usize) -> f64 {
    ranked.iter().take(k).position(|id| judged.contains_key(id.as_ref())).map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

/// Nearest-rank percentile `p` (0–100) of `values` (any order); 0 for no values.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() { 0.0 } else { values.iter().sum::<f64>() / values.len() as f64 }
}

/// Weighted reciprocal-rank fusion of rankings of chunk ids, each cut to its first `depth`:
/// score = Σ weight_r / (k + rank_r) with ranks from 1, best first, ties by id. With the primary
/// ranking weighing 1 and the secondary `lore_app::search::SECONDARY_WEIGHT`, k = `RRF_K` and
/// depth `FUSION_DEPTH` × topK this is what `lib/app/src/search.rs` computes for hybrid (same f32
/// arithmetic, same tie-break), so the sweep reproduces the server.
pub fn rrf(rankings: &[(&[String], f32)], k: f32, depth: usize) -> Vec<String> {
    let mut fused: HashMap<&str, f32> = HashMap::new();
    for (ranking, weight) in rankings {
        for (rank, id) in ranking.iter().take(depth).enumerate() {
            *fused.entry(id.as_str()).or_insert(0.0) += weight / (k + rank as f32 + 1.0);
        }
    }
    let mut out: Vec<(&str, f32)> = fused.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    out.into_iter().map(|(id, _)| id.to_owned()).collect()
}

/// Weighted sum of min-max normalised scores: each ranking's scores are mapped to 0..1 (its best
/// to 1, its worst to 0; all to 1 when they are equal), an id missing from a ranking gets 0 from
/// it. Best first, ties by id.
pub fn score_fusion(rankings: &[(&[(String, f32)], f32)]) -> Vec<String> {
    let mut fused: HashMap<&str, f32> = HashMap::new();
    for (ranking, weight) in rankings {
        let lo = ranking.iter().map(|r| r.1).fold(f32::INFINITY, f32::min);
        let hi = ranking.iter().map(|r| r.1).fold(f32::NEG_INFINITY, f32::max);
        for (id, score) in ranking.iter() {
            let norm = if hi > lo { (score - lo) / (hi - lo) } else { 1.0 };
            *fused.entry(id.as_str()).or_insert(0.0) += weight * norm;
        }
    }
    let mut out: Vec<(&str, f32)> = fused.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    out.into_iter().map(|(id, _)| id.to_owned()).collect()
}

/// Weighted sum of z-scores: each ranking's scores standardised (minus their mean, over their
/// population standard deviation; 0 when they are all equal), an id missing from a ranking gets
/// that ranking's lowest z-score. Best first, ties by id.
pub fn z_score_fusion(rankings: &[(&[(String, f32)], f32)]) -> Vec<String> {
    let mut normalised: Vec<(HashMap<&str, f64>, f64, f32)> = Vec::new();
    for (ranking, weight) in rankings {
        let n = ranking.len().max(1) as f64;
        let mean = ranking.iter().map(|r| f64::from(r.1)).sum::<f64>() / n;
        let sd = (ranking.iter().map(|r| (f64::from(r.1) - mean).powi(2)).sum::<f64>() / n).sqrt();
        let z = |x: f32| if sd > 0.0 { (f64::from(x) - mean) / sd } else { 0.0 };
        let by_id: HashMap<&str, f64> = ranking.iter().map(|(id, s)| (id.as_str(), z(*s))).collect();
        let lowest = by_id.values().copied().fold(f64::INFINITY, f64::min);
        normalised.push((by_id, if lowest.is_finite() { lowest } else { 0.0 }, *weight));
    }
    let ids: HashSet<&str> = normalised.iter().flat_map(|(m, _, _)| m.keys().copied()).collect();
    let mut out: Vec<(&str, f64)> = ids
        .into_iter()
        .map(|id| {
            let score = normalised.iter().map(|(m, low, w)| f64::from(*w) * m.get(id).copied().unwrap_or(*low)).sum();
            (id, score)
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    out.into_iter().map(|(id, _)| id.to_owned()).collect()
}

/// Two-sided paired sign-flip (randomisation) test of per-query scores `a` against `b` (same
/// queries, same order): the share of `samples` random sign assignments of the differences whose
/// mean is at least as far from 0 as the observed one, counting the observed assignment, so never
/// 0. Deterministic for a given `seed` (SplitMix64).
pub fn paired_sign_flip_p(a: &[f64], b: &[f64], samples: usize, seed: u64) -> f64 {
    let diffs: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let observed = diffs.iter().sum::<f64>().abs();
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut at_least = 1usize;
    for _ in 0..samples {
        let mut sum = 0.0;
        let mut bits = 0u64;
        for (i, d) in diffs.iter().enumerate() {
            if i % 64 == 0 {
                bits = next();
            }
            sum += if bits >> (i % 64) & 1 == 1 { *d } else { -*d };
        }
        // A small tolerance so that a flip giving the observed sum in another order of additions counts.
        if sum.abs() >= observed - 1e-12 {
            at_least += 1;
        }
    }
    at_least as f64 / (samples + 1) as f64
}
