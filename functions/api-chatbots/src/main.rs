//! The `api-chatbots` Lambda: the chatbots route group, `GET`/`POST /api/v1/chatbots` and
//! `GET`/`PATCH`/`DELETE /api/v1/chatbots/{chatbotId}`,
//! behind API Gateway (HTTP API, payload format 2.0). Every router also serves
//! `GET /api/v1/openapi.json`; any other path answers the JSON `not_found` envelope.
//!
//! The composition (`LORE_BACKEND`, `LORE_DATA_DIR`) is built once per execution environment,
//! before the first invocation; sample events are under `events/api-chatbots/`.

use lore::compose::Uses;
use lore_http::RouteGroup;

fn main() -> Result<(), lambda_http::Error> {
    lore::lambda::api_main(&[RouteGroup::Chatbots], Uses::Everything)
}
