//! The keys of source items and of their indexes.

use super::*;

pub(crate) fn source_pk(id: &SourceId) -> String {
    format!("SRC#{id}")
}
pub(crate) const SOURCE_SK: &str = "SRC";
/// The sort key of a text source's text, in the source's partition: the source item itself stays
/// small, so what reads only names, types and metadata (a search's labels) never reads the text.
pub(super) const TEXT_SK: &str = "TEXT";
/// The owner's id is prefixed (`cb_…`, `mind_…`), so chatbots and Minds never share a partition.
pub(super) fn sources_of(owner: &SourceOwner) -> String {
    format!("SRCS#{owner}")
}
pub(super) fn sources_in_status(owner: &SourceOwner, status: SourceStatus) -> String {
    format!("SRCS#{owner}#{status}")
}

/// The sort key of the item that carries the owner's counters (in the workspace partition): the
/// chatbot or the Mind.
pub(super) fn owner_sk(owner: &SourceOwner) -> String {
    match owner {
        SourceOwner::Chatbot(cb) => chatbot_sk(cb),
        SourceOwner::Mind(m) => mind_sk(m),
    }
}

/// A source's partition of the lease and refresh indexes: its id hashed (FNV-1a) over
/// `LEASE_SHARDS`.
fn shard(id: &SourceId) -> u64 {
    let h = id.as_str().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    h % u64::from(LEASE_SHARDS)
}

/// The lease-index partition of a source.
pub(super) fn lease_shard(id: &SourceId) -> String {
    format!("LEASE#{}", shard(id))
}

/// The refresh-index partition of a source.
pub(super) fn refresh_shard(id: &SourceId) -> String {
    format!("REFRESH#{}", shard(id))
}
