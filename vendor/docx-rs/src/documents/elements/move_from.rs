use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use std::io::Write;

use crate::xml_builder::*;
use crate::{documents::*, escape};

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct MoveFrom {
    pub author: String,
    pub date: String,
    pub children: Vec<MoveFromChild>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MoveFromChild {
    Run(Box<Run>),
    CommentStart(Box<CommentRangeStart>),
    CommentEnd(CommentRangeEnd),
}

impl Serialize for MoveFromChild {
    fn serialize<S>(&self, serializer: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
    {
        match *self {
            MoveFromChild::Run(ref r) => {
                let mut t = serializer.serialize_struct("Run", 2)?;
                t.serialize_field("type", "run")?;
                t.serialize_field("data", r)?;
                t.end()
            }
            MoveFromChild::CommentStart(ref r) => {
                let mut t = serializer.serialize_struct("CommentRangeStart", 2)?;
                t.serialize_field("type", "commentRangeStart")?;
                t.serialize_field("data", r)?;
                t.end()
            }
            MoveFromChild::CommentEnd(ref r) => {
                let mut t = serializer.serialize_struct("CommentRangeEnd", 2)?;
                t.serialize_field("type", "commentRangeEnd")?;
                t.serialize_field("data", r)?;
                t.end()
            }
        }
    }
}

impl Default for MoveFrom {
    fn default() -> MoveFrom {
        MoveFrom {
            author: "unnamed".to_owned(),
            date: "1970-01-01T00:00:00Z".to_owned(),
            children: vec![],
        }
    }
}

impl MoveFrom {
    pub fn new() -> MoveFrom {
        Self {
            children: vec![],
            ..Default::default()
        }
    }

    pub fn add_run(mut self, run: Run) -> MoveFrom {
        self.children.push(MoveFromChild::Run(Box::new(run)));
        self
    }

    pub fn add_comment_start(mut self, comment: Comment) -> MoveFrom {
        self.children.push(MoveFromChild::CommentStart(Box::new(
            CommentRangeStart::new(comment),
        )));
        self
    }

    pub fn add_comment_end(mut self, id: usize) -> MoveFrom {
        self.children
            .push(MoveFromChild::CommentEnd(CommentRangeEnd::new(id)));
        self
    }

    pub fn author(mut self, author: impl Into<String>) -> MoveFrom {
        self.author = escape::escape_owned(author.into());
        self
    }

    pub fn date(mut self, date: impl Into<String>) -> MoveFrom {
        self.date = date.into();
        self
    }
}

impl HistoryId for MoveFrom {}

impl BuildXML for MoveFrom {
    fn build_to<W: Write>(
        &self,
        stream: crate::xml::writer::EventWriter<W>,
    ) -> crate::xml::writer::Result<crate::xml::writer::EventWriter<W>> {
        let id = self.generate();
        XMLBuilder::from(stream)
            .open_move_from(id.as_ref(), &self.author, &self.date)?
            .apply_each(&self.children, |ch, b| match ch {
                MoveFromChild::Run(t) => b.add_child(&**t),
                MoveFromChild::CommentStart(c) => b.add_child(&**c),
                MoveFromChild::CommentEnd(c) => b.add_child(c),
            })?
            .close()?
            .into_inner()
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    #[cfg(test)]
    use pretty_assertions::assert_eq;
    use std::str;

    #[test]
    fn test_move_from_default() {
        let b = MoveFrom::new().add_run(Run::new()).build();
        assert_eq!(
            str::from_utf8(&b).unwrap(),
            r#"<w:moveFrom w:id="123" w:author="unnamed" w:date="1970-01-01T00:00:00Z"><w:r><w:rPr /></w:r></w:moveFrom>"#
        );
    }
}
