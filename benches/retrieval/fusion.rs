//! The fusion analysis of the retrieval benchmark: the semantic and keyword rankings of every query
//! (topK 50, with scores) fused client-side under other settings than the server's, and the
//! server's settings checked on queries they were not chosen on.
//!
//! **Split.** The queries are split by their line number in `queries.jsonl`: the odd-numbered ones
//! (1st, 3rd, 5th, …) are the *tuning* half, the even-numbered ones the *held-out* half. Settings
//! are chosen on the tuning half only; the held-out half says how well the choice generalises.
//!
//! **Rule of choice** (`shared_grid`): weighted RRF as in `lib/app/src/search.rs` (the embedder's
//! primary ranking — semantic, or keyword for a `lexical_only` embedder — weighs 1, the other
//! `secondary`), one setting (k, depth, secondary) for every embedder, from the grid k ∈ `GRID_K`,
//! depth ∈ `GRID_DEPTH` × topK, secondary ∈ `GRID_SECONDARY`; the setting maximising, on the tuning
//! half, the smallest over the embedders of (hybrid nDCG@10 − the better single mode's nDCG@10),
//! i.e. the requirement "hybrid beats both modes with every embedder". Ties go to the first in grid
//! order (smaller k, then depth, then secondary).
//!
//! The rankings come either from the live run or from a `--dump` file of an earlier one
//! (`--from-dump`), so that the analysis can be rerun without indexing again.

use crate::metrics;
use crate::{Query, Scores, TOP_K};
use lore_app::search::{FUSION_DEPTH, PRIMARY_WEIGHT, PRIMARY_WEIGHT_LATE_INTERACTION, demote_repeated_sources};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

pub const GRID_K: [f32; 8] = [1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 60.0];
/// Depths, in multiples of topK.
pub const GRID_DEPTH: [usize; 3] = [1, 2, 4];
pub const GRID_SECONDARY: [f32; 9] = [0.05, 0.1, 0.15, 0.2, 0.25, 0.33, 0.5, 0.75, 1.0];
/// Random sign flips of the significance tests.
const FLIPS: usize = 20_000;

/// The rankings of one query: chunk ids with their scores (topK 50) and the server's hybrid answer.
pub struct Lists {
    /// The semantic mode's ranking (cosines).
    pub semantic: Vec<(String, f32)>,
    /// The semantic ranking hybrid search fuses: `semantic` rescored by late interaction when the
    /// embedder gives token states (as the server rescores it), else `semantic` itself.
    pub hybrid_semantic: Vec<(String, f32)>,
    pub keyword: Vec<(String, f32)>,
    /// The server's hybrid answer at topK 10, chunk ids.
    pub hybrid: Vec<String>,
    /// chunk id → passage id
    pub names: BTreeMap<String, String>,
}

/// One embedder's rankings, one `Lists` per query in the order of the queries.
pub struct Run {
    pub name: String,
    pub lexical_only: bool,
    /// Whether hybrid's semantic ranking is rescored by late interaction (the embedder gives
    /// token states).
    pub late_interaction: bool,
    pub lists: Vec<Lists>,
    /// Read from a `--dump` file: chunk ids are passage ids there, so exact ties of a fusion are
    /// broken by passage id, not by chunk id as on the server.
    pub from_dump: bool,
}

impl Run {
    /// Reads the lines of one embedder from a `--dump` file (passage ids stand for chunk ids: the
    /// corpus has one chunk per passage). Embedders in order of first appearance.
    pub fn from_dump(text: &str, queries: &[Query]) -> crate::Result<Vec<Run>> {
        let mut runs: Vec<(String, bool, bool, BTreeMap<String, Lists>)> = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line)?;
            let name = v["embedder"].as_str().ok_or("dump line without embedder")?.to_owned();
            // Dumps written before `lexicalOnly` existed: only `local` was lexical.
            let lexical = v["lexicalOnly"].as_bool().unwrap_or(name == "local");
            let pairs = |key: &str| -> Vec<(String, f32)> {
                v[key]
                    .as_array()
                    .map(|a| {
                        a.iter().filter_map(|p| Some((p[0].as_str()?.to_owned(), p[1].as_f64()? as f32))).collect()
                    })
                    .unwrap_or_default()
            };
            let (semantic, keyword) = (pairs("semantic"), pairs("keyword"));
            // Dumps written before late interaction: hybrid fused the semantic mode's ranking.
            let late = v["hybridSemantic"].is_array();
            let hybrid_semantic = if late { pairs("hybridSemantic") } else { semantic.clone() };
            let hybrid: Vec<String> = v["hybrid"]
                .as_array()
                .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
                .unwrap_or_default();
            let names = semantic
                .iter()
                .chain(&keyword)
                .map(|(id, _)| (id.clone(), id.clone()))
                .chain(hybrid.iter().map(|id| (id.clone(), id.clone())))
                .collect();
            let query = v["query"].as_str().ok_or("dump line without query")?.to_owned();
            let lists = Lists { semantic, hybrid_semantic, keyword, hybrid, names };
            match runs.iter_mut().find(|r| r.0 == name) {
                Some(r) => {
                    r.3.insert(query, lists);
                }
                None => runs.push((name, lexical, late, BTreeMap::from([(query, lists)]))),
            }
        }
        runs.into_iter()
            .map(|(name, lexical_only, late_interaction, mut by_query)| {
                let lists = queries
                    .iter()
                    .map(|q| by_query.remove(&q.id).ok_or_else(|| format!("dump: no {name} line for query {}", q.id)))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Run { name, lexical_only, late_interaction, lists, from_dump: true })
            })
            .collect()
    }
}

/// The weighted RRF served before the convex fusion (k 3, secondary weight 0.25), for comparison.
const RRF_BEFORE: (f32, f32) = (3.0, 0.25);
/// Primary weights of the convex fusion tried per corpus.
pub const GRID_ALPHA: [f32; 13] = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.92, 0.94, 0.95, 0.97, 0.99];

/// A way of ranking the chunks of one query from its `Lists`.
#[derive(Clone, Copy, Debug)]
pub enum Fusion {
    Semantic,
    /// Hybrid's semantic ranking alone (rescored by late interaction where the embedder allows).
    HybridSemantic,
    Keyword,
    /// What `lib/app/src/search.rs` computes: α · primary score + (1 − α) · the secondary
    /// ranking's best score · secondary score, both rankings cut to `depth`; the primary ranking is
    /// the keyword one for a `lexical_only` embedder.
    Convex {
        alpha: f32,
        depth: usize,
        lexical_only: bool,
    },
    /// `metrics::rrf` of the semantic and keyword rankings cut to `depth`.
    Rrf {
        k: f32,
        depth: usize,
        semantic_weight: f32,
        keyword_weight: f32,
    },
    /// `semantic_weight` · semantic + (1 − it) · keyword, both cut to the server's depth and
    /// normalised by min-max (`metrics::score_fusion`) or z-scores (`metrics::z_score_fusion`).
    Scores {
        semantic_weight: f32,
        z: bool,
    },
}

impl Fusion {
    /// The server's scheme: the embedder's primary ranking weighs 1, the other `secondary`.
    pub fn led(lexical_only: bool, k: f32, depth: usize, secondary: f32) -> Self {
        let (semantic_weight, keyword_weight) = if lexical_only { (secondary, 1.0) } else { (1.0, secondary) };
        Fusion::Rrf { k, depth, semantic_weight, keyword_weight }
    }

    /// What `lib/app/src/search.rs` computes for hybrid.
    pub fn served(run: &Run) -> Self {
        let alpha =
            if run.late_interaction && !run.lexical_only { PRIMARY_WEIGHT_LATE_INTERACTION } else { PRIMARY_WEIGHT };
        Fusion::Convex { alpha, depth: FUSION_DEPTH * TOP_K, lexical_only: run.lexical_only }
    }

    /// Chunk ids, best first.
    pub fn apply(&self, l: &Lists) -> Vec<String> {
        let ids = |v: &[(String, f32)]| v.iter().map(|(c, _)| c.clone()).collect::<Vec<_>>();
        let depth = FUSION_DEPTH * TOP_K;
        match *self {
            Fusion::Semantic => ids(&l.semantic),
            Fusion::HybridSemantic => ids(&l.hybrid_semantic),
            Fusion::Keyword => ids(&l.keyword),
            Fusion::Convex { alpha, depth, lexical_only } => {
                let sem = &l.hybrid_semantic[..l.hybrid_semantic.len().min(depth)];
                let kw = &l.keyword[..l.keyword.len().min(depth)];
                let (primary, secondary) = if lexical_only { (kw, sem) } else { (sem, kw) };
                // The server's arithmetic, in its order (f32), so that the top 10 match exactly.
                let best = secondary.iter().map(|(_, s)| *s).fold(0.0f32, f32::max);
                let mut fused: BTreeMap<&str, f32> = BTreeMap::new();
                for (ranking, w) in [(primary, alpha), (secondary, (1.0 - alpha) * best)] {
                    for (c, score) in ranking {
                        *fused.entry(c.as_str()).or_insert(0.0) += w * score.clamp(0.0, 1.0);
                    }
                }
                let mut out: Vec<(&str, f32)> = fused.into_iter().map(|(c, s)| (c, s.min(1.0))).collect();
                out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
                // Further chunks of a passage (one source each) give way, as on the server.
                demote_repeated_sources(&mut out, |(c, _)| l.names.get(*c).map_or(*c, String::as_str), |(_, s)| s);
                out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
                out.into_iter().map(|(c, _)| c.to_owned()).collect()
            }
            Fusion::Rrf { k, depth, semantic_weight, keyword_weight } => metrics::rrf(
                &[(&ids(&l.hybrid_semantic), semantic_weight), (&ids(&l.keyword), keyword_weight)],
                k,
                depth,
            ),
            Fusion::Scores { semantic_weight, z } => {
                let sem = &l.hybrid_semantic[..l.hybrid_semantic.len().min(depth)];
                let kw = &l.keyword[..l.keyword.len().min(depth)];
                let rankings = [(sem, semantic_weight), (kw, 1.0 - semantic_weight)];
                if z { metrics::z_score_fusion(&rankings) } else { metrics::score_fusion(&rankings) }
            }
        }
    }
}

/// Candidates per mode of the headroom figures: twice topK, as many as a reranker would be
/// given to reorder.
const HEADROOM_DEPTH: usize = 2 * TOP_K;

/// Per query, nDCG@10 of the first `depth` passages of each of `modes`, put in the best order
/// the labels allow: what a perfect reranker of those candidates would reach.
fn ideal_orders(run: &Run, queries: &[Query], modes: &[Fusion], depth: usize) -> Vec<f64> {
    queries
        .iter()
        .zip(&run.lists)
        .map(|(q, l)| {
            let mut candidates: Vec<String> =
                modes.iter().flat_map(|m| passages(*m, l).into_iter().take(depth)).collect();
            candidates = metrics::dedup(&candidates);
            candidates.sort_by_key(|p| std::cmp::Reverse(q.judged.get(p).copied().unwrap_or(0)));
            metrics::ndcg_at(&candidates, &q.judged, TOP_K)
        })
        .collect()
}

/// The passages `fusion` ranks for one query, best first, each once (at its best chunk).
fn passages(fusion: Fusion, l: &Lists) -> Vec<String> {
    metrics::dedup(&fusion.apply(l).iter().filter_map(|c| l.names.get(c).cloned()).collect::<Vec<_>>())
}

/// Per-query scores of `fusion` on every query of `run`.
fn evaluate(run: &Run, queries: &[Query], fusion: Fusion) -> Scores {
    let mut scores = Scores::default();
    for (q, l) in queries.iter().zip(&run.lists) {
        scores.add(&passages(fusion, l), &q.judged);
    }
    scores
}

/// Mean of the tuning (`half` 0: queries 1, 3, 5, …) or held-out (`half` 1: 2, 4, 6, …) queries.
fn half(values: &[f64], half: usize) -> f64 {
    metrics::mean(&values.iter().skip(half).step_by(2).copied().collect::<Vec<_>>())
}

fn tuning(values: &[f64]) -> f64 {
    half(values, 0)
}

fn held_out(values: &[f64]) -> f64 {
    half(values, 1)
}

fn odd_half(values: &[f64], h: usize) -> Vec<f64> {
    values.iter().skip(h).step_by(2).copied().collect()
}

/// The grid of the server's scheme: (k, depth, secondary).
fn grid() -> Vec<(f32, usize, f32)> {
    let mut out = Vec::new();
    for k in GRID_K {
        for d in GRID_DEPTH {
            for w in GRID_SECONDARY {
                out.push((k, d * TOP_K, w));
            }
        }
    }
    out
}

fn setting(k: f32, depth: usize, w: f32) -> String {
    format!("k={k}, depth {depth}, secondary weight {w}")
}

/// One row of the report: a label, and per run a note (its setting when it differs per run) and
/// its per-query scores.
struct Row {
    label: String,
    cells: Vec<(Option<String>, Scores)>,
}

/// The fusion section of the report (Markdown).
pub fn report(runs: &[&Run], queries: &[Query]) -> String {
    let mut s = String::new();
    if runs.is_empty() {
        return s;
    }
    let n = queries.len();
    let single = |run: &Run| (evaluate(run, queries, Fusion::Semantic), evaluate(run, queries, Fusion::Keyword));
    let singles: Vec<(Scores, Scores)> = runs.iter().map(|r| single(r)).collect();
    // The better single mode's nDCG@10 on the tuning half, per run.
    let best_single_tuning: Vec<f64> = singles.iter().map(|(se, kw)| tuning(&se.ndcg).max(tuning(&kw.ndcg))).collect();

    // The grid of the server's scheme, evaluated once per run.
    let grid = grid();
    let evaluated: Vec<Vec<Scores>> = runs
        .iter()
        .map(|r| grid.iter().map(|&(k, d, w)| evaluate(r, queries, Fusion::led(r.lexical_only, k, d, w))).collect())
        .collect();
    // Shared rule: maximise the smallest tuning-half gain over the better single mode.
    let gain = |gi: usize| -> f64 {
        (0..runs.len()).map(|ri| tuning(&evaluated[ri][gi].ndcg) - best_single_tuning[ri]).fold(f64::INFINITY, f64::min)
    };
    let mut order: Vec<usize> = (0..grid.len()).collect();
    order.sort_by(|&a, &b| gain(b).total_cmp(&gain(a)).then(a.cmp(&b)));
    let pick = order[0];
    // Per run, each on its own: the best tuning-half nDCG@10.
    let own_pick: Vec<usize> = (0..runs.len())
        .map(|ri| {
            (0..grid.len())
                .max_by(|&a, &b| {
                    tuning(&evaluated[ri][a].ndcg).total_cmp(&tuning(&evaluated[ri][b].ndcg)).then(b.cmp(&a))
                })
                .unwrap_or(0)
        })
        .collect();
    let alphas: Vec<f32> = (0..=20).map(|i| i as f32 / 20.0).collect();
    let best_alpha = |run: &Run, z: bool| -> (f32, Scores) {
        alphas
            .iter()
            .map(|&a| (a, evaluate(run, queries, Fusion::Scores { semantic_weight: a, z })))
            .fold(None::<(f32, Scores)>, |best, (a, sc)| match best {
                Some(b) if tuning(&b.1.ndcg) >= tuning(&sc.ndcg) => Some(b),
                _ => Some((a, sc)),
            })
            .expect("alphas")
    };

    let served: Vec<Scores> = runs.iter().map(|r| evaluate(r, queries, Fusion::served(r))).collect();
    // The convex fusion's α tuned on this corpus's tuning half, per embedder (the served α was
    // chosen on the tuning halves of both corpora).
    let convex = |alpha: f32, lexical_only: bool| Fusion::Convex { alpha, depth: FUSION_DEPTH * TOP_K, lexical_only };
    let own_alpha: Vec<(f32, Scores)> = runs
        .iter()
        .map(|r| {
            GRID_ALPHA
                .iter()
                .map(|&a| (a, evaluate(r, queries, convex(a, r.lexical_only))))
                .fold(None::<(f32, Scores)>, |best, (a, sc)| match best {
                    Some(b) if tuning(&b.1.ndcg) >= tuning(&sc.ndcg) => Some(b),
                    _ => Some((a, sc)),
                })
                .expect("alphas")
        })
        .collect();
    let (pk, pd, pw) = grid[pick];
    let (before_k, before_w) = RRF_BEFORE;
    let mut rows = vec![
        Row { label: "keyword alone".into(), cells: singles.iter().map(|x| (None, x.1.clone())).collect() },
        Row { label: "semantic alone".into(), cells: singles.iter().map(|x| (None, x.0.clone())).collect() },
        Row {
            label:
                "hybrid's semantic ranking alone (rescored by late interaction where the embedder gives token states)"
                    .into(),
            cells: runs.iter().map(|r| (None, evaluate(r, queries, Fusion::HybridSemantic))).collect(),
        },
        Row {
            label: format!(
                "**hybrid as served**: α · primary + (1 − α) · best secondary · secondary, α = {PRIMARY_WEIGHT} \
                 ({PRIMARY_WEIGHT_LATE_INTERACTION} over late interaction's scores), depth {}",
                FUSION_DEPTH * TOP_K
            ),
            cells: served.iter().map(|x| (None, x.clone())).collect(),
        },
        Row {
            label: format!("the same fusion, α tuned per embedder on this corpus's tuning half (from {GRID_ALPHA:?})"),
            cells: own_alpha.iter().map(|(a, sc)| (Some(format!("α={a}")), sc.clone())).collect(),
        },
        Row {
            label: "the served fusion, semantic always primary (no `lexical_only` hint)".into(),
            cells: runs.iter().map(|r| (None, evaluate(r, queries, convex(PRIMARY_WEIGHT, false)))).collect(),
        },
        Row {
            label: format!(
                "weighted RRF served before: primary 1, secondary {before_w}, k={before_k}, depth {}",
                FUSION_DEPTH * TOP_K
            ),
            cells: runs
                .iter()
                .map(|r| {
                    (None, evaluate(r, queries, Fusion::led(r.lexical_only, before_k, FUSION_DEPTH * TOP_K, before_w)))
                })
                .collect(),
        },
        Row {
            label: format!("weighted RRF, the grid rule's pick on this run's tuning half: {}", setting(pk, pd, pw)),
            cells: evaluated.iter().map(|e| (None, e[pick].clone())).collect(),
        },
        Row {
            label: "weighted RRF tuned per embedder on the tuning half".into(),
            cells: own_pick
                .iter()
                .enumerate()
                .map(|(ri, &gi)| {
                    let (k, d, w) = grid[gi];
                    (Some(setting(k, d, w)), evaluated[ri][gi].clone())
                })
                .collect(),
        },
        Row {
            label: "plain RRF, k=60, equal weights, depth 40".into(),
            cells: runs
                .iter()
                .map(|r| {
                    let f = Fusion::Rrf { k: 60.0, depth: 40, semantic_weight: 1.0, keyword_weight: 1.0 };
                    (None, evaluate(r, queries, f))
                })
                .collect(),
        },
    ];
    for (z, name) in [(false, "min-max"), (true, "z-score")] {
        rows.push(Row {
            label: format!(
                "scores, {name} normalised: α · semantic + (1 − α) · keyword, depth {}, α tuned per embedder on the tuning half",
                FUSION_DEPTH * TOP_K
            ),
            cells: runs
                .iter()
                .map(|r| {
                    let (a, sc) = best_alpha(r, z);
                    (Some(format!("α={a}")), sc)
                })
                .collect(),
        });
    }

    let _ = writeln!(
        s,
        "\n#### Fusion: tuning and held-out queries\n\nThe semantic and keyword rankings of every query \
         fetched again at topK 50 and fused client-side (`benches/retrieval/fusion.rs`). **Tuning half**: the \
         odd-numbered queries of `queries.jsonl` (1st, 3rd, …; {}), **held-out half**: the even-numbered ones ({}). \
         Settings are chosen on the tuning half only. nDCG@10; a note in a cell is that embedder's own setting.\n",
        n.div_ceil(2),
        n / 2
    );
    let _ = writeln!(
        s,
        "| fusion | {} |",
        runs.iter().map(|r| format!("{0} tuning | {0} held-out | {0} all", r.name)).collect::<Vec<_>>().join(" | ")
    );
    let _ = writeln!(s, "|---|{}", "---:|---:|---:|".repeat(runs.len()));
    for row in &rows {
        let cells: Vec<String> = row
            .cells
            .iter()
            .map(|(note, sc)| {
                let note = note.as_ref().map(|x| format!(" ({x})")).unwrap_or_default();
                format!("{:.3}{note} | {:.3} | {:.3}", tuning(&sc.ndcg), held_out(&sc.ndcg), metrics::mean(&sc.ndcg))
            })
            .collect();
        let _ = writeln!(s, "| {} | {} |", row.label, cells.join(" | "));
    }

    let _ = writeln!(
        s,
        "\nHybrid as served against the better single mode, per half (nDCG@10, paired sign-flip test over the half's queries, {FLIPS} flips):\n"
    );
    for (ri, r) in runs.iter().enumerate() {
        let (se, kw) = &singles[ri];
        let mut parts = Vec::new();
        for (h, name) in [(0, "tuning"), (1, "held-out")] {
            let (best, best_name) =
                if half(&se.ndcg, h) >= half(&kw.ndcg, h) { (se, "semantic") } else { (kw, "keyword") };
            let (a, b) = (odd_half(&served[ri].ndcg, h), odd_half(&best.ndcg, h));
            let better = a.iter().zip(&b).filter(|(x, y)| x > y).count();
            let worse = a.iter().zip(&b).filter(|(x, y)| x < y).count();
            let p = metrics::paired_sign_flip_p(&a, &b, FLIPS, 42);
            parts.push(format!(
                "{name}: {:.3} vs {best_name} {:.3} ({:+.3}; better on {better}, worse on {worse} queries, p = {p:.2})",
                metrics::mean(&a),
                metrics::mean(&b),
                metrics::mean(&a) - metrics::mean(&b)
            ));
        }
        let _ = writeln!(
            s,
            "- `{}`{}: {}",
            r.name,
            if r.lexical_only { " (lexical only: keyword leads)" } else { " (semantic leads)" },
            parts.join("; ")
        );
    }

    let _ = writeln!(
        s,
        "\nFor comparison, weighted RRF (the embedder's primary ranking weighing 1) over a grid of {} settings (k {:?}, \
         depth {:?} × topK, secondary weight {:?}); the rule picks the one maximising the smallest tuning-half gain \
         over the better single mode across the embedders. Its best five on this run:\n",
        grid.len(),
        GRID_K,
        GRID_DEPTH,
        GRID_SECONDARY
    );
    for &gi in order.iter().take(5) {
        let (k, d, w) = grid[gi];
        let per: Vec<String> = runs
            .iter()
            .enumerate()
            .map(|(ri, r)| {
                let e = &evaluated[ri][gi].ndcg;
                format!("{} {:.3} / {:.3}", r.name, tuning(e), held_out(e))
            })
            .collect();
        let _ = writeln!(
            s,
            "- {}: smallest tuning gain {:+.3}; tuning / held-out: {}",
            setting(k, d, w),
            gain(gi),
            per.join(", ")
        );
    }
    let optimistic: Vec<String> = runs
        .iter()
        .enumerate()
        .map(|(ri, r)| {
            let gi = (0..grid.len())
                .max_by(|&a, &b| {
                    metrics::mean(&evaluated[ri][a].ndcg).total_cmp(&metrics::mean(&evaluated[ri][b].ndcg))
                })
                .unwrap_or(0);
            let (k, d, w) = grid[gi];
            format!("`{}` {} → {:.3}", r.name, setting(k, d, w), metrics::mean(&evaluated[ri][gi].ndcg))
        })
        .collect();
    let _ = writeln!(
        s,
        "\nFor reference only (chosen on all queries, so optimistic): the best of the same grid per embedder on all \
         {n} queries: {}.",
        optimistic.join("; ")
    );
    let headroom: Vec<String> = runs
        .iter()
        .zip(&singles)
        .map(|(r, (se, kw))| {
            let better = metrics::mean(&se.ndcg.iter().zip(&kw.ndcg).map(|(a, b)| a.max(*b)).collect::<Vec<_>>());
            let ordered = |modes: &[Fusion]| metrics::mean(&ideal_orders(r, queries, modes, HEADROOM_DEPTH));
            format!(
                "`{}`: semantic alone {:.3}, keyword alone {:.3}; the better of the two for each query {:.3}; \
                 semantic's top {HEADROOM_DEPTH} passages in the best order {:.3}, keyword's {:.3}, both together {:.3}",
                r.name,
                metrics::mean(&se.ndcg),
                metrics::mean(&kw.ndcg),
                better,
                ordered(&[Fusion::Semantic]),
                ordered(&[Fusion::Keyword]),
                ordered(&[Fusion::Semantic, Fusion::Keyword]),
            )
        })
        .collect();
    let _ = writeln!(
        s,
        "\nHeadroom (nDCG@10 on all {n} queries, computed with the labels: bounds, not results): {}. Choosing \
         one mode per query can give no more than the better-of-the-two figure (a fusion that mixes the two lists can \
         pass it only where both modes find different relevant passages); reordering the candidates, as a reranker \
         would, can give up to the best-order figures.",
        headroom.join("; ")
    );
    let checks: Vec<String> = runs
        .iter()
        .map(|r| {
            let same =
                r.lists.iter().filter(|l| Fusion::served(r).apply(l).iter().take(TOP_K).eq(l.hybrid.iter())).count();
            format!("`{}` {same}/{n}", r.name)
        })
        .collect();
    let _ = writeln!(
        s,
        "\nCheck: the client-side \"hybrid as served\" gives exactly the server's hybrid top 10 on {} queries{}.",
        checks.join(", "),
        if runs.iter().any(|r| r.from_dump) {
            " (rankings read from a dump: exact ties are broken by passage id instead of chunk id)"
        } else {
            ""
        }
    );
    s
}
