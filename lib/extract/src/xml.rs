//! The XML parts of PPTX, ODT and EPUB read as a stream of simple events through quick-xml:
//! element names without their namespace prefix, attribute values unescaped, text with its
//! entity and character references resolved. quick-xml neither recurses nor builds a tree, so
//! a part nested arbitrarily deep costs nothing more than a flat one; the parts themselves are
//! bounded by `archive::Package` before they get here.

use quick_xml::events::Event;
use std::borrow::Cow;

/// One event of a part.
#[derive(Debug, PartialEq)]
pub(crate) enum Node {
    /// An element opens (an empty element opens and closes at once: `Close` follows).
    Open(Tag),
    /// An element closes: its local name.
    Close(String),
    /// Character data (CDATA sections included), references resolved.
    Text(String),
}

#[derive(Debug, PartialEq)]
pub(crate) struct Tag {
    /// The local name (`sp` for `p:sp`).
    pub(crate) name: String,
    /// Qualified attribute names and their unescaped values.
    pub(crate) attributes: Vec<(String, String)>,
}

impl Tag {
    /// The value of the attribute whose local name is `local` (with or without a prefix).
    pub(crate) fn attr(&self, local: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(name, _)| name.rsplit_once(':').map_or(name.as_str(), |(_, l)| l) == local)
            .map(|(_, value)| value.as_str())
    }

    /// The value of the attribute whose local name is `local` and that has a prefix (`r:id`,
    /// not `id`).
    pub(crate) fn prefixed_attr(&self, local: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(name, _)| name.rsplit_once(':').is_some_and(|(_, l)| l == local))
            .map(|(_, value)| value.as_str())
    }
}

/// Events of one XML text.
pub(crate) struct Nodes<'a> {
    reader: quick_xml::Reader<&'a [u8]>,
    /// What a malformed part is called in the error.
    part: &'a str,
}

impl<'a> Nodes<'a> {
    pub(crate) fn new(xml: &'a str, part: &'a str) -> Self {
        let mut reader = quick_xml::Reader::from_str(xml);
        let config = reader.config_mut();
        config.expand_empty_elements = true;
        // Real producers close what they open; a part that does not is read as far as it goes
        // rather than refused at its first slip.
        config.check_end_names = false;
        config.allow_unmatched_ends = true;
        Self { reader, part }
    }

    /// The next event; `None` at the end. A part that is not XML ends in an error naming it.
    pub(crate) fn next_node(&mut self) -> Result<Option<Node>, String> {
        loop {
            let event = self
                .reader
                .read_event()
                .map_err(|e| format!("{} is malformed XML at byte {}: {e}", self.part, self.reader.error_position()))?;
            return Ok(Some(match event {
                Event::Start(start) => {
                    let name = String::from_utf8_lossy(start.local_name().as_ref()).into_owned();
                    let attributes = start
                        .attributes()
                        .with_checks(false)
                        .flatten()
                        .map(|attribute| {
                            let key = String::from_utf8_lossy(attribute.key.as_ref()).into_owned();
                            let raw = String::from_utf8_lossy(&attribute.value);
                            let value = match quick_xml::escape::unescape(&raw) {
                                Ok(value) => value.into_owned(),
                                Err(_) => raw.into_owned(),
                            };
                            (key, value)
                        })
                        .collect();
                    Node::Open(Tag { name, attributes })
                }
                Event::End(end) => Node::Close(String::from_utf8_lossy(end.local_name().as_ref()).into_owned()),
                Event::Text(text) => Node::Text(text.xml10_content().map_or_else(|_| lossy(&text), Cow::into_owned)),
                Event::CData(data) => Node::Text(String::from_utf8_lossy(&data).into_owned()),
                Event::GeneralRef(reference) => {
                    let resolved = match reference.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        _ => {
                            let name = String::from_utf8_lossy(&reference);
                            match quick_xml::escape::resolve_predefined_entity(&name) {
                                Some(text) => text.to_owned(),
                                None => format!("&{name};"),
                            }
                        }
                    };
                    Node::Text(resolved)
                }
                Event::Eof => return Ok(None),
                // Declarations, comments, processing instructions, doctypes.
                _ => continue,
            }));
        }
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(xml: &str) -> Vec<Node> {
        let mut nodes = Nodes::new(xml, "the part");
        let mut out = Vec::new();
        while let Some(node) = nodes.next_node().unwrap() {
            out.push(node);
        }
        out
    }

    #[test]
    fn names_lose_their_prefix_and_references_are_resolved() {
        let nodes = all(
            "<?xml version=\"1.0\"?><p:sld r:id=\"a&amp;b\" id=\"1\"><a:t>R&amp;D &#233;t&#xE9; &nbsp;</a:t><x/><![CDATA[<raw>]]></p:sld>",
        );
        let Node::Open(tag) = &nodes[0] else { panic!("{nodes:?}") };
        assert_eq!(tag.name, "sld");
        assert_eq!((tag.prefixed_attr("id"), tag.attr("id")), (Some("a&b"), Some("a&b")));
        let text: String =
            nodes.iter().filter_map(|n| if let Node::Text(t) = n { Some(t.as_str()) } else { None }).collect();
        assert_eq!(text, "R&D été &nbsp;<raw>");
        assert!(nodes.contains(&Node::Close("x".into())), "an empty element opens and closes");
    }

    #[test]
    fn deep_nesting_is_streamed() {
        let xml = format!("{}text{}", "<a>".repeat(200_000), "</a>".repeat(200_000));
        assert_eq!(all(&xml).len(), 400_001);
    }
}
