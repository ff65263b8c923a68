//! Corrections and the owner's reply settings (docs/api.md §19): an owner's own answer to a
//! question, given again verbatim when a later question means the same; and whether the page
//! offers a person (`handoffEnabled`).

use crate::error::DomainError;
use crate::id::{CorrectionId, WorkspaceId};
use crate::metadata::Filter;
use crate::mind::Field;
use crate::source::SourceOwner;
use crate::time::Timestamp;

/// The member that holds [`ReplySettings::knowledge_filter`].
pub const KNOWLEDGE_FILTER_FIELD: &str = "knowledgeFilter";

/// `correctionThreshold` when the owner never set one.
pub const DEFAULT_CORRECTION_THRESHOLD: f64 = 0.9;

/// How similar (cosine of the embeddings) a question must be to a corrected one to be given
/// the correction: 0.5..=1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CorrectionThreshold(f64);

// Never NaN: `parse` refuses it and stored values were parsed once.
impl Eq for CorrectionThreshold {}

impl Default for CorrectionThreshold {
    fn default() -> Self {
        Self(DEFAULT_CORRECTION_THRESHOLD)
    }
}

impl CorrectionThreshold {
    pub const FIELD: &'static str = "correctionThreshold";

    pub fn parse(v: f64) -> Result<Self, DomainError> {
        if v.is_finite() && (0.5..=1.0).contains(&v) {
            Ok(Self(v))
        } else {
            Err(DomainError::field(Self::FIELD, "must be a number from 0.5 to 1"))
        }
    }

    /// A stored value; anything out of bounds reads as the default.
    pub fn from_stored(v: f64) -> Self {
        Self::parse(v).unwrap_or_default()
    }

    pub fn value(self) -> f64 {
        self.0
    }
}

/// The reply settings Minds and chatbots share.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReplySettings {
    pub correction_threshold: CorrectionThreshold,
    /// The page shows a "talk to a person" control (the hand-off route works either way).
    pub handoff_enabled: bool,
    /// The metadata filter of every answer's search (`knowledgeFilter`): a Mind or chatbot can
    /// answer from part of its sources only (docs/api.md §7).
    pub knowledge_filter: Option<Filter>,
    /// The language answers and the public page use (docs/api.md §20).
    pub language: crate::language::LanguageSetting,
}

/// A PATCH of [`ReplySettings`]; `None` keeps the value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReplyPatch {
    pub correction_threshold: Option<CorrectionThreshold>,
    pub handoff_enabled: Option<bool>,
    /// `Some(None)` removes the filter.
    pub knowledge_filter: Option<Option<Filter>>,
    pub language: Option<crate::language::LanguageSetting>,
}

/// The raw reply members of a Mind or chatbot PATCH.
#[derive(Debug, Clone, Copy)]
pub struct RawReply<'a> {
    pub correction_threshold: &'a Field<f64>,
    pub handoff_enabled: &'a Field<bool>,
    pub knowledge_filter: &'a Field<serde_json::Value>,
    pub language: &'a Field<String>,
}

impl ReplyPatch {
    /// Reads `correctionThreshold` and `handoffEnabled` (`null` is refused for both) and
    /// `knowledgeFilter` (`null` removes it).
    pub fn parse(v: &mut crate::error::Validator, raw: RawReply<'_>) -> Self {
        let RawReply { correction_threshold: threshold, handoff_enabled: handoff, knowledge_filter, language } = raw;
        let correction_threshold = match threshold {
            Field::Absent => None,
            Field::Null => {
                v.check(Err(DomainError::field(CorrectionThreshold::FIELD, "must be a number from 0.5 to 1")))
            }
            Field::Value(t) => v.check(CorrectionThreshold::parse(*t)),
        };
        let handoff_enabled = match handoff {
            Field::Absent => None,
            Field::Null => v.check(Err(DomainError::field("handoffEnabled", "must be true or false"))),
            Field::Value(b) => Some(*b),
        };
        let knowledge_filter = match knowledge_filter {
            Field::Absent => None,
            Field::Null => Some(None),
            Field::Value(f) => v.check(Filter::parse(KNOWLEDGE_FILTER_FIELD, Some(f))),
        };
        let language = match language {
            Field::Absent => None,
            Field::Null => {
                v.check(Err(DomainError::field("language", "must be \"auto\" or a supported language code")))
            }
            Field::Value(l) => v.check(crate::language::LanguageSetting::parse("language", l)),
        };
        Self { correction_threshold, handoff_enabled, knowledge_filter, language }
    }

    pub fn apply(&self, r: &mut ReplySettings) {
        if let Some(f) = &self.knowledge_filter {
            r.knowledge_filter = f.clone();
        }
        if let Some(t) = self.correction_threshold {
            r.correction_threshold = t;
        }
        if let Some(b) = self.handoff_enabled {
            r.handoff_enabled = b;
        }
        if let Some(l) = self.language {
            r.language = l;
        }
    }
}

/// A question as corrections compare it: lower case, runs of whitespace as one space, trimmed.
pub fn fold(question: &str) -> String {
    question.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

/// The cosine of two vectors (0 when their lengths differ or one is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 { 0.0 } else { dot / (na.sqrt() * nb.sqrt()) }
}

/// The embedding of a corrected question, with the model that made it (vectors of another model
/// are never compared).
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionEmbedding {
    pub model: String,
    pub vector: Vec<f32>,
}

impl QuestionEmbedding {
    /// The vector as stored: base64 of its little-endian `f32`s.
    pub fn encoded(&self) -> String {
        use base64::Engine;
        let bytes: Vec<u8> = self.vector.iter().flat_map(|x| x.to_le_bytes()).collect();
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    /// A stored vector; `None` when it does not decode.
    pub fn decode(model: String, encoded: &str) -> Option<Self> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
        if bytes.len() % 4 != 0 {
            return None;
        }
        let vector = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        Some(Self { model, vector })
    }
}

/// An owner's answer to a question, given verbatim to later questions that mean the same.
#[derive(Debug, Clone, PartialEq)]
pub struct Correction {
    pub id: CorrectionId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    /// The question as the visitor asked it.
    pub question: String,
    /// The owner's answer (1..4,000 characters).
    pub content: String,
    /// `None` when the embedder failed when it was stored: then only folded equality matches.
    pub embedding: Option<QuestionEmbedding>,
    pub created_at: Timestamp,
}

impl Correction {
    /// How well `question` (folded: [`fold`]; its embedding by `model`, when known) matches this
    /// correction: `Some(2.0)` when the folded texts are equal, the cosine of the embeddings when
    /// it reaches `threshold`, else `None`.
    pub fn matches(
        &self,
        folded: &str,
        embedding: Option<(&str, &[f32])>,
        threshold: CorrectionThreshold,
    ) -> Option<f64> {
        if fold(&self.question) == folded {
            return Some(2.0);
        }
        let (model, vector) = embedding?;
        let mine = self.embedding.as_ref().filter(|e| e.model == model)?;
        let similarity = cosine(&mine.vector, vector);
        (similarity >= threshold.value()).then_some(similarity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_and_thresholds() {
        assert_eq!(fold("  How LONG\tdo refunds\n take? "), "how long do refunds take?");
        assert!(CorrectionThreshold::parse(0.4).is_err() && CorrectionThreshold::parse(1.1).is_err());
        assert!(CorrectionThreshold::parse(f64::NAN).is_err());
        assert_eq!(CorrectionThreshold::parse(0.5).unwrap().value(), 0.5);
        assert_eq!(CorrectionThreshold::default().value(), 0.9);
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-9);
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn a_correction_matches_folded_text_or_a_close_embedding_of_the_same_model() {
        let c = Correction {
            id: CorrectionId::generate(),
            workspace_id: WorkspaceId::generate(),
            owner: SourceOwner::Mind(crate::id::MindId::generate()),
            question: "How long do refunds take?".into(),
            content: "Ten days.".into(),
            embedding: Some(QuestionEmbedding { model: "m".into(), vector: vec![1.0, 0.0] }),
            created_at: Timestamp::now(),
        };
        let t = CorrectionThreshold::default();
        assert_eq!(c.matches("how long do  refunds take?", None, t), None, "the caller folds");
        assert_eq!(c.matches(&fold("how long do  REFUNDS take?"), None, t), Some(2.0));
        assert!(c.matches("other", Some(("m", &[0.99, 0.05])), t).is_some());
        assert_eq!(c.matches("other", Some(("m", &[0.0, 1.0])), t), None);
        assert_eq!(c.matches("other", Some(("n", &[1.0, 0.0])), t), None, "another model");
    }
}
