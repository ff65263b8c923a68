//! The `api-integrations` Lambda: the integrations route group, `/api/integrations/webhooks/…`
//! (key verification, the forms dropdown, subscribe/unsubscribe, samples, the delivery log and
//! redelivery) and the workspace's usage and keys (`/api/v1/workspace`, `/api/v1/keys…`), behind API Gateway (HTTP API, payload format 2.0). Every router also serves
//! `GET /api/v1/openapi.json`; any other path answers the JSON `not_found` envelope.
//!
//! The composition (`LORE_BACKEND`, `LORE_DATA_DIR`) is built once per execution environment,
//! before the first invocation; sample events are under `events/api-integrations/`.

use lore::compose::Uses;
use lore_http::RouteGroup;

fn main() -> Result<(), lambda_http::Error> {
    lore::lambda::api_main(&[RouteGroup::Integrations], Uses::RecordsOnly)
}
