//! `POST /api/v1/chatbots/{chatbotId}/knowledge/search` (docs/api.md §7).

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, JsonBody, KnowledgeSearch, PathId};
use crate::state::ApiState;
use crate::views::Status;
use axum::Json;
use axum::extract::State;
use lore_app::search::{SearchInput, SearchRequest, SearchResults, TypeNames};
use lore_domain::id::ChatbotId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(api_routes!(search_chatbot))
}

/// A search. `mode`: `hybrid` (default: the semantic ranking, rescored token by token when the
/// embedding model allows it, plus a small bonus for keyword evidence), `semantic` (embeddings,
/// cosine) or `keyword` (BM25 order; the best hit scores the share of the query's words it
/// holds). Every score is 0 to 1 in every mode. When the server has a re-ranking model
/// (`LORE_RERANK_BASE_URL`), hybrid's best candidates are ordered and scored by it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchBody {
    /// 1 to 2,000 characters.
    #[schema(required = true)]
    pub query: Option<String>,
    /// 1 to 50; default 5.
    pub top_k: Option<i64>,
    pub mode: Option<String>,
    /// 0 to 1; results below it are dropped. No default.
    pub min_score: Option<f64>,
    /// Only these sources.
    pub source_ids: Option<Vec<String>>,
    /// Only these source types (chatbots: `text`, `url`, `file`; Minds: `text`, `url`, `document`,
    /// `podcast`).
    pub types: Option<Vec<String>>,
    /// Only sources whose `metadata` passes this filter (applied before ranking).
    #[schema(value_type = Option<SearchFilter>)]
    pub filter: Option<serde_json::Value>,
    /// Only chunks in this language (a code of `GET /api/v1/languages`).
    #[schema(example = "fr")]
    pub language: Option<String>,
}

impl SearchBody {
    pub fn input(&self) -> SearchInput<'_> {
        SearchInput {
            query: self.query.as_deref(),
            top_k: self.top_k,
            mode: self.mode.as_deref(),
            min_score: self.min_score,
            source_ids: self.source_ids.as_deref(),
            types: self.types.as_deref(),
            filter: self.filter.as_ref(),
            language: self.language.as_deref(),
        }
    }
}

/// A metadata filter, in the shape of OpenAI's vector-store search filters: a comparison or a
/// compound of filters (at most 4 levels, 32 comparisons). Documentation only: the request is
/// read by `lore_domain::metadata::Filter`.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum SearchFilter {
    Comparison(ComparisonFilter),
    Compound(CompoundFilter),
}

/// The source's metadata `key` compared with `value`. A missing key fails every comparison but
/// `ne` and `nin`; order comparisons compare numbers with numbers and strings with strings.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct ComparisonFilter {
    #[serde(rename = "type")]
    kind: ComparisonType,
    /// 1 to 64 characters.
    key: String,
    /// One value; a list of 1 to 100 for `in` and `nin`.
    value: FilterOperand,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum ComparisonType {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
    In,
    Nin,
}

#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum FilterOperand {
    One(MetadataValue),
    List(Vec<MetadataValue>),
}

/// Every (`and`) or any (`or`) of 1 or more filters.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct CompoundFilter {
    #[serde(rename = "type")]
    kind: Junction,
    #[schema(no_recursion)]
    filters: Vec<SearchFilter>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum Junction {
    And,
    Or,
}

/// A metadata value: a string (at most 512 characters), a number or a boolean.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum MetadataValue {
    Text(String),
    Number(f64),
    Bool(bool),
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchResultView {
    pub chunk_id: String,
    pub source_id: String,
    pub source_name: String,
    pub source_type: String,
    pub content: String,
    /// 0 to 1, higher is better.
    pub score: f32,
    /// The chunk's position within its source.
    pub position: u32,
    /// The page a crawled chunk came from; null for text and file sources.
    pub url: Option<String>,
    /// The chunk's language (ISO 639-1); null when too short to tell.
    #[schema(example = "en")]
    pub language: Option<&'static str>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchResponse {
    pub status: Status,
    /// Best first.
    pub results: Vec<SearchResultView>,
    pub took_ms: f64,
}

impl SearchResponse {
    /// The results, source types named in the owner's vocabulary.
    pub(crate) fn new(r: SearchResults, names: TypeNames) -> Self {
        Self {
            status: Status::Success,
            results: r
                .hits
                .into_iter()
                .map(|h| SearchResultView {
                    chunk_id: h.chunk_id,
                    source_id: h.source_id.to_string(),
                    source_name: h.source_name,
                    source_type: match names {
                        TypeNames::Chatbot => h.source_type.as_str(),
                        TypeNames::Mind => h.source_type.mind_name(),
                    }
                    .to_owned(),
                    content: h.content,
                    score: h.score,
                    position: h.position,
                    url: h.url,
                    language: h.language.map(|l| l.code()),
                })
                .collect(),
            took_ms: (r.took_ms * 1000.0).round() / 1000.0,
        }
    }
}

pub(crate) fn parse(body: SearchBody, names: TypeNames) -> Result<SearchRequest, ApiError> {
    Ok(SearchRequest::parse_for(names, body.input())?)
}

/// Search a chatbot's ready sources.
#[utoipa::path(post, path = "/api/v1/chatbots/{chatbotId}/knowledge/search", tag = "knowledge",
    params(("chatbotId" = String, Path)), request_body = SearchBody,
    security(("bearer" = ["knowledge:search"])),
    responses((status = 200, body = SearchResponse),
        (status = 400, description = "`validation_error`, `invalid_json`", body = ErrorBody)))]
async fn search_chatbot(
    auth: Authed<KnowledgeSearch>,
    State(s): State<ApiState>,
    PathId(chatbot): PathId<ChatbotId>,
    JsonBody(body): JsonBody<SearchBody>,
) -> Result<Json<SearchResponse>, ApiError> {
    let req = parse(body, TypeNames::Chatbot)?;
    Ok(Json(SearchResponse::new(s.app.search_chatbot(&auth.principal, &chatbot, req).await?, TypeNames::Chatbot)))
}
