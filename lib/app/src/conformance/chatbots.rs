//! Chatbot records and their slugs.

use super::*;
use crate::ports::{RevisedWrite, StoreError};
use lore_domain::Timestamp;
use lore_domain::chatbot::ChatbotName;
use lore_domain::pagination::PageRequest;
use lore_domain::slug::Slug;

pub async fn chatbots(p: &Stores, unique: &str) {
    let ws = workspace(&format!("bots-{unique}"));
    p.workspaces.insert_workspace(&ws).await.unwrap();
    let other = workspace(&format!("bots-other-{unique}"));
    p.workspaces.insert_workspace(&other).await.unwrap();
    let s = &p.chatbots;

    let base = 1_700_000_000_000;
    let a = chatbot(&ws.id, "alpha", base);
    let b = chatbot(&ws.id, "beta", base + 1);
    let c = chatbot(&ws.id, "gamma", base + 1); // same millisecond as b: id breaks the tie
    for x in [&a, &b, &c] {
        s.insert_chatbot(x).await.unwrap();
    }
    assert_eq!(s.insert_chatbot(&chatbot(&ws.id, "alpha", base)).await, Err(StoreError::Conflict("slug")));
    s.insert_chatbot(&chatbot(&other.id, "alpha", base)).await.expect("slugs are per workspace");

    assert_eq!(s.get_chatbot(&ws.id, &a.id).await.unwrap().as_ref(), Some(&a));
    assert_eq!(s.get_chatbot(&other.id, &a.id).await.unwrap(), None, "never across workspaces");

    let page = s.list_chatbots(&ws.id, PageRequest::new(1, 2)).await.unwrap();
    assert_eq!(page.total, 3);
    assert_eq!(page.items, vec![c.clone(), b.clone()], "newest first, id desc on ties");
    let page2 = s.list_chatbots(&ws.id, PageRequest::new(2, 2)).await.unwrap();
    assert_eq!(page2.items, vec![a.clone()]);
    let past = s.list_chatbots(&ws.id, PageRequest::new(5, 2)).await.unwrap();
    assert!(past.items.is_empty() && past.total == 3, "past the end: empty with the true total");

    let mut renamed = a.clone();
    renamed.name = ChatbotName::parse("Renamed").unwrap();
    renamed.slug = Slug::parse("slug", "beta").unwrap();
    renamed.revision = 1;
    assert_eq!(s.update_chatbot(&renamed).await, Err(StoreError::Conflict("slug")), "update onto a taken slug");
    renamed.slug = Slug::parse("slug", "alpha-2").unwrap();
    renamed.updated_at = Timestamp::from_millis(base + 10);
    assert_eq!(s.update_chatbot(&renamed).await.unwrap(), RevisedWrite::Done);
    assert_eq!(s.get_chatbot(&ws.id, &a.id).await.unwrap().as_ref(), Some(&renamed));
    let mut stale = renamed.clone();
    stale.descriptor = "written on an older read".into();
    assert_eq!(s.update_chatbot(&stale).await.unwrap(), RevisedWrite::Stale, "a write based on an older read");
    assert_eq!(s.get_chatbot(&ws.id, &a.id).await.unwrap().as_ref(), Some(&renamed), "and nothing changed");
    let mut foreign = renamed.clone();
    foreign.workspace_id = other.id.clone();
    foreign.revision += 1;
    assert_eq!(s.update_chatbot(&foreign).await.unwrap(), RevisedWrite::NotFound, "an update names its workspace");

    assert!(!s.delete_chatbot(&other.id, &a.id).await.unwrap(), "a delete names its workspace");
    assert!(s.delete_chatbot(&ws.id, &a.id).await.unwrap());
    assert!(!s.delete_chatbot(&ws.id, &a.id).await.unwrap());
    assert_eq!(s.get_chatbot(&ws.id, &a.id).await.unwrap(), None);
    assert_eq!(s.list_chatbots(&ws.id, PageRequest::default()).await.unwrap().total, 2);
    s.insert_chatbot(&chatbot(&ws.id, "alpha", base)).await.expect("a deleted chatbot's slug is free again");
}

/// Many concurrent inserts of one slug: exactly one wins, the rest see `Conflict`.
pub async fn chatbot_slug_race(p: &Stores, unique: &str) {
    let ws = workspace(&format!("race-{unique}"));
    p.workspaces.insert_workspace(&ws).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..16 {
        let store = p.chatbots.clone();
        let c = chatbot(&ws.id, "contested", 1_700_000_000_000 + i);
        tasks.push(tokio::spawn(async move { store.insert_chatbot(&c).await }));
    }
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => won += 1,
            Err(StoreError::Conflict("slug")) => {}
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!(won, 1, "exactly one insert of a contested slug wins");
}

/// Published chatbots (docs/api.md §18): a published slug is one public address across
/// workspaces; the public settings read back as written; unpublishing and deleting give the
/// address back.
pub async fn published_chatbots(p: &Stores, unique: &str) {
    use lore_domain::embed::{AllowedOrigins, IdentitySecret};
    let (ws, other) = (workspace(&format!("pub-{unique}")), workspace(&format!("pub-other-{unique}")));
    p.workspaces.insert_workspace(&ws).await.unwrap();
    p.workspaces.insert_workspace(&other).await.unwrap();
    let s = &p.chatbots;
    let address = format!("public-{}", unique.replace('_', "-"));
    let mut a = chatbot(&ws.id, &address, 1_700_000_000_000);
    s.insert_chatbot(&a).await.unwrap();
    assert_eq!(s.find_published_chatbot(&address).await.unwrap(), None, "unpublished: no public address");

    a.is_published = true;
    a.settings.collect_email_before_chat = true;
    a.settings.show_sources = false;
    a.settings.welcome_message = Some(lore_domain::mind::WelcomeMessage::from_stored("Hello".into()));
    a.settings.embed.allowed_origins = AllowedOrigins::parse(&["https://shop.example".into()]).unwrap();
    a.settings.embed.identity_verification = true;
    a.settings.embed.identity_secret = Some(IdentitySecret::generate());
    a.updated_at = Timestamp::from_millis(1_700_000_000_100);
    a.revision += 1;
    assert_eq!(s.update_chatbot(&a).await.unwrap(), RevisedWrite::Done);
    assert_eq!(s.get_chatbot(&ws.id, &a.id).await.unwrap().as_ref(), Some(&a), "every public setting read back");
    assert_eq!(s.find_published_chatbot(&address).await.unwrap().as_ref(), Some(&a));

    // Another workspace's chatbot with the same slug is fine until it is published too.
    let mut b = chatbot(&other.id, &address, 1_700_000_000_000);
    s.insert_chatbot(&b).await.unwrap();
    b.is_published = true;
    b.revision += 1;
    assert_eq!(s.update_chatbot(&b).await, Err(StoreError::Conflict("public_slug")));
    let third = workspace(&format!("pub-third-{unique}"));
    p.workspaces.insert_workspace(&third).await.unwrap();
    let mut published_at_insert = chatbot(&third.id, &address, 1_700_000_000_000);
    published_at_insert.is_published = true;
    assert_eq!(s.insert_chatbot(&published_at_insert).await, Err(StoreError::Conflict("public_slug")));

    // Unpublished, the address is free for the other one.
    a.is_published = false;
    a.revision += 1;
    assert_eq!(s.update_chatbot(&a).await.unwrap(), RevisedWrite::Done);
    assert_eq!(s.find_published_chatbot(&address).await.unwrap(), None);
    assert_eq!(s.update_chatbot(&b).await.unwrap(), RevisedWrite::Done, "the address was given back");
    assert_eq!(s.find_published_chatbot(&address).await.unwrap().map(|c| c.id), Some(b.id.clone()));
    // Deleting a published chatbot gives its address back too.
    assert!(s.delete_chatbot(&other.id, &b.id).await.unwrap());
    assert_eq!(s.find_published_chatbot(&address).await.unwrap(), None);
    a.is_published = true;
    a.revision += 1;
    assert_eq!(s.update_chatbot(&a).await.unwrap(), RevisedWrite::Done, "published again after the other was deleted");
}
