//! Tests of the retrieval benchmark's metrics (`metrics.rs`) against values worked out by hand:
//! the `retrieval_metrics` test target, so that `cargo test` checks the metric code without
//! running the benchmark.

#[path = "metrics.rs"]
mod metrics;

use metrics::*;

fn judged(pairs: &[(&str, u8)]) -> Judgements {
    pairs.iter().map(|(id, g)| ((*id).to_owned(), *g)).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn ndcg_matches_hand_computed_values() {
    let j = judged(&[("a", 2), ("c", 1)]);
    // DCG = 3/log2(2) + 0 + 1/log2(4) = 3.5; ideal = 3 + 1/log2(3).
    let expected = 3.5 / (3.0 + 1.0 / 3f64.log2());
    assert!(close(ndcg_at(&["a", "b", "c"], &j, 10), expected));
    assert!(close(ndcg_at(&["a", "c"], &j, 10), 1.0), "the ideal ranking");
    assert!(close(ndcg_at(&["c", "a"], &j, 10), (1.0 + 3.0 / 3f64.log2()) / (3.0 + 1.0 / 3f64.log2())));
    assert!(close(ndcg_at(&["x", "y"], &j, 10), 0.0));
    assert!(close(ndcg_at(&["b", "a"], &j, 1), 0.0), "cut at k");
    assert!(close(ndcg_at::<&str>(&[], &j, 10), 0.0));
    assert!(close(ndcg_at(&["a"], &Judgements::new(), 10), 0.0), "no judgements");
}

#[test]
fn recall_and_reciprocal_rank() {
    let j = judged(&[("a", 2), ("c", 1)]);
    assert!(close(recall_at(&["x", "c", "y"], &j, 10), 0.5));
    assert!(close(recall_at(&["c", "a"], &j, 10), 1.0));
    assert!(close(recall_at(&["x", "c", "a"], &j, 2), 0.5), "cut at k");
    assert!(close(recall_at(&["a"], &Judgements::new(), 10), 0.0));
    assert!(close(reciprocal_rank(&["x", "c", "a"], &j, 10), 0.5), "any grade counts");
    assert!(close(reciprocal_rank(&["x", "y", "a"], &j, 2), 0.0));
    assert!(close(reciprocal_rank(&["a"], &j, 10), 1.0));
}

#[test]
fn dedup_keeps_the_first_occurrence() {
    assert_eq!(dedup(&["a", "b", "a", "c", "b"]), ["a", "b", "c"]);
}

#[test]
fn percentiles_are_nearest_rank() {
    let v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
    assert!(close(percentile(&v, 50.0), 50.0));
    assert!(close(percentile(&v, 95.0), 95.0));
    assert!(close(percentile(&v, 100.0), 100.0));
    assert!(close(percentile(&[7.0], 95.0), 7.0));
    assert!(close(percentile(&[], 50.0), 0.0));
    assert!(close(mean(&[1.0, 2.0, 6.0]), 3.0));
    assert!(close(mean(&[]), 0.0));
}

#[test]
fn rrf_rewards_agreement_weights_and_depth() {
    let ids = |xs: &[&str]| xs.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let (a, b) = (ids(&["a", "b", "c"]), ids(&["b", "d"]));
    assert_eq!(rrf(&[(&a, 1.0), (&b, 1.0)], 60.0, 40), ["b", "a", "d", "c"]);
    // A heavy second ranking puts its own first result ahead of the first ranking's.
    assert_eq!(rrf(&[(&a, 1.0), (&b, 3.0)], 60.0, 40)[..2], ["b", "d"]);
    // Depth 1: only each ranking's first counts; the tie of a and b is broken by id.
    assert_eq!(rrf(&[(&a, 1.0), (&b, 1.0)], 60.0, 1), ["a", "b"]);
    // Equal scores: by id.
    assert_eq!(rrf(&[(&ids(&["z"]), 1.0), (&ids(&["y"]), 1.0)], 60.0, 10), ["y", "z"]);
}

#[test]
fn score_fusion_normalises_each_ranking() {
    let r = |xs: &[(&str, f32)]| xs.iter().map(|(id, s)| ((*id).to_owned(), *s)).collect::<Vec<_>>();
    let sem = r(&[("a", 0.9), ("b", 0.5), ("c", 0.1)]);
    let kw = r(&[("c", 8.0), ("b", 6.0)]);
    // a: 0.5·1 = 0.5; b: 0.5·0.5 + 0.5·0 = 0.25; c: 0.5·0 + 0.5·1 = 0.5 → a, c tie (by id), then b.
    assert_eq!(score_fusion(&[(&sem, 0.5), (&kw, 0.5)]), ["a", "c", "b"]);
    // Mostly semantic: c's keyword win is not enough.
    assert_eq!(score_fusion(&[(&sem, 0.8), (&kw, 0.2)]), ["a", "b", "c"]);
    // One result (or equal scores) counts fully.
    assert_eq!(score_fusion(&[(&r(&[("z", 0.3)]), 1.0)]), ["z"]);
}

#[test]
fn z_score_fusion_standardises_each_ranking() {
    let r = |xs: &[(&str, f32)]| xs.iter().map(|(id, s)| ((*id).to_owned(), *s)).collect::<Vec<_>>();
    // Semantic z: a = 1.5/sqrt(1.5) = 1.2247, b = 0, c = -1.2247; keyword z: c = 1, b = -1, so a
    // (missing) gets -1. Equal weights: a 0.2247, b -1, c -0.2247.
    let sem = r(&[("a", 0.9), ("b", 0.6), ("c", 0.3)]);
    let kw = r(&[("c", 8.0), ("b", 6.0)]);
    assert_eq!(z_score_fusion(&[(&sem, 1.0), (&kw, 1.0)]), ["a", "c", "b"]);
    // Mostly keyword: c first.
    assert_eq!(z_score_fusion(&[(&sem, 0.2), (&kw, 0.8)])[0], "c");
    // Equal scores standardise to 0: ties by id.
    assert_eq!(z_score_fusion(&[(&r(&[("z", 0.3), ("y", 0.3)]), 1.0)]), ["y", "z"]);
}

#[test]
fn paired_sign_flip_test() {
    let same = [0.5, 0.2, 0.9];
    assert!(close(paired_sign_flip_p(&same, &same, 1000, 7), 1.0), "no difference: every flip is as large");
    // 30 queries all better by 0.1: only the all-positive and all-negative flips are as large.
    let (a, b) = (vec![0.6; 30], vec![0.5; 30]);
    let p = paired_sign_flip_p(&a, &b, 10_000, 7);
    assert!(p < 0.001, "{p}");
    // One query better, one worse by as much: the observed mean difference is 0, every flip is as large.
    let p = paired_sign_flip_p(&[0.6, 0.4], &[0.5, 0.5], 10_000, 7);
    assert!(close(p, 1.0), "{p}");
    assert_eq!(paired_sign_flip_p(&a, &b, 500, 1), paired_sign_flip_p(&a, &b, 500, 1), "deterministic");
}
