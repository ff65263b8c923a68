//! The ports every backend shares, built once per process: the outbound web (URL guard, crawler,
//! webhook sender) under one request-protection policy, the document parsers, and the model
//! providers (embedder, transcriber, responder).

use super::parts::{Overrides, SharedPorts, Uses};
use crate::settings::{ExtractIsolation, Settings};
use lore_app::ports::{NoTranscriber, Reranker, Transcriber};
use std::sync::Arc;

/// The model providers are the settings' ([`crate::settings::Providers`]), parsed at start, with
/// `openai_key`, `rerank_key` (keys a backend read from its secret store) where `OPENAI_API_KEY`
/// and `LORE_RERANK_API_KEY` are not set; the caller's overrides win.
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
            let providers = settings.providers.clone().with_keys(openai_key, rerank_key);
            let embedder = match &overrides.embedder {
                Some(e) => e.clone(),
                None => {
                    providers.embedder.config().and_then(|c| c.build()).map_err(|e| anyhow::anyhow!("embedder: {e}"))?
                }
            };
            let responder = match &overrides.responder {
                Some(r) => r.clone(),
                None => providers.responder.build().map_err(|e| anyhow::anyhow!("responder: {e}"))?,
            };
            let speech = match &overrides.speech {
                Some(s) => s.clone(),
                None => providers.speech.build().map_err(|e| anyhow::anyhow!("speech: {e}"))?,
            };
            let transcriber = match &overrides.transcriber {
                Some(t) => t.clone(),
                None => match providers.transcriber.build().map_err(|e| anyhow::anyhow!("transcriber: {e}"))? {
                    Some(t) => t,
                    None => Arc::new(NoTranscriber),
                },
            };
            let reranker = match &overrides.reranker {
                Some(r) => Some(r.clone()),
                None => match providers.reranker {
                    Some(config) => {
                        let built = config.build().map_err(|e| anyhow::anyhow!("re-ranker: {e}"))?;
                        Some(Arc::new(built) as Arc<dyn Reranker>)
                    }
                    None => None,
                },
            };
            (embedder, transcriber, responder, speech, reranker)
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
        action_caller: Arc::new(lore_crawl::LazyActionCaller::new(policy.clone())),
        channel_platform: match &overrides.channel_platform {
            Some(p) => p.clone(),
            None => {
                Arc::new(lore_channels::ChannelClient::new(settings.platforms.clone()).map_err(anyhow::Error::msg)?)
            }
        },
        url_guard: Arc::new(lore_crawl::Guard::new(policy)),
        embedder,
        transcriber,
        responder,
        speech,
        reranker,
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
