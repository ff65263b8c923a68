"""The fusion weight α chosen once for both corpora (docs/benchmarks.md, "Fusion"), from the
rankings `scripts/bench-retrieval.sh` keeps of each corpus (`--dump`).

Rule: among ALPHAS, the α with the best mean gain of hybrid over the better single mode
(semantic or keyword search as served) on the tuning halves (odd-numbered questions) of the two
corpora, among those that lose at most 0.01 on either tuning half. The hybrid is recomputed as
`lib/app/src/search.rs` fuses: α · hybrid's semantic score (rescored by late interaction with
all-MiniLM-L6-v2) + (1 − α) · best keyword score · keyword score, both rankings cut at depth 40.
The dumps name passages, not chunks, so each list keeps a passage at its best chunk before
fusing; the figures can differ from the server's exact ones (in the fusion analyses of the
results blocks) in the third decimal.

    python3 benches/retrieval/choose_alpha.py CPYTHON_DUMP CARGO_BOOK_DUMP
"""

import json
import math
import sys

ALPHAS = [0.7, 0.8, 0.85, 0.88, 0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99]
DEPTH = 40
EMBEDDER = "minilm"


def ndcg(ranked, relevant, k=10):
    seen = list(dict.fromkeys(ranked))
    dcg = sum((2 ** relevant.get(p, 0) - 1) / math.log2(i + 2) for i, p in enumerate(seen[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def best_per_passage(ranking):
    best = {}
    for passage, score in ranking:
        if passage not in best or score > best[passage]:
            best[passage] = score
    return list(best.items())


def fuse(q, alpha):
    semantic = best_per_passage(q.get("hybridSemantic", q["semantic"])[:DEPTH])
    keyword = best_per_passage(q["keyword"][:DEPTH])
    top = max((s for _, s in keyword), default=0.0)
    fused = {}
    for ranking, weight in [(semantic, alpha), (keyword, (1 - alpha) * top)]:
        for passage, score in ranking:
            fused[passage] = fused.get(passage, 0.0) + weight * min(max(score, 0.0), 1.0)
    return [p for p, _ in sorted(fused.items(), key=lambda x: (-x[1], x[0]))]


def halves(values):
    return sum(values[0::2]) / len(values[0::2]), sum(values[1::2]) / len(values[1::2])


def main():
    corpora = {}
    for path in sys.argv[1:]:
        lines = [json.loads(line) for line in open(path) if line.strip()]
        corpora[path] = [q for q in lines if q["embedder"] == EMBEDDER]
    rows, best = [], None
    for alpha in ALPHAS:
        gains = []
        for queries in corpora.values():
            mode = lambda key: halves([ndcg([p for p, _ in q[key]], q["relevant"]) for q in queries])
            single = [max(a, b) for a, b in zip(mode("semantic"), mode("keyword"))]
            hybrid = halves([ndcg(fuse(q, alpha), q["relevant"]) for q in queries])
            gains.append((hybrid[0] - single[0], hybrid[1] - single[1]))
        mean = sum(t for t, _ in gains) / len(gains)
        eligible = all(t >= -0.01 for t, _ in gains)
        rows.append((alpha, gains, mean, eligible))
        if eligible and (best is None or mean > best[1]):
            best = (alpha, mean)
    names = " | ".join(f"corpus {i + 1} tuning | corpus {i + 1} held-out" for i in range(len(corpora)))
    print(f"| α | {names} | mean tuning gain |")
    print("|---:|" + "---:|" * (2 * len(corpora) + 1))
    for alpha, gains, mean, eligible in rows:
        cells = " | ".join(f"{t:+.3f} | {h:+.3f}" for t, h in gains)
        mark = "**" if best and alpha == best[0] else ""
        print(f"| {mark}{alpha}{mark} | {cells} | {mean:+.3f}{'' if eligible else ' (loses > 0.01)'} |")
    print(f"\nchosen: α = {best[0] if best else 'none'} (corpora: {', '.join(corpora)})")


if __name__ == "__main__":
    main()
