//! The chunk index: replacing a source's chunks, semantic and keyword search within a scope.

use super::*;
use crate::ports::{Chunk, ChunkChange, ChunkEmbedding, ChunkRewrite, SearchScope, StoredChunk};
use lore_domain::language::Language;
use lore_domain::late_interaction::{TokenSigns, TokenStates};
use lore_domain::source::{KnowledgeSource, SourceOwner};

/// An 8-dimensional embedding starting with `v` (zeros after), with token signs when `signs`:
/// two rows, the first from `v`, the second from its opposite.
fn embedding(v: &[f32], signs: bool) -> ChunkEmbedding {
    let mut vector = v.to_vec();
    vector.resize(8, 0.0);
    ChunkEmbedding { vector, token_signs: signs.then(|| token_signs(v)) }
}

fn token_signs(v: &[f32]) -> TokenSigns {
    let mut rows = v.to_vec();
    rows.resize(8, 0.0);
    // Two tokens a row of signs: the row's pair, then a token alone.
    let twice: Vec<f32> =
        rows.iter().chain(&rows).chain(rows.iter().map(|x| -x - 0.5).collect::<Vec<_>>().iter()).copied().collect();
    TokenStates::new(twice, 8).expect("whole rows").signs()
}

/// The query of `index_search`, in its 8 dimensions.
const QUERY: [f32; 8] = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];

pub async fn chunk_index(p: &Stores, unique: &str) {
    let (_, bot) = chatbot_in_new_workspace(p, &format!("chunks-{unique}")).await;
    let src = text_source(&bot, "c", 1);
    p.sources.insert_source(&src, &quota(u64::MAX)).await.unwrap();
    let mk = |pos: u32, gen_: u64, text: &str| Chunk {
        id: format!("{}:{gen_}:{pos}", src.id),
        workspace_id: bot.workspace_id.clone(),
        owner: SourceOwner::Chatbot(bot.id.clone()),
        source_id: src.id.clone(),
        position: pos,
        content: text.into(),
        content_hash: format!("hash-{text}"),
        url: None,
        language: None,
        embedding: embedding(&[pos as f32, 0.5, -1.0], pos == 1),
    };
    p.index.replace_source_chunks(&src.id, "m1", vec![mk(0, 1, "a"), mk(1, 1, "b")]).await.unwrap();
    // A retried run writes the same ids again: no duplicates.
    p.index.replace_source_chunks(&src.id, "m1", vec![mk(0, 1, "a"), mk(1, 1, "b")]).await.unwrap();
    assert_eq!(p.index.count_source_chunks(&src.id).await.unwrap(), 2);
    let known = p.index.embeddings_by_hash(&src.id, "m1").await.unwrap();
    assert_eq!(known.get("hash-b"), Some(&embedding(&[1.0, 0.5, -1.0], true)), "embeddings round-trip exactly");
    assert_eq!(known.get("hash-a"), Some(&embedding(&[0.0, 0.5, -1.0], false)), "token signs are optional");
    assert!(p.index.embeddings_by_hash(&src.id, "other-model").await.unwrap().is_empty(), "never mixed across models");
    let stale = p.index.sources_with_other_models("m2").await.unwrap();
    assert!(stale.contains(&(bot.workspace_id.clone(), src.id.clone())), "chunks of another model are reported");
    assert!(!p.index.sources_with_other_models("m1").await.unwrap().iter().any(|(_, s)| s == &src.id));
    p.index.replace_source_chunks(&src.id, "m1", vec![mk(0, 2, "c")]).await.unwrap();
    assert_eq!(p.index.count_source_chunks(&src.id).await.unwrap(), 1, "replace drops the old chunks");
    assert_eq!(p.index.delete_source_chunks(&src.id).await.unwrap(), 1);
    assert_eq!(p.index.count_source_chunks(&src.id).await.unwrap(), 0);
}

/// Search over the index: exact cosine ranking, BM25 keyword matching, scope by chatbot and by
/// source list, deletion. Needs only `sources`, `chatbots`, `workspaces` and `index`.
pub async fn index_search(p: &Stores, unique: &str) {
    let (ws, bot) = chatbot_in_new_workspace(p, &format!("search-{unique}")).await;
    let (_, other_bot) = chatbot_in_new_workspace(p, &format!("search-other-{unique}")).await;
    let a = text_source(&bot, "a", 1);
    let b = text_source(&bot, "b", 2);
    let foreign = text_source(&other_bot, "f", 3);
    for s in [&a, &b, &foreign] {
        p.sources.insert_source(s, &quota(u64::MAX)).await.unwrap();
    }
    let chunk = |s: &KnowledgeSource, pos: u32, text: &str, v: [f32; 3]| Chunk {
        id: format!("{}:1:{pos}", s.id),
        workspace_id: s.workspace_id.clone(),
        owner: s.owner.clone(),
        source_id: s.id.clone(),
        position: pos,
        content: text.into(),
        content_hash: format!("{}-{pos}", s.id),
        url: (pos == 1).then(|| "https://example.com/p".to_owned()),
        language: Some(Language::English),
        embedding: embedding(&v, true),
    };
    p.index
        .replace_source_chunks(
            &a.id,
            "m",
            vec![
                chunk(&a, 0, "Refunds are paid back within fourteen days", [1.0, 0.0, 0.0]),
                chunk(&a, 1, "Shipping takes two days", [0.0, 1.0, 0.0]),
            ],
        )
        .await
        .unwrap();
    p.index
        .replace_source_chunks(
            &b.id,
            "m",
            vec![chunk(&b, 0, "Refund requests need an invoice number", [0.8, 0.6, 0.0])],
        )
        .await
        .unwrap();
    p.index
        .replace_source_chunks(&foreign.id, "m", vec![chunk(&foreign, 0, "Refund refund refund", [1.0, 0.0, 0.0])])
        .await
        .unwrap();
    let scope = SearchScope {
        workspace_id: ws.id.clone(),
        owner: SourceOwner::Chatbot(bot.id.clone()),
        source_ids: vec![a.id.clone(), b.id.clone()],
        language: None,
    };

    let hits = p.index.semantic_search(&scope, "m", &QUERY, 10, true).await.unwrap();
    let got: Vec<(String, f32)> =
        hits.iter().map(|h| (h.chunk_id.clone(), (h.score * 1000.0).round() / 1000.0)).collect();
    assert_eq!(
        got,
        vec![(format!("{}:1:0", a.id), 1.0), (format!("{}:1:0", b.id), 0.8), (format!("{}:1:1", a.id), 0.0)],
        "exact cosine ranking, only this chatbot's chunks"
    );
    assert_eq!(hits[2].url.as_deref(), Some("https://example.com/p"));
    assert_eq!(hits[1].token_signs, Some(token_signs(&[0.8, 0.6, 0.0])), "semantic hits carry their token signs");
    assert_eq!(hits[1].token_signs.as_ref().map(TokenSigns::len), Some(2));
    assert_eq!(hits[0].content, "Refunds are paid back within fourteen days");
    let without = p.index.semantic_search(&scope, "m", &QUERY, 10, false).await.unwrap();
    assert_eq!(
        without.iter().map(|h| (&h.chunk_id, h.score)).collect::<Vec<_>>(),
        hits.iter().map(|h| (&h.chunk_id, h.score)).collect::<Vec<_>>(),
        "the same hits without their signs"
    );
    assert!(without.iter().all(|h| h.token_signs.is_none()), "signs only when asked for");
    assert_eq!(p.index.semantic_search(&scope, "m", &QUERY, 1, true).await.unwrap().len(), 1, "k bounds");
    assert!(p.index.semantic_search(&scope, "other-model", &QUERY, 5, true).await.unwrap().is_empty());

    let kw = p.index.keyword_search(&scope, "refund invoice", 10).await.unwrap();
    assert_eq!(kw.first().map(|h| h.source_id.clone()), Some(b.id.clone()), "more query words match ranks first");
    assert!(kw.iter().all(|h| h.source_id != foreign.id), "never another chatbot's chunks");
    assert!(kw.iter().all(|h| h.score > 0.0));
    assert!(kw.iter().all(|h| h.token_signs.is_none()), "keyword hits do without token signs");
    assert!(p.index.keyword_search(&scope, "zebra", 10).await.unwrap().is_empty());

    // Many better keyword matches of another owner do not crowd this scope's own out of its top k.
    let crowd: Vec<Chunk> =
        (0..300).map(|i| chunk(&foreign, i, "invoice invoice invoice invoice invoice", [0.0, 0.0, 1.0])).collect();
    p.index.replace_source_chunks(&foreign.id, "m", crowd).await.unwrap();
    let kw = p.index.keyword_search(&scope, "invoice", 1).await.unwrap();
    assert_eq!(kw.iter().map(|h| h.source_id.clone()).collect::<Vec<_>>(), vec![b.id.clone()], "scope first");

    let only_b = SearchScope { source_ids: vec![b.id.clone()], ..scope.clone() };
    assert!(
        p.index.semantic_search(&only_b, "m", &QUERY, 10, false).await.unwrap().iter().all(|h| h.source_id == b.id)
    );
    let none = SearchScope { source_ids: vec![], ..scope.clone() };
    assert!(p.index.keyword_search(&none, "refund", 10).await.unwrap().is_empty());

    p.index.delete_source_chunks(&b.id).await.unwrap();
    let after = p.index.semantic_search(&scope, "m", &QUERY, 10, false).await.unwrap();
    assert!(after.iter().all(|h| h.source_id != b.id), "deleted chunks are not found");
    assert!(p.index.keyword_search(&scope, "invoice", 10).await.unwrap().is_empty());

    // An owner's chunks go with it, and only its own.
    assert_eq!(p.index.delete_owner_chunks(&SourceOwner::Chatbot(bot.id.clone())).await.unwrap(), 2);
    assert_eq!(p.index.count_source_chunks(&a.id).await.unwrap(), 0);
    assert_eq!(p.index.count_source_chunks(&foreign.id).await.unwrap(), 300, "another owner's chunks stay");
}

/// An owner's chunks: listed in order a page at a time, disabled (no search finds them, every
/// count still does), enabled again, rewritten (found by the new words only, with the new
/// embedding and model), and a replace of the source's chunks drops every change.
pub async fn chunk_edits(p: &Stores, unique: &str) {
    let (ws, bot) = chatbot_in_new_workspace(p, &format!("edits-{unique}")).await;
    let (a, b) = (text_source(&bot, "a", 1), text_source(&bot, "b", 2));
    for s in [&a, &b] {
        p.sources.insert_source(s, &quota(u64::MAX)).await.unwrap();
    }
    let chunk = |s: &KnowledgeSource, pos: u32, text: &str, v: [f32; 3]| Chunk {
        id: format!("{}:1:{pos}", s.id),
        workspace_id: s.workspace_id.clone(),
        owner: s.owner.clone(),
        source_id: s.id.clone(),
        position: pos,
        content: text.into(),
        content_hash: format!("{}-{pos}", s.id),
        url: (pos == 2).then(|| "https://example.com/p".to_owned()),
        language: Language::detect(text),
        embedding: embedding(&v, true),
    };
    let a_chunks = vec![
        chunk(&a, 0, "The zeppelin hangar opens at dawn", [1.0, 0.0, 0.0]),
        chunk(&a, 1, "Tickets are sold at the gate", [0.0, 1.0, 0.0]),
        chunk(&a, 2, "Parking is free on Sundays", [0.0, 0.0, 1.0]),
    ];
    p.index.replace_source_chunks(&a.id, "m", a_chunks.clone()).await.unwrap();
    p.index.replace_source_chunks(&b.id, "m", vec![chunk(&b, 0, "The museum cafe", [0.6, 0.8, 0.0])]).await.unwrap();
    let (a0, a1) = (a_chunks[0].id.clone(), a_chunks[1].id.clone());

    let listed = p.index.list_source_chunks(&a.id, 0, 2).await.unwrap();
    let stored = |c: &Chunk| StoredChunk {
        id: c.id.clone(),
        source_id: c.source_id.clone(),
        position: c.position,
        content: c.content.clone(),
        url: c.url.clone(),
        enabled: true,
        edited: false,
        language: c.language,
    };
    assert_eq!(listed, vec![stored(&a_chunks[0]), stored(&a_chunks[1])], "in position order, enabled, unedited");
    assert_eq!(p.index.list_source_chunks(&a.id, 2, 2).await.unwrap(), vec![stored(&a_chunks[2])], "the next page");
    assert!(p.index.list_source_chunks(&a.id, 3, 2).await.unwrap().is_empty(), "past the end");
    assert_eq!(p.index.current_chunk_count(&a.id, "m").await.unwrap(), Some(3));
    assert_eq!(p.index.current_chunk_count(&a.id, "m2").await.unwrap(), None, "another model's chunks");
    assert_eq!(p.index.current_chunk_count(&SourceId::generate(), "m").await.unwrap(), None, "no chunks");

    let scope = SearchScope {
        workspace_id: ws.id.clone(),
        owner: SourceOwner::Chatbot(bot.id.clone()),
        source_ids: vec![a.id.clone(), b.id.clone()],
        language: None,
    };
    let semantic = |query: [f32; 3]| {
        let (scope, index) = (scope.clone(), p.index.clone());
        async move {
            let hits = index.semantic_search(&scope, "m", &embedding(&query, false).vector, 10, true).await.unwrap();
            hits.into_iter().map(|h| (h.chunk_id, h.content)).collect::<Vec<_>>()
        }
    };
    let keyword = |query: &'static str| {
        let (scope, index) = (scope.clone(), p.index.clone());
        async move {
            index.keyword_search(&scope, query, 10).await.unwrap().into_iter().map(|h| h.chunk_id).collect::<Vec<_>>()
        }
    };
    // Searched before the changes: whatever a backend keeps from a search must follow them.
    assert_eq!(semantic([1.0, 0.0, 0.0]).await.first().map(|h| h.0.clone()), Some(a0.clone()));
    assert_eq!(keyword("zeppelin").await, vec![a0.clone()]);

    let disable = ChunkChange { text: None, enabled: Some(false) };
    let off = p.index.update_chunk(&a.id, &a0, &disable).await.unwrap().expect("the chunk");
    assert_eq!(off, StoredChunk { enabled: false, ..stored(&a_chunks[0]) }, "disabled, not edited");
    assert!(semantic([1.0, 0.0, 0.0]).await.iter().all(|h| h.0 != a0), "semantic search leaves it out");
    assert!(keyword("zeppelin").await.is_empty(), "keyword search leaves it out");
    assert_eq!(p.index.count_source_chunks(&a.id).await.unwrap(), 3, "a disabled chunk still counts");
    assert_eq!(p.index.current_chunk_count(&a.id, "m").await.unwrap(), Some(3));
    assert!(!p.index.list_source_chunks(&a.id, 0, 1).await.unwrap()[0].enabled, "listed as disabled");
    assert_eq!(p.index.update_chunk(&b.id, &a0, &disable).await.unwrap(), None, "a chunk of another source");
    assert_eq!(p.index.update_chunk(&a.id, "nope", &disable).await.unwrap(), None, "no such chunk");

    let enable = ChunkChange { text: None, enabled: Some(true) };
    assert!(p.index.update_chunk(&a.id, &a0, &enable).await.unwrap().unwrap().enabled);
    assert_eq!(semantic([1.0, 0.0, 0.0]).await.first().map(|h| h.0.clone()), Some(a0.clone()), "found again");
    assert_eq!(keyword("zeppelin").await, vec![a0.clone()]);

    let rewrite = |text: &str, model: &str, v: [f32; 3]| ChunkChange {
        text: Some(ChunkRewrite {
            content: text.into(),
            content_hash: format!("hash-{text}"),
            model: model.into(),
            language: Language::detect(text),
            embedding: embedding(&v, true),
        }),
        enabled: None,
    };
    let text = "Submarine tours leave at noon";
    let edited = p.index.update_chunk(&a.id, &a1, &rewrite(text, "m", [0.0, 0.0, -1.0])).await.unwrap().unwrap();
    assert_eq!(edited, StoredChunk { content: text.into(), edited: true, ..stored(&a_chunks[1]) });
    assert_eq!(keyword("submarine").await, vec![a1.clone()], "found by its new words");
    assert!(keyword("tickets").await.is_empty(), "not by its old ones");
    assert_eq!(semantic([0.0, 0.0, -1.0]).await.first(), Some(&(a1.clone(), text.to_owned())), "by its new embedding");
    let signs = p.index.semantic_search(&scope, "m", &embedding(&[0.0, 0.0, -1.0], false).vector, 1, true).await;
    assert_eq!(signs.unwrap()[0].token_signs, Some(token_signs(&[0.0, 0.0, -1.0])), "with its new token signs");
    let known = p.index.embeddings_by_hash(&a.id, "m").await.unwrap();
    assert_eq!(known.get(&format!("hash-{text}")), Some(&embedding(&[0.0, 0.0, -1.0], true)));
    let both = ChunkChange { enabled: Some(false), ..rewrite("Submarine tours leave at one", "m", [0.0, 0.0, -1.0]) };
    let changed = p.index.update_chunk(&a.id, &a1, &both).await.unwrap().unwrap();
    assert_eq!(
        (changed.content.as_str(), changed.enabled, changed.edited),
        ("Submarine tours leave at one", false, true)
    );
    assert!(keyword("submarine").await.is_empty());
    p.index.update_chunk(&a.id, &a1, &enable).await.unwrap();

    // A chunk rewritten by another model than its siblings': the source is no longer one model's.
    p.index.update_chunk(&a.id, &a0, &rewrite("Zeppelin rides", "m2", [1.0, 0.0, 0.0])).await.unwrap();
    assert_eq!(p.index.current_chunk_count(&a.id, "m").await.unwrap(), None);
    assert!(p.index.sources_with_other_models("m").await.unwrap().iter().any(|(_, s)| s == &a.id));
    assert!(semantic([1.0, 0.0, 0.0]).await.iter().all(|h| h.0 != a0), "not among model m's vectors");

    // Chunks made again drop every change.
    p.index.replace_source_chunks(&a.id, "m", a_chunks.clone()).await.unwrap();
    let fresh = p.index.list_source_chunks(&a.id, 0, 10).await.unwrap();
    assert_eq!(fresh, a_chunks.iter().map(stored).collect::<Vec<_>>());
    assert_eq!(keyword("tickets").await, vec![a1.clone()]);
    p.index.delete_owner_chunks(&SourceOwner::Chatbot(bot.id.clone())).await.unwrap();
}

/// Languages (docs/api.md §20): each chunk keeps its language; keyword search reads Chinese and
/// Japanese by character pairs and folds each chunk by its own language's stemmer, a question by
/// every language the owner's chunks are in; the `language` filter holds in both searches; a
/// source lists its chunks' languages, most chunks first.
pub async fn chunk_languages(p: &Stores, unique: &str) {
    let (ws, bot) = chatbot_in_new_workspace(p, &format!("languages-{unique}")).await;
    let (a, b) = (text_source(&bot, "a", 1), text_source(&bot, "b", 2));
    for s in [&a, &b] {
        p.sources.insert_source(s, &quota(u64::MAX)).await.unwrap();
    }
    let chunk = |s: &KnowledgeSource, pos: u32, text: &str, v: [f32; 3]| Chunk {
        id: format!("{}:1:{pos}", s.id),
        workspace_id: s.workspace_id.clone(),
        owner: s.owner.clone(),
        source_id: s.id.clone(),
        position: pos,
        content: text.into(),
        content_hash: format!("{}-{pos}", s.id),
        url: None,
        language: Language::detect(text),
        embedding: embedding(&v, false),
    };
    let texts = [
        "Nous livrons rapidement nos bouilloires en France et en Belgique.",
        "Les retours sont gratuits pendant trente jours après la livraison.",
        "ケトルのご注文は東京都の倉庫から三営業日以内に発送されます。",
        "OK",
    ];
    let a_chunks: Vec<Chunk> =
        texts.iter().enumerate().map(|(i, t)| chunk(&a, i as u32, t, [1.0, i as f32, 0.0])).collect();
    assert_eq!(
        a_chunks.iter().map(|c| c.language).collect::<Vec<_>>(),
        [Some(Language::French), Some(Language::French), Some(Language::Japanese), None]
    );
    p.index.replace_source_chunks(&a.id, "m", a_chunks.clone()).await.unwrap();
    let english = chunk(&b, 0, "Refunds are paid back within fourteen days of the request.", [0.0, 0.0, 1.0]);
    p.index.replace_source_chunks(&b.id, "m", vec![english.clone()]).await.unwrap();

    assert_eq!(p.index.source_languages(&a.id).await.unwrap(), [Language::French, Language::Japanese]);
    assert_eq!(p.index.source_languages(&b.id).await.unwrap(), [Language::English]);
    assert!(p.index.source_languages(&SourceId::generate()).await.unwrap().is_empty());
    let listed = p.index.list_source_chunks(&a.id, 0, 10).await.unwrap();
    assert_eq!(
        listed.iter().map(|c| c.language).collect::<Vec<_>>(),
        a_chunks.iter().map(|c| c.language).collect::<Vec<_>>()
    );

    let scope = SearchScope {
        workspace_id: ws.id.clone(),
        owner: SourceOwner::Chatbot(bot.id.clone()),
        source_ids: vec![a.id.clone(), b.id.clone()],
        language: None,
    };
    let keyword = |query: &'static str, language: Option<Language>| {
        let (scope, index, a) = (SearchScope { language, ..scope.clone() }, p.index.clone(), a.id.clone());
        async move {
            let hits = index.keyword_search(&scope, query, 10).await.unwrap();
            hits.into_iter().map(|h| (h.position, h.source_id == a, h.language)).collect::<Vec<_>>()
        }
    };
    // Two characters inside an unspaced Japanese sentence find it.
    assert_eq!(keyword("東京", None).await, [(2, true, Some(Language::Japanese))]);
    assert_eq!(keyword("倉庫から", None).await, [(2, true, Some(Language::Japanese))]);
    // French words by their French stems, English ones by their English stems.
    assert_eq!(keyword("rapide", None).await, [(0, true, Some(Language::French))]);
    assert_eq!(keyword("retour", None).await, [(1, true, Some(Language::French))]);
    assert_eq!(keyword("refund", None).await, [(0, false, Some(Language::English))]);
    // The language filter.
    assert!(keyword("refund", Some(Language::French)).await.is_empty());
    assert_eq!(keyword("refund", Some(Language::English)).await.len(), 1);
    let semantic = |language: Option<Language>| {
        let (scope, index) = (SearchScope { language, ..scope.clone() }, p.index.clone());
        async move {
            let hits = index.semantic_search(&scope, "m", &embedding(&[0.0, 0.0, 1.0], false).vector, 10, false).await;
            hits.unwrap().into_iter().map(|h| h.language).collect::<Vec<_>>()
        }
    };
    assert_eq!(semantic(None).await.len(), 5);
    assert_eq!(semantic(Some(Language::English)).await, [Some(Language::English)]);
    assert_eq!(semantic(Some(Language::Japanese)).await, [Some(Language::Japanese)]);
    assert!(semantic(Some(Language::German)).await.is_empty());

    // A rewrite takes its new text's language.
    let rewrite = ChunkChange {
        text: Some(ChunkRewrite {
            content: "Der Wasserkocher wird innerhalb von drei Werktagen geliefert.".into(),
            content_hash: "hash-de".into(),
            model: "m".into(),
            language: Some(Language::German),
            embedding: embedding(&[0.0, 1.0, 0.0], false),
        }),
        enabled: None,
    };
    let edited = p.index.update_chunk(&a.id, &a_chunks[3].id, &rewrite).await.unwrap().unwrap();
    assert_eq!(edited.language, Some(Language::German));
    assert_eq!(keyword("Wasserkocher", Some(Language::German)).await, [(3, true, Some(Language::German))]);
    assert_eq!(semantic(Some(Language::German)).await, [Some(Language::German)]);
    assert_eq!(
        p.index.source_languages(&a.id).await.unwrap(),
        [Language::French, Language::German, Language::Japanese],
        "most chunks first, ties by code"
    );
}
