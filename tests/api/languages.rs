//! Every visitor's language (docs/api.md §20) over HTTP, on either backend: the supported list,
//! the `language` setting of chatbots and Minds, each chunk's detected language and a source's
//! languages, keyword search that reads unspaced Chinese and Japanese and stems Russian, the
//! search `language` filter, and extractive answers framed in the visitor's language (French,
//! German, Japanese, Chinese, Arabic, Russian) or the owner's fixed one.

use crate::support::{TestApp, expect_error, parts};
use reqwest::Method;
use serde_json::{Value, json};

const TEXTS: [(&str, &str); 6] = [
    (
        "fr",
        "La livraison en France prend trois jours ouvrés. Nous livrons nos bouilloires rapidement, \
         et les retours sont gratuits pendant trente jours après la réception du colis.",
    ),
    (
        "de",
        "Der Versand nach Deutschland dauert drei Werktage. Unsere Wasserkocher werden sorgfältig \
         verpackt, und Rücksendungen sind dreißig Tage lang kostenlos.",
    ),
    ("ja", "ケトルのご注文は東京都の倉庫から三営業日以内に発送されます。返品は到着後三十日以内であれば無料です。"),
    ("zh", "水壶订单会在三个工作日内从上海仓库发货。收到包裹后三十天内可以免费退货。"),
    ("ar", "يتم شحن الغلايات إلى جميع المدن خلال ثلاثة أيام عمل، ويمكن إرجاع المنتج مجانًا خلال ثلاثين يومًا من الاستلام."),
    (
        "ru",
        "Доставка чайников по России занимает три рабочих дня. Возврат товара бесплатный в течение \
         тридцати дней после получения посылки.",
    ),
];

async fn ready_text(t: &TestApp, bot: &str, name: &str, content: &str) -> String {
    let (status, body) =
        t.post_source(&t.dev_key, bot, json!({"type": "text", "name": name, "content": content})).await;
    assert_eq!(status, 201, "{body}");
    let id = body["source"]["id"].as_str().unwrap().to_owned();
    assert_eq!(t.process(bot, &id).await.0, 202);
    assert_eq!(t.settle(bot, &id).await["status"], "ready");
    id
}

async fn search(t: &TestApp, bot: &str, body: Value) -> (u16, Value) {
    let res = t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/knowledge/search"), &t.dev_key).json(&body);
    parts(res.send().await.unwrap()).await
}

/// The names of the sources a keyword search finds, best first.
async fn found(t: &TestApp, bot: &str, query: &str, language: Option<&str>) -> Vec<(String, Value)> {
    let mut body = json!({"query": query, "mode": "keyword", "topK": 10});
    if let Some(l) = language {
        body["language"] = json!(l);
    }
    let (status, out) = search(t, bot, body).await;
    assert_eq!(status, 200, "{out}");
    out["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["sourceName"].as_str().unwrap().to_owned(), r["language"].clone()))
        .collect()
}

/// The assistant's answer to a first message.
async fn answer(t: &TestApp, bot: &str, message: &str) -> String {
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let res = t.req(Method::POST, &path, &t.dev_key).json(&json!({"message": message})).send().await.unwrap();
    let (status, created) = parts(res).await;
    assert_eq!(status, 201, "{created}");
    created["messages"][1]["content"].as_str().unwrap().to_owned()
}

async fn patch_bot(t: &TestApp, bot: &str, body: Value) -> reqwest::Response {
    t.req(Method::PATCH, &format!("/api/v1/chatbots/{bot}"), &t.dev_key).json(&body).send().await.unwrap()
}

#[tokio::test]
async fn the_supported_languages_are_listed_to_any_key() {
    let t = TestApp::spawn().await;
    let ws = t.workspace("langs", Default::default()).await;
    let key = t.key(&ws, "forms:write").await;
    let (status, body) = parts(t.req(Method::GET, "/api/v1/languages", &key).send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    let languages = body["languages"].as_array().unwrap();
    assert!(languages.len() >= 28, "{body}");
    let codes: Vec<&str> = languages.iter().map(|l| l["code"].as_str().unwrap()).collect();
    for code in ["en", "fr", "de", "es", "it", "pt", "nl", "ja", "zh", "ar", "he", "fa", "ru", "uk", "ko", "hu"] {
        assert!(codes.contains(&code), "{code} in {codes:?}");
    }
    assert!(languages.iter().any(|l| l["code"] == "fr" && l["name"] == "Français"));
    let anonymous = t.client.get(t.url("/api/v1/languages")).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
}

#[tokio::test]
async fn chatbots_and_minds_keep_a_language_setting_validated_against_the_list() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let (status, detail) =
        parts(t.req(Method::GET, &format!("/api/v1/chatbots/{bot}"), &t.dev_key).send().await.unwrap()).await;
    assert_eq!((status, detail["chatbot"]["language"].as_str()), (200, Some("auto")), "{detail}");
    let (status, patched) = parts(patch_bot(&t, &bot, json!({"language": "fr"})).await).await;
    assert_eq!((status, patched["chatbot"]["language"].as_str()), (200, Some("fr")), "{patched}");
    for bad in [json!("xx"), json!("FR"), json!("fr-FR"), json!(null), json!(3)] {
        let res = patch_bot(&t, &bot, json!({ "language": bad })).await;
        let body = expect_error(res, 400, "validation_error").await;
        assert!(body["error"]["details"]["fields"]["language"].is_string(), "{bad}: {body}");
    }
    let (_, after) =
        parts(t.req(Method::GET, &format!("/api/v1/chatbots/{bot}"), &t.dev_key).send().await.unwrap()).await;
    assert_eq!(after["chatbot"]["language"], "fr", "refused changes change nothing");

    let res = t.req(Method::POST, "/api/v1/minds", &t.dev_key).json(&json!({"name": "Polyglot"})).send();
    let (status, mind) = parts(res.await.unwrap()).await;
    assert_eq!(status, 201, "{mind}");
    let id = mind["mind"]["id"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/minds/{id}");
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"language": "de"})).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let (_, detail) = parts(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(detail["mind"]["language"], "de", "{detail}");
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"language": "klingon"})).send().await.unwrap();
    expect_error(res, 400, "validation_error").await;
}

#[tokio::test]
async fn chunks_carry_their_language_and_keyword_search_reads_every_script() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let mut ids = Vec::new();
    for (code, text) in TEXTS {
        ids.push((code, ready_text(&t, &bot, code, text).await));
    }
    for (code, id) in &ids {
        let detail = t.source(&bot, id).await;
        assert_eq!(detail["languages"], json!([code]), "{detail}");
        let path = format!("/api/v1/chatbots/{bot}/sources/{id}/chunks");
        let (status, listed) = parts(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap()).await;
        assert_eq!(status, 200, "{listed}");
        assert!(listed["chunks"].as_array().unwrap().iter().all(|c| c["language"] == *code), "{listed}");
    }
    // Two characters inside unspaced Japanese and Chinese sentences.
    let ja = found(&t, &bot, "東京", None).await;
    assert_eq!(ja, [("ja".to_owned(), json!("ja"))]);
    assert_eq!(found(&t, &bot, "上海", None).await, [("zh".to_owned(), json!("zh"))]);
    assert_eq!(found(&t, &bot, "免费退货", None).await[0].0, "zh");
    // Russian and German words found in another form of the same word.
    assert_eq!(found(&t, &bot, "доставки", None).await[0].0, "ru");
    assert_eq!(found(&t, &bot, "Rücksendung", None).await[0].0, "de");
    assert_eq!(found(&t, &bot, "bouilloire", None).await[0].0, "fr");
    assert_eq!(found(&t, &bot, "الغلاية", None).await.first().map(|f| f.0.as_str()), Some("ar"));

    // The language filter, in every mode.
    for mode in ["keyword", "semantic", "hybrid"] {
        let (status, out) = search(&t, &bot, json!({"query": "trois jours", "mode": mode, "language": "fr"})).await;
        assert_eq!(status, 200, "{out}");
        let results = out["results"].as_array().unwrap();
        assert!(!results.is_empty(), "{mode}: {out}");
        assert!(results.iter().all(|r| r["language"] == "fr"), "{mode}: {out}");
    }
    assert!(found(&t, &bot, "東京", Some("zh")).await.is_empty(), "filtered out");
    let (status, out) = search(&t, &bot, json!({"query": "x", "language": "xx"})).await;
    assert_eq!((status, out["error"]["code"].as_str()), (400, Some("validation_error")), "{out}");
}

#[tokio::test]
async fn extractive_answers_come_in_the_visitor_s_language_or_the_owner_s_fixed_one() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    for (code, text) in TEXTS {
        ready_text(&t, &bot, code, text).await;
    }
    let cases = [
        ("Combien de temps prend la livraison en France ?", ["D'après ce que je sais", "Je n'ai encore rien"]),
        ("Wie lange dauert der Versand nach Deutschland?", ["Soweit ich weiß", "Dazu habe ich noch nichts"]),
        ("東京都の倉庫から発送されますか？", ["私の知る限りでは", "その件については"]),
        ("水壶从上海仓库发货吗？", ["据我所知", "我的知识库中"]),
        ("كم يستغرق شحن الغلايات؟", ["بحسب ما أعرف", "لا يوجد في معرفتي"]),
        ("Сколько занимает доставка чайников?", ["Вот что я знаю", "В моих знаниях"]),
    ];
    for (question, openings) in cases {
        let text = answer(&t, &bot, question).await;
        assert!(openings.iter().any(|o| text.starts_with(o)), "{question} -> {text}");
    }
    // Quotes stay verbatim: the French framing quotes the French passage.
    let text = answer(&t, &bot, "Les retours sont-ils gratuits pendant trente jours ?").await;
    assert!(text.starts_with("D'après ce que je sais") && text.contains("trente jours"), "{text}");

    assert_eq!(patch_bot(&t, &bot, json!({"language": "de"})).await.status(), 200);
    let text = answer(&t, &bot, "How long does shipping to France take?").await;
    assert!(text.starts_with("Soweit ich weiß") || text.starts_with("Dazu habe ich"), "fixed language: {text}");
}

/// multilingual-e5-small from `LORE_E5_DIR` (default `~/.cache/lore/models/multilingual-e5-small-q4`,
/// put there by `scripts/fetch-model.sh e5`, which the test command runs); `None` only when
/// `LORE_SKIP_MODEL_TESTS=1` and it is missing.
fn e5() -> Option<lore_embed::E5Embedder> {
    let skip = std::env::var("LORE_SKIP_MODEL_TESTS").is_ok_and(|v| v == "1");
    let dir = lore_embed::e5::e5_dir_from_lookup(|name| std::env::var(name).ok());
    match dir.map(|d| lore_embed::E5Embedder::lazy(&d)) {
        Some(Ok(model)) => Some(model),
        _ if skip => None,
        other => {
            panic!("the e5 search test needs the model (bash scripts/fetch-model.sh e5): {:?}", other.map(|r| r.err()))
        }
    }
}

/// With `LORE_EMBEDDER=e5` (here the same embedder, served for real), the knowledge is in one
/// language and the questions in others: semantic search compares them by meaning, so each
/// question finds its passage although no word is shared, and hybrid search keeps it first.
#[tokio::test]
async fn with_e5_questions_in_other_languages_find_english_passages() {
    let Some(model) = e5() else { return };
    let t = TestApp::spawn_with(lore::compose::Overrides {
        embedder: Some(std::sync::Arc::new(model)),
        ..Default::default()
    })
    .await;
    let bot = t.chatbot().await;
    let passages = [
        ("shipping", "Delivery takes three business days. Every order leaves our warehouse within 24 hours."),
        ("returns", "You can send an item back within thirty days of receiving it and we refund the full price."),
        ("warranty", "Every kettle comes with a two-year warranty covering defects of the heating element."),
        ("payment", "We accept credit cards, PayPal and bank transfers; you are charged when the order ships."),
    ];
    for (name, text) in passages {
        ready_text(&t, &bot, name, text).await;
    }
    let questions = [
        ("fr", "Combien de temps faut-il pour recevoir ma commande ?", "shipping"),
        ("de", "Kann ich mit PayPal bezahlen?", "payment"),
        ("ja", "商品を返品して返金してもらえますか？", "returns"),
        ("zh", "电水壶的保修期是多久？", "warranty"),
        ("ru", "Сколько дней идёт доставка?", "shipping"),
        ("ar", "هل يمكنني إرجاع المنتج واسترداد المال؟", "returns"),
    ];
    for (lang, question, expected) in questions {
        for mode in ["semantic", "hybrid"] {
            let (status, out) = search(&t, &bot, json!({"query": question, "mode": mode, "topK": 4})).await;
            assert_eq!(status, 200, "{out}");
            let names: Vec<&str> =
                out["results"].as_array().unwrap().iter().map(|r| r["sourceName"].as_str().unwrap()).collect();
            assert_eq!(names.first(), Some(&expected), "{lang} {mode}: {question} → {names:?}");
        }
    }
    // The chunks say their own language.
    let (status, out) = search(&t, &bot, json!({"query": "warranty kettle", "mode": "keyword", "topK": 1})).await;
    assert_eq!((status, out["results"][0]["language"].as_str()), (200, Some("en")), "{out}");
    t.stop().await;
}

/// With a chat model configured, a question asked in one language of knowledge written in another
/// is also translated by the model into the passages' language and searched again: the French
/// passage about refunds is found for an English question that shares no word with it, and the
/// model is given it first. The translation request asks for the passages' language by name
/// and code; with no translation (the model's reply holds none) the first search stands.
#[tokio::test]
async fn with_a_model_questions_are_also_searched_in_the_knowledge_s_language() {
    let stub = crate::conversations::ModelStub::start("Vous pouvez être remboursé [1].").await;
    let t = crate::conversations::spawn_with_model(&stub).await;
    let bot = t.chatbot().await;
    let texts = [
        (
            "remboursement",
            "Remboursement : vous êtes remboursé sous trente jours après le retour du colis, sans frais.",
        ),
        ("livraison", "Livraison : les colis partent de notre entrepôt de Lyon et arrivent en trois jours ouvrés."),
        ("garantie", "Garantie : chaque bouilloire est garantie deux ans contre les défauts de la résistance."),
        ("paiement", "Paiement : nous acceptons les cartes bancaires et les virements, débités à l'expédition."),
        ("horaires", "Horaires : le service client répond du lundi au vendredi, de neuf heures à dix-huit heures."),
        ("compte", "Compte : vous pouvez changer votre adresse et votre mot de passe depuis la page de profil."),
    ];
    for (name, text) in texts {
        ready_text(&t, &bot, name, text).await;
    }
    let ask = |question: &'static str| {
        let t = &t;
        let bot = bot.clone();
        async move {
            let path = format!("/api/v1/chatbots/{bot}/conversations");
            let (status, created) =
                parts(t.req(Method::POST, &path, &t.dev_key).json(&json!({"message": question})).send().await.unwrap())
                    .await;
            assert_eq!(status, 201, "{created}");
            let answer = created["messages"].as_array().unwrap().last().unwrap().clone();
            answer["citations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["sourceName"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    let question = "How do I get a refund?";

    // The model translates nothing: the search of the English words stands.
    let before = ask(question).await;
    assert_eq!(stub.translations().len(), 1, "asked once, into the passages' language");
    assert_ne!(before.first().map(String::as_str), Some("remboursement"), "no shared word: {before:?}");

    stub.translate_as("```json\n{\"fr\": \"Comment être remboursé ?\"}\n```");
    let after = ask(question).await;
    assert_eq!(after.first().map(String::as_str), Some("remboursement"), "{after:?}");
    let request = &stub.translations()[1];
    let system = request["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("Français (fr)") && !system.contains("(en)"), "{system}");
    assert_eq!(request["messages"][1]["content"], question);
    // The answer's prompt has the refund passage as [1].
    let prompt = stub.requests().last().unwrap()["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(prompt.contains("[1] (from \"remboursement\")"), "{prompt}");

    // A question in the knowledge's own language is not translated.
    let _ = ask("Comment être remboursé ?").await;
    assert_eq!(stub.translations().len(), 2);
    t.stop().await;
}

/// A model that never answers the translation request: the turn waits no longer than the
/// translation's bound (here the responder's 1 s request budget, below the 10 s default) and is
/// answered from the question as written.
#[tokio::test]
async fn a_translation_that_never_comes_does_not_hold_the_answer() {
    let stub = crate::conversations::ModelStub::start("Voilà [1].").await;
    stub.stall_translations();
    let responder = stub.responder_with(|c| c.request_timeout = std::time::Duration::from_secs(1));
    let t = TestApp::spawn_with(lore::compose::Overrides { responder: Some(responder), ..Default::default() }).await;
    let bot = t.chatbot().await;
    let text = "Remboursement : vous êtes remboursé sous trente jours après le retour du colis, sans frais.";
    ready_text(&t, &bot, "remboursement", text).await;
    let started = std::time::Instant::now();
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let res = t.req(Method::POST, &path, &t.dev_key).json(&json!({"message": "How do I get a refund?"})).send();
    let (status, created) = parts(res.await.unwrap()).await;
    assert_eq!(status, 201, "{created}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(stub.translations().len(), 1, "the translation was asked for");
    let answer = created["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(answer["content"], "Voilà [1].", "{answer}");
    t.stop().await;
}
