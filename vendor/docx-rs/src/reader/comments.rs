use std::io::Read;
use std::str::FromStr;

use super::*;

impl FromXML for Comments {
    fn from_xml<R: Read>(reader: R) -> Result<Self, ReaderError> {
        let mut r = EventReader::new(reader);
        let mut comments: Vec<Comment> = vec![];
        loop {
            let e = r.next_event();
            match e {
                Ok(XmlEvent::StartElement {
                    name, attributes, ..
                }) => {
                    let e = XMLElement::from_str(&name.local_name)
                        .expect("should convert to XMLElement");
                    if let XMLElement::Comment = e {
                        comments.push(Comment::read(&mut r, &attributes)?);
                    }
                }
                Ok(XmlEvent::EndElement { name, .. }) => {
                    let e = XMLElement::from_str(&name.local_name).unwrap();
                    if e == XMLElement::Comments {
                        return Ok(Comments { comments });
                    }
                }
                Ok(XmlEvent::EndDocument) => {
                    return Ok(Comments { comments });
                }
                Err(_) => return Err(ReaderError::XMLReadError),
                _ => {}
            }
        }
    }
}
