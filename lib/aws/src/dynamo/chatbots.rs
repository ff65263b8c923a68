//! Chatbots on the table: one item in the workspace partition, a slug guard, and the
//! workspace's `chatbots` counter, written together.

use super::keys::{COUNTERS_SK, chatbot_sk, slug_sk, ws_pk};
use super::workspaces::{delete_guard, exists, guard, put_new};
use super::{
    DynamoStore, Expr, GSI1, Item, MAX_ATTEMPTS, TxFailure, TxWrite, backoff, gave_up, get_i, get_s, get_u, key,
    malformed, n, newest_first_key, req_s, s,
};
use async_trait::async_trait;
use lore_app::ports::{ChatbotStore, StoreError, StoreResult};
use lore_domain::Timestamp;
use lore_domain::chatbot::{Chatbot, ChatbotName};
use lore_domain::id::{ChatbotId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::slug::Slug;

fn chatbots_of(ws: &WorkspaceId) -> String {
    format!("CBS#{ws}")
}

fn chatbot_item(c: &Chatbot) -> Item {
    let mut item = key(ws_pk(&c.workspace_id), chatbot_sk(&c.id));
    item.extend([
        ("id".into(), s(c.id.as_str())),
        ("ws".into(), s(c.workspace_id.as_str())),
        ("name".into(), s(c.name.as_str())),
        ("slug".into(), s(c.slug.as_str())),
        ("descriptor".into(), s(&c.descriptor)),
        ("createdAt".into(), n(c.created_at.millis())),
        ("updatedAt".into(), n(c.updated_at.millis())),
        ("sourceCount".into(), n(c.source_count)),
        ("conversationCount".into(), n(c.conversation_count)),
        ("chunkCount".into(), n(0)),
        ("sizeBytes".into(), n(0)),
        ("gsi1pk".into(), s(chatbots_of(&c.workspace_id))),
        ("gsi1sk".into(), s(newest_first_key(c.created_at.millis(), c.id.as_str()))),
    ]);
    item
}

pub(crate) fn chatbot_from(item: &Item) -> StoreResult<Chatbot> {
    let ms = |k: &str| get_i(item, k).map(Timestamp::from_millis).ok_or_else(|| malformed(k));
    Ok(Chatbot {
        id: ChatbotId::parse(req_s(item, "id")?).ok_or_else(|| malformed("chatbot id"))?,
        workspace_id: WorkspaceId::parse(req_s(item, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        name: ChatbotName::from_stored(req_s(item, "name")?.to_owned()),
        slug: Slug::from_stored(req_s(item, "slug")?.to_owned()),
        descriptor: get_s(item, "descriptor").unwrap_or_default().to_owned(),
        created_at: ms("createdAt")?,
        updated_at: ms("updatedAt")?,
        source_count: get_u(item, "sourceCount"),
        conversation_count: get_u(item, "conversationCount"),
    })
}

#[async_trait]
impl ChatbotStore for DynamoStore {
    async fn insert_chatbot(&self, c: &Chatbot) -> StoreResult<()> {
        for attempt in 0..MAX_ATTEMPTS {
            let mut expr = Expr::new();
            let update = format!("ADD {} {}", expr.a("chatbots"), expr.v("one", n(1)));
            let cond = exists(&mut expr);
            let writes = vec![
                put_new(chatbot_item(c)),
                put_new(guard(ws_pk(&c.workspace_id), &slug_sk(c.slug.as_str()), "cb", c.id.as_str())),
                TxWrite::Update { key: key(ws_pk(&c.workspace_id), COUNTERS_SK), update, cond: Some(cond), expr },
            ];
            match self.transact(writes).await {
                Ok(()) => return Ok(()),
                Err(TxFailure::Condition(failed)) if failed.contains(&1) => return Err(StoreError::Conflict("slug")),
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

    async fn update_chatbot(&self, c: &Chatbot) -> StoreResult<bool> {
        let pk = ws_pk(&c.workspace_id);
        let sk = chatbot_sk(&c.id);
        for attempt in 0..MAX_ATTEMPTS {
            let Some(current) = self.get(&pk, &sk).await? else { return Ok(false) };
            let old_slug = req_s(&current, "slug")?.to_owned();
            let mut expr = Expr::new();
            let sets = [
                ("name", s(c.name.as_str())),
                ("slug", s(c.slug.as_str())),
                ("descriptor", s(&c.descriptor)),
                ("updatedAt", n(c.updated_at.millis())),
            ];
            let parts: Vec<String> =
                sets.into_iter().map(|(a, v)| format!("{} = {}", expr.a(a), expr.v(a, v))).collect();
            let update = format!("SET {}", parts.join(", "));
            if old_slug == c.slug.as_str() {
                let cond =
                    format!("{} AND {} = {}", exists(&mut expr), expr.a("slug"), expr.v("oldSlug", s(&old_slug)));
                match self.update_if(key(&pk, &sk), update, cond, expr).await? {
                    Some(_) => return Ok(true),
                    None => {
                        backoff(attempt).await;
                        continue;
                    }
                }
            }
            let cond = format!("{} = {}", expr.a("slug"), expr.v("oldSlug", s(&old_slug)));
            let writes = vec![
                TxWrite::Update { key: key(&pk, &sk), update, cond: Some(cond), expr },
                delete_guard(pk.clone(), &slug_sk(&old_slug), "cb", c.id.as_str()),
                put_new(guard(pk.clone(), &slug_sk(c.slug.as_str()), "cb", c.id.as_str())),
            ];
            match self.transact(writes).await {
                Ok(()) => return Ok(true),
                Err(TxFailure::Condition(failed)) if failed.contains(&2) => return Err(StoreError::Conflict("slug")),
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("update_chatbot"))
    }

    async fn delete_chatbot(&self, ws: &WorkspaceId, id: &ChatbotId) -> StoreResult<bool> {
        self.delete_chatbot_and_sources(ws, id).await
    }
}
