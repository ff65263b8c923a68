//! The in-process job queue of `lore serve`. Not durable by itself: a queued run is also a
//! `processing` record with a lease, and a restarted server adopts such runs (see
//! `App::sweep_stale_runs`), so no job is lost to a crash.
//!
//! Fair between workspaces: each workspace's jobs wait in their own FIFO line, workers take from
//! the lines in turn (round robin), and a workspace has at most `per_workspace` jobs running. So
//! one tenant that queues a hundred slow documents delays another tenant's text by at most one
//! job per worker, not by the hundred (docs/limits.md "Ingest workers and fairness").

use async_trait::async_trait;
use lore_app::ports::{Job, JobQueue};
use lore_app::ports::{StoreError, StoreResult};
use lore_domain::id::WorkspaceId;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

#[derive(Default)]
struct Lines {
    waiting: HashMap<WorkspaceId, VecDeque<Job>>,
    /// Workspaces with waiting jobs, in the order they get their next turn.
    turns: VecDeque<WorkspaceId>,
    running: HashMap<WorkspaceId, usize>,
    /// Answers of channels' messages (docs/api.md §24): not behind processing runs, which can
    /// take minutes; taken by their own task (`take_reply`), each answered at once.
    replies: VecDeque<Job>,
    closed: bool,
}

/// Jobs waiting per workspace, taken in turn.
pub struct FairQueue {
    lines: Mutex<Lines>,
    changed: Notify,
    per_workspace: usize,
}

/// A job taken from the queue; its workspace's running slot is freed when this drops (also when
/// the run panicked).
pub struct Taken {
    pub job: Job,
    queue: Arc<FairQueue>,
}

impl Drop for Taken {
    fn drop(&mut self) {
        {
            let mut lines = self.queue.lock();
            let ws = self.job.workspace_id();
            if let Some(n) = lines.running.get_mut(ws) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    lines.running.remove(ws);
                }
            }
        }
        self.queue.changed.notify_waiters();
    }
}

impl FairQueue {
    /// A queue letting each workspace run at most `per_workspace` jobs at once (at least 1).
    pub fn new(per_workspace: usize) -> Arc<Self> {
        Arc::new(Self { lines: Mutex::default(), changed: Notify::new(), per_workspace: per_workspace.max(1) })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Lines> {
        // A panic while holding the lock leaves consistent lines (every change is one step).
        self.lines.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, job: Job) -> bool {
        {
            let mut lines = self.lock();
            if lines.closed {
                return false;
            }
            if matches!(job, Job::Channel(_)) {
                lines.replies.push_back(job);
                drop(lines);
                self.changed.notify_waiters();
                return true;
            }
            let ws = job.workspace_id().clone();
            let line = lines.waiting.entry(ws.clone()).or_default();
            line.push_back(job);
            if line.len() == 1 {
                lines.turns.push_back(ws);
            }
        }
        self.changed.notify_waiters();
        true
    }

    /// The next job of the first workspace in turn that may run one more, without waiting.
    pub fn try_take(self: &Arc<Self>) -> Option<Taken> {
        let mut lines = self.lock();
        for _ in 0..lines.turns.len() {
            let ws = lines.turns.pop_front()?;
            if lines.running.get(&ws).copied().unwrap_or(0) >= self.per_workspace {
                lines.turns.push_back(ws);
                continue;
            }
            let line = lines.waiting.get_mut(&ws)?;
            let job = line.pop_front()?;
            if line.is_empty() {
                lines.waiting.remove(&ws);
            } else {
                lines.turns.push_back(ws.clone());
            }
            *lines.running.entry(ws).or_insert(0) += 1;
            return Some(Taken { job, queue: self.clone() });
        }
        None
    }

    /// Waits for a job a worker may run now; `None` once the queue is closed.
    pub async fn take(self: &Arc<Self>) -> Option<Taken> {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            // Registered before looking, so a change between the look and the wait wakes us.
            changed.as_mut().enable();
            if let Some(taken) = self.try_take() {
                return Some(taken);
            }
            if self.lock().closed {
                return None;
            }
            changed.await;
        }
    }

    /// Waits for a channel's message to answer; `None` once the queue is closed.
    pub async fn take_reply(self: &Arc<Self>) -> Option<Job> {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let mut lines = self.lock();
                if let Some(job) = lines.replies.pop_front() {
                    return Some(job);
                }
                if lines.closed {
                    return None;
                }
            }
            changed.await;
        }
    }

    /// Stops the queue: waiting workers get `None`, new jobs are refused.
    pub fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_waiters();
    }
}

pub struct LocalJobQueue {
    queue: Arc<FairQueue>,
}

impl LocalJobQueue {
    /// The queue and the fair queue the workers take from.
    pub fn new(per_workspace: usize) -> (Self, Arc<FairQueue>) {
        let queue = FairQueue::new(per_workspace);
        (Self { queue: queue.clone() }, queue)
    }
}

#[async_trait]
impl JobQueue for LocalJobQueue {
    async fn enqueue(&self, job: Job) -> StoreResult<()> {
        if self.queue.push(job) { Ok(()) } else { Err(StoreError::Unavailable("the worker pool has stopped".into())) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_domain::id::SourceId;
    use std::time::Duration;

    use lore_app::ports::IngestJob;

    fn job(ws: &WorkspaceId, generation: u64) -> Job {
        IngestJob { workspace_id: ws.clone(), source_id: SourceId::generate(), generation }.into()
    }

    fn generation(t: &Taken) -> u64 {
        match &t.job {
            Job::Ingest(j) => j.generation,
            Job::TestRun(_) | Job::Channel(_) => u64::MAX,
        }
    }

    #[tokio::test]
    async fn workspaces_take_turns_and_run_at_most_their_share() {
        let (a, b) = (WorkspaceId::generate(), WorkspaceId::generate());
        let q = FairQueue::new(1);
        for g in 0..3 {
            assert!(q.push(job(&a, g)));
        }
        assert!(q.push(job(&b, 10)));
        let first = q.try_take().expect("a's first");
        assert_eq!((first.job.workspace_id().clone(), generation(&first)), (a.clone(), 0));
        let second = q.try_take().expect("b's, while a runs its one");
        assert_eq!((second.job.workspace_id().clone(), generation(&second)), (b.clone(), 10));
        assert!(q.try_take().is_none(), "a is at its share, b has nothing left");
        drop(first);
        let third = q.try_take().expect("a's next once its run ended");
        assert_eq!(generation(&third), 1, "FIFO within a workspace");
    }

    #[tokio::test]
    async fn turns_rotate_between_busy_workspaces() {
        let (a, b) = (WorkspaceId::generate(), WorkspaceId::generate());
        let q = FairQueue::new(5);
        for g in 0..3 {
            q.push(job(&a, g));
        }
        for g in 0..2 {
            q.push(job(&b, 10 + g));
        }
        let order: Vec<u64> = (0..5).map(|_| q.try_take().unwrap()).map(|t| generation(&t)).collect();
        assert_eq!(order, vec![0, 10, 1, 11, 2]);
    }

    #[tokio::test]
    async fn a_waiting_worker_wakes_for_a_new_job_and_for_a_freed_slot() {
        let a = WorkspaceId::generate();
        let q = FairQueue::new(1);
        let waiter = tokio::spawn({
            let q = q.clone();
            async move { q.take().await.map(|t| generation(&t)) }
        });
        q.push(job(&a, 7));
        assert_eq!(tokio::time::timeout(Duration::from_secs(5), waiter).await.unwrap().unwrap(), Some(7));

        let running = q.try_take();
        assert!(running.is_none(), "the job above was taken and dropped; nothing waits");
        q.push(job(&a, 8));
        let held = q.try_take().expect("a runs 8");
        q.push(job(&a, 9));
        let waiter = tokio::spawn({
            let q = q.clone();
            async move { q.take().await.map(|t| generation(&t)) }
        });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished(), "a is at its share");
        drop(held);
        assert_eq!(tokio::time::timeout(Duration::from_secs(5), waiter).await.unwrap().unwrap(), Some(9));
        q.close();
        assert!(q.take().await.is_none(), "closed");
        assert!(!q.push(job(&a, 10)), "refused once closed");
    }
}
