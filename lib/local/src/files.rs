//! Files on disk behind the `BlobStore` port, served at `<public base>/files/<key>` (the local
//! stand-in for S3 + CloudFront), with HMAC-signed, expiring upload URLs standing in for S3
//! presigned PUTs.

use crate::sqlite::unavailable;
use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures::StreamExt;
use hmac::{Hmac, Mac};
use lore_app::ports::{
    BlobHead, BlobRead, BlobStore, ByteRange, ByteStream, PresignedUpload, StreamPutError, UploadRefusal,
};
use lore_app::ports::{StoreError, StoreResult, valid_blob_key};
use lore_domain::Timestamp;
use sha2::Sha256;
use std::path::{Path, PathBuf};

/// The chunk size a stored file is read in while it streams to a client.
const READ_CHUNK: usize = 64 * 1024;

pub struct FileBlobStore {
    root: PathBuf,
    public_base: String,
    signing_key: Vec<u8>,
}

/// Files under `dir`, recursively (0 when it does not exist).
fn count_files(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => count_files(&e.path()),
            Ok(_) => 1,
            Err(_) => 0,
        })
        .sum()
}

/// Whether a failed read means "no blob under this key": a missing file, or a key that names a
/// directory (`<workspace>` alone) or passes through a file.
fn no_such_blob(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{IsADirectory, NotADirectory, NotFound};
    matches!(e.kind(), NotFound | IsADirectory | NotADirectory)
}

/// Creates `dir` and its missing parents readable by the owner only (0700): uploads are private
/// files of their workspace, served only through their capability URLs.
fn private_dirs(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

fn private_file_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

/// Writes `bytes` to a new file (replacing a leftover) readable by the owner only (0600).
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    private_file_options().open(path)?.write_all(bytes)
}

/// A temporary name next to `path`, unique to one writer: two PUTs of the same key never write
/// into the same file, and the last rename wins whole.
fn partial_path(path: &Path) -> PathBuf {
    let mut nonce = [0u8; 8];
    let _ = getrandom::fill(&mut nonce);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("blob");
    path.with_file_name(format!(".{name}.{}.partial", u64::from_le_bytes(nonce)))
}

impl FileBlobStore {
    /// `root` holds the files; `public_base` is the server's public base URL; the signing key
    /// authenticates upload URLs (keep it secret and stable across restarts).
    pub fn new(root: &Path, public_base: &str, signing_key: Vec<u8>) -> Self {
        Self { root: root.to_path_buf(), public_base: public_base.trim_end_matches('/').to_owned(), signing_key }
    }

    fn path(&self, key: &str) -> StoreResult<PathBuf> {
        if !valid_blob_key(key) {
            return Err(StoreError::Unavailable(format!("invalid blob key {key:?}")));
        }
        Ok(self.root.join(key))
    }

    /// The file of a blob and its size; `None` when there is none (also for a key naming a
    /// directory).
    async fn open(&self, key: &str) -> StoreResult<Option<(tokio::fs::File, u64)>> {
        let Ok(path) = self.path(key) else { return Ok(None) };
        let file = match tokio::fs::File::open(&path).await {
            Ok(f) => f,
            Err(e) if no_such_blob(&e) => return Ok(None),
            Err(e) => return Err(unavailable(e)),
        };
        let metadata = file.metadata().await.map_err(unavailable)?;
        Ok(metadata.is_file().then_some((file, metadata.len())))
    }

    fn signature(&self, key: &str, expires: i64, max_bytes: u64) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.signing_key).expect("HMAC takes any key length");
        mac.update(format!("PUT\n{key}\n{expires}\n{max_bytes}").as_bytes());
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }
}

#[async_trait]
impl BlobStore for FileBlobStore {
    async fn put(&self, key: &str, bytes: Vec<u8>, _content_type: &str) -> StoreResult<()> {
        let path = self.path(key)?;
        tokio::task::spawn_blocking(move || {
            let dir = path.parent().ok_or_else(|| StoreError::Unavailable("blob without a directory".into()))?;
            private_dirs(dir).map_err(unavailable)?;
            // Write then rename: a reader never sees half a file.
            let tmp = path.with_extension("partial");
            write_private(&tmp, &bytes).map_err(unavailable)?;
            std::fs::rename(&tmp, &path).map_err(unavailable)
        })
        .await
        .map_err(unavailable)?
    }

    async fn put_stream(
        &self,
        key: &str,
        _content_type: &str,
        body: &mut ByteStream<'_>,
        max_bytes: u64,
    ) -> Result<u64, StreamPutError> {
        use tokio::io::AsyncWriteExt;
        let path = self.path(key)?;
        let dir = path.parent().ok_or_else(|| StoreError::Unavailable("blob without a directory".into()))?;
        let dir = dir.to_path_buf();
        tokio::task::spawn_blocking(move || private_dirs(&dir)).await.map_err(unavailable)?.map_err(unavailable)?;
        let tmp = partial_path(&path);
        let mut file = tokio::fs::OpenOptions::from(private_file_options()).open(&tmp).await.map_err(unavailable)?;
        let mut size: u64 = 0;
        let written: Result<(), StreamPutError> = async {
            while let Some(chunk) = body.next().await {
                let chunk = chunk.map_err(StreamPutError::Body)?;
                size += chunk.len() as u64;
                if size > max_bytes {
                    return Err(StreamPutError::TooLarge { max_bytes });
                }
                file.write_all(&chunk).await.map_err(|e| StreamPutError::Store(unavailable(e)))?;
            }
            file.flush().await.map_err(|e| StreamPutError::Store(unavailable(e)))
        }
        .await;
        drop(file);
        match written {
            // Write then rename: a reader never sees half a file.
            Ok(()) => match tokio::fs::rename(&tmp, &path).await {
                Ok(()) => Ok(size),
                Err(e) => {
                    let _ = tokio::fs::remove_file(&tmp).await;
                    Err(StreamPutError::Store(unavailable(e)))
                }
            },
            Err(e) => {
                let _ = tokio::fs::remove_file(&tmp).await;
                Err(e)
            }
        }
    }

    async fn read(&self, key: &str, range: Option<ByteRange>) -> StoreResult<Option<BlobRead>> {
        use tokio::io::{AsyncReadExt, AsyncSeekExt};
        let Some((mut file, size)) = self.open(key).await? else { return Ok(None) };
        let (start, len) = match range {
            Some(r) if r.start <= r.end && r.end < size => (r.start, r.end - r.start + 1),
            Some(_) => return Err(StoreError::Unavailable(format!("range outside a blob of {size} bytes"))),
            None => (0, size),
        };
        file.seek(std::io::SeekFrom::Start(start)).await.map_err(unavailable)?;
        let body = tokio_util::io::ReaderStream::with_capacity(file.take(len), READ_CHUNK);
        Ok(Some(BlobRead { size, body: Box::pin(body) }))
    }

    async fn get(&self, key: &str) -> StoreResult<Option<Vec<u8>>> {
        let Ok(path) = self.path(key) else { return Ok(None) };
        match tokio::fs::read(&path).await {
            Ok(b) => Ok(Some(b)),
            Err(e) if no_such_blob(&e) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn head(&self, key: &str, max_bytes: u64) -> StoreResult<Option<BlobHead>> {
        use tokio::io::AsyncReadExt;
        let Some((file, size)) = self.open(key).await? else { return Ok(None) };
        let mut bytes = Vec::with_capacity(usize::try_from(size.min(max_bytes)).unwrap_or(0));
        file.take(max_bytes).read_to_end(&mut bytes).await.map_err(unavailable)?;
        Ok(Some(BlobHead { bytes, size }))
    }

    async fn delete(&self, key: &str) -> StoreResult<()> {
        let Ok(path) = self.path(key) else { return Ok(()) };
        match tokio::fs::remove_file(&path).await {
            Ok(()) => {
                // Remove the now-empty upload directory; ignore failure (not empty, raced).
                if let Some(dir) = path.parent() {
                    let _ = tokio::fs::remove_dir(dir).await;
                }
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn delete_prefix(&self, prefix: &str) -> StoreResult<u64> {
        let Some(key) = prefix.strip_suffix('/').filter(|k| valid_blob_key(k)) else { return Ok(0) };
        let dir = self.root.join(key);
        tokio::task::spawn_blocking(move || {
            let files = count_files(&dir);
            match std::fs::remove_dir_all(&dir) {
                Ok(()) => Ok(files),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
                Err(e) => Err(unavailable(e)),
            }
        })
        .await
        .map_err(unavailable)?
    }

    fn public_url(&self, key: &str) -> String {
        format!("{}/files/{key}", self.public_base)
    }

    fn key_for_url(&self, url: &str) -> Option<String> {
        let key = url.strip_prefix(&self.public_base)?.strip_prefix("/files/")?;
        let key = key.split(['?', '#']).next()?;
        valid_blob_key(key).then(|| key.to_owned())
    }

    fn verify_signed_put(&self, key: &str, query: &str, size: u64, now: Timestamp) -> Result<(), UploadRefusal> {
        let get = |name: &str| {
            query.split('&').find_map(|kv| kv.split_once('=').filter(|(k, _)| *k == name).map(|(_, v)| v.to_owned()))
        };
        let (Some(expires), Some(max), Some(sig)) = (get("expires"), get("maxBytes"), get("signature")) else {
            return Err(UploadRefusal::BadSignature);
        };
        let (Ok(expires), Ok(max)) = (expires.parse::<i64>(), max.parse::<u64>()) else {
            return Err(UploadRefusal::BadSignature);
        };
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.signing_key).expect("HMAC takes any key length");
        mac.update(format!("PUT\n{key}\n{expires}\n{max}").as_bytes());
        let given = URL_SAFE_NO_PAD.decode(sig).map_err(|_| UploadRefusal::BadSignature)?;
        mac.verify_slice(&given).map_err(|_| UploadRefusal::BadSignature)?;
        if now.millis() > expires {
            return Err(UploadRefusal::Expired);
        }
        if size > max {
            return Err(UploadRefusal::TooLarge { max_bytes: max });
        }
        Ok(())
    }

    fn presign_put(
        &self,
        key: &str,
        content_type: &str,
        max_bytes: u64,
        expires_at: Timestamp,
    ) -> StoreResult<PresignedUpload> {
        self.path(key)?;
        let expires = expires_at.millis();
        let sig = self.signature(key, expires, max_bytes);
        Ok(PresignedUpload {
            upload_url: format!("{}?expires={expires}&maxBytes={max_bytes}&signature={sig}", self.public_url(key)),
            method: "PUT",
            headers: vec![("content-type".into(), content_type.to_owned())],
            expires_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn files_round_trip_and_urls_map_back_to_keys() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileBlobStore::new(dir.path(), "http://h:1/", b"k".to_vec());
        store.put("ws_a/upl_b/doc.pdf", b"%PDF-1.4".to_vec(), "application/pdf").await.unwrap();
        assert_eq!(store.get("ws_a/upl_b/doc.pdf").await.unwrap().unwrap(), b"%PDF-1.4");
        let url = store.public_url("ws_a/upl_b/doc.pdf");
        assert_eq!(url, "http://h:1/files/ws_a/upl_b/doc.pdf");
        assert_eq!(store.key_for_url(&url).as_deref(), Some("ws_a/upl_b/doc.pdf"));
        assert_eq!(store.key_for_url("http://evil/files/ws_a/upl_b/doc.pdf"), None);
        assert_eq!(store.key_for_url("http://h:1/files/../etc/passwd"), None);
        store.delete("ws_a/upl_b/doc.pdf").await.unwrap();
        assert_eq!(store.get("ws_a/upl_b/doc.pdf").await.unwrap(), None);
        assert!(store.put("../x", vec![1], "x").await.is_err());
    }

    #[tokio::test]
    async fn keys_naming_directories_are_no_blob_and_stored_files_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileBlobStore::new(dir.path(), "http://h:1/", b"k".to_vec());
        store.put("ws_a/upl_b/doc.md", b"# Hi".to_vec(), "text/markdown").await.unwrap();
        assert_eq!(store.get("ws_a").await.unwrap(), None);
        assert_eq!(store.get("ws_a/upl_b").await.unwrap(), None);
        assert_eq!(store.get("ws_a/upl_b/doc.md/x").await.unwrap(), None);
        assert!(store.head("ws_a/upl_b", 10).await.unwrap().is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dir.path().join("ws_a")), 0o700);
            assert_eq!(mode(&dir.path().join("ws_a/upl_b")), 0o700);
            assert_eq!(mode(&dir.path().join("ws_a/upl_b/doc.md")), 0o600);
        }
    }

    #[test]
    fn signed_uploads_verify_expire_and_cap() {
        let store = FileBlobStore::new(Path::new("/nonexistent"), "http://h", b"secret".to_vec());
        let exp = Timestamp::from_millis(2_000_000);
        let up = store.presign_put("ws_a/upl_b/f.txt", "text/plain", 100, exp).unwrap();
        let query = up.upload_url.split_once('?').unwrap().1.to_owned();
        let now = Timestamp::from_millis(1_000_000);
        assert_eq!(store.verify_signed_put("ws_a/upl_b/f.txt", &query, 100, now), Ok(()));
        assert_eq!(
            store.verify_signed_put("ws_a/upl_b/f.txt", &query, 101, now),
            Err(UploadRefusal::TooLarge { max_bytes: 100 })
        );
        assert_eq!(store.verify_signed_put("ws_a/upl_b/other.txt", &query, 1, now), Err(UploadRefusal::BadSignature));
        let later = Timestamp::from_millis(2_000_001);
        assert_eq!(store.verify_signed_put("ws_a/upl_b/f.txt", &query, 1, later), Err(UploadRefusal::Expired));
        let forged = query.replace("maxBytes=100", "maxBytes=100000");
        assert_eq!(store.verify_signed_put("ws_a/upl_b/f.txt", &forged, 1, now), Err(UploadRefusal::BadSignature));
    }
}
