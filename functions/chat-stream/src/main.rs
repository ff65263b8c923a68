//! The `chat-stream` Lambda: the Mind and chatbot route groups — the same routes, keys and scopes
//! as `api-minds` and `api-chatbots` — answered with Lambda response streaming, behind a function
//! URL in `RESPONSE_STREAM` mode. API Gateway buffers responses, so a conversation answer asked
//! for as `text/event-stream` reaches the client piece by piece only through this function
//! (docs/ARCHITECTURE.md, "Streaming answers on AWS"). Sample events: `events/chat-stream/`.

use lore_http::RouteGroup;

fn main() -> Result<(), lambda_http::Error> {
    // A document-parser child (a Mind upload's type check) parses and exits here.
    lore::compose::serve_extraction_child_if_requested();
    run()
}

#[tokio::main]
async fn run() -> Result<(), lambda_http::Error> {
    lore::telemetry::init();
    let app = lore::compose::from_env(lore::compose::Uses::Everything).await?;
    let router = lore::lambda::api_router(app, &[RouteGroup::Chatbots, RouteGroup::Minds]);
    lambda_http::run_with_streaming_response(router).await
}
