//! Answers made of the passages' own words: each passage on the question's topic contributes
//! its most relevant sentences, followed by its marker. Deterministic for a knowledge base and a
//! question; no model, no network.

use async_trait::async_trait;
use lore_app::ports::{Generated, GenerationError, Prompt, Responder, TextSink, Toolbox};
use lore_domain::conversation::GeneratedBy;

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
        let framing = prompt.language.answer_framing();
        // A framing ending in a full-width colon (Chinese, Japanese) takes no space after it.
        let gap = if framing.ends_with('：') { "" } else { " " };
        match quoted.as_slice() {
            [] => prompt.language.nothing_found().to_owned(),
            [one] => format!("{framing}{gap}{one}"),
            many => format!("{framing}\n\n{}", many.iter().map(|q| format!("- {q}")).collect::<Vec<_>>().join("\n")),
        }
    }
}

#[async_trait]
impl Responder for ExtractiveResponder {
    fn describe(&self) -> String {
        "extractive (quotes the best passages; set OPENAI_API_KEY, or LORE_LLM_BASE_URL for another OpenAI-compatible server, to answer with a language model)".into()
    }

    /// Never calls a tool: without a model no action runs (docs/api.md §23).
    async fn respond(
        &self,
        prompt: &Prompt,
        delta: &dyn TextSink,
        _tools: &dyn Toolbox,
    ) -> Result<Generated, GenerationError> {
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
        Prompt {
            persona: Persona::default(),
            passages,
            history: Vec::new(),
            question: "q".into(),
            language: lore_domain::language::Language::English,
        }
    }

    #[test]
    fn quotes_on_topic_passages_with_their_markers_or_says_nothing_is_known() {
        let p = prompt(vec![passage(1, "Refunds take 14 days.", true), passage(2, "Unrelated.", false)]);
        assert_eq!(ExtractiveResponder::answer(&p), "From what I know: Refunds take 14 days. [1]");
        let p = prompt(vec![passage(1, "A.", true), passage(2, "B.", true), passage(3, "C.", false)]);
        assert_eq!(ExtractiveResponder::answer(&p), "From what I know:\n\n- A. [1]\n- B. [2]");
        assert_eq!(
            ExtractiveResponder::answer(&prompt(vec![passage(1, "x", false)])),
            lore_domain::conversation::NOTHING_FOUND
        );
    }

    #[test]
    fn frames_and_says_nothing_in_the_answer_s_language_with_verbatim_quotes() {
        use lore_domain::language::Language;
        let mut p = prompt(vec![passage(1, "Refunds take 14 days.", true)]);
        p.language = Language::French;
        assert_eq!(ExtractiveResponder::answer(&p), "D'après ce que je sais : Refunds take 14 days. [1]");
        p.language = Language::Japanese;
        assert_eq!(ExtractiveResponder::answer(&p), "私の知る限りでは：Refunds take 14 days. [1]");
        let mut none = prompt(vec![passage(1, "x", false)]);
        none.language = Language::German;
        assert_eq!(ExtractiveResponder::answer(&none), "Dazu habe ich noch nichts in meinem Wissen.");
    }
}
