//! The chat prompt within a token budget: the persona and the rules first, then as many of the
//! passages as fit (best first; the first one cut to fit when it alone is too long), then as
//! many of the most recent turns as fit, then the question.
//!
//! Tokens are estimated, not counted: 1 token per 4 bytes of UTF-8, rounded up, which is close
//! for English with the GPT tokenizers and errs towards more tokens for other scripts. The
//! budget leaves the model's answer its own room (`max_answer_tokens` is sent separately).

use lore_app::ports::{Prompt, Turn};
use lore_domain::conversation::Role;

/// The estimated tokens of `text`.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptBudget {
    /// Tokens of everything sent (system message, passages, turns, question).
    pub prompt_tokens: usize,
}

impl Default for PromptBudget {
    fn default() -> Self {
        Self { prompt_tokens: 6_000 }
    }
}

/// The messages of a chat request, as (role, text) pairs; `system` first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatMessages {
    pub system: String,
    /// Earlier turns kept, oldest first, then the question as the last user turn.
    pub turns: Vec<Turn>,
}

fn cut_to_tokens(text: &str, tokens: usize) -> &str {
    let mut end = (tokens * 4).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Builds the messages for `prompt` within `budget`.
pub fn build(prompt: &Prompt, budget: PromptBudget) -> ChatMessages {
    let p = &prompt.persona;
    let mut system = String::new();
    system.push_str(&format!("You are {}", p.name));
    if let Some(h) = &p.headline {
        system.push_str(&format!(", {h}"));
    }
    system.push_str(".\n");
    if !p.expertise_areas.is_empty() {
        system.push_str(&format!("Your areas of expertise: {}.\n", p.expertise_areas.join(", ")));
    }
    if let Some(instructions) = &p.instructions {
        system.push('\n');
        system.push_str(instructions);
        system.push('\n');
    }
    system.push_str(
        "\nAnswer from the numbered passages below. After each statement taken from a passage, cite it with its \
         number in square brackets, like [1] or [2][3]; cite only numbers listed below. If the passages do not \
         contain the answer, say that you do not know it from your knowledge rather than guessing.\n",
    );
    // What the public page renders (docs/api.md §18): anything else would show as literal text.
    system.push_str(
        "Format with plain Markdown only: paragraphs, `-` or `1.` lists, **bold**, *emphasis*, `code`, fenced \
         code blocks and [links](https://…). No headings, tables, images or HTML.\n",
    );
    // The visitor's language (docs/api.md §20), whatever the passages are written in.
    system.push_str(&format!(
        "Write your answer in {} (language code `{}`), even when the passages are in another language.\n\nPassages:\n",
        prompt.language.name(),
        prompt.language.code()
    ));
    let question_tokens = estimate_tokens(&prompt.question) + 8;
    let mut left = budget.prompt_tokens.saturating_sub(estimate_tokens(&system) + question_tokens);
    let mut listed = 0;
    for passage in &prompt.passages {
        let header = format!("\n[{}] (from \"{}\")\n", passage.index, passage.source_name);
        let cost = estimate_tokens(&header) + estimate_tokens(&passage.content);
        if cost <= left {
            system.push_str(&header);
            system.push_str(&passage.content);
            system.push('\n');
            left -= cost;
            listed += 1;
        } else if listed == 0 && left > estimate_tokens(&header) + 16 {
            // The best passage always goes in, cut to what is left.
            let room = left - estimate_tokens(&header);
            system.push_str(&header);
            system.push_str(cut_to_tokens(&passage.content, room));
            system.push('\n');
            left = 0;
            listed += 1;
        } else {
            break;
        }
    }
    if listed == 0 {
        system.push_str("\n(none: nothing in your knowledge matches this question)\n");
    }
    let mut kept = Vec::new();
    for turn in prompt.history.iter().rev() {
        let cost = estimate_tokens(&turn.content) + 4;
        if cost > left {
            break;
        }
        left -= cost;
        kept.push(turn.clone());
    }
    kept.reverse();
    // A conversation the model sees must start with the user (the welcome message may be first).
    while kept.first().is_some_and(|t| t.role == Role::Assistant) {
        kept.remove(0);
    }
    kept.push(Turn { role: Role::User, content: prompt.question.clone() });
    ChatMessages { system, turns: kept }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_app::ports::{Passage, Persona};

    fn prompt(passages: usize, turns: usize) -> Prompt {
        Prompt {
            persona: Persona {
                name: "Ada".into(),
                headline: Some("Support lead".into()),
                instructions: Some("Be brief.".into()),
                expertise_areas: vec!["refunds".into()],
                temperature: Some(0.2),
            },
            passages: (1..=passages as u32)
                .map(|i| Passage {
                    index: i,
                    source_name: format!("doc{i}"),
                    content: "x".repeat(400),
                    quote: "x".into(),
                    on_topic: true,
                })
                .collect(),
            history: (0..turns)
                .map(|i| Turn {
                    role: if i % 2 == 0 { Role::User } else { Role::Assistant },
                    content: format!("turn {i}"),
                })
                .collect(),
            question: "What about refunds?".into(),
            language: lore_domain::language::Language::English,
        }
    }

    #[test]
    fn everything_fits_in_a_large_budget() {
        let m = build(&prompt(3, 4), PromptBudget::default());
        assert!(m.system.starts_with("You are Ada, Support lead."));
        assert!(m.system.contains("Be brief.") && m.system.contains("refunds"));
        assert!(m.system.contains("plain Markdown only"), "the model is told what the page renders");
        for i in 1..=3 {
            assert!(m.system.contains(&format!("[{i}] (from \"doc{i}\")")));
        }
        assert_eq!(m.turns.len(), 5);
        assert_eq!(m.turns.last().unwrap().content, "What about refunds?");
    }

    #[test]
    fn a_small_budget_drops_later_passages_and_older_turns_first() {
        let m = build(&prompt(5, 40), PromptBudget { prompt_tokens: 450 });
        assert!(m.system.contains("[1] (from"));
        assert!(!m.system.contains("[5] (from"));
        let total = estimate_tokens(&m.system) + m.turns.iter().map(|t| estimate_tokens(&t.content) + 4).sum::<usize>();
        assert!(total <= 450 + 8, "{total}");
        assert_eq!(m.turns.first().unwrap().role, Role::User);
        // The kept turns are the most recent ones.
        if m.turns.len() > 1 {
            assert_eq!(m.turns[m.turns.len() - 2].content, "turn 39");
        }
    }
}
