//! Per-workspace concurrency budgets (uploads being received, answers being written): a count
//! per workspace, taken by a [`Slot`] and given back when it drops, so one tenant cannot hold
//! every connection, byte or model call of a path.

use lore_domain::id::WorkspaceId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Debug, Default)]
pub(crate) struct WorkspaceSlots {
    in_flight: Mutex<HashMap<WorkspaceId, u32>>,
}

impl WorkspaceSlots {
    /// A slot of `ws`, unless it already holds `limit`.
    pub(crate) fn take(self: &Arc<Self>, ws: &WorkspaceId, limit: u32) -> Option<Slot> {
        let mut map = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(ws.clone()).or_insert(0);
        if *n >= limit {
            return None;
        }
        *n += 1;
        Some(Slot { slots: self.clone(), ws: ws.clone() })
    }
}

/// One unit of a workspace's budget in use; given back when dropped.
#[derive(Debug)]
pub struct Slot {
    slots: Arc<WorkspaceSlots>,
    ws: WorkspaceId,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut map = self.slots.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&self.ws) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&self.ws);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_holds_at_most_its_limit_and_gets_slots_back() {
        let slots = Arc::new(WorkspaceSlots::default());
        let (a, b) = (WorkspaceId::generate(), WorkspaceId::generate());
        let first = slots.take(&a, 2).unwrap();
        let _second = slots.take(&a, 2).unwrap();
        assert!(slots.take(&a, 2).is_none(), "the third is refused");
        assert!(slots.take(&b, 2).is_some(), "another workspace has its own budget");
        drop(first);
        assert!(slots.take(&a, 2).is_some(), "a dropped slot is given back");
    }
}
