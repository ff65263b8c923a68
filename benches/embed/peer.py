#!/usr/bin/env python3
"""Python peer of the embedding benchmark: sentence-transformers (PyTorch, CPU) embeds the same
chunks with the same all-MiniLM-L6-v2 files as lore-embed, for chunks/second and peak memory.

    python="$(bash scripts/st-venv.sh)"          # pinned torch / sentence-transformers venv
    "$python" benches/embed/peer.py CHUNKS.jsonl [--threads N] [--runs 3] [--vectors OUT.f32]

CHUNKS.jsonl has one {"text": "..."} per line. The model is built from the files of
scripts/fetch-model.sh in $LORE_MODEL_DIR (default ~/.cache/lore/models/all-MiniLM-L6-v2) and
nothing else: `Transformer(model_dir, max_seq_length=256)` reads config.json and model.safetensors,
and its tokenizer (transformers' BertTokenizer) is read from tokenizer.json in the same directory
(no tokenizer_config.json / vocab.txt are needed or written); then mean pooling and L2
normalisation, which is what the hub's modules.json for this model says. HF_HUB_OFFLINE and
TRANSFORMERS_OFFLINE are set, so any attempt to reach a hub fails instead of downloading.

Timing: one warm-up encode of the first 32 chunks, then `--runs` full encodes with batch_size=32
(sentence-transformers sorts by length internally); the median is reported. Output: one JSON
object on stdout. `--vectors` writes the last run's vectors as little-endian f32 rows (N x 384) in
input order.
"""

import os

# Before importing transformers: never touch a hub, no telemetry.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import sentence_transformers
import torch
import transformers
from sentence_transformers import SentenceTransformer
from sentence_transformers.sentence_transformer import modules

BATCH_SIZE = 32


def status_mib(field):
    """VmRSS / VmHWM of this process in MiB, from /proc/self/status."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def torch_config():
    """The lines of parallel_info() that say how many threads and which BLAS/OpenMP are used."""
    keep = ("get_num_threads", "get_num_interop_threads", "omp_get_max_threads", "mkl_get_max_threads",
            "Math Kernel Library", "MKL-DNN", "OpenMP", "NUM_THREADS", "parallel backend")
    lines = [l.strip() for l in torch.__config__.parallel_info().splitlines() if any(k in l for k in keep)]
    blas = [kv for kv in torch.__config__.show().replace(",", " ").split() if kv.startswith("BLAS_INFO=")]
    return lines + blas


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chunks", help='JSONL file, one {"text": ...} per line')
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--vectors", help="write the last run's vectors here (f32 LE, N x 384)")
    parser.add_argument("--model-dir", default=os.environ.get(
        "LORE_MODEL_DIR", str(Path.home() / ".cache/lore/models/all-MiniLM-L6-v2")))
    args = parser.parse_args()

    with open(args.chunks, encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    if not texts:
        sys.exit(f"peer: no chunks in {args.chunks}")
    if not (Path(args.model_dir) / "model.safetensors").is_file():
        sys.exit(f"peer: no model.safetensors in {args.model_dir} (run scripts/fetch-model.sh)")

    torch.set_num_threads(args.threads)
    transformers.utils.logging.disable_progress_bar()

    model = SentenceTransformer(
        modules=[
            modules.Transformer(args.model_dir, max_seq_length=256),
            modules.Pooling(384, "mean"),
            modules.Normalize(),
        ],
        device="cpu",
    )
    idle_rss = status_mib("VmRSS")

    # normalize_embeddings=False: the Normalize module already does it, as in the hub model.
    def encode(batch):
        return model.encode(batch, batch_size=BATCH_SIZE, convert_to_numpy=True,
                            normalize_embeddings=False, show_progress_bar=False)

    encode(texts[:BATCH_SIZE])
    seconds = []
    for _ in range(args.runs):
        start = time.perf_counter()
        vectors = encode(texts)
        seconds.append(time.perf_counter() - start)

    if args.vectors:
        np.ascontiguousarray(vectors, dtype="<f4").tofile(args.vectors)

    median = statistics.median(seconds)
    print(json.dumps({
        "peer": "sentence-transformers",
        "chunks": len(texts),
        "seconds_median": round(median, 4),
        "seconds_runs": [round(s, 4) for s in seconds],
        "chunks_per_second": round(len(texts) / median, 2),
        "peak_rss_mib": round(status_mib("VmHWM"), 1),
        "idle_rss_mib_after_load": round(idle_rss, 1),
        "threads": torch.get_num_threads(),
        "batch_size": BATCH_SIZE,
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
        },
        "torch_config": torch_config(),
    }))


if __name__ == "__main__":
    main()
