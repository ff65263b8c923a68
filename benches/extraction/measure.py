"""Extraction-quality metrics of scripts/bench-extraction.sh (docs/benchmarks.md).

Usage: measure.py CACHE_DIR EXTRACT_BIN OUT_MARKDOWN FILE...

For each file: the reference text (pdftotext for a PDF; for a DOCX, every `w:t` of the main
document, footnotes, endnotes, headers and footers, read with zipfile + ElementTree), then the
text of each tool (Lore's `extract_text` example, pypdf / python-docx). Per file and tool:
word recall and precision against the reference (multisets of lowercase word tokens), line-end
hyphen splits and accent splits left in the text. Writes a Markdown table.
"""

import collections
import re
import subprocess
import sys
import time
import zipfile
import xml.etree.ElementTree as ET

WORD = re.compile(r"\w+")
ACCENTS = "\u00a8\u00b4\u02c6\u02dc\u00b8\u02c7\u02da\u02d8\u02d9\u02dd\u02db\u00af"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def tokens(text):
    return collections.Counter(t.lower() for t in WORD.findall(text))


def recall_precision(ref, got):
    common = sum((ref & got).values())
    recall = common / max(1, sum(ref.values()))
    precision = common / max(1, sum(got.values()))
    return recall, precision


def hyphen_splits(text, ref_words):
    """A whitespace token ending in '-' followed by a lowercase token whose join (letters only)
    is a word of the reference: a line-end hyphenation left in the text."""
    parts = text.split()
    count = 0
    for left, right in zip(parts, parts[1:]):
        if left.endswith("-") and right[:1].islower():
            l = WORD.findall(left)
            r = WORD.findall(right)
            if l and r and (l[-1] + r[0]).lower() in ref_words:
                count += 1
    return count


def accent_splits(text):
    return sum(text.count(a) for a in ACCENTS)


MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"


def docx_reference(path):
    """The w:t text of the main document, notes, headers and footers, paragraph by paragraph
    (a text box's paragraphs on their own). Left out as Word shows them: the mc:Fallback copy
    of content stored twice, moved-from text (deleted text is w:delText, not w:t)."""
    paragraphs = []

    def walk(el, buf):
        if el.tag in (MC + "Fallback", W + "moveFrom"):
            return
        if el.tag == W + "p":
            own = []
            for child in el:
                walk(child, own)
            paragraphs.append("".join(own))
            return
        if el.tag == W + "t" and el.text:
            buf.append(el.text)
        for child in el:
            walk(child, buf)

    with zipfile.ZipFile(path) as z:
        pattern = r"word/(document\d*|footnotes|endnotes|header\d*|footer\d*)\.xml"
        for name in sorted(n for n in z.namelist() if re.fullmatch(pattern, n)):
            walk(ET.fromstring(z.read(name)), [])
    return "\n".join(paragraphs)


def run_lore(binary, path):
    started = time.perf_counter()
    out = subprocess.run([binary, path], capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if out.returncode != 0:
        return None, out.stderr.strip(), elapsed
    return out.stdout, None, elapsed


def run_pypdf(path):
    import pypdf

    started = time.perf_counter()
    reader = pypdf.PdfReader(path)
    text = "\n".join(page.extract_text() or "" for page in reader.pages)
    return text, None, time.perf_counter() - started


def run_python_docx(path):
    import docx

    started = time.perf_counter()
    document = docx.Document(path)
    parts = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.extend(cell.text for cell in row.cells)
    for section in document.sections:
        for hf in (section.header, section.footer):
            parts.extend(p.text for p in hf.paragraphs)
    return "\n".join(parts), None, time.perf_counter() - started


def main():
    cache, binary, out_md, *files = sys.argv[1:]
    rows = []
    for path in files:
        name = path.rsplit("/", 1)[-1]
        if path.endswith(".pdf"):
            ref = subprocess.run(["pdftotext", "-enc", "UTF-8", path, "-"], capture_output=True, text=True).stdout
            peers = [("pypdf", run_pypdf)]
        else:
            ref = docx_reference(path)
            peers = [("python-docx", run_python_docx)]
        ref_tokens = tokens(ref)
        ref_words = set(ref_tokens)
        tools = [("lore", lambda p: run_lore(binary, p))] + peers
        if path.endswith(".pdf"):
            tools.append(("pdftotext (ref)", lambda p: (ref, None, 0.0)))
        for tool, run in tools:
            try:
                text, error, _elapsed = run(path)
            except Exception as e:  # a peer that fails on a file is a result too
                text, error = None, f"{type(e).__name__}: {e}"
            if text is None:
                rows.append((name, sum(ref_tokens.values()), tool, "fails: " + error[:60], "", "", ""))
                continue
            got = tokens(text)
            recall, precision = recall_precision(ref_tokens, got)
            rows.append(
                (name, sum(ref_tokens.values()), tool, f"{recall:.3f}", f"{precision:.3f}",
                 str(hyphen_splits(text, ref_words)), str(accent_splits(text)))
            )
            print(f"{name:28} {tool:16} " + " ".join(rows[-1][3:]), flush=True)
    with open(out_md, "w") as f:
        f.write("| file | reference words | tool | word recall | word precision | line-end hyphen splits | accent splits |\n")
        f.write("| --- | ---: | --- | ---: | ---: | ---: | ---: |\n")
        for row in rows:
            f.write("| " + " | ".join(str(c) for c in row) + " |\n")


if __name__ == "__main__":
    main()
