//! Embeds a retrieval corpus for `benches/retrieval/late_interaction.py`: each passage chunked
//! as `lore serve` chunks a text source for all-MiniLM-L6-v2, then every chunk and every
//! question as its sentence vector and its token states (`MiniLmEmbedder::embed_with_token_states_blocking`, one pass).
//!
//! ```sh
//! cargo run --profile perf -p lore-embed --features minilm --example token_states -- \
//!     CORPUS.jsonl QUERIES.jsonl OUT_DIR
//! ```
//!
//! Writes to OUT_DIR, little-endian f32 rows of 384: `chunks.f32` and `queries.f32` (one
//! sentence vector each), `chunk_tokens.f32` and `query_tokens.f32` (every token's state, text
//! after text), and `meta.json`: each chunk's passage id and token count, each question's token
//! count. The model comes from `LORE_MODEL_DIR` (default `~/.cache/lore/models/all-MiniLM-L6-v2`).

use lore_app::chunking::{ChunkSettings, Chunker};
use lore_app::ports::Embedder;
use lore_embed::minilm::VectorWithTokenStates;
use lore_embed::{MINILM_DIMENSIONS, MiniLmEmbedder, model_dir_from_lookup};
use std::io::{BufWriter, Write};
use std::path::Path;

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [corpus, queries, out] = args.as_slice() else {
        return Err("usage: token_states CORPUS.jsonl QUERIES.jsonl OUT_DIR".into());
    };
    let out = Path::new(out);
    std::fs::create_dir_all(out)?;
    let dir = model_dir_from_lookup(|name| std::env::var(name).ok()).ok_or("set LORE_MODEL_DIR or HOME")?;
    let model = MiniLmEmbedder::load(dir)?;
    let chunker = Chunker::for_embedder(ChunkSettings::default(), model.token_window());

    let (mut chunks, mut owners) = (Vec::new(), Vec::new());
    for line in std::fs::read_to_string(corpus)?.lines() {
        let passage: serde_json::Value = serde_json::from_str(line)?;
        let (id, text) = (passage["id"].as_str().ok_or("id")?, passage["text"].as_str().ok_or("text")?);
        // Text sources are chunked as Markdown (lib/app/src/ingest.rs).
        for chunk in chunker.chunk(text, true) {
            chunks.push(chunk);
            owners.push(id.to_owned());
        }
    }
    let mut questions = Vec::new();
    for line in std::fs::read_to_string(queries)?.lines() {
        let query: serde_json::Value = serde_json::from_str(line)?;
        questions.push(query["query"].as_str().ok_or("query")?.to_owned());
    }

    let chunk_tokens = write(&model, &chunks, &out.join("chunks.f32"), &out.join("chunk_tokens.f32"))?;
    let query_tokens = write(&model, &questions, &out.join("queries.f32"), &out.join("query_tokens.f32"))?;
    let meta = serde_json::json!({ "owners": owners, "chunkTokens": chunk_tokens, "queryTokens": query_tokens });
    std::fs::write(out.join("meta.json"), meta.to_string())?;
    eprintln!("token_states: {} chunks, {} questions", chunks.len(), questions.len());
    Ok(())
}

/// Writes the texts' vectors to `vectors` and their token states to `tokens`; returns each
/// text's token count.
fn write(model: &MiniLmEmbedder, texts: &[String], vectors: &Path, tokens: &Path) -> Result<Vec<usize>, Error> {
    let (mut v, mut t) =
        (BufWriter::new(std::fs::File::create(vectors)?), BufWriter::new(std::fs::File::create(tokens)?));
    let mut counts = Vec::with_capacity(texts.len());
    for batch in texts.chunks(32) {
        let batch: Vec<&str> = batch.iter().map(String::as_str).collect();
        for VectorWithTokenStates { vector, token_states: states } in model.embed_with_token_states_blocking(&batch)? {
            counts.push(states.len() / MINILM_DIMENSIONS);
            for x in vector {
                v.write_all(&x.to_le_bytes())?;
            }
            for x in states {
                t.write_all(&x.to_le_bytes())?;
            }
        }
    }
    v.flush()?;
    t.flush()?;
    Ok(counts)
}
