#!/usr/bin/env python3
"""Builds benches/retrieval/corpus.jsonl: the passages of the retrieval-quality benchmark.

    python3 scripts/build-retrieval-corpus.py [--out benches/retrieval/corpus.jsonl] [--check]

One passage is one documented callable of the CPython standard library (docstrings are part of
CPython, PSF License Version 2): a module-level function or class of one of the MODULES below, or a
public method of one of the CLASSES below. Its text is

    <module>.<qualname><signature> — <first paragraphs of its docstring>

(at most MAX_CHARS characters, cut at a word). Nothing is downloaded: everything comes from the
Python running the script, through `inspect`. Docstrings differ a little between Python versions;
the committed corpus.jsonl was built with CPython 3.11 and the benchmark reads the committed file,
so rebuilding is only needed to change the corpus (the labelled queries name passage ids, which a
rebuild with another Python may drop or change; `--check` lists the ids of queries.jsonl missing
from the built corpus).

Deterministic for a given Python build: modules, names and methods are visited in sorted order,
and a docstring already used (an alias, a re-export, an inherited docstring) is not used twice.
"""

import argparse
import importlib
import inspect
import json
import re
import sys
from pathlib import Path

# Well-known modules: every public callable (their __all__ when they have one, else dir()).
MODULES = [
    "argparse", "asyncio", "base64", "bisect", "collections", "copy", "csv", "datetime", "difflib",
    "fnmatch", "functools", "glob", "gzip", "hashlib", "heapq", "hmac", "http.client", "itertools",
    "json", "logging", "math", "os", "os.path", "pathlib", "queue", "random", "re", "secrets",
    "shutil", "socket", "sqlite3", "statistics", "string", "subprocess", "tarfile", "tempfile",
    "textwrap", "threading", "time", "unittest", "urllib.parse", "uuid", "zipfile",
]

# Classes whose public methods are passages too ("module", "Class").
CLASSES = [
    ("argparse", "ArgumentParser"),
    ("collections", "Counter"),
    ("collections", "deque"),
    ("csv", "DictReader"),
    ("datetime", "date"),
    ("datetime", "datetime"),
    ("datetime", "timedelta"),
    ("logging", "Logger"),
    ("pathlib", "Path"),
    ("pathlib", "PurePath"),
    ("queue", "Queue"),
    ("re", "Pattern"),
    ("re", "Match"),
    ("sqlite3", "Connection"),
    ("sqlite3", "Cursor"),
    ("subprocess", "Popen"),
    ("tarfile", "TarFile"),
    ("threading", "Event"),
    ("threading", "Thread"),
    ("unittest", "TestCase"),
    ("zipfile", "ZipFile"),
]

MAX_CHARS = 700  # whole passage; well under MiniLM's 256 tokens and one chunk of the chunker
MIN_DOC_CHARS = 20  # docstring text kept
MIN_PASSAGE_CHARS = 30  # whole passage ("uuid.uuid4() — Generate a random UUID." is 38)


def first_paragraphs(doc: str) -> str:
    """The docstring's first paragraphs, joined into one line each, within the length budget."""
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", doc) if p.strip()]
    out = ""
    for p in paragraphs:
        candidate = f"{out} {p}".strip()
        if out and len(candidate) > MAX_CHARS - 80:
            break
        out = candidate
        if len(out) >= 300:
            break
    return out


def signature(obj) -> str:
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""
    sig = re.sub(r" at 0x[0-9a-fA-F]+", "", sig)  # default values' reprs carry memory addresses
    return sig if len(sig) <= 120 else "(…)"


def cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + "…"


def own_doc(obj) -> str:
    """The object's own docstring (not one inherited from a base class or `object`)."""
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str):
        return ""
    return inspect.cleandoc(doc)


def passage(pid: str, obj, is_property: bool = False):
    doc = own_doc(obj)
    if not doc:
        return None
    body = first_paragraphs(doc)
    if len(body) < MIN_DOC_CHARS:
        return None
    sig = "" if is_property else signature(obj)
    text = cut(f"{pid}{sig} — {body}", MAX_CHARS)
    if len(text) < MIN_PASSAGE_CHARS:
        return None
    return {"id": pid, "title": pid, "text": text}, doc


def candidates():
    for name in MODULES:
        module = importlib.import_module(name)
        public = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        for attr in sorted(set(public)):
            obj = getattr(module, attr, None)
            if obj is None or not callable(obj) or attr.startswith("_"):
                continue
            yield f"{name}.{attr}", obj, False
    for module_name, class_name in CLASSES:
        cls = getattr(importlib.import_module(module_name), class_name)
        for attr in sorted(dir(cls)):
            if attr.startswith("_"):
                continue
            raw = inspect.getattr_static(cls, attr, None)
            obj = getattr(cls, attr, None)
            if raw is None or obj is None:
                continue
            # Methods (plain, class and static) and properties; not data attributes.
            if not (callable(obj) or isinstance(raw, (property, classmethod, staticmethod))):
                continue
            if isinstance(raw, property):
                yield f"{module_name}.{class_name}.{attr}", raw.fget, True
            else:
                yield f"{module_name}.{class_name}.{attr}", obj, False


def build():
    seen_ids, seen_docs, out = set(), set(), []
    for pid, obj, is_property in candidates():
        if pid in seen_ids:
            continue
        made = passage(pid, obj, is_property)
        if made is None:
            continue
        record, doc = made
        if doc in seen_docs:  # an alias or a re-export of something already in the corpus
            continue
        seen_ids.add(pid)
        seen_docs.add(doc)
        out.append(record)
    return out


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(root / "benches/retrieval/corpus.jsonl"))
    parser.add_argument("--queries", default=str(root / "benches/retrieval/queries.jsonl"))
    parser.add_argument("--check", action="store_true", help="only report query labels missing from the corpus")
    args = parser.parse_args()

    corpus = build()
    ids = {p["id"] for p in corpus}
    missing = []
    if Path(args.queries).exists():
        for line in Path(args.queries).read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                missing += [f"{q['id']}: {r}" for r in q["relevant"] if r not in ids]
    for m in missing:
        print(f"build-retrieval-corpus: label not in corpus: {m}", file=sys.stderr)
    if args.check:
        return 1 if missing else 0

    with open(args.out, "w", encoding="utf-8") as f:
        for p in corpus:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    size = Path(args.out).stat().st_size
    print(
        f"build-retrieval-corpus: {len(corpus)} passages, {size} bytes, Python {sys.version.split()[0]} -> {args.out}",
        file=sys.stderr,
    )
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
