//! Deciding a document's kind from its content. Binary formats are known by their bytes
//! alone: PDF by its magic number, the ZIP-based formats by the parts their archive holds
//! (OOXML: `[Content_Types].xml` and the main part's folder; ODF and EPUB: the `mimetype`
//! entry they start with). RTF, though text, is known by its header (`{\rtf` after an
//! optional byte-order mark and whitespace), whatever the file's name. Other text is Markdown,
//! plain text, HTML, CSV or TSV: the file name decides among these when it names one of them
//! (and, for CSV and TSV, the text does split into a table), else the content does. A name
//! never makes a binary file a document.
//! The sniffer sees the first 64 KiB of an upload only (`lore_app::files::SNIFF_BYTES`).

use crate::{archive, delimited, rtf, text};
use lore_domain::document::DocumentKind;
use std::io::{Cursor, Read};

/// `%PDF-` may follow some junk; readers accept it within the first KiB.
const PDF_MAGIC_WINDOW: usize = 1024;
const ZIP_LOCAL_HEADER: &[u8] = b"PK\x03\x04";

/// Magic numbers of binary formats that are never documents here, even when named `.pdf`/`.txt`.
const BINARY_MAGIC: &[&[u8]] = &[
    b"\x7fELF",            // ELF executable / shared object
    b"MZ",                 // PE / DOS executable
    b"\xfe\xed\xfa\xce",   // Mach-O 32-bit
    b"\xfe\xed\xfa\xcf",   // Mach-O 64-bit
    b"\xce\xfa\xed\xfe",   // Mach-O 32-bit, little endian
    b"\xcf\xfa\xed\xfe",   // Mach-O 64-bit, little endian
    b"\xca\xfe\xba\xbe",   // Mach-O universal binary / Java class
    b"\0asm",              // WebAssembly
    b"\x89PNG",            // PNG
    b"\xff\xd8\xff",       // JPEG
    b"GIF87a",             // GIF
    b"GIF89a",             // GIF
    b"RIFF",               // WebP, WAV, AVI
    b"II*\0",              // TIFF
    b"MM\0*",              // TIFF
    b"\x1f\x8b",           // gzip
    b"BZh",                // bzip2
    b"\xfd7zXZ\0",         // xz
    b"7z\xbc\xaf\x27\x1c", // 7-Zip
    b"Rar!\x1a\x07",       // RAR
    b"\xd0\xcf\x11\xe0",   // OLE compound file (legacy .doc/.xls)
    b"SQLite format 3\0",  // SQLite
    b"\x28\xb5\x2f\xfd",   // zstd
    b"OggS",               // Ogg
    b"fLaC",               // FLAC
    b"ID3",                // MP3
];

pub(crate) fn sniff(bytes: &[u8], file_name: Option<&str>) -> Option<DocumentKind> {
    let by_name = text_kind_by_name(file_name);
    if bytes.is_empty() {
        // An empty `.txt`/`.md` is a text document without text: extraction reports that.
        return by_name.filter(|k| matches!(k, DocumentKind::Markdown | DocumentKind::Text));
    }
    // Audio is never a document (MP3 frames have no magic number the list below could hold).
    if is_binary_format(bytes) || crate::audio::sniff_audio(bytes).is_some() {
        return None;
    }
    if rtf::rtf_start(bytes).is_some() {
        return Some(DocumentKind::Rtf);
    }
    if bytes[..bytes.len().min(PDF_MAGIC_WINDOW)].windows(5).any(|w| w == b"%PDF-") {
        return Some(DocumentKind::Pdf);
    }
    if bytes.starts_with(ZIP_LOCAL_HEADER) {
        return archive_kind(bytes);
    }
    let sample = text::sniff_text(bytes)?;
    // The sample may end inside a record: a head of the sniff size is taken as cut.
    let cut = bytes.len() >= text::SNIFF_SAMPLE_BYTES;
    match by_name {
        Some(DocumentKind::Csv | DocumentKind::Tsv) => {
            let prefer = if by_name == Some(DocumentKind::Tsv) { b'\t' } else { b',' };
            if delimited::is_named_table(&sample, cut, prefer) {
                return by_name;
            }
        }
        Some(kind) => return Some(kind),
        None => {}
    }
    if is_html(&sample) {
        return Some(DocumentKind::Html);
    }
    if text::has_markdown_structure(&sample) {
        return Some(DocumentKind::Markdown);
    }
    Some(match delimited::looks_like_a_table(&sample, cut) {
        Some(shape) if shape.delimiter == b'\t' => DocumentKind::Tsv,
        Some(_) => DocumentKind::Csv,
        None => DocumentKind::Text,
    })
}

/// The text kind a file name's extension names.
fn text_kind_by_name(file_name: Option<&str>) -> Option<DocumentKind> {
    let name = file_name?.trim().to_ascii_lowercase();
    let (_, extension) = name.rsplit_once('.')?;
    match extension {
        "md" | "markdown" => Some(DocumentKind::Markdown),
        "txt" | "text" => Some(DocumentKind::Text),
        "html" | "htm" | "xhtml" => Some(DocumentKind::Html),
        "csv" => Some(DocumentKind::Csv),
        "tsv" | "tab" => Some(DocumentKind::Tsv),
        _ => None,
    }
}

/// A web page by its first markup: a doctype or an `<html>` element (after whitespace, comments
/// and an XML declaration, as XHTML has). Other tags are not enough: Markdown may open with
/// `<p align="center">`.
fn is_html(sample: &str) -> bool {
    let mut rest = sample.trim_start_matches('\u{feff}').trim_start();
    loop {
        let (open, close) = if rest.starts_with("<!--") {
            ("<!--", "-->")
        } else if rest.starts_with("<?xml") {
            ("<?xml", "?>")
        } else {
            break;
        };
        match rest[open.len()..].find(close) {
            Some(end) => rest = rest[open.len() + end + close.len()..].trim_start(),
            None => return false,
        }
    }
    let head: String = rest.chars().take(15).collect::<String>().to_ascii_lowercase();
    head.starts_with("<!doctype html")
        || (head.starts_with("<html") && head[5..].starts_with([' ', '>', '\n', '\t', '\r']))
}

/// A known binary magic number. Magic numbers made only of printable ASCII (`MZ`, `ID3`, `RIFF`)
/// also begin ordinary sentences, so they count only when binary bytes follow in the header.
fn is_binary_format(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(64)];
    let binary_head = head.iter().any(|&b| b < 0x09 || (0x0e..0x20).contains(&b) || b == 0x7f);
    let magic = BINARY_MAGIC.iter().find(|magic| bytes.starts_with(magic));
    let by_magic = magic.is_some_and(|magic| binary_head || magic.iter().any(|&b| !(0x20..0x7f).contains(&b)));
    by_magic || (binary_head && is_iso_media(bytes))
}

/// MP4 / MOV / HEIC / AVIF: `....ftyp` at offset 4.
fn is_iso_media(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && &bytes[4..8] == b"ftyp"
}

/// The kind of a ZIP-based document, or `None` for any other archive.
///
/// ODF documents and EPUB books start with an uncompressed `mimetype` entry naming their type.
/// OOXML packages hold `[Content_Types].xml` and their main part: `word/document.xml`,
/// `xl/workbook.xml` or `ppt/presentation.xml`. An archive whose central directory cannot be
/// read (the sniffer sees only the first 64 KiB of an upload, or the upload is cut) is judged
/// by the names of the local headers at its start, so that extraction reports a damaged
/// document rather than an unsupported one.
fn archive_kind(bytes: &[u8]) -> Option<DocumentKind> {
    if let Some(mimetype) = archive::leading_mimetype(bytes) {
        return kind_of_mimetype(mimetype);
    }
    // An archive declaring more entries than a document may have is judged by its head too;
    // its directory is not read (extraction refuses it as too large).
    let readable = if archive::declared_entry_count(bytes) > archive::MAX_ENTRIES {
        None
    } else {
        zip::ZipArchive::new(Cursor::new(bytes)).ok()
    };
    match readable {
        Some(mut archive) => {
            let has = |name: &str| archive.index_for_name(name).is_some();
            if has("[Content_Types].xml") {
                for (main, kind) in OOXML_MAIN_PARTS {
                    if has(main) {
                        return Some(kind);
                    }
                }
                return None;
            }
            // A `mimetype` entry that is not the first, or is compressed: still its type.
            let mut mimetype = Vec::new();
            archive.by_name("mimetype").ok()?.take(256).read_to_end(&mut mimetype).ok()?;
            kind_of_mimetype(mimetype.trim_ascii())
        }
        None => {
            let names = archive::local_names(&bytes[..bytes.len().min(64 * 1024)]);
            if !names.iter().any(|n| n == "[Content_Types].xml") {
                return None;
            }
            OOXML_MAIN_PARTS.into_iter().find_map(|(main, kind)| {
                let folder = &main[..=main.find('/').unwrap_or_default()];
                names.iter().any(|n| n.starts_with(folder)).then_some(kind)
            })
        }
    }
}

/// The main part of each OOXML kind, in the order a tie is broken.
const OOXML_MAIN_PARTS: [(&str, DocumentKind); 3] = [
    ("word/document.xml", DocumentKind::Docx),
    ("xl/workbook.xml", DocumentKind::Xlsx),
    ("ppt/presentation.xml", DocumentKind::Pptx),
];

fn kind_of_mimetype(mimetype: &[u8]) -> Option<DocumentKind> {
    match mimetype {
        b"application/epub+zip" => Some(DocumentKind::Epub),
        b"application/vnd.oasis.opendocument.text" => Some(DocumentKind::Odt),
        b"application/vnd.oasis.opendocument.spreadsheet" => Some(DocumentKind::Ods),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_only_break_the_text_tie() {
        assert_eq!(sniff(b"# Title\n", Some("notes.TXT")), Some(DocumentKind::Text));
        assert_eq!(sniff(b"plain", Some("notes.md")), Some(DocumentKind::Markdown));
        assert_eq!(sniff(b"plain", Some("notes.markdown")), Some(DocumentKind::Markdown));
        assert_eq!(sniff(b"plain words", None), Some(DocumentKind::Text));
        assert_eq!(sniff(b"# Title\n\nbody", None), Some(DocumentKind::Markdown));
        assert_eq!(sniff(b"", Some("empty.txt")), Some(DocumentKind::Text));
        assert_eq!(sniff(b"", None), None);
    }

    #[test]
    fn html_is_known_by_its_doctype_or_html_element_or_its_name() {
        let html = b"<!doctype html><html><head><title>x</title></head><body><p>hi</p></body></html>";
        assert_eq!(sniff(html, None), Some(DocumentKind::Html));
        assert_eq!(sniff(html, Some("page.html")), Some(DocumentKind::Html));
        assert_eq!(sniff(html, Some("page.txt")), Some(DocumentKind::Text), "the name decides among text kinds");
        assert_eq!(sniff(b"\xef\xbb\xbf <!-- saved --> <HTML lang=en><p>x", None), Some(DocumentKind::Html));
        assert_eq!(sniff(b"<p>fragment</p>", Some("part.htm")), Some(DocumentKind::Html));
        assert_eq!(sniff(b"<p align=\"center\">logo</p>\n\n# Project\n", None), Some(DocumentKind::Markdown));
        assert_eq!(sniff(b"<htmlish> words", None), Some(DocumentKind::Text));
        let xhtml = b"<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>x</body></html>";
        assert_eq!(sniff(xhtml, None), Some(DocumentKind::Html));
    }

    #[test]
    fn tables_by_name_when_they_split_evenly_and_by_content_when_they_clearly_do() {
        assert_eq!(sniff(b"id,name\n1,Ada\n", Some("people.csv")), Some(DocumentKind::Csv));
        assert_eq!(sniff(b"id\tname\n1\tAda\n", Some("people.tsv")), Some(DocumentKind::Tsv));
        assert_eq!(sniff(b"id;name\n1;Ada\n", Some("people.CSV")), Some(DocumentKind::Csv));
        assert_eq!(sniff(b"just words", Some("data.csv")), Some(DocumentKind::Text), "one record is no table");
        assert_eq!(sniff(b"a,b\n1,2,3\nx", Some("data.csv")), Some(DocumentKind::Csv), "ragged, as exports are");
        assert_eq!(sniff(b"a,b\n1,2,3\nx", None), Some(DocumentKind::Text), "ragged and unnamed");
        assert_eq!(sniff(b"id,name\n1,Ada\n2,Grace\n", None), Some(DocumentKind::Csv));
        assert_eq!(sniff(b"id\tname\n1\tAda\n2\tGrace\n", None), Some(DocumentKind::Tsv));
        assert_eq!(sniff(b"id,name\n1,Ada\n2,Grace\n", Some("notes.txt")), Some(DocumentKind::Text));
        assert_eq!(sniff(b"id,name\n1,Ada\n", None), Some(DocumentKind::Text), "two records are not enough");
        assert_eq!(sniff(b"", Some("empty.csv")), None);
    }

    #[test]
    fn binaries_are_not_documents_whatever_their_name() {
        assert_eq!(sniff(b"MZ\x90\0\x03\0\0\0%PDF-1.4", Some("a.pdf")), None);
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n", Some("a.txt")), None);
        assert_eq!(sniff(b"\xcf\xfa\xed\xfe\x07\0\0\x01", Some("a.md")), None);
        assert_eq!(sniff(b"\0\0\0\x18ftypmp42", None), None);
        assert_eq!(sniff(b"PK\x03\x04 not a docx at all", Some("a.docx")), None);
        assert_eq!(sniff(b"\x7fELF\x02\x01\x01\0%PDF-1.4", Some("x.pdf")), None);
    }

    #[test]
    fn audio_is_not_a_document_whatever_its_name() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/audio");
        for name in ["tone.mp3", "tone-id3.mp3", "tone.wav", "tone.ogg", "tone.m4a"] {
            let bytes = std::fs::read(format!("{dir}/{name}")).unwrap();
            assert_eq!(sniff(&bytes, Some("notes.txt")), None, "{name}");
        }
    }

    #[test]
    fn printable_magic_numbers_need_binary_bytes() {
        assert_eq!(sniff(b"MZ Corp annual report", None), Some(DocumentKind::Text));
        assert_eq!(sniff(b"ID3 tags explained", None), Some(DocumentKind::Text));
        assert_eq!(sniff(b"#!/bin/sh\necho hi\n", Some("run.txt")), Some(DocumentKind::Text));
        assert_eq!(sniff(b"ID3\x04\0\0\0\0\x0f", Some("song.txt")), None);
    }

    #[test]
    fn rtf_is_known_by_its_header_whatever_its_name() {
        let rtf = b"{\\rtf1\\ansi\\ansicpg1252 Hello\\par}";
        assert_eq!(sniff(rtf, None), Some(DocumentKind::Rtf));
        assert_eq!(sniff(rtf, Some("notes.txt")), Some(DocumentKind::Rtf));
        assert_eq!(sniff(b"\xef\xbb\xbf\r\n {\\rtf1 x}", None), Some(DocumentKind::Rtf));
        assert_eq!(sniff(b"{\\rtf1 %PDF-1.4 mentioned}", None), Some(DocumentKind::Rtf));
        assert_eq!(sniff(b"{\\rtf", Some("cut.rtf")), Some(DocumentKind::Rtf), "a cut file is a damaged RTF");
        assert_eq!(sniff(b"Save it as {\\rtf1 to start", Some("notes.rtf")), Some(DocumentKind::Text));
        assert_eq!(sniff(b"{\"rtf\": 1}", None), Some(DocumentKind::Text));
    }

    #[test]
    fn pdf_magic_may_follow_junk() {
        let mut bytes = vec![b' '; 500];
        bytes.extend_from_slice(b"%PDF-1.7\n");
        assert_eq!(sniff(&bytes, None), Some(DocumentKind::Pdf));
        let mut late = vec![b' '; PDF_MAGIC_WINDOW];
        late.extend_from_slice(b"%PDF-1.7\n");
        assert_eq!(sniff(&late, None), Some(DocumentKind::Text));
    }
}
