//! The concurrency budgets on DynamoDB in real time, between two instances (two SDK clients on
//! one moto table, as two Lambda instances share the table): a held slot is renewed past its
//! lease, a dropped one comes back at once, and the slot of an instance that died comes back
//! when its lease ends. The rule itself is `lore_app::conformance::slots` (tests/conformance.rs).

mod support;

use lore_app::ports::{SlotBudget, SlotKind, SlotLease, SlotStore};
use lore_app::slots::Slot;
use lore_aws::DynamoStore;
use lore_domain::Timestamp;
use lore_domain::id::WorkspaceId;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Another instance: its own SDK client on the same table.
async fn instance(table: &str) -> Arc<dyn SlotStore> {
    Arc::new(DynamoStore::new(aws_sdk_dynamodb::Client::new(&support::sdk_config().await), table))
}

/// Polls `take` on `store` until it gets a slot; fails after `within`.
async fn take_when_free(store: &Arc<dyn SlotStore>, budget: &SlotBudget, limit: u32, within: Duration) -> Slot {
    let deadline = Instant::now() + within;
    loop {
        if let Some(slot) = Slot::take(store, budget.clone(), limit, Duration::from_secs(60)).await.unwrap() {
            return slot;
        }
        assert!(Instant::now() < deadline, "no slot came back within {within:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_hold_across_instances_and_end_with_their_holder() {
    let backend = support::backend("slots").await;
    let table = backend.settings.table.clone();
    let (a, b) = (instance(&table).await, instance(&table).await);
    let budget = SlotBudget { workspace: WorkspaceId::generate(), kind: SlotKind::Answers };
    let lease = Duration::from_secs(1);

    // A holds the only slot for three of its leases, renewing it; B is refused all along.
    let held = Slot::take(&a, budget.clone(), 1, lease).await.unwrap().expect("a takes the slot");
    let started = Instant::now();
    while started.elapsed() < 3 * lease {
        let taken = Slot::take(&b, budget.clone(), 1, lease).await.unwrap();
        assert!(taken.is_none(), "b took a slot a holds after {:?}", started.elapsed());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A gives it back (dropped: the give-back runs in a task) and B gets it long before a lease ends.
    drop(held);
    let slot = take_when_free(&b, &budget, 1, Duration::from_secs(5)).await;
    drop(slot);

    // An instance dies holding a slot of another budget: a lease taken, then never renewed
    // nor given back.
    let budget = SlotBudget { workspace: WorkspaceId::generate(), kind: SlotKind::Uploads };
    let dead = SlotLease::generate();
    let taken_at = Instant::now();
    let now = Timestamp::now();
    let until = Timestamp::from_millis(now.millis() + lease.as_millis() as i64);
    assert!(a.take(&budget, 1, &dead, now, until).await.unwrap(), "the doomed instance takes the slot");
    assert!(Slot::take(&b, budget.clone(), 1, lease).await.unwrap().is_none(), "held while its lease lasts");
    let slot = take_when_free(&b, &budget, 1, Duration::from_secs(10)).await;
    let waited = taken_at.elapsed();
    assert!(waited + Duration::from_millis(50) >= lease, "the dead instance's lease held only {waited:?}");
    assert!(!a.renew(&budget, &dead, until).await.unwrap(), "its ended lease was dropped by b's take");
    drop(slot);
}
