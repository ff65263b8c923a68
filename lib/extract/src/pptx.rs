//! PPTX: the slides in presentation order (`presentation.xml`'s slide list, through its
//! relationships), one section per slide headed `Slide N: <title>` (`Slide N` when it has no
//! title), then the text of its shapes in drawing order, its tables as Markdown tables, then its
//! speaker notes under `Notes`. Slide numbers, dates and footers are left out. Read with
//! quick-xml from parts checked by `archive::Package`.

use crate::archive::{Package, folder_of, main_part, relationships_of, resolve};
use crate::markdown::Blocks;
use crate::xml::{Node, Nodes};
use lore_app::ports::{ExtractError, ExtractLimits};

/// Placeholders whose text is page furniture, not content.
const FURNITURE: &[&str] = &["sldNum", "dt", "ftr", "hdr", "sldImg"];

pub(crate) fn extract(bytes: &[u8], limits: &ExtractLimits) -> Result<(String, Option<String>), ExtractError> {
    let mut package = Package::open(bytes, limits, "PPTX")?;
    let main = main_part(&mut package, "ppt/presentation.xml")?;
    let dir = folder_of(&main).to_owned();
    let rels = relationships(&package.text(&relationships_of(&main))?.unwrap_or_default());
    let Some(presentation) = package.text(&main)? else {
        return Err(ExtractError::Corrupt(format!("the PPTX archive has no presentation part ({main})")));
    };
    let order = slide_ids(&presentation, &main)?;
    drop(presentation);
    let core_title = package.core_title();
    let mut first_title = None;
    let mut blocks = Blocks::new(limits.max_output_bytes);
    let mut number = 0usize;
    for id in order {
        let Some(rel) = rels.iter().find(|r| r.id == id && r.kind.ends_with("/slide")) else { continue };
        let part = resolve(&dir, &rel.target);
        let Some(xml) = package.text(&part)? else { continue };
        number += 1;
        let shapes = shapes(&xml, &part)?;
        drop(xml);
        let notes = match notes_part(&mut package, &part)? {
            Some(notes) => {
                let xml = package.text(&notes)?.unwrap_or_default();
                shapes_of_notes(&xml, &notes)?
            }
            None => Vec::new(),
        };
        let title =
            shapes.iter().find(|s| s.is_title()).map(|s| s.paragraphs.join(" ")).filter(|t| !t.trim().is_empty());
        let shown = shapes.iter().any(|s| !s.is_furniture() && s.has_text()) || notes.iter().any(Shape::has_text);
        if !shown {
            // A slide without text (a picture, a blank) keeps its number but writes nothing.
            continue;
        }
        match &title {
            Some(title) => blocks.heading(1, &format!("Slide {number}: {title}"))?,
            None => blocks.heading(1, &format!("Slide {number}"))?,
        }
        if first_title.is_none() {
            first_title = title.clone();
        }
        for shape in shapes.iter().filter(|s| !s.is_title() && !s.is_furniture()) {
            shape.write(&mut blocks)?;
        }
        if notes.iter().any(Shape::has_text) {
            blocks.heading(2, "Notes")?;
            for shape in &notes {
                shape.write(&mut blocks)?;
            }
        }
    }
    Ok((blocks.finish(), core_title.or(first_title)))
}

/// One relationship of a `.rels` part.
struct Relationship {
    id: String,
    kind: String,
    target: String,
}

/// The internal relationships of a `.rels` part (external targets skipped).
fn relationships(xml: &str) -> Vec<Relationship> {
    let mut out = Vec::new();
    let mut nodes = Nodes::new(xml, "a relationships part");
    while let Ok(Some(node)) = nodes.next_node() {
        let Node::Open(tag) = node else { continue };
        if tag.name != "Relationship" || tag.attr("TargetMode") == Some("External") {
            continue;
        }
        if let (Some(id), Some(kind), Some(target)) = (tag.attr("Id"), tag.attr("Type"), tag.attr("Target")) {
            out.push(Relationship { id: id.to_owned(), kind: kind.to_owned(), target: target.to_owned() });
        }
    }
    out
}

/// The relationship ids of the slides, in presentation order (`p:sldIdLst/p:sldId/@r:id`).
fn slide_ids(xml: &str, part: &str) -> Result<Vec<String>, ExtractError> {
    let mut ids = Vec::new();
    let mut nodes = Nodes::new(xml, part);
    while let Some(node) = nodes.next_node().map_err(malformed)? {
        if let Node::Open(tag) = node
            && tag.name == "sldId"
            && let Some(id) = tag.prefixed_attr("id")
        {
            ids.push(id.to_owned());
        }
    }
    Ok(ids)
}

/// The notes slide of a slide, named by the slide's relationships.
fn notes_part(package: &mut Package, slide: &str) -> Result<Option<String>, ExtractError> {
    let rels = relationships(&package.text(&relationships_of(slide))?.unwrap_or_default());
    Ok(rels.iter().find(|r| r.kind.ends_with("/notesSlide")).map(|r| resolve(folder_of(slide), &r.target)))
}

/// A shape of a slide: its placeholder type (`title`, `body`, …; `None` for a free shape), its
/// paragraphs, and its table rows when it is a table.
#[derive(Default, Debug)]
struct Shape {
    placeholder: Option<String>,
    paragraphs: Vec<String>,
    table: Vec<Vec<String>>,
}

impl Shape {
    fn is_title(&self) -> bool {
        matches!(self.placeholder.as_deref(), Some("title" | "ctrTitle"))
    }

    fn is_furniture(&self) -> bool {
        self.placeholder.as_deref().is_some_and(|p| FURNITURE.contains(&p))
    }

    fn has_text(&self) -> bool {
        self.paragraphs.iter().any(|p| !p.trim().is_empty()) || !self.table.is_empty()
    }

    /// Its paragraphs as one block of lines, or its table.
    fn write(&self, blocks: &mut Blocks) -> Result<(), ExtractError> {
        if !self.table.is_empty() {
            return blocks.table(&self.table);
        }
        let lines: Vec<&str> = self.paragraphs.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).collect();
        blocks.paragraph(&lines.join("\n"))
    }
}

/// The text of a notes slide: its body placeholder (the slide image, number and header are not
/// notes).
fn shapes_of_notes(xml: &str, part: &str) -> Result<Vec<Shape>, ExtractError> {
    Ok(shapes(xml, part)?.into_iter().filter(|s| s.placeholder.as_deref() == Some("body")).collect())
}

/// The shapes of a slide (or notes slide) in drawing order, groups flattened. DrawingML text is
/// `a:p` paragraphs of `a:t` runs (`a:br` a line break); tables are `a:tbl` rows of `a:tc`
/// cells, a merged-over cell empty. `mc:Fallback` (the same content again for older readers)
/// is skipped.
fn shapes(xml: &str, part: &str) -> Result<Vec<Shape>, ExtractError> {
    let mut shapes = Vec::new();
    let mut shape: Option<Shape> = None;
    let mut paragraph: Option<String> = None;
    let mut in_text = false;
    let mut fallback = 0usize;
    let mut row: Option<Vec<String>> = None;
    // The paragraphs of the cell being read, and whether it is merged over.
    let mut cell: Option<(Vec<String>, bool)> = None;
    let mut nodes = Nodes::new(xml, part);
    while let Some(node) = nodes.next_node().map_err(malformed)? {
        match node {
            Node::Open(tag) if tag.name == "Fallback" => fallback += 1,
            Node::Close(name) if name == "Fallback" => fallback = fallback.saturating_sub(1),
            _ if fallback > 0 => {}
            Node::Open(tag) => match tag.name.as_str() {
                "sp" | "graphicFrame" => shape = Some(Shape::default()),
                "ph" => {
                    if let Some(shape) = &mut shape {
                        // A placeholder without a type is a body (content) placeholder.
                        shape.placeholder = Some(tag.attr("type").unwrap_or("body").to_owned());
                    }
                }
                "p" => paragraph = Some(String::new()),
                "t" => in_text = true,
                "br" => {
                    if let Some(paragraph) = &mut paragraph {
                        paragraph.push('\n');
                    }
                }
                "tr" => row = Some(Vec::new()),
                "tc" => {
                    let merged = ["hMerge", "vMerge"].iter().any(|a| matches!(tag.attr(a), Some("1" | "true")));
                    cell = Some((Vec::new(), merged));
                }
                _ => {}
            },
            Node::Text(text) => {
                if in_text && let Some(paragraph) = &mut paragraph {
                    paragraph.push_str(&text);
                }
            }
            Node::Close(name) => match name.as_str() {
                "t" => in_text = false,
                "p" => {
                    let Some(text) = paragraph.take() else { continue };
                    if let Some((parts, _)) = &mut cell {
                        parts.push(text);
                    } else if let Some(shape) = &mut shape {
                        shape.paragraphs.push(text);
                    }
                }
                "tc" => {
                    if let (Some((parts, merged)), Some(row)) = (cell.take(), &mut row) {
                        row.push(if merged { String::new() } else { parts.join("\n") });
                    }
                }
                "tr" => {
                    if let (Some(row), Some(shape)) = (row.take(), &mut shape) {
                        shape.table.push(row);
                    }
                }
                "sp" | "graphicFrame" => shapes.extend(shape.take()),
                _ => {}
            },
        }
    }
    Ok(shapes)
}

fn malformed(message: String) -> ExtractError {
    ExtractError::Corrupt(format!("the PPTX part {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_keep_placeholders_paragraphs_and_tables() {
        let xml = r#"<p:sld><p:cSld><p:spTree>
            <p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>Q3 </a:t></a:r><a:r><a:t>results</a:t></a:r></a:p></p:txBody></p:sp>
            <p:grpSp><p:sp><p:nvSpPr><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>Up 12%</a:t></a:r><a:br/><a:r><a:t>in EMEA</a:t></a:r></a:p></p:txBody></p:sp></p:grpSp>
            <p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t>Region</a:t></a:r></a:p></a:txBody></a:tc><a:tc hMerge="1"><a:txBody><a:p><a:r><a:t>x</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>
            <mc:AlternateContent><mc:Choice><p:sp><p:txBody><a:p><a:r><a:t>new</a:t></a:r></a:p></p:txBody></p:sp></mc:Choice><mc:Fallback><p:sp><p:txBody><a:p><a:r><a:t>old</a:t></a:r></a:p></p:txBody></p:sp></mc:Fallback></mc:AlternateContent>
            <p:sp><p:nvSpPr><p:nvPr><p:ph type="sldNum"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:fld><a:t>7</a:t></a:fld></a:p></p:txBody></p:sp>
        </p:spTree></p:cSld></p:sld>"#;
        let shapes = shapes(xml, "slide").unwrap();
        assert_eq!(shapes.len(), 5);
        assert!(shapes[0].is_title() && shapes[0].paragraphs == ["Q3 results"]);
        assert_eq!(shapes[1].paragraphs, ["Up 12%\nin EMEA"]);
        assert_eq!(shapes[2].table, [vec!["Region".to_owned(), String::new()]]);
        assert_eq!(shapes[3].paragraphs, ["new"], "the fallback copy is skipped");
        assert!(shapes[4].is_furniture());
    }
}
