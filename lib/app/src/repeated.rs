//! One copy of repeated content across the pages of a crawl.
//!
//! Sites repeat themselves: navigation and footers on every page, and "print this book" or archive
//! pages that hold the text of every chapter. Indexed as they are, the big page swallows the site:
//! every fact is found (and cited) twice, usually from the print-all page. So each paragraph that
//! appears on several pages of one crawl is kept only on the **most specific** of them — the page
//! with the least text (the first crawled among equals) — and removed from the others.
//!
//! Units are blocks: the text between blank lines, compared with whitespace collapsed. Only blocks
//! of at least [`MIN_BLOCK_CHARS`] characters count as repeated content by themselves: a short line
//! ("Next", a common heading such as "## Examples") is no evidence that two sections are the same.
//! Headings and short blocks go with their neighbours: they are removed only when the content
//! around them is (a heading with the section that follows it).

use std::collections::HashMap;

/// Blocks shorter than this (in characters, whitespace collapsed) are never removed on their own.
pub const MIN_BLOCK_CHARS: usize = 40;

fn normalise(block: &str) -> String {
    block.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_heading(block: &str) -> bool {
    block.trim_start().starts_with('#')
}

/// Removes from each page the blocks found on a page with less text. `pages[i]` is the text of the
/// i-th page in crawl order; a page left without text becomes empty.
pub fn keep_one_copy(pages: &mut [String]) {
    if pages.len() < 2 {
        return;
    }
    let blocks: Vec<Vec<&str>> =
        pages.iter().map(|p| p.split("\n\n").filter(|b| !b.trim().is_empty()).collect()).collect();
    // Each block's normalised text when it is substantial (None: headings and short blocks).
    let keys: Vec<Vec<Option<String>>> = blocks
        .iter()
        .map(|page| {
            page.iter()
                .map(|block| {
                    let key = normalise(block);
                    (key.chars().count() >= MIN_BLOCK_CHARS && !is_heading(block)).then_some(key)
                })
                .collect()
        })
        .collect();
    // For each substantial block, the page that keeps it: least text, then first crawled.
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (i, page) in keys.iter().enumerate() {
        for key in page.iter().flatten() {
            owner
                .entry(key.as_str())
                .and_modify(|o| {
                    if pages[i].len() < pages[*o].len() {
                        *o = i;
                    }
                })
                .or_insert(i);
        }
    }
    let mut kept: Vec<String> = Vec::with_capacity(pages.len());
    for (i, page) in blocks.iter().enumerate() {
        // Some(true) = removed, Some(false) = kept, None = follows its neighbours.
        let verdict: Vec<Option<bool>> =
            keys[i].iter().map(|key| key.as_deref().map(|k| owner.get(k).is_some_and(|&o| o != i))).collect();
        let removed = |j: usize| -> bool {
            match verdict[j] {
                Some(r) => r,
                // A heading or short block goes when the next substantial block goes and the
                // previous one (if any) is gone too: it sits inside or at the head of removed text.
                None => {
                    let next = verdict[j + 1..].iter().find_map(|v| *v);
                    let prev = verdict[..j].iter().rev().find_map(|v| *v);
                    next == Some(true) && prev != Some(false) || next.is_none() && prev == Some(true)
                }
            }
        };
        let text: Vec<&str> = (0..page.len()).filter(|&j| !removed(j)).map(|j| page[j]).collect();
        kept.push(text.join("\n\n"));
    }
    for (page, text) in pages.iter_mut().zip(kept) {
        *page = text;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn para(topic: &str) -> String {
        format!("{topic} is explained here at some length, with enough words to be a real paragraph.")
    }

    #[test]
    fn a_print_all_page_keeps_only_what_no_chapter_has() {
        let nav = "Home | Chapters | Search the book for anything you like";
        let ch1 = format!("{nav}\n\n# Installation\n\n{}\n\n## Examples\n\n{}", para("rustup"), para("Installing"));
        let ch2 = format!(
            "{nav}\n\n# Hello, World!\n\n{}\n\n## Examples\n\n{}",
            para("main function"),
            para("println macro")
        );
        let print = format!(
            "{nav}\n\n# Installation\n\n{}\n\n## Examples\n\n{}\n\n# Hello, World!\n\n{}\n\n## Examples\n\n{}\n\n# Appendix\n\n{}",
            para("rustup"),
            para("Installing"),
            para("main function"),
            para("println macro"),
            para("Only the print page")
        );
        let mut pages = vec![print.clone(), ch1.clone(), ch2.clone()];
        keep_one_copy(&mut pages);
        // The chapters keep their text, common headings ("## Examples") included; the navigation
        // stays on the smallest page only.
        assert_eq!(pages[1], ch1, "the smaller chapter keeps everything, the navigation too");
        assert_eq!(pages[2], ch2.replacen(&format!("{nav}\n\n"), "", 1));
        assert_eq!(pages[0], format!("# Appendix\n\n{}", para("Only the print page")));
    }

    #[test]
    fn distinct_pages_and_single_pages_are_untouched() {
        let mut pages = vec![format!("# A\n\n{}", para("alpha")), format!("# A\n\n{}", para("beta"))];
        let before = pages.clone();
        keep_one_copy(&mut pages);
        assert_eq!(pages, before, "the same heading over different text is not repeated content");
        let mut one = vec![format!("{0}\n\n{0}", para("twice"))];
        keep_one_copy(&mut one);
        assert_eq!(one[0], format!("{0}\n\n{0}", para("twice")), "repeats within one page stay");
    }
}
