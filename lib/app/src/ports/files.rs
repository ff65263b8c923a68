//! File blobs: uploads, signed direct uploads, streamed and ranged reads.

use super::{StoreError, StoreResult};
use async_trait::async_trait;
use lore_domain::Timestamp;

/// The beginning of a blob and its whole size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobHead {
    pub bytes: Vec<u8>,
    pub size: u64,
}

/// A URL a client PUTs a file's bytes to directly (S3 presigned PUT, or a signed local URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresignedUpload {
    pub upload_url: String,
    pub method: &'static str,
    /// Headers the client must send with the PUT.
    pub headers: Vec<(String, String)>,
    pub expires_at: Timestamp,
}

/// Bytes as they flow, chunk by chunk: a request body on its way to storage, a stored file on
/// its way to a client. An `Err` is the other end's failure (a client that stalled or left).
pub type ByteStream<'a> = std::pin::Pin<Box<dyn futures::Stream<Item = std::io::Result<Bytes>> + Send + 'a>>;

pub use bytes::Bytes;

/// Why a streamed put stored nothing.
#[derive(Debug)]
pub enum StreamPutError {
    /// More than the allowed bytes arrived; the bytes after the limit were not read.
    TooLarge {
        max_bytes: u64,
    },
    /// The body failed (timed out, the client left) before it ended.
    Body(std::io::Error),
    Store(StoreError),
}

impl From<StoreError> for StreamPutError {
    fn from(e: StoreError) -> Self {
        StreamPutError::Store(e)
    }
}

/// A stored blob being read: its whole size and the requested bytes of it.
pub struct BlobRead {
    /// The size of the whole blob, whatever range was asked for.
    pub size: u64,
    pub body: ByteStream<'static>,
}

/// Bytes `start..=end` of a blob (an HTTP range after it was resolved against the size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    pub start: u64,
    pub end: u64,
}

/// Whether `key` can be a blob key: `<workspace>/<upload>/<file name>` (or deeper) made of safe
/// characters only, so that it needs no escaping in a URL or a path and cannot climb out of its
/// prefix. Every `BlobStore` refuses other keys.
pub fn valid_blob_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 512
        && key.split('/').all(|seg| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && seg.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        })
}

#[async_trait]
pub trait BlobStore: Send + Sync {
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> StoreResult<()>;
    /// Stores what `body` yields under `key`, holding only a bounded buffer in memory (a chunk
    /// on disk, one multipart part on S3), and stops reading as soon as more than `max_bytes`
    /// arrived. Nothing is kept under `key` unless the whole body arrived within the limit.
    /// Returns the stored size.
    async fn put_stream(
        &self,
        key: &str,
        content_type: &str,
        body: &mut ByteStream<'_>,
        max_bytes: u64,
    ) -> Result<u64, StreamPutError>;
    async fn get(&self, key: &str) -> StoreResult<Option<Vec<u8>>>;
    /// Streams the blob (or `range` of it, which must lie within it) without holding it.
    async fn read(&self, key: &str, range: Option<ByteRange>) -> StoreResult<Option<BlobRead>>;
    /// The first `max_bytes` bytes of the blob (fewer when it is shorter) and its whole size,
    /// without reading the rest: to look at a large file (a 500 MB podcast) cheaply.
    async fn head(&self, key: &str, max_bytes: u64) -> StoreResult<Option<BlobHead>>;
    async fn delete(&self, key: &str) -> StoreResult<()>;
    /// Deletes every blob whose key starts with `prefix` (whole segments, ending with `/`, e.g.
    /// `<workspace>/<mind>/`): what a deleted owner left. Returns how many were deleted; an
    /// invalid prefix deletes nothing.
    async fn delete_prefix(&self, prefix: &str) -> StoreResult<u64>;
    /// The CDN URL clients fetch the blob from, without credentials.
    fn public_url(&self, key: &str) -> String;
    /// The key behind a URL this store handed out; `None` for any other URL.
    fn key_for_url(&self, url: &str) -> Option<String>;
    /// A URL that accepts one PUT of at most `max_bytes` to `key` until `expires_at`.
    fn presign_put(
        &self,
        key: &str,
        content_type: &str,
        max_bytes: u64,
        expires_at: Timestamp,
    ) -> StoreResult<PresignedUpload>;
    /// Checks the query of a signed upload URL this store handed out (stores whose uploads go
    /// straight to a cloud service never see one).
    fn verify_signed_put(&self, key: &str, query: &str, size: u64, now: Timestamp) -> Result<(), UploadRefusal> {
        let _ = (key, query, size, now);
        Err(UploadRefusal::BadSignature)
    }
}

/// Why a signed upload was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadRefusal {
    BadSignature,
    Expired,
    TooLarge { max_bytes: u64 },
}
