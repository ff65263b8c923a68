//! Forms and responses over HTTP (docs/api.md §11, §16.18): shapes, every field type's
//! validation, scopes, tenancy.

use crate::support::{TestApp, expect_error, parts};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use serde_json::{Value, json};

/// A form with one field of each of the 12 declarable types.
fn every_type() -> Value {
    json!({
        "name": "Everything",
        "fields": [
            {"key": "name", "label": "Name", "type": "short_text", "required": true},
            {"key": "bio", "label": "Bio", "type": "long_text"},
            {"key": "email", "label": "E-mail", "type": "email", "required": true},
            {"key": "phone", "label": "Phone", "type": "phone"},
            {"key": "age", "label": "Age", "type": "number"},
            {"key": "born", "label": "Born", "type": "date"},
            {"key": "plan", "label": "Plan", "type": "dropdown", "options": ["basic", "pro"]},
            {"key": "size", "label": "Size", "type": "multiple_choice", "options": ["S", "M", "L"]},
            {"key": "tags", "label": "Tags", "type": "checkboxes", "options": ["a", "b", "c"]},
            {"key": "cv", "label": "CV", "type": "file"},
            {"key": "sig", "label": "Signature", "type": "signature"},
            {"key": "stars", "label": "Stars", "type": "rating", "max": 10},
        ]
    })
}

#[tokio::test]
async fn forms_are_created_read_listed_and_deleted() {
    let t = TestApp::spawn().await;
    let (status, body) = t.create_form(&t.dev_key, every_type()).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["status"], "success");
    let form = &body["form"];
    let id = form["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("form_") && id.len() == 31, "{id}");
    assert_eq!(form["name"], "Everything");
    assert!(form["createdAt"].as_str().unwrap().ends_with('Z'));
    let fields = form["fields"].as_array().unwrap();
    let keys: Vec<&str> = fields.iter().map(|f| f["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["name", "bio", "email", "phone", "age", "born", "plan", "size", "tags", "cv", "sig", "stars"]);
    assert_eq!(fields[0], json!({"key": "name", "label": "Name", "type": "short_text", "required": true}));
    assert_eq!(fields[1]["required"], false, "required defaults to false");
    assert_eq!(fields[6]["options"], json!(["basic", "pro"]));
    assert_eq!(fields[11]["max"], 10);
    assert!(fields[0].get("options").is_none() && fields[0].get("max").is_none());

    let (_, got) = parts(t.req(Method::GET, &format!("/api/v1/forms/{id}"), &t.dev_key).send().await.unwrap()).await;
    assert_eq!(got, body, "read back exactly as created");

    let second = t.form(json!({"name": "Second", "fields": [{"key": "q", "label": "Q", "type": "rating"}]})).await;
    assert_eq!(second["fields"][0]["max"], 5, "rating defaults to 5 stars");
    let (status, list) = parts(t.req(Method::GET, "/api/v1/forms?limit=1", &t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(list["forms"].as_array().unwrap().len(), 1);
    assert_eq!(list["forms"][0]["id"], second["id"], "newest first");
    assert_eq!(list["pagination"], json!({"page": 1, "limit": 1, "total": 2, "totalPages": 2}));

    // Another workspace sees none of it.
    t.workspace("other", LimitsPatch::default()).await;
    let other = t.key("other", "all").await;
    let res = t.req(Method::GET, &format!("/api/v1/forms/{id}"), &other).send().await.unwrap();
    expect_error(res, 404, "not_found").await;
    let (_, theirs) = parts(t.req(Method::GET, "/api/v1/forms", &other).send().await.unwrap()).await;
    assert_eq!(theirs["pagination"]["total"], 0);

    let path = format!("/api/v1/forms/{id}");
    let (status, deleted) = parts(t.req(Method::DELETE, &path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!((status, deleted), (200, json!({"status": "success", "deleted": true, "id": id})));
    expect_error(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap(), 404, "not_found").await;
    expect_error(t.req(Method::DELETE, &path, &t.dev_key).send().await.unwrap(), 404, "not_found").await;
    let res = t.req(Method::GET, &format!("{path}/responses"), &t.dev_key).send().await.unwrap();
    expect_error(res, 404, "not_found").await;
    for bad in ["form_x", "cb_01jq3z5v7b8c9d0e1f2g3h4j5k", "FORM_01JQ3Z5V7B8C9D0E1F2G3H4J5K"] {
        let res = t.req(Method::GET, &format!("/api/v1/forms/{bad}"), &t.dev_key).send().await.unwrap();
        expect_error(res, 404, "not_found").await;
    }
    t.stop().await;
}

#[tokio::test]
async fn form_definitions_are_validated_naming_every_bad_member() {
    let t = TestApp::spawn().await;
    let body = json!({
        "fields": [
            {"key": "_hidden", "label": "x", "type": "short_text"},
            {"key": "a", "label": "", "type": "colour"},
            {"key": "b", "label": "B", "type": "system"},
            {"key": "c", "label": "C", "type": "dropdown"},
            {"key": "d", "label": "D", "type": "short_text", "options": ["x"]},
            {"key": "e", "label": "E", "type": "rating", "max": 11},
            {"key": "f", "label": "F", "type": "checkboxes", "options": ["x", "x"]},
            {"key": "e", "label": "E again", "type": "number"},
            {"label": "no key", "type": "email"},
        ]
    });
    let body = expect_error(
        t.req(Method::POST, "/api/v1/forms", &t.dev_key).json(&body).send().await.unwrap(),
        400,
        "validation_error",
    )
    .await;
    let fields = body["error"]["details"]["fields"].as_object().unwrap();
    let mut keys: Vec<&str> = fields.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "fields[0].key",
            "fields[1].label",
            "fields[1].type",
            "fields[2].type",
            "fields[3].options",
            "fields[4].options",
            "fields[5].max",
            "fields[6].options",
            "fields[7].key",
            "fields[8].key",
            "name"
        ],
        "{body}"
    );
    assert!(fields["fields[2].type"].as_str().unwrap().contains("reserved"));

    for (body, field) in [
        (json!({"name": "F", "fields": []}), "fields"),
        (json!({"name": "F"}), "fields"),
        (json!({"name": "F", "fields": "x"}), "fields"),
        (
            json!({"name": "F", "fields": [{"key": "k", "label": "K", "type": "email", "required": "yes"}]}),
            "fields[0].required",
        ),
        (
            json!({"name": "F", "fields": [{"key": "k", "label": "K", "type": "dropdown", "options": [1]}]}),
            "fields[0].options[0]",
        ),
        (json!({"name": "x".repeat(201), "fields": [{"key": "k", "label": "K", "type": "email"}]}), "name"),
    ] {
        let res = t.req(Method::POST, "/api/v1/forms", &t.dev_key).json(&body).send().await.unwrap();
        let err = expect_error(res, 400, "validation_error").await;
        assert!(err["error"]["details"]["fields"].get(field).is_some(), "{field}: {err}");
    }
    let res = t.req(Method::POST, "/api/v1/forms", &t.dev_key).body("name=x").send().await.unwrap();
    expect_error(res, 400, "invalid_json").await;
    t.stop().await;
}

/// `(key, accepted answers, refused answers)` for each field of [`every_type`].
fn answers() -> Vec<(&'static str, Vec<Value>, Vec<Value>)> {
    vec![
        (
            "name",
            vec![json!("Ada"), json!("  Ada Lovelace  ")],
            vec![json!(42), json!("two\nlines"), json!("x".repeat(1001)), json!(["Ada"])],
        ),
        ("bio", vec![json!("line one\nline two")], vec![json!(true), json!("x".repeat(10_001))]),
        (
            "email",
            vec![json!("ada@example.com"), json!("first.last+tag@mail.example.co.uk")],
            vec![
                json!("ada"),
                json!("ada@"),
                json!("ada@example"),
                json!("a b@example.com"),
                json!("ada@@example.com"),
                json!(7),
            ],
        ),
        (
            "phone",
            vec![json!("+44 20 7946 0958"), json!("(555) 010-0199")],
            vec![json!("12345"), json!("call me"), json!("+1 555 010 0199 0000 9"), json!(5550100199u64)],
        ),
        ("age", vec![json!(36), json!(-1.5), json!(0)], vec![json!("36"), json!(true), json!([1])]),
        (
            "born",
            vec![json!("1815-12-10"), json!("2024-02-29")],
            vec![
                json!("2023-02-29"),
                json!("10/12/1815"),
                json!("1815-12-1"),
                json!("1815-12-10T00:00:00Z"),
                json!(1815),
            ],
        ),
        ("plan", vec![json!("pro")], vec![json!("gold"), json!("PRO"), json!(["pro"])]),
        ("size", vec![json!("M")], vec![json!("XL"), json!(1)]),
        ("tags", vec![json!(["a"]), json!(["c", "a"])], vec![json!("a"), json!(["d"]), json!(["a", "a"]), json!([1])]),
        (
            "cv",
            vec![json!("https://cdn.example.com/cv.pdf"), json!("http://example.com/x")],
            vec![
                json!("cv.pdf"),
                json!("ftp://example.com/cv.pdf"),
                json!("javascript:alert(1)"),
                json!("https://exa mple.com/"),
            ],
        ),
        ("sig", vec![json!("https://cdn.example.com/sig.png")], vec![json!("data:image/png;base64,AAAA"), json!(1)]),
        ("stars", vec![json!(1), json!(10)], vec![json!(0), json!(11), json!(4.5), json!("5")]),
    ]
}

#[tokio::test]
async fn every_field_type_accepts_its_values_and_refuses_others() {
    let t = TestApp::spawn().await;
    let form = t.form(every_type()).await;
    let id = form["id"].as_str().unwrap().to_owned();
    let base = json!({"name": "Ada", "email": "ada@example.com"});
    for (key, good, bad) in answers() {
        for value in good {
            let mut values = base.clone();
            values[key] = value.clone();
            let (status, body) = t.submit(&id, json!({"values": values})).await;
            assert_eq!(status, 201, "{key} = {value}: {body}");
        }
        for value in bad {
            let mut values = base.clone();
            values[key] = value.clone();
            let (status, body) = t.submit(&id, json!({"values": values})).await;
            assert_eq!(
                (status, body["error"]["code"].as_str()),
                (400, Some("validation_error")),
                "{key} = {value}: {body}"
            );
            let fields = body["error"]["details"]["fields"].as_object().unwrap();
            let named: Vec<&String> = fields.keys().collect();
            assert_eq!(named, [&format!("values.{key}")], "{key} = {value}: only that field is named: {body}");
        }
    }
    t.stop().await;
}

#[tokio::test]
async fn responses_are_stored_normalised_and_listed_newest_first() {
    let t = TestApp::spawn().await;
    let form = t.form(every_type()).await;
    let id = form["id"].as_str().unwrap().to_owned();

    // Missing required answers, keys the form does not have, a bad source and a non-object
    // `values` are all refused, each naming its member.
    let (status, body) = t.submit(&id, json!({"values": {"bio": "x", "nope": 1}, "source": "email"})).await;
    assert_eq!(status, 400);
    let fields = &body["error"]["details"]["fields"];
    assert_eq!(fields["values.name"], "is required");
    assert_eq!(fields["values.email"], "is required");
    assert!(fields["values.nope"].is_string() && fields["source"].is_string(), "{body}");
    let (status, body) = t.submit(&id, json!({"values": ["Ada"]})).await;
    assert_eq!((status, body["error"]["details"]["fields"]["values"].is_string()), (400, true), "{body}");
    let (status, body) = t.submit(&id, json!({"values": {"name": "  ", "email": "ada@example.com"}})).await;
    assert_eq!(
        (status, body["error"]["details"]["fields"]["values.name"].as_str()),
        (400, Some("is required")),
        "blank is unanswered"
    );

    let (status, first) =
        t.submit(&id, json!({"values": {"name": " Ada ", "email": "ada@example.com", "tags": []}})).await;
    assert_eq!(status, 201, "{first}");
    let r = &first["response"];
    assert!(r["id"].as_str().unwrap().starts_with("resp_"));
    assert_eq!(r["formId"], id.as_str());
    assert_eq!(
        first,
        json!({"status": "success", "response": {"id": r["id"], "formId": id, "createdAt": r["createdAt"]}})
    );
    let values = json!({"name": "Grace", "email": "grace@example.com", "age": 85, "tags": ["b"], "stars": 9});
    let (_, second) = t.submit(&id, json!({"values": values, "source": "chatbot"})).await;

    let path = format!("/api/v1/forms/{id}/responses");
    let (status, list) = parts(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(list["pagination"], json!({"page": 1, "limit": 20, "total": 2, "totalPages": 1}));
    let items = list["responses"].as_array().unwrap();
    assert_eq!(items[0]["id"], second["response"]["id"], "newest first");
    assert_eq!(items[0]["source"], "chatbot");
    assert_eq!(items[0]["values"], values);
    assert_eq!(items[1]["source"], "direct", "source defaults to direct");
    assert_eq!(items[1]["values"], json!({"name": "Ada", "email": "ada@example.com"}), "trimmed; blanks left out");
    assert_eq!(items[1]["createdAt"], r["createdAt"]);
    t.stop().await;
}

#[tokio::test]
async fn form_routes_need_the_forms_scopes() {
    let t = TestApp::spawn().await;
    let form = t.form(json!({"name": "F", "fields": [{"key": "q", "label": "Q", "type": "short_text"}]})).await;
    let id = form["id"].as_str().unwrap();
    let reader = t.key("default", "forms:read").await;
    let writer = t.key("default", "forms:write").await;
    let neither = t.key("default", "chatbot:read,webhooks:write").await;
    let body = json!({"values": {"q": "a"}});
    let routes: [(Method, String, Option<Value>, &str); 6] = [
        (Method::GET, "/api/v1/forms".into(), None, "forms:read"),
        (Method::GET, format!("/api/v1/forms/{id}"), None, "forms:read"),
        (Method::GET, format!("/api/v1/forms/{id}/responses"), None, "forms:read"),
        (
            Method::POST,
            "/api/v1/forms".into(),
            Some(json!({"name": "G", "fields": [{"key": "q", "label": "Q", "type": "email"}]})),
            "forms:write",
        ),
        (Method::POST, format!("/api/v1/forms/{id}/responses"), Some(body), "forms:write"),
        (Method::DELETE, format!("/api/v1/forms/{id}"), None, "forms:write"),
    ];
    for (method, path, body, scope) in routes {
        let send = |key: &str| {
            let mut req = t.req(method.clone(), &path, key);
            if let Some(b) = &body {
                req = req.json(b);
            }
            req.send()
        };
        let err = expect_error(send(&neither).await.unwrap(), 403, "insufficient_scope").await;
        assert_eq!(err["error"]["details"]["required"], scope, "{method} {path}");
        let (holder, other) = if scope == "forms:read" { (&reader, &writer) } else { (&writer, &reader) };
        expect_error(send(other).await.unwrap(), 403, "insufficient_scope").await;
        let status = send(holder).await.unwrap().status().as_u16();
        assert!((200..300).contains(&status), "{method} {path} with {scope}: {status}");
    }
    t.stop().await;
}
