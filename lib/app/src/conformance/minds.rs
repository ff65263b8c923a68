//! Minds: records, usage, limits, revisions, public addresses, and their knowledge sources.

use super::*;
use crate::ports::{CountLimit, Finish, Guarded, InsertLimits, Inserted, SourceFilter, SourceStore};
use crate::ports::{MindInsert, MindStore, MindUsage, RevisedWrite};
use crate::ports::{StoreError, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::assistant::RawAssistantPatch;
use lore_domain::audio::AudioFormat;
use lore_domain::document::DocumentKind;
use lore_domain::id::SourceId;
use lore_domain::id::{MindId, WorkspaceId};
use lore_domain::mind::MindSourceCounts;
use lore_domain::mind::{Field, Mind, MindName, MindPatch, NewMind, RawMind, Temperature, VoiceId, WebUrl};
use lore_domain::pagination::PageRequest;
use lore_domain::slug::Slug;
use lore_domain::source::{
    KnowledgeSource, Progress, SourceOwner, SourceSpec, SourceStatus, SourceType, StoredAudio, StoredFile,
};
use lore_domain::workspace::Workspace;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The ports the Mind suites need.
#[derive(Clone)]
pub struct MindStores {
    pub workspaces: Arc<dyn WorkspaceStore>,
    pub minds: Arc<dyn MindStore>,
    pub sources: Arc<dyn SourceStore>,
    pub chatbots: Arc<dyn crate::ports::ChatbotStore>,
    pub conversations: Arc<dyn crate::ports::ConversationStore>,
}

async fn new_workspace(p: &MindStores, name: &str, minds_limit: u32) -> Workspace {
    let mut ws = workspace(name);
    ws.limits.minds_limit = minds_limit;
    p.workspaces.insert_workspace(&ws).await.unwrap();
    ws
}

fn mind(ws: &WorkspaceId, slug: &str, created_ms: i64) -> Mind {
    let raw = RawMind { name: Field::Value(format!("Mind {slug}")), ..Default::default() };
    let mut m = Mind::create(
        ws.clone(),
        NewMind::parse(&raw).unwrap(),
        Slug::parse("slug", slug).unwrap(),
        Timestamp::from_millis(created_ms),
    );
    m.id = MindId::generate();
    m
}

/// A Mind with every setting away from its default, to prove they all round-trip.
fn rich(ws: &WorkspaceId, slug: &str, created_ms: i64) -> Mind {
    let mut m = mind(ws, slug, created_ms);
    let map = |pairs: &[(&str, &str)]| -> BTreeMap<String, Option<String>> {
        pairs.iter().map(|(k, v)| (k.to_string(), Some(v.to_string()))).collect()
    };
    let raw = RawMind {
        headline: Field::Value("Line \"quoted\" & <b>".into()),
        bio: Field::Value("Bio\n\nwith paragraphs — ünïcödé".into()),
        avatar_url: Field::Value("https://cdn.example.com/a.png".into()),
        system_prompt: Field::Value("Be kind.".into()),
        expertise_areas: Field::Value(vec!["Rust".into()]),
        temperature: Field::Value(1.3),
        social_links: Field::Value(map(&[("twitter", "https://x.com/m"), ("website", "https://m.example")])),
        voice_enabled: Field::Value(true),
        voice_id: Field::Value("shimmer".into()),
        voice_speed: Field::Value(0.25),
        settings: RawAssistantPatch {
            welcome_message: Field::Value("Hello!".into()),
            suggested_questions: Field::Value(vec!["One?".into(), "Two?".into()]),
            show_sources: Field::Value(false),
            collect_email_before_chat: Field::Value(true),
            theme: Field::Value(map(&[
                ("primaryColor", "#112233"),
                ("backgroundColor", "#fff"),
                ("fontFamily", "Inter, sans-serif"),
                ("mode", "dark"),
            ])),
            ..Default::default()
        },
        ..Default::default()
    };
    MindPatch::parse(&raw).unwrap().apply(&mut m);
    assert_eq!(m.voice_id, VoiceId::Shimmer);
    m
}

/// A slug of its own for each run: public addresses are shared by every workspace of a
/// backend, and several runs may share one backend.
fn public_slug(word: &str, unique: &str) -> String {
    let suffix: String = unique.to_ascii_lowercase().chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    if suffix.is_empty() { word.to_owned() } else { format!("{word}-{suffix}") }
}

/// The next revision of `m`, as a use case writes it.
fn next(m: &Mind) -> Mind {
    let mut n = m.clone();
    n.revision += 1;
    n.updated_at = Timestamp::from_millis(m.updated_at.millis() + 1);
    n
}

pub async fn minds(p: &MindStores, unique: &str) {
    let ws = new_workspace(p, &format!("minds-{unique}"), 10).await;
    let other = new_workspace(p, &format!("minds-other-{unique}"), 10).await;
    let s = &p.minds;
    let base = 1_700_000_000_000;
    let alpha = public_slug("alpha", unique);
    let alpha = alpha.as_str();

    let a = rich(&ws.id, alpha, base);
    let b = mind(&ws.id, "beta", base + 1);
    let c = mind(&ws.id, "gamma", base + 1); // same millisecond as b: the id breaks the tie
    for m in [&a, &b, &c] {
        assert_eq!(s.insert_mind(m, 10).await.unwrap(), MindInsert::Inserted);
    }
    assert_eq!(s.get_mind(&ws.id, &a.id).await.unwrap().as_ref(), Some(&a), "every setting round-trips");
    assert_eq!(s.get_mind(&other.id, &a.id).await.unwrap(), None, "never across workspaces");
    assert_eq!(s.get_mind(&ws.id, &MindId::generate()).await.unwrap(), None);
    assert_eq!(s.insert_mind(&mind(&ws.id, alpha, base), 10).await, Err(StoreError::Conflict("slug")));
    let theirs = mind(&other.id, alpha, base);
    assert_eq!(s.insert_mind(&theirs, 10).await.unwrap(), MindInsert::Inserted, "slugs are per workspace");

    let page = s.list_minds(&ws.id, PageRequest::new(1, 2)).await.unwrap();
    assert_eq!((page.total, page.items.clone()), (3, vec![c.clone(), b.clone()]), "newest first, id desc on ties");
    assert_eq!(s.list_minds(&ws.id, PageRequest::new(2, 2)).await.unwrap().items, vec![a.clone()]);
    let past = s.list_minds(&ws.id, PageRequest::new(9, 2)).await.unwrap();
    assert!(past.items.is_empty() && past.total == 3, "past the end: empty with the true total");
    assert_eq!(s.mind_usage(&ws.id).await.unwrap(), MindUsage { minds: 3, sources: 0 });
    assert_eq!(s.mind_usage(&other.id).await.unwrap(), MindUsage { minds: 1, sources: 0 });

    // Updates: based on the stored revision, or refused as stale.
    let mut renamed = next(&b);
    renamed.name = MindName::parse("Renamed").unwrap();
    renamed.avatar_url = Some(WebUrl::parse("avatarUrl", "https://cdn.example.com/b.png").unwrap());
    assert_eq!(s.update_mind(&renamed).await.unwrap(), RevisedWrite::Done);
    assert_eq!(s.get_mind(&ws.id, &b.id).await.unwrap().as_ref(), Some(&renamed));
    assert_eq!(s.update_mind(&next(&b)).await.unwrap(), RevisedWrite::Stale, "a write based on an older read");
    let mut foreign = next(&renamed);
    foreign.workspace_id = other.id.clone();
    assert_eq!(s.update_mind(&foreign).await.unwrap(), RevisedWrite::NotFound, "an update names its workspace");
    let mut onto = next(&renamed);
    onto.slug = Slug::parse("slug", alpha).unwrap();
    assert_eq!(s.update_mind(&onto).await, Err(StoreError::Conflict("slug")), "update onto a taken slug");
    assert_eq!(s.get_mind(&ws.id, &b.id).await.unwrap().as_ref(), Some(&renamed), "a refused write changes nothing");

    // Publication: the published slug is a public address, unique across workspaces.
    assert_eq!(s.find_published_mind(alpha).await.unwrap(), None, "unpublished Minds have no public page");
    let mut published = next(&a);
    published.is_published = true;
    assert_eq!(s.update_mind(&published).await.unwrap(), RevisedWrite::Done);
    assert_eq!(s.find_published_mind(alpha).await.unwrap().as_ref(), Some(&published));
    let mut rival = next(&theirs);
    rival.is_published = true;
    assert_eq!(s.update_mind(&rival).await, Err(StoreError::Conflict("public_slug")), "one Mind per address");
    let mut unpublished = next(&published);
    unpublished.is_published = false;
    assert_eq!(s.update_mind(&unpublished).await.unwrap(), RevisedWrite::Done);
    assert_eq!(s.find_published_mind(alpha).await.unwrap(), None);
    assert_eq!(s.update_mind(&rival).await.unwrap(), RevisedWrite::Done, "the address is free again");
    assert_eq!(s.find_published_mind(alpha).await.unwrap().map(|m| m.id), Some(theirs.id.clone()));
    let mut clash = next(&unpublished);
    clash.is_published = true;
    assert_eq!(s.update_mind(&clash).await, Err(StoreError::Conflict("public_slug")));

    // Deletes name their workspace; the slug is free again afterwards.
    assert_eq!(s.delete_mind(&other.id, &a.id).await.unwrap(), None, "a delete names its workspace");
    assert!(s.delete_mind(&ws.id, &a.id).await.unwrap().is_some());
    assert_eq!(s.delete_mind(&ws.id, &a.id).await.unwrap(), None);
    assert_eq!(s.get_mind(&ws.id, &a.id).await.unwrap(), None);
    assert_eq!(s.mind_usage(&ws.id).await.unwrap(), MindUsage { minds: 2, sources: 0 }, "usage follows deletes");
    assert_eq!(s.list_minds(&ws.id, PageRequest::default()).await.unwrap().total, 2);
    assert_eq!(s.insert_mind(&mind(&ws.id, alpha, base + 5), 10).await.unwrap(), MindInsert::Inserted);

    // The workspace's limit: counted at insert, also when it was lowered below the count.
    assert_eq!(s.insert_mind(&mind(&ws.id, "delta", base), 3).await.unwrap(), MindInsert::LimitReached { used: 3 });
    assert_eq!(s.insert_mind(&mind(&ws.id, "delta", base), 1).await.unwrap(), MindInsert::LimitReached { used: 3 });
    assert_eq!(s.insert_mind(&mind(&ws.id, "delta", base), 4).await.unwrap(), MindInsert::Inserted);
    assert_eq!(s.mind_usage(&ws.id).await.unwrap().minds, 4);
}

/// Concurrent writers: at the `mindsLimit` exactly one create wins; of creates with one
/// explicit slug exactly one wins; of updates based on one revision exactly one lands; of
/// two workspaces publishing one slug exactly one gets the address.
pub async fn mind_races(p: &MindStores, unique: &str) {
    let base = 1_700_000_000_000;
    let limited = new_workspace(p, &format!("minds-limit-race-{unique}"), 2).await;
    assert_eq!(p.minds.insert_mind(&mind(&limited.id, "first", base), 2).await.unwrap(), MindInsert::Inserted);
    let mut tasks = Vec::new();
    for i in 0..8 {
        let store = p.minds.clone();
        let m = mind(&limited.id, &format!("contender-{i}"), base + 1 + i);
        tasks.push(tokio::spawn(async move { store.insert_mind(&m, 2).await }));
    }
    let (mut won, mut refused) = (0, 0);
    for t in tasks {
        match t.await.unwrap().unwrap() {
            MindInsert::Inserted => won += 1,
            MindInsert::LimitReached { used } => {
                assert_eq!(used, 2, "refused at the limit");
                refused += 1;
            }
        }
    }
    assert_eq!((won, refused), (1, 7), "exactly one create at the limit wins");
    assert_eq!(p.minds.mind_usage(&limited.id).await.unwrap().minds, 2, "never over the limit");

    let ws = new_workspace(p, &format!("minds-slug-race-{unique}"), 100).await;
    let mut tasks = Vec::new();
    for i in 0..8 {
        let store = p.minds.clone();
        let m = mind(&ws.id, "contested", base + i);
        tasks.push(tokio::spawn(async move { store.insert_mind(&m, 100).await }));
    }
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(MindInsert::Inserted) => won += 1,
            Err(StoreError::Conflict("slug")) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(won, 1, "exactly one create of a contested slug wins");

    let target = mind(&ws.id, "edited", base);
    p.minds.insert_mind(&target, 100).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..8 {
        let store = p.minds.clone();
        let mut m = next(&target);
        m.temperature = Temperature::parse(f64::from(i) / 4.0).unwrap();
        tasks.push(tokio::spawn(async move { store.update_mind(&m).await.unwrap() }));
    }
    let mut done = 0;
    for t in tasks {
        match t.await.unwrap() {
            RevisedWrite::Done => done += 1,
            RevisedWrite::Stale => {}
            RevisedWrite::NotFound => panic!("the Mind exists"),
        }
    }
    assert_eq!(done, 1, "exactly one update of one revision lands");
    assert_eq!(p.minds.get_mind(&ws.id, &target.id).await.unwrap().unwrap().revision, 1);

    let slug = public_slug("famous", unique);
    let mut contenders = Vec::new();
    for i in 0..4 {
        let owner = new_workspace(p, &format!("minds-publish-race-{i}-{unique}"), 10).await;
        let m = mind(&owner.id, &slug, base);
        p.minds.insert_mind(&m, 10).await.unwrap();
        contenders.push(m);
    }
    let mut tasks = Vec::new();
    for m in contenders {
        let store = p.minds.clone();
        let mut m = next(&m);
        m.is_published = true;
        tasks.push(tokio::spawn(async move { store.update_mind(&m).await }));
    }
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(RevisedWrite::Done) => won += 1,
            Err(StoreError::Conflict("public_slug")) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(won, 1, "exactly one Mind gets a contested public address");
}

fn mind_source(m: &Mind, spec: SourceSpec, created_ms: i64) -> KnowledgeSource {
    KnowledgeSource {
        id: SourceId::generate(),
        workspace_id: m.workspace_id.clone(),
        owner: SourceOwner::Mind(m.id.clone()),
        name: "s".into(),
        status: SourceStatus::Pending,
        size_bytes: 10,
        spec,
        created_at: Timestamp::from_millis(created_ms),
        updated_at: Timestamp::from_millis(created_ms),
        processed_at: None,
        chunk_count: 0,
        error: None,
        content_hash: None,
        progress: None,
        generation: 0,
        metadata: Default::default(),
    }
}

fn text(m: &Mind, created_ms: i64) -> KnowledgeSource {
    mind_source(m, SourceSpec::Text { content: "0123456789".into() }, created_ms)
}

async fn counts(p: &MindStores, m: &Mind) -> MindSourceCounts {
    p.minds.get_mind(&m.workspace_id, &m.id).await.unwrap().expect("the Mind").sources
}

fn lease() -> crate::ports::Lease {
    crate::ports::Lease {
        owner: "conformance".into(),
        until: Timestamp::from_millis(Timestamp::now().millis() + 60_000),
    }
}

/// Mind knowledge sources (docs/api.md §9): the workspace's `sourcesLimit` and the Mind's
/// `sourceLimit` checked at insert, the Mind's counts by status kept exact through every
/// transition (including `transcribing`), podcast and document records round-tripping, and
/// a Mind's delete taking its sources with it.
pub async fn mind_sources(p: &MindStores, unique: &str) {
    let ws = new_workspace(p, &format!("mind-sources-{unique}"), 10).await;
    let (m1, m2) = (mind(&ws.id, "one", 1), mind(&ws.id, "two", 2));
    for m in [&m1, &m2] {
        assert_eq!(p.minds.insert_mind(m, 10).await.unwrap(), MindInsert::Inserted);
    }
    let s = &p.sources;
    let limits = InsertLimits { storage_quota: u64::MAX, workspace_sources: 3, mind_sources: 2 };
    let doc = mind_source(
        &m1,
        SourceSpec::File(StoredFile {
            file_name: "a.pdf".into(),
            mime_type: "application/pdf".into(),
            kind: DocumentKind::Pdf,
            blob_key: format!("{}/{}/upl_1/a.pdf", ws.id, m1.id),
            file_url: "https://cdn.example/a.pdf".into(),
            size_bytes: 10,
        }),
        10,
    );
    let a = text(&m1, 11);
    let podcast = mind_source(
        &m2,
        SourceSpec::Podcast(StoredAudio {
            file_name: "talk.mp3".into(),
            mime_type: "audio/mpeg".into(),
            format: AudioFormat::Mp3,
            blob_key: format!("{}/{}/upl_2/talk.mp3", ws.id, m2.id),
            file_url: "https://cdn.example/talk.mp3".into(),
            size_bytes: 10,
        }),
        12,
    );
    assert_eq!(s.insert_source(&doc, &limits).await.unwrap(), Inserted::Done);
    assert_eq!(s.insert_source(&a, &limits).await.unwrap(), Inserted::Done);
    assert_eq!(
        s.insert_source(&text(&m1, 13), &limits).await.unwrap(),
        Inserted::LimitReached(CountLimit::Mind { used: 2, limit: 2 }),
        "the Mind's sourceLimit"
    );
    assert_eq!(s.insert_source(&podcast, &limits).await.unwrap(), Inserted::Done);
    assert_eq!(
        s.insert_source(&text(&m2, 14), &limits).await.unwrap(),
        Inserted::LimitReached(CountLimit::Workspace { used: 3, limit: 3 }),
        "the workspace's sourcesLimit"
    );
    let mut orphan = text(&m1, 15);
    orphan.owner = SourceOwner::Mind(MindId::generate());
    assert_eq!(s.insert_source(&orphan, &limits).await.unwrap(), Inserted::OwnerNotFound, "unknown Mind");
    assert_eq!(s.get_source(&ws.id, &podcast.id).await.unwrap().as_ref(), Some(&podcast), "podcast round trip");
    assert_eq!(s.get_source(&ws.id, &doc.id).await.unwrap().as_ref(), Some(&doc), "document round trip");
    assert_eq!(counts(p, &m1).await, MindSourceCounts { pending: 2, ..Default::default() });
    assert_eq!(p.minds.mind_usage(&ws.id).await.unwrap(), MindUsage { minds: 2, sources: 3 });
    let m1_owner = SourceOwner::Mind(m1.id.clone());
    let page = s.list_sources(&ws.id, &m1_owner, SourceFilter::default(), PageRequest::default()).await.unwrap();
    assert_eq!(page.items.iter().map(|s| s.id.clone()).collect::<Vec<_>>(), vec![a.id.clone(), doc.id.clone()]);

    // pending → processing → transcribing → processing → ready, counted at every step.
    let Guarded::Done(run) = s.begin_processing(&ws.id, &a.id, &lease(), Timestamp::now()).await.unwrap() else {
        panic!("begin_processing")
    };
    assert_eq!(counts(p, &m1).await, MindSourceCounts { pending: 1, processing: 1, ..Default::default() });
    let transcribing = Progress::new("transcribing", 0, 1);
    assert!(s.set_running_status(&a.id, run.generation, SourceStatus::Transcribing, &transcribing).await.unwrap());
    let now = s.get_source(&ws.id, &a.id).await.unwrap().unwrap();
    assert_eq!((now.status, now.progress), (SourceStatus::Transcribing, Some(transcribing.clone())));
    assert_eq!(counts(p, &m1).await, MindSourceCounts { pending: 1, transcribing: 1, ..Default::default() });
    let only = SourceFilter { status: Some(SourceStatus::Transcribing), source_type: None };
    assert_eq!(s.list_sources(&ws.id, &m1_owner, only, PageRequest::default()).await.unwrap().total, 1);
    assert!(s.set_progress(&a.id, run.generation, &Progress::new("transcribing", 1, 2)).await.unwrap());
    assert!(
        !s.set_running_status(&a.id, run.generation + 1, SourceStatus::Processing, &transcribing).await.unwrap(),
        "another run's status change is refused"
    );
    let settled = [SourceStatus::Pending, SourceStatus::Ready, SourceStatus::Error];
    assert_eq!(
        s.delete_source(&ws.id, &a.id, &settled).await.unwrap(),
        Guarded::WrongStatus(SourceStatus::Transcribing),
        "not deleted while transcribing"
    );
    assert_eq!(
        s.begin_processing(&ws.id, &a.id, &lease(), Timestamp::now()).await.unwrap(),
        Guarded::WrongStatus(SourceStatus::Transcribing),
        "not restarted while transcribing"
    );
    let stale = s.stale_runs(Timestamp::now(), Some("someone-else")).await.unwrap();
    assert!(stale.iter().any(|r| r.source_id == a.id), "a transcribing run can be taken over");
    let chunking = Progress::new("chunking", 0, 1);
    assert!(s.set_running_status(&a.id, run.generation, SourceStatus::Processing, &chunking).await.unwrap());
    let ready = Finish::Ready {
        chunk_count: 4,
        size_bytes: None,
        content_hash: "h".into(),
        pages_crawled: None,
        refreshed_at: None,
    };
    let done = s.finish_processing(&a.id, run.generation, &ready, Timestamp::now()).await.unwrap().unwrap();
    assert_eq!((done.status, done.chunk_count), (SourceStatus::Ready, 4));
    assert_eq!(counts(p, &m1).await, MindSourceCounts { pending: 1, ready: 1, ..Default::default() });

    // A run that ends from `transcribing` (the transcriber failed) is counted as failed.
    let Guarded::Done(run) = s.begin_processing(&ws.id, &doc.id, &lease(), Timestamp::now()).await.unwrap() else {
        panic!("begin_processing")
    };
    assert!(s.set_running_status(&doc.id, run.generation, SourceStatus::Transcribing, &transcribing).await.unwrap());
    let failed = Finish::Error { message: "no transcriber".into() };
    let ended = s.finish_processing(&doc.id, run.generation, &failed, Timestamp::now()).await.unwrap().unwrap();
    assert_eq!((ended.status, ended.error.as_deref()), (SourceStatus::Error, Some("no transcriber")));
    assert_eq!(counts(p, &m1).await, MindSourceCounts { ready: 1, failed: 1, ..Default::default() });

    let stats = s.source_stats(&ws.id, &m1_owner).await.unwrap();
    assert_eq!((stats.total_sources, stats.total_chunks, stats.total_size_bytes), (2, 4, 20));
    assert_eq!(stats.by_type.get(SourceType::File.as_str()), Some(&1));
    assert_eq!(s.file_blob_keys(&ws.id, &m1_owner).await.unwrap(), vec![format!("{}/{}/upl_1/a.pdf", ws.id, m1.id)]);

    // Deleting frees the Mind's and the workspace's counts.
    assert!(matches!(s.delete_source(&ws.id, &doc.id, &settled).await.unwrap(), Guarded::Done(_)));
    assert_eq!(counts(p, &m1).await, MindSourceCounts { ready: 1, ..Default::default() });
    assert_eq!(p.minds.mind_usage(&ws.id).await.unwrap().sources, 2);
    assert_eq!(s.insert_source(&text(&m1, 16), &limits).await.unwrap(), Inserted::Done, "freed");

    // A Mind's delete takes its sources, reports their files, and frees the workspace count.
    let removal = p.minds.delete_mind(&ws.id, &m2.id).await.unwrap().expect("deleted");
    assert!(removal.file_keys.contains(&format!("{}/{}/upl_2/talk.mp3", ws.id, m2.id)), "{removal:?}");
    assert_eq!(s.get_source(&ws.id, &podcast.id).await.unwrap(), None, "its sources are gone");
    assert_eq!(p.minds.mind_usage(&ws.id).await.unwrap(), MindUsage { minds: 1, sources: 2 });
    let m2_owner = SourceOwner::Mind(m2.id.clone());
    assert_eq!(
        s.list_sources(&ws.id, &m2_owner, SourceFilter::default(), PageRequest::default()).await.unwrap().total,
        0
    );
    assert_eq!(
        s.insert_source(&text(&m2, 17), &limits).await.unwrap(),
        Inserted::OwnerNotFound,
        "no sources for a deleted Mind"
    );

    // Concurrent inserts at the Mind's limit: exactly as many win as the limit leaves room for.
    let racing = mind(&ws.id, "race", 3);
    p.minds.insert_mind(&racing, 10).await.unwrap();
    let roomy = InsertLimits { storage_quota: u64::MAX, workspace_sources: 1_000, mind_sources: 3 };
    let mut tasks = Vec::new();
    for i in 0..8 {
        let (store, src) = (p.sources.clone(), text(&racing, 100 + i));
        tasks.push(tokio::spawn(async move { store.insert_source(&src, &roomy).await }));
    }
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap().unwrap() {
            Inserted::Done => won += 1,
            Inserted::LimitReached(CountLimit::Mind { limit: 3, .. }) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(won, 3, "never over the Mind's sourceLimit");
    assert_eq!(counts(p, &racing).await.total(), 3);
}
