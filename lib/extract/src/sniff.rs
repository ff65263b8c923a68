//! Deciding a document's kind from its content. The file name only breaks the tie between
//! Markdown and plain text; it never makes a binary file a document.

use crate::{docx, text};
use lore_domain::document::DocumentKind;
use std::io::Cursor;

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
        return by_name;
    }
    // Audio is never a document (MP3 frames have no magic number the list below could hold).
    if is_binary_format(bytes) || crate::audio::sniff_audio(bytes).is_some() {
        return None;
    }
    if bytes[..bytes.len().min(PDF_MAGIC_WINDOW)].windows(5).any(|w| w == b"%PDF-") {
        return Some(DocumentKind::Pdf);
    }
    if bytes.starts_with(ZIP_LOCAL_HEADER) {
        return is_docx_archive(bytes).then_some(DocumentKind::Docx);
    }
    let sample = text::sniff_text(bytes)?;
    Some(by_name.unwrap_or_else(|| {
        if text::has_markdown_structure(&sample) { DocumentKind::Markdown } else { DocumentKind::Text }
    }))
}

fn text_kind_by_name(file_name: Option<&str>) -> Option<DocumentKind> {
    let name = file_name?.trim().to_ascii_lowercase();
    let (_, extension) = name.rsplit_once('.')?;
    match extension {
        "md" | "markdown" => Some(DocumentKind::Markdown),
        "txt" | "text" => Some(DocumentKind::Text),
        _ => None,
    }
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

/// A ZIP whose central directory lists the parts of a WordprocessingML package. A ZIP whose
/// central directory cannot be read (a truncated upload) still counts when its first local
/// headers name those parts, so that extraction reports it as damaged rather than unsupported.
fn is_docx_archive(bytes: &[u8]) -> bool {
    // An archive declaring more entries than a DOCX may have is judged by its head too; its
    // directory is not read (extraction refuses it as too large).
    let readable = if docx::declared_entry_count(bytes) > docx::MAX_ENTRIES {
        None
    } else {
        zip::ZipArchive::new(Cursor::new(bytes)).ok()
    };
    match readable {
        Some(archive) => {
            archive.index_for_name("word/document.xml").is_some()
                && archive.index_for_name("[Content_Types].xml").is_some()
        }
        None => {
            let head = &bytes[..bytes.len().min(64 * 1024)];
            contains(head, b"[Content_Types].xml") && contains(head, b"word/")
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
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
    fn html_uploads_are_text() {
        let html = b"<!doctype html><html><head><title>x</title></head><body><p>hi</p></body></html>";
        assert_eq!(sniff(html, Some("page.txt")), Some(DocumentKind::Text));
        assert_eq!(sniff(html, Some("page.html")), Some(DocumentKind::Text));
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
    fn pdf_magic_may_follow_junk() {
        let mut bytes = vec![b' '; 500];
        bytes.extend_from_slice(b"%PDF-1.7\n");
        assert_eq!(sniff(&bytes, None), Some(DocumentKind::Pdf));
        let mut late = vec![b' '; PDF_MAGIC_WINDOW];
        late.extend_from_slice(b"%PDF-1.7\n");
        assert_eq!(sniff(&late, None), Some(DocumentKind::Text));
    }
}
