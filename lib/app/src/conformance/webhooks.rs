//! Hooks (webhook subscriptions) and deliveries: limits, claims, retries.

use super::*;
use crate::ports::Lease;
use crate::ports::{DeliveryFilter, DeliveryUpdate, HookCounts};
use lore_domain::Timestamp;
use lore_domain::delivery::{Attempt, Delivery, DeliveryStatus, Envelope};
use lore_domain::event::{Event, EventType};
use lore_domain::hook::{Hook, HookFilter, HookStatus, HookTarget, RetiringSecret, WebhookSecret};
use lore_domain::id::{ChatbotId, DeliveryId, FormId, HookId, WorkspaceId};
use lore_domain::pagination::PageRequest;
use serde_json::json;

fn subscription(ws: &WorkspaceId, url: &str, target: HookTarget) -> Hook {
    Hook::new(ws.clone(), url.into(), target, Timestamp::now())
}

fn all_forms() -> HookTarget {
    HookTarget::new(HookFilter::FormResponse, None, None).unwrap()
}

pub async fn hooks(p: &Stores, unique: &str) {
    let ws = new_workspace(p, &format!("hooks-{unique}")).await;
    let other = new_workspace(p, &format!("hooks-other-{unique}")).await;
    let s = &p.hooks;
    let f = FormId::generate();
    let bot = ChatbotId::generate();
    let a = subscription(&ws.id, "https://a.example/h", all_forms());
    let on_f = subscription(
        &ws.id,
        "https://a.example/h",
        HookTarget::new(HookFilter::FormResponse, Some(f.clone()), None).unwrap(),
    );
    let knowledge = subscription(
        &ws.id,
        "https://k.example/h",
        HookTarget::new(HookFilter::Exact(EventType::SourceReady), None, Some(bot)).unwrap(),
    );
    for h in [&a, &on_f, &knowledge] {
        assert_eq!(
            &s.subscribe(h, 100).await.unwrap().expect("within the cap"),
            h,
            "a new subscription is stored as given"
        );
    }
    assert_eq!(s.get_hook(&ws.id, &knowledge.id).await.unwrap().as_ref(), Some(&knowledge), "round trip");
    assert_eq!(s.get_hook(&other.id, &a.id).await.unwrap(), None, "never across workspaces");

    let again = subscription(&ws.id, "https://a.example/h", all_forms());
    let same = s.subscribe(&again, 100).await.unwrap().expect("within the cap");
    assert_eq!((same.id.clone(), same.secret.clone()), (a.id.clone(), a.secret.clone()), "same target: same hook");
    let elsewhere = subscription(&other.id, "https://a.example/h", all_forms());
    assert_eq!(
        s.subscribe(&elsewhere, 100).await.unwrap().expect("within the cap").id,
        elsewhere.id,
        "targets are per workspace"
    );

    for n in 1..3 {
        assert_eq!(s.record_outcome(&ws.id, &a.id, false, 3).await.unwrap(), Some(HookStatus::Active), "failure {n}");
    }
    assert_eq!(s.record_outcome(&ws.id, &a.id, true, 3).await.unwrap(), Some(HookStatus::Active));
    assert_eq!(s.get_hook(&ws.id, &a.id).await.unwrap().unwrap().consecutive_failures, 0, "a success resets");
    for _ in 0..2 {
        s.record_outcome(&ws.id, &a.id, false, 3).await.unwrap();
    }
    assert_eq!(s.record_outcome(&ws.id, &a.id, false, 3).await.unwrap(), Some(HookStatus::Disabled), "3rd in a row");
    let active: Vec<HookId> = s.active_hooks(&ws.id).await.unwrap().into_iter().map(|h| h.id).collect();
    assert_eq!(active, vec![on_f.id.clone(), knowledge.id.clone()], "a disabled hook is not active");
    assert_eq!(s.count_hooks(&ws.id).await.unwrap(), HookCounts { active: 2, disabled: 1 });
    let listed = s.list_hooks(&ws.id).await.unwrap();
    let mut expected = vec![a.id.clone(), on_f.id.clone(), knowledge.id.clone()];
    expected.sort_by_key(|id| {
        let h = listed.iter().find(|h| &h.id == id).expect("every hook listed, the disabled one too");
        std::cmp::Reverse((h.created_at, h.id.as_str().to_owned()))
    });
    assert_eq!(listed.iter().map(|h| h.id.clone()).collect::<Vec<_>>(), expected, "newest first");
    assert_eq!(listed.iter().find(|h| h.id == a.id).map(|h| h.status), Some(HookStatus::Disabled));
    assert!(s.list_hooks(&other.id).await.unwrap().iter().all(|h| h.workspace_id == other.id), "per workspace");
    // The cap counts active and disabled subscriptions; the same target is revived at the cap.
    let fourth = subscription(&ws.id, "https://d.example/h", all_forms());
    assert_eq!(s.subscribe(&fourth, 3).await.unwrap(), None, "a 4th subscription over a cap of 3");
    assert_eq!(s.get_hook(&ws.id, &fourth.id).await.unwrap(), None, "nothing stored over the cap");
    let revived = s.subscribe(&again, 3).await.unwrap().expect("the same target at the cap");
    assert_eq!(
        (revived.id.clone(), revived.status, revived.consecutive_failures),
        (a.id.clone(), HookStatus::Active, 0)
    );
    assert_eq!(s.record_outcome(&ws.id, &HookId::generate(), true, 3).await.unwrap(), None, "unknown hook");

    assert!(!s.delete_hook(&other.id, &a.id).await.unwrap(), "a delete names its workspace");
    assert!(s.delete_hook(&ws.id, &a.id).await.unwrap());
    assert!(!s.delete_hook(&ws.id, &a.id).await.unwrap());
    assert_eq!(s.delete_form_hooks(&ws.id, &f).await.unwrap(), 1);
    assert_eq!(s.get_hook(&ws.id, &on_f.id).await.unwrap(), None, "a form's hooks go with it");
    assert_eq!(s.count_hooks(&ws.id).await.unwrap(), HookCounts { active: 1, disabled: 0 });
}

/// Concurrent subscribes of one workspace under a cap store exactly the cap, never more.
pub async fn hook_secret_rotation(p: &Stores, unique: &str) {
    let ws = new_workspace(p, &format!("hooks-rotation-{unique}")).await;
    let other = new_workspace(p, &format!("hooks-rotation-other-{unique}")).await;
    let s = &p.hooks;
    let h = s.subscribe(&subscription(&ws.id, "https://r.example/h", all_forms()), 10).await.unwrap().unwrap();
    assert_eq!(h.retiring_secret, None);
    let (first, second) = (WebhookSecret::generate(), WebhookSecret::generate());
    let until = Timestamp::from_millis(Timestamp::now().millis() + 60_000);
    let rotated = s.rotate_secret(&ws.id, &h.id, &first, until).await.unwrap().unwrap();
    assert_eq!(rotated.secret, first);
    assert_eq!(rotated.retiring_secret, Some(RetiringSecret { secret: h.secret.clone(), until }));
    assert_eq!(s.get_hook(&ws.id, &h.id).await.unwrap().unwrap(), rotated, "stored as answered");
    // Rotating again retires the current secret; the older one is gone.
    let again = s.rotate_secret(&ws.id, &h.id, &second, until).await.unwrap().unwrap();
    assert_eq!((again.secret.clone(), again.retiring_secret.map(|r| r.secret)), (second, Some(first)));
    assert_eq!(again.status, HookStatus::Active);
    // Another workspace's, and an unknown, subscription: nothing.
    assert_eq!(s.rotate_secret(&other.id, &h.id, &WebhookSecret::generate(), until).await.unwrap(), None);
    assert_eq!(s.rotate_secret(&ws.id, &HookId::generate(), &WebhookSecret::generate(), until).await.unwrap(), None);
}

pub async fn hooks_limit_race(p: &Stores, unique: &str) {
    let ws = new_workspace(p, &format!("hooks-limit-race-{unique}")).await;
    let mut tasks = Vec::new();
    for n in 0..12 {
        let (store, h) = (p.hooks.clone(), subscription(&ws.id, &format!("https://r{n}.example/h"), all_forms()));
        tasks.push(tokio::spawn(async move { store.subscribe(&h, 5).await }));
    }
    let mut stored = 0;
    for t in tasks {
        if t.await.unwrap().unwrap().is_some() {
            stored += 1;
        }
    }
    assert_eq!(stored, 5, "exactly the cap is stored");
    assert_eq!(p.hooks.count_hooks(&ws.id).await.unwrap(), HookCounts { active: 5, disabled: 0 });
    assert_eq!(p.hooks.active_hooks(&ws.id).await.unwrap().len(), 5, "and exactly that many exist");
}

fn lease(owner: &str, now: Timestamp) -> Lease {
    Lease { owner: owner.into(), until: Timestamp::from_millis(now.millis() + 60_000) }
}

fn attempt(at: Timestamp, status: u16) -> Attempt {
    Attempt { at, status_code: Some(status), error: None, duration_ms: 12 }
}

/// An event of a new workspace in the outbox, and a delivery of it to each of `hooks` new
/// subscriptions, due at `due_ms`.
async fn pending(p: &Stores, name: &str, hooks: usize, due_ms: i64) -> (Event, Vec<Delivery>) {
    let ws = new_workspace(p, name).await;
    let bot = chatbot(&ws.id, "bot", 1);
    let event = Event::new(EventType::SourceReady, ws.id.clone(), json!({"chatbotId": bot.id, "chunkCount": 2}));
    p.events.publish(event.clone()).await.unwrap();
    let mut out = Vec::new();
    for i in 0..hooks {
        let target = HookTarget::new(HookFilter::AllKnowledge, None, None).unwrap();
        let h = p
            .hooks
            .subscribe(&subscription(&ws.id, &format!("https://h{i}.example/"), target), 100)
            .await
            .unwrap()
            .expect("within the cap");
        let mut d = Delivery::new(&h, &event, Envelope::of(&event), Timestamp::from_millis(due_ms));
        d.created_at = Timestamp::from_millis(due_ms + i as i64);
        out.push(d);
    }
    (event, out)
}

pub async fn deliveries(p: &Stores, unique: &str) {
    let s = &p.deliveries;
    let now = Timestamp::now();
    let (event, ds) = pending(p, &format!("dlv-{unique}"), 2, now.millis() - 1_000).await;
    let ws = &ds[0].workspace_id;
    assert!(unfanned(p, &event.id).await.is_some(), "a published event waits to be fanned out");
    assert_eq!(s.create_deliveries(&event.id, &ds).await.unwrap(), 2);
    assert!(unfanned(p, &event.id).await.is_none(), "fanned out with its deliveries");
    let mut twice = ds.clone();
    for d in &mut twice {
        d.id = DeliveryId::generate();
    }
    assert_eq!(s.create_deliveries(&event.id, &twice).await.unwrap(), 0, "one delivery per event and hook");
    let stored = s.get_delivery(ws, &ds[0].id).await.unwrap().expect("stored");
    assert_eq!(stored, ds[0], "round trip, payload included");
    assert_eq!(stored.payload, Envelope::of(&event));
    assert_eq!(s.get_delivery(&WorkspaceId::generate(), &ds[0].id).await.unwrap(), None, "never across workspaces");

    // Claims: only due, unclaimed ones; a claim bumps the token.
    let claimed = s.claim_due(now, 1_000, &lease("me", now)).await.unwrap();
    let mine: Vec<&Delivery> = claimed.iter().filter(|d| &d.workspace_id == ws).collect();
    assert_eq!(mine.len(), 2, "both are due");
    assert!(mine.iter().all(|d| d.claim == 1));
    let again = s.claim_due(now, 1_000, &lease("me", now)).await.unwrap();
    assert!(again.iter().all(|d| &d.workspace_id != ws), "a live claim is not claimed twice");
    let d0 = mine.iter().find(|d| d.id == ds[0].id).unwrap();

    let retry_at = Timestamp::from_millis(now.millis() + 5_000);
    let failed = DeliveryUpdate {
        attempt: Some(attempt(now, 500)),
        status: DeliveryStatus::Pending,
        next_attempt_at: Some(retry_at),
    };
    assert!(!s.record_attempt(&d0.id, 0, &failed).await.unwrap(), "an old claim records nothing");
    assert!(s.record_attempt(&d0.id, d0.claim, &failed).await.unwrap());
    assert!(!s.record_attempt(&d0.id, d0.claim, &failed).await.unwrap(), "a claim records once");
    let after = s.get_delivery(ws, &d0.id).await.unwrap().unwrap();
    assert_eq!(
        (after.status, after.next_attempt_at, after.attempts.clone()),
        (DeliveryStatus::Pending, Some(retry_at), vec![attempt(now, 500)])
    );
    assert!(s.claim_one(&d0.id, now, &lease("me", now)).await.unwrap().is_none(), "not due before its retry");
    let due = s.claim_one(&d0.id, retry_at, &lease("me", retry_at)).await.unwrap().expect("due at its retry");
    assert_eq!(due.claim, 3, "claimed, recorded, claimed");
    let done = DeliveryUpdate {
        attempt: Some(attempt(retry_at, 200)),
        status: DeliveryStatus::Succeeded,
        next_attempt_at: None,
    };
    assert!(s.record_attempt(&d0.id, due.claim, &done).await.unwrap());

    // An abandoned claim is taken over by a restarted owner, or after its lease.
    let d1 = ds[1].id.clone();
    assert!(s.claim_due(now, 1_000, &lease("me", now)).await.unwrap().iter().all(|d| d.id != d1));
    s.release_claims("me").await.unwrap();
    assert_eq!(s.get_delivery(ws, &d1).await.unwrap().unwrap().claim, 1, "an owner's own claims are kept");
    assert!(s.release_claims("successor").await.unwrap() >= 1);
    let taken = s.claim_due(now, 1_000, &lease("successor", now)).await.unwrap();
    let taken = taken.into_iter().find(|d| d.id == d1).expect("released claims are due again");
    assert_eq!(taken.claim, 3, "claimed, released, claimed");
    let later = Timestamp::from_millis(now.millis() + 120_000);
    let expired = s.claim_due(later, 1_000, &lease("third", later)).await.unwrap();
    assert!(expired.iter().any(|d| d.id == d1), "an expired claim is due again");
    let gave_up = DeliveryUpdate { attempt: None, status: DeliveryStatus::Failed, next_attempt_at: None };
    assert!(!s.record_attempt(&d1, taken.claim, &gave_up).await.unwrap(), "the superseded claim is refused");

    // The log: newest first, filtered.
    let all = s.list_deliveries(ws, &DeliveryFilter::default(), PageRequest::default()).await.unwrap();
    assert_eq!(all.items.iter().map(|d| d.id.clone()).collect::<Vec<_>>(), vec![d1.clone(), d0.id.clone()]);
    let ok = DeliveryFilter { hook_id: None, status: Some(DeliveryStatus::Succeeded) };
    assert_eq!(s.list_deliveries(ws, &ok, PageRequest::default()).await.unwrap().items[0].id, d0.id);
    let by_hook = DeliveryFilter { hook_id: Some(ds[1].hook_id.clone()), status: None };
    let by_hook = s.list_deliveries(ws, &by_hook, PageRequest::default()).await.unwrap();
    assert_eq!((by_hook.total, by_hook.items[0].id.clone()), (1, d1.clone()));
    assert_eq!(
        s.list_deliveries(&WorkspaceId::generate(), &DeliveryFilter::default(), PageRequest::default())
            .await
            .unwrap()
            .total,
        0
    );

    // Redelivery: pending, due now, a new round; earlier attempts kept; claims superseded.
    let re = s.redeliver(ws, &d0.id, later).await.unwrap().expect("exists");
    assert_eq!(
        (re.status, re.next_attempt_at, re.round_start, re.attempts.len()),
        (DeliveryStatus::Pending, Some(later), 2, 2)
    );
    assert_eq!(re.attempts_in_round(), 0);
    assert!(s.redeliver(&WorkspaceId::generate(), &d0.id, later).await.unwrap().is_none(), "never across workspaces");
    let claimed = s.claim_one(&d0.id, later, &lease("me", later)).await.unwrap().expect("due now");
    assert!(claimed.claim > re.claim);
}

/// Sixteen dispatchers claim at once: each due delivery goes to exactly one of them.
pub async fn delivery_claim_race(p: &Stores, unique: &str) {
    let now = Timestamp::now();
    let (event, ds) = pending(p, &format!("dlv-race-{unique}"), 5, now.millis() - 10).await;
    p.deliveries.create_deliveries(&event.id, &ds).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..16 {
        let store = p.deliveries.clone();
        tasks.push(tokio::spawn(async move { store.claim_due(now, 2, &lease(&format!("d{i}"), now)).await }));
    }
    let mut seen = Vec::new();
    for t in tasks {
        seen.extend(t.await.unwrap().unwrap().into_iter().map(|d| d.id).filter(|id| ds.iter().any(|d| &d.id == id)));
    }
    seen.sort();
    let mut expected: Vec<DeliveryId> = ds.iter().map(|d| d.id.clone()).collect();
    expected.sort();
    assert_eq!(seen, expected, "every delivery claimed exactly once");
}

/// An erasure (docs/api.md §22) scrubs the payload of every event and delivery of the workspace
/// that names the person — by e-mail address in any case, user id or erased conversation — and
/// nothing else; a delivery keeps its status and attempts. Erasure notices are scrubbed only
/// once their delivery is over.
pub async fn delivery_erasure(p: &Stores, unique: &str) {
    use lore_domain::id::ConversationId;
    use lore_domain::source::SourceOwner;
    use lore_domain::visitor_match::{ErasureTrace, VisitorMatch, erased_data};
    let ws = new_workspace(p, &format!("erase-{unique}")).await;
    let other = new_workspace(p, &format!("erase-other-{unique}")).await;
    let s = &p.deliveries;
    let owner = SourceOwner::Chatbot(ChatbotId::generate());
    let hook = p
        .hooks
        .subscribe(&subscription(&ws.id, "https://erase.example/h", all_forms()), 100)
        .await
        .unwrap()
        .expect("within the cap");
    let lead = |ws: &WorkspaceId, email: &str, user: Option<&str>| {
        Event::lead_captured(ws.clone(), &owner, &ConversationId::generate(), email, Some("Ada"), user)
    };
    // Ada's lead, fanned out and delivered; another of hers still in the outbox; Bob's, fanned
    // out; Ada's in another workspace; and the notice of her erasure, fanned out, not sent yet.
    let ada_sent = lead(&ws.id, "ada@example.com", Some("ada-7"));
    let ada_waiting = lead(&ws.id, "ADA@example.COM", None);
    let bob = lead(&ws.id, "bob@example.com", Some("bob-1"));
    let elsewhere = lead(&other.id, "ada@example.com", None);
    let person = VisitorMatch::parse(Some("Ada@Example.com"), None).unwrap();
    let notice = Event::visitor_erased(ws.id.clone(), &person, 2);
    for e in [&ada_sent, &ada_waiting, &bob, &elsewhere, &notice] {
        p.events.publish(e.clone()).await.unwrap();
    }
    let now = Timestamp::now();
    let delivery = |e: &Event| Delivery::new(&hook, e, Envelope::of(e), now);
    let (d_ada, d_bob, d_notice) = (delivery(&ada_sent), delivery(&bob), delivery(&notice));
    for (e, d) in [(&ada_sent, &d_ada), (&bob, &d_bob), (&notice, &d_notice)] {
        assert_eq!(s.create_deliveries(&e.id, std::slice::from_ref(d)).await.unwrap(), 1);
    }
    let claimed = s.claim_one(&d_ada.id, now, &lease("eraser", now)).await.unwrap().expect("due");
    let sent =
        DeliveryUpdate { attempt: Some(attempt(now, 200)), status: DeliveryStatus::Succeeded, next_attempt_at: None };
    assert!(s.record_attempt(&d_ada.id, claimed.claim, &sent).await.unwrap());

    let mut trace = ErasureTrace::of(&person);
    let erased = s.erase_traces(&ws.id, &trace).await.unwrap();
    assert_eq!(erased.deliveries, 1, "Ada's delivery, not Bob's, not the notice's");
    assert!(erased.events >= 1, "at least her event still in the outbox: {erased:?}");
    let waiting = unfanned(p, &ada_waiting.id).await.expect("an erased event stays in the outbox");
    assert_eq!((waiting.data, waiting.metadata), (erased_data(), json!({})), "its payload is gone");
    assert_eq!(unfanned(p, &elsewhere.id).await.expect("untouched").data, elsewhere.data, "never across workspaces");
    let after = s.get_delivery(&ws.id, &d_ada.id).await.unwrap().unwrap();
    let envelope: serde_json::Value = serde_json::from_str(after.payload.as_str()).unwrap();
    assert_eq!((&envelope["data"], &envelope["eventId"]), (&erased_data(), &json!(ada_sent.id)), "{envelope}");
    assert!(!after.payload.as_str().to_lowercase().contains("ada@example.com"), "{}", after.payload.as_str());
    assert_eq!((after.status, after.attempts), (DeliveryStatus::Succeeded, vec![attempt(now, 200)]), "counts stay");
    assert_eq!(s.get_delivery(&ws.id, &d_bob.id).await.unwrap().unwrap().payload, Envelope::of(&bob), "Bob's stays");
    assert_eq!(s.get_delivery(&ws.id, &d_notice.id).await.unwrap().unwrap().payload, Envelope::of(&notice));

    // By user id, or by an erased conversation: the same; a second time: nothing left to do.
    trace = ErasureTrace::of(&VisitorMatch::parse(None, Some("bob-1")).unwrap());
    assert_eq!(s.erase_traces(&ws.id, &trace).await.unwrap().deliveries, 1);
    assert_eq!(s.erase_traces(&ws.id, &trace).await.unwrap(), Default::default(), "scrubbed once");

    // The notice: kept while its delivery is pending, scrubbed once it is over.
    s.forget_erasure_notices(&ws.id).await.unwrap();
    let pending = s.get_delivery(&ws.id, &d_notice.id).await.unwrap().unwrap();
    assert_eq!(pending.payload, Envelope::of(&notice), "a notice still to be sent keeps the person");
    let claimed = s.claim_one(&d_notice.id, now, &lease("eraser", now)).await.unwrap().expect("due");
    assert!(s.record_attempt(&d_notice.id, claimed.claim, &sent).await.unwrap());
    assert!(s.forget_erasure_notices(&ws.id).await.unwrap() >= 1);
    let notice_after = s.get_delivery(&ws.id, &d_notice.id).await.unwrap().unwrap();
    assert!(
        !notice_after.payload.as_str().to_lowercase().contains("ada@example.com"),
        "{}",
        notice_after.payload.as_str()
    );
    assert_eq!(notice_after.status, DeliveryStatus::Succeeded);
    assert_eq!(s.forget_erasure_notices(&ws.id).await.unwrap(), 0, "scrubbed once");
}
