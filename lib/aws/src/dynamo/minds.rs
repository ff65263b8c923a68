//! Minds on the table (`MindStore`; `infra/dynamodb.md`, "Minds").
//!
//! A Mind lives in its workspace's partition (`WS#<ws>/MIND#<mind>`), next to a slug guard
//! (`WS#<ws>/MINDSLUG#<slug>`: one Mind per slug in the workspace) and, while it is published,
//! a global guard `PUBSLUG#<slug>` (one published Mind per public address `/m/{slug}`, across
//! every workspace). Every write is one `TransactWriteItems` of the Mind, the guards it takes or
//! releases and the workspace's `minds` counter; updates and deletes are conditioned on the
//! revision that was read.
//!
//! The Mind item also carries the counters of its knowledge sources, kept by the source store
//! (`sources/`) in the same transaction as every source write, exactly as on a chatbot's item:
//! `sourceCount`, `n_<status>_<type>`, `chunkCount`, `sizeBytes`. The Mind's counts by status
//! are the sums of its `n_<status>_*` cells; a source write never changes the Mind's `rev`, so
//! it never makes a settings update stale.

use super::audit::audit_put;
use super::document;
use super::keys::{COUNTERS_SK, mind_sk, ws_pk};
use super::sources::{MIND_SOURCES, count_in_status};
use super::{
    DynamoStore, Expr, GSI1, Item, MAX_ATTEMPTS, SettingsWrite, TxFailure, TxWrite, backoff, gave_up, get_i, get_s,
    get_u, key, malformed, n, newest_first_key, req_s, s,
};
use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;
use lore_app::ports::{MindInsert, MindRemoval, MindStore, MindUsage, RevisedWrite};
use lore_app::ports::{StoreError, StoreResult};
use lore_domain::Timestamp;
use lore_domain::audit::AuditEntry;
use lore_domain::id::{MindId, WorkspaceId};
use lore_domain::mind::{Mind, MindSourceCounts};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::slug::Slug;
use lore_domain::source::SourceStatus;
use lore_records::{MindKeys, MindSettingsRecord};

// ---- keys ------------------------------------------------------------------------------------

fn minds_of(ws: &WorkspaceId) -> String {
    format!("MINDS#{ws}")
}
fn mind_slug_sk(slug: &str) -> String {
    format!("MINDSLUG#{slug}")
}
fn public_slug_pk(slug: &str) -> String {
    format!("PUBSLUG#{slug}")
}
const PUBLIC_SLUG_SK: &str = "PUBSLUG";

/// The workspace counter cells (on `WS#<ws>/COUNTERS`).
const MINDS: &str = "minds";

// ---- items -----------------------------------------------------------------------------------

/// Every setting (the stored shape `MindSettingsRecord`), the slug, the publication and
/// `updatedAt`: `None` is an unset optional setting (no attribute).
fn settings(m: &Mind) -> Vec<(String, Option<AttributeValue>)> {
    let mut attributes = document::fields(&MindSettingsRecord::of(m));
    attributes.extend([
        ("slug".to_owned(), Some(s(m.slug.as_str()))),
        ("isPublished".to_owned(), Some(AttributeValue::Bool(m.is_published))),
        ("updatedAt".to_owned(), Some(n(m.updated_at.millis()))),
    ]);
    attributes
}

/// A new Mind: revision 0, no sources (no counter cells: absent is 0).
fn mind_item(m: &Mind) -> Item {
    let mut item = key(ws_pk(&m.workspace_id), mind_sk(&m.id));
    item.extend([
        ("gsi1pk".into(), s(minds_of(&m.workspace_id))),
        ("gsi1sk".into(), s(newest_first_key(m.created_at.millis(), m.id.as_str()))),
        ("id".into(), s(m.id.as_str())),
        ("ws".into(), s(m.workspace_id.as_str())),
        ("createdAt".into(), n(m.created_at.millis())),
        ("rev".into(), n(0)),
    ]);
    item.extend(settings(m).into_iter().filter_map(|(k, v)| Some((k, v?))));
    item
}

fn mind_from(i: &Item) -> StoreResult<Mind> {
    let ms = |k: &str| get_i(i, k).map(Timestamp::from_millis).ok_or_else(|| malformed(k));
    let keys = MindKeys {
        id: MindId::parse(req_s(i, "id")?).ok_or_else(|| malformed("mind id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        slug: Slug::from_stored(req_s(i, "slug")?.to_owned()),
        is_published: i
            .get("isPublished")
            .and_then(|v| v.as_bool().ok())
            .copied()
            .ok_or_else(|| malformed("isPublished"))?,
        created_at: ms("createdAt")?,
        updated_at: ms("updatedAt")?,
        revision: get_u(i, "rev"),
        sources: MindSourceCounts {
            pending: count_in_status(i, SourceStatus::Pending),
            processing: count_in_status(i, SourceStatus::Processing),
            transcribing: count_in_status(i, SourceStatus::Transcribing),
            ready: count_in_status(i, SourceStatus::Ready),
            failed: count_in_status(i, SourceStatus::Error),
        },
        conversation_count: get_u(i, "conversationCount"),
    };
    let settings: MindSettingsRecord = document::read(i, "mind settings")?;
    settings.into_mind(keys).map_err(|e| malformed(&e.0))
}

// ---- guards ----------------------------------------------------------------------------------

fn slug_guard(m: &Mind) -> Item {
    let mut item = key(ws_pk(&m.workspace_id), mind_slug_sk(m.slug.as_str()));
    item.insert("mind".into(), s(m.id.as_str()));
    item
}

fn public_guard(m: &Mind) -> Item {
    let mut item = key(public_slug_pk(m.slug.as_str()), PUBLIC_SLUG_SK);
    item.extend([("mind".into(), s(m.id.as_str())), ("ws".into(), s(m.workspace_id.as_str()))]);
    item
}

fn put_new(item: Item) -> TxWrite {
    let mut expr = Expr::new();
    let cond = format!("attribute_not_exists({})", expr.a("pk"));
    TxWrite::Put { item, cond: Some(cond), expr }
}

/// Deletes a guard when it is absent or still names `mind`.
fn release(pk: String, sk: &str, mind: &MindId) -> TxWrite {
    let mut expr = Expr::new();
    let cond =
        format!("attribute_not_exists({}) OR {} = {}", expr.a("pk"), expr.a("mind"), expr.v("mind", s(mind.as_str())));
    TxWrite::Delete { key: key(pk, sk), cond: Some(cond), expr }
}

/// The Mind's own condition: it exists at revision `rev`.
fn at_revision(expr: &mut Expr, rev: u64) -> String {
    format!("{} = {}", expr.a("rev"), expr.v("readRev", n(rev)))
}

// ---- the port --------------------------------------------------------------------------------

#[async_trait]
impl MindStore for DynamoStore {
    async fn insert_mind_recorded(
        &self,
        mind: &Mind,
        minds_limit: u32,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<MindInsert> {
        let pk = ws_pk(&mind.workspace_id);
        for attempt in 0..MAX_ATTEMPTS {
            // The count and the insert are one transaction: the counter's condition is the limit.
            let mut expr = Expr::new();
            let update = format!("ADD {} {}", expr.a(MINDS), expr.v("one", n(1)));
            let cond = format!(
                "attribute_exists({}) AND (attribute_not_exists({m}) OR {m} < {})",
                expr.a("pk"),
                expr.v("limit", n(minds_limit)),
                m = expr.a(MINDS),
            );
            let mut writes = vec![
                put_new(mind_item(mind)),
                put_new(slug_guard(mind)),
                TxWrite::Update { key: key(&pk, COUNTERS_SK), update, cond: Some(cond), expr },
            ];
            if mind.is_published {
                writes.push(put_new(public_guard(mind)));
            }
            // Last, so the positions the failures are told by stay as they are.
            writes.extend(audit.map(audit_put));
            let failed = match self.transact(writes).await {
                Ok(()) => return Ok(MindInsert::Inserted),
                Err(TxFailure::Conflict) => {
                    backoff(attempt).await;
                    continue;
                }
                Err(TxFailure::Store(e)) => return Err(e),
                Err(TxFailure::Condition(failed)) => failed,
            };
            // The limit comes first, as in the embedded store: read what is used now.
            let Some(counters) = self.counters(&mind.workspace_id).await? else {
                return Err(StoreError::Unavailable(format!("workspace {} does not exist", mind.workspace_id)));
            };
            let used = get_u(&counters, MINDS);
            if used >= u64::from(minds_limit) {
                return Ok(MindInsert::LimitReached { used });
            }
            if failed.contains(&1) {
                return Err(StoreError::Conflict("slug"));
            }
            if failed.contains(&3) {
                return Err(StoreError::Conflict("public_slug"));
            }
            if failed.contains(&0) {
                return Err(StoreError::Unavailable(format!("mind {} exists", mind.id)));
            }
            // The count was at the limit and dropped meanwhile: try again.
            backoff(attempt).await;
        }
        Err(gave_up("insert_mind"))
    }

    async fn get_mind(&self, ws: &WorkspaceId, id: &MindId) -> StoreResult<Option<Mind>> {
        self.get(&ws_pk(ws), &mind_sk(id)).await?.as_ref().map(mind_from).transpose()
    }

    async fn find_published_mind(&self, slug: &str) -> StoreResult<Option<Mind>> {
        let Some(g) = self.get(&public_slug_pk(slug), PUBLIC_SLUG_SK).await? else { return Ok(None) };
        let (Some(ws), Some(id)) =
            (get_s(&g, "ws").and_then(WorkspaceId::parse), get_s(&g, "mind").and_then(MindId::parse))
        else {
            return Err(malformed("public slug guard"));
        };
        // The guard and the Mind change in one transaction; checked anyway.
        Ok(self.get_mind(&ws, &id).await?.filter(|m| m.is_published && m.slug.as_str() == slug))
    }

    async fn list_minds(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Mind>> {
        let total = self.counters(ws).await?.map_or(0, |c| get_u(&c, MINDS));
        let items = self.listed(GSI1, &minds_of(ws), true, page.offset(), Some(u64::from(page.limit()))).await?;
        let items = items
            .iter()
            .filter(|i| get_s(i, "ws") == Some(ws.as_str()))
            .map(mind_from)
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(Page { items, total, request: page })
    }

    async fn mind_usage(&self, ws: &WorkspaceId) -> StoreResult<MindUsage> {
        let c = self.counters(ws).await?;
        Ok(c.map_or_else(MindUsage::default, |c| MindUsage {
            minds: get_u(&c, MINDS),
            sources: get_u(&c, MIND_SOURCES),
        }))
    }

    async fn update_mind_recorded(&self, mind: &Mind, audit: Option<&AuditEntry>) -> StoreResult<RevisedWrite> {
        let pk = ws_pk(&mind.workspace_id);
        let sk = mind_sk(&mind.id);
        for attempt in 0..MAX_ATTEMPTS {
            let Some(item) = self.get(&pk, &sk).await? else { return Ok(RevisedWrite::NotFound) };
            let stored = mind_from(&item)?;
            if stored.revision + 1 != mind.revision {
                return Ok(RevisedWrite::Stale);
            }
            let mut expr = Expr::new();
            let mut attributes = settings(mind);
            attributes.push(("rev".to_owned(), Some(n(mind.revision))));
            let update = expr.set_or_remove(attributes);
            let cond = at_revision(&mut expr, stored.revision);
            let mut writes = vec![TxWrite::Update { key: key(&pk, &sk), update, cond: Some(cond), expr }];
            let (mut slug_taken, mut address_taken) = (None, None);
            if stored.slug != mind.slug {
                writes.push(release(pk.clone(), &mind_slug_sk(stored.slug.as_str()), &mind.id));
                slug_taken = Some(writes.len());
                writes.push(put_new(slug_guard(mind)));
            }
            let address = |m: &Mind| m.is_published.then(|| m.slug.as_str().to_owned());
            if address(&stored) != address(mind) {
                if let Some(old) = address(&stored) {
                    writes.push(release(public_slug_pk(&old), PUBLIC_SLUG_SK, &mind.id));
                }
                if mind.is_published {
                    address_taken = Some(writes.len());
                    writes.push(put_new(public_guard(mind)));
                }
            }
            writes.extend(audit.map(audit_put));
            if let Some(done) =
                self.write_settings(SettingsWrite { writes, slug_taken, address_taken }, attempt).await?
            {
                return Ok(done);
            }
        }
        Err(gave_up("update_mind"))
    }

    async fn delete_mind_recorded(
        &self,
        ws: &WorkspaceId,
        id: &MindId,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Option<MindRemoval>> {
        let pk = ws_pk(ws);
        let sk = mind_sk(id);
        let mut file_keys = Vec::new();
        for attempt in 0..MAX_ATTEMPTS {
            // Its sources first, batch by batch (each with the Mind's and the workspace's counters
            // it changes); then the Mind, only while it counts none, so that a source inserted
            // meanwhile is never left behind (the insert needs the Mind: once it is gone, none can
            // be added).
            let (item, keys) = self.delete_mind_sources(ws, id).await?;
            file_keys.extend(keys);
            let Some(item) = item else {
                // Absent, or deleted meanwhile by a concurrent delete (which reports the rest):
                // what this call deleted is still reported, for the caller to clean up.
                return Ok((!file_keys.is_empty()).then_some(MindRemoval { file_keys }));
            };
            let stored = mind_from(&item)?;
            let mut expr = Expr::new();
            let cond = format!(
                "{} AND (attribute_not_exists({c}) OR {c} = {z})",
                at_revision(&mut expr, stored.revision),
                c = expr.a("sourceCount"),
                z = expr.v("zero", n(0)),
            );
            let mut e2 = Expr::new();
            let update = format!("ADD {} {}", e2.a(MINDS), e2.v("minus", n(-1)));
            let mut writes = vec![
                TxWrite::Delete { key: key(&pk, &sk), cond: Some(cond), expr },
                release(pk.clone(), &mind_slug_sk(stored.slug.as_str()), id),
                TxWrite::Update { key: key(&pk, COUNTERS_SK), update, cond: None, expr: e2 },
            ];
            if stored.is_published {
                writes.push(release(public_slug_pk(stored.slug.as_str()), PUBLIC_SLUG_SK, id));
            }
            // The entry goes with the Mind's own delete (its sources went before).
            writes.extend(audit.map(audit_put));
            match self.transact(writes).await {
                Ok(()) => return Ok(Some(MindRemoval { file_keys })),
                // Changed meanwhile (a setting, or a new source): read again.
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("delete_mind"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_domain::assistant::RawAssistantPatch;
    use lore_domain::mind::{Field, MindPatch, NewMind, RawMind};
    use std::collections::BTreeMap;

    #[test]
    fn every_setting_round_trips_through_the_item() {
        let raw = RawMind { name: Field::Value("Ada".into()), ..Default::default() };
        let mut m = Mind::create(
            WorkspaceId::generate(),
            NewMind::parse(&raw).unwrap(),
            Slug::parse("s", "ada").unwrap(),
            Timestamp::from_millis(1_700_000_000_000),
        );
        assert_eq!(mind_from(&mind_item(&m)).unwrap(), m, "defaults");
        let map = |pairs: &[(&str, &str)]| -> BTreeMap<String, Option<String>> {
            pairs.iter().map(|(k, v)| (k.to_string(), Some(v.to_string()))).collect()
        };
        let patch = RawMind {
            headline: Field::Value("Hi".into()),
            temperature: Field::Value(1.3),
            voice_speed: Field::Value(0.25),
            settings: RawAssistantPatch {
                suggested_questions: Field::Value(vec!["Why?".into()]),
                theme: Field::Value(map(&[("mode", "dark"), ("primaryColor", "#abc")])),
                ..Default::default()
            },
            social_links: Field::Value(map(&[("website", "https://a.example")])),
            is_published: Field::Value(true),
            ..Default::default()
        };
        MindPatch::parse(&patch).unwrap().apply(&mut m);
        assert_eq!(mind_from(&mind_item(&m)).unwrap(), m, "every setting");
        let unset: Vec<String> =
            settings(&Mind { headline: None, ..m }).into_iter().filter(|(_, v)| v.is_none()).map(|(k, _)| k).collect();
        assert!(unset.iter().any(|k| k == "headline"), "an unset setting has no attribute");
    }

    /// An item exactly as the writer of the version before the stored shapes put it (one
    /// attribute per setting, no attribute for an unset one) reads back unchanged.
    #[test]
    fn an_item_written_before_the_stored_shapes_reads_back() {
        let (ws, id) = (WorkspaceId::generate(), MindId::generate());
        let text = |v: &str| AttributeValue::S(v.to_owned());
        let num = |v: &str| AttributeValue::N(v.to_owned());
        let item: Item = [
            ("pk", text(&ws_pk(&ws))),
            ("sk", text(&mind_sk(&id))),
            ("id", text(id.as_str())),
            ("ws", text(ws.as_str())),
            ("name", text("Ada")),
            ("slug", text("ada")),
            ("headline", text("Engineer")),
            ("systemPrompt", text("Be brief.")),
            ("suggestedQuestions", AttributeValue::L(vec![text("Who are you?")])),
            ("expertiseAreas", AttributeValue::L(vec![])),
            ("isPublished", AttributeValue::Bool(true)),
            ("showSources", AttributeValue::Bool(false)),
            ("collectEmail", AttributeValue::Bool(true)),
            ("temperature", num("0.4")),
            ("theme", AttributeValue::M([("mode".to_owned(), text("dark"))].into())),
            ("socialLinks", AttributeValue::M(Default::default())),
            ("voiceEnabled", AttributeValue::Bool(true)),
            ("voiceId", text("nova")),
            ("voiceSpeed", num("1.25")),
            ("createdAt", num("10")),
            ("updatedAt", num("20")),
            ("rev", num("3")),
            ("n_ready_file", num("2")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let m = mind_from(&item).unwrap();
        assert_eq!((m.name.as_str(), m.slug.as_str(), m.revision, m.sources.ready), ("Ada", "ada", 3, 2));
        assert_eq!(m.headline.as_ref().map(|h| h.as_str()), Some("Engineer"));
        assert!(m.bio.is_none() && m.is_published && !m.settings.show_sources && m.settings.collect_email_before_chat);
        assert_eq!((m.temperature.value(), m.voice_id.as_str(), m.voice_speed.value()), (0.4, "nova", 1.25));
        assert_eq!(m.settings.theme.entries(), vec![("mode", "dark".to_owned())]);
        // Written again, it is the same item (the layout did not change).
        let again = mind_item(&m);
        for (k, v) in &item {
            if !["pk", "sk", "n_ready_file", "rev"].contains(&k.as_str()) {
                assert_eq!(again.get(k), Some(v), "{k}");
            }
        }
    }
}
