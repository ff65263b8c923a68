//! SDK clients made on first use.

use std::sync::OnceLock;

/// An SDK client made the first time a call needs it. Making one costs ~0.2 ms of CPU and the
/// page faults of its code; a route-group Lambda would make every client at init while most of
/// its requests use DynamoDB alone (docs/benchmarks.md, "Cold start on the AWS composition").
pub(crate) struct LazyClient<C> {
    client: OnceLock<C>,
    make: Box<dyn Fn() -> C + Send + Sync>,
}

impl<C: Clone + Send + Sync + 'static> LazyClient<C> {
    /// A client `make` makes on first use.
    pub(crate) fn new(make: impl Fn() -> C + Send + Sync + 'static) -> Self {
        Self { client: OnceLock::new(), make: Box::new(make) }
    }

    /// A client made already (tests, other adapters sharing one).
    pub(crate) fn ready(client: C) -> Self {
        let copy = client.clone();
        Self { client: OnceLock::from(client), make: Box::new(move || copy.clone()) }
    }

    pub(crate) fn get(&self) -> &C {
        self.client.get_or_init(|| (self.make)())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_client_is_made_once_on_first_use() {
        let made = Arc::new(AtomicUsize::new(0));
        let counter = made.clone();
        let lazy = LazyClient::new(move || counter.fetch_add(1, Ordering::SeqCst) + 1);
        assert_eq!(made.load(Ordering::SeqCst), 0, "nothing made before a call needs it");
        assert_eq!(*lazy.get(), 1);
        assert_eq!(*lazy.get(), 1);
        assert_eq!(made.load(Ordering::SeqCst), 1);
        assert_eq!(*LazyClient::ready(7).get(), 7);
    }
}
