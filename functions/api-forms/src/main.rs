//! The `api-forms` Lambda: the forms route group, `/api/v1/forms/…` (forms and their
//! responses; a response puts its `form_response` event in the outbox for the webhook
//! dispatcher), behind API Gateway (HTTP API, payload format 2.0). Every router also serves
//! `GET /api/v1/openapi.json`; any other path answers the JSON `not_found` envelope.
//!
//! The composition (`LORE_BACKEND`, `LORE_DATA_DIR`) is built once per execution environment,
//! before the first invocation; sample events are under `events/api-forms/`.

use lore::compose::Uses;
use lore_http::RouteGroup;

fn main() -> Result<(), lambda_http::Error> {
    lore::lambda::api_main(&[RouteGroup::Forms], Uses::RecordsOnly)
}
