//! The counters a source write changes: its owner's (`sourceCount`, `n_<status>_<type>`,
//! `chunkCount`, `sizeBytes`) and its workspace's (`storageBytes`, `mindSources`), with the limits
//! they are conditioned on.

use super::*;

/// The owner-item attribute counting sources of one status and type.
pub(super) fn counter(status: SourceStatus, t: SourceType) -> String {
    format!("n_{}_{}", status.as_str(), t.as_str())
}

/// The owner-item attribute counting all its sources (what the Mind's limit compares).
pub(super) const SOURCE_COUNT: &str = "sourceCount";
/// The workspace-counters attribute counting the sources of all its Minds.
pub(crate) const MIND_SOURCES: &str = "mindSources";

/// How many of the owner's sources are in `status` (the sum of its cells over the types).
pub(crate) fn count_in_status(owner_item: &Item, status: SourceStatus) -> u64 {
    SourceType::ALL.iter().map(|t| get_u(owner_item, &counter(status, *t))).sum()
}

/// How many sources a delete of a chatbot or a Mind removes per transaction: with a text item
/// each and two counter items, within the 100-item limit of `TransactWriteItems`.
pub(super) const DELETE_BATCH: u64 = 49;

/// What one source adds to its owner's counters.
pub(super) fn contribution(st: &Stored) -> [(String, i64); 4] {
    let src = &st.source;
    [
        (SOURCE_COUNT.to_owned(), 1),
        (counter(src.status, src.source_type()), 1),
        ("chunkCount".to_owned(), src.chunk_count as i64),
        ("sizeBytes".to_owned(), src.size_bytes as i64),
    ]
}

/// The change of the owner's counters from `old` to `new` (either may be absent), zeros left
/// out.
pub(super) fn counter_delta<'a>(
    old: impl IntoIterator<Item = &'a Stored>,
    new: impl IntoIterator<Item = &'a Stored>,
) -> BTreeMap<String, i64> {
    let mut d = BTreeMap::new();
    for st in old {
        for (k, v) in contribution(st) {
            *d.entry(k).or_insert(0) -= v;
        }
    }
    for st in new {
        for (k, v) in contribution(st) {
            *d.entry(k).or_insert(0) += v;
        }
    }
    d.retain(|_, v| *v != 0);
    d
}

/// `ADD` of the deltas to the owner's item, which must exist; with `limit` (the insert of a
/// Mind's source), only while it has fewer than `limit` sources.
pub(super) fn owner_counters(
    ws: &WorkspaceId,
    owner: &SourceOwner,
    delta: &BTreeMap<String, i64>,
    limit: Option<u32>,
) -> TxWrite {
    let mut expr = Expr::new();
    let adds: Vec<String> = delta
        .iter()
        .enumerate()
        .map(|(i, (attr, v))| format!("{} {}", expr.a(attr), expr.v(&format!("d{i}"), n(v))))
        .collect();
    let mut cond = format!("attribute_exists({})", expr.a("pk"));
    if let Some(l) = limit {
        cond = format!(
            "{cond} AND (attribute_not_exists({c}) OR {c} < {l})",
            c = expr.a(SOURCE_COUNT),
            l = expr.v("limit", n(l))
        );
    }
    TxWrite::Update {
        key: key(ws_pk(ws), owner_sk(owner)),
        update: format!("ADD {}", adds.join(", ")),
        cond: Some(cond),
        expr,
    }
}

/// The change of the workspace's counters item: `bytes` of storage (refused when the result
/// would exceed `quota`) and `mind_sources` Mind sources (refused, with `limit`, when the
/// workspace already has `limit`). One write: a transaction touches an item once. `None` when
/// there is nothing to change or check.
pub(crate) fn workspace_counters(
    ws: &WorkspaceId,
    bytes: i64,
    quota: Option<u64>,
    mind_sources: i64,
    limit: Option<u32>,
) -> Option<TxWrite> {
    let mut expr = Expr::new();
    let mut adds = Vec::new();
    let mut conds = Vec::new();
    if bytes != 0 || quota.is_some() {
        adds.push(format!("{} {}", expr.a("storageBytes"), expr.v("bytes", n(bytes))));
    }
    if let Some(q) = quota {
        let max = i128::from(q) - i128::from(bytes);
        conds.push(format!(
            "(attribute_not_exists({a}) OR {a} <= {m})",
            a = expr.a("storageBytes"),
            m = expr.v("max", n(max.clamp(i128::from(i64::MIN), i128::from(i64::MAX))))
        ));
    }
    if mind_sources != 0 {
        adds.push(format!("{} {}", expr.a(MIND_SOURCES), expr.v("mindSources", n(mind_sources))));
    }
    if let Some(l) = limit {
        conds.push(format!(
            "(attribute_not_exists({c}) OR {c} < {l})",
            c = expr.a(MIND_SOURCES),
            l = expr.v("limit", n(l))
        ));
    }
    if adds.is_empty() {
        return None;
    }
    let cond = (!conds.is_empty()).then(|| conds.join(" AND "));
    Some(TxWrite::Update { key: key(ws_pk(ws), COUNTERS_SK), update: format!("ADD {}", adds.join(", ")), cond, expr })
}
