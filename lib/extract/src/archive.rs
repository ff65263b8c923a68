//! ZIP-based documents (DOCX, XLSX, PPTX, ODT, ODS, EPUB): the zip-bomb checks every archive
//! passes before a parser sees a byte of it, and the counted reading of its parts.
//!
//! Every format reads its archive through [`Package`]: our own readers (PPTX, ODT, EPUB, the
//! DOCX extras) take one checked part at a time; docx-rs gets its main part after a nesting
//! check as well; calamine (XLSX, ODS) gets a copy of the archive holding only the checked
//! XML parts, stored uncompressed ([`Package::checked_copy`]), so that nothing it inflates
//! was not measured first.

use crate::docx::{DepthScanner, unescape_xml};
use crate::text::single_line;
use lore_app::ports::{ExtractError, ExtractLimits};
use std::io::{Cursor, Read, Write};

/// More entries than any real document has; parsing a central directory this large is itself
/// the attack.
pub(crate) const MAX_ENTRIES: u64 = 10_000;
/// Entries larger than this must not compress better than `MAX_RATIO`:1 (XML compresses
/// 5–20:1; runs of zeros 1000:1).
const RATIO_CHECK_MIN_BYTES: u64 = 1024 * 1024;
const MAX_RATIO: u64 = 200;
/// The properties part (`docProps/core.xml`, `meta.xml`) is read only this far, for the title.
const MAX_PROPERTIES_BYTES: u64 = 64 * 1024;
/// A part's buffer is reserved up front only up to this; a larger part grows it as it inflates
/// (its declared size may be a lie).
const MAX_PREALLOCATION: u64 = 16 * 1024 * 1024;

/// An archive whose directory passed the zip-bomb checks, read one part at a time, each part
/// inflated once and only when something reads it. The parsers behind it (docx-rs, calamine)
/// inflate parts with `read_to_end`, trusting the archive, so nothing reaches them unchecked:
///
/// When opened ([`Package::open`]):
/// 1. at most `MAX_ENTRIES` entries;
/// 2. no entry over 1 MiB with a compression ratio above 200:1;
/// 3. the declared uncompressed sizes sum to at most `max_unpacked_bytes`.
///
/// Each part read:
/// 4. inflates to no more than its declared size (a lying header cannot smuggle more past
///    step 3), reading at most the declared size + 1 byte;
/// 5. the parts read inflate to at most `max_content_bytes` in all, counted while inflating;
/// 6. the part docx-rs parses (`docx::Package::part_for_docx_rs`) also nests elements at most
///    `MAX_XML_DEPTH` deep, closes every element it opens and holds at most `max_paragraphs`
///    paragraphs (see `docx.rs`). The other readers (quick-xml, our tag scanner, calamine's
///    quick-xml) stream the XML: they neither recurse nor keep a tree.
///
/// Parts nobody reads (pictures, fonts, …) are never inflated.
pub(crate) struct Package<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    pub(crate) limits: &'a ExtractLimits,
    /// Inflated bytes of the parts read so far.
    content_bytes: u64,
    /// The format's name in messages (`DOCX`, `XLSX`, …).
    pub(crate) format: &'static str,
}

impl<'a> Package<'a> {
    /// The archive of a `format` document, after the checks of its directory (1–3 above).
    pub(crate) fn open(bytes: &'a [u8], limits: &'a ExtractLimits, format: &'static str) -> Result<Self, ExtractError> {
        let max_unpacked = limits.max_unpacked_bytes;
        // Checked before the zip crate reads the directory: it allocates per declared entry.
        let entries = declared_entry_count(bytes);
        if entries > MAX_ENTRIES {
            return Err(too_many_entries(format, entries));
        }
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| ExtractError::Corrupt(format!("the {format} archive is damaged: {e}")))?;
        if archive.len() as u64 > MAX_ENTRIES {
            return Err(too_many_entries(format, archive.len() as u64));
        }
        let mut declared_total: u64 = 0;
        for index in 0..archive.len() {
            let entry = archive.by_index_raw(index).map_err(|e| damaged(format, e))?;
            let (size, compressed) = (entry.size(), entry.compressed_size());
            if size > RATIO_CHECK_MIN_BYTES && size / compressed.max(1) > MAX_RATIO {
                return Err(ExtractError::TooLarge(format!(
                    "the {format} part {} is compressed {}:1, a sign of a zip bomb",
                    entry.name(),
                    size / compressed.max(1)
                )));
            }
            declared_total = declared_total.saturating_add(size);
            if declared_total > max_unpacked {
                return Err(ExtractError::TooLarge(format!(
                    "the {format} archive unpacks to more than {max_unpacked} bytes"
                )));
            }
        }
        Ok(Self { archive, limits, content_bytes: 0, format })
    }

    /// A part only our own readers read, decoded (byte-order mark, else UTF-8), after the size
    /// checks (4–5). `None` when there is no such part.
    pub(crate) fn text(&mut self, name: &str) -> Result<Option<String>, ExtractError> {
        Ok(self.read(name, None)?.map(|bytes| crate::text::decode(&bytes)))
    }

    /// A part's bytes, after the size checks (4–5). `None` when there is no such part.
    pub(crate) fn bytes(&mut self, name: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        self.read(name, None)
    }

    /// The names of the archive's entries, in directory order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.archive.file_names().map(str::to_owned).collect()
    }

    /// A copy of the archive holding only the entries `keep` names, each read with the checks
    /// above (4–5) and stored uncompressed: what a parser that opens the archive itself
    /// (calamine) is given, so that it inflates nothing that was not measured.
    pub(crate) fn checked_copy(&mut self, keep: impl Fn(&str) -> bool) -> Result<Vec<u8>, ExtractError> {
        let format = self.format;
        let names: Vec<String> = self.names().into_iter().filter(|name| keep(name) && !name.ends_with('/')).collect();
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(false);
        for name in names {
            let Some(bytes) = self.read(&name, None)? else { continue };
            writer
                .start_file(name.as_str(), options)
                .and_then(|()| writer.write_all(&bytes).map_err(Into::into))
                .map_err(|e| damaged(format, e))?;
        }
        Ok(writer.finish().map_err(|e| damaged(format, e))?.into_inner())
    }

    pub(crate) fn read(&mut self, name: &str, scanner: Option<DepthScanner>) -> Result<Option<Vec<u8>>, ExtractError> {
        let format = self.format;
        let entry = match self.archive.by_name(name) {
            Ok(entry) => entry,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(damaged(format, e)),
        };
        let declared = entry.size();
        let room = self.limits.max_content_bytes.saturating_sub(self.content_bytes);
        let mut sink =
            PartSink { bytes: Vec::with_capacity(declared.min(room).min(MAX_PREALLOCATION) as usize), room, scanner };
        let copied = std::io::copy(&mut entry.take(declared.saturating_add(1)), &mut sink);
        if let Some(scanner) = &sink.scanner {
            if scanner.too_deep {
                return Err(ExtractError::TooLarge(format!(
                    "the {format} part {name} nests elements more than {} levels deep",
                    scanner.max_depth
                )));
            }
            if scanner.paragraphs > self.limits.max_paragraphs {
                return Err(ExtractError::TooLarge(format!(
                    "the {format} document has more than {} paragraphs, the limit",
                    self.limits.max_paragraphs
                )));
            }
        }
        if sink.bytes.len() as u64 > room {
            return Err(ExtractError::TooLarge(format!(
                "the {format} XML parts inflate to more than {}, the limit",
                crate::human_bytes(self.limits.max_content_bytes)
            )));
        }
        let inflated = copied.map_err(|e| damaged(format, e))?;
        if sink.scanner.as_ref().is_some_and(DepthScanner::ends_inside_an_element) {
            // docx-rs's readers loop forever on the end of a part that leaves elements open, or
            // after skipping a mis-nested end tag (found by fuzzing, docs/fuzzing.md).
            return Err(ExtractError::Corrupt(format!(
                "the {format} part {name} is malformed XML: an element is cut off or closed out of order"
            )));
        }
        if inflated > declared {
            return Err(ExtractError::TooLarge(format!(
                "the {format} part {name} inflates beyond its declared size of {declared} bytes"
            )));
        }
        self.content_bytes = self.content_bytes.saturating_add(inflated);
        Ok(Some(sink.bytes))
    }

    /// `<dc:title>` of the core properties part (OOXML), read at most 64 KiB far.
    pub(crate) fn core_title(&mut self) -> Option<String> {
        self.dc_title("docProps/core.xml")
    }

    /// `<dc:title>` of `part` (OOXML core properties, ODF `meta.xml`), read at most 64 KiB far.
    pub(crate) fn dc_title(&mut self, part: &str) -> Option<String> {
        let entry = self.archive.by_name(part).ok()?;
        let mut xml = Vec::new();
        entry.take(MAX_PROPERTIES_BYTES).read_to_end(&mut xml).ok()?;
        let xml = String::from_utf8_lossy(&xml);
        let start = xml.find("<dc:title")?;
        let rest = &xml[start + "<dc:title".len()..];
        let open_end = rest.find('>')?;
        if rest[..open_end].ends_with('/') {
            return None;
        }
        let body = &rest[open_end + 1..];
        let title = single_line(&unescape_xml(&body[..body.find("</dc:title>")?]));
        (!title.is_empty()).then_some(title)
    }
}

/// Where a part inflates to: its bytes, refused past the content budget, and the depth scanner
/// when docx-rs will parse it.
struct PartSink {
    bytes: Vec<u8>,
    room: u64,
    scanner: Option<DepthScanner>,
}

impl std::io::Write for PartSink {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if (self.bytes.len() + data.len()) as u64 > self.room {
            // Kept, so the caller sees the size; stops the inflation.
            self.bytes.extend_from_slice(data);
            return Err(std::io::Error::other("XML over the content cap"));
        }
        if let Some(scanner) = &mut self.scanner {
            scanner.write_all(data)?;
        }
        self.bytes.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn too_many_entries(format: &str, entries: u64) -> ExtractError {
    ExtractError::TooLarge(format!("the {format} archive has {entries} entries, more than {MAX_ENTRIES}"))
}

fn damaged(format: &str, e: impl std::fmt::Display) -> ExtractError {
    ExtractError::Corrupt(format!("the {format} archive is damaged: {e}"))
}

/// The part named by the package relationships as the main document (`officeDocument`), else
/// `default`.
pub(crate) fn main_part(package: &mut Package, default: &str) -> Result<String, ExtractError> {
    Ok(package
        .text("_rels/.rels")?
        .and_then(|rels| crate::docx_extra::relationship_targets(&rels, "", &["/officeDocument"]).into_iter().next())
        .unwrap_or_else(|| default.to_owned()))
}

/// The relationships part of `part` (`word/document.xml` → `word/_rels/document.xml.rels`).
pub(crate) fn relationships_of(part: &str) -> String {
    match part.rsplit_once('/') {
        Some((dir, file)) => format!("{dir}/_rels/{file}.rels"),
        None => format!("_rels/{part}.rels"),
    }
}

/// The folder of a part name (`ppt/slides/slide1.xml` → `ppt/slides`; `""` at the root).
pub(crate) fn folder_of(part: &str) -> &str {
    part.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `target` (a relative reference, `../media/x.png`) resolved against `dir`, with `.` and `..`
/// segments applied; an absolute target (`/ppt/x.xml`) is taken from the root.
pub(crate) fn resolve(dir: &str, target: &str) -> String {
    let mut segments: Vec<&str> = if target.starts_with('/') || dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').filter(|s| !s.is_empty()).collect()
    };
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    segments.join("/")
}

/// The largest entry count declared by any end-of-central-directory record (zip or zip64) near
/// the end of `bytes`, read without parsing the directory. The zip crate sizes its reading by
/// this count, so a 50 MB upload declaring a million tiny entries would cost hundreds of MB
/// before any check could look at them. (`0xFFFF` in a zip record means "see the zip64
/// record" and is not a count.)
pub(crate) fn declared_entry_count(bytes: &[u8]) -> u64 {
    const TAIL: usize = 128 * 1024;
    let tail = &bytes[bytes.len().saturating_sub(TAIL)..];
    let mut most = 0u64;
    for i in 0..tail.len().saturating_sub(3) {
        let count = match &tail[i..i + 4] {
            b"PK\x05\x06" => tail.get(i + 10..i + 12).map(|b| u64::from(u16::from_le_bytes([b[0], b[1]]))),
            b"PK\x06\x06" => tail.get(i + 32..i + 40).map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]))),
            _ => None,
        };
        if let Some(count) = count.filter(|&c| c != 0xFFFF) {
            most = most.max(count);
        }
    }
    most
}

/// The names of the entries whose local headers lie in `head` (the first bytes of an archive,
/// which may be cut anywhere), in order: what a sniffer that only has the start of an upload
/// can tell about an archive whose central directory it cannot read.
pub(crate) fn local_names(head: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    for at in memchr::memmem::find_iter(head, b"PK\x03\x04") {
        let Some(lengths) = head.get(at + 26..at + 28) else { break };
        let length = usize::from(u16::from_le_bytes([lengths[0], lengths[1]]));
        let Some(name) = head.get(at + 30..at + 30 + length) else { break };
        if let Ok(name) = std::str::from_utf8(name)
            && !name.is_empty()
            && !name.contains('\0')
        {
            names.push(name.to_owned());
        }
    }
    names
}

/// The data of the first entry when it is stored uncompressed and named `mimetype` (how ODF
/// documents and EPUB books announce their type, readable in the first bytes of the file).
pub(crate) fn leading_mimetype(head: &[u8]) -> Option<&[u8]> {
    if !head.starts_with(b"PK\x03\x04") {
        return None;
    }
    let u16_at = |at: usize| head.get(at..at + 2).map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])));
    let method = u16_at(8)?;
    let size = head.get(18..22).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)?;
    let (name_len, extra_len) = (u16_at(26)?, u16_at(28)?);
    if method != 0 || head.get(30..30 + name_len)? != b"mimetype" || size > 256 {
        return None;
    }
    let start = 30 + name_len + extra_len;
    head.get(start..start + size).map(<[u8]>::trim_ascii)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_counts_are_read_from_the_end_records() {
        let mut zip = b"PK\x03\x04 local data ".to_vec();
        let mut eocd = b"PK\x05\x06\0\0\0\0".to_vec();
        eocd.extend_from_slice(&12_345u16.to_le_bytes()); // entries on this disk
        eocd.extend_from_slice(&12_345u16.to_le_bytes()); // entries in total
        eocd.extend_from_slice(&[0; 10]);
        zip.extend_from_slice(&eocd);
        assert_eq!(declared_entry_count(&zip), 12_345);

        let mut zip64 = b"PK\x06\x06".to_vec();
        zip64.extend_from_slice(&[0; 28]);
        zip64.extend_from_slice(&2_000_000u64.to_le_bytes());
        zip64.extend_from_slice(&[0; 16]);
        zip64.extend_from_slice(b"PK\x05\x06\0\0\0\0\xff\xff\xff\xff\0\0\0\0\0\0\0\0\0\0");
        assert_eq!(declared_entry_count(&zip64), 2_000_000);
        assert_eq!(declared_entry_count(b"no zip here"), 0);
    }

    #[test]
    fn references_resolve_against_their_folder() {
        assert_eq!(resolve("ppt/slides", "../notesSlides/notesSlide1.xml"), "ppt/notesSlides/notesSlide1.xml");
        assert_eq!(resolve("ppt", "slides/slide1.xml"), "ppt/slides/slide1.xml");
        assert_eq!(resolve("ppt", "/ppt/slides/./slide2.xml"), "ppt/slides/slide2.xml");
        assert_eq!(resolve("", "OEBPS/content.opf"), "OEBPS/content.opf");
        assert_eq!(resolve("a", "../../x"), "x", "never above the root");
        assert_eq!(relationships_of("ppt/presentation.xml"), "ppt/_rels/presentation.xml.rels");
        assert_eq!(folder_of("content.opf"), "");
    }

    #[test]
    fn a_leading_stored_mimetype_is_read_from_the_head() {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        writer.start_file("mimetype", stored).unwrap();
        writer.write_all(b"application/epub+zip").unwrap();
        writer.start_file("META-INF/container.xml", stored).unwrap();
        writer.write_all(b"<container/>").unwrap();
        let bytes = writer.finish().unwrap().into_inner();
        assert_eq!(leading_mimetype(&bytes), Some(b"application/epub+zip".as_slice()));
        assert_eq!(leading_mimetype(&bytes[..40]), None, "cut before the data");
        assert_eq!(local_names(&bytes[..bytes.len() / 2 + 20]), ["mimetype", "META-INF/container.xml"]);
    }
}
