//! Per-workspace concurrency budgets (uploads being received, answers being written), so one
//! tenant cannot hold every connection, byte or model call of a path: a [`Slot`] is one lease of
//! a budget in the [`SlotStore`], renewed while it is held and given back when it drops.
//! [`MemorySlots`] is the store of one process (`lore serve`); on AWS the leases live in
//! DynamoDB, so a budget holds across Lambda instances.

use crate::ports::{SlotBudget, SlotLease, SlotStore, StoreResult};
use async_trait::async_trait;
use futures::FutureExt;
use lore_domain::Timestamp;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One unit of a workspace's budget in use. Its lease is renewed every third of its length while
/// the slot is held, and given back when it drops: at once when the store needs no I/O, else in
/// a task (dropping never waits; a give-back that is lost ends with the lease).
pub struct Slot {
    store: Arc<dyn SlotStore>,
    budget: SlotBudget,
    lease: SlotLease,
    heartbeat: tokio::task::JoinHandle<()>,
    /// Given back by [`Slot::release`]: nothing left for `Drop` to do.
    released: bool,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot").field("budget", &self.budget).field("lease", &self.lease).finish()
    }
}

fn after(now: Timestamp, d: Duration) -> Timestamp {
    Timestamp::from_millis(now.millis().saturating_add(d.as_millis().min(i64::MAX as u128) as i64))
}

impl Slot {
    /// A slot of `budget` leased for `lease_for` (and renewed), unless `limit` are held: `None`.
    /// A store failure is an error: the caller refuses the work rather than run it unbudgeted.
    pub async fn take(
        store: &Arc<dyn SlotStore>,
        budget: SlotBudget,
        limit: u32,
        lease_for: Duration,
    ) -> StoreResult<Option<Slot>> {
        let lease = SlotLease::generate();
        let now = Timestamp::now();
        if !store.take(&budget, limit, &lease, now, after(now, lease_for)).await? {
            return Ok(None);
        }
        let heartbeat = tokio::spawn(heartbeat(store.clone(), budget.clone(), lease.clone(), lease_for));
        Ok(Some(Slot { store: store.clone(), budget, lease, heartbeat, released: false }))
    }

    /// Gives the slot back and waits until the store has it. Work that ends with a response
    /// calls this before answering: a Lambda instance may be frozen as soon as the response is
    /// sent, and a give-back left to a task would then wait for the next thaw (or the lease).
    pub async fn release(mut self) {
        self.heartbeat.abort();
        self.released = true;
        if let Err(e) = self.store.release(&self.budget, &self.lease).await {
            tracing::warn!(error = %e, "giving a slot back failed; it returns when its lease ends");
        }
    }

    /// Runs `work` holding the slot, then gives it back (awaited) whatever `work` returned.
    pub async fn around<T>(self, work: impl std::future::Future<Output = T>) -> T {
        let out = work.await;
        self.release().await;
        out
    }
}

/// Renews the lease every third of its length, so that two failed renewals in a row still
/// leave it held; stops when the lease is gone (it ended while this process was frozen and
/// another holder may have its slot: the work goes on, briefly over budget by one).
async fn heartbeat(store: Arc<dyn SlotStore>, budget: SlotBudget, lease: SlotLease, lease_for: Duration) {
    let every = (lease_for / 3).max(Duration::from_millis(10));
    loop {
        tokio::time::sleep(every).await;
        match store.renew(&budget, &lease, after(Timestamp::now(), lease_for)).await {
            Ok(true) => {}
            Ok(false) => {
                tracing::warn!(workspace = %budget.workspace, kind = budget.kind.as_str(), "a held slot's lease had ended");
                return;
            }
            Err(e) => tracing::warn!(error = %e, kind = budget.kind.as_str(), "renewing a slot's lease failed"),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.heartbeat.abort();
        if self.released {
            return;
        }
        let (store, budget, lease) = (self.store.clone(), self.budget.clone(), self.lease.clone());
        let mut release = Box::pin(async move { store.release(&budget, &lease).await });
        let done = match (&mut release).now_or_never() {
            Some(done) => done,
            None => match tokio::runtime::Handle::try_current() {
                Ok(rt) => {
                    rt.spawn(async move {
                        if let Err(e) = release.await {
                            tracing::warn!(error = %e, "giving a slot back failed; it returns when its lease ends");
                        }
                    });
                    Ok(())
                }
                Err(_) => Ok(()),
            },
        };
        if let Err(e) = done {
            tracing::warn!(error = %e, "giving a slot back failed; it returns when its lease ends");
        }
    }
}

/// The slots of one process: leases in memory, under the same rule as every store.
#[derive(Debug, Default)]
pub struct MemorySlots {
    /// Each budget's leases and when they end (ms); a budget without leases has no entry.
    held: Mutex<HashMap<SlotBudget, HashMap<SlotLease, i64>>>,
}

impl MemorySlots {
    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<SlotBudget, HashMap<SlotLease, i64>>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait]
impl SlotStore for MemorySlots {
    async fn take(
        &self,
        budget: &SlotBudget,
        limit: u32,
        lease: &SlotLease,
        now: Timestamp,
        until: Timestamp,
    ) -> StoreResult<bool> {
        let mut held = self.held();
        let leases = held.entry(budget.clone()).or_default();
        leases.retain(|_, end| *end > now.millis());
        if leases.len() >= limit as usize {
            if leases.is_empty() {
                held.remove(budget);
            }
            return Ok(false);
        }
        leases.insert(lease.clone(), until.millis());
        Ok(true)
    }

    async fn renew(&self, budget: &SlotBudget, lease: &SlotLease, until: Timestamp) -> StoreResult<bool> {
        let mut held = self.held();
        match held.get_mut(budget).and_then(|leases| leases.get_mut(lease)) {
            Some(end) => {
                *end = until.millis();
                Ok(true)
            }
            None => Ok(false),
        }
    }

    async fn release(&self, budget: &SlotBudget, lease: &SlotLease) -> StoreResult<()> {
        let mut held = self.held();
        if let Some(leases) = held.get_mut(budget) {
            leases.remove(lease);
            if leases.is_empty() {
                held.remove(budget);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{SlotKind, StoreError};
    use lore_domain::id::WorkspaceId;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Instant;

    fn budget(ws: &WorkspaceId, kind: SlotKind) -> SlotBudget {
        SlotBudget { workspace: ws.clone(), kind }
    }

    async fn take(store: &Arc<dyn SlotStore>, b: &SlotBudget, limit: u32, lease: Duration) -> Option<Slot> {
        Slot::take(store, b.clone(), limit, lease).await.unwrap()
    }

    const MINUTE: Duration = Duration::from_secs(60);

    #[tokio::test]
    async fn a_workspace_holds_at_most_its_limit_and_gets_slots_back_at_once() {
        let store: Arc<dyn SlotStore> = Arc::new(MemorySlots::default());
        let (a, b) = (WorkspaceId::generate(), WorkspaceId::generate());
        let answers = budget(&a, SlotKind::Answers);
        let first = take(&store, &answers, 2, MINUTE).await.unwrap();
        let _second = take(&store, &answers, 2, MINUTE).await.unwrap();
        assert!(take(&store, &answers, 2, MINUTE).await.is_none(), "the third is refused");
        assert!(take(&store, &budget(&b, SlotKind::Answers), 2, MINUTE).await.is_some(), "per workspace");
        assert!(take(&store, &budget(&a, SlotKind::Uploads), 2, MINUTE).await.is_some(), "per kind");
        drop(first);
        // In-process, the slot is back as the guard drops: nothing runs in between.
        assert!(take(&store, &answers, 2, MINUTE).await.is_some(), "a dropped slot is given back");
    }

    #[tokio::test]
    async fn a_slot_whose_holder_died_comes_back_when_its_lease_ends() {
        let memory = Arc::new(MemorySlots::default());
        let store: Arc<dyn SlotStore> = memory.clone();
        let answers = budget(&WorkspaceId::generate(), SlotKind::Answers);
        // A holder that took a 300 ms lease and then neither renewed nor gave it back.
        let now = Timestamp::now();
        let lease = Duration::from_millis(300);
        assert!(memory.take(&answers, 1, &SlotLease::generate(), now, after(now, lease)).await.unwrap());
        let started = Instant::now();
        assert!(take(&store, &answers, 1, MINUTE).await.is_none(), "held until its lease ends");
        let deadline = started + Duration::from_secs(10);
        let slot = loop {
            if let Some(slot) = take(&store, &answers, 1, MINUTE).await {
                break slot;
            }
            assert!(Instant::now() < deadline, "the dead holder's slot never came back");
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert!(started.elapsed() >= Duration::from_millis(250), "back after {:?}", started.elapsed());
        drop(slot);
    }

    /// [`MemorySlots`] that counts renewals and can be made to fail.
    #[derive(Default)]
    struct Watched {
        inner: MemorySlots,
        renewals: AtomicU32,
        failing: std::sync::atomic::AtomicBool,
    }

    #[async_trait]
    impl SlotStore for Watched {
        async fn take(
            &self,
            b: &SlotBudget,
            limit: u32,
            l: &SlotLease,
            now: Timestamp,
            until: Timestamp,
        ) -> StoreResult<bool> {
            if self.failing.load(Ordering::SeqCst) {
                return Err(StoreError::Unavailable("the table is away".into()));
            }
            self.inner.take(b, limit, l, now, until).await
        }
        async fn renew(&self, b: &SlotBudget, l: &SlotLease, until: Timestamp) -> StoreResult<bool> {
            self.renewals.fetch_add(1, Ordering::SeqCst);
            self.inner.renew(b, l, until).await
        }
        async fn release(&self, b: &SlotBudget, l: &SlotLease) -> StoreResult<()> {
            self.inner.release(b, l).await
        }
    }

    #[tokio::test]
    async fn a_held_slot_is_renewed_and_outlives_its_lease() {
        let watched = Arc::new(Watched::default());
        let store: Arc<dyn SlotStore> = watched.clone();
        let answers = budget(&WorkspaceId::generate(), SlotKind::Answers);
        let lease = Duration::from_millis(150);
        let held = take(&store, &answers, 1, lease).await.unwrap();
        let started = Instant::now();
        // Seven renewals, a third of a lease apart, take more than two leases: unrenewed, the
        // slot would have ended.
        let deadline = started + Duration::from_secs(10);
        while watched.renewals.load(Ordering::SeqCst) < 7 {
            assert!(Instant::now() < deadline, "the heartbeat never renewed the lease");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(started.elapsed() > 2 * lease, "{:?}", started.elapsed());
        assert!(take(&store, &answers, 1, lease).await.is_none(), "still held past its first lease");
        drop(held);
        assert!(take(&store, &answers, 1, lease).await.is_some(), "given back on drop");
    }

    #[tokio::test]
    async fn a_store_failure_refuses_the_slot() {
        let watched = Arc::new(Watched::default());
        watched.failing.store(true, Ordering::SeqCst);
        let store: Arc<dyn SlotStore> = watched;
        let answers = budget(&WorkspaceId::generate(), SlotKind::Answers);
        let err = Slot::take(&store, answers, 4, MINUTE).await.unwrap_err();
        assert_eq!(err, StoreError::Unavailable("the table is away".into()));
    }

    async fn memory(_suite: &str) -> (Arc<dyn SlotStore>, ()) {
        (Arc::new(MemorySlots::default()), ())
    }

    crate::conformance_tests!(memory => slots);
}
