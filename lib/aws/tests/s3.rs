//! S3 beyond the shared blob suite: presigned PUTs that a plain HTTP client can use, signing
//! without an async runtime, and file URLs built from the CDN base.

mod support;

use lore_aws::AwsBackend;
use lore_domain::Timestamp;

fn in_15_minutes() -> Timestamp {
    Timestamp::from_millis(Timestamp::now().millis() + 15 * 60 * 1000)
}

async fn upload_through(b: &AwsBackend, key: &str, body: &[u8]) -> reqwest::Response {
    let up = b.ports.blobs.presign_put(key, "text/plain", body.len() as u64, in_15_minutes()).unwrap();
    assert_eq!(up.method, "PUT");
    let mut put = reqwest::Client::new().put(&up.upload_url).body(body.to_vec());
    for (name, value) in &up.headers {
        put = put.header(name, value);
    }
    put.send().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_presigned_put_uploads_the_file() {
    let b = support::backend("presign").await;
    let key = "ws_test/upl_1/notes.txt";
    let up = b.ports.blobs.presign_put(key, "text/plain", 11, in_15_minutes()).unwrap();
    let url = reqwest::Url::parse(&up.upload_url).unwrap();
    let q: std::collections::HashMap<String, String> = url.query_pairs().into_owned().collect();
    assert!(q.contains_key("X-Amz-Signature") && q.contains_key("X-Amz-Credential"), "{}", up.upload_url);
    let expires: u64 = q["X-Amz-Expires"].parse().unwrap();
    assert!((890..=900).contains(&expires), "valid until expires_at: {expires}");
    let signed = &q["X-Amz-SignedHeaders"];
    assert!(signed.contains("content-type") && signed.contains("content-length"), "size and type are signed: {signed}");
    assert!(up.headers.contains(&("content-type".into(), "text/plain".into())), "{:?}", up.headers);
    assert!((up.expires_at.millis() - in_15_minutes().millis()).abs() < 5_000);

    let res = upload_through(&b, key, b"hello world").await;
    assert!(res.status().is_success(), "PUT {}: {}", res.status(), res.text().await.unwrap_or_default());
    assert_eq!(b.ports.blobs.get(key).await.unwrap().as_deref(), Some(&b"hello world"[..]));
    let head = b.s3.client().head_object().bucket(b.s3.bucket()).key(key).send().await.unwrap();
    assert_eq!(head.content_type(), Some("text/plain"));
}

/// `presign_put` is synchronous: it signs with credentials already at hand, so it works on
/// any runtime flavour and outside of one, without blocking.
#[test]
fn presigning_needs_no_runtime() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let b = rt.block_on(support::backend("presync"));
    let up = b.ports.blobs.presign_put("ws_a/upl_b/c.pdf", "application/pdf", 5, in_15_minutes()).unwrap();
    assert!(up.upload_url.contains("X-Amz-Signature="));
    let inside =
        rt.block_on(async { b.ports.blobs.presign_put("ws_a/upl_b/c.pdf", "application/pdf", 5, in_15_minutes()) });
    assert!(inside.unwrap().upload_url.contains("X-Amz-Signature="));
    assert!(b.ports.blobs.presign_put("../etc/passwd", "text/plain", 5, in_15_minutes()).is_err(), "unsafe keys");
}

#[tokio::test]
async fn file_urls_come_from_the_cdn_base() {
    let mut settings = support::settings(&support::unique("cdn"));
    settings.cdn_base_url = Some("https://d111111abcdef8.cloudfront.net".into());
    let b = support::backend_with(settings).await;
    let key = "ws_x/upl_y/doc.pdf";
    let url = b.ports.blobs.public_url(key);
    assert_eq!(url, "https://d111111abcdef8.cloudfront.net/ws_x/upl_y/doc.pdf");
    assert_eq!(b.ports.blobs.key_for_url(&url).as_deref(), Some(key));
    assert_eq!(b.ports.blobs.key_for_url(&format!("{url}?v=1")).as_deref(), Some(key));
    assert_eq!(b.ports.blobs.key_for_url("https://d111111abcdef8.cloudfront.net/../x"), None);
    assert_eq!(b.ports.blobs.key_for_url("https://elsewhere.example/ws_x/upl_y/doc.pdf"), None);
}

/// Without a CDN, the file URL is the object's own S3 URL. The bucket is private (production
/// serves it through CloudFront with origin access control), so an anonymous GET of that URL is
/// refused: the fallback is for buckets a deployment makes publicly readable.
#[tokio::test]
async fn without_a_cdn_file_urls_are_the_objects_s3_urls() {
    let name = support::unique("nocdn");
    let b = support::backend_with(support::settings(&name)).await;
    let key = "ws_x/upl_y/a.txt";
    b.ports.blobs.put(key, b"abc".to_vec(), "text/plain").await.unwrap();
    let url = b.ports.blobs.public_url(key);
    assert_eq!(url, format!("{}/{name}/{key}", support::moto_url()));
    assert_eq!(b.ports.blobs.key_for_url(&url).as_deref(), Some(key));
    assert_eq!(reqwest::get(&url).await.unwrap().status(), reqwest::StatusCode::FORBIDDEN, "private bucket");
    assert_eq!(b.ports.blobs.get(key).await.unwrap().as_deref(), Some(&b"abc"[..]));
    assert_eq!(b.ports.blobs.get("ws_x/upl_y/absent.txt").await.unwrap(), None);
    assert!(b.ports.blobs.put("a/../b", vec![1], "text/plain").await.is_err());
}
