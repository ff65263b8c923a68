#!/usr/bin/env python3
"""Builds the 100k-passage corpus of real text for the `pg-real` perf row (benches/perf/pg_real.rs).

    python3 scripts/build-scale-corpus.py [--docs DIR] [--out FILE] [--queries FILE] [--passages N]

Python 3 standard library only; nothing is downloaded. The text is documentation already on the
machine, read in a fixed order, in three groups:

1. *docs*: the HTML documentation that ships with the Rust toolchain (`--docs`, default
   `<sysroot>/share/doc/rust/html` of `rustc --print sysroot`):
   - mdBook books, whole chapters (`<main>` without its navigation): book, reference, nomicon,
     rust-by-example, edition-guide, cargo, rustc, rustdoc, embedded-book, unstable-book,
     style-guide, clippy, error_codes (not print.html, toc.html, 404.html, the search pages, nor
     the translations: the model is English-only), and the release notes (releases.html);
   - API pages of std, alloc, core, proc_macro, test and std_detect: the item's own documentation
     (every `div.docblock`, under a heading naming the item or its method / field / variant), not
     signatures, sidebars, stability notes, the docs of trait implementations (each repeats its
     trait's text on every implementor) nor the methods a type gets from its `Deref` target; the
     SIMD intrinsics (`arch`, `core_arch`: 39k generated pages) after the rest.
   These hold only ~30k distinct passages (std re-exports core and alloc with the same text), so:
2. *crates*: the documentation of the crates this workspace builds with — each crates.io package
   `cargo metadata --filter-platform <host> --locked --offline` lists (Cargo.lock fixes the
   versions; the sources are the ones cargo unpacked to build it): its README and the doc comments
   (`///`, `//!`; Markdown, with HTML tags and link targets removed, doctests' hidden lines dropped)
   of its `.rs` files other than tests, benches and examples, each under a heading naming the
   crate and the item documented;
3. *source*: the library source pages of the Rust docs (`src/`), only if 1 and 2 fall short.

Each page becomes a sequence of headings and sentences (code blocks: lines), cut into passages
of MIN_CHARS..MAX_CHARS (~300–600) characters: a passage ends before the sentence that would
take it over MAX_CHARS, and at a heading once it holds MIN_CHARS (a shorter one runs on into the
next section); a sentence longer than MAX_CHARS is cut at word boundaries; a page's last remnant
under MIN_TAIL characters joins the passage before it (if the two stay under MERGE_MAX) or is
dropped. Identical passages are kept once, the first seen.

`--passages` (default 100,000) are written: all of group 1, then of group 2 as many as are
missing, spread evenly over it (passage ⌊i·total/k⌋ for i in 0..k), then of group 3 likewise; as
JSONL `{"id", "text"}` (`id` = `<page>#<n>`) to `--out` (default
`$HOME/.cache/lore/bench/scale-corpus.jsonl`; ~50 MB, not committed).

The questions (`--queries`, default `scale-queries.jsonl` beside the corpus): 200, chosen by rule
from the Rust docs before any measurement — 100 from the books' h2/h3 headings (2–10 words, not
generic ones such as "Examples", not changelogs), 100 from the inherent methods of std's types
(`Type::method`); in each group the candidates with the smallest SHA-1 of their text, phrased by
a template picked by that hash ("How does <heading> work in Rust?", "What does Vec::retain do?",
…). JSONL `{"id", "query", "from"}`. A summary (pages, passages, sizes, seconds) goes to stderr.
"""

import argparse
import hashlib
import html
import json
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

MIN_CHARS = 300
MAX_CHARS = 600
MIN_TAIL = 150
MERGE_MAX = 800
QUERIES_PER_GROUP = 100

BOOKS = [
    "book", "reference", "nomicon", "rust-by-example", "edition-guide", "cargo", "rustc", "rustdoc",
    "embedded-book", "unstable-book", "style-guide", "clippy", "error_codes",
]
API = ["std", "alloc", "core", "proc_macro", "test", "std_detect"]
SKIPPED_PAGES = {"print.html", "toc.html", "404.html", "searchindex.html", "search.html", "all.html"}
SKIPPED_DIRS = {"arch", "core_arch"}
# Translations of a book (rust-by-example ships ja, ko, es, zh): the model is English-only.
TRANSLATIONS = {"ja", "ko", "es", "zh", "zh-CN", "zh-TW", "pt-BR", "fr", "de", "ru", "it", "pl", "uk", "vi", "fa", "id"}
# Headings that say nothing of their section: not made into questions.
GENERIC = {
    "examples", "example", "summary", "syntax", "panics", "errors", "safety", "introduction", "overview",
    "usage", "notes", "note", "see also", "description", "platform-specific behavior", "options", "history",
    "conclusion", "background", "motivation", "details", "explanation", "implementation", "stabilization",
    "tracking issue", "documentation", "what's next", "next steps", "exercises", "exercise", "limitations",
}

BLOCK = {"p", "li", "dt", "dd", "tr", "blockquote", "div", "section", "table", "ul", "ol", "dl", "hr", "br"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
SKIP_TAGS = {"script", "style", "button", "nav", "noscript", "svg", "rustdoc-toolbar", "template"}
SKIP_CLASSES = {
    "doc-anchor", "test-arrow", "rightside", "rustdoc-breadcrumbs", "sub-heading", "item-info", "hideme",
    "tooltip", "notable-traits", "src", "since", "anchor", "boring", "rule-link",
}
# Sections of an API page whose docblocks are copies of other items' docs (and the methods a
# type gets from its `Deref` target, `div#deref-methods-…`).
COPIED_LISTS = {"trait-implementations-list", "synthetic-implementations-list", "blanket-implementations-list"}
ITEM_SECTION = re.compile(
    r"^(method|tymethod|structfield|variant|associatedtype|associatedconstant|field)\.(.+)$"
)


class Page(HTMLParser):
    """The visible text of one page's `<main>` as blocks: ("h", level, text) and ("p", text) /
    ("code", text). `api` = rustdoc page: only docblocks (and the headings naming their items)."""

    def __init__(self, api, main="main"):
        super().__init__(convert_charrefs=True)
        self.api = api
        self.main_tag = main
        self.main = 0
        self.stack = []  # (tag, flags) of open elements inside <main>
        self.skip = 0
        self.docblock = 0  # depth of docblocks open
        self.copied = 0
        self.pre = 0
        self.heading = None
        self.buf = []
        self.blocks = []
        self.title = ""
        self.item = None  # pending "Type::name" heading of the next docblock
        self.items = []  # (section kind, name) of inherent methods: question candidates

    def kept(self):
        """Whether body text seen now is kept (an API page: docblocks only)."""
        return not self.api or (self.docblock > 0 and not self.copied)

    def flush(self):
        text = " ".join("".join(self.buf).split())
        self.buf = []
        if text:
            self.blocks.append(("p", text))

    def handle_starttag(self, tag, attrs):
        if tag == self.main_tag:
            self.main += 1
            return
        if not self.main:
            return
        if tag in ("br", "hr", "img", "wbr", "input", "meta", "link"):
            if tag == "br":
                self.buf.append(" ")
            return
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        flags = 0
        if (
            tag in SKIP_TAGS
            or classes & SKIP_CLASSES
            or (tag == "pre" and "item-decl" in classes)
            or "data-nosnippet" in a  # a source page's line numbers
            or a.get("id") == "versioninfo"
        ):
            flags |= 1
            self.skip += 1
        if a.get("id") in COPIED_LISTS or (a.get("id") or "").startswith("deref-methods-"):
            flags |= 2
            self.copied += 1
        if tag == "div" and "docblock" in classes and "docblock-short" not in classes:
            flags |= 4
            self.docblock += 1
            if self.api and self.item and not self.copied and not self.skip:
                self.blocks.append(("h", 4, self.item))
            self.item = None
        m = ITEM_SECTION.match(a.get("id") or "")
        if self.api and tag in ("section", "span") and m:
            # rustdoc numbers the second `len` of a page `method.len-1`.
            kind, name = m.group(1), re.sub(r"-\d+$", "", m.group(2))
            self.item = f"{self.short_title()}::{name}"
            if kind == "method" and not self.copied:
                self.items.append(name)
        self.stack.append((tag, flags))
        if self.skip:
            return
        if tag in HEADINGS:
            self.flush()
            self.heading = [int(tag[1]), []]
        elif tag == "pre":
            self.flush()
            self.pre += 1
        elif tag in BLOCK and not self.pre:
            self.flush()

    def handle_endtag(self, tag):
        if tag == self.main_tag and self.main:
            self.flush()
            self.main -= 1
            return
        if not self.main or tag in ("br", "hr", "img", "wbr", "input", "meta", "link"):
            return
        # Pop up to the matching open tag (HTML allows unclosed <p>, <li>, …).
        if not any(t == tag for t, _ in self.stack):
            return
        while self.stack:
            t, flags = self.stack.pop()
            self.close_element(t, flags)
            if t == tag:
                break

    def close_element(self, tag, flags):
        if not self.skip or flags & 1:
            self.close_content(tag)
        if flags & 1:
            self.skip -= 1
        if flags & 2:
            self.copied -= 1
        if flags & 4:
            self.flush()
            self.docblock -= 1

    def close_content(self, tag):
        if tag in HEADINGS and self.heading is not None:
            level, parts = self.heading
            self.heading = None
            text = " ".join("".join(parts).split())
            if text:
                if level == 1 and not self.title:
                    self.title = text
                    self.blocks.append(("h", 1, text))
                elif self.kept():
                    self.blocks.append(("h", level, text))
        elif tag == "pre" and self.pre:
            self.pre -= 1
            code = "".join(self.buf).strip("\n")
            self.buf = []
            if code.strip():
                self.blocks.append(("code", code))
        elif tag in BLOCK and not self.pre:
            self.flush()

    def handle_data(self, data):
        if not self.main or self.skip:
            return
        if self.heading is not None:
            self.heading[1].append(data)
        elif self.kept():
            self.buf.append(data)

    def short_title(self):
        # "Struct Vec" -> "Vec"; "Primitive Type u32" -> "u32"; "Function swap" -> "swap".
        return self.title.split()[-1] if self.title else "?"


SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z`\"'(\[0-9*])")


def units(blocks):
    """Headings, and pieces of at most MAX_CHARS with the separator that joins each to the one
    before it: (kind, text, sep) with kind "h" or "t"."""
    out = []
    for block in blocks:
        if block[0] == "h":
            out.append(("h", block[2], "\n"))
            continue
        kind, text = block
        if kind == "code":
            pieces = [l.rstrip() for l in text.split("\n")]
            pieces = [p for p in pieces if p.strip()]
            joiner = "\n"
        else:
            pieces = [s for s in SENTENCE_END.split(text) if s]
            joiner = " "
        first = True
        for piece in pieces:
            for part in cut_words(piece):
                out.append(("t", part, "\n" if first else joiner))
                first = False
    return out


def cut_words(s):
    if len(s) <= MAX_CHARS:
        return [s]
    parts, cur = [], ""
    for w in s.split(" "):
        if cur and len(cur) + 1 + len(w) > MAX_CHARS:
            parts.append(cur)
            cur = ""
        while len(w) > MAX_CHARS:  # one "word" longer than a passage (a long URL, a code line)
            parts.append(w[:MAX_CHARS])
            w = w[MAX_CHARS:]
        cur = f"{cur} {w}" if cur else w
    if cur:
        parts.append(cur)
    return parts


def passages(blocks):
    out, cur = [], ""
    for kind, text, sep in units(blocks):
        if kind == "h":
            if len(cur) >= MIN_CHARS:
                out.append(cur)
                cur = ""
        elif cur and len(cur) + len(sep) + len(text) > MAX_CHARS and len(cur) >= MIN_CHARS:
            out.append(cur)
            cur = ""
        elif cur and len(cur) + len(sep) + len(text) > MAX_CHARS:
            # Under MIN_CHARS and the next piece does not fit: end here anyway (never over MAX).
            out.append(cur)
            cur = ""
        cur = f"{cur}{sep}{text}" if cur else text
    if cur:
        if len(cur) >= MIN_TAIL:
            out.append(cur)
        elif out and len(out[-1]) + 1 + len(cur) <= MERGE_MAX:
            out[-1] = f"{out[-1]}\n{cur}"
        # else: a short remnant (a lone heading, a one-line footer) is dropped
    # A passage that is only headings says nothing.
    return [p for p in out if len(p) >= 100]


def doc_pages(root):
    """(group, source, page path, is an API page, main element) of the Rust docs, in order."""
    for book in BOOKS:
        for path in sorted((root / book).rglob("*.html")):
            rel = path.relative_to(root / book).parts
            if path.name in SKIPPED_PAGES or path.name.startswith("searchindex") or rel[0] in TRANSLATIONS:
                continue
            yield "docs", book, path, False, "main"
    yield "docs", "releases", root / "releases.html", False, "body"
    for crate in API:
        for path in sorted((root / crate).rglob("*.html")):
            rel = path.relative_to(root / crate).parts
            if path.name not in SKIPPED_PAGES and not SKIPPED_DIRS & set(rel[:-1]):
                yield "docs", crate, path, True, "main"
    for crate in API:
        for path in sorted((root / crate).rglob("*.html")):
            rel = path.relative_to(root / crate).parts
            if path.name not in SKIPPED_PAGES and SKIPPED_DIRS & set(rel[:-1]):
                yield "docs", "arch", path, True, "main"
    for path in sorted((root / "src").rglob("*.html")):
        yield "source", "src", path, False, "main"


def registry_crates(workspace):
    """(name-version, directory) of the crates.io packages the workspace builds with on this host:
    `cargo metadata --filter-platform <host> --locked --offline` (Cargo.lock decides the versions;
    the sources are those cargo already unpacked to build it)."""
    host = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    host = re.search(r"^host: (\S+)", host, re.M).group(1)
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--filter-platform", host, "--locked", "--offline"],
        cwd=workspace, capture_output=True, text=True,
    )
    if meta.returncode != 0:
        sys.exit(f"cargo metadata failed (build the workspace once so that cargo has its crates):\n{meta.stderr}")
    out = []
    for pkg in json.loads(meta.stdout)["packages"]:
        if (pkg.get("source") or "").startswith("registry+"):
            out.append((f"{pkg['name']}-{pkg['version']}", Path(pkg["manifest_path"]).parent))
    return sorted(out)


DOC_LINE = re.compile(r"^\s*(///|//!)(?!/) ?(.*)$")
LINK = re.compile(r"\[([^\]\n]+)\](\([^)\s]*\)|\[[^\]\n]*\])")
LINK_DEF = re.compile(r"^\s*\[[^\]]+\]:\s*\S+")
# HTML in doc comments (the AWS SDKs' docs are HTML): the tags go, their text stays.
HTML_TAG = re.compile(
    r"</?(p|a|code|b|i|em|strong|ul|ol|li|note|important|br|div|span|pre|h[1-6]|table|thead|tbody|tr|td|th"
    r"|dl|dt|dd|details|summary|sup|sub|img|note|para|example)\b[^>]*>",
    re.I,
)


def markdown_blocks(lines):
    """Blocks (as `Page.blocks`) of Markdown doc text: `#` headings, paragraphs (a list item or a
    table row starts a new one), fenced code (a doctest's hidden `# ` lines dropped); link targets
    and reference definitions removed."""
    blocks, para, code, fence = [], [], [], None

    def end_para():
        if para:
            text = " ".join(html.unescape(HTML_TAG.sub(" ", LINK.sub(r"\1", " ".join(para)))).split())
            if text:
                blocks.append(("p", text))
            para.clear()

    for line in lines:
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                if any(l.strip() for l in code):
                    blocks.append(("code", "\n".join(code)))
                code, fence = [], None
            elif not (stripped == "#" or stripped.startswith("# ")):
                code.append(line.rstrip())
            continue
        m = re.match(r"^(```+|~~~+)", stripped)
        if m:
            end_para()
            fence = m.group(1)
            continue
        if not stripped or LINK_DEF.match(stripped) or stripped.startswith("<!--"):
            end_para()
            continue
        h = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        if h:
            end_para()
            blocks.append(("h", len(h.group(1)) + 1, h.group(2).strip()))
            continue
        if re.match(r"^([-*+]|\d+\.)\s", stripped) or stripped.startswith("|"):
            end_para()
        para.append(stripped)
    end_para()
    if fence is not None and any(l.strip() for l in code):
        blocks.append(("code", "\n".join(code)))
    return blocks


def crate_pages(name, directory):
    """The crate's README and the doc comments of its `.rs` files (not tests, benches, examples):
    one page per file, each doc comment under a heading naming the crate and the item it
    documents (the next line of code) or, for `//!`, the file."""
    for readme in sorted(directory.glob("README*")):
        if readme.suffix.lower() in (".md", ""):
            blocks = markdown_blocks(readme.read_text(encoding="utf-8", errors="replace").splitlines())
            yield readme, [("h", 1, f"{name} README")] + blocks
    for path in sorted(directory.rglob("*.rs")):
        rel = path.relative_to(directory)
        if rel.parts[0] in ("tests", "benches", "examples", "target") or "tests" in rel.parts[:-1]:
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        blocks, doc, kind = [], [], None

        def end_doc(i):
            if not doc:
                return
            if kind == "//!":
                head = f"{name} {rel.as_posix()}"
            else:
                head = ""
                for nxt in lines[i : i + 8]:
                    t = nxt.strip()
                    if t and not t.startswith(("#[", "//", "#![")):
                        head = t.split("{")[0].strip()[:120]
                        break
                head = f"{name}: {head}" if head else name
            blocks.append(("h", 3, head))
            blocks.extend(markdown_blocks(doc))
            doc.clear()

        for i, line in enumerate(lines):
            m = DOC_LINE.match(line)
            if m and (kind is None or m.group(1) == kind):
                kind = m.group(1)
                doc.append(m.group(2))
                continue
            end_doc(i)
            kind = None
            if m:  # a block of the other kind starts right away
                kind = m.group(1)
                doc.append(m.group(2))
        end_doc(len(lines))
        if blocks:
            yield path, blocks


def sha1(s):
    return hashlib.sha1(s.encode()).hexdigest()


def lower_first(h):
    return h[0].lower() + h[1:] if h and h[:1].isupper() and not h[1:2].isupper() else h


def heading_question(h):
    h = h.rstrip(" .:?!")
    templates = ["How does {} work in Rust?", "What is {} in Rust?", "Explain {}.", "{}: how does it work?"]
    t = templates[int(sha1(h), 16) % len(templates)]
    return t.format(lower_first(h) if not t.startswith("{}") else h)


def method_question(path):
    templates = ["What does {} do?", "How do I use {} in Rust?", "When should I call {}?"]
    return templates[int(sha1(path), 16) % len(templates)].format(path)


def spread(items, n):
    """`n` of `items`, evenly spread in their order (all when there are fewer)."""
    total = len(items)
    return list(items) if n >= total else [items[i * total // n] for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=Path)
    home = Path(os.environ.get("HOME", "."))
    ap.add_argument("--out", type=Path, default=home / ".cache/lore/bench/scale-corpus.jsonl")
    ap.add_argument("--queries", type=Path)
    ap.add_argument("--passages", type=int, default=100_000)
    ap.add_argument("--workspace", type=Path, default=Path(__file__).resolve().parent.parent)
    args = ap.parse_args()
    started = time.time()
    root = args.docs
    if root is None:
        sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True)
        root = Path(sysroot.stdout.strip()) / "share/doc/rust/html"
    if not (root / "std").is_dir():
        sys.exit(f"{root}: not the Rust docs (no std/)")
    version = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()

    seen = set()
    groups = {"docs": [], "crates": [], "source": []}  # (id, text) of unique passages
    per_source = {}
    pages_read = {"docs": 0, "crates": 0, "source": 0}
    heading_candidates = {}  # heading -> page (first seen)
    method_candidates = {}

    def add(group, source, pid, blocks):
        pages_read[group] += 1
        for i, text in enumerate(passages(blocks)):
            if text not in seen:
                seen.add(text)
                groups[group].append((f"{pid}#{i}", text))
                per_source[source] = per_source.get(source, 0) + 1

    for group, source, path, api, main_tag in doc_pages(root):
        p = Page(api, main_tag)
        p.feed(path.read_text(encoding="utf-8", errors="replace"))
        p.close()
        rel = path.relative_to(root).as_posix()
        add(group, source, rel, p.blocks)
        if api:
            # Inherent methods of types, once per Type::method.
            kind = p.title.split()[0] if p.title else ""
            if kind in ("Struct", "Enum", "Primitive", "Trait", "Union") and source != "arch":
                for name in p.items:
                    method_candidates.setdefault(f"{p.short_title()}::{name}", rel)
        elif source in BOOKS and "CHANGELOG" not in path.name:
            for b in p.blocks:
                if b[0] == "h" and b[1] in (2, 3):
                    h = b[2].strip()
                    if 2 <= len(h.split()) <= 10 and h.lower().strip(" .:?!") not in GENERIC and not h[:1].isdigit():
                        heading_candidates.setdefault(h, rel)
    crates = registry_crates(args.workspace)
    for name, directory in crates:
        for path, blocks in crate_pages(name, directory):
            add("crates", "crates", f"crates/{name}/{path.relative_to(directory).as_posix()}", blocks)

    # Documentation first (the Rust docs, then the crates' docs), library source to fill up.
    n = args.passages
    docs = groups["docs"]
    crates_taken = spread(groups["crates"], max(0, n - len(docs)))
    source_taken = spread(groups["source"], max(0, n - len(docs) - len(crates_taken)))
    chosen = spread(docs, n) + crates_taken + source_taken
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for pid, text in chosen:
            f.write(json.dumps({"id": pid, "text": text}, ensure_ascii=False) + "\n")
    tmp.replace(args.out)

    queries = []
    by_hash = lambda cands: sorted(cands.items(), key=lambda kv: sha1(kv[0]))[:QUERIES_PER_GROUP]
    for h, rel in by_hash(heading_candidates):
        queries.append({"id": f"h{len(queries):03}", "query": heading_question(h), "from": f"{rel}: heading {h}"})
    for m, rel in by_hash(method_candidates):
        queries.append({"id": f"m{len(queries):03}", "query": method_question(m), "from": f"{rel}: method {m}"})
    qpath = args.queries or args.out.with_name("scale-queries.jsonl")
    with qpath.open("w", encoding="utf-8") as f:
        for q in queries:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")

    lens = sorted(len(t) for _, t in chosen)
    pct = lambda p: lens[min(len(lens) - 1, int(p / 100 * len(lens)))]
    in_range = sum(MIN_CHARS <= l <= MAX_CHARS for l in lens) / len(lens)
    print(
        f"{version} docs at {root}; {len(crates)} crates of Cargo.lock\n"
        f"pages read: {json.dumps(pages_read)}; unique passages: "
        f"{json.dumps({g: len(v) for g, v in groups.items()})}, by source {json.dumps(per_source)}\n"
        f"written: {len(chosen)} passages ({len(spread(docs, n))} docs, {len(crates_taken)} crates, "
        f"{len(source_taken)} source) to {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)\n"
        f"passage chars: min {lens[0]}, p10 {pct(10)}, median {pct(50)}, p90 {pct(90)}, max {lens[-1]}, "
        f"mean {sum(lens) / len(lens):.0f}; {in_range:.1%} within {MIN_CHARS}-{MAX_CHARS}\n"
        f"{len(queries)} questions ({len(heading_candidates)} heading and {len(method_candidates)} method "
        f"candidates) to {qpath}; {time.time() - started:.0f} s",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
