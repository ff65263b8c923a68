#!/usr/bin/env python3
"""Builds benches/retrieval/debian-faq/corpus.jsonl: the passages of the Debian-FAQ corpus.

    python3 scripts/build-debian-faq-corpus.py [FAQ_DIR] [--lang LANG] [--deb FILE] [--out FILE] [--check]

`--lang LANG` (default `en`) builds one of the FAQ's translations instead, of the same version
11.1: fr, de, ja, zh-cn, ru (package `debian-faq-LANG`, pages `usr/share/doc/debian/FAQ/LANG/
*.LANG.html`, the .deb's SHA-256 pinned in LANGS), written by default to
benches/retrieval/debian-faq-LANG/corpus.jsonl (benches/retrieval/debian-faq-multilingual/
README.md). The translations are built from the same DocBook source, so their headings carry the
same anchors and every passage gets the id of the English passage of the same section; the
chapter words of the headings ("Chapitre 7.", "Kapitel 7.", "第7章", "第 7 章", "Глава 7.") are
dropped as "Chapter 7." is. A translated passage that is still (mostly) English is kept and
counted: the script prints how many passages are in the language and how many still English
(`--check` too).

The source is the HTML of **The Debian GNU/Linux FAQ** as shipped in the Debian package
`debian-faq`, version 11.1 (bookworm), under `usr/share/doc/debian/FAQ/*.en.html` (DocBook XSL
output, one page per chapter). By default the script fetches that exact package with
`apt-get download debian-faq=11.1` into a temporary directory, checks its SHA-256 (DEB_SHA256) and
unpacks it with `dpkg-deb -x`; `--deb FILE` uses a .deb already at hand (checked the same way,
e.g. one downloaded from https://deb.debian.org/debian/pool/main/d/debian-faq/ or
snapshot.debian.org), and FAQ_DIR an already unpacked `usr/share/doc/debian/FAQ` (not checked).
Python 3 standard library only (plus apt-get and dpkg-deb, for the fetch).

Every chapter page is read (not index.en.html: the title page — abstract, copyright notice and
table of contents), without its navigation header/footer and its table of contents; its text is
converted to Markdown-like text (headings as `#`, `##`, `###`, `####`; paragraphs; list items
as `- ` / `1. `; definition lists as `- term` + indented description; `<pre>` blocks fenced with
``` and kept verbatim; inline code in backticks; links and emphasis reduced to their text;
footnotes appended, as `[n] text`, to the passage that cites them) and cut into passages:

- one per numbered question/section: at every h2 and every h3 (the FAQ's questions are its h2s
  and, in the chapters that group them, h3s: "3.1.5. Could you tell me whether to install
  stable, testing or unstable?"); an h4 stays in its h3's passage; the part of an h2 before its
  first h3 is a passage of its own when it has text (it is a question with an answer too);
- the chapter's introduction (its text before the first h2), when there is one, is a passage of
  its own under the chapter's anchor if it is at least MIN_CHARS long, else it is put in front of
  the first section's body (that passage keeps the section's id): questions are never merged,
  however short their answers, since each is an article of its own (a translation follows the
  English cut: its introductions are always passages of their own, as all of 11.1's English ones
  are, so that the ids are the same although Japanese or Chinese text is shorter);
- `id` = `<page without .en.html>#<anchor of the heading>` (`pkg-basics#puttingonhold`),
  `title` = `<chapter title> — <section heading>` (h3 passages: `<chapter> — <h2> › <h3>`),
  headings without their numbers ("7.12." / "Chapter 7."),
  `text` = `# <chapter title>` line, then the section with its heading(s) (the chapter title is
  prepended as the other corpora prepend the page title or dotted name: the text is what gets
  indexed), `url` = the section on https://www.debian.org/doc/manuals/debian-faq/.

Passages are written in the FAQ's chapter order (the order of the table of contents in
index.en.html), then document order: deterministic for a given package. `--check` lists the
passage ids named by the queries.jsonl next to the output that are missing from the built corpus
and writes nothing.
"""

import argparse
import difflib
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

PACKAGE = "debian-faq"
VERSION = "11.1"
DEB_SHA256 = "427426e0cfa6888622fc1d72631071cb4b5a1f86ccde722e7820bcef284de5d0"
FAQ_SUBDIR = "usr/share/doc/debian/FAQ"
# The translations of the same version: package debian-faq-LANG, SHA-256 of
# debian-faq-LANG_11.1_all.deb as downloaded with apt-get download (Debian 12 bookworm, main).
LANGS = {
    "en": DEB_SHA256,
    "fr": "e83cbcc28106fc35f6665a6b0c54c2bd66db481de409764ce35b715baca510df",
    "de": "e9a8d8234f4b182660d521f80f50cea87f797b4541005a3d64fab7777766f6de",
    "ja": "7e2a2f200a963e41dead4dd8645e0dd6550e2eda4cd88041b8e880046ca924a2",
    "zh-cn": "3545356b1aa04d87e91dd15e8406210cf5b4f476662e597897bcb42234591758",
    "ru": "aaaae7a409c5cf5f5b8c26991f6ef484297e0cd2dee74c8d675cfa6613bce541",
}
URL_BASE = "https://www.debian.org/doc/manuals/debian-faq/"
MIN_CHARS = 200  # a chapter introduction shorter than this goes in front of the first section

HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
SKIPPED_DIV_CLASSES = {"navheader", "navfooter", "toc"}
NUMBER = re.compile(r"^(?:Chapter\s+)?\d+(?:\.\d+)*\.?\s+")
# The other languages' chapter numbers: "Chapitre 7." (fr), "Kapitel 7." (de), "Глава 7." (ru),
# "第7章" (ja), "第 7 章" (zh-cn); section numbers "7.1." as in English.
NUMBERS = {
    "en": NUMBER,
    "fr": re.compile(r"^(?:Chapitre\s+)?\d+(?:\.\d+)*\.?\s+"),
    "de": re.compile(r"^(?:Kapitel\s+)?\d+(?:\.\d+)*\.?\s+"),
    "ru": re.compile(r"^(?:Глава\s+)?\d+(?:\.\d+)*\.?\s+"),
    "ja": re.compile(r"^(?:第\s*\d+\s*章\s*|\d+(?:\.\d+)*\.?\s+)"),
    "zh-cn": re.compile(r"^(?:第\s*\d+\s*章\s*|\d+(?:\.\d+)*\.?\s+)"),
}


class PageToBlocks(HTMLParser):
    """Converts a DocBook XSL chapter page into a list of blocks: ("heading", level, anchor,
    text), ("text", markdown) and ("fnref", footnote id); the footnotes' own text goes to
    `self.footnotes` (id -> list of markdown paragraphs), not into the blocks."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks = []
        self.footnotes = {}
        self.buf = []  # inline text of the current paragraph-like block
        self.lists = []  # stack of ["ul"|"ol"|"dl", counter]
        self.pre = 0
        self.pre_buf = []
        self.heading = None  # [level, anchor, [text]]
        self.skip = 0  # inside <script>/<style>/<head>
        self.divs = []  # per open <div>: "skip", "footnote" or ""
        self.footnote = None  # id of the footnote being read
        self.inline_code = 0

    # -- helpers ----------------------------------------------------------------------------
    def _skipping(self):
        return self.skip or "skip" in self.divs

    def _indent(self):
        return "  " * max(len(self.lists) - 1, 0)

    def _emit(self, block):
        if self.footnote is not None:
            if block[0] == "text":
                self.footnotes.setdefault(self.footnote, []).append(block[1])
        else:
            self.blocks.append(block)

    def flush(self):
        raw = "".join(self.buf)
        self.buf = []
        text = " ".join(raw.split())
        if not text:
            return
        if self.lists:  # keep a list item's indentation (other leading spaces are the source's)
            text = raw[: len(raw) - len(raw.lstrip(" "))] + text
        self._emit(("text", text))

    def _prefix_item(self, marker):
        self.flush()
        self.buf.append(self._indent() + marker)

    def _text(self, data):
        if self.heading is not None:
            self.heading[2].append(data if data != "`" else "")
        else:
            self.buf.append(data)

    # -- parser callbacks -------------------------------------------------------------------
    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        if tag in ("script", "style", "head"):
            self.skip += 1
            return
        if tag == "div":
            if classes & SKIPPED_DIV_CLASSES:
                self.divs.append("skip")
                return
            if "footnote" in classes and (attrs.get("id") or "").startswith("ftn."):
                self.flush()
                self.divs.append("footnote")
                self.footnote = attrs["id"][len("ftn.") :]
                return
            self.divs.append("")
        if self._skipping():
            return
        if self.pre:
            return  # code blocks are kept as their text only
        if tag == "a" and "footnote" in classes and attrs.get("id"):
            # A footnote mark in the text: "[n]" stays inline, the note is appended later.
            self._emit(("fnref", attrs["id"]))
            return
        if tag == "a" and "para" in classes:
            return  # the "[n]" back-link at the start of a footnote: its text is kept
        if tag in HEADINGS:
            self.flush()
            self.heading = [HEADINGS[tag], "", []]
        elif tag == "a" and self.heading is not None and attrs.get("id") and not self.heading[1]:
            self.heading[1] = attrs["id"]  # DocBook puts the anchor in the heading: <a id=…>
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
        elif tag == "br":
            self._text(" ")
        elif tag == "code":
            self.inline_code += 1
            if self.inline_code == 1:  # DocBook nests <code> (a replaceable inside a literal)
                self._text("`")
        elif tag == "img":
            self._text(attrs.get("alt") or "")
        elif tag in ("div", "hr"):
            self.flush()

    def handle_endtag(self, tag):
        if tag in ("script", "style", "head"):
            self.skip = max(self.skip - 1, 0)
            return
        if tag == "div" and self.divs:
            kind = self.divs[-1]
            if kind == "skip":
                self.divs.pop()
                return
            if kind == "footnote":
                self.flush()
                self.divs.pop()
                self.footnote = None
                return
            if not self._skipping() and not self.pre:
                self.flush()
            self.divs.pop()
            return
        if self._skipping():
            return
        if self.pre:
            if tag == "pre":
                code = "".join(self.pre_buf).strip("\n")
                self.pre = 0
                self._emit(("text", "```\n" + code + "\n```"))
            return
        if tag in HEADINGS and self.heading:
            level, anchor, parts = self.heading
            self.heading = None
            self._emit(("heading", level, anchor, " ".join("".join(parts).split())))
        elif tag in ("p", "li", "dt", "dd"):
            self.flush()
        elif tag in ("ul", "ol", "dl"):
            self.flush()
            if self.lists:
                self.lists.pop()
        elif tag == "code":
            self.inline_code = max(self.inline_code - 1, 0)
            if self.inline_code == 0:
                self._text("`")

    def handle_data(self, data):
        if self._skipping():
            return
        if self.pre:
            self.pre_buf.append(data)
            return
        self._text(data)


def unnumbered(heading: str, lang: str = "en") -> str:
    return NUMBERS[lang].sub("", heading).strip()


def page_blocks(path: Path):
    parser = PageToBlocks()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    parser.flush()
    h1 = next((b for b in parser.blocks if b[0] == "heading" and b[1] == 1), None)
    if h1 is None:
        raise SystemExit(f"build-debian-faq-corpus: no chapter title in {path}")
    return h1, parser.blocks, parser.footnotes


def render(blocks, footnotes, lang="en"):
    out = []
    notes = []
    for b in blocks:
        if b[0] == "heading":
            out.append("#" * b[1] + " " + unnumbered(b[3], lang))
        elif b[0] == "fnref":
            notes.append(b[1])
        else:
            out.append(b[1])
    for note in notes:
        out.extend(footnotes.get(note, []))
    return "\n\n".join(out)


def page_passages(stem: str, h1, blocks, footnotes, lang="en"):
    chapter = unnumbered(h1[3], lang)
    # Cut at every h2 and h3: (anchor, heading blocks shown, body blocks).
    sections = [[None, [], []]]  # the chapter's introduction first
    current_h2 = None
    for b in blocks:
        if b[0] == "heading" and b[1] == 1:
            continue
        if b[0] == "heading" and b[1] == 2:
            current_h2 = b
            sections.append([b, [b], []])
        elif b[0] == "heading" and b[1] == 3:
            sections.append([b, [current_h2, b] if current_h2 else [b], []])
        else:
            sections[-1][2].append(b)

    passages = []
    intro = sections[0][2]
    for top, heads, body in sections[1:]:
        if not any(b[0] == "text" for b in body):
            continue  # an h2 whose text is all in its h3s
        section = " › ".join(unnumbered(h[3], lang) for h in heads)
        rendered = render(heads + body, footnotes, lang)
        passages.append(
            {
                "id": f"{stem}#{top[2]}",
                "title": f"{chapter} — {section}",
                "text": f"# {chapter}\n\n{rendered}",
                "url": f"{URL_BASE}{stem}.{lang}.html#{top[2]}",
            }
        )
    if any(b[0] == "text" for b in intro):
        rendered = render(intro, footnotes, lang)
        text = f"# {chapter}\n\n{rendered}"
        # A translation follows the English cut (in 11.1 every English introduction is a passage of
        # its own): its introductions are not measured, since CJK text is shorter for the same content.
        if len(text) >= MIN_CHARS or not passages or lang != "en":
            passages.insert(
                0, {"id": f"{stem}#{h1[2]}", "title": chapter, "text": text, "url": f"{URL_BASE}{stem}.{lang}.html"}
            )
        else:  # a short introduction: in front of the first section, after the chapter line
            first = passages[0]
            first["text"] = f"# {chapter}\n\n{rendered}\n\n" + first["text"][len(f"# {chapter}\n\n") :]
    return passages


def chapter_pages(faq: Path, lang="en"):
    """The chapter pages in the order of the FAQ's table of contents (index.LANG.html)."""
    index = (faq / f"index.{lang}.html").read_text(encoding="utf-8")
    pages = []
    for href in re.findall(r'href="([a-z0-9-]+)\.' + re.escape(lang) + r'\.html"', index):
        if href != "index" and href not in pages:
            pages.append(href)
    return pages


def build(faq: Path, lang="en"):
    corpus = []
    pages = chapter_pages(faq, lang)
    for stem in pages:
        h1, blocks, footnotes = page_blocks(faq / f"{stem}.{lang}.html")
        corpus.extend(page_passages(stem, h1, blocks, footnotes, lang))
    ids = [p["id"] for p in corpus]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise SystemExit(f"build-debian-faq-corpus: duplicate ids {sorted(dupes)}")
    return pages, corpus


def package(lang: str) -> str:
    return PACKAGE if lang == "en" else f"{PACKAGE}-{lang}"


def faq_subdir(lang: str) -> str:
    return FAQ_SUBDIR if lang == "en" else f"{FAQ_SUBDIR}/{lang}"


def check_deb(deb: Path, lang="en"):
    digest = hashlib.sha256(deb.read_bytes()).hexdigest()
    if digest != LANGS[lang]:
        raise SystemExit(f"build-debian-faq-corpus: {deb} has SHA-256 {digest}, expected {LANGS[lang]}")


def unpack(deb: Path, into: Path, lang="en") -> Path:
    check_deb(deb, lang)
    subprocess.run(["dpkg-deb", "-x", str(deb), str(into)], check=True)
    return into / faq_subdir(lang)


def fetch(into: Path, lang="en") -> Path:
    """`apt-get download debian-faq[-LANG]=11.1` into `into`; the .deb's path."""
    # (Run as root, apt-get warns that it downloads "unsandboxed" since its _apt user cannot write
    # to this private directory: harmless, the file is checked against LANGS anyway.)
    pkg = package(lang)
    into.mkdir()
    try:
        subprocess.run(["apt-get", "download", f"{pkg}={VERSION}"], cwd=into, check=True, stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(
            f"build-debian-faq-corpus: apt-get download {pkg}={VERSION} failed ({e}); "
            f"pass --deb with {pkg}_{VERSION}_all.deb from "
            "https://deb.debian.org/debian/pool/main/d/debian-faq/ or snapshot.debian.org"
        )
    debs = sorted(into.glob(f"{pkg}_*.deb"))
    if len(debs) != 1:
        raise SystemExit(f"build-debian-faq-corpus: apt-get download left {debs}")
    return debs[0]


# -- Which translated passages are still English --------------------------------------------------
# A translation may leave sections (or parts of them) in English. A passage counts as "still
# English" when at least half of its prose (its question headings, paragraphs and list items; not
# the chapter line nor its ``` blocks, which are commands and stay as they are) is an untranslated
# paragraph: one whose words (\w+, lower-cased) are at least SIMILAR alike (difflib's ratio) to those
# of a paragraph of the English passage with the same id (not identical: the cross-references inside
# an untranslated paragraph are translated, "see Раздел 8.1.2, «APT»"; not lower: a translated list
# of names, "`Buzz` für Release 1.1, `Rex` für Release 1.2", is 0.8 alike). The English corpus for
# the comparison is the committed one.
SIMILAR = 0.85


def prose_segments(text: str):
    segments, fenced = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
            continue
        line = line.strip()
        if fenced or not line or line.startswith("# "):
            continue
        line = re.sub(r"^(?:#+|-|\d+\.)\s+", "", line)
        if re.search(r"[^\W\d_]", line):  # has letters
            segments.append(" ".join(line.split()))
    return segments


def english_chars(text: str, english_text: str):
    """(characters of `text`'s prose that are untranslated English, characters of its prose)."""
    segments = prose_segments(text)
    english = prose_segments(english_text)
    total = sum(len(x) for x in segments)
    if not total:
        return 0, 0
    english = [re.findall(r"\w+", e.lower()) for e in english]
    untranslated = 0
    for seg in segments:
        words = re.findall(r"\w+", seg.lower())
        for e in english:
            m = difflib.SequenceMatcher(None, words, e, autojunk=False)
            if m.real_quick_ratio() >= SIMILAR and m.quick_ratio() >= SIMILAR and m.ratio() >= SIMILAR:
                untranslated += len(seg)
                break
    return untranslated, total


def english_share(text: str, english_text: str) -> float:
    """The part (by characters) of `text`'s prose that is untranslated English."""
    untranslated, total = english_chars(text, english_text)
    return untranslated / total if total else 0.0


def language_counts(corpus, english_corpus: Path):
    """(passages in the language, passages still English, ids of those, ids without an English
    counterpart, passages in the language but partly English: 10 % to 50 % of their prose, share of
    all the prose characters that are English)."""
    english = {}
    if english_corpus.exists():
        for line in english_corpus.read_text(encoding="utf-8").splitlines():
            if line.strip():
                p = json.loads(line)
                english[p["id"]] = p["text"]
    still, unmatched, partly, all_english, all_chars = [], [], 0, 0, 0
    for p in corpus:
        if p["id"] not in english:
            unmatched.append(p["id"])
            continue
        untranslated, total = english_chars(p["text"], english[p["id"]])
        all_english += untranslated
        all_chars += total
        share = untranslated / total if total else 0.0
        if share >= 0.5:
            still.append(p["id"])
        elif share >= 0.1:
            partly += 1
    return len(corpus) - len(still), len(still), still, unmatched, partly, all_english / max(all_chars, 1)


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("faq", nargs="?", type=Path, default=None, help="an unpacked usr/share/doc/debian/FAQ[/LANG]")
    parser.add_argument("--lang", default="en", choices=sorted(LANGS), help="the FAQ's language (default en)")
    parser.add_argument("--deb", type=Path, default=None, help=f"{PACKAGE}[-LANG]_{VERSION}_all.deb (default: apt-get download)")
    parser.add_argument("--out", type=Path, default=None, help="default benches/retrieval/debian-faq[-LANG]/corpus.jsonl")
    parser.add_argument("--check", action="store_true", help="only report query labels missing from the built corpus")
    args = parser.parse_args()
    lang = args.lang
    english_corpus = root / "benches/retrieval/debian-faq/corpus.jsonl"
    if args.out is None:
        args.out = english_corpus if lang == "en" else root / f"benches/retrieval/debian-faq-{lang}/corpus.jsonl"

    with tempfile.TemporaryDirectory(prefix="debian-faq-") as tmp:
        tmp = Path(tmp)
        if args.faq:
            faq = args.faq
        else:
            deb = args.deb or fetch(tmp / "deb", lang)
            faq = unpack(deb, tmp / "root", lang)
        if not (faq / f"index.{lang}.html").exists():
            print(f"build-debian-faq-corpus: no Debian FAQ ({lang}) at {faq}", file=sys.stderr)
            return 2
        pages, corpus = build(faq, lang)

    ids = {p["id"] for p in corpus}
    missing = []
    queries = args.out.parent / "queries.jsonl"
    if queries.exists():
        for line in queries.read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                missing += [f"{q['id']}: {r}" for r in q["relevant"] if r not in ids]
    for m in missing:
        print(f"build-debian-faq-corpus: label not in corpus: {m}", file=sys.stderr)
    if lang != "en":
        translated, still, still_ids, unmatched, partly, share = language_counts(corpus, english_corpus)
        print(
            f"build-debian-faq-corpus: {lang}: {translated} of {len(corpus)} passages in {lang} "
            f"({partly} of them with 10-50 % of their prose still English), "
            f"{100 * share:.1f} % of all the prose still English, "
            f"{still} still English{': ' + ' '.join(still_ids) if still_ids else ''}",
            file=sys.stderr,
        )
        for u in unmatched:
            print(f"build-debian-faq-corpus: {lang}: passage {u} has no English counterpart", file=sys.stderr)
        if unmatched:
            missing += unmatched
    if args.check:
        return 1 if missing else 0

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for p in corpus:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    print(
        f"build-debian-faq-corpus: {len(pages)} pages, {len(corpus)} passages, "
        f"{args.out.stat().st_size} bytes -> {args.out}",
        file=sys.stderr,
    )
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
