//! Splitting extracted text into chunks for embedding (docs/api.md §6: ~800 tokens-equivalent,
//! 15 % overlap, Markdown-aware for Markdown and HTML).
//!
//! text-splitter's cost grows faster than linearly with document length (the performance budgets (docs/benchmarks.md)), so long
//! documents are first cut into bounded sections at paragraph breaks and each section is split
//! on its own; a chunk never spans two sections.

use text_splitter::{ChunkConfig, MarkdownSplitter, TextSplitter};

/// Characters per token used to turn the token-denominated settings into characters.
const CHARS_PER_TOKEN: usize = 4;
/// Sections handed to the splitter are at most this many bytes.
const SECTION_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkSettings {
    pub max_chars: usize,
    pub overlap_chars: usize,
}

impl ChunkSettings {
    /// From a size in tokens and an overlap in percent of it.
    pub fn from_tokens(tokens: usize, overlap_percent: usize) -> Self {
        let max_chars = tokens.max(16) * CHARS_PER_TOKEN;
        let overlap_chars = max_chars * overlap_percent.min(50) / 100;
        Self { max_chars, overlap_chars }
    }
}

impl Default for ChunkSettings {
    fn default() -> Self {
        Self::from_tokens(800, 15)
    }
}

/// Cuts `text` into sections of at most `SECTION_BYTES`, preferring paragraph breaks, then line
/// breaks, then any char boundary.
fn sections(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while rest.len() > SECTION_BYTES {
        let mut cut = SECTION_BYTES;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let window = &rest[..cut];
        let at = window.rfind("\n\n").or_else(|| window.rfind('\n')).filter(|&i| i > SECTION_BYTES / 4).unwrap_or(cut);
        let (head, tail) = rest.split_at(at);
        out.push(head);
        rest = tail;
    }
    out.push(rest);
    out
}

/// The chunks of `text`, in order, trimmed and non-empty.
pub fn chunk_text(text: &str, markdown: bool, settings: ChunkSettings) -> Vec<String> {
    let config = ChunkConfig::new(settings.max_chars)
        .with_overlap(settings.overlap_chars.min(settings.max_chars.saturating_sub(1)))
        .unwrap_or_else(|_| ChunkConfig::new(settings.max_chars));
    let mut chunks = Vec::new();
    if markdown {
        let splitter = MarkdownSplitter::new(config);
        for section in sections(text) {
            chunks.extend(splitter.chunks(section).map(str::trim).filter(|c| !c.is_empty()).map(str::to_owned));
        }
    } else {
        let splitter = TextSplitter::new(config);
        for section in sections(text) {
            chunks.extend(splitter.chunks(section).map(str::trim).filter(|c| !c.is_empty()).map(str::to_owned));
        }
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_bounded_ordered_and_cover_the_text() {
        let para = "The quick brown fox jumps over the lazy dog. ".repeat(20);
        let text = (0..40).map(|i| format!("Paragraph {i}. {para}")).collect::<Vec<_>>().join("\n\n");
        let s = ChunkSettings { max_chars: 1000, overlap_chars: 150 };
        let chunks = chunk_text(&text, false, s);
        assert!(chunks.len() > 30, "{}", chunks.len());
        assert!(chunks.iter().all(|c| c.chars().count() <= 1000));
        assert!(chunks[0].starts_with("Paragraph 0."));
        assert!(chunks.last().unwrap().contains("Paragraph 39."));
        let pos: Vec<usize> =
            (0..40).map(|i| chunks.iter().position(|c| c.contains(&format!("Paragraph {i}."))).unwrap()).collect();
        assert!(pos.windows(2).all(|w| w[0] <= w[1]), "order kept");
    }

    #[test]
    fn markdown_splits_at_headings() {
        let text = format!("# One\n\n{}\n\n# Two\n\n{}", "alpha ".repeat(150), "beta ".repeat(150));
        let chunks = chunk_text(&text, true, ChunkSettings { max_chars: 1000, overlap_chars: 0 });
        assert!(chunks.iter().any(|c| c.starts_with("# Two")), "{chunks:?}");
        assert!(chunks.iter().all(|c| !(c.contains("alpha") && c.contains("beta"))));
    }

    #[test]
    fn long_documents_are_sectioned_and_multibyte_safe() {
        let text = "é".repeat(200_000); // 400 KB without any break
        let chunks = chunk_text(&text, false, ChunkSettings { max_chars: 3200, overlap_chars: 0 });
        assert_eq!(chunks.iter().map(|c| c.chars().count()).sum::<usize>(), 200_000);
        assert!(chunk_text("   \n\n ", false, ChunkSettings::default()).is_empty());
    }
}
