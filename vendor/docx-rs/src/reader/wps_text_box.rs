#![allow(clippy::single_match)]

use std::io::Read;
use std::str::FromStr;

use super::*;

impl ElementReader for WpsTextBox {
    fn read<R: Read>(
        r: &mut EventReader<R>,
        _attrs: &[OwnedAttribute],
    ) -> Result<Self, ReaderError> {
        let mut text_box = WpsTextBox::new();
        loop {
            let e = r.next_event();
            match e {
                Ok(XmlEvent::StartElement {
                    name, attributes, ..
                }) => {
                    let e = XMLElement::from_str(&name.local_name)
                        .expect("should convert to XMLElement");
                    match e {
                        XMLElement::TxbxContent => {
                            let content = TextBoxContent::read(r, &attributes)?;
                            text_box = text_box.add_content(content);
                        }
                        _ => {}
                    }
                }
                Ok(XmlEvent::EndElement { name, .. }) => {
                    let e = WpsXMLElement::from_str(&name.local_name).unwrap();
                    if e == WpsXMLElement::Txbx {
                        return Ok(text_box);
                    }
                }
                Err(_) => return Err(ReaderError::XMLReadError),
                _ => {}
            }
        }
    }
}
