#!/usr/bin/env python3
"""Writes the Summary table of docs/benchmarks.md from the bench scripts' own blocks.

    python3 scripts/bench-summary.py [--check] [PATH]      # PATH: docs/benchmarks.md by default

Each bench script rewrites only its marked block of the page (`<!-- NAME:begin … -->` …
`<!-- NAME:end -->`) from its results, then runs this program, which reads those blocks and
rewrites the table between `<!-- summary:begin -->` and `<!-- summary:end -->`: one row per budget
(below, ROWS), with its peer, the measured figure, the ratio and met/missed, each taken from the
block that holds that budget's figures, with the date and machine that block (or its `###`
section, for a section measured on its own) names.

Rows whose latest figures are in no block (prose of a run that did not write its block) are listed
by hand in the page's "not yet generated" table (between `<!-- summary-pending:begin` and
`<!-- summary-pending:end -->`); a budget listed there is left out of the generated table even if
a block could give an older figure for it. Remove it from that list once a run writes its block.

`--check`: write nothing, exit 1 if the table is not what this program would write or if a budget
is neither derivable nor in the "not yet generated" list. Python 3 standard library only.
"""
import re
import sys
from pathlib import Path

BEGIN = "<!-- summary:begin (written by scripts/bench-summary.py from the blocks below) -->"
BEGIN_PREFIX = "<!-- summary:begin"
END = "<!-- summary:end -->"
PENDING_PREFIX = "<!-- summary-pending:begin"
PENDING_END = "<!-- summary-pending:end -->"


class Missing(Exception):
    """A block, table or line a row needs is not on the page."""


# ---------------------------------------------------------------------------------------------
# Reading the page: blocks, their tables, and the date and machine each table was measured on.

BLOCK_RE = re.compile(r"<!-- ([a-z0-9-]+):begin\b[^>]*-->\n(.*?)<!-- \1:end -->", re.S)
# "Measured 2026-11-28 on Intel(R) Xeon(R) …", "measured on its own on 2026-12-02 (Intel Xeon, …",
# "Re-measured alone on 2026-12-02 (AMD EPYC, …", "Run 2026-11-27 on 2 cores (x86_64, AMD EPYC)".
WHEN_RE = re.compile(r"(?:[Mm]easured|\bRun)\b[^.\n]{0,40}?\b(\d{4})-(\d\d)-(\d\d)\b([^\n]{0,200})")
LOAD_RE = re.compile(r"load(?: average)?(?: at start)?(?: when [^0-9~]*)? ?~?(\d+(?:\.\d+)?)")


def when_label(match):
    """`MM-DD, Xeon` (and `, load ~N` when the machine was busy: load average ≥ 3)."""
    _, month, day, rest = match.groups()
    parts = [f"{month}-{day}"]
    for machine in ("Xeon", "EPYC"):
        if machine in rest:
            parts.append(machine)
            break
    load = LOAD_RE.search(rest)
    if load and float(load.group(1)) >= 3:
        parts.append(f"load ~{round(float(load.group(1)))}")
    return ", ".join(parts)


def split_row(line):
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [c.strip() for c in cells]


class Table:
    def __init__(self, header, rows, when):
        self.header, self.rows, self.when = header, rows, when

    def col(self, name):
        if name not in self.header:
            raise Missing(f"no column {name!r} in {self.header}")
        return self.header.index(name)

    def row(self, first_cell_prefix, **where):
        """The first row whose first cell starts with the prefix (and whose named cells equal `where`)."""
        for r in self.rows:
            if r[0].startswith(first_cell_prefix) and all(r[self.col(k)] == v for k, v in where.items()):
                return r
        raise Missing(f"no row {first_cell_prefix!r} {where} in table {self.header}")

    def cell(self, first_cell_prefix, column, **where):
        return self.row(first_cell_prefix, **where)[self.col(column)]


class Block:
    def __init__(self, name, text):
        self.name, self.text = name, text
        head = WHEN_RE.search(text)
        self.when = when_label(head) if head else None
        self.tables = []
        lines = text.split("\n")
        offset, i = 0, 0
        starts = []
        for line in lines:
            starts.append(offset)
            offset += len(line) + 1
        while i < len(lines):
            if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|\s*:?-", lines[i + 1]):
                header = split_row(lines[i])
                j = i + 2
                rows = []
                while j < len(lines) and lines[j].startswith("|"):
                    rows.append(split_row(lines[j]))
                    j += 1
                self.tables.append(Table(header, rows, self.section_when(starts[i])))
                i = j
            else:
                i += 1

    def section_when(self, pos):
        """The date of the table's own `###` section if it names one, else the block's."""
        section_start = self.text.rfind("\n### ", 0, pos)
        if section_start >= 0:
            found = list(WHEN_RE.finditer(self.text, section_start, pos))
            if found:
                return when_label(found[0])
        if self.when is None:
            raise Missing(f"block {self.name} names no date")
        return self.when

    def table(self, *columns):
        for t in self.tables:
            if all(c in t.header for c in columns):
                return t
        raise Missing(f"no table with columns {columns} in block {self.name}")

    def section(self, heading):
        """The text of one `### heading` section of the block (up to the next `###`)."""
        start = self.text.find(f"### {heading}")
        if start < 0:
            raise Missing(f"no section {heading!r} in block {self.name}")
        end = self.text.find("\n### ", start + 4)
        return self.text[start : end if end >= 0 else len(self.text)]


def blocks_of(doc):
    return {m.group(1): Block(m.group(1), m.group(2)) for m in BLOCK_RE.finditer(doc) if not m.group(1).startswith("summary")}


# ---------------------------------------------------------------------------------------------
# Figures.


def num(cell):
    text = cell.replace("**", "").replace(",", "")
    found = re.search(r"-?\d+(?:\.\d+)?", text)
    if not found:
        raise Missing(f"no number in {cell!r}")
    return float(found.group(0))


def fmt(x):
    """One rule for every figure: whole numbers from 100 up, one decimal from 10, two below."""
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def sig2(x):
    """A ratio the generator computes itself: two significant figures."""
    return f"{x:.2g}" if x < 10 else f"{x:.0f}"


def span(values, f=fmt):
    lo, hi = min(values), max(values)
    return f(lo) if f(lo) == f(hi) else f"{f(lo)}–{f(hi)}"


def plain(cell):
    return cell.replace("**", "").strip()


def met_word(ok):
    return "met" if ok else "**missed**"


def is_met(cell):
    text = plain(cell).lower()
    if "not met" in text or "missed" in text:
        return False
    if "met" in text:
        return True
    raise Missing(f"no verdict in {cell!r}")


def dated(text, when):
    return f"{text} ({when})"


# ---------------------------------------------------------------------------------------------
# The rows, in the Summary's order: budget → function of the blocks giving (peer, measured, ratio, met).

RETRIEVAL = [("retrieval-results", "CPython"), ("retrieval-results-cargo-book", "Cargo book"), ("retrieval-results-debian-faq", "Debian FAQ")]
HELD_OUT = {"Debian FAQ"}
HYBRID_RE = re.compile(
    r"^- `minilm` \([^)]*\): hybrid ([\d.]+) vs keyword ([\d.]+) and semantic ([\d.]+): [^(]*"
    r"\(([+\-−]?[\d.]+) over the better one; target \+([\d.]+): ([^)]*)\); "
    r"against the BM25 anchor ([\d.]+): ([\d.]+)× \(target ≥ ([\d.]+)×: ([^)]*)\)",
    re.M,
)


def minilm_hybrid(b):
    out = []
    for name, corpus in RETRIEVAL:
        block = b[name]
        m = HYBRID_RE.search(block.text)
        if not m:
            raise Missing(f"no MiniLM hybrid line in block {name}")
        hybrid, keyword, semantic, gain, _, gain_verdict, anchor, ratio, target, ratio_verdict = m.groups()
        better = ("semantic", semantic) if float(semantic) >= float(keyword) else ("keyword", keyword)
        out.append(dict(corpus=corpus, hybrid=hybrid, better=better, gain=gain.replace("−", "-"),
                        gain_met=is_met(gain_verdict), anchor=anchor, ratio=float(ratio),
                        target=float(target), ratio_met=is_met(ratio_verdict), when=block.table("embedder", "mode", "nDCG@10").when))
    return out


def corpora_measured(rows):
    names = " / ".join(f"{r['corpus']}{' (held out)' if r['corpus'] in HELD_OUT else ''}" for r in rows)
    whens = sorted({r["when"] for r in rows})
    return f"{' / '.join(r['hybrid'] for r in rows)}: {names} ({'; '.join(whens)})"


def verdict_over(rows, key, narrow=None):
    missed = [r["corpus"] for r in rows if not r[key]]
    if missed:
        return f"**missed** ({', '.join(missed)})"
    close = [r["corpus"] for r in rows if narrow and narrow(r)]
    return f"met ({', '.join(close)} narrowly)" if close else "met"


def row_hybrid_gain(b):
    rows = minilm_hybrid(b)
    modes = {r["better"][0] for r in rows}
    peer = (f"{modes.pop()} " + " / ".join(r["better"][1] for r in rows)) if len(modes) == 1 else " / ".join(" ".join(r["better"]) for r in rows)
    gain = " / ".join(r["gain"] if r["gain"].startswith(("+", "-")) else "+" + r["gain"] for r in rows)
    return peer, corpora_measured(rows), gain, verdict_over(rows, "gain_met")


def row_hybrid_bm25(b):
    rows = minilm_hybrid(b)
    return ("`rank_bm25` " + " / ".join(r["anchor"] for r in rows), corpora_measured(rows),
            " / ".join(f"{r['ratio']:.2f}" for r in rows) + "×",
            verdict_over(rows, "ratio_met", narrow=lambda r: r["ratio"] - r["target"] < 0.05))


def quality_rows(b, files, tool):
    t = b["extraction-quality"].table("file", "tool", "word recall", "line-end hyphen splits")
    return t, [r for r in t.rows if files(r[0]) and r[t.col("tool")] == tool]


def row_pdf_recall(b):
    t, ours = quality_rows(b, lambda f: f.endswith(".pdf"), "lore")
    _, peer = quality_rows(b, lambda f: f.endswith(".pdf"), "pypdf")
    recall, splits = t.col("word recall"), t.col("line-end hyphen splits")
    ok = min(num(r[recall]) for r in ours) >= 0.99 and max(num(r[splits]) for r in ours) == 0
    return (f"pypdf {span([num(r[recall]) for r in peer], lambda x: f'{x:.3f}')}, {span([num(r[splits]) for r in peer], lambda x: f'{x:.0f}')} splits",
            dated(f"{span([num(r[recall]) for r in ours], lambda x: f'{x:.3f}')}, {span([num(r[splits]) for r in ours], lambda x: f'{x:.0f}')} splits", t.when),
            "–", met_word(ok))


DOCX_PARTS = ("mammoth-footnotes.docx", "mammoth-endnotes.docx", "mammoth-text-box.docx")


def row_docx_parts(b):
    t, ours = quality_rows(b, lambda f: f in DOCX_PARTS, "lore")
    _, peer = quality_rows(b, lambda f: f in DOCX_PARTS, "python-docx")
    recall = t.col("word recall")
    if len(ours) != len(DOCX_PARTS) or len(peer) != len(DOCX_PARTS):
        raise Missing("extraction-quality: a DOCX part's rows are missing")
    ours_r = [r[recall] for r in ours]
    measured = f"{ours_r[0]} each" if len(set(ours_r)) == 1 else " / ".join(ours_r)
    return ("python-docx recall " + " / ".join(r[recall] for r in peer), dated(measured, t.when), "–",
            met_word(all(num(x) >= 0.99 for x in ours_r)))


def row_chunking(b):
    t = b["perf-inprocess"].table("document", "mode", "ours MB/s", "LangChain MB/s", "ratio", "budget ≥ 10×")
    by_mode = {m: [r for r in t.rows if r[t.col("mode")] == m] for m in ("text", "markdown")}
    ours = ", ".join(f"{'Markdown' if m == 'markdown' else m} {span([num(r[t.col('ours MB/s')]) for r in rs])}" for m, rs in by_mode.items())
    ratio = ", ".join(f"{'Markdown' if m == 'markdown' else m} {span([num(r[t.col('ratio')]) for r in rs], lambda x: f'{x:.1f}')}×" for m, rs in by_mode.items())
    return (f"LangChain {span([num(r[t.col('LangChain MB/s')]) for r in t.rows])} MB/s", dated(f"{ours} MB/s", t.when), ratio,
            met_word(all(is_met(r[t.col("budget ≥ 10×")]) for r in t.rows)))


def extraction(kind, note=""):
    def row(b):
        t = b["perf-inprocess"].table("file", "size", "ours MB/s", "peer", "peer MB/s", "ratio", "budget ≥ 5×")
        rows = [r for r in t.rows if r[0].startswith(kind + " ")]
        if not rows:
            raise Missing(f"no {kind} rows in the extraction table")
        peer = rows[0][t.col("peer")]
        return (f"{peer} {span([num(r[t.col('peer MB/s')]) for r in rows])} MB/s",
                dated(f"{span([num(r[t.col('ours MB/s')]) for r in rows])} MB/s", t.when),
                f"{span([num(r[t.col('ratio')]) for r in rows], lambda x: f'{x:.1f}')}×",
                met_word(all(is_met(r[t.col("budget ≥ 5×")]) for r in rows)) + note)
    return row


def row_minilm_ingest(b):
    block = b["perf-inprocess"]
    t = block.table("embedder", "chunks/s", "pass s (median)")
    ours = t.cell("ours:", "chunks/s")
    peer = t.cell("sentence-transformers", "chunks/s")
    m = re.search(r"Ratio ours / peer: \*\*([\d.]+)×\*\* \(budget ≥ 1×\): ([^.\n]*)", block.section("Ingest embedding"))
    if not m:
        raise Missing("no MiniLM ingest ratio line")
    return f"{peer} chunks/s", dated(f"{ours} chunks/s", t.when), f"{m.group(1)}×", met_word(is_met(m.group(2)))


def search_rows(b, mode):
    t = b["perf-inprocess"].table("chunks", "search", "index p99 ms", "budget p99 ≤ 10 ms")
    rows = [r for r in t.rows if r[t.col("search")].startswith(mode)]
    if len(rows) != 2:
        raise Missing(f"expected the 10k and 100k {mode} rows")
    return t, rows


def row_semantic_search(b):
    t, rows = search_rows(b, "semantic")
    floor = " / ".join(fmt(num(r[t.col("floor scan p50 / p99 ms")].split("/")[1])) for r in rows)
    p99 = " / ".join(r[t.col("index p99 ms")] for r in rows)
    recall = span([num(r[t.col("recall vs baseline")]) for r in rows], lambda x: f"{x:.3f}")
    return (f"exact-scan floor {floor} ms", dated(f"{p99} ms, recall {recall}", t.when),
            " / ".join(r[t.col("p99 ratio index / floor")] for r in rows),
            met_word(all(is_met(r[t.col("budget p99 ≤ 10 ms")]) for r in rows)))


def row_keyword_search(b):
    t, rows = search_rows(b, "keyword")
    return ("–", dated(" / ".join(r[t.col("index p99 ms")] for r in rows) + " ms", t.when), "–",
            met_word(all(is_met(r[t.col("budget p99 ≤ 10 ms")]) for r in rows)) + " (100k: borderline on a noisy host)")


def row_pg_real(b):
    t = b["perf-inprocess"].table("search", "p50 ms", "p99 ms", "recall@10 mean (worst)", "target")
    sem = t.row("semantic (HNSW, `ef_search` 100, default)")
    exact = t.row("semantic (exact scan")
    kw = t.row("keyword (BM25)")
    hy = t.row("hybrid (depth 40, `ef_search` 100, default)")
    p99, recall, target = t.col("p99 ms"), t.col("recall@10 mean (worst)"), t.col("target")
    measured = f"semantic {fmt(num(sem[p99]))} ms, recall {sem[recall].split()[0]}; keyword {fmt(num(kw[p99]))}; hybrid {fmt(num(hy[p99]))} ms"
    return (f"exact scan {fmt(num(exact[p99]))} ms p99", dated(measured, t.when), "–",
            met_word(all(is_met(r[target]) for r in (sem, kw, hy))))


def row_http_hybrid(b):
    t = b["perf-inprocess"].table("request", "p95 ms", "budget p95 ≤ 50 ms")
    ours = t.row("hybrid, first time asked")
    peer = t.row("peer: MiniLM embedding of the question alone")
    p95 = t.col("p95 ms")
    return (f"MiniLM alone p95 {fmt(num(peer[p95]))} ms", dated(f"{fmt(num(ours[p95]))} ms", t.when), "–",
            met_word(is_met(ours[t.col("budget p95 ≤ 50 ms")])))


def webhooks(b):
    return b["perf-inprocess"].table("what", "ours", "baseline", "ratio", "budget", "verdict")


def row_fanout(b):
    t = webhooks(b)
    r = t.row("fan-out, deliveries/s")
    return (f"raw receiver {fmt(num(r[t.col('baseline')]))} req/s", dated(f"{fmt(num(r[t.col('ours')]))}/s", t.when),
            f"{r[t.col('ratio')]}×", met_word(is_met(r[t.col("verdict")])))


def row_fanout_stretch(b):
    t = webhooks(b)
    ours = num(t.cell("fan-out, deliveries/s", "ours"))
    return "–", dated(f"{fmt(ours)}/s", t.when), "–", met_word(ours >= 10_000)


def row_retries(b):
    t = webhooks(b)
    r = t.row("retry timing")
    p99 = re.search(r"p99 (\d+(?:\.\d+)?)", r[t.col("ours")])
    if not p99:
        raise Missing("no retry p99")
    return "–", dated(f"p99 {p99.group(1)} ms late", t.when), "–", met_word(is_met(r[t.col("verdict")]))


def row_analytics(b):
    block = b["perf-inprocess"]
    t = block.table("measure", "p50 ms", "p99 ms")
    ours, scan = t.row("report (HTTP, counters)"), t.row("scan of the messages")
    m = re.search(r"Budget: report p99 ≤ \d+ ms: ([^(\n]*)\(([\d.]+)× faster than the scan at p50\)", block.text)
    if not m:
        raise Missing("no analytics budget line")
    return (f"scan of the messages p50 {fmt(num(scan[1]))} ms", dated(f"p50 {fmt(num(ours[1]))} / p99 {fmt(num(ours[2]))} ms", t.when),
            f"{m.group(2)}× faster at p50", met_word(is_met(m.group(1))))


def row_citations(b):
    block = b["perf-inprocess"]
    t = block.table("measure", "embedded, MiniLM p50 ms", "AWS, MiniLM p50 ms")
    first, model = t.row("first `citations` event"), t.row("model alone: first piece")
    cols = (t.col("embedded, MiniLM p50 ms"), t.col("AWS, MiniLM p50 ms"))
    text = block.section("Conversation answers")
    verdicts = []
    for who in ("embedded", "AWS"):
        m = re.search(rf"^- Budget, {who}, MiniLM: first `citations` p50 ≤ \d+ ms[^:]*: [\d.]+ ms, ([^,.(\n]*)", text, re.M)
        if not m:
            raise Missing(f"no {who} citations budget line")
        verdicts.append(f"{who} {met_word(is_met(m.group(1)))}")
    return ("stub model's first piece " + " / ".join(fmt(num(model[c])) for c in cols) + " ms",
            dated(" / ".join(fmt(num(first[c])) for c in cols) + " ms", t.when), "–",
            "; ".join(verdicts) + " (AWS on moto, which cannot judge it: see \"Conversation answers\")")


def process(b):
    return b["perf-process"].table("row", "ours", "peer / baseline (same run)", "ratio", "budget", "met?")


def first_of(cell):
    """`5.13 / 6.01 ms` → `5.13 ms` (the median of a median / p90 pair)."""
    text = plain(cell)
    m = re.match(r"^(.*?)(-?[\d.]+) / [\d.]+ (\S+)$", text)
    return f"{m.group(1)}{m.group(2)} {m.group(3)}" if m else text


def row_cold_start(b):
    t = process(b)
    r = t.row("Lambda cold start, spawn")
    ratio = plain(r[t.col("ratio")]).split(" / ")[0]
    return first_of(r[t.col("peer / baseline (same run)")]), dated(first_of(r[t.col("ours")]), t.when), ratio, met_word(is_met(r[t.col("met?")]))


AWS_COLD = [("chatbots", "`api-chatbots`: GET chatbot"), ("forms", "`api-forms`: GET form"), ("minds", "`api-minds`: GET Mind"),
            ("integrations", "`api-integrations`: GET auth/verify"), ("worker", "`ingest-worker`: one SQS ingest job")]


def row_aws_cold_start(b):
    t = process(b)
    prefix = "Lambda cold start on the AWS composition (moto + PostgreSQL), minus floor (median / p90): "
    rows = [(name, t.row(prefix + label)) for name, label in AWS_COLD]
    ours, ratio, met = t.col("ours"), t.col("ratio"), t.col("met?")
    measured = ", ".join(f"{name} {first_of(r[ours]).split()[0]}" for name, r in rows) + " ms"
    missed = [name for name, r in rows if not is_met(r[met])]
    verdict = "met" if not missed else "**missed**" + ("" if len(missed) == len(rows) else ", " + ", ".join(n for n, r in rows if is_met(r[met])) + " met")
    return (first_of(rows[0][1][t.col("peer / baseline (same run)")]), dated(measured, t.when),
            " / ".join(plain(r[ratio]).split(" / ")[0].rstrip("×") for _, r in rows) + "×", verdict)


def api(b):
    t = process(b)
    return t, t.row("API overhead, GET source detail"), t.row("API overhead, same run: throughput")


def row_api_p99(b):
    t, r, _ = api(b)
    return plain(r[t.col("peer / baseline (same run)")]), dated(plain(r[t.col("ours")]), t.when), plain(r[t.col("ratio")]), met_word(is_met(r[t.col("met?")]))


def row_api_rps(b):
    t, _, r = api(b)
    peer = plain(r[t.col("peer / baseline (same run)")])
    return (re.sub(r"\d+ req/s", lambda m: f"{fmt(num(m.group(0)))} req/s", peer), dated(f"{fmt(num(r[t.col('ours')]))} req/s", t.when),
            plain(r[t.col("ratio")]), met_word(is_met(r[t.col("met?")])))


def row_api_share(b):
    t, _, r = api(b)
    share = num(r[t.col("ours")]) / num(r[t.col("peer / baseline (same run)")].split("world")[1])
    return "as above", dated(f"{share * 100:.0f} %", t.when), f"{share:.2f}×", met_word(share >= 0.5)


def row_idle(b):
    t = process(b)
    local = t.row("Memory idle (start + one request): `lore serve`, `LORE_EMBEDDER=local`")
    minilm = t.row("Memory idle (start + one request): `lore serve`, default embedder")
    ours, ratio = t.col("ours"), t.col("ratio")
    return (plain(local[t.col("peer / baseline (same run)")]),
            dated(f"{num(local[ours]):.1f} / {num(minilm[ours]):.1f} MiB, lexical / MiniLM", t.when),
            f"{plain(local[ratio])} / {plain(minilm[ratio])}", met_word(is_met(local[t.col("met?")]) and is_met(minilm[t.col("met?")])))


def row_handler_peak(b):
    t = process(b)
    rows = [t.row(f"Memory peak (VmHWM), 10.0 MB PDF: `{f}` Lambda") for f in ("api-chatbots", "ingest-worker")]
    ours, ratio = t.col("ours"), t.col("ratio")
    measured = f"`api-chatbots` {num(rows[0][ours]):.1f}, `ingest-worker` {num(rows[1][ours]):.1f} MiB"
    return ("–", dated(measured, t.when), " / ".join(f"{num(r[ratio]):.2f}×" for r in rows) + " of budget",
            met_word(all(is_met(r[t.col("met?")]) for r in rows)))


def row_minilm_peak(b):
    t = process(b)
    r = t.row("Memory peak (VmHWM), 10.0 MB PDF: `lore serve`, default embedder (MiniLM)")
    peak = num(r[t.col("ours")])
    return "–", dated(f"`lore serve` {peak:.1f} MiB", t.when), f"{peak / 256:.2f}× of budget", met_word(peak <= 256)


def row_minilm_lambda(b):
    t = b["perf-process"].table("embedder", "chunks", "ingest", "chunks/s", "first search", "search median")
    local, minilm = t.row("`LORE_EMBEDDER=local`"), t.row("`LORE_EMBEDDER=minilm`")
    search, rate = t.col("search median"), t.col("chunks/s")
    ls, lr, ms, mr = num(local[search]), num(local[rate]), num(minilm[search]), num(minilm[rate])
    return (f"lexical: search {fmt(ls)} ms, {fmt(lr)} chunks/s", dated(f"search {fmt(ms)} ms, {fmt(mr)} chunks/s", t.when),
            f"{sig2(ms / ls)}× / {sig2(mr / lr)}×", "reported")


ROWS = [
    ("hybrid nDCG@10 ≥ better mode + 0.02 (MiniLM)", row_hybrid_gain),
    ("hybrid nDCG@10 ≥ 1.17 × BM25 (MiniLM)", row_hybrid_bm25),
    ("PDF word recall ≥ 0.99 vs pdftotext, no hyphen split", row_pdf_recall),
    ("DOCX footnotes, endnotes, text boxes extracted", row_docx_parts),
    ("chunking ≥ 10× LangChain, every size", row_chunking),
    ("PDF extraction ≥ 5× pypdf", extraction("PDF")),
    ("DOCX extraction ≥ 5× python-docx", extraction("DOCX", " (EPYC: not in every run)")),
    ("XLSX extraction ≥ 5× openpyxl (read-only)", extraction("XLSX")),
    ("PPTX extraction ≥ 5× python-pptx", extraction("PPTX")),
    ("EPUB extraction ≥ 5× ebooklib (+ lxml)", extraction("EPUB", " (out of reach against lxml, see the section)")),
    ("MiniLM ingest ≥ sentence-transformers", row_minilm_ingest),
    ("semantic search p99 ≤ 10 ms, exact, 10k / 100k", row_semantic_search),
    ("keyword search p99 ≤ 10 ms, 10k / 100k", row_keyword_search),
    ("pgvector keyword / hybrid p99 ≤ 50 ms, 100k chunks of one owner", None),
    ("pgvector semantic p99 ≤ 30 ms, 100k (HNSW)", None),
    ("pgvector keyword ranking = embedded index", None),
    ("AWS composition's nDCG@10 within 0.01 of the embedded backend's, every mode (MiniLM)", None),
    ("HTTP hybrid search p95 ≤ 50 ms, MiniLM, 10k", row_http_hybrid),
    ("analytics report p99 ≤ 50 ms, 100k messages / 90 days, embedded", row_analytics),
    ("webhook fan-out ≥ 1,000/s", row_fanout),
    ("webhook fan-out ≥ 10,000/s (stretch)", row_fanout_stretch),
    ("webhook retries ≤ 1 s late", row_retries),
    ("Lambda cold start ≤ 2× hello world, over floor", row_cold_start),
    ("AWS cold start ≤ 2× hello + `GetItem`, over floor", row_aws_cold_start),
    ("AWS cold start of each route group ≤ 2× a hello world making the same DynamoDB calls, over floor", None),
    ("pgvector at 100k chunks of real text (MiniLM): semantic p99 ≤ 30 ms with recall@10 ≥ 0.95, keyword and hybrid p99 ≤ 50 ms", row_pg_real),
    ("first `citations` of a streamed answer, p50, MiniLM, 10k chunks: embedded ≤ 30 ms / AWS ≤ 80 ms", row_citations),
    ("API p99 ≤ 5 ms, 32 connections", row_api_p99),
    ("API ≥ 10,000 req/s, 2 cores", row_api_rps),
    ("API ≥ 50 % of the hello world's req/s", row_api_share),
    ("`lore serve` idle ≤ 50 MB", row_idle),
    ("Lambda handler peak ≤ 128 MB, 10 MB PDF", row_handler_peak),
    ("MiniLM ingest peak ≤ 256 MiB, 10 MB PDF", row_minilm_peak),
    ("e5 ingest peak ≤ 300 MiB, 10 MB PDF; `lore serve` with e5 idle ≤ 50 MB", None),
    ("MiniLM on Lambda (reported, no budget)", row_minilm_lambda),
]
# (None: no block states this budget's figures yet; the row lives in the "not yet generated" list.)


def pending_budgets(doc):
    start = doc.find(PENDING_PREFIX)
    if start < 0:
        return set()
    end = doc.find(PENDING_END, start)
    if end < 0:
        raise SystemExit("docs/benchmarks.md: summary-pending:begin without its end marker")
    return {split_row(line)[0] for line in doc[start:end].split("\n")[1:] if line.startswith("|") and not line.startswith("|---")} - {"budget"}


def table_of(doc):
    blocks = blocks_of(doc)
    pending = pending_budgets(doc)
    lines = ["| budget | peer | measured | ratio | met? |", "|---|---|---|---|---|"]
    problems = []
    for budget, derive in ROWS:
        if budget in pending:
            continue
        if derive is None:
            problems.append(f"{budget}: no block gives its figures and it is not in the \"not yet generated\" list")
            continue
        try:
            cells = derive(blocks)
        except (Missing, KeyError) as e:
            problems.append(f"{budget}: {e}")
            continue
        lines.append("| " + " | ".join((budget,) + tuple(cells)) + " |")
    known = {budget for budget, _ in ROWS}
    problems += [f"{p}: in the \"not yet generated\" list but not a budget of ROWS" for p in sorted(pending - known)]
    return "\n".join(lines) + "\n", problems


def rewrite(doc):
    start, end = doc.find(BEGIN_PREFIX), doc.find(END)
    if start < 0 or end < start:
        raise SystemExit("docs/benchmarks.md has no <!-- summary:begin --> … <!-- summary:end --> markers")
    table, problems = table_of(doc)
    return doc[:start] + BEGIN + "\n" + table + doc[end:], problems


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    path = Path(args[0]) if args else Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
    doc = path.read_text()
    new, problems = rewrite(doc)
    for p in problems:
        print(f"bench-summary: {p}", file=sys.stderr)
    if check:
        if new != doc:
            print(f"bench-summary: the Summary of {path} is not what the blocks give; run python3 scripts/bench-summary.py", file=sys.stderr)
            return 1
        return 1 if problems else 0
    if new != doc:
        path.write_text(new)
        print(f"bench-summary: {path}: Summary rewritten from the blocks", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
