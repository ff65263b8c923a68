//! The `api-minds` Lambda: the Minds route group — `/api/v1/minds/…` (Minds, publishing,
//! knowledge sources, their search, file uploads and signed upload URLs; `docs/minds.md`) and the
//! public pages `GET /m/{slug}` — behind API Gateway (HTTP API, payload format 2.0). Request
//! bodies are capped at about 6 MB there, so large uploads go through `…/knowledge/upload-url`
//! and straight to S3. Every router also serves `GET /api/v1/openapi.json`; any other path
//! answers the JSON `not_found` envelope.
//!
//! The composition (`LORE_BACKEND`, `LORE_DATA_DIR`) is built once per execution environment,
//! before the first invocation; sample events are under `events/api-minds/`.

use lore::compose::Uses;
use lore_http::RouteGroup;

fn main() -> Result<(), lambda_http::Error> {
    lore::lambda::api_main(&[RouteGroup::Minds], Uses::Everything)
}
