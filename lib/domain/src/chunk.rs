//! What an owner may change of a chunk of its knowledge (docs/api.md §6, "Chunks"): its text,
//! and whether search and answers use it.

use crate::error::DomainError;

/// The longest text an owner may give a chunk, in characters (docs/limits.md). Above every chunk
/// the chunker makes (at most 3,200 characters and its heading trail with the default settings),
/// so any chunk can be rewritten at its length, and small enough that one edit is one request to
/// the embedding model.
pub const MAX_CHUNK_TEXT_CHARS: usize = 8_000;

/// A chunk's new text: not blank, at most [`MAX_CHUNK_TEXT_CHARS`] characters, kept without its
/// leading and trailing white space (as the chunker keeps chunks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkText(String);

impl ChunkText {
    pub fn parse(raw: &str) -> Result<Self, DomainError> {
        let text = raw.trim();
        if text.is_empty() {
            return Err(DomainError::field("text", "must not be blank"));
        }
        let chars = text.chars().count();
        if chars > MAX_CHUNK_TEXT_CHARS {
            return Err(DomainError::field(
                "text",
                format!("has {chars} characters; at most {MAX_CHUNK_TEXT_CHARS} are allowed"),
            ));
        }
        Ok(Self(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// A change to one chunk: new text, enabled or disabled, or both; never nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkEdit {
    text: Option<ChunkText>,
    enabled: Option<bool>,
}

impl ChunkEdit {
    /// From the members of a PATCH body; absent (or `null`) members change nothing.
    pub fn parse(text: Option<&str>, enabled: Option<bool>) -> Result<Self, DomainError> {
        if text.is_none() && enabled.is_none() {
            return Err(DomainError::field("body", "give `text`, `enabled` or both"));
        }
        let text = text.map(ChunkText::parse).transpose()?;
        Ok(Self { text, enabled })
    }

    pub fn text(&self) -> Option<&ChunkText> {
        self.text.as_ref()
    }

    pub fn enabled(&self) -> Option<bool> {
        self.enabled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn an_edit_needs_something_to_change_and_text_that_is_not_blank_nor_too_long() {
        let nothing = ChunkEdit::parse(None, None).unwrap_err();
        assert_eq!(
            (nothing.code, nothing.fields.keys().map(String::as_str).collect::<Vec<_>>()),
            (ErrorCode::ValidationError, vec!["body"])
        );
        for blank in ["", "  \n\t "] {
            assert!(ChunkEdit::parse(Some(blank), Some(true)).unwrap_err().fields.contains_key("text"), "{blank:?}");
        }
        let long = "é".repeat(MAX_CHUNK_TEXT_CHARS + 1);
        assert!(ChunkEdit::parse(Some(&long), None).unwrap_err().fields["text"].contains("8001 characters"));
        let longest = "é".repeat(MAX_CHUNK_TEXT_CHARS);
        assert_eq!(
            ChunkEdit::parse(Some(&longest), None).unwrap().text().unwrap().as_str(),
            longest,
            "characters, not bytes"
        );

        let edit = ChunkEdit::parse(Some("  New words.\n"), None).unwrap();
        assert_eq!((edit.text().map(ChunkText::as_str), edit.enabled()), (Some("New words."), None));
        let edit = ChunkEdit::parse(None, Some(false)).unwrap();
        assert_eq!((edit.text(), edit.enabled()), (None, Some(false)));
    }
}
