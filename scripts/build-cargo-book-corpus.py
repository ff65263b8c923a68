#!/usr/bin/env python3
"""Builds benches/retrieval/cargo-book/corpus.jsonl: the passages of the Cargo-book corpus.

    python3 scripts/build-cargo-book-corpus.py [BOOK_DIR] [--out FILE] [--url-base URL] [--check]

BOOK_DIR is the HTML of the Cargo book (mdBook output) that ships with the Rust toolchain's docs:
`<sysroot>/share/doc/rust/html/cargo` (default: Rust 1.95.0's copy, the one the committed corpus
was built from, else the one of `rustc --print sysroot`). Nothing is downloaded. Python 3 standard library only.

Every chapter page is read (not print.html, toc.html, 404.html, the search pages, nor CHANGELOG.html
— see EXCLUDED), its `<main>` element is converted to Markdown-like text (headings as `#`, `##`,
…; paragraphs; list items as `- ` / `1. `; definition lists as `- term` + indented description;
tables as `| a | b |` rows; code blocks fenced with ``` and kept verbatim) and cut into passages:

- at every h2; an h2 section longer than SPLIT_CHARS is cut again at its h3s (the part of the h2
  section before its first h3 is a passage of its own); the part of the page before its first h2
  is a passage too (its heading is the page's h1);
- a passage shorter than MIN_CHARS is merged into the previous passage of the same page (the
  first one of a page into the next one); a page whose whole text is shorter than that (the
  link-list pages such as commands/report-commands) gives no passage;
- `id` = `<page path without .html>#<anchor of the heading>` (`reference/profiles#opt-level`),
  `title` = `<page title> — <section heading>` (h3 passages: `<page> — <h2> › <h3>`),
  `text` = `# <page title>` line, then the section with its heading(s) (the page title is
  prepended, as the benchmark's first corpus prepends the dotted name: the text is what gets
  indexed, and "OPTIONS" alone does not say which command it belongs to),
  `url` = the page on doc.rust-lang.org with the anchor.

Passages are written in page-path order, then document order: deterministic for a given book.
`--check` lists the passage ids named by the queries.jsonl next to the output missing from the
built corpus (as after a rebuild from another toolchain's book) and writes nothing.
"""

import argparse
import html
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

SPLIT_CHARS = 6000  # an h2 section longer than this (its text) is split at its h3s
MIN_CHARS = 200  # a passage shorter than this is merged into its neighbour
SKIPPED_PAGES = {"print.html", "toc.html", "404.html", "searchindex.html", "search.html"}
# The release notes: one-line change entries by version, not documentation of how Cargo works.
EXCLUDED = {"CHANGELOG.html"}

BLOCK_TAGS = {"p", "pre", "ul", "ol", "dl", "table", "blockquote", "div", "hr", "h1", "h2", "h3", "h4", "h5", "h6"}
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}


class MainToBlocks(HTMLParser):
    """Converts the `<main>` element of an mdBook page into a list of blocks:
    ("heading", level, anchor, text) and ("text", markdown)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.in_main = 0
        self.blocks = []
        self.buf = []  # inline text of the current paragraph-like block
        self.lists = []  # stack of ["ul"|"ol"|"dl", counter]
        self.pre = 0
        self.pre_buf = []
        self.heading = None  # [level, anchor, [text]]
        self.skip = 0  # inside <script>/<style>/<button>
        self.quote = 0
        self.row = None  # cells of the current table row
        self.cell = None
        self.inline_code = 0

    # -- helpers ----------------------------------------------------------------------------
    def _indent(self):
        depth = sum(1 for kind, _ in self.lists if kind in ("ul", "ol", "dl"))
        return "  " * max(depth - 1, 0)

    def flush(self):
        raw = "".join(self.buf)
        self.buf = []
        text = " ".join(raw.split())
        if not text:
            return
        text = raw[: len(raw) - len(raw.lstrip(" "))] + text  # keep a list item's indentation
        if self.quote:
            text = "> " + text
        self.blocks.append(("text", text))

    def _prefix_item(self, marker):
        self.flush()
        self.buf.append(self._indent() + marker)

    # -- parser callbacks -------------------------------------------------------------------
    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "main":
            self.in_main += 1
            return
        if not self.in_main:
            return
        if tag in ("script", "style", "button"):
            self.skip += 1
            return
        if self.skip:
            return
        if self.pre:
            return  # code blocks are kept as their text only
        if tag in HEADINGS:
            self.flush()
            self.heading = [HEADINGS[tag], attrs.get("id", ""), []]
        elif tag == "pre":
            self.flush()
            self.pre = 1
            self.pre_buf = []
        elif tag == "p":
            if not self.lists:
                self.flush()
            elif not "".join(self.buf).strip():
                # A paragraph opening a description (or following another one): indented.
                self.buf = [self._indent() + "  "]
            elif not re.fullmatch(r"\s*(-|\d+\.)\s*", "".join(self.buf)):
                # A second paragraph inside a list item / description: its own line, indented.
                self.flush()
                self.buf.append(self._indent() + "  ")
        elif tag in ("ul", "ol", "dl"):
            self.flush()
            self.lists.append([tag, 0])
        elif tag == "li":
            kind = self.lists[-1] if self.lists else ["ul", 0]
            kind[1] += 1
            self._prefix_item(f"{kind[1]}. " if kind[0] == "ol" else "- ")
        elif tag == "dt":
            self._prefix_item("- ")
        elif tag == "dd":
            self.flush()
            self.buf.append(self._indent() + "  ")
        elif tag == "blockquote":
            self.flush()
            self.quote += 1
        elif tag == "tr":
            self.flush()
            self.row = []
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "br":
            self._text(" ")
        elif tag == "code" and not self.pre:
            self.inline_code += 1
            self._text("`")
        elif tag == "img":
            self._text(attrs.get("alt") or "")
        elif tag in ("div", "hr"):
            self.flush()

    def handle_endtag(self, tag):
        if tag == "main":
            self.flush()
            self.in_main -= 1
            return
        if not self.in_main:
            return
        if tag in ("script", "style", "button"):
            self.skip = max(self.skip - 1, 0)
            return
        if self.skip:
            return
        if self.pre:
            if tag == "pre":
                code = "".join(self.pre_buf).rstrip("\n")
                self.pre = 0
                self.blocks.append(("text", "```\n" + code + "\n```"))
            return
        if tag in HEADINGS and self.heading:
            level, anchor, parts = self.heading
            self.heading = None
            self.blocks.append(("heading", level, anchor, " ".join("".join(parts).split())))
        elif tag in ("p", "li", "dt", "dd", "div"):
            self.flush()
        elif tag in ("ul", "ol", "dl"):
            self.flush()
            if self.lists:
                self.lists.pop()
        elif tag == "blockquote":
            self.flush()
            self.quote = max(self.quote - 1, 0)
        elif tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.blocks.append(("text", "| " + " | ".join(self.row) + " |"))
            self.row = None
        elif tag == "code":
            self.inline_code = max(self.inline_code - 1, 0)
            self._text("`")

    def _text(self, data):
        if self.heading is not None:
            if data != "`":
                self.heading[2].append(data)
            else:
                self.heading[2].append("")
        elif self.cell is not None:
            self.cell.append(data)
        else:
            self.buf.append(data)

    def handle_data(self, data):
        if not self.in_main or self.skip:
            return
        if self.pre:
            self.pre_buf.append(data)
            return
        self._text(data)


def page_blocks(path: Path):
    source = path.read_text(encoding="utf-8")
    title_match = re.search(r"<title>(.*?)</title>", source, re.S)
    parser = MainToBlocks()
    parser.feed(source)
    parser.close()
    page_title = None
    for b in parser.blocks:
        if b[0] == "heading" and b[1] == 1:
            page_title = b[3]
            break
    if page_title is None and title_match:
        page_title = html.unescape(title_match.group(1)).replace(" - The Cargo Book", "").strip()
    return page_title or path.stem, parser.blocks


def render(blocks):
    out = []
    for b in blocks:
        if b[0] == "heading":
            out.append("#" * b[1] + " " + b[3])
        elif out and b[1].startswith("| ") and out[-1].startswith("| "):
            out[-1] += "\n" + b[1]  # rows of one table on consecutive lines
        else:
            out.append(b[1])
    return "\n\n".join(out)


def sections(blocks, level):
    """Cuts `blocks` at headings of `level`: [(heading block or None, blocks incl. heading)]."""
    out = [[None, []]]
    for b in blocks:
        if b[0] == "heading" and b[1] == level:
            out.append([b, [b]])
        else:
            out[-1][1].append(b)
    return [(h, bs) for h, bs in out if h is not None or any(x[0] == "text" for x in bs) or bs]


def page_passages(rel: str, page_title: str, blocks, url_base: str):
    stem = rel[: -len(".html")]
    raw = []  # (anchor, section title, blocks)
    h1 = next((b for b in blocks if b[0] == "heading" and b[1] == 1), None)
    for h2, h2_blocks in sections(blocks, 2):
        if h2 is None:  # the page's intro, under its h1
            body = [b for b in h2_blocks if not (b[0] == "heading" and b[1] == 1)]
            if not any(b[0] == "text" for b in body) and not any(b[0] == "heading" for b in body):
                continue
            raw.append((h1[2] if h1 else "", page_title, h1, [], body))
            continue
        if len(render(h2_blocks)) > SPLIT_CHARS:
            for h3, h3_blocks in sections(h2_blocks[1:], 3):
                if h3 is None:
                    raw.append((h2[2], h2[3], h2, [], h3_blocks))
                else:
                    raw.append((h3[2], f"{h2[3]} › {h3[3]}", h2, [h3], h3_blocks[1:]))
        else:
            raw.append((h2[2], h2[3], h2, [], h2_blocks[1:]))

    passages = []
    for anchor, section, top, subs, body in raw:
        heading_blocks = ([top] if top is not None and top[1] != 1 else []) + subs
        text = "# " + page_title + "\n\n" + render(heading_blocks + list(body))
        passages.append(
            {
                "id": f"{stem}#{anchor}",
                "title": page_title if section == page_title else f"{page_title} — {section}",
                "text": text.strip(),
                "url": f"{url_base}{rel}#{anchor}",
                "_body": render(heading_blocks + list(body)),
            }
        )

    # Merge passages shorter than MIN_CHARS into the previous one (the first into the next).
    merged = []
    for p in passages:
        if merged and len(p["text"]) < MIN_CHARS:
            merged[-1]["text"] += "\n\n" + p["_body"]
            merged[-1]["_body"] += "\n\n" + p["_body"]
        else:
            merged.append(p)
    if len(merged) > 1 and len(merged[0]["text"]) < MIN_CHARS:
        first, second = merged[0], merged[1]
        second["text"] = first["text"] + "\n\n" + second["_body"]
        second["id"], second["title"], second["url"] = first["id"], first["title"], first["url"]
        merged = merged[1:]
    for p in merged:
        del p["_body"]
    # What is still too short is a page that is only a list of links (commands/report-commands).
    return [p for p in merged if len(p["text"]) >= MIN_CHARS]


DEFAULT_BOOK = Path("/root/.rustup/toolchains/1.95.0-x86_64-unknown-linux-gnu/share/doc/rust/html/cargo")


def default_book_dir() -> Path:
    """The 1.95.0 toolchain's book when it is there, else the book of `rustc --print sysroot`."""
    if (DEFAULT_BOOK / "index.html").exists():
        return DEFAULT_BOOK
    try:
        sysroot = subprocess.run(
            ["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return DEFAULT_BOOK
    return Path(sysroot) / "share/doc/rust/html/cargo"


def default_url_base(book: Path) -> str:
    """doc.rust-lang.org serves each release's book under /<version>/cargo/: the version is the one
    of the toolchain the book belongs to (`<sysroot>/bin/rustc --version`, the book being
    `<sysroot>/share/doc/rust/html/cargo`), else the unversioned book."""
    rustc = book.resolve().parents[4] / "bin" / "rustc" if len(book.resolve().parents) > 4 else None
    try:
        out = subprocess.run([str(rustc), "--version"], capture_output=True, text=True, check=True).stdout
        m = re.match(r"rustc (\d+\.\d+\.\d+) ", out)
    except (OSError, TypeError, subprocess.CalledProcessError):
        m = None
    return f"https://doc.rust-lang.org/{m.group(1)}/cargo/" if m else "https://doc.rust-lang.org/cargo/"


def build(book: Path, url_base: str):
    pages = sorted(
        p.relative_to(book).as_posix()
        for p in book.rglob("*.html")
        if p.name not in SKIPPED_PAGES and p.relative_to(book).as_posix() not in EXCLUDED
    )
    corpus = []
    for rel in pages:
        title, blocks = page_blocks(book / rel)
        if not blocks:
            continue
        corpus.extend(page_passages(rel, title, blocks, url_base))
    ids = [p["id"] for p in corpus]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise SystemExit(f"build-cargo-book-corpus: duplicate ids {sorted(dupes)}")
    return pages, corpus


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", nargs="?", type=Path, default=None, help="the Cargo book's HTML directory")
    parser.add_argument("--out", type=Path, default=root / "benches/retrieval/cargo-book/corpus.jsonl")
    parser.add_argument("--url-base", default=None, help="URL of the book (default: from the toolchain version)")
    parser.add_argument("--check", action="store_true", help="only report query labels missing from the built corpus")
    args = parser.parse_args()

    book = args.book or default_book_dir()
    if not (book / "index.html").exists():
        print(f"build-cargo-book-corpus: no Cargo book at {book}", file=sys.stderr)
        return 2
    pages, corpus = build(book, args.url_base or default_url_base(book))

    ids = {p["id"] for p in corpus}
    missing = []
    queries = args.out.parent / "queries.jsonl"
    if queries.exists():
        for line in queries.read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                missing += [f"{q['id']}: {r}" for r in q["relevant"] if r not in ids]
    for m in missing:
        print(f"build-cargo-book-corpus: label not in corpus: {m}", file=sys.stderr)
    if args.check:
        return 1 if missing else 0

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for p in corpus:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    print(
        f"build-cargo-book-corpus: {len(pages)} pages, {len(corpus)} passages, "
        f"{args.out.stat().st_size} bytes -> {args.out}",
        file=sys.stderr,
    )
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
