#!/usr/bin/env python3
"""A plain BM25 anchor for the retrieval benchmark's corpora: what a textbook keyword ranker gets.

Needs the PyPI package rank_bm25, pinned, in its own venv (nothing else):

    python3 -m venv ~/.cache/lore/bm25-venv
    ~/.cache/lore/bm25-venv/bin/pip install rank_bm25==0.2.2
    ~/.cache/lore/bm25-venv/bin/python scripts/bm25-anchor.py \\
        --corpus benches/retrieval/cargo-book/corpus.jsonl \\
        --queries benches/retrieval/cargo-book/queries.jsonl \\
        --out "$HOME/.cache/lore/bm25-cargo-book.json"

(rank_bm25 0.2.2 pulls in numpy, which pip installs with it.)

- one document per passage: its `title` and its `text` (a space between them);
- tokens: `re.findall(r"\\w+", text.lower())`, the same for queries and documents; no stemming,
  no stop words;
- ranker: `rank_bm25.BM25Okapi(k1=1.5, b=0.75)` (its default epsilon 0.25 for the idf floor);
- ranking: the 10 best scores, ties broken by corpus order (a stable sort), so the output is
  deterministic;
- metrics as in benches/retrieval/metrics.rs: nDCG@10 with gain 2^grade − 1 and discount
  log2(rank + 1) over the ideal ordering of the labelled grades; recall@10 = labelled passages in
  the top 10 / labelled passages; MRR@10 = 1 / rank of the first labelled passage (any grade) in
  the top 10, else 0; means over the queries.

Output (JSON): {"ndcg10", "recall10", "mrr10", "queries", "passages",
"perQuery": {queryId: {"ndcg10", "recall10", "mrr10", "top10": [ids]}}, "version": {"rank_bm25", "python"}}.
"""

import argparse
import json
import math
import re
import sys
from importlib.metadata import version

from rank_bm25 import BM25Okapi

K = 10


def tokens(text: str):
    return re.findall(r"\w+", text.lower())


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def gain(grade: int) -> float:
    return float(2**grade - 1)


def ndcg_at(ranked, judged, k=K):
    dcg = sum(gain(judged.get(pid, 0)) / math.log2(i + 2) for i, pid in enumerate(ranked[:k]))
    ideal = sorted(judged.values(), reverse=True)[:k]
    idcg = sum(gain(g) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranked, judged, k=K):
    if not judged:
        return 0.0
    return sum(1 for pid in ranked[:k] if pid in judged) / len(judged)


def reciprocal_rank(ranked, judged, k=K):
    for i, pid in enumerate(ranked[:k]):
        if pid in judged:
            return 1.0 / (i + 1)
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    corpus = read_jsonl(args.corpus)
    queries = read_jsonl(args.queries)
    ids = [p["id"] for p in corpus]
    bm25 = BM25Okapi([tokens(f"{p.get('title', '')} {p['text']}") for p in corpus], k1=1.5, b=0.75)

    per_query, sums = {}, {"ndcg10": 0.0, "recall10": 0.0, "mrr10": 0.0}
    for q in queries:
        scores = bm25.get_scores(tokens(q["query"]))
        order = sorted(range(len(ids)), key=lambda i: -scores[i])  # stable: ties in corpus order
        top = [ids[i] for i in order[:K]]
        judged = {pid: int(g) for pid, g in q["relevant"].items()}
        m = {"ndcg10": ndcg_at(top, judged), "recall10": recall_at(top, judged), "mrr10": reciprocal_rank(top, judged)}
        for key in sums:
            sums[key] += m[key]
        per_query[q["id"]] = {**{k: round(v, 4) for k, v in m.items()}, "top10": top}

    n = max(len(queries), 1)
    out = {
        **{k: round(v / n, 4) for k, v in sums.items()},
        "queries": len(queries),
        "passages": len(corpus),
        "perQuery": per_query,
        "version": {"rank_bm25": version("rank_bm25"), "python": sys.version.split()[0]},
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(
        f"bm25-anchor: {args.queries}: nDCG@10 {out['ndcg10']:.3f}, recall@10 {out['recall10']:.3f}, "
        f"MRR@10 {out['mrr10']:.3f} ({len(queries)} queries, {len(corpus)} passages) -> {args.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
