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
/// score = Σ weight_r / (k + rank_r) with ranks from 1, best first, ties by id. With weights 1,
/// k = 60 and depth 4 × topK this is what `lib/app/src/search.rs` computes for hybrid (same f32
/// arithmetic, same order of additions, same tie-break), so the sweep reproduces the server.
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
