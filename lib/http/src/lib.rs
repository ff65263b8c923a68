//! Lore's HTTP API: one axum router per route group, the shared platform around them (auth,
//! errors, request ids, tracing, body limits) and the OpenAPI document generated from the code.
//!
//! `lore serve` mounts every group; each Lambda mounts its own.

mod actions;
mod analytics;
mod answer_tests;
mod api_router;
mod assistant;
mod audit;
mod channels;
mod chatbots;
mod chunks;
mod console;
mod conversations;
pub mod error;
mod events_doc;
pub mod extract;
mod files;
mod followup;
mod forms;
mod keys;
mod mind_sources;
mod minds;
mod privacy;
mod public_chat;
mod public_page;
mod search;
mod sources;
mod state;
mod upload;
pub mod views;
mod webhooks;

pub use error::ApiError;

/// The request bodies of the routes, as the routes read them: for clients written in Rust and
/// for the fuzz targets, which parse inputs exactly the way the routes do.
pub mod bodies {
    pub use crate::assistant::AssistantUpdate;
    pub use crate::chatbots::{ChatbotUpdate, CreateChatbot};
    pub use crate::chunks::UpdateChunk;
    pub use crate::conversations::{CreateConversation, SendMessage};
    pub use crate::forms::{CreateForm, FieldInput, SubmitResponse};
    pub use crate::minds::{CreateMind, MindUpdate};
    pub use crate::search::SearchBody;
    pub use crate::sources::CreateSource;
    pub use crate::webhooks::SubscribeBody;
}
pub use public_chat::ClientAddress;
pub use state::ApiState;

use api_router::{ApiRouter, api_routes};
use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, Request, Response, header};
use axum::response::IntoResponse;
use lore_app::App;
use lore_domain::id::RequestId;
use std::sync::Arc;
use tower::ServiceBuilder;
use tower::util::MapRequestLayer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestId, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::TimeoutBody;
use tower_http::trace::TraceLayer;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// Largest JSON body a route reads (above every limit of the contract, docs/api.md §16.12).
pub const JSON_BODY_LIMIT: usize = 2 * 1024 * 1024;

/// The route groups of docs/api.md §1; each is one Lambda in AWS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteGroup {
    Chatbots,
    Minds,
    Forms,
    Integrations,
    /// `/files/…`: uploaded files and signed uploads. Only `lore serve` mounts it; in AWS the
    /// CDN and S3 answer those URLs.
    Files,
}

impl RouteGroup {
    /// Everything `lore serve` mounts.
    pub const ALL: [RouteGroup; 5] =
        [RouteGroup::Chatbots, RouteGroup::Minds, RouteGroup::Forms, RouteGroup::Integrations, RouteGroup::Files];

    fn routes(self) -> ApiRouter {
        match self {
            // The chatbot API, and the public pages of published chatbots (`/c/{slug}`, HTML).
            RouteGroup::Chatbots => public_page::chatbot_routes(
                chatbots::router()
                    .merge(sources::router())
                    .merge(chunks::chatbot_router())
                    .merge(search::router())
                    .merge(conversations::chatbot_router())
                    .merge(channels::chatbot_router())
                    .merge(public_chat::chatbot_router()),
            ),
            RouteGroup::Forms => forms::router(),
            // Workspace-wide routes: webhooks, keys and usage, privacy requests, and the owners'
            // console (`/console`, HTML and its assets, not in the API document), which must share
            // the API's origin.
            RouteGroup::Integrations => console::routes(
                webhooks::router()
                    .merge(keys::router())
                    .merge(privacy::router())
                    .merge(audit::router())
                    .merge(channels::platform_router()),
            ),
            // The Mind API, the public pages of published Minds (`/m/{slug}`, HTML, not in the
            // API document), and the embedding script `/widget.js` with the pages' icon.
            RouteGroup::Minds => public_page::mind_routes(
                minds::router()
                    .merge(mind_sources::router())
                    .merge(chunks::mind_router())
                    .merge(conversations::mind_router())
                    .merge(channels::mind_router())
                    .merge(public_chat::mind_router()),
            ),
            // `/files/…` is added by `router` (not API operations).
            RouteGroup::Files => ApiRouter::new(),
        }
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Lore API",
        description = "Knowledge bases, Minds and form webhooks. Every route needs `Authorization: Bearer <API key>`; \
                       errors are `{\"status\":\"error\",\"error\":{\"code\",\"message\",\"details\"}}`."
    ),
    // Relative: the server this document was fetched from (`lore serve`, or the API Gateway
    // stage of a deployment). Clients and generators take their base URL from the user anyway.
    servers((url = "/", description = "The Lore server this document was fetched from")),
    modifiers(&BearerAuth),
    components(schemas(
        error::ErrorBody,
        events_doc::FormResponseEvent,
        events_doc::KnowledgeSourceEvent,
        events_doc::LeadCapturedEvent
    )),
    tags(
        (name = "chatbots", description = "Chatbots"),
        (name = "knowledge", description = "Chatbot knowledge sources, processing, statistics and uploads"),
        (name = "minds", description = "Minds: AI personas with a prompt, voice and theme settings, the workspace's \
            Mind usage and limits, and publishing. A published Mind has a public HTML page at `/m/{slug}` (no key)"),
        (name = "conversations", description = "Conversations with a Mind or a chatbot: questions answered from \
            its ready knowledge with citations (`[n]` markers, verbatim quotes), as JSON or streamed as server-sent \
            events; scopes `chat:write` and `conversations:read`"),
        (name = "tests", description = "Answer tests of a Mind or a chatbot: pinned questions with what their \
            answers must be (cite a source, contain or avoid words, answer or not), run as a first turn would be \
            answered now, with each check's result and the regressions since the previous run"),
        (name = "actions", description = "Actions of a Mind or a chatbot: the owner's HTTP endpoints a language \
            model may call while it answers (look up an order, book a meeting, open a ticket), offered as tools, \
            checked against their JSON Schema, signed (Standard Webhooks) and recorded on the answer"),
        (name = "public chat", description = "A published Mind's or chatbot's visitors (on its page, or in the \
            widget on another site): conversations opened without a key, answered to the visitor token they hand \
            out; CORS for the owner's `allowedOrigins`"),
        (name = "forms", description = "Forms and their responses; each response emits a `form_response` event"),
        (name = "integrations", description = "Zapier-style webhook integration endpoints: REST-hook subscriptions, \
            samples, and signed deliveries (Standard Webhooks) with their log"),
        (name = "workspace", description = "The workspace: its limits and usage (any key), and its API keys \
            (list, create, revoke; scope `workspace:admin`)"),
        (name = "privacy", description = "A person's data on request (scope `workspace:admin`): every \
            conversation whose visitor is them, exported or erased; and the workspace's audit log"),
        (name = "meta", description = "This document"),
        (name = "events", description = "What Lore POSTs to subscribed webhooks (the `webhooks` section): the \
            envelope `{eventType, eventId, createdAt, data, metadata}`, signed the Standard Webhooks way"),
    )
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
    }
}

/// The OpenAPI document of the route groups given, as served.
pub fn openapi(groups: &[RouteGroup]) -> serde_json::Value {
    document(&api_router(groups).split().1)
}

/// The served document: the routes' operations with the common errors, and the events in the
/// OpenAPI 3.1 `webhooks` section (which the document generator does not model).
fn document(operations: &[api_router::OperationDocs]) -> serde_json::Value {
    let mut doc = api_router::document(ApiDoc::openapi(), operations);
    document_common_errors(&mut doc);
    let mut json = serde_json::to_value(&doc).unwrap_or_default();
    json["webhooks"] = events_doc::webhooks();
    json
}

/// The answers every operation that needs a key can give, stated here once instead of in each
/// handler: 401 `unauthorized`, 403 `insufficient_scope` (the scope is the operation's security
/// requirement), 429 `rate_limited` with `Retry-After`, and 404 `not_found` when the path names
/// a resource. An operation that documents one of them more precisely (a 403 for a limit, a 404
/// that also covers ids in the body) keeps its own. Operations marked `security: []` need no key.
fn document_common_errors(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};
    let error = |description: &str| {
        RefOr::T(
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/json",
                    ContentBuilder::new().schema(Some(Ref::from_schema_name("ErrorBody"))).build(),
                )
                .build(),
        )
    };
    for (path, item) in doc.paths.paths.iter_mut() {
        let names_a_resource = path.contains('{');
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.options,
            &mut item.head,
            &mut item.patch,
            &mut item.trace,
        ];
        for op in operations.into_iter().flatten() {
            // `security(())` on a public operation is one empty requirement; the document says
            // `security: []`, which is what clients and linters read as "no key".
            let requirements = serde_json::to_value(&op.security).unwrap_or_default();
            let schemes: Vec<&serde_json::Value> =
                requirements.as_array().into_iter().flatten().filter_map(|r| r.as_object()?.values().next()).collect();
            if schemes.is_empty() {
                if op.security.is_some() {
                    op.security = Some(Vec::new());
                }
                continue;
            }
            let scoped = schemes.iter().any(|scopes| scopes.as_array().is_some_and(|l| !l.is_empty()));
            let responses = &mut op.responses.responses;
            let mut add = |code: &str, description: &str| {
                responses.entry(code.to_owned()).or_insert_with(|| error(description));
            };
            add("401", "`unauthorized`: no key, or not a valid one (`WWW-Authenticate: Bearer`)");
            if scoped {
                add(
                    "403",
                    "`insufficient_scope`: the key lacks the scope this operation requires (`details.required`)",
                );
            }
            add(
                "429",
                "`rate_limited`: the key's requests per minute are spent; `Retry-After` gives the seconds to wait",
            );
            if names_a_resource {
                add("404", "`not_found`: no such resource in the key's workspace");
            }
        }
    }
}

fn api_router(groups: &[RouteGroup]) -> ApiRouter {
    let mut api = ApiRouter::new().routes(api_routes!(openapi_json));
    for g in groups {
        api = api.merge(g.routes());
    }
    api
}

/// The served document, no key needed (counted against the client address's budget of public
/// reads, like the public pages).
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "meta", security(()),
    responses(
        (status = 200, description = "This OpenAPI 3.1 document", content_type = "application/json",
            body = HashMap<String, serde_json::Value>),
        (status = 429, description = "`rate_limited`: too many public reads from this address \
            (`LORE_PUBLIC_PAGES_PER_MINUTE`); `Retry-After`", body = error::ErrorBody),
    ))]
async fn openapi_json(
    State(s): State<ApiState>,
    public_chat::Client(client): public_chat::Client,
) -> Result<axum::response::Response, error::ApiError> {
    s.app.admit_page_read(client).await?;
    Ok(([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], s.openapi.json().to_owned())
        .into_response())
}

#[derive(Clone, Copy)]
struct NewRequestId;

impl MakeRequestId for NewRequestId {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<tower_http::request_id::RequestId> {
        HeaderValue::from_str(RequestId::generate().as_str()).ok().map(tower_http::request_id::RequestId::new)
    }
}

/// Whether a body error (anywhere in its chain of sources) is the read timeout of
/// [`router`]'s body layer.
pub(crate) fn body_timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(e);
    while let Some(err) = next {
        if err.is::<tower_http::timeout::TimeoutError>() {
            return true;
        }
        next = err.source();
    }
    false
}

/// A failed request body as the error of a byte stream: `TimedOut` when the client stopped
/// sending (answered `request_timeout`), else `InvalidData`.
pub(crate) fn body_io_error(e: &(dyn std::error::Error + 'static)) -> std::io::Error {
    let kind = if body_timed_out(e) { std::io::ErrorKind::TimedOut } else { std::io::ErrorKind::InvalidData };
    std::io::Error::new(kind, e.to_string())
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response<axum::body::Body> {
    ApiError::Panicked.into_response()
}

/// The router serving `groups` over `app`, with the whole platform around it.
pub fn router(app: App, groups: &[RouteGroup]) -> Router {
    let (mut router, operations) = api_router(groups).split();
    if groups.contains(&RouteGroup::Files) {
        router = router.merge(files::router());
    }
    let openapi = Arc::new(state::OpenApiDocument::new(operations));
    // A client that stops sending its body mid-way is answered `request_timeout` once no byte
    // came for this long, so a stalled upload cannot hold its upload slot or memory.
    let idle = app.config().body_read_timeout;
    let state = ApiState { app: Arc::new(app), openapi };
    let trace = TraceLayer::new_for_http()
        .make_span_with(|req: &Request<_>| {
            let request_id = req.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or("");
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id, key_id = tracing::field::Empty)
        })
        // Answers the client got wrong or we failed are logged at INFO; successful ones at DEBUG
        // (`RUST_LOG=debug` shows every request). Formatting and writing a line per request cost
        // a fifth of `lore serve`'s throughput on small reads (docs/benchmarks.md).
        .on_response(|res: &axum::http::Response<_>, latency: std::time::Duration, _span: &tracing::Span| {
            let (status, ms) = (res.status().as_u16(), latency.as_secs_f64() * 1000.0);
            if status >= 400 {
                tracing::info!(status, latency_ms = ms, "finished processing request");
            } else {
                tracing::debug!(status, latency_ms = ms, "finished processing request");
            }
        });
    router
        .fallback(|| async { ApiError::RouteNotFound })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(axum::middleware::from_fn_with_state(state.clone(), public_chat::cors::visitor_cors))
        .layer(DefaultBodyLimit::max(JSON_BODY_LIMIT))
        .layer(MapRequestLayer::new(move |req: Request<axum::body::Body>| {
            req.map(|body| axum::body::Body::new(TimeoutBody::new(idle, body)))
        }))
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::x_request_id(NewRequestId))
                .layer(trace)
                .layer(PropagateRequestIdLayer::x_request_id())
                .layer(CatchPanicLayer::custom(panic_response)),
        )
        .with_state(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// utoipa keys schemas by their Rust name and keeps the last one registered: two types of
    /// one name in different modules would document one answer with the other's shape.
    #[test]
    fn no_two_schemas_share_a_name() {
        let (_, docs) = api_router(&RouteGroup::ALL).split();
        let mut seen: std::collections::HashMap<String, serde_json::Value> = Default::default();
        for d in &docs {
            let part = utoipa_axum::router::OpenApiRouter::<state::ApiState>::new().routes(d()).into_openapi();
            for (name, schema) in part.components.map(|c| c.schemas).unwrap_or_default() {
                let shape = serde_json::to_value(&schema).unwrap();
                if let Some(before) = seen.insert(name.clone(), shape.clone()) {
                    assert_eq!(before, shape, "two schemas are named {name}");
                }
            }
        }
        assert!(seen.len() > 50, "{} schemas", seen.len());
    }

    /// The document is kept in the repository (docs/openapi.json), so that a change to it is a
    /// change a reviewer sees, and refactors prove they left it alone. After a deliberate change:
    /// `LORE_WRITE_OPENAPI=1 cargo test -p lore-http the_served_document`.
    #[test]
    fn the_served_document_is_the_one_in_docs() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");
        let served = serde_json::to_string_pretty(&openapi(&RouteGroup::ALL)).unwrap() + "\n";
        if std::env::var_os("LORE_WRITE_OPENAPI").is_some() {
            std::fs::write(path, &served).unwrap();
        }
        let kept = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            kept == served,
            "docs/openapi.json differs from the served document: rerun with LORE_WRITE_OPENAPI=1 if the change is meant"
        );
    }
}
