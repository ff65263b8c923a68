//! Actions (`ActionStore`): the per-owner limit and unique names, checked in the write (races
//! included); creation order; renames free the old name; one workspace and one owner only;
//! header values and the signing secret kept exactly; everything gone with the owner.

use crate::ports::{ActionStore, ActionWrite, ChatbotStore, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::action::{Action, ActionHeader, ActionMethod, ActionName, ActionSpec, Parameters};
use lore_domain::id::WorkspaceId;
use lore_domain::source::SourceOwner;
use serde_json::json;
use std::sync::Arc;

/// The action store and what its owners need to exist.
#[derive(Clone)]
pub struct ActionStores {
    pub workspaces: Arc<dyn WorkspaceStore>,
    pub chatbots: Arc<dyn ChatbotStore>,
    pub actions: Arc<dyn ActionStore>,
}

fn spec(name: &str) -> ActionSpec {
    ActionSpec {
        name: ActionName::parse(name).unwrap(),
        description: format!("Does {name}"),
        url: "https://shop.example/orders?src=lore".into(),
        method: ActionMethod::Post,
        parameters: Parameters::parse(json!({"type": "object"})).unwrap(),
        headers: vec![
            ActionHeader { name: "authorization".into(), value: "Bearer sk_live_9f8E7d6C5b4A==".into() },
            ActionHeader { name: "x-shop".into(), value: "a b\tc \"quoted\" 'x' #1 {}".into() },
        ],
        enabled: true,
    }
}

fn action(ws: &WorkspaceId, owner: &SourceOwner, name: &str, created_ms: i64) -> Action {
    Action::new(ws.clone(), owner.clone(), spec(name), Timestamp::from_millis(created_ms))
}

/// A workspace with two chatbots (two owners).
async fn owners(stores: &ActionStores, name: &str) -> (WorkspaceId, SourceOwner, SourceOwner) {
    let ws = super::workspace(name);
    stores.workspaces.insert_workspace(&ws).await.unwrap();
    let bot = super::chatbot(&ws.id, "bot", 1_700_000_000_000);
    stores.chatbots.insert_chatbot(&bot).await.unwrap();
    let other = super::chatbot(&ws.id, "other-bot", 1_700_000_000_001);
    stores.chatbots.insert_chatbot(&other).await.unwrap();
    (ws.id, SourceOwner::Chatbot(bot.id), SourceOwner::Chatbot(other.id))
}

fn names(actions: &[Action]) -> Vec<&str> {
    actions.iter().map(|a| a.spec.name.as_str()).collect()
}

pub async fn actions(stores: &ActionStores, unique: &str) {
    let store = &stores.actions;
    let (ws, bot, other_bot) = owners(stores, &format!("{unique}-actions")).await;
    let (other_ws, _, _) = owners(stores, &format!("{unique}-actions-other")).await;

    // The limit counts; creation order.
    let a = action(&ws, &bot, "lookup_order", 1_000);
    let b = action(&ws, &bot, "book_meeting", 1_001);
    assert_eq!(store.insert_action(&b, 2).await.unwrap(), ActionWrite::Written);
    assert_eq!(store.insert_action(&a, 2).await.unwrap(), ActionWrite::Written);
    let c = action(&ws, &bot, "open_ticket", 1_002);
    assert_eq!(store.insert_action(&c, 2).await.unwrap(), ActionWrite::LimitReached, "the limit counts");
    assert_eq!(store.list_actions(&ws, &bot).await.unwrap(), [a.clone(), b.clone()], "creation order, as given");
    assert!(store.get_action(&ws, &bot, &c.id).await.unwrap().is_none(), "a refused insert writes nothing");

    // Stored exactly: the header values and the signing secret are secrets kept as they are.
    let got = store.get_action(&ws, &bot, &a.id).await.unwrap().expect("inserted");
    assert_eq!(got, a);
    assert_eq!(got.signing_secret.expose(), a.signing_secret.expose(), "the signing secret round-trips");
    let values: Vec<(&str, &str)> = got.spec.headers.iter().map(|h| (h.name.as_str(), h.value.as_str())).collect();
    assert_eq!(values, [("authorization", "Bearer sk_live_9f8E7d6C5b4A=="), ("x-shop", "a b\tc \"quoted\" 'x' #1 {}")]);

    // Unique names, on insert and rename.
    let dup = action(&ws, &bot, "lookup_order", 1_003);
    assert_eq!(store.insert_action(&dup, 10).await.unwrap(), ActionWrite::NameTaken, "a name is the owner's once");
    let mut taken = b.clone();
    taken.spec.name = ActionName::parse("lookup_order").unwrap();
    taken.updated_at = Timestamp::from_millis(5_000);
    assert_eq!(store.update_action(&taken).await.unwrap(), ActionWrite::NameTaken, "a rename to a taken name");
    assert_eq!(store.get_action(&ws, &bot, &b.id).await.unwrap().as_ref(), Some(&b), "a refused update writes nothing");

    // A rename (and any other edit) lands and frees the old name.
    let mut renamed = b.clone();
    renamed.spec.name = ActionName::parse("book_call").unwrap();
    renamed.spec.description = "Books a call".into();
    renamed.spec.method = ActionMethod::Get;
    renamed.spec.parameters =
        Parameters::parse(json!({"type": "object", "properties": {"day": {"type": "string"}}, "required": ["day"]}))
            .unwrap();
    renamed.spec.headers = vec![ActionHeader { name: "x-api-key".into(), value: "k3y".into() }];
    renamed.spec.enabled = false;
    renamed.updated_at = Timestamp::from_millis(6_000);
    assert_eq!(store.update_action(&renamed).await.unwrap(), ActionWrite::Written, "a rename to a free name");
    assert_eq!(store.get_action(&ws, &bot, &b.id).await.unwrap().as_ref(), Some(&renamed), "stored as given");
    let mut same_name = renamed.clone();
    same_name.spec.description = "Books a call, again".into();
    assert_eq!(store.update_action(&same_name).await.unwrap(), ActionWrite::Written, "an edit keeping its name");
    let e = action(&ws, &bot, "book_meeting", 1_004);
    assert_eq!(store.insert_action(&e, 3).await.unwrap(), ActionWrite::Written, "the old name is free again");
    assert_eq!(names(&store.list_actions(&ws, &bot).await.unwrap()), ["lookup_order", "book_call", "book_meeting"]);

    // Another workspace or another owner: absent, and nothing it does changes the action.
    assert!(store.get_action(&other_ws, &bot, &a.id).await.unwrap().is_none(), "another workspace sees nothing");
    assert!(store.list_actions(&other_ws, &bot).await.unwrap().is_empty(), "another workspace lists nothing");
    let mut foreign = a.clone();
    foreign.workspace_id = other_ws.clone();
    foreign.spec.description = "hijacked".into();
    assert_eq!(store.update_action(&foreign).await.unwrap(), ActionWrite::NotFound, "another workspace's update");
    assert!(!store.delete_action(&other_ws, &bot, &a.id).await.unwrap(), "another workspace's delete");
    assert!(store.get_action(&ws, &other_bot, &a.id).await.unwrap().is_none(), "another owner sees nothing");
    let mut elsewhere = a.clone();
    elsewhere.owner = other_bot.clone();
    assert_eq!(store.update_action(&elsewhere).await.unwrap(), ActionWrite::NotFound, "another owner's update");
    assert!(!store.delete_action(&ws, &other_bot, &a.id).await.unwrap(), "another owner's delete");
    assert_eq!(store.get_action(&ws, &bot, &a.id).await.unwrap().as_ref(), Some(&a), "untouched");
    let theirs = action(&ws, &other_bot, "lookup_order", 1_005);
    assert_eq!(store.insert_action(&theirs, 1).await.unwrap(), ActionWrite::Written, "names and limits are per owner");

    // Delete: gone, once; its place and name are free again.
    assert!(store.delete_action(&ws, &bot, &e.id).await.unwrap());
    assert!(store.get_action(&ws, &bot, &e.id).await.unwrap().is_none(), "deleted");
    assert!(!store.delete_action(&ws, &bot, &e.id).await.unwrap(), "gone already");
    let mut late = e.clone();
    late.updated_at = Timestamp::from_millis(7_000);
    assert_eq!(store.update_action(&late).await.unwrap(), ActionWrite::NotFound, "an update of a deleted action");
    assert!(store.get_action(&ws, &bot, &e.id).await.unwrap().is_none(), "an update brings nothing back");
    let f = action(&ws, &bot, "book_meeting", 1_006);
    assert_eq!(store.insert_action(&f, 3).await.unwrap(), ActionWrite::Written, "a delete frees a place and a name");
    let g = action(&ws, &bot, "open_ticket", 1_007);
    assert_eq!(store.insert_action(&g, 3).await.unwrap(), ActionWrite::LimitReached, "three again");

    // The owner's deletion takes its actions only.
    store.delete_owner_actions(&ws, &bot).await.unwrap();
    assert!(store.list_actions(&ws, &bot).await.unwrap().is_empty(), "the owner's actions are gone");
    assert!(store.get_action(&ws, &bot, &a.id).await.unwrap().is_none());
    assert_eq!(store.list_actions(&ws, &other_bot).await.unwrap(), [theirs], "another owner's stay");
    let again = action(&ws, &bot, "lookup_order", 1_008);
    assert_eq!(store.insert_action(&again, 1).await.unwrap(), ActionWrite::Written, "nothing of the owner is left");
}

/// Inserts at once: of four with one name exactly one is written; of four with their own names
/// and room for two, exactly two.
pub async fn action_races(stores: &ActionStores, unique: &str) {
    let (ws, bot, other_bot) = owners(stores, &format!("{unique}-action-race")).await;
    let inserts = (0..4).map(|i| {
        let store = stores.actions.clone();
        let a = action(&ws, &bot, "lookup_order", 1_000 + i);
        tokio::spawn(async move { store.insert_action(&a, 20).await.unwrap() })
    });
    let outcomes: Vec<ActionWrite> = futures::future::join_all(inserts).await.into_iter().map(Result::unwrap).collect();
    assert_eq!(outcomes.iter().filter(|o| **o == ActionWrite::Written).count(), 1, "{outcomes:?}");
    assert!(outcomes.iter().all(|o| matches!(o, ActionWrite::Written | ActionWrite::NameTaken)), "{outcomes:?}");
    assert_eq!(stores.actions.list_actions(&ws, &bot).await.unwrap().len(), 1);

    let inserts = (0..4).map(|i| {
        let store = stores.actions.clone();
        let a = action(&ws, &other_bot, &format!("action_{i}"), 1_000 + i);
        tokio::spawn(async move { store.insert_action(&a, 2).await.unwrap() })
    });
    let outcomes: Vec<ActionWrite> = futures::future::join_all(inserts).await.into_iter().map(Result::unwrap).collect();
    assert_eq!(outcomes.iter().filter(|o| **o == ActionWrite::Written).count(), 2, "{outcomes:?}");
    assert!(outcomes.iter().all(|o| matches!(o, ActionWrite::Written | ActionWrite::LimitReached)), "{outcomes:?}");
    assert_eq!(stores.actions.list_actions(&ws, &other_bot).await.unwrap().len(), 2);
}
