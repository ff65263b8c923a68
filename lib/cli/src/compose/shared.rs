//! The ports every backend shares, built once per process: the outbound web (URL guard, crawler,
//! webhook sender) under one request-protection policy, the document parsers, and the model
//! providers (embedder, transcriber, responder).

use super::parts::{Overrides, SharedPorts, Uses};
use crate::settings::{ExtractIsolation, Settings};
use lore_app::ports::{NoTranscriber, Reranker, Transcriber};
use std::sync::Arc;

/// `openai_key`, `rerank_key`: keys a backend read from its secret store, used when
/// `OPENAI_API_KEY` and `LORE_RERANK_API_KEY` are not set.
pub(super) fn shared(
    settings: &Settings,
    overrides: &Overrides,
    uses: Uses,
    openai_key: Option<&str>,
    rerank_key: Option<&str>,
) -> anyhow::Result<SharedPorts> {
    let policy =
        if overrides.allow_private_network { lore_crawl::NetPolicy::allow_private() } else { settings.net.clone() };
    let (embedder, transcriber, responder, speech, reranker) = match uses {
        Uses::Everything => {
            let lookup = settings.provider_lookup(openai_key);
            let embedder = match &overrides.embedder {
                Some(e) => e.clone(),
                None => lore_embed::EmbedderConfig::from_lookup(&lookup)
                    .and_then(|c| c.build())
                    .map_err(|e| anyhow::anyhow!("embedder: {e}"))?,
            };
            let responder = match &overrides.responder {
                Some(r) => r.clone(),
                None => lore_chat::responder_from_lookup(&lookup).map_err(|e| anyhow::anyhow!("responder: {e}"))?,
            };
            let speech = match &overrides.speech {
                Some(s) => s.clone(),
                None => lore_chat::synthesizer_from_lookup(&lookup).map_err(|e| anyhow::anyhow!("speech: {e}"))?,
            };
            (embedder, transcriber(overrides, &lookup)?, responder, speech, reranker(settings, overrides, rerank_key)?)
        }
        // Never called by these functions; the built-in embedder needs no secret or model files.
        Uses::RecordsOnly => (
            Arc::new(lore_embed::LocalEmbedder::new()) as Arc<dyn lore_app::ports::Embedder>,
            Arc::new(NoTranscriber) as Arc<dyn Transcriber>,
            Arc::new(lore_chat::ExtractiveResponder) as Arc<dyn lore_app::ports::Responder>,
            Arc::new(lore_app::ports::NoSynthesizer) as Arc<dyn lore_app::ports::Synthesizer>,
            None,
        ),
    };
    Ok(SharedPorts {
        extractor: extractor(settings, overrides)?,
        crawler: Arc::new(lore_crawl::LazyCrawler::new(policy.clone())),
        webhook_sender: Arc::new(lore_crawl::LazySender::new(policy.clone())),
        url_guard: Arc::new(lore_crawl::Guard::new(policy)),
        embedder,
        transcriber,
        responder,
        speech,
        reranker,
    })
}

/// Hybrid search's re-ranker: the override, else the one `LORE_RERANK_*` configure, else none.
fn reranker(
    settings: &Settings,
    overrides: &Overrides,
    secret_key: Option<&str>,
) -> anyhow::Result<Option<Arc<dyn Reranker>>> {
    if let Some(r) = &overrides.reranker {
        return Ok(Some(r.clone()));
    }
    let Some(mut config) = settings.reranker.clone() else { return Ok(None) };
    if config.api_key.is_none() {
        config.api_key = secret_key.map(str::to_owned);
    }
    let built = config.build().map_err(|e| anyhow::anyhow!("re-ranker: {e}"))?;
    Ok(Some(Arc::new(built)))
}

/// The transcriber of podcast sources: the override, else what the provider variables ask for,
/// else none (podcast sources then fail saying what to set).
fn transcriber(
    overrides: &Overrides,
    lookup: &impl Fn(&str) -> Option<String>,
) -> anyhow::Result<Arc<dyn Transcriber>> {
    if let Some(t) = &overrides.transcriber {
        return Ok(t.clone());
    }
    Ok(match lore_transcribe::transcriber_from_lookup(lookup).map_err(|e| anyhow::anyhow!("transcriber: {e}"))? {
        Some(t) => t,
        None => Arc::new(NoTranscriber),
    })
}

/// The document extractor: each parse in a child process of this binary (its `main` calls
/// `lore_extract::serve_child_if_requested` first), or in this process with
/// `LORE_EXTRACT_ISOLATION=thread`.
fn extractor(settings: &Settings, overrides: &Overrides) -> anyhow::Result<Arc<lore_extract::DocumentExtractor>> {
    let isolation = match settings.extract_isolation {
        ExtractIsolation::Process => {
            let program = match &overrides.extract_child_program {
                Some(program) => program.clone(),
                None => std::env::current_exe()
                    .map_err(|e| anyhow::anyhow!("cannot find this binary to run document parsers: {e}"))?,
            };
            lore_extract::Isolation::Process { program }
        }
        ExtractIsolation::Thread => lore_extract::Isolation::Thread,
    };
    Ok(Arc::new(lore_extract::DocumentExtractor::new().isolated(isolation)))
}
