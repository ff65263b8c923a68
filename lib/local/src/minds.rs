//! The Mind port on [`SqliteStore`]: Mind records with their source counts (CONTRACT §8).

use crate::paging::paged;
use crate::sqlite::{SqliteStore, conflict_or_unavailable, unavailable};
use async_trait::async_trait;
use lore_app::ports::StoreResult;
use lore_app::ports::{MindInsert, MindRemoval, MindStore, MindUsage, MindWrite};
use lore_domain::Timestamp;
use lore_domain::id::{MindId, WorkspaceId};
use lore_domain::mind::{
    Bio, ExpertiseAreas, Headline, Mind, MindName, MindSourceCounts, SocialLinks, SuggestedQuestions, SystemPrompt,
    Temperature, Theme, VoiceId, VoiceSpeed, WebUrl, WelcomeMessage,
};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::slug::Slug;
use rusqlite::{OptionalExtension, Row, params};
use std::collections::BTreeMap;

/// The Mind's columns, then its source counts by status, read from its sources in the same
/// statement (index `sources_of_minds`), so they are exact by construction.
const MIND_COLS: &str = "id, workspace_id, name, slug, headline, bio, avatar_url, system_prompt, welcome_message, \
     suggested_questions, expertise_areas, is_published, show_sources, collect_email_before_chat, temperature, theme, \
     social_links, voice_enabled, voice_id, voice_speed, created_at, updated_at, revision, \
     (SELECT COUNT(*) FROM sources s WHERE s.mind_id = minds.id AND s.status = 'pending'), \
     (SELECT COUNT(*) FROM sources s WHERE s.mind_id = minds.id AND s.status = 'processing'), \
     (SELECT COUNT(*) FROM sources s WHERE s.mind_id = minds.id AND s.status = 'transcribing'), \
     (SELECT COUNT(*) FROM sources s WHERE s.mind_id = minds.id AND s.status = 'ready'), \
     (SELECT COUNT(*) FROM sources s WHERE s.mind_id = minds.id AND s.status = 'error')";

/// Unique-index names in SQLite's messages, to the conflict each means. The workspace rule
/// comes first: its message contains the other's column too.
const SLUG_TAKEN: &[(&str, &str)] = &[("minds.workspace_id, minds.slug", "slug"), ("minds.slug", "public_slug")];

fn malformed(what: &str) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(format!("malformed stored {what}"))
}

fn json_list(items: &[String]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".into())
}

fn json_object(entries: Vec<(&'static str, String)>) -> Option<String> {
    if entries.is_empty() {
        return None;
    }
    let map: BTreeMap<&str, String> = entries.into_iter().collect();
    serde_json::to_string(&map).ok()
}

fn list_from(s: String, what: &str) -> rusqlite::Result<Vec<String>> {
    serde_json::from_str(&s).map_err(|_| malformed(what))
}

fn object_from(s: Option<String>, what: &str) -> rusqlite::Result<BTreeMap<String, String>> {
    match s {
        None => Ok(BTreeMap::new()),
        Some(s) => serde_json::from_str(&s).map_err(|_| malformed(what)),
    }
}

fn count(r: &Row<'_>, at: usize) -> rusqlite::Result<u64> {
    Ok(r.get::<_, i64>(at)?.max(0) as u64)
}

fn mind_from(r: &Row<'_>) -> rusqlite::Result<Mind> {
    let text = |at: usize| r.get::<_, Option<String>>(at);
    let theme = object_from(text(15)?, "theme")?;
    let links = object_from(text(16)?, "social links")?;
    Ok(Mind {
        id: MindId::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("mind id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| malformed("workspace id"))?,
        name: MindName::from_stored(r.get(2)?),
        slug: Slug::from_stored(r.get(3)?),
        headline: text(4)?.map(Headline::from_stored),
        bio: text(5)?.map(Bio::from_stored),
        avatar_url: text(6)?.map(WebUrl::from_stored),
        system_prompt: text(7)?.map(SystemPrompt::from_stored),
        welcome_message: text(8)?.map(WelcomeMessage::from_stored),
        suggested_questions: SuggestedQuestions::from_stored(list_from(r.get(9)?, "suggested questions")?),
        expertise_areas: ExpertiseAreas::from_stored(list_from(r.get(10)?, "expertise areas")?),
        is_published: r.get(11)?,
        show_sources: r.get(12)?,
        collect_email_before_chat: r.get(13)?,
        temperature: Temperature::from_stored(r.get(14)?),
        theme: Theme::from_entries(theme.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
        social_links: SocialLinks::from_entries(links.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
        voice_enabled: r.get(17)?,
        voice_id: VoiceId::parse(&r.get::<_, String>(18)?).map_err(|_| malformed("voice id"))?,
        voice_speed: VoiceSpeed::from_stored(r.get(19)?),
        created_at: Timestamp::from_millis(r.get(20)?),
        updated_at: Timestamp::from_millis(r.get(21)?),
        revision: count(r, 22)?,
        sources: MindSourceCounts {
            pending: count(r, 23)?,
            processing: count(r, 24)?,
            transcribing: count(r, 25)?,
            ready: count(r, 26)?,
            failed: count(r, 27)?,
        },
    })
}

/// The settings columns, in the order of `MIND_COLS` from `name` to `voice_speed`.
fn settings(m: &Mind) -> [Box<dyn rusqlite::ToSql + Send>; 18] {
    [
        Box::new(m.name.as_str().to_owned()),
        Box::new(m.slug.as_str().to_owned()),
        Box::new(m.headline.as_ref().map(|v| v.as_str().to_owned())),
        Box::new(m.bio.as_ref().map(|v| v.as_str().to_owned())),
        Box::new(m.avatar_url.as_ref().map(|v| v.as_str().to_owned())),
        Box::new(m.system_prompt.as_ref().map(|v| v.as_str().to_owned())),
        Box::new(m.welcome_message.as_ref().map(|v| v.as_str().to_owned())),
        Box::new(json_list(m.suggested_questions.as_slice())),
        Box::new(json_list(m.expertise_areas.as_slice())),
        Box::new(m.is_published),
        Box::new(m.show_sources),
        Box::new(m.collect_email_before_chat),
        Box::new(m.temperature.value()),
        Box::new(json_object(m.theme.entries())),
        Box::new(json_object(m.social_links.entries().into_iter().map(|(k, u)| (k, u.as_str().to_owned())).collect())),
        Box::new(m.voice_enabled),
        Box::new(m.voice_id.as_str()),
        Box::new(m.voice_speed.value()),
    ]
}

#[async_trait]
impl MindStore for SqliteStore {
    async fn insert_mind(&self, mind: &Mind, minds_limit: u32) -> StoreResult<MindInsert> {
        let m = mind.clone();
        self.write(move |tx| {
            // The count and the insert share the write transaction: no other writer can slip
            // a Mind in between.
            let used: i64 = tx
                .query_row("SELECT COUNT(*) FROM minds WHERE workspace_id = ?1", [m.workspace_id.as_str()], |r| r.get(0))
                .map_err(unavailable)?;
            if used >= i64::from(minds_limit) {
                return Ok(MindInsert::LimitReached { used: used as u64 });
            }
            let s = settings(&m);
            let (id, ws, created, updated) =
                (m.id.as_str(), m.workspace_id.as_str(), m.created_at.millis(), m.updated_at.millis());
            let mut args: Vec<&dyn rusqlite::ToSql> = vec![&id, &ws];
            args.extend(s.iter().map(|b| b.as_ref() as &dyn rusqlite::ToSql));
            args.push(&created);
            args.push(&updated);
            let placeholders = (1..=args.len()).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
            tx.execute(
                &format!(
                    "INSERT INTO minds (id, workspace_id, name, slug, headline, bio, avatar_url, system_prompt, \
                     welcome_message, suggested_questions, expertise_areas, is_published, show_sources, \
                     collect_email_before_chat, temperature, theme, social_links, voice_enabled, voice_id, voice_speed, \
                     created_at, updated_at) VALUES ({placeholders})"
                ),
                args.as_slice(),
            )
            .map_err(|e| conflict_or_unavailable(e, SLUG_TAKEN))?;
            Ok(MindInsert::Inserted)
        })
        .await
    }

    async fn get_mind(&self, ws: &WorkspaceId, id: &MindId) -> StoreResult<Option<Mind>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.read(move |c| {
            c.prepare_cached(&format!("SELECT {MIND_COLS} FROM minds WHERE id = ?1 AND workspace_id = ?2"))
                .and_then(|mut st| st.query_row([id.as_str(), ws.as_str()], mind_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn find_published_mind(&self, slug: &str) -> StoreResult<Option<Mind>> {
        let slug = slug.to_owned();
        self.read(move |c| {
            c.prepare_cached(&format!("SELECT {MIND_COLS} FROM minds WHERE slug = ?1 AND is_published = 1"))
                .and_then(|mut st| st.query_row([slug.as_str()], mind_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn list_minds(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Mind>> {
        let ws = ws.clone();
        self.read(move |c| {
            paged(
                c,
                "SELECT COUNT(*) FROM minds WHERE workspace_id = ?1",
                &format!(
                    "SELECT {MIND_COLS} FROM minds WHERE workspace_id = ?1
                     ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3"
                ),
                &[&ws.as_str()],
                page,
                mind_from,
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn mind_usage(&self, ws: &WorkspaceId) -> StoreResult<MindUsage> {
        let ws = ws.clone();
        self.read(move |c| {
            c.query_row(
                "SELECT (SELECT COUNT(*) FROM minds WHERE workspace_id = ?1),
                        (SELECT COUNT(*) FROM sources WHERE workspace_id = ?1 AND mind_id IS NOT NULL)",
                [ws.as_str()],
                |r| Ok(MindUsage { minds: count(r, 0)?, sources: count(r, 1)? }),
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn update_mind(&self, mind: &Mind) -> StoreResult<MindWrite> {
        let m = mind.clone();
        self.write(move |tx| {
            let stored: Option<i64> = tx
                .query_row(
                    "SELECT revision FROM minds WHERE id = ?1 AND workspace_id = ?2",
                    [m.id.as_str(), m.workspace_id.as_str()],
                    |r| r.get(0),
                )
                .optional()
                .map_err(unavailable)?;
            match stored {
                None => return Ok(MindWrite::NotFound),
                Some(rev) if rev as u64 + 1 != m.revision => return Ok(MindWrite::Stale),
                Some(_) => {}
            }
            let s = settings(&m);
            let (id, ws, updated, revision) =
                (m.id.as_str(), m.workspace_id.as_str(), m.updated_at.millis(), m.revision as i64);
            let mut args: Vec<&dyn rusqlite::ToSql> = vec![&id, &ws];
            args.extend(s.iter().map(|b| b.as_ref() as &dyn rusqlite::ToSql));
            args.push(&updated);
            args.push(&revision);
            tx.execute(
                "UPDATE minds SET name = ?3, slug = ?4, headline = ?5, bio = ?6, avatar_url = ?7, system_prompt = ?8,
                 welcome_message = ?9, suggested_questions = ?10, expertise_areas = ?11, is_published = ?12,
                 show_sources = ?13, collect_email_before_chat = ?14, temperature = ?15, theme = ?16,
                 social_links = ?17, voice_enabled = ?18, voice_id = ?19, voice_speed = ?20, updated_at = ?21,
                 revision = ?22
                 WHERE id = ?1 AND workspace_id = ?2",
                args.as_slice(),
            )
            .map_err(|e| conflict_or_unavailable(e, SLUG_TAKEN))?;
            Ok(MindWrite::Done)
        })
        .await
    }

    async fn delete_mind(&self, ws: &WorkspaceId, id: &MindId) -> StoreResult<Option<MindRemoval>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.write(move |tx| {
            // Its sources' files are collected first; the delete cascades to the sources and
            // from them to their chunks, in this transaction.
            let file_keys = {
                let mut st = tx
                    .prepare(
                        "SELECT json_extract(spec, '$.blobKey') FROM sources
                         WHERE mind_id = ?1 AND workspace_id = ?2 AND type IN ('file', 'podcast')",
                    )
                    .map_err(unavailable)?;
                let rows = st.query_map([id.as_str(), ws.as_str()], |r| r.get::<_, String>(0)).map_err(unavailable)?;
                rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)?
            };
            let n = tx
                .execute("DELETE FROM minds WHERE id = ?1 AND workspace_id = ?2", params![id.as_str(), ws.as_str()])
                .map_err(unavailable)?;
            Ok((n == 1).then_some(MindRemoval { file_keys }))
        })
        .await
    }
}
