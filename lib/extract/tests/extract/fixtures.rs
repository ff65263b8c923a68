//! Test documents, generated in code.

use docx_rs::{Docx, IndentLevel, NumberingId, Paragraph, Run, Table, TableCell, TableRow};
use lore_app::ports::ExtractLimits;
use lore_extract::DocumentExtractor;
use std::io::{Cursor, Read, Write};
use std::time::Duration;
use zip::CompressionMethod;
use zip::write::SimpleFileOptions;

pub fn extractor() -> DocumentExtractor {
    DocumentExtractor::new()
}

pub fn limits() -> ExtractLimits {
    ExtractLimits { timeout: Duration::from_secs(30), ..ExtractLimits::default() }
}

// ------------------------------------------------------------------------------ PDF

/// The standard Helvetica font with the Windows ANSI encoding.
pub const HELVETICA: &str = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/// A one-page PDF written by hand: catalog, page tree, page, font, content stream and an
/// optional Info dictionary, with a correct cross-reference table.
pub fn pdf(content: &str, font: &str, title: Option<&str>) -> Vec<u8> {
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> \
         /Contents 5 0 R >>"
            .to_owned(),
        font.to_owned(),
        stream("", content),
    ];
    let info = title.map(|title| {
        objects.push(format!("<< /Title ({}) /Producer (lore tests) >>", pdf_escape(title)));
        objects.len()
    });
    pdf_objects(&objects, info)
}

/// A stream object with extra dictionary entries.
pub fn stream(dict: &str, content: &str) -> String {
    format!("<< {dict} /Length {} >>\nstream\n{content}\nendstream", content.len())
}

/// A PDF of the given objects (numbered from 1; object 1 is the catalog), with a correct
/// cross-reference table and an optional Info object.
pub fn pdf_objects(objects: &[String], info: Option<usize>) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    let info = info.map(|n| format!(" /Info {n} 0 R")).unwrap_or_default();
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R{info} >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes(),
    );
    out
}

/// A one-page PDF whose page shows "Page text" and calls form XObject `/X1` (object 6);
/// `forms` are objects 6, 7, … (use [`stream`]).
pub fn pdf_with_forms(forms: &[String]) -> Vec<u8> {
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
         /Resources << /Font << /F1 4 0 R >> /XObject << /X1 6 0 R >> >> /Contents 5 0 R >>"
            .to_owned(),
        HELVETICA.to_owned(),
        stream("", "BT /F1 12 Tf 72 720 Td (Page text) Tj ET\n/X1 Do"),
    ];
    objects.extend(forms.iter().cloned());
    pdf_objects(&objects, None)
}

/// A content stream showing each line of `paragraphs` in 12 pt Helvetica; paragraphs are
/// separated by a larger vertical gap than lines.
pub fn text_content(paragraphs: &[&[&str]]) -> String {
    let mut ops = String::from("BT\n/F1 12 Tf\n72 720 Td\n");
    for (p, lines) in paragraphs.iter().enumerate() {
        if p > 0 {
            ops.push_str("0 -36 Td\n");
        }
        for (l, line) in lines.iter().enumerate() {
            if l > 0 {
                ops.push_str("0 -16 Td\n");
            }
            ops.push_str(&format!("({}) Tj\n", pdf_escape(line)));
        }
    }
    ops.push_str("ET");
    ops
}

fn pdf_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)")
}

pub fn sample_pdf() -> Vec<u8> {
    let content = text_content(&[
        &["Lore extraction test", "Second line of the first paragraph."],
        &["A new paragraph (with parentheses)."],
    ]);
    pdf(&content, HELVETICA, Some("Quarterly Report"))
}

// ------------------------------------------------------------------------------ DOCX

fn text_paragraph(text: &str) -> Paragraph {
    Paragraph::new().add_run(Run::new().add_text(text))
}

fn cell(text: &str) -> TableCell {
    TableCell::new().add_paragraph(text_paragraph(text))
}

/// A DOCX built with docx-rs: a Heading1, two paragraphs, a Heading2, two list items and a
/// 2×2 table, then a closing paragraph.
pub fn sample_docx() -> Vec<u8> {
    let docx = Docx::new()
        .add_paragraph(text_paragraph("Quarterly Report").style("Heading1"))
        .add_paragraph(text_paragraph("Revenue grew in every region."))
        .add_paragraph(
            Paragraph::new().add_run(Run::new().add_text("Costs stayed")).add_run(Run::new().add_text(" flat.")),
        )
        .add_paragraph(text_paragraph("Highlights").style("Heading2"))
        .add_paragraph(text_paragraph("New office opened").numbering(NumberingId::new(1), IndentLevel::new(0)))
        .add_paragraph(text_paragraph("Hiring on track").numbering(NumberingId::new(1), IndentLevel::new(0)))
        .add_table(Table::new(vec![
            TableRow::new(vec![cell("Region"), cell("Revenue")]),
            TableRow::new(vec![cell("North"), cell("1200")]),
        ]))
        .add_paragraph(text_paragraph("End of report."));
    let mut out = Cursor::new(Vec::new());
    docx.build().pack(&mut out).expect("docx-rs writes the document");
    out.into_inner()
}

/// The same package with `docProps/core.xml` replaced by one carrying `title`.
pub fn with_core_title(docx: &[u8], title: &str) -> Vec<u8> {
    let core = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\
         <cp:coreProperties xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/core-properties\" \
         xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>{title}</dc:title><dc:creator>tests</dc:creator>\
         </cp:coreProperties>"
    );
    let mut archive = zip::ZipArchive::new(Cursor::new(docx)).unwrap();
    let mut entries = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        entries.push((entry.name().to_owned(), data));
    }
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    let mut has_core = false;
    for (name, data) in entries {
        writer.start_file(name.as_str(), options).unwrap();
        if name == "docProps/core.xml" {
            has_core = true;
            writer.write_all(core.as_bytes()).unwrap();
        } else {
            writer.write_all(&data).unwrap();
        }
    }
    assert!(has_core, "docx-rs writes core properties");
    writer.finish().unwrap().into_inner()
}

/// `docx` with one more part (the same archive otherwise).
pub fn with_part(docx: &[u8], part: &str, content: &[u8]) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(Cursor::new(docx)).unwrap();
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        writer.start_file(entry.name(), options).unwrap();
        writer.write_all(&data).unwrap();
    }
    writer.start_file(part, options).unwrap();
    writer.write_all(content).unwrap();
    writer.finish().unwrap().into_inner()
}

/// A ZIP of `(name, content)` entries.
pub fn zip_of(entries: &[(&str, &[u8])], method: CompressionMethod) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(method);
    for (name, data) in entries {
        writer.start_file(*name, options).unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

pub const CONTENT_TYPES: &[u8] = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
    <Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>";

/// A WordprocessingML-shaped archive whose `word/document.xml` holds `zeros` zero bytes.
pub fn zip_bomb(zeros: usize) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options =
        SimpleFileOptions::default().compression_method(CompressionMethod::Deflated).compression_level(Some(9));
    writer.start_file("[Content_Types].xml", options).unwrap();
    writer.write_all(CONTENT_TYPES).unwrap();
    writer.start_file("word/document.xml", options).unwrap();
    let chunk = vec![0u8; 1 << 20];
    let mut left = zeros;
    while left > 0 {
        let n = left.min(chunk.len());
        writer.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    writer.finish().unwrap().into_inner()
}

/// Rewrites the uncompressed size recorded for `name` in its local header and its central
/// directory record: an archive that lies about how much its entry inflates to.
pub fn lie_about_size(mut archive: Vec<u8>, name: &str, size: u32) -> Vec<u8> {
    let name = name.as_bytes();
    let mut patched = 0;
    let mut i = 0;
    while i + 4 <= archive.len() {
        let signature = &archive[i..i + 4];
        let (name_at, size_at) = match signature {
            b"PK\x03\x04" => (i + 30, i + 22),
            b"PK\x01\x02" => (i + 46, i + 24),
            _ => {
                i += 1;
                continue;
            }
        };
        if archive.get(name_at..name_at + name.len()) == Some(name) {
            archive[size_at..size_at + 4].copy_from_slice(&size.to_le_bytes());
            patched += 1;
        }
        i += 4;
    }
    assert_eq!(patched, 2, "the local header and the central directory record were patched");
    archive
}

// ------------------------------------------------------------------------------ other archives

/// An archive as office suites write one: every entry deflated, except a leading `mimetype`
/// (ODF, EPUB), which is stored uncompressed first.
pub fn package(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in entries {
        let method = if *name == "mimetype" { CompressionMethod::Stored } else { CompressionMethod::Deflated };
        writer.start_file(*name, SimpleFileOptions::default().compression_method(method)).unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

const RELS_NS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
const OFFICE_DOCUMENT: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument";

/// A `.rels` part of `(id, type, target)` relationships.
pub fn rels(relationships: &[(&str, &str, &str)]) -> String {
    let mut xml =
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><Relationships xmlns=\"{RELS_NS}\">");
    for (id, kind, target) in relationships {
        xml.push_str(&format!(
            "<Relationship Id=\"{id}\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/{kind}\" Target=\"{target}\"/>"
        ));
    }
    xml.push_str("</Relationships>");
    xml
}

fn package_rels(main: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><Relationships xmlns=\"{RELS_NS}\">\
         <Relationship Id=\"rId1\" Type=\"{OFFICE_DOCUMENT}\" Target=\"{main}\"/>\
         <Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties\" Target=\"docProps/core.xml\"/></Relationships>"
    )
}

fn core_properties(title: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\
         <cp:coreProperties xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/core-properties\" \
         xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>{title}</dc:title></cp:coreProperties>"
    )
}

fn content_types(overrides: &[(&str, &str)]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\
         <Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
         <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
         <Default Extension=\"xml\" ContentType=\"application/xml\"/>",
    );
    for (part, content_type) in overrides {
        xml.push_str(&format!("<Override PartName=\"/{part}\" ContentType=\"{content_type}\"/>"));
    }
    xml.push_str("</Types>");
    xml
}

const SHEET_NS: &str = "xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
                        xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"";

/// A worksheet part of `(reference, cell XML)` cells (`("B2", "t=\"s\"><v>0</v>")`), grouped
/// into rows by their row number.
pub fn worksheet(cells: &[(&str, &str)]) -> String {
    let mut rows: Vec<(u32, String)> = Vec::new();
    for (reference, cell) in cells {
        let row: u32 = reference.trim_start_matches(|c: char| c.is_ascii_alphabetic()).parse().unwrap();
        let xml = format!("<c r=\"{reference}\" {cell}</c>");
        match rows.iter_mut().find(|(r, _)| *r == row) {
            Some((_, cells)) => cells.push_str(&xml),
            None => rows.push((row, xml)),
        }
    }
    let mut xml =
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><worksheet {SHEET_NS}><sheetData>");
    for (row, cells) in rows {
        xml.push_str(&format!("<row r=\"{row}\">{cells}</row>"));
    }
    xml.push_str("</sheetData></worksheet>");
    xml
}

/// An XLSX workbook as Excel writes one (content types, relationships, workbook, shared strings,
/// styles with a date format as style 1, core properties titled `title`), with the sheets
/// `(name, state, worksheet XML)` in workbook order (`state`: `visible` or `hidden`).
pub fn xlsx(title: &str, strings: &[&str], sheets: &[(&str, &str, String)]) -> Vec<u8> {
    let mut workbook =
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><workbook {SHEET_NS}><sheets>");
    let mut relationships = Vec::new();
    let mut overrides = vec![
        ("xl/workbook.xml".to_owned(), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"),
        (
            "xl/sharedStrings.xml".to_owned(),
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml",
        ),
        ("xl/styles.xml".to_owned(), "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"),
    ];
    for (i, (name, state, _)) in sheets.iter().enumerate() {
        let n = i + 1;
        let state = if *state == "visible" { String::new() } else { format!(" state=\"{state}\"") };
        workbook.push_str(&format!("<sheet name=\"{name}\" sheetId=\"{n}\"{state} r:id=\"rId{n}\"/>"));
        relationships.push((format!("rId{n}"), "worksheet", format!("worksheets/sheet{n}.xml")));
        overrides.push((
            format!("xl/worksheets/sheet{n}.xml"),
            "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml",
        ));
    }
    workbook.push_str("</sheets></workbook>");
    relationships.push(("rIdS".to_owned(), "sharedStrings", "sharedStrings.xml".to_owned()));
    relationships.push(("rIdT".to_owned(), "styles", "styles.xml".to_owned()));
    let relationships: Vec<(&str, &str, &str)> =
        relationships.iter().map(|(id, kind, target)| (id.as_str(), *kind, target.as_str())).collect();
    let mut shared = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><sst {SHEET_NS} count=\"{0}\" uniqueCount=\"{0}\">",
        strings.len()
    );
    for s in strings {
        shared.push_str(&format!("<si><t xml:space=\"preserve\">{s}</t></si>"));
    }
    shared.push_str("</sst>");
    // Style 0: general; style 1: the built-in date format 14 (m/d/yyyy).
    let styles = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><styleSheet {SHEET_NS}>\
         <cellXfs count=\"2\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\"/>\
         <xf numFmtId=\"14\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/></cellXfs></styleSheet>"
    );
    let overrides: Vec<(&str, &str)> = overrides.iter().map(|(p, t)| (p.as_str(), *t)).collect();
    let content_types = content_types(&overrides);
    let package_rels = package_rels("xl/workbook.xml");
    let workbook_rels = rels(&relationships);
    let core = core_properties(title);
    let mut entries: Vec<(String, Vec<u8>)> = vec![
        ("[Content_Types].xml".into(), content_types.into_bytes()),
        ("_rels/.rels".into(), package_rels.into_bytes()),
        ("docProps/core.xml".into(), core.into_bytes()),
        ("xl/workbook.xml".into(), workbook.into_bytes()),
        ("xl/_rels/workbook.xml.rels".into(), workbook_rels.into_bytes()),
        ("xl/sharedStrings.xml".into(), shared.into_bytes()),
        ("xl/styles.xml".into(), styles.into_bytes()),
    ];
    for (i, (_, _, sheet)) in sheets.iter().enumerate() {
        entries.push((format!("xl/worksheets/sheet{}.xml", i + 1), sheet.clone().into_bytes()));
    }
    let entries: Vec<(&str, &[u8])> = entries.iter().map(|(n, d)| (n.as_str(), d.as_slice())).collect();
    package(&entries)
}

const ODF_NS: &str = "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
    xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" \
    xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
    xmlns:style=\"urn:oasis:names:tc:opendocument:xmlns:style:1.0\" \
    xmlns:draw=\"urn:oasis:names:tc:opendocument:xmlns:drawing:1.0\" \
    xmlns:dc=\"http://purl.org/dc/elements/1.1/\" \
    xmlns:meta=\"urn:oasis:names:tc:opendocument:xmlns:meta:1.0\" office:version=\"1.3\"";

/// An OpenDocument package: `mimetype` first, the manifest, `meta.xml` titled `title` and
/// `content.xml` holding `body` inside `office:body`.
pub fn odf(mimetype: &str, title: &str, body: &str) -> Vec<u8> {
    let manifest = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\" manifest:version=\"1.3\">\
         <manifest:file-entry manifest:full-path=\"/\" manifest:media-type=\"{mimetype}\"/>\
         <manifest:file-entry manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\"/>\
         <manifest:file-entry manifest:full-path=\"meta.xml\" manifest:media-type=\"text/xml\"/></manifest:manifest>"
    );
    let meta = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-meta {ODF_NS}><office:meta>\
         <dc:title>{title}</dc:title></office:meta></office:document-meta>"
    );
    let content = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content {ODF_NS}>\
         <office:automatic-styles/><office:body>{body}</office:body></office:document-content>"
    );
    package(&[
        ("mimetype", mimetype.as_bytes()),
        ("META-INF/manifest.xml", manifest.as_bytes()),
        ("meta.xml", meta.as_bytes()),
        ("content.xml", content.as_bytes()),
    ])
}

const PML_NS: &str = "xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" \
    xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\" \
    xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\"";

/// A shape of a slide: a placeholder of `placeholder` type (`None`: a free text box) holding
/// one paragraph per line of `lines`.
pub fn shape(placeholder: Option<&str>, lines: &[&str]) -> String {
    let ph = match placeholder {
        Some("body") => "<p:ph idx=\"1\"/>".to_owned(),
        Some(kind) => format!("<p:ph type=\"{kind}\"/>"),
        None => String::new(),
    };
    let paragraphs: String =
        lines.iter().map(|l| format!("<a:p><a:r><a:rPr lang=\"en-US\"/><a:t>{l}</a:t></a:r></a:p>")).collect();
    format!(
        "<p:sp><p:nvSpPr><p:cNvPr id=\"2\" name=\"Shape\"/><p:cNvSpPr/><p:nvPr>{ph}</p:nvPr></p:nvSpPr><p:spPr/>\
         <p:txBody><a:bodyPr/><a:lstStyle/>{paragraphs}</p:txBody></p:sp>"
    )
}

/// A table shape of `rows`.
pub fn table_shape(rows: &[&[&str]]) -> String {
    let mut xml = String::from(
        "<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id=\"4\" name=\"Table\"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>\
         <p:xfrm/><a:graphic><a:graphicData uri=\"http://schemas.openxmlformats.org/drawingml/2006/table\"><a:tbl><a:tblGrid/>",
    );
    for row in rows {
        xml.push_str("<a:tr h=\"370840\">");
        for cell in *row {
            xml.push_str(&format!(
                "<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>{cell}</a:t></a:r></a:p></a:txBody><a:tcPr/></a:tc>"
            ));
        }
        xml.push_str("</a:tr>");
    }
    xml.push_str("</a:tbl></a:graphicData></a:graphic></p:graphicFrame>");
    xml
}

fn slide_xml(root: &str, shapes: &[String]) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><p:{root} {PML_NS}><p:cSld><p:spTree>\
         <p:nvGrpSpPr><p:cNvPr id=\"1\" name=\"\"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>{}</p:spTree></p:cSld></p:{root}>",
        shapes.concat()
    )
}

/// A PPTX of `slides` (each: its shapes, and the shapes of its notes page when it has one). The
/// slide parts are numbered in reverse (`slides[0]` is `slide{n}.xml`), so only the slide list
/// of `presentation.xml` gives their order.
pub fn pptx(title: Option<&str>, slides: &[(Vec<String>, Option<Vec<String>>)]) -> Vec<u8> {
    let n = slides.len();
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let mut list = String::new();
    let mut presentation_rels = Vec::new();
    let mut overrides = vec![(
        "ppt/presentation.xml".to_owned(),
        "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
    )];
    for (i, (shapes, notes)) in slides.iter().enumerate() {
        let file = n - i;
        list.push_str(&format!("<p:sldId id=\"{}\" r:id=\"rId{file}\"/>", 256 + i));
        presentation_rels.push((format!("rId{file}"), "slide", format!("slides/slide{file}.xml")));
        overrides.push((
            format!("ppt/slides/slide{file}.xml"),
            "application/vnd.openxmlformats-officedocument.presentationml.slide+xml",
        ));
        entries.push((format!("ppt/slides/slide{file}.xml"), slide_xml("sld", shapes).into_bytes()));
        let mut slide_rels = vec![("rId1".to_owned(), "slideLayout", "../slideLayouts/slideLayout1.xml".to_owned())];
        if let Some(notes) = notes {
            slide_rels.push(("rId2".to_owned(), "notesSlide", format!("../notesSlides/notesSlide{file}.xml")));
            entries.push((format!("ppt/notesSlides/notesSlide{file}.xml"), slide_xml("notes", notes).into_bytes()));
        }
        let slide_rels: Vec<(&str, &str, &str)> =
            slide_rels.iter().map(|(id, kind, target)| (id.as_str(), *kind, target.as_str())).collect();
        entries.push((format!("ppt/slides/_rels/slide{file}.xml.rels"), rels(&slide_rels).into_bytes()));
    }
    let presentation = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><p:presentation {PML_NS}>\
         <p:sldMasterIdLst/><p:sldIdLst>{list}</p:sldIdLst><p:sldSz cx=\"12192000\" cy=\"6858000\"/></p:presentation>"
    );
    let presentation_rels: Vec<(&str, &str, &str)> =
        presentation_rels.iter().map(|(id, kind, target)| (id.as_str(), *kind, target.as_str())).collect();
    let overrides: Vec<(&str, &str)> = overrides.iter().map(|(p, t)| (p.as_str(), *t)).collect();
    let mut all: Vec<(String, Vec<u8>)> = vec![
        ("[Content_Types].xml".into(), content_types(&overrides).into_bytes()),
        ("_rels/.rels".into(), package_rels("ppt/presentation.xml").into_bytes()),
        ("ppt/presentation.xml".into(), presentation.into_bytes()),
        ("ppt/_rels/presentation.xml.rels".into(), rels(&presentation_rels).into_bytes()),
    ];
    if let Some(title) = title {
        all.push(("docProps/core.xml".into(), core_properties(title).into_bytes()));
    }
    all.extend(entries);
    let all: Vec<(&str, &[u8])> = all.iter().map(|(n, d)| (n.as_str(), d.as_slice())).collect();
    package(&all)
}

/// An EPUB 3 book: `mimetype`, the container, the package document (`OEBPS/content.opf`, the
/// title, a navigation document and `chapters` as `(file name, XHTML)` in spine order, listed in
/// the manifest in reverse), the chapters and the navigation document.
pub fn epub(title: &str, chapters: &[(&str, String)]) -> Vec<u8> {
    let container = "<?xml version=\"1.0\"?><container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">\
        <rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/></rootfiles></container>";
    let mut manifest = String::from(
        "<item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\
         <item id=\"css\" href=\"style.css\" media-type=\"text/css\"/>",
    );
    let mut spine = String::from("<itemref idref=\"nav\" linear=\"no\"/>");
    for (i, (file, _)) in chapters.iter().enumerate().rev() {
        manifest.push_str(&format!("<item id=\"c{i}\" href=\"text/{file}\" media-type=\"application/xhtml+xml\"/>"));
    }
    for i in 0..chapters.len() {
        spine.push_str(&format!("<itemref idref=\"c{i}\"/>"));
    }
    let opf = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"id\">\
         <metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:identifier id=\"id\">urn:uuid:1</dc:identifier>\
         <dc:title>{title}</dc:title><dc:language>en</dc:language></metadata>\
         <manifest>{manifest}</manifest><spine>{spine}</spine></package>"
    );
    let nav = "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">\
        <head><title>Contents</title></head><body><nav epub:type=\"toc\"><ol><li><a href=\"text/c1.xhtml\">TOC_ENTRY</a></li></ol></nav>\
        <p>NAV_DOCUMENT_TEXT</p></body></html>";
    let mut entries: Vec<(String, Vec<u8>)> = vec![
        ("mimetype".into(), b"application/epub+zip".to_vec()),
        ("META-INF/container.xml".into(), container.as_bytes().to_vec()),
        ("OEBPS/content.opf".into(), opf.into_bytes()),
        ("OEBPS/nav.xhtml".into(), nav.as_bytes().to_vec()),
        ("OEBPS/style.css".into(), b"p { margin: 0 }".to_vec()),
    ];
    for (file, xhtml) in chapters {
        entries.push((format!("OEBPS/text/{file}"), xhtml.clone().into_bytes()));
    }
    let entries: Vec<(&str, &[u8])> = entries.iter().map(|(n, d)| (n.as_str(), d.as_slice())).collect();
    package(&entries)
}

/// An XHTML chapter whose body is `body`.
pub fn xhtml(title: &str, body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><!DOCTYPE html><html xmlns=\"http://www.w3.org/1999/xhtml\">\
         <head><title>{title}</title><link rel=\"stylesheet\" href=\"../style.css\"/><style>p {{ color: red }}</style></head>\
         <body>{body}</body></html>"
    )
}

/// A ZIP whose entry `name` inflates `zeros` zero bytes, after the `head` entries: the zip
/// bomb of any ZIP-based format.
pub fn zip_bomb_with(head: &[(&str, &[u8])], name: &str, zeros: usize) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (entry, data) in head {
        let method = if *entry == "mimetype" { CompressionMethod::Stored } else { CompressionMethod::Deflated };
        writer.start_file(*entry, SimpleFileOptions::default().compression_method(method)).unwrap();
        writer.write_all(data).unwrap();
    }
    let options =
        SimpleFileOptions::default().compression_method(CompressionMethod::Deflated).compression_level(Some(9));
    writer.start_file(name, options).unwrap();
    let chunk = vec![0u8; 1 << 20];
    let mut left = zeros;
    while left > 0 {
        let n = left.min(chunk.len());
        writer.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    writer.finish().unwrap().into_inner()
}

// ------------------------------------------------------------------------------ scanned PDF

/// A one-page PDF whose page only draws an image XObject (a 2×2 grey scan), with no text
/// operator at all: what a scanner without OCR writes.
pub fn scanned_pdf() -> Vec<u8> {
    let objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> \
         /Contents 4 0 R >>"
            .to_owned(),
        stream("", "q 612 0 0 792 0 0 cm /Im1 Do Q"),
        format!(
            "<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 \
             /Length 4 >>\nstream\n{}\nendstream",
            "\u{7f}\u{10}\u{60}\u{30}"
        ),
    ];
    pdf_objects(&objects, None)
}
