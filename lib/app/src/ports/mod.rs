//! The ports the use cases need, one file per family; every port type is re-exported here, so
//! callers import from `lore_app::ports`. Each backend (embedded, AWS) implements all of them
//! and passes the same conformance suites.

mod actions;
mod answer_tests;
mod audit;
mod channels;
mod chatbots;
mod conversations;
mod events;
mod files;
mod forms;
mod ingest;
mod jobs;
mod minds;
mod rerank;
mod responder;
mod search;
mod slots;
mod sources;
mod speech;
mod store;
mod transcription;
mod webhooks;
mod workspaces;

pub use actions::*;
pub use answer_tests::*;
pub use audit::*;
pub use channels::*;
pub use chatbots::*;
pub use conversations::*;
pub use events::*;
pub use files::*;
pub use forms::*;
pub use ingest::*;
pub use jobs::*;
pub use minds::*;
pub use rerank::*;
pub use responder::*;
pub use search::*;
pub use slots::*;
pub use sources::*;
pub use speech::*;
pub use store::*;
pub use transcription::*;
pub use webhooks::*;
pub use workspaces::*;
