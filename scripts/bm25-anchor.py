#!/usr/bin/env python3
"""A plain BM25 anchor for the retrieval benchmark's corpora: what a textbook keyword ranker gets.

Needs the PyPI packages rank_bm25 and snowballstemmer, pinned, in their own venv (nothing else):

    python3 -m venv ~/.cache/lore/bm25-venv
    ~/.cache/lore/bm25-venv/bin/pip install rank_bm25==0.2.2 snowballstemmer==3.1.1
    ~/.cache/lore/bm25-venv/bin/python scripts/bm25-anchor.py \\
        --corpus benches/retrieval/cargo-book/corpus.jsonl \\
        --queries benches/retrieval/cargo-book/queries.jsonl \\
        --out "$HOME/.cache/lore/bm25-cargo-book.json"
    ~/.cache/lore/bm25-venv/bin/python scripts/bm25-anchor.py --lang fr \\
        --corpus benches/retrieval/debian-faq-fr/corpus.jsonl \\
        --queries benches/retrieval/debian-faq-fr/queries.jsonl --out /tmp/bm25-debian-faq-fr.json
    ~/.cache/lore/bm25-venv/bin/python scripts/bm25-anchor.py --lang en --query-lang fr \\
        --corpus benches/retrieval/debian-faq/corpus.jsonl \\
        --queries benches/retrieval/debian-faq-fr/queries.jsonl --out /tmp/bm25-debian-faq-fr-en.json

(rank_bm25 0.2.2 pulls in numpy, which pip installs with it; snowballstemmer has no dependencies and
is imported only for --lang/--query-lang fr, de or ru.)

- one document per passage: its `title` and its `text` (a space between them);
- tokens, `--lang en` (the default): `re.findall(r"\\w+", text.lower())`, the same for queries and
  documents; no stemming, no stop words;
- tokens, any other language (`--lang` for the passages, `--query-lang` for the queries, default
  `--lang`: a cross-lingual run tokenises each side in its own language): the text NFKC-normalised
  (full-width letters and digits to ASCII, half-width katakana to full width) and lower-cased, then
  Unicode word tokens (`\\w+`) cut apart where Han, hiragana or katakana characters meet other
  letters; each run of Han/hiragana/katakana becomes its overlapping character bigrams (a run of
  one character stays a unigram), every other word is a token, stemmed by Snowball
  (snowballstemmer) for fr, de and ru (french, german, russian) and left as it is for ja and
  zh-cn; no stop words;
- ranker: `rank_bm25.BM25Okapi(k1=1.5, b=0.75)` (its default epsilon 0.25 for the idf floor);
- ranking: the 10 best scores, ties broken by corpus order (a stable sort), so the output is
  deterministic;
- metrics as in benches/retrieval/metrics.rs: nDCG@10 with gain 2^grade − 1 and discount
  log2(rank + 1) over the ideal ordering of the labelled grades; recall@10 = labelled passages in
  the top 10 / labelled passages; MRR@10 = 1 / rank of the first labelled passage (any grade) in
  the top 10, else 0; means over the queries.

Output (JSON): {"ndcg10", "recall10", "mrr10", "queries", "passages",
"perQuery": {queryId: {"ndcg10", "recall10", "mrr10", "top10": [ids]}}, "version": {"rank_bm25", "python"}}
(plus "version"."snowballstemmer" when a stemmer was used, and "lang", "queryLang" unless both are en).
"""

import argparse
import json
import math
import re
import sys
from importlib.metadata import version

import unicodedata
from rank_bm25 import BM25Okapi

K = 10
LANGS = ("en", "fr", "de", "ru", "ja", "zh-cn")
SNOWBALL = {"fr": "french", "de": "german", "ru": "russian"}
# Han (with the iteration mark 々), hiragana and katakana (with ー), after NFKC.
CJK = r"[\u3005\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
WORD = re.compile(rf"{CJK}+|(?:(?!{CJK})\w)+")
IS_CJK = re.compile(rf"{CJK}")


def tokens(text: str):
    """English (and the anchors published before --lang): unchanged."""
    return re.findall(r"\w+", text.lower())


def tokenizer(lang: str):
    """The tokeniser of a language: `tokens` for en, else the one described above."""
    if lang == "en":
        return tokens
    stem = None
    if lang in SNOWBALL:
        import snowballstemmer

        stem = snowballstemmer.stemmer(SNOWBALL[lang]).stemWord

    def lang_tokens(text: str):
        out = []
        for word in WORD.findall(unicodedata.normalize("NFKC", text).lower()):
            if IS_CJK.match(word):
                out.extend([word] if len(word) == 1 else [word[i : i + 2] for i in range(len(word) - 1)])
            else:
                out.append(stem(word) if stem else word)
        return out

    return lang_tokens


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
    parser.add_argument("--lang", default="en", choices=LANGS, help="the passages' language (default en)")
    parser.add_argument("--query-lang", default=None, choices=LANGS, help="the queries' language (default --lang)")
    args = parser.parse_args()
    query_lang = args.query_lang or args.lang
    doc_tokens, query_tokens = tokenizer(args.lang), tokenizer(query_lang)

    corpus = read_jsonl(args.corpus)
    queries = read_jsonl(args.queries)
    ids = [p["id"] for p in corpus]
    bm25 = BM25Okapi([doc_tokens(f"{p.get('title', '')} {p['text']}") for p in corpus], k1=1.5, b=0.75)

    per_query, sums = {}, {"ndcg10": 0.0, "recall10": 0.0, "mrr10": 0.0}
    for q in queries:
        scores = bm25.get_scores(query_tokens(q["query"]))
        order = sorted(range(len(ids)), key=lambda i: -scores[i])  # stable: ties in corpus order
        top = [ids[i] for i in order[:K]]
        judged = {pid: int(g) for pid, g in q["relevant"].items()}
        m = {"ndcg10": ndcg_at(top, judged), "recall10": recall_at(top, judged), "mrr10": reciprocal_rank(top, judged)}
        for key in sums:
            sums[key] += m[key]
        per_query[q["id"]] = {**{k: round(v, 4) for k, v in m.items()}, "top10": top}

    n = max(len(queries), 1)
    versions = {"rank_bm25": version("rank_bm25"), "python": sys.version.split()[0]}
    if {args.lang, query_lang} & set(SNOWBALL):
        versions["snowballstemmer"] = version("snowballstemmer")
    out = {
        **{k: round(v / n, 4) for k, v in sums.items()},
        "queries": len(queries),
        "passages": len(corpus),
        "perQuery": per_query,
        "version": versions,
    }
    if args.lang != "en" or query_lang != "en":  # the English anchors' output stays as it was
        out["lang"], out["queryLang"] = args.lang, query_lang
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
