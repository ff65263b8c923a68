//! Search through HTTP with the local model: what a client of `lore serve` waits for a hybrid
//! search (`POST /api/v1/chatbots/{id}/knowledge/search`) over a 10k-chunk knowledge base when the query is
//! embedded by all-MiniLM-L6-v2, against the model's own time to embed the same query, in the
//! same run.
//!
//! Setup, in a fresh data dir: the real server (`lore::serve::start`) with `MiniLmEmbedder` as its
//! embedder, a chatbot and 100 text sources created over HTTP (their text is the chunks' text),
//! then each source's run taken and finished through the store as the ingest pipeline does
//! (`begin_processing`, `replace_source_chunks` under the server's own index key,
//! `finish_processing`), with seeded random unit vectors of 384 dimensions instead of MiniLM's.
//! Embedding 10k chunks with MiniLM would take ~11 minutes on two cores, and an exact scan costs
//! the same whatever the vectors hold; the query side is the real model.

use crate::{Options, Result, Rng, Section, percentile, verdict};
use lore_app::ports::{Chunk, ChunkEmbedding, Embedder, Finish, Guarded, Lease, SourceStore, VectorIndex};
use lore_domain::id::{ChatbotId, SourceId};
use lore_domain::late_interaction::TokenSigns;
use lore_domain::source::SourceOwner;
use lore_domain::time::Timestamp;
use serde_json::json;
use std::fmt::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// At most 2,000 characters a chunk: a source's text stays under the 100,000 a text source may hold.
const CHUNKS_PER_SOURCE: usize = 40;
const BUDGET_P95_MS: f64 = 50.0;
/// Passes over the questions once their vectors are cached.
const REPEAT_PASSES: usize = 3;
const TOP_K: usize = 5;

pub fn run(o: &Options) -> Result<Section> {
    let passages = crate::corpus(o)?;
    let questions = crate::search::keyword_queries(o)?;
    let chunks = if o.quick { 2_000 } else { 10_000 };
    let embedder = Arc::new(lore_embed::MiniLmEmbedder::load(crate::embed::model_dir()?)?);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let m = rt.block_on(measure(chunks, &passages, &questions, embedder))?;

    let p95 = percentile(&m.hybrid_first_ms, 95.0);
    let mut md = String::new();
    md.push_str("### Search through HTTP with all-MiniLM-L6-v2\n\n");
    let _ = writeln!(
        md,
        "`lore serve` (embedded backend, all-MiniLM-L6-v2 as its embedder) with a chatbot of {} ready \
         chunks in {} text sources (prose of the retrieval corpus, 300–2,000 characters a chunk); each request is \
         `POST /api/v1/chatbots/{{id}}/knowledge/search` with `topK` {TOP_K}, one at a time over a kept-alive connection, \
         timed from send to the whole JSON answer read. Queries: the {} questions of \
         `benches/retrieval/queries.jsonl`. *First time asked*: each question once, so the server embeds every \
         one (the budget's row); *asked again*: {REPEAT_PASSES} more passes, answered from the server's cache of \
         query vectors; *keyword*: `mode: keyword`, no embedding at all (what HTTP, the key check and the search \
         cost without the model). Peer: the same `MiniLmEmbedder` embedding each question on its own, called \
         directly in the same process. The chunks' vectors are seeded random unit vectors written through the \
         store as the ingest pipeline writes them (embedding 10k chunks with MiniLM takes ~11 minutes here, and an \
         exact scan costs the same whatever the vectors hold); the query vectors are the model's.\n",
        m.chunks, m.sources, m.questions
    );
    md.push_str("| request | p50 ms | p95 ms | p99 ms | budget p95 ≤ 50 ms |\n|---|---:|---:|---:|---|\n");
    let row = |md: &mut String, name: &str, v: &[f64], budget: &str| {
        let _ = writeln!(
            md,
            "| {name} | {:.2} | {:.2} | {:.2} | {budget} |",
            percentile(v, 50.0),
            percentile(v, 95.0),
            percentile(v, 99.0)
        );
    };
    row(&mut md, "hybrid, first time asked (query embedded)", &m.hybrid_first_ms, verdict(p95 <= BUDGET_P95_MS));
    row(&mut md, "hybrid, asked again (cached query vector)", &m.hybrid_repeat_ms, "–");
    row(&mut md, "semantic, first time asked (query embedded, no token states)", &m.semantic_first_ms, "–");
    row(&mut md, "semantic, asked again (cached query vector)", &m.semantic_repeat_ms, "–");
    row(&mut md, "keyword (no embedding)", &m.keyword_ms, "–");
    row(&mut md, "keyword, the server's `tookMs` of the same searches", &m.keyword_took_ms, "–");
    row(&mut md, "floor: `GET /api/v1/chatbots/{id}` (HTTP, key check, rate count, one read)", &m.floor_ms, "–");
    row(&mut md, "peer: MiniLM embedding of the question alone, in process", &m.embed_ms, "–");
    let _ = writeln!(
        md,
        "\nSetup: {} chunks written in {:.1} s; the model's weights loaded by the first embedding in {:.0} ms; the \
         first search (the chatbot's vectors and keyword postings read into memory) took {:.0} ms. Results per \
         hybrid search: {:.1} on average.\n",
        m.chunks, m.setup_secs, m.weights_ms, m.first_search_ms, m.hits
    );
    // The semantic mode does less than hybrid (no keyword ranking, no rescoring, no token states).
    let p50 = |v: &[f64]| percentile(v, 50.0);
    let semantic_below =
        p50(&m.semantic_first_ms) < p50(&m.hybrid_first_ms) && p50(&m.semantic_repeat_ms) < p50(&m.hybrid_repeat_ms);
    Ok(Section {
        markdown: md,
        met: vec![
            (format!("HTTP hybrid search p95 ≤ 50 ms with MiniLM, {} chunks", m.chunks), p95 <= BUDGET_P95_MS),
            ("HTTP semantic search p50 below hybrid's, asked first and again".to_owned(), semantic_below),
        ],
    })
}

struct Measured {
    chunks: usize,
    sources: usize,
    questions: usize,
    setup_secs: f64,
    weights_ms: f64,
    first_search_ms: f64,
    hits: f64,
    hybrid_first_ms: Vec<f64>,
    hybrid_repeat_ms: Vec<f64>,
    semantic_first_ms: Vec<f64>,
    semantic_repeat_ms: Vec<f64>,
    keyword_ms: Vec<f64>,
    keyword_took_ms: Vec<f64>,
    floor_ms: Vec<f64>,
    embed_ms: Vec<f64>,
}

async fn measure(
    n: usize,
    passages: &[(String, String)],
    questions: &[String],
    embedder: Arc<lore_embed::MiniLmEmbedder>,
) -> Result<Measured> {
    let dir = tempfile::tempdir()?;
    let running = lore::serve::start(lore::serve::ServeConfig {
        addr: "127.0.0.1:0".parse()?,
        data_dir: dir.path().to_path_buf(),
        backend: lore::compose::Backend::Local,
        overrides: lore::compose::Overrides { embedder: Some(embedder.clone()), ..Default::default() },
    })
    .await
    .map_err(|e| e.to_string())?;
    let store = running.store.clone().ok_or("the local backend has no embedded store")?;
    let (ws, api) = crate::bench_workspace(&running, "http-search-bench").await?;
    let bot = api.post("/api/v1/chatbots", &json!({"name": "http search bench"})).await?;
    let bot_id = bot["chatbot"]["id"].as_str().ok_or("no chatbot id")?.to_owned();
    let chatbot = ChatbotId::parse(&bot_id).ok_or("bad chatbot id")?;
    let model = running.app.index_model().to_owned();

    // The knowledge base: each source's chunks, its text their concatenation, its run finished as
    // the pipeline finishes one.
    let started = Instant::now();
    let mut rng = Rng(0x4177_5EA2 + n as u64);
    let sources = n.div_ceil(CHUNKS_PER_SOURCE);
    let mut left = n;
    for i in 0..sources {
        let count = left.min(CHUNKS_PER_SOURCE);
        left -= count;
        let texts: Vec<String> = (0..count).map(|_| crate::search::chunk_text(passages, &mut rng)).collect();
        let body = json!({"type": "text", "name": format!("source {i}"), "content": texts.join("\n\n")});
        let created = api.post(&format!("/api/v1/chatbots/{bot_id}/sources"), &body).await?;
        let source = SourceId::parse(created["source"]["id"].as_str().ok_or("no source id")?).ok_or("bad source id")?;
        let now = Timestamp::now();
        let lease =
            Lease { owner: "http-search-bench".into(), until: Timestamp::from_millis(now.millis() + 3_600_000) };
        let Guarded::Done(run) =
            store.begin_processing(&ws.id, &source, &lease, now).await.map_err(|e| format!("{e:?}"))?
        else {
            return Err(format!("source {i} could not start processing").into());
        };
        let chunks: Vec<Chunk> = texts
            .into_iter()
            .enumerate()
            .map(|(position, content)| {
                // The token signs MiniLM gives a chunk of this length (about 4.5 characters a
                // token, two tokens a row), random: search rescores with them as with real ones.
                let rows = (content.len() / 9).clamp(1, 128);
                let signs: Vec<u8> = (0..rows * crate::search::DIMS / 8).map(|_| rng.next_u64() as u8).collect();
                let token_signs = TokenSigns::from_bytes(signs, crate::search::DIMS);
                Chunk {
                    language: None,
                    id: format!("{source}:{}:{position}", run.generation),
                    workspace_id: ws.id.clone(),
                    owner: SourceOwner::Chatbot(chatbot.clone()),
                    source_id: source.clone(),
                    position: position as u32,
                    content_hash: format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64()),
                    content,
                    url: None,
                    embedding: ChunkEmbedding { vector: crate::search::unit_vector(&mut rng), token_signs },
                }
            })
            .collect();
        store.replace_source_chunks(&source, &model, chunks).await.map_err(|e| format!("{e:?}"))?;
        let finish = Finish::Ready {
            chunk_count: count as u64,
            size_bytes: None,
            content_hash: format!("{:016x}", rng.next_u64()),
            pages_crawled: None,
            refreshed_at: None,
        };
        store
            .finish_processing(&source, run.generation, &finish, Timestamp::now())
            .await
            .map_err(|e| format!("{e:?}"))?
            .ok_or("the run was superseded")?;
    }
    let setup_secs = started.elapsed().as_secs_f64();
    let stats = api.get(&format!("/api/v1/chatbots/{bot_id}/knowledge/stats")).await?;
    let ready = stats["stats"]["sourcesByStatus"]["ready"].as_u64().unwrap_or(0) as usize;
    if ready != sources {
        return Err(format!("{ready} of {sources} sources are ready: {stats}").into());
    }

    // The model's own time: weights on the first call, then each question alone.
    let t = Instant::now();
    embedder.embed(&["warm up".to_owned()]).await?;
    let weights_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut embed_ms = Vec::new();
    for q in questions {
        let t = Instant::now();
        std::hint::black_box(embedder.embed(std::slice::from_ref(q)).await?);
        embed_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }

    let path = format!("/api/v1/chatbots/{bot_id}/knowledge/search");
    let search = |query: &str, mode: &str| {
        let body = json!({"query": query, "mode": mode, "topK": TOP_K});
        let (api, path) = (&api, &path);
        async move {
            let t = Instant::now();
            let answer = api.post(path, &body).await?;
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let hits = answer["results"].as_array().map_or(0, Vec::len);
            Ok::<_, crate::BoxError>((ms, hits))
        }
    };
    // The first search reads the chatbot's vectors and postings into memory.
    let (first_search_ms, _) = search("warm up the caches", "hybrid").await?;

    let mut hybrid_first_ms = Vec::new();
    let mut hits = 0usize;
    for q in questions {
        let (ms, found) = search(q, "hybrid").await?;
        hybrid_first_ms.push(ms);
        hits += found;
    }
    let mut hybrid_repeat_ms = Vec::new();
    for _ in 0..REPEAT_PASSES {
        for q in questions {
            hybrid_repeat_ms.push(search(q, "hybrid").await?.0);
        }
    }
    let mut keyword_ms = Vec::new();
    for q in questions {
        keyword_ms.push(search(q, "keyword").await?.0);
    }
    // The floor: a keyed read of the chatbot, the same HTTP, key check and rate count.
    let mut floor_ms = Vec::new();
    for _ in questions {
        let t = Instant::now();
        api.get(&format!("/api/v1/chatbots/{bot_id}")).await?;
        floor_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    // The server's own account of each keyword search (`tookMs`: from the sources' labels to
    // the ranked hits), beside the client's.
    let mut keyword_took_ms = Vec::new();
    for q in questions {
        let answer = api.post(&path, &json!({"query": q, "mode": "keyword", "topK": TOP_K})).await?;
        keyword_took_ms.push(answer["tookMs"].as_f64().unwrap_or(f64::NAN));
    }
    // The semantic mode on questions the server has not seen (the same words with " ?" after
    // them: a new cache key, the same embedding work), then again from the cache.
    let fresh: Vec<String> = questions.iter().map(|q| format!("{q} ?")).collect();
    let mut semantic_first_ms = Vec::new();
    for q in &fresh {
        semantic_first_ms.push(search(q, "semantic").await?.0);
    }
    let mut semantic_repeat_ms = Vec::new();
    for _ in 0..REPEAT_PASSES {
        for q in &fresh {
            semantic_repeat_ms.push(search(q, "semantic").await?.0);
        }
    }
    eprintln!(
        "  http search: hybrid first p95 {:.2} ms, again p95 {:.2} ms, keyword p95 {:.2} ms, embedding p95 {:.2} ms",
        percentile(&hybrid_first_ms, 95.0),
        percentile(&hybrid_repeat_ms, 95.0),
        percentile(&keyword_ms, 95.0),
        percentile(&embed_ms, 95.0)
    );
    drop(store);
    tokio::time::timeout(Duration::from_secs(10), running.stop()).await.ok();
    Ok(Measured {
        chunks: n,
        sources,
        questions: questions.len(),
        setup_secs,
        weights_ms,
        first_search_ms,
        hits: hits as f64 / questions.len().max(1) as f64,
        hybrid_first_ms,
        hybrid_repeat_ms,
        semantic_first_ms,
        semantic_repeat_ms,
        keyword_ms,
        keyword_took_ms,
        floor_ms,
        embed_ms,
    })
}
