"""Late interaction with all-MiniLM-L6-v2's own token states: does it rank better than its
sentence vectors? The experiment behind search's late-interaction rescoring, reproduced by
`bash scripts/bench-late-interaction.sh`, which writes the block of docs/benchmarks.md.

For each corpus of benches/retrieval, from the files of `lib/embed/examples/token_states.rs`
(the passages chunked as `lore serve` chunks them for MiniLM; every chunk's sentence vector and
the unit-length final hidden state of each of its tokens):

- *semantic*: chunks by cosine of sentence vectors, a passage at its best chunk (what the
  server's semantic mode ranks, exhaustively);
- *rescored*: the semantic top CANDIDATES chunks, each scored (1 - w) * cosine + w * MaxSim, where
  MaxSim is ColBERT's late-interaction score (Khattab & Zaharia, SIGIR 2020) computed with the
  sentence model's token states, zero-shot: the mean over the question's tokens of the best
  dot product with any of the chunk's tokens ([CLS] and [SEP] left out on both sides);
- the stored form of a chunk's token states, which decides what an index would hold: f32, one
  bit per dimension (the sign, scaled; the question's states stay f32), and the mean of each 2 or 4
  consecutive tokens before taking the sign;
- for comparison, *vector feedback*: the question's vector moved towards the mean of its top
  chunks' vectors (Rocchio-style pseudo-relevance feedback) and searched again.

w is chosen on the tuning halves (odd-numbered questions, as in the fusion tables) of both
corpora at once, maximising the smaller gain over semantic; the held-out halves report it.
Metrics as benches/retrieval/metrics.rs: nDCG@10, gain 2^grade - 1.

Needs numpy only (the BM25 anchor's venv has it).
"""

import argparse
import json
import math
import pathlib

import numpy as np

DIM = 384
CANDIDATES = 50
WEIGHTS = [0.25, 0.5, 0.6, 0.75, 0.9, 1.0]
FEEDBACK_DEPTHS = [1, 2, 3, 5, 8]
FEEDBACK_WEIGHTS = [0.2, 0.35, 0.5, 0.75, 1.0]


def ndcg(ranked, relevant, k=10):
    dcg = sum((2 ** relevant.get(p, 0) - 1) / math.log2(i + 2) for i, p in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def by_passage(chunk_ids, scores, owners):
    best = {}
    for j, s in zip(chunk_ids, scores):
        p = owners[j]
        if p not in best or s > best[p]:
            best[p] = s
    return [p for p, _ in sorted(best.items(), key=lambda x: -x[1])]


def rows(path):
    return np.fromfile(path, dtype="<f4").reshape(-1, DIM)


def split(matrix, counts):
    starts = np.concatenate([[0], np.cumsum(counts)])
    return [matrix[a:b] for a, b in zip(starts[:-1], starts[1:])]


def inner(states):
    """The token states without [CLS] and [SEP] (kept when nothing else is left)."""
    return states[1:-1] if len(states) > 2 else states


def pooled(states, n):
    if n == 1:
        return states
    means = np.stack([states[i : i + n].mean(0) for i in range(0, len(states), n)])
    return means / np.linalg.norm(means, axis=1, keepdims=True)


def bits(states):
    return np.sign(states) / math.sqrt(DIM)


# name -> (stored form of a chunk's token states, bytes a token's row takes in that form)
FORMS = {
    "f32": (lambda s: s, lambda n: n * DIM * 4),
    "1 bit": (bits, lambda n: n * DIM // 8),
    "mean of 2 tokens, 1 bit": (lambda s: bits(pooled(s, 2)), lambda n: math.ceil(n / 2) * DIM // 8),
    "mean of 4 tokens, 1 bit": (lambda s: bits(pooled(s, 4)), lambda n: math.ceil(n / 4) * DIM // 8),
}


class Corpus:
    def __init__(self, name, data, queries):
        self.name = name
        meta = json.loads((data / "meta.json").read_text())
        self.owners = meta["owners"]
        self.chunks = rows(data / "chunks.f32")
        self.questions = rows(data / "queries.f32")
        self.chunk_states = [inner(s) for s in split(rows(data / "chunk_tokens.f32"), meta["chunkTokens"])]
        self.question_states = [inner(s) for s in split(rows(data / "query_tokens.f32"), meta["queryTokens"])]
        self.relevant = [json.loads(line)["relevant"] for line in queries.read_text().splitlines() if line.strip()]
        assert len(self.relevant) == len(self.questions) and len(self.owners) == len(self.chunks)
        self.cos = self.chunks @ self.questions.T  # chunks x questions
        self.tokens = sum(len(s) for s in self.chunk_states)

    def semantic(self):
        all_chunks = range(len(self.chunks))
        return np.array([ndcg(by_passage(all_chunks, self.cos[:, q], self.owners), r) for q, r in enumerate(self.relevant)])

    def feedback(self, m, beta):
        """Pseudo-relevance feedback in vector space (Rocchio): the question's vector moved
        towards the mean of its top m chunks' vectors, then searched again."""
        out = []
        all_chunks = range(len(self.chunks))
        for q, relevant in enumerate(self.relevant):
            top = np.argsort(-self.cos[:, q])[:m]
            moved = self.questions[q] + beta * self.chunks[top].mean(0)
            scores = self.chunks @ (moved / np.linalg.norm(moved))
            out.append(ndcg(by_passage(all_chunks, scores, self.owners), relevant))
        return np.array(out)

    def rescored(self, form):
        """nDCG@10 per question, per weight."""
        stored = {}
        out = {w: [] for w in WEIGHTS}
        for q, relevant in enumerate(self.relevant):
            cos = self.cos[:, q]
            top = np.argsort(-cos)[:CANDIDATES]
            maxsim = []
            for j in top:
                if j not in stored:
                    stored[j] = form(self.chunk_states[j])
                maxsim.append((stored[j] @ self.question_states[q].T).max(0).mean())
            for w in WEIGHTS:
                scores = (1 - w) * cos[top] + w * np.array(maxsim)
                out[w].append(ndcg(by_passage(top, scores, self.owners), relevant))
        return {w: np.array(v) for w, v in out.items()}


def halves(values):
    return values[0::2].mean(), values[1::2].mean(), values.mean()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", nargs=3, action="append", metavar=("NAME", "DATA_DIR", "QUERIES"), required=True)
    ap.add_argument("--header", default="")
    args = ap.parse_args()
    corpora = [Corpus(n, pathlib.Path(d), pathlib.Path(q)) for n, d, q in args.corpus]
    semantic = {c.name: c.semantic() for c in corpora}
    names = [c.name for c in corpora]
    lines = [args.header, ""] if args.header else []
    lines.append(
        f"Candidates: the semantic top {CANDIDATES} chunks; w from {WEIGHTS}, chosen on the tuning halves "
        "of both corpora together (the largest smallest gain over semantic). nDCG@10, tuning / held-out / all."
    )
    lines.append("")
    head = "| ranking | w | " + " | ".join(f"{n} tuning | {n} held-out | {n} all" for n in names) + " | stored per chunk (mean) |"
    lines += [head, "|---|---:|" + "---:|" * (3 * len(names)) + "---:|"]
    cells = " | ".join(" | ".join(f"{v:.3f}" for v in halves(semantic[n])) for n in names)
    lines.append(f"| semantic (sentence vectors) | – | {cells} | {DIM * 4} B (the vector) |")
    verdicts = []
    for label, (form, size) in FORMS.items():
        results = {c.name: c.rescored(form) for c in corpora}
        w = max(WEIGHTS, key=lambda w: min(results[n][w][0::2].mean() - semantic[n][0::2].mean() for n in names))
        cells = " | ".join(" | ".join(f"{v:.3f}" for v in halves(results[n][w])) for n in names)
        per_chunk = " / ".join(f"{size(c.tokens) / len(c.chunks) / 1024:.1f} KB" for c in corpora)
        lines.append(f"| rescored, token states as {label} | {w} | {cells} | {per_chunk} |")
        gains = ", ".join(
            f"{n} {results[n][w][1::2].mean() - semantic[n][1::2].mean():+.3f}" for n in names
        )
        verdicts.append(f"- {label} (w = {w}): held-out gain over semantic: {gains}")
    feedback = {(m, b): {c.name: c.feedback(m, b) for c in corpora} for m in FEEDBACK_DEPTHS for b in FEEDBACK_WEIGHTS}
    m, b = max(feedback, key=lambda k: min(feedback[k][n][0::2].mean() - semantic[n][0::2].mean() for n in names))
    cells = " | ".join(" | ".join(f"{v:.3f}" for v in halves(feedback[(m, b)][n])) for n in names)
    lines.append(f"| for comparison: semantic with vector feedback (Rocchio, top {m}, weight {b}) | – | {cells} | – |")
    verdicts.append(
        f"- vector feedback over its grid (top {FEEDBACK_DEPTHS} x weight {FEEDBACK_WEIGHTS}), all questions: "
        + ", ".join(f"{n} {min(f[n].mean() for f in feedback.values()):.3f}–{max(f[n].mean() for f in feedback.values()):.3f}" for n in names)
        + f" (semantic: " + ", ".join(f"{n} {semantic[n].mean():.3f}" for n in names) + ")"
    )
    lines += ["", *verdicts]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
