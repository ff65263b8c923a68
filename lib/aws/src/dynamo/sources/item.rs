//! A source as an item: the hand-kept keys, status and counters, and the stored shapes of
//! `lore-records` for its spec and progress.
//!
//! A text source's text is not on the source item but on an item of its own beside it
//! (`SRC#<id>` / `TEXT`, attribute `content`): the source item stays small, so the reads that
//! need only a source's name, type and metadata (a search's labels, listings by index) never
//! read or pay for the text. Items written before that hold `content` inline; they are read as
//! they are, and the next write of the source (or `lore migrate`) moves the text out.

use super::*;

/// A source as stored: the record plus what only the store keeps.
#[derive(Debug, Clone)]
pub(super) struct Stored {
    pub(super) source: KnowledgeSource,
    pub(super) attempts: u32,
    pub(super) lease: Option<Lease>,
    /// Bumped by every write that goes through a read; the condition of the next one.
    pub(super) rev: u64,
    /// The item read holds a text source's text inline (written before the text had its own
    /// item): the next write of the source moves it to the text item.
    pub(super) inline_text: bool,
}

impl Stored {
    /// A source never stored yet.
    pub(super) fn new(source: KnowledgeSource) -> Self {
        Self { source, attempts: 0, lease: None, rev: 1, inline_text: false }
    }
}

/// The attribute of the text (on the text item; inline on items written before it).
pub(super) const CONTENT: &str = "content";

/// A run's progress: the stored shape `ProgressRecord` as one map attribute.
pub(super) fn progress_value(p: &Progress) -> AttributeValue {
    AttributeValue::M(document::set_fields(&ProgressRecord::of(p)).collect())
}

pub(super) fn progress_from(v: &AttributeValue) -> Option<Progress> {
    document::read_value::<ProgressRecord>(v, "progress").ok().map(ProgressRecord::into_progress)
}

pub(super) fn queued() -> Progress {
    Progress::new("queued", 0, 0)
}

pub(super) fn source_item(st: &Stored) -> Item {
    let src = &st.source;
    let mut item = key(source_pk(&src.id), SOURCE_SK);
    let order = newest_first_key(src.created_at.millis(), src.id.as_str());
    item.extend([
        ("id".into(), s(src.id.as_str())),
        ("ws".into(), s(src.workspace_id.as_str())),
        ("owner".into(), s(src.owner.as_str())),
        ("srcType".into(), s(src.source_type().as_str())),
        ("name".into(), s(&src.name)),
        ("status".into(), s(src.status.as_str())),
        ("sizeBytes".into(), n(src.size_bytes)),
        ("chunkCount".into(), n(src.chunk_count)),
        ("generation".into(), n(src.generation)),
        ("attempts".into(), n(st.attempts)),
        ("createdAt".into(), n(src.created_at.millis())),
        ("updatedAt".into(), n(src.updated_at.millis())),
        ("rev".into(), n(st.rev)),
        ("gsi1pk".into(), s(sources_of(&src.owner))),
        ("gsi1sk".into(), s(&order)),
        ("gsi2pk".into(), s(sources_in_status(&src.owner, src.status))),
        ("gsi2sk".into(), s(order)),
    ]);
    let optional = [
        ("error", src.error.as_ref().map(s)),
        ("contentHash", src.content_hash.as_ref().map(s)),
        ("progress", src.progress.as_ref().map(progress_value)),
        ("processedAt", src.processed_at.map(|t| n(t.millis()))),
        // The stored shape is the metadata's own JSON (`Metadata`), as on SQLite.
        ("metadata", (!src.metadata.is_empty()).then(|| s(lore_records::to_json(&src.metadata)))),
    ];
    item.extend(optional.into_iter().filter_map(|(k, v)| Some((k.to_owned(), v?))));
    // The spec's fields (the stored shape `SourceSpecRecord`) are attributes of the item, but a
    // text source's text, which is on its own item ([`text_item`]).
    let mut spec = SourceSpecRecord::of(&src.spec);
    spec.content = None;
    item.extend(document::set_fields(&spec));
    // The refresh index holds exactly the settled url sources with a schedule.
    if let Some(due) = src.refresh_due_at() {
        item.extend([("refreshShard".into(), s(refresh_shard(&src.id))), ("refreshDue".into(), n(due.millis()))]);
    }
    // The lease index holds exactly the runs in progress (`processing` or `transcribing`).
    if src.status.is_running()
        && let Some(lease) = &st.lease
    {
        item.extend([
            ("leaseOwner".into(), s(&lease.owner)),
            ("leaseUntil".into(), n(lease.until.millis())),
            ("leaseShard".into(), s(lease_shard(&src.id))),
        ]);
    }
    item
}

/// The item holding a text source's text; `None` for the other types.
pub(super) fn text_item(src: &KnowledgeSource) -> Option<Item> {
    let SourceSpec::Text { content } = &src.spec else { return None };
    let mut item = key(source_pk(&src.id), TEXT_SK);
    item.extend([("ws".into(), s(src.workspace_id.as_str())), (CONTENT.into(), s(content))]);
    Some(item)
}

/// Whether an item is a text item (rather than a source item) of a source's partition.
pub(super) fn is_text_item(item: &Item) -> bool {
    get_s(item, "sk") == Some(TEXT_SK)
}

/// `st` with the text of its text item (read beside it), unless the source item held it inline.
pub(super) fn with_text(mut st: Stored, text: Option<&Item>) -> Stored {
    if let (SourceSpec::Text { content }, false, Some(t)) = (&mut st.source.spec, st.inline_text, text) {
        *content = get_s(t, CONTENT).unwrap_or_default().to_owned();
    }
    st
}

/// A source's metadata; an item without one has none.
pub(super) fn metadata_from(item: &Item) -> StoreResult<Metadata> {
    match get_s(item, "metadata") {
        Some(raw) => lore_records::from_json(raw, "source metadata").map_err(|e| malformed(&e.0)),
        None => Ok(Metadata::default()),
    }
}

/// The source of a source item. A text source's text is empty unless the item holds it inline
/// (the old shape): [`with_text`] adds the text item's.
pub(super) fn stored_from(item: &Item) -> StoreResult<Stored> {
    let t = SourceType::parse(req_s(item, "srcType")?).ok_or_else(|| malformed("source type"))?;
    let text = |k: &str| get_s(item, k).unwrap_or_default().to_owned();
    let ms = |k: &str| get_i(item, k).map(Timestamp::from_millis);
    let spec = document::read::<SourceSpecRecord>(item, "source spec")?.into_spec(t).map_err(|e| malformed(&e.0))?;
    let lease = match (get_s(item, "leaseOwner"), ms("leaseUntil")) {
        (Some(owner), Some(until)) => Some(Lease { owner: owner.to_owned(), until }),
        _ => None,
    };
    // Items written before Mind sources existed name their chatbot in `cb`.
    let owner = match get_s(item, "owner") {
        Some(o) => SourceOwner::parse(o),
        None => ChatbotId::parse(req_s(item, "cb")?).map(SourceOwner::Chatbot),
    };
    Ok(Stored {
        source: KnowledgeSource {
            id: SourceId::parse(req_s(item, "id")?).ok_or_else(|| malformed("source id"))?,
            workspace_id: WorkspaceId::parse(req_s(item, "ws")?).ok_or_else(|| malformed("workspace id"))?,
            owner: owner.ok_or_else(|| malformed("source owner"))?,
            name: text("name"),
            status: SourceStatus::parse(req_s(item, "status")?).ok_or_else(|| malformed("status"))?,
            spec,
            created_at: ms("createdAt").ok_or_else(|| malformed("createdAt"))?,
            updated_at: ms("updatedAt").ok_or_else(|| malformed("updatedAt"))?,
            processed_at: ms("processedAt"),
            chunk_count: get_u(item, "chunkCount"),
            size_bytes: get_u(item, "sizeBytes"),
            error: get_s(item, "error").map(str::to_owned),
            content_hash: get_s(item, "contentHash").map(str::to_owned),
            progress: item.get("progress").and_then(progress_from),
            generation: get_u(item, "generation"),
            metadata: metadata_from(item)?,
        },
        attempts: get_u(item, "attempts").min(u64::from(u32::MAX)) as u32,
        lease,
        rev: get_u(item, "rev"),
        inline_text: t == SourceType::Text && item.contains_key(CONTENT),
    })
}
