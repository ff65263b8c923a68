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
    // from the handler, not the router's.
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, _) in item.as_object().unwrap() {
            let url = t.url(
                &path
                    .replace("{chatbotId}", "cb_01jq3z5v7b8c9d0e1f2g3h4j5k")
                    .replace("{sourceId}", "src_01jq3z5v7b8c9d0e1f2g3h4j5k")
                    .replace("{mindId}", "mind_01jq3z5v7b8c9d0e1f2g3h4j5k"),
            );
            let url =
                url.replace("{slug}", "no-such-mind").replace("{conversationId}", "conv_01jq3z5v7b8c9d0e1f2g3h4j5k");
            let res = t.client.request(method.to_uppercase().parse().unwrap(), url).send().await.unwrap();
            let public = path.starts_with("/m/");
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
                assert_eq!(body["error"]["message"], "mind not found", "{method} {path}: the handler answered");
            }
            assert_eq!(status, expected, "{method} {path}");
        }
    }
    t.stop().await;
}
