//! Chatbots on the table: one item in the workspace partition, a slug guard, and the
//! workspace's `chatbots` counter, written together. While a chatbot is published, a global
//! guard `PUBCB#<slug>` names it: one published chatbot per public address `/c/{slug}`, across
//! every workspace (as `PUBSLUG#` does for Minds). Its public settings are the attributes of
//! `lore_records::AssistantRecord`; `isPublished` is its own attribute.

use super::audit::audit_put;
use super::document;
use super::keys::{COUNTERS_SK, chatbot_sk, slug_sk, ws_pk};
use super::workspaces::{delete_guard, exists, guard, put_new};
use super::{
    DynamoStore, Expr, GSI1, Item, MAX_ATTEMPTS, SettingsWrite, TxFailure, TxWrite, backoff, gave_up, get_i, get_s,
    get_u, key, malformed, n, newest_first_key, req_s, s,
};
use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;
use lore_app::ports::{ChatbotStore, RevisedWrite, StoreError, StoreResult};
use lore_domain::Timestamp;
use lore_domain::audit::AuditEntry;
use lore_domain::chatbot::{Chatbot, ChatbotName};
use lore_domain::id::{ChatbotId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::slug::Slug;
use lore_records::AssistantRecord;

fn chatbots_of(ws: &WorkspaceId) -> String {
    format!("CBS#{ws}")
}

pub(crate) fn public_chatbot_pk(slug: &str) -> String {
    format!("PUBCB#{slug}")
}
pub(crate) const PUBLIC_CHATBOT_SK: &str = "PUBCB";

fn public_guard(c: &Chatbot) -> Item {
    let mut item = key(public_chatbot_pk(c.slug.as_str()), PUBLIC_CHATBOT_SK);
    item.extend([("cb".into(), s(c.id.as_str())), ("ws".into(), s(c.workspace_id.as_str()))]);
    item
}

/// The public settings, the publication and the names: what an update replaces. `None` is an
/// unset setting (no attribute).
fn settings(c: &Chatbot) -> Vec<(String, Option<AttributeValue>)> {
    let mut attributes = document::fields(&AssistantRecord::of(&c.settings));
    attributes.extend([
        ("name".to_owned(), Some(s(c.name.as_str()))),
        ("slug".to_owned(), Some(s(c.slug.as_str()))),
        ("descriptor".to_owned(), Some(s(&c.descriptor))),
        ("isPublished".to_owned(), Some(AttributeValue::Bool(c.is_published))),
        ("updatedAt".to_owned(), Some(n(c.updated_at.millis()))),
    ]);
    attributes
}

fn chatbot_item(c: &Chatbot) -> Item {
    let mut item = key(ws_pk(&c.workspace_id), chatbot_sk(&c.id));
    item.extend([
        ("id".into(), s(c.id.as_str())),
        ("ws".into(), s(c.workspace_id.as_str())),
        ("createdAt".into(), n(c.created_at.millis())),
        ("rev".into(), n(c.revision)),
        ("sourceCount".into(), n(c.source_count)),
        ("conversationCount".into(), n(c.conversation_count)),
        ("chunkCount".into(), n(0)),
        ("sizeBytes".into(), n(0)),
        ("gsi1pk".into(), s(chatbots_of(&c.workspace_id))),
        ("gsi1sk".into(), s(newest_first_key(c.created_at.millis(), c.id.as_str()))),
    ]);
    item.extend(settings(c).into_iter().filter_map(|(k, v)| Some((k, v?))));
    item
}

pub(crate) fn published(item: &Item) -> bool {
    item.get("isPublished").and_then(|v| v.as_bool().ok()).copied().unwrap_or(false)
}

pub(crate) fn chatbot_from(item: &Item) -> StoreResult<Chatbot> {
    let ms = |k: &str| get_i(item, k).map(Timestamp::from_millis).ok_or_else(|| malformed(k));
    Ok(Chatbot {
        id: ChatbotId::parse(req_s(item, "id")?).ok_or_else(|| malformed("chatbot id"))?,
        workspace_id: WorkspaceId::parse(req_s(item, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        name: ChatbotName::from_stored(req_s(item, "name")?.to_owned()),
        slug: Slug::from_stored(req_s(item, "slug")?.to_owned()),
        descriptor: get_s(item, "descriptor").unwrap_or_default().to_owned(),
        is_published: published(item),
        settings: document::read::<AssistantRecord>(item, "chatbot settings")?.into_settings(),
        created_at: ms("createdAt")?,
        updated_at: ms("updatedAt")?,
        revision: get_u(item, "rev"),
        source_count: get_u(item, "sourceCount"),
        conversation_count: get_u(item, "conversationCount"),
    })
}

#[async_trait]
impl ChatbotStore for DynamoStore {
    async fn insert_chatbot_recorded(&self, c: &Chatbot, audit: Option<&AuditEntry>) -> StoreResult<()> {
        for attempt in 0..MAX_ATTEMPTS {
            let mut expr = Expr::new();
            let update = format!("ADD {} {}", expr.a("chatbots"), expr.v("one", n(1)));
            let cond = exists(&mut expr);
            let mut writes = vec![
                put_new(chatbot_item(c)),
                put_new(guard(ws_pk(&c.workspace_id), &slug_sk(c.slug.as_str()), "cb", c.id.as_str())),
                TxWrite::Update { key: key(ws_pk(&c.workspace_id), COUNTERS_SK), update, cond: Some(cond), expr },
            ];
            if c.is_published {
                writes.push(put_new(public_guard(c)));
            }
            // Last, so the positions the failures are told by stay as they are.
            writes.extend(audit.map(audit_put));
            match self.transact(writes).await {
                Ok(()) => return Ok(()),
                Err(TxFailure::Condition(failed)) if failed.contains(&1) => return Err(StoreError::Conflict("slug")),
                Err(TxFailure::Condition(failed)) if failed.contains(&3) => {
                    return Err(StoreError::Conflict("public_slug"));
                }
                Err(TxFailure::Condition(failed)) if failed.contains(&2) => {
                    return Err(StoreError::Unavailable(format!("workspace {} does not exist", c.workspace_id)));
                }
                Err(TxFailure::Condition(_)) => {
                    return Err(StoreError::Unavailable(format!("chatbot {} exists", c.id)));
                }
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("insert_chatbot"))
    }

    async fn get_chatbot(&self, ws: &WorkspaceId, id: &ChatbotId) -> StoreResult<Option<Chatbot>> {
        self.get(&ws_pk(ws), &chatbot_sk(id)).await?.as_ref().map(chatbot_from).transpose()
    }

    async fn list_chatbots(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Chatbot>> {
        let total = self.counters(ws).await?.map_or(0, |c| get_u(&c, "chatbots"));
        let keys = self
            .query_index(GSI1, "gsi1pk", &chatbots_of(ws), true, None, page.offset(), Some(u64::from(page.limit())))
            .await?;
        let items = self.batch_get(keys).await?.iter().map(chatbot_from).collect::<StoreResult<Vec<_>>>()?;
        Ok(Page { items, total, request: page })
    }

    async fn update_chatbot_recorded(&self, c: &Chatbot, audit: Option<&AuditEntry>) -> StoreResult<RevisedWrite> {
        let pk = ws_pk(&c.workspace_id);
        let sk = chatbot_sk(&c.id);
        for attempt in 0..MAX_ATTEMPTS {
            let Some(current) = self.get(&pk, &sk).await? else { return Ok(RevisedWrite::NotFound) };
            let read_rev = get_u(&current, "rev");
            if read_rev + 1 != c.revision {
                return Ok(RevisedWrite::Stale);
            }
            let old_slug = req_s(&current, "slug")?.to_owned();
            let was_published = published(&current);
            let mut expr = Expr::new();
            let mut attributes = settings(c);
            attributes.push(("rev".to_owned(), Some(n(c.revision))));
            let update = expr.set_or_remove(attributes);
            // The write holds only if no other settings write came since this read (the guards
            // below were chosen from it); a chatbot written before revisions has none (0).
            let unchanged = if read_rev == 0 {
                format!("(attribute_not_exists({r}) OR {r} = {z})", r = expr.a("rev"), z = expr.v("readRev", n(0)))
            } else {
                format!("{} = {}", expr.a("rev"), expr.v("readRev", n(read_rev)))
            };
            let cond = format!("{} AND {unchanged}", exists(&mut expr));
            let mut writes = vec![TxWrite::Update { key: key(&pk, &sk), update, cond: Some(cond), expr }];
            let (mut slug_taken, mut address_taken) = (None, None);
            if old_slug != c.slug.as_str() {
                writes.push(delete_guard(pk.clone(), &slug_sk(&old_slug), "cb", c.id.as_str()));
                slug_taken = Some(writes.len());
                writes.push(put_new(guard(pk.clone(), &slug_sk(c.slug.as_str()), "cb", c.id.as_str())));
            }
            let old_address = was_published.then_some(old_slug.as_str());
            let new_address = c.is_published.then_some(c.slug.as_str());
            if old_address != new_address {
                if let Some(old) = old_address {
                    writes.push(delete_guard(public_chatbot_pk(old), PUBLIC_CHATBOT_SK, "cb", c.id.as_str()));
                }
                if c.is_published {
                    address_taken = Some(writes.len());
                    writes.push(put_new(public_guard(c)));
                }
            }
            writes.extend(audit.map(audit_put));
            if let Some(done) =
                self.write_settings(SettingsWrite { writes, slug_taken, address_taken }, attempt).await?
            {
                return Ok(done);
            }
        }
        Err(gave_up("update_chatbot"))
    }

    async fn find_published_chatbot(&self, slug: &str) -> StoreResult<Option<Chatbot>> {
        let Some(g) = self.get(&public_chatbot_pk(slug), PUBLIC_CHATBOT_SK).await? else { return Ok(None) };
        let (Some(ws), Some(id)) =
            (get_s(&g, "ws").and_then(WorkspaceId::parse), get_s(&g, "cb").and_then(ChatbotId::parse))
        else {
            return Err(malformed("public chatbot guard"));
        };
        // The guard and the chatbot change in one transaction; checked anyway.
        Ok(self.get_chatbot(&ws, &id).await?.filter(|c| c.is_published && c.slug.as_str() == slug))
    }

    async fn delete_chatbot_recorded(
        &self,
        ws: &WorkspaceId,
        id: &ChatbotId,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<bool> {
        self.delete_chatbot_and_sources(ws, id, audit).await
    }
}
