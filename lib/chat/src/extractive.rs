//! Answers made of the passages' own words: each passage on the question's topic contributes
//! its most relevant sentences, followed by its marker. Deterministic for a knowledge base and a
//! question; no model, no network.

use async_trait::async_trait;
use lore_app::ports::{Generated, GenerationError, Prompt, Responder, TextSink};
use lore_domain::conversation::{GeneratedBy, NOTHING_FOUND};

/// Passages an extractive answer quotes at most.
const MAX_QUOTED: usize = 3;

#[derive(Debug, Clone, Copy, Default)]
pub struct ExtractiveResponder;

impl ExtractiveResponder {
    /// The answer to `prompt`.
    pub fn answer(prompt: &Prompt) -> String {
        let quoted: Vec<String> = prompt
            .passages
            .iter()
            .filter(|p| p.on_topic && !p.quote.is_empty())
            .take(MAX_QUOTED)
            .map(|p| format!("{} [{}]", p.quote, p.index))
            .collect();
        match quoted.as_slice() {
            [] => NOTHING_FOUND.to_owned(),
            [one] => format!("From what I know: {one}"),
            many => {
                format!("From what I know:\n\n{}", many.iter().map(|q| format!("- {q}")).collect::<Vec<_>>().join("\n"))
            }
        }
    }
}

#[async_trait]
impl Responder for ExtractiveResponder {
    fn describe(&self) -> String {
        "extractive (quotes the best passages; set OPENAI_API_KEY, or LORE_LLM_BASE_URL for another OpenAI-compatible server, to answer with a language model)".into()
    }

    async fn respond(&self, prompt: &Prompt, delta: &dyn TextSink) -> Result<Generated, GenerationError> {
        let text = Self::answer(prompt);
        // Line by line, like a model's stream.
        for piece in text.split_inclusive('\n') {
            delta.push(piece);
        }
        Ok(Generated { text, generated_by: GeneratedBy::Extractive, model: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_app::ports::{Passage, Persona};

    fn passage(index: u32, quote: &str, on_topic: bool) -> Passage {
        Passage { index, source_name: "s".into(), content: quote.into(), quote: quote.into(), on_topic }
    }

    fn prompt(passages: Vec<Passage>) -> Prompt {
        Prompt { persona: Persona::default(), passages, history: Vec::new(), question: "q".into() }
    }

    #[test]
    fn quotes_on_topic_passages_with_their_markers_or_says_nothing_is_known() {
        let p = prompt(vec![passage(1, "Refunds take 14 days.", true), passage(2, "Unrelated.", false)]);
        assert_eq!(ExtractiveResponder::answer(&p), "From what I know: Refunds take 14 days. [1]");
        let p = prompt(vec![passage(1, "A.", true), passage(2, "B.", true), passage(3, "C.", false)]);
        assert_eq!(ExtractiveResponder::answer(&p), "From what I know:\n\n- A. [1]\n- B. [2]");
        assert_eq!(ExtractiveResponder::answer(&prompt(vec![passage(1, "x", false)])), NOTHING_FOUND);
    }
}
