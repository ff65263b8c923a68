"""Python peers of the in-process performance bench (benches/perf/main.rs).

Run by the bench with the interpreter of $HOME/.cache/lore/tools/bench-venv (scripts/bench-perf.sh
installs the pinned packages there). Every subcommand prints one JSON document on stdout.

  peers.py versions
  peers.py chunk   --size CHARS --overlap CHARS --min-seconds S FILE...  (LangChain splitters)
  peers.py gen     --corpus corpus.jsonl --dir DIR     (the PDF, DOCX, XLSX, PPTX and EPUB files)
  peers.py extract --min-seconds S FILE...             (pypdf, python-docx, openpyxl, python-pptx, ebooklib)

Timing: each measurement repeats the operation (after one untimed warm-up run) until at least
--min-seconds have passed and at least 3 runs were made, and reports every run's seconds; the
bench takes the median. Only the operation is timed: files are read into memory first.
"""

import argparse
import io
import json
import random
import sys
import time
import zlib


def timed_runs(fn, min_seconds, min_runs=3):
    result = fn()  # warm-up, untimed
    runs = []
    total = 0.0
    while len(runs) < min_runs or total < min_seconds:
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        runs.append(elapsed)
        total += elapsed
    return result, runs


def cmd_versions(_args):
    from importlib.metadata import version

    out = {"python": sys.version.split()[0]}
    for pkg in ("langchain-text-splitters", "pypdf", "python-docx", "openpyxl", "python-pptx", "EbookLib", "lxml"):
        out[pkg] = version(pkg)
    print(json.dumps(out))


def cmd_chunk(args):
    from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

    # Characters (Python `len`, code points) as the unit, like text-splitter's default sizer.
    plain = RecursiveCharacterTextSplitter(chunk_size=args.size, chunk_overlap=args.overlap)
    markdown = RecursiveCharacterTextSplitter.from_language(
        Language.MARKDOWN, chunk_size=args.size, chunk_overlap=args.overlap
    )
    results = []
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for mode, splitter in (("text", plain), ("markdown", markdown)):
            chunks, runs = timed_runs(lambda: splitter.split_text(text), args.min_seconds)
            results.append(
                {
                    "file": path,
                    "mode": mode,
                    "bytes": len(text.encode("utf-8")),
                    "chunks": len(chunks),
                    "max_chunk_chars": max((len(c) for c in chunks), default=0),
                    "runs": runs,
                }
            )
    print(json.dumps(results))


# ---------------------------------------------------------------- test files

def passages(corpus):
    out = []
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                p = json.loads(line)
                out.append((p["title"], p["text"]))
    return out


def wrap(text, width):
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def pdf_literal(s):
    raw = s.encode("cp1252", errors="replace")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def write_pdf(path, pages_lines, title):
    """A plain PDF 1.4: Helvetica (WinAnsiEncoding), one Flate-compressed content stream per page,
    a classic xref table. What word processors' "save as PDF" produce, minus embedded fonts."""
    objects = {}
    n_pages = len(pages_lines)
    # 1 catalog, 2 pages, 3 font, 4 info, then page i: 5 + 2i (page), 6 + 2i (contents).
    kids = " ".join(f"{5 + 2 * i} 0 R" for i in range(n_pages))
    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[2] = f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode()
    objects[3] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    objects[4] = b"<< /Title " + pdf_literal(title) + b" /Producer (lore perf bench) >>"
    for i, lines in enumerate(pages_lines):
        ops = [b"BT", b"/F1 10 Tf", b"12 TL", b"56 786 Td"]
        for line in lines:
            ops.append(pdf_literal(line) + b" Tj T*")
        ops.append(b"ET")
        data = zlib.compress(b"\n".join(ops), 6)
        objects[5 + 2 * i] = (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {6 + 2 * i} 0 R >>"
        ).encode()
        objects[6 + 2 * i] = (
            f"<< /Length {len(data)} /Filter /FlateDecode >>\nstream\n".encode() + data + b"\nendstream"
        )
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for num in sorted(objects):
        offsets[num] = out.tell()
        out.write(f"{num} 0 obj\n".encode() + objects[num] + b"\nendobj\n")
    xref = out.tell()
    size = max(objects) + 1
    out.write(f"xref\n0 {size}\n".encode())
    out.write(b"0000000000 65535 f \n")
    for num in range(1, size):
        out.write(f"{offsets[num]:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {size} /Root 1 0 R /Info 4 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    with open(path, "wb") as f:
        f.write(out.getvalue())


def without_thumbnail(data):
    """The DOCX without python-docx's template thumbnail (docProps/thumbnail.jpeg and its
    relationship): lore-extract 0.1 refuses a DOCX with a JPEG part (the bench reports it)."""
    import re
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename == "docProps/thumbnail.jpeg":
                continue
            body = src.read(info.filename)
            if info.filename == "_rels/.rels":
                body = re.sub(rb"<Relationship [^>]*thumbnail\.jpeg\"/>", b"", body)
            dst.writestr(info, body)
    return out.getvalue()


def cmd_gen(args):
    import docx

    ps = passages(args.corpus)
    made = []
    # PDFs: 60 lines of at most 95 characters per page, passages in a seeded random order.
    for pages in (10, 100, 400):
        rng = random.Random(pages)
        all_pages, lines = [], []
        while len(all_pages) < pages:
            title, text = ps[rng.randrange(len(ps))]
            for line in [title, *wrap(text, 95), ""]:
                lines.append(line)
                if len(lines) == 60:
                    all_pages.append(lines)
                    lines = []
                    if len(all_pages) == pages:
                        break
        path = f"{args.dir}/prose-{pages}p.pdf"
        write_pdf(path, all_pages, f"Lore perf bench, {pages} pages")
        made.append({"file": path, "kind": "pdf", "pages": pages, "largest": pages == 400})
    # DOCX: a heading and a paragraph per passage, python-docx's default template (Word styles).
    for n in (20, 500, 5000):
        rng = random.Random(n)
        d = docx.Document()
        d.core_properties.title = f"Lore perf bench, {n} passages"
        for _ in range(n):
            title, text = ps[rng.randrange(len(ps))]
            d.add_heading(title, level=2)
            d.add_paragraph(text)
        buf = io.BytesIO()
        d.save(buf)
        if n == 20:
            # python-docx's output as saved, thumbnail included: the bench checks that it is read.
            path = f"{args.dir}/prose-{n}-as-saved.docx"
            with open(path, "wb") as f:
                f.write(buf.getvalue())
            made.append({"file": path, "kind": "docx-as-saved", "passages": n})
        path = f"{args.dir}/prose-{n}.docx"
        with open(path, "wb") as f:
            f.write(without_thumbnail(buf.getvalue()))
        made.append({"file": path, "kind": "docx", "passages": n, "largest": n == 5000})
    made += gen_xlsx(ps, args.dir)
    made += gen_pptx(ps, args.dir)
    made += gen_epub(ps, args.dir)
    print(json.dumps(made))


def thirds(words):
    """`words` cut into three runs of nearly equal length, as text."""
    n = len(words)
    cuts = [0, (n + 2) // 3, (2 * n + 2) // 3, n]
    return [" ".join(words[cuts[i] : cuts[i + 1]]) for i in range(3)]


def gen_xlsx(ps, out_dir):
    """Workbooks by openpyxl: 4 sheets, each a header row and then one row per passage (an
    integer id, the title, the passage's words cut into three cells, the word count)."""
    import openpyxl

    made = []
    for rows in (1000, 10000, 50000):
        rng = random.Random(rows)
        wb = openpyxl.Workbook()
        wb.remove(wb.active)
        wb.properties.title = f"Lore perf bench, {rows} rows"
        sheets = 4
        for s in range(sheets):
            ws = wb.create_sheet(f"Passages {s + 1}")
            ws.append(["ID", "Title", "Text (1)", "Text (2)", "Text (3)", "Words"])
            for r in range(rows // sheets):
                title, text = ps[rng.randrange(len(ps))]
                words = text.split()
                ws.append([s * (rows // sheets) + r + 1, title, *thirds(words), len(words)])
        path = f"{out_dir}/table-{rows}r.xlsx"
        wb.save(path)
        made.append({"file": path, "kind": "xlsx", "rows": rows, "sheets": sheets, "largest": rows == 50000})
    return made


def gen_pptx(ps, out_dir):
    """Decks by python-pptx (its default template): per slide, the "Title and Content" layout
    with a passage's title, its sentences as the body's paragraphs, and the next passage as the
    speaker notes."""
    import pptx

    made = []
    for slides in (20, 200, 1000):
        rng = random.Random(slides)
        prs = pptx.Presentation()
        prs.core_properties.title = f"Lore perf bench, {slides} slides"
        layout = prs.slide_layouts[1]
        for _ in range(slides):
            title, text = ps[rng.randrange(len(ps))]
            slide = prs.slides.add_slide(layout)
            slide.shapes.title.text = title
            sentences = [s if s.endswith(".") else s + "." for s in text.split(". ") if s.strip()]
            slide.placeholders[1].text_frame.text = "\n".join(sentences)
            slide.notes_slide.notes_text_frame.text = ps[rng.randrange(len(ps))][1]
        path = f"{out_dir}/deck-{slides}s.pptx"
        prs.save(path)
        made.append({"file": path, "kind": "pptx", "slides": slides, "largest": slides == 1000})
    return made


def gen_epub(ps, out_dir):
    """Books by ebooklib: per chapter, an XHTML document with a heading and 20 passages (each a
    second-level heading and a paragraph: ~600 words, ~5 KB); the navigation document and the
    NCX as ebooklib writes them."""
    from html import escape

    from ebooklib import epub

    made = []
    for chapters in (10, 100, 400):
        rng = random.Random(chapters)
        book = epub.EpubBook()
        book.set_identifier(f"lore-perf-{chapters}")
        book.set_title(f"Lore perf bench, {chapters} chapters")
        book.set_language("en")
        items = []
        for c in range(chapters):
            body = [f"<h1>Chapter {c + 1}</h1>"]
            for _ in range(20):
                title, text = ps[rng.randrange(len(ps))]
                body.append(f"<h2>{escape(title)}</h2>\n<p>{escape(text)}</p>")
            item = epub.EpubHtml(title=f"Chapter {c + 1}", file_name=f"chap_{c + 1:04d}.xhtml", lang="en")
            item.content = "\n".join(body)
            book.add_item(item)
            items.append(item)
        book.toc = items
        book.add_item(epub.EpubNcx())
        book.add_item(epub.EpubNav())
        book.spine = ["nav", *items]
        path = f"{out_dir}/book-{chapters}c.epub"
        epub.write_epub(path, book)
        made.append({"file": path, "kind": "epub", "chapters": chapters, "largest": chapters == 400})
    return made


def extract_pdf(data):
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() for page in reader.pages)


def extract_docx(data):
    import docx

    d = docx.Document(io.BytesIO(data))
    parts = [p.text for p in d.paragraphs]
    for table in d.tables:
        for row in table.rows:
            parts.append("\t".join(cell.text for cell in row.cells))
    return "\n".join(parts)


def extract_xlsx(data):
    """openpyxl's fastest reading mode: read-only (streamed rows), cached values instead of
    formulas, every cell's value of every row of every sheet as text."""
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    parts = []
    for ws in wb.worksheets:
        for row in ws.iter_rows(values_only=True):
            parts.append("\t".join("" if v is None else str(v) for v in row))
    wb.close()
    return "\n".join(parts)


def extract_pptx(data):
    """Every shape's text frame of every slide, then the slide's notes."""
    import pptx

    prs = pptx.Presentation(io.BytesIO(data))
    parts = []
    for slide in prs.slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                parts.append(shape.text_frame.text)
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None:
                parts.append(notes.text)
    return "\n".join(parts)


def extract_epub(data):
    """The spine's documents in order, the navigation document left out (as ours does), each
    part's bytes as read (`item.content`; `EpubHtml.get_content()` would first re-render the
    document through its template) parsed by lxml.html, `text_content()`."""
    import ebooklib
    import lxml.html
    from ebooklib import epub

    book = epub.read_epub(io.BytesIO(data), {"ignore_ncx": True})
    items = {item.id: item for item in book.get_items()}
    parts = []
    for idref, _linear in book.spine:
        item = items.get(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT or isinstance(item, epub.EpubNav):
            continue
        parts.append(lxml.html.fromstring(item.content).text_content())
    return "\n".join(parts)


EXTRACTORS = {
    "pdf": extract_pdf,
    "docx": extract_docx,
    "xlsx": extract_xlsx,
    "pptx": extract_pptx,
    "epub": extract_epub,
}


def words(text):
    """Whitespace-separated tokens with a letter or digit (the bench counts ours the same way, so
    Markdown's `#`, `|` and `|---|` are not words)."""
    return sum(1 for w in text.split() if any(c.isalnum() for c in w))


def cmd_extract(args):
    results = []
    for path in args.files:
        with open(path, "rb") as f:
            data = f.read()
        fn = EXTRACTORS[path.rsplit(".", 1)[-1]]
        text, runs = timed_runs(lambda: fn(data), args.min_seconds)
        results.append({"file": path, "bytes": len(data), "text_chars": len(text), "words": words(text), "runs": runs})
    print(json.dumps(results))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("versions")
    c = sub.add_parser("chunk")
    c.add_argument("--size", type=int, required=True)
    c.add_argument("--overlap", type=int, required=True)
    c.add_argument("--min-seconds", type=float, default=1.0)
    c.add_argument("files", nargs="+")
    g = sub.add_parser("gen")
    g.add_argument("--corpus", required=True)
    g.add_argument("--dir", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--min-seconds", type=float, default=1.0)
    e.add_argument("files", nargs="+")
    args = ap.parse_args()
    {"versions": cmd_versions, "chunk": cmd_chunk, "gen": cmd_gen, "extract": cmd_extract}[args.cmd](args)


if __name__ == "__main__":
    main()
