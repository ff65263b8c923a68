//! Files in S3 behind the `BlobStore` port, served to clients from a CDN (CloudFront) in front
//! of the bucket: `fileUrl = <LORE_CDN_BASE_URL>/<key>`. Direct uploads are S3 presigned PUTs.

use crate::lazy_client::LazyClient;
use crate::settings::AwsSettings;
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_credential_types::Credentials;
use aws_credential_types::provider::error::CredentialsError;
use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider, future};
use aws_sdk_s3::Client;
use aws_sdk_s3::config::IdentityCache;
use aws_sdk_s3::error::DisplayErrorContext;
use aws_sdk_s3::presigning::PresigningConfig;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{CompletedMultipartUpload, CompletedPart};
use futures::StreamExt;
use lore_app::ports::{
    BlobHead, BlobRead, BlobStore, ByteRange, ByteStream as Body, Bytes, PresignedUpload, StreamPutError,
};
use lore_app::ports::{StoreError, StoreResult, valid_blob_key};
use lore_domain::Timestamp;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, SystemTime};

/// The part size of a streamed put: what one upload holds in memory. A body shorter than one
/// part is a single PUT; S3's smallest part (but the last) is 5 MiB.
const PART_BYTES: usize = 8 * 1024 * 1024;

/// Reads `body` until `buf` holds `PART_BYTES` or the body ends, counting against `max_bytes`.
/// True when the body ended.
async fn fill_part(
    body: &mut Body<'_>,
    buf: &mut Vec<u8>,
    size: &mut u64,
    max_bytes: u64,
) -> Result<bool, StreamPutError> {
    while buf.len() < PART_BYTES {
        match body.next().await {
            None => return Ok(true),
            Some(chunk) => {
                let chunk = chunk.map_err(StreamPutError::Body)?;
                *size += chunk.len() as u64;
                if *size > max_bytes {
                    return Err(StreamPutError::TooLarge { max_bytes });
                }
                buf.extend_from_slice(&chunk);
            }
        }
    }
    Ok(false)
}

/// The longest a SigV4 presigned URL may live.
const MAX_PRESIGN: Duration = Duration::from_secs(7 * 24 * 3600);

pub struct S3BlobStore {
    client: LazyClient<Client>,
    /// Signs upload URLs without I/O: credentials come from [`CredentialSnapshot`].
    presigner: LazyClient<Client>,
    credentials: Arc<CredentialSnapshot>,
    bucket: String,
    public_base: String,
}

fn unavailable(e: impl std::error::Error + 'static) -> StoreError {
    StoreError::Unavailable(format!("s3: {}", DisplayErrorContext(e)))
}

/// Where clients fetch the bucket's objects: the CDN when configured, else the bucket's S3 URL.
pub fn public_base(settings: &AwsSettings, region: Option<&str>) -> String {
    if let Some(cdn) = &settings.cdn_base_url {
        return cdn.trim_end_matches('/').to_owned();
    }
    let bucket = &settings.bucket;
    match &settings.s3_endpoint {
        Some(endpoint) if settings.s3_force_path_style => format!("{}/{bucket}", endpoint.trim_end_matches('/')),
        Some(endpoint) => match endpoint.trim_end_matches('/').split_once("://") {
            Some((scheme, host)) => format!("{scheme}://{bucket}.{host}"),
            None => format!("https://{bucket}.{endpoint}"),
        },
        None => format!("https://{bucket}.s3.{}.amazonaws.com", region.unwrap_or("us-east-1")),
    }
}

/// Polls a future once. The presigning future of a client whose credentials are at hand and
/// uncached finishes on its first poll; anything else is refused rather than blocked on, since
/// `presign_put` is synchronous and may run on any runtime (or none).
fn poll_once<F: Future>(fut: F) -> Option<F::Output> {
    let mut fut = std::pin::pin!(fut);
    match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}

/// The last credentials resolved by the real provider chain, for synchronous signing. Refreshed
/// by every async S3 call (and in the background by a presign) when they near their expiry.
#[derive(Debug)]
struct CredentialSnapshot {
    source: Option<SharedCredentialsProvider>,
    current: RwLock<Option<Credentials>>,
    refreshing: AtomicBool,
}

/// Credentials this close to expiry are refreshed; a presigned URL lives at most 15 minutes in
/// the app, so they stay valid for its whole life.
const REFRESH_MARGIN: Duration = Duration::from_secs(20 * 60);

impl CredentialSnapshot {
    fn valid_for(&self, margin: Duration) -> Option<Credentials> {
        let creds = self.current.read().unwrap_or_else(|p| p.into_inner()).clone()?;
        match creds.expiry() {
            Some(expiry) if expiry < SystemTime::now() + margin => None,
            _ => Some(creds),
        }
    }

    async fn refresh(&self) -> StoreResult<()> {
        let Some(source) = &self.source else {
            return Err(StoreError::Unavailable("s3: no credentials provider configured".into()));
        };
        let creds = source
            .provide_credentials()
            .await
            .map_err(|e| StoreError::Unavailable(format!("s3 credentials: {}", DisplayErrorContext(e))))?;
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Some(creds);
        Ok(())
    }

    async fn refresh_if_needed(&self) {
        if self.valid_for(REFRESH_MARGIN).is_none()
            && let Err(e) = self.refresh().await
        {
            tracing::warn!(error = %e, "could not refresh the credentials used to presign uploads");
        }
    }
}

#[derive(Debug)]
struct SnapshotProvider(Arc<CredentialSnapshot>);

impl ProvideCredentials for SnapshotProvider {
    fn provide_credentials<'a>(&'a self) -> future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        future::ProvideCredentials::ready(
            self.0
                .valid_for(Duration::from_secs(60))
                .ok_or_else(|| CredentialsError::not_loaded("no fresh credentials")),
        )
    }
}

impl S3BlobStore {
    /// Uploads `first` and then the rest of `body` as the parts of `upload_id`, then completes it.
    async fn upload_parts(
        &self,
        key: &str,
        upload_id: &str,
        body: &mut Body<'_>,
        first: Vec<u8>,
        size: &mut u64,
        max_bytes: u64,
    ) -> Result<(), StreamPutError> {
        let mut parts = Vec::new();
        let mut buf = first;
        loop {
            let number = i32::try_from(parts.len() + 1).unwrap_or(i32::MAX);
            let part = Bytes::from(std::mem::replace(&mut buf, Vec::with_capacity(PART_BYTES)));
            let out = self
                .client()
                .upload_part()
                .bucket(&self.bucket)
                .key(key)
                .upload_id(upload_id)
                .part_number(number)
                .body(ByteStream::from(part))
                .send()
                .await
                .map_err(unavailable)?;
            parts.push(CompletedPart::builder().part_number(number).set_e_tag(out.e_tag).build());
            let ended = fill_part(body, &mut buf, size, max_bytes).await?;
            if ended && buf.is_empty() {
                break;
            }
            // Else the next part: a full one, or the last, shorter one (then `fill_part` ends
            // at once on the next turn with an empty buffer).
        }
        self.client()
            .complete_multipart_upload()
            .bucket(&self.bucket)
            .key(key)
            .upload_id(upload_id)
            .multipart_upload(CompletedMultipartUpload::builder().set_parts(Some(parts)).build())
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    /// A store over `settings.bucket`; resolves credentials once for presigning.
    pub async fn new(sdk: &SdkConfig, settings: &AwsSettings) -> Self {
        let base = aws_sdk_s3::config::Builder::from(sdk).force_path_style(settings.s3_force_path_style);
        let plain = base.clone();
        let client = LazyClient::new(move || Client::from_conf(plain.clone().build()));
        let credentials = Arc::new(CredentialSnapshot {
            source: sdk.credentials_provider(),
            current: RwLock::new(None),
            refreshing: AtomicBool::new(false),
        });
        if let Err(e) = credentials.refresh().await {
            tracing::warn!(error = %e, "no credentials for presigned uploads yet");
        }
        let signing =
            base.credentials_provider(SnapshotProvider(credentials.clone())).identity_cache(IdentityCache::no_cache());
        let presigner = LazyClient::new(move || Client::from_conf(signing.clone().build()));
        Self {
            client,
            presigner,
            credentials,
            bucket: settings.bucket.clone(),
            public_base: public_base(settings, sdk.region().map(|r| r.as_ref())),
        }
    }

    pub fn client(&self) -> &Client {
        self.client.get()
    }

    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    fn check(key: &str) -> StoreResult<()> {
        if valid_blob_key(key) { Ok(()) } else { Err(StoreError::Unavailable(format!("invalid blob key {key:?}"))) }
    }

    fn refresh_in_background(&self) {
        if self.credentials.valid_for(REFRESH_MARGIN).is_some() {
            return;
        }
        let Ok(handle) = tokio::runtime::Handle::try_current() else { return };
        if self.credentials.refreshing.swap(true, Ordering::AcqRel) {
            return;
        }
        let creds = self.credentials.clone();
        handle.spawn(async move {
            creds.refresh_if_needed().await;
            creds.refreshing.store(false, Ordering::Release);
        });
    }
}

#[async_trait]
impl BlobStore for S3BlobStore {
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> StoreResult<()> {
        Self::check(key)?;
        self.credentials.refresh_if_needed().await;
        self.client()
            .put_object()
            .bucket(&self.bucket)
            .key(key)
            .content_type(content_type)
            .body(ByteStream::from(bytes))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn put_stream(
        &self,
        key: &str,
        content_type: &str,
        body: &mut Body<'_>,
        max_bytes: u64,
    ) -> Result<u64, StreamPutError> {
        Self::check(key)?;
        let mut size = 0;
        let mut buf = Vec::with_capacity(PART_BYTES.min(usize::try_from(max_bytes).unwrap_or(PART_BYTES)));
        if fill_part(body, &mut buf, &mut size, max_bytes).await? {
            self.put(key, buf, content_type).await?;
            return Ok(size);
        }
        // Larger than one part: a multipart upload, aborted on any failure so no part lingers.
        self.credentials.refresh_if_needed().await;
        let created = self
            .client()
            .create_multipart_upload()
            .bucket(&self.bucket)
            .key(key)
            .content_type(content_type)
            .send()
            .await
            .map_err(unavailable)?;
        let upload_id = created.upload_id.ok_or_else(|| StoreError::Unavailable("s3: no upload id".into()))?;
        let result = self.upload_parts(key, &upload_id, body, buf, &mut size, max_bytes).await;
        if result.is_err() {
            let abort = self.client().abort_multipart_upload().bucket(&self.bucket).key(key).upload_id(&upload_id);
            if let Err(e) = abort.send().await {
                tracing::warn!(key, error = %DisplayErrorContext(e), "could not abort a multipart upload");
            }
        }
        result.map(|()| size)
    }

    async fn read(&self, key: &str, range: Option<ByteRange>) -> StoreResult<Option<BlobRead>> {
        if !valid_blob_key(key) {
            return Ok(None);
        }
        self.credentials.refresh_if_needed().await;
        let mut request = self.client().get_object().bucket(&self.bucket).key(key);
        if let Some(r) = range {
            request = request.range(format!("bytes={}-{}", r.start, r.end));
        }
        match request.send().await {
            Ok(out) => {
                let length = out.content_length.unwrap_or(0).max(0) as u64;
                let size = out
                    .content_range
                    .as_deref()
                    .and_then(|r| r.rsplit('/').next()?.parse::<u64>().ok())
                    .unwrap_or(length);
                let stream = futures::stream::unfold(out.body, |mut b| async move {
                    let next = b.next().await?;
                    Some((next.map_err(std::io::Error::other), b))
                });
                Ok(Some(BlobRead { size, body: Box::pin(stream) }))
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_key()) => Ok(None),
            Err(e) if e.raw_response().is_some_and(|r| r.status().as_u16() == 404) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn get(&self, key: &str) -> StoreResult<Option<Vec<u8>>> {
        if !valid_blob_key(key) {
            return Ok(None);
        }
        self.credentials.refresh_if_needed().await;
        match self.client().get_object().bucket(&self.bucket).key(key).send().await {
            Ok(out) => Ok(Some(out.body.collect().await.map_err(unavailable)?.into_bytes().to_vec())),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_key()) => Ok(None),
            Err(e) if e.raw_response().is_some_and(|r| r.status().as_u16() == 404) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn head(&self, key: &str, max_bytes: u64) -> StoreResult<Option<BlobHead>> {
        if !valid_blob_key(key) {
            return Ok(None);
        }
        self.credentials.refresh_if_needed().await;
        // A ranged GET: `Content-Range: bytes 0-N/<size>` tells the whole size.
        let range = format!("bytes=0-{}", max_bytes.max(1) - 1);
        match self.client().get_object().bucket(&self.bucket).key(key).range(range).send().await {
            Ok(out) => {
                let total = out.content_range.as_deref().and_then(|r| r.rsplit('/').next()?.parse::<u64>().ok());
                let length = out.content_length.unwrap_or(0).max(0) as u64;
                let mut bytes = out.body.collect().await.map_err(unavailable)?.into_bytes().to_vec();
                bytes.truncate(usize::try_from(max_bytes).unwrap_or(usize::MAX));
                Ok(Some(BlobHead { size: total.unwrap_or(length), bytes }))
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_key()) => Ok(None),
            Err(e) if e.raw_response().is_some_and(|r| r.status().as_u16() == 404) => Ok(None),
            // An empty object cannot satisfy a range.
            Err(e) if e.raw_response().is_some_and(|r| r.status().as_u16() == 416) => {
                Ok(Some(BlobHead { bytes: Vec::new(), size: 0 }))
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn delete(&self, key: &str) -> StoreResult<()> {
        if !valid_blob_key(key) {
            return Ok(());
        }
        self.credentials.refresh_if_needed().await;
        // S3 deletes are idempotent: deleting an absent key succeeds.
        self.client().delete_object().bucket(&self.bucket).key(key).send().await.map_err(unavailable)?;
        Ok(())
    }

    async fn delete_prefix(&self, prefix: &str) -> StoreResult<u64> {
        if !prefix.strip_suffix('/').is_some_and(valid_blob_key) {
            return Ok(0);
        }
        self.credentials.refresh_if_needed().await;
        let mut deleted = 0;
        let mut token = None;
        loop {
            // A page holds at most 1,000 keys, which is also what one DeleteObjects takes.
            let page = self
                .client()
                .list_objects_v2()
                .bucket(&self.bucket)
                .prefix(prefix)
                .set_continuation_token(token.take())
                .send()
                .await
                .map_err(unavailable)?;
            let objects = page
                .contents()
                .iter()
                .filter_map(|o| o.key())
                .map(|k| aws_sdk_s3::types::ObjectIdentifier::builder().key(k).build().map_err(unavailable))
                .collect::<StoreResult<Vec<_>>>()?;
            if !objects.is_empty() {
                let n = objects.len() as u64;
                let delete = aws_sdk_s3::types::Delete::builder()
                    .set_objects(Some(objects))
                    .quiet(true)
                    .build()
                    .map_err(unavailable)?;
                let out = self
                    .client()
                    .delete_objects()
                    .bucket(&self.bucket)
                    .delete(delete)
                    .send()
                    .await
                    .map_err(unavailable)?;
                if let Some(e) = out.errors().first() {
                    return Err(StoreError::Unavailable(format!(
                        "s3 could not delete {}: {}",
                        e.key().unwrap_or("?"),
                        e.message().unwrap_or("")
                    )));
                }
                deleted += n;
            }
            match page.next_continuation_token() {
                Some(t) if page.is_truncated() == Some(true) => token = Some(t.to_owned()),
                _ => return Ok(deleted),
            }
        }
    }

    fn public_url(&self, key: &str) -> String {
        format!("{}/{key}", self.public_base)
    }

    fn key_for_url(&self, url: &str) -> Option<String> {
        let key = url.strip_prefix(&self.public_base)?.strip_prefix('/')?;
        let key = key.split(['?', '#']).next()?;
        valid_blob_key(key).then(|| key.to_owned())
    }

    /// A SigV4 presigned `PUT` with `Content-Type` and `Content-Length` signed: S3 refuses a
    /// body of any other length, so the upload is exactly the declared size, at most
    /// `max_bytes`. (Only POST policies can express "up to"; a PUT states its length.)
    fn presign_put(
        &self,
        key: &str,
        content_type: &str,
        max_bytes: u64,
        expires_at: Timestamp,
    ) -> StoreResult<PresignedUpload> {
        Self::check(key)?;
        self.refresh_in_background();
        let now = SystemTime::now();
        let now_ms = Timestamp::now().millis();
        let ttl = Duration::from_millis((expires_at.millis() - now_ms).max(1000) as u64).min(MAX_PRESIGN);
        let config = PresigningConfig::builder()
            .start_time(now)
            .expires_in(ttl)
            .build()
            .map_err(|e| StoreError::Unavailable(format!("s3 presigning: {e}")))?;
        let request = self
            .presigner
            .get()
            .put_object()
            .bucket(&self.bucket)
            .key(key)
            .content_type(content_type)
            .content_length(i64::try_from(max_bytes).unwrap_or(i64::MAX))
            .presigned(config);
        let presigned = poll_once(request)
            .ok_or_else(|| StoreError::Unavailable("s3 presigning would have waited for credentials".into()))?
            .map_err(unavailable)?;
        let headers = presigned
            .headers()
            .filter(|(name, _)| !name.eq_ignore_ascii_case("host"))
            .map(|(name, value)| (name.to_ascii_lowercase(), value.to_owned()))
            .collect();
        Ok(PresignedUpload {
            upload_url: presigned.uri().to_owned(),
            method: "PUT",
            headers,
            expires_at: Timestamp::from_millis(now_ms + ttl.as_millis() as i64),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(cdn: Option<&str>, endpoint: Option<&str>, path_style: bool) -> AwsSettings {
        AwsSettings {
            bucket: "files".into(),
            cdn_base_url: cdn.map(str::to_owned),
            s3_endpoint: endpoint.map(str::to_owned),
            s3_force_path_style: path_style,
            ..AwsSettings::default()
        }
    }

    #[test]
    fn public_urls_prefer_the_cdn() {
        assert_eq!(
            public_base(&settings(Some("https://cdn.example.com/"), None, false), None),
            "https://cdn.example.com"
        );
        assert_eq!(
            public_base(&settings(None, None, false), Some("eu-west-1")),
            "https://files.s3.eu-west-1.amazonaws.com"
        );
        assert_eq!(
            public_base(&settings(None, Some("http://127.0.0.1:5000"), true), None),
            "http://127.0.0.1:5000/files"
        );
        assert_eq!(public_base(&settings(None, Some("https://minio.local"), false), None), "https://files.minio.local");
    }

    #[test]
    fn keys_are_safe_path_segments() {
        assert!(valid_blob_key("ws_a/upl_b/doc.pdf"));
        for bad in ["", "../x", "a//b", "a/./b", "a b", "a/b?c", "ä"] {
            assert!(!valid_blob_key(bad), "{bad:?}");
        }
    }
}
