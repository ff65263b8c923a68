use crate::support::TestApp;
use serde_json::Value;

/// Every route the contract requires of the groups built so far.
const REQUIRED: &[(&str, &str)] = &[
    ("get", "/api/v1/chatbots"),
    ("post", "/api/v1/chatbots"),
    ("get", "/api/v1/chatbots/{chatbotId}"),
    ("patch", "/api/v1/chatbots/{chatbotId}"),
    ("delete", "/api/v1/chatbots/{chatbotId}"),
    ("get", "/api/v1/chatbots/{chatbotId}/sources"),
    ("post", "/api/v1/chatbots/{chatbotId}/sources"),
    ("get", "/api/v1/chatbots/{chatbotId}/sources/{sourceId}"),
    ("patch", "/api/v1/chatbots/{chatbotId}/sources/{sourceId}"),
    ("delete", "/api/v1/chatbots/{chatbotId}/sources/{sourceId}"),
    ("post", "/api/v1/chatbots/{chatbotId}/sources/{sourceId}/process"),
    ("post", "/api/v1/chatbots/{chatbotId}/sources/{sourceId}/refresh"),
    ("get", "/api/v1/chatbots/{chatbotId}/sources/{sourceId}/chunks"),
    ("patch", "/api/v1/chatbots/{chatbotId}/sources/{sourceId}/chunks/{chunkId}"),
    ("get", "/api/v1/chatbots/{chatbotId}/knowledge/stats"),
    ("post", "/api/v1/chatbots/{chatbotId}/knowledge/search"),
    ("post", "/api/v1/chatbots/{chatbotId}/uploads"),
    ("post", "/api/v1/chatbots/{chatbotId}/upload-url"),
    ("get", "/api/v1/minds"),
    ("post", "/api/v1/minds"),
    ("get", "/api/v1/minds/{mindId}"),
    ("patch", "/api/v1/minds/{mindId}"),
    ("delete", "/api/v1/minds/{mindId}"),
    ("post", "/api/v1/minds/{mindId}/publish"),
    ("post", "/api/v1/minds/{mindId}/knowledge/upload"),
    ("post", "/api/v1/minds/{mindId}/knowledge/upload-url"),
    ("get", "/api/v1/minds/{mindId}/knowledge/{sourceId}/chunks"),
    ("patch", "/api/v1/minds/{mindId}/knowledge/{sourceId}/chunks/{chunkId}"),
    ("get", "/api/v1/forms"),
    ("post", "/api/v1/forms"),
    ("get", "/api/v1/forms/{formId}"),
    ("delete", "/api/v1/forms/{formId}"),
    ("get", "/api/v1/forms/{formId}/responses"),
    ("post", "/api/v1/forms/{formId}/responses"),
    ("get", "/api/integrations/webhooks/auth/verify"),
    ("get", "/api/integrations/webhooks/actions/forms"),
    ("post", "/api/integrations/webhooks/triggers/subscribe"),
    ("delete", "/api/integrations/webhooks/triggers/subscribe"),
    ("delete", "/api/integrations/webhooks/triggers/subscribe/{hookId}"),
    ("get", "/api/integrations/webhooks/triggers/sample"),
    ("get", "/api/integrations/webhooks/deliveries"),
    ("post", "/api/integrations/webhooks/deliveries/{deliveryId}/redeliver"),
    ("get", "/api/v1/workspace"),
    ("get", "/api/v1/keys"),
    ("post", "/api/v1/keys"),
    ("delete", "/api/v1/keys/{keyId}"),
    ("get", "/api/v1/openapi.json"),
];

#[tokio::test]
async fn the_document_is_openapi_3_1_and_lists_every_routed_path() {
    let t = TestApp::spawn().await;
    let res = t.client.get(t.url("/api/v1/openapi.json")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let doc: Value = res.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    assert_eq!(doc["components"]["securitySchemes"]["bearer"]["scheme"], "bearer");
    for (method, path) in REQUIRED {
        assert!(doc["paths"][path][method].is_object(), "{method} {path} missing from the document");
    }
    // And every documented operation is actually routed: without a key it is refused by auth
    // (401) rather than unknown (404) or the wrong method (405). The public operations (no key)
    // answer their own refusal instead: a slug that names no published Mind is 404 `not_found`
    // from the handler, not the router's; so is a channel id naming no channel on the platforms'
    // routes.
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, _) in item.as_object().unwrap() {
            let url = t.url(
                &path
                    .replace("{chatbotId}", "cb_01jq3z5v7b8c9d0e1f2g3h4j5k")
                    .replace("{sourceId}", "src_01jq3z5v7b8c9d0e1f2g3h4j5k")
                    .replace("{mindId}", "mind_01jq3z5v7b8c9d0e1f2g3h4j5k"),
            );
            let url = url
                .replace("{slug}", "no-such-mind")
                .replace("{conversationId}", "conv_01jq3z5v7b8c9d0e1f2g3h4j5k")
                .replace("{channelId}", "chan_01jq3z5v7b8c9d0e1f2g3h4j5k");
            let res = t.client.request(method.to_uppercase().parse().unwrap(), url).send().await.unwrap();
            let public = path.starts_with("/m/") || path.starts_with("/c/") || path.starts_with("/channels/");
            let expected = if path == "/api/v1/openapi.json" {
                200
            } else if public {
                404
            } else {
                401
            };
            let status = res.status().as_u16();
            if public {
                let body: Value = res.json().await.unwrap();
                let owner = match &path[..3] {
                    "/m/" => "mind",
                    "/c/" => "chatbot",
                    _ => "channel",
                };
                assert_eq!(
                    body["error"]["message"],
                    format!("{owner} not found"),
                    "{method} {path}: the handler answered"
                );
            }
            assert_eq!(status, expected, "{method} {path}");
        }
    }
    t.stop().await;
}

/// Checks `value` against `schema` of the served document: `$ref`, `type` (one or a list, `null`
/// included), `enum`, `required`, `properties` (and no member the schema does not name) and `items`.
fn conforms(doc: &Value, schema: &Value, value: &Value, at: &str) {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap();
        let target = &doc["components"]["schemas"][name];
        assert!(target.is_object(), "{at}: {reference} is not in the document");
        return conforms(doc, target, value, at);
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !types.is_empty() {
        let actual = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let fits = types.contains(&actual) || (actual == "integer" && types.contains(&"number"));
        assert!(fits, "{at}: {value} is {actual}, the document says {types:?}");
    }
    if let Some(allowed) = schema["enum"].as_array() {
        assert!(allowed.contains(value), "{at}: {value} is not one of {allowed:?}");
    }
    if let Some(properties) = schema["properties"].as_object() {
        let object = value.as_object().unwrap_or_else(|| panic!("{at}: {value} is not an object"));
        for required in schema["required"].as_array().into_iter().flatten() {
            let name = required.as_str().unwrap();
            assert!(object.contains_key(name), "{at}: required {name} is missing from {value}");
        }
        for (name, member) in object {
            let property = properties.get(name).unwrap_or_else(|| panic!("{at}.{name} is not in the document"));
            conforms(doc, property, member, &format!("{at}.{name}"));
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (i, item) in list.iter().enumerate() {
            conforms(doc, items, item, &format!("{at}[{i}]"));
        }
    }
}

/// Every event Lore delivers matches its entry in the document's `webhooks` section: the
/// envelope's schema and the signature headers.
#[tokio::test]
async fn every_delivered_event_matches_the_documents_webhooks_section() {
    use crate::receiver::Receiver;
    use reqwest::Method;
    use serde_json::json;
    use std::collections::BTreeSet;
    use std::time::Duration;

    let t = TestApp::spawn_webhooks("200ms").await;
    let doc: Value = t.client.get(t.url("/api/v1/openapi.json")).send().await.unwrap().json().await.unwrap();
    let rx = Receiver::start().await;
    t.hook(json!({"hookUrl": rx.url("/forms")})).await;
    t.hook(json!({"hookUrl": rx.url("/knowledge"), "event": "knowledge.source.*"})).await;

    let form = t
        .form(json!({"name": "Contact", "fields": [
            {"key": "name", "label": "Name", "type": "short_text", "required": true},
            {"key": "stars", "label": "Rating", "type": "rating"},
            {"key": "topics", "label": "Topics", "type": "checkboxes", "options": ["sales", "support"]}]}))
        .await;
    let form = form["id"].as_str().unwrap().to_owned();
    let (status, _) = t.submit(&form, json!({"values": {"name": "Ada", "stars": 4, "topics": ["sales"]}})).await;
    assert_eq!(status, 201);
    let bot = t.chatbot().await;
    let (_, text) =
        t.post_source(&t.dev_key, &bot, json!({"type": "text", "content": "Refunds within 14 days."})).await;
    let text = text["source"]["id"].as_str().unwrap().to_owned();
    t.process(&bot, &text).await;
    assert_eq!(t.settle(&bot, &text).await["status"], "ready");
    let (status, broken) = t.upload_source(&bot, "broken.pdf", b"%PDF-1.4\nnot really a PDF".to_vec()).await;
    assert_eq!(status, 201, "{broken}");
    let broken = broken["source"]["id"].as_str().unwrap().to_owned();
    t.process(&bot, &broken).await;
    assert_eq!(t.settle(&bot, &broken).await["status"], "error");
    let res = t.req(Method::DELETE, &format!("/api/v1/chatbots/{bot}/sources/{text}"), &t.dev_key).send().await;
    assert_eq!(res.unwrap().status(), 200);

    // 1 response; created ×2, ready, error, deleted.
    let mut envelopes: Vec<Value> = Vec::new();
    for received in rx.take(6, Duration::from_secs(20)).await {
        let name = received.json()["eventType"].as_str().unwrap().to_owned();
        let operation = &doc["webhooks"][&name]["post"];
        for header in operation["parameters"].as_array().unwrap() {
            let header = header["name"].as_str().unwrap();
            assert!(!received.header(header).is_empty(), "{name}: the documented header {header} was not sent");
        }
        envelopes.push(received.json());
    }
    // A lead, a rating, a hand-off, a refresh: built by the same code as their deliveries.
    for lead in [
        "mind.lead.captured",
        "chatbot.lead.captured",
        "message.rated",
        "conversation.handoff_requested",
        "privacy.visitor.erased",
        "tests.run.completed",
        "conversation.action.called",
        "knowledge.source.refreshed",
    ] {
        let path = format!("/api/integrations/webhooks/triggers/sample?event={lead}");
        let res = t.req(Method::GET, &path, &t.dev_key);
        envelopes.extend(res.send().await.unwrap().json::<Vec<Value>>().await.unwrap());
    }

    let mut seen = BTreeSet::new();
    for envelope in &envelopes {
        let name = envelope["eventType"].as_str().unwrap();
        let schema = &doc["webhooks"][name]["post"]["requestBody"]["content"]["application/json"]["schema"];
        assert!(schema.is_object(), "{name} is not in the webhooks section");
        conforms(&doc, schema, envelope, name);
        seen.insert(name.to_owned());
    }
    let documented: BTreeSet<String> = doc["webhooks"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(seen, documented, "every documented event was delivered and checked, and nothing else");
    t.stop().await;
}

/// `lore openapi` prints exactly the document `lore serve` serves (SDK generators and the lint
/// in CI read it without a server).
#[tokio::test]
async fn lore_openapi_prints_the_served_document() {
    let t = TestApp::spawn().await;
    let served: Value = t.client.get(t.url("/api/v1/openapi.json")).send().await.unwrap().json().await.unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lore")).arg("openapi").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, served);
    assert_eq!(printed["servers"][0]["url"], "/");
    t.stop().await;
}
