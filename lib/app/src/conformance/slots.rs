//! `SlotStore`: leases of per-workspace budgets, the same rule on every backend.

use crate::ports::{SlotBudget, SlotKind, SlotLease, SlotStore};
use lore_domain::Timestamp;
use lore_domain::id::WorkspaceId;
use std::sync::Arc;

fn budget(kind: SlotKind) -> SlotBudget {
    SlotBudget { workspace: WorkspaceId::generate(), kind }
}

fn at(base: Timestamp, ms: i64) -> Timestamp {
    Timestamp::from_millis(base.millis() + ms)
}

/// Taking up to the limit, refusals, separate budgets, renewing and giving back.
pub async fn slots(s: &Arc<dyn SlotStore>, _unique: &str) {
    let t = Timestamp::now();
    let until = at(t, 60_000);
    let answers = budget(SlotKind::Answers);
    let (a, b, c) = (SlotLease::generate(), SlotLease::generate(), SlotLease::generate());
    assert!(s.take(&answers, 2, &a, t, until).await.unwrap(), "the first of two");
    assert!(s.take(&answers, 2, &b, t, until).await.unwrap(), "the second of two");
    assert!(!s.take(&answers, 2, &c, t, until).await.unwrap(), "a third is refused");
    assert!(!s.take(&answers, 1, &c, t, until).await.unwrap(), "a lower limit than held is refused");
    let uploads = SlotBudget { workspace: answers.workspace.clone(), kind: SlotKind::Uploads };
    assert!(s.take(&uploads, 2, &c, t, until).await.unwrap(), "each kind is its own budget");
    assert!(s.take(&budget(SlotKind::Answers), 2, &c, t, until).await.unwrap(), "each workspace too");
    assert!(s.take(&answers, 3, &c, t, until).await.unwrap(), "a higher limit has room");

    assert!(s.renew(&answers, &a, at(t, 120_000)).await.unwrap(), "a held lease renews");
    s.release(&answers, &a).await.unwrap();
    assert!(!s.renew(&answers, &a, at(t, 120_000)).await.unwrap(), "a given-back lease does not renew");
    s.release(&answers, &a).await.unwrap();
    s.release(&budget(SlotKind::Uploads), &SlotLease::generate()).await.unwrap();
    let d = SlotLease::generate();
    assert!(!s.take(&answers, 2, &d, t, until).await.unwrap(), "b and c still hold two");
    assert!(s.take(&answers, 3, &d, t, until).await.unwrap(), "a's slot came back");
    assert!(!s.renew(&budget(SlotKind::Answers), &d, until).await.unwrap(), "a lease renews in its own budget only");
}

/// A lease not renewed ends at its `until`: the next take drops it; a renewed one holds on.
pub async fn slot_expiry(s: &Arc<dyn SlotStore>, _unique: &str) {
    let t = Timestamp::now();
    let answers = budget(SlotKind::Answers);
    let (a, b, c) = (SlotLease::generate(), SlotLease::generate(), SlotLease::generate());
    assert!(s.take(&answers, 2, &a, t, at(t, 1_000)).await.unwrap());
    assert!(s.take(&answers, 2, &b, t, at(t, 1_000)).await.unwrap());
    assert!(s.renew(&answers, &b, at(t, 5_000)).await.unwrap());
    assert!(!s.take(&answers, 2, &c, at(t, 999), at(t, 10_000)).await.unwrap(), "both held until 1 s");
    assert!(s.take(&answers, 2, &c, at(t, 1_000), at(t, 10_000)).await.unwrap(), "a's lease ended at 1 s");
    assert!(!s.renew(&answers, &a, at(t, 20_000)).await.unwrap(), "an ended lease, dropped, does not renew");
    let d = SlotLease::generate();
    assert!(!s.take(&answers, 2, &d, at(t, 4_999), at(t, 10_000)).await.unwrap(), "b renewed until 5 s");
    assert!(s.take(&answers, 2, &d, at(t, 5_000), at(t, 10_000)).await.unwrap(), "b's lease ended at 5 s");
}

/// Thirty takes at once of a budget of four: exactly four hold a slot.
pub async fn slot_race(s: &Arc<dyn SlotStore>, _unique: &str) {
    let t = Timestamp::now();
    let answers = budget(SlotKind::Answers);
    let leases: Vec<SlotLease> = (0..30).map(|_| SlotLease::generate()).collect();
    let takes = leases.iter().map(|l| {
        let (s, answers) = (s.clone(), answers.clone());
        let l = l.clone();
        tokio::spawn(async move { s.take(&answers, 4, &l, t, at(t, 60_000)).await.unwrap() })
    });
    let taken: Vec<bool> = futures::future::join_all(takes).await.into_iter().map(Result::unwrap).collect();
    assert_eq!(taken.iter().filter(|t| **t).count(), 4, "{taken:?}");
    let holders: Vec<&SlotLease> = leases.iter().zip(&taken).filter(|(_, t)| **t).map(|(l, _)| l).collect();
    for l in &holders {
        assert!(s.renew(&answers, l, at(t, 60_000)).await.unwrap(), "every winner holds its lease");
    }
    s.release(&answers, holders[0]).await.unwrap();
    assert!(s.take(&answers, 4, &SlotLease::generate(), t, at(t, 60_000)).await.unwrap(), "one back, one more");
}
