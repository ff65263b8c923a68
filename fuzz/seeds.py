#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (docs/fuzzing.md) to fuzz/seeds/<target>/.

Small valid inputs of each format, in the targets' input encodings (the pdf and docx targets
read a first "mode" byte: even = the rest is a whole file, odd = the rest is pieces of a
document the target assembles). Deterministic: rerunning rewrites the same bytes.
"""

import io
import json
import os
import sys
import zipfile
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")


def write(target, name, data):
    os.makedirs(os.path.join(ROOT, target), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(ROOT, target, name), "wb") as f:
        f.write(data)


# ---------------------------------------------------------------------------------------- PDF

HELVETICA = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"


def stream(dictionary, content):
    if isinstance(content, str):
        content = content.encode("latin-1")
    return b"<< " + dictionary.encode() + b" /Length %d >>\nstream\n" % len(content) + content + b"\nendstream"


def pdf(objects, info=None):
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, obj in enumerate(objects):
        if isinstance(obj, str):
            obj = obj.encode("latin-1")
        offsets.append(len(out))
        out += b"%d 0 obj\n" % (i + 1) + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    info = b" /Info %d 0 R" % info if info else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, info, xref)
    return bytes(out)


def page(resources, contents="5 0 R"):
    return "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources %s /Contents %s >>" % (resources, contents)


CATALOG = "<< /Type /Catalog /Pages 2 0 R >>"
PAGES = "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
TEXT = "BT\n/F1 12 Tf\n72 720 Td\n(Quarterly report) Tj\n0 -16 Td\n(Second line \\(with parentheses\\).) Tj\nET"


def pdf_seeds():
    # A text page with an Info title.
    write("pdf", "text-title.bin", b"\0" + pdf([CATALOG, PAGES, page("<< /Font << /F1 4 0 R >> >>"), HELVETICA,
                                                 stream("", TEXT), "<< /Title (Quarterly Report) >>"], info=6))
    # A compressed content stream, a TJ array, and a UTF-16 title.
    body = zlib.compress(b"BT /F1 10 Tf 50 700 Td [(Kern)-120(ed) 30 (text)] TJ T* (next) ' ET")
    write("pdf", "flate-tj.bin", b"\0" + pdf([CATALOG, PAGES, page("<< /Font << /F1 4 0 R >> >>"), HELVETICA,
                                               stream("/Filter /FlateDecode", body),
                                               b"<< /Title <FEFF0054006900740065006C> >>"], info=6))
    # A form XObject called from the page, itself calling a nested form.
    form2 = stream("/Type /XObject /Subtype /Form /BBox [0 0 100 100]", "BT /F1 9 Tf 0 0 Td (inner form) Tj ET")
    form1 = stream("/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /XObject << /Y 7 0 R >> "
                   "/Font << /F1 4 0 R >> >>", "BT /F1 9 Tf 0 0 Td (outer form) Tj ET /Y Do")
    write("pdf", "forms.bin", b"\0" + pdf([CATALOG, PAGES, page("<< /Font << /F1 4 0 R >> /XObject << /X1 6 0 R >> >>"),
                                            HELVETICA, stream("", TEXT + "\n/X1 Do"), form1, form2]))
    # A font with a ToUnicode CMap and Differences.
    cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <00> <FF> "
            "endcodespacerange 2 beginbfchar <41> <0042> <42> <00E9> endbfchar endcmap end end")
    font = ("<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /Type /Encoding "
            "/Differences [65 /B /eacute] >> /ToUnicode 6 0 R >>")
    write("pdf", "tounicode.bin", b"\0" + pdf([CATALOG, PAGES, page("<< /Font << /F1 4 0 R >> >>"), font,
                                                stream("", "BT /F1 12 Tf 72 700 Td (ABAB) Tj ET"),
                                                stream("", cmap)]))
    # Assembled mode: a content stream, then a Type0 font as /F2 and a form as /X2.
    type0 = ("<< /Type /Font /Subtype /Type0 /BaseFont /Foo /Encoding /Identity-H /DescendantFonts [<< /Type /Font "
             "/Subtype /CIDFontType2 /BaseFont /Foo /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) "
             "/Supplement 0 >> /W [0 [500 600]] >>] >>")
    xform = stream("/Type /XObject /Subtype /Form /BBox [0 0 10 10]", "BT /F1 8 Tf (in X2) Tj ET")
    write("pdf", "assembled.bin", b"\x01" + b"\0OBJ\0".join([
        b"BT /F1 12 Tf 72 720 Td (Hello) Tj /F2 10 Tf <00010002> Tj ET q 1 0 0 1 5 5 cm /X2 Do Q",
        type0.encode(), xform]))
    write("pdf", "assembled-text.bin", b"\x01" + TEXT.encode())
    # The PDF bombs of tests/hostile/files.rs, small: a content stream inflating to 8 MB (over the
    # 4 MiB page cap), and 60 pages sharing one busy content stream (the total-content path, under
    # the caps; few enough that the instrumented parser reads them well within the fuzzer's 10 s
    # per input).
    bomb = zlib.compress(b"BT /F1 12 Tf (bomb) Tj ET\n" * (8 * 1024 * 1024 // 26), 9)
    write("pdf", "content-bomb.bin", b"\0" + pdf([CATALOG, PAGES, page("<< /Font << /F1 4 0 R >> >>"), HELVETICA,
                                                   stream("/Filter /FlateDecode", bomb)]))
    busy = zlib.compress(b"".join(b"BT /F1 9 Tf %d %d Td (busy %d) Tj ET\n" % (20 + (i % 10) * 50, 20 + i, i)
                                  for i in range(400)), 9)
    kids = " ".join("%d 0 R" % (5 + i) for i in range(60))
    pages = ("<< /Type /Pages /Kids [%s] /Count 60 /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> >>"
             % kids)
    write("pdf", "busy-pages.bin", b"\0" + pdf([CATALOG, pages, stream("/Filter /FlateDecode", busy), HELVETICA]
                                                + ["<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>"] * 60))


# ---------------------------------------------------------------------------------------- DOCX

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'


def para(text, style=None, num=None):
    ppr = ""
    if style or num:
        ppr = "<w:pPr>"
        if style:
            ppr += '<w:pStyle w:val="%s"/>' % style
        if num:
            ppr += '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="%d"/></w:numPr>' % num
        ppr += "</w:pPr>"
    return '<w:p>%s<w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>' % (ppr, text)


def cell(text):
    return "<w:tc>%s</w:tc>" % para(text)


DOCUMENT = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document %s %s><w:body>' % (W, R)
            + para("Quarterly Report", style="Heading1")
            + para("Revenue grew in every region.")
            + '<w:p><w:r><w:t>Costs stayed</w:t></w:r><w:r><w:tab/><w:t> flat.</w:t><w:br/></w:r></w:p>'
            + para("Highlights", style="Heading2")
            + para("New office opened", num=1)
            + para("Hiring on track", num=1)
            + "<w:tbl><w:tr>%s%s</w:tr><w:tr>%s%s</w:tr></w:tbl>" % (cell("Region"), cell("Revenue"), cell("North"), cell("1200"))
            + '<w:p><w:hyperlink r:id="rId9"><w:r><w:t>a link</w:t></w:r></w:hyperlink>'
              '<w:ins w:id="1" w:author="a"><w:r><w:t> inserted</w:t></w:r></w:ins></w:p>'
            + '<w:sdt><w:sdtContent>%s</w:sdtContent></w:sdt>' % para("In a content control.")
            + "</w:body></w:document>")
STYLES = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:styles %s>'
          '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>'
          '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Heading1"/>'
          '<w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style></w:styles>' % W)
NUMBERING = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:numbering %s><w:abstractNum w:abstractNumId="0">'
             '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="-"/></w:lvl></w:abstractNum>'
             '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>' % W)
CORE = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<cp:coreProperties '
        'xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Quarterly Report</dc:title></cp:coreProperties>')
CONTENT_TYPES = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                 '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                 '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                 '<Default Extension="xml" ContentType="application/xml"/>'
                 '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
                 '</Types>')
RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>'
        '</Relationships>')
DOCUMENT_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                 '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                 '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>'
                 '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>'
                 '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/" TargetMode="External"/>'
                 '</Relationships>')


def docx(compression):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, text in [("[Content_Types].xml", CONTENT_TYPES), ("_rels/.rels", RELS),
                           ("word/_rels/document.xml.rels", DOCUMENT_RELS), ("word/document.xml", DOCUMENT),
                           ("word/styles.xml", STYLES), ("word/numbering.xml", NUMBERING), ("docProps/core.xml", CORE)]:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = compression
            z.writestr(info, text)
    return buf.getvalue()


def docx_seeds():
    write("docx", "stored.bin", b"\0" + docx(zipfile.ZIP_STORED))
    write("docx", "deflated.bin", b"\0" + docx(zipfile.ZIP_DEFLATED))
    write("docx", "parts.bin", b"\x01" + b"\0PART\0".join(p.encode() for p in [DOCUMENT, STYLES, NUMBERING, CORE]))
    write("docx", "document-only.bin", b"\x01" + DOCUMENT.encode())
    # The paragraph bomb of tests/hostile/files.rs, small: 20,000 one-word paragraphs of distinct
    # words (text-like compression, inside the zip-bomb ratio check; the full-size bomb is over the
    # paragraph cap).
    words = []
    for i in range(20000):
        word, n = "", i
        while True:
            word += chr(ord("a") + n % 26)
            n //= 26
            if n == 0:
                break
        words.append("<w:p><w:r><w:t>%s</w:t></w:r></w:p>" % word)
    bomb = '<?xml version="1.0" encoding="UTF-8"?><w:document %s><w:body>%s</w:body></w:document>' % (W, "".join(words))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in [("[Content_Types].xml", CONTENT_TYPES), ("_rels/.rels", RELS),
                           ("word/_rels/document.xml.rels",
                            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>'),
                           ("word/document.xml", bomb)]:
            z.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), text, zipfile.ZIP_DEFLATED)
    write("docx", "many-paragraphs.bin", b"\0" + buf.getvalue())


# ---------------------------------------------------------------------------------------- HTML

def html_seeds():
    write("html", "article.html", """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Quarterly Report | Example</title><style>p{color:red}</style><script>var x = "<p>no</p>";</script></head>
<body><nav><a href="/">Home</a></nav><header>Site banner</header>
<main><article><header><h1>Quarterly Report</h1></header>
<p>Revenue grew in <b>every</b> region.<br>Costs stayed flat.</p>
<h2>Highlights</h2><ul><li>New office opened</li><li>Hiring on <a href="x">track</a></li></ul>
<ol><li>first<ol><li>nested</li></ol></li></ol>
<table><thead><tr><th>Region</th><th>Revenue</th></tr></thead><tbody><tr><td>North</td><td>1200</td></tr></tbody></table>
<pre><code>let x = 1;
  indented</code></pre><blockquote>Quoted &amp; escaped &lt;text&gt; &eacute;</blockquote>
<dl><dt>Term</dt><dd>Definition</dd></dl><figure><img alt="chart"><figcaption>A chart</figcaption></figure>
</article></main><aside>Related</aside><footer role="contentinfo">Footer</footer></body></html>""")
    write("html", "legacy.html", b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">"
                                 b"</head><body><p>Caf\xe9 \x93quoted\x94</p><div role=\"navigation\">menu</div></body></html>")
    write("html", "bom-utf16.html", b"\xff\xfe" + "<p>UTF-16 page</p>".encode("utf-16-le"))
    write("html", "fragment.html", "<div><section><h3>Only a fragment</h3><p>text<p>unclosed <i>tags</div>")
    write("html", "markdown.md", "# Title\n\nSome *text* with a [link](https://example.com).\n\n- item\n- item\n\n```\ncode # not a heading\n```\n")
    write("html", "plain.txt", "Plain text\r\nwith CRLF line ends\tand a tab.\n\n\nParagraph two.\n")


# ---------------------------------------------------------------------------------------- bodies

def bodies_seeds():
    seeds = {
        "form.json": {"name": "Contact", "fields": [
            {"key": "name", "label": "Name", "type": "short_text", "required": True},
            {"key": "email", "label": "E-mail", "type": "email"},
            {"key": "n", "label": "N", "type": "number"},
            {"key": "d", "label": "Date", "type": "date"},
            {"key": "pick", "label": "Pick", "type": "checkboxes", "options": ["a", "b"]},
            {"key": "one", "label": "One", "type": "dropdown", "options": ["x", "y"]},
            {"key": "stars", "label": "Stars", "type": "rating", "max": 10},
            {"key": "f", "label": "File", "type": "file"},
            {"key": "ph", "label": "Phone", "type": "phone"}],
            "values": {"name": " Ada ", "email": "ada@example.com", "n": 1.5, "d": "2024-02-29",
                       "pick": ["a", "b"], "one": "x", "stars": 7, "f": "https://example.com/f.pdf", "ph": "+1 555 0100"},
            "source": "embed"},
        "mind.json": {"name": "Ada", "slug": "ada-lovelace", "headline": "Analyst", "bio": None,
                      "avatarUrl": "https://cdn.example.com/ada.png", "systemPrompt": "Be brief.",
                      "welcomeMessage": "Hi", "suggestedQuestions": ["Why?"], "expertiseAreas": ["math"],
                      "isPublished": True, "temperature": 0.7, "voiceId": "alloy", "voiceSpeed": 1.25,
                      "theme": {"primaryColor": "#112233", "fontFamily": "Inter, sans-serif", "mode": "dark"},
                      "socialLinks": {"twitter": "https://x.com/ada", "website": None}},
        "search.json": {"query": "refund policy", "topK": 10, "mode": "hybrid", "minScore": 0.25,
                        "sourceIds": ["src_0123456789abcdef"], "types": ["text", "url"]},
        "source.json": {"type": "url", "name": "Docs", "url": "https://example.com/docs", "crawlDepth": 3,
                        "content": "Some text"},
        "chatbot.json": {"name": "Support bot", "slug": "support", "descriptor": "Answers questions"},
        "hook.json": {"hookUrl": "https://example.com/hook", "event": "knowledge.source.*", "chatbotId": "bot_x"},
    }
    for name, value in seeds.items():
        write("bodies", name, json.dumps(value, indent=None, separators=(",", ":")))
    write("bodies", "retry.txt", "1m, 5m,30m,250ms,2h")
    write("bodies", "page.txt", "2&100")


if __name__ == "__main__":
    pdf_seeds()
    docx_seeds()
    html_seeds()
    bodies_seeds()
    print("seeds written to", ROOT, file=sys.stderr)
