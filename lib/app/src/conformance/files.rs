//! Blob storage: whole and streamed puts, ranged reads, signed uploads.

use super::*;

pub async fn blobs(p: &Stores, unique: &str) {
    let key = format!("ws_conformance/upl_{unique}/notes.txt");
    p.blobs.put(&key, b"hello".to_vec(), "text/plain").await.unwrap();
    assert_eq!(p.blobs.get(&key).await.unwrap().as_deref(), Some(&b"hello"[..]));
    let head = |bytes: &[u8], size| Some(crate::ports::BlobHead { bytes: bytes.to_vec(), size });
    assert_eq!(p.blobs.head(&key, 2).await.unwrap(), head(b"he", 5), "the head and the whole size");
    assert_eq!(p.blobs.head(&key, 64).await.unwrap(), head(b"hello", 5), "a short blob whole");
    assert_eq!(p.blobs.head(&format!("{key}.absent"), 2).await.unwrap(), None);
    let url = p.blobs.public_url(&key);
    assert_eq!(p.blobs.key_for_url(&url), Some(key.clone()), "a handed-out URL maps back to its key");
    assert_eq!(p.blobs.key_for_url("https://elsewhere.example/files/x"), None);
    p.blobs.delete(&key).await.unwrap();
    assert_eq!(p.blobs.get(&key).await.unwrap(), None);
    p.blobs.delete(&key).await.expect("deleting twice is fine");

    // Deleting by prefix takes every blob under it, at any depth, and nothing beside it.
    let owner = format!("ws_conformance/mind_{unique}/");
    let keys = [format!("{owner}upl_a/a.txt"), format!("{owner}upl_b/b.txt"), format!("{owner}upl_b/deep/c.txt")];
    let beside = format!("ws_conformance/mind_{unique}x/upl_c/keep.txt");
    for k in keys.iter().chain([&beside]) {
        p.blobs.put(k, b"x".to_vec(), "text/plain").await.unwrap();
    }
    assert_eq!(p.blobs.delete_prefix(&owner).await.unwrap(), 3);
    for k in &keys {
        assert_eq!(p.blobs.get(k).await.unwrap(), None, "{k}");
    }
    assert_eq!(p.blobs.get(&beside).await.unwrap().as_deref(), Some(&b"x"[..]), "a sibling prefix is kept");
    assert_eq!(p.blobs.delete_prefix(&owner).await.unwrap(), 0, "nothing left");
    for bad in ["", "/", "../", "ws_conformance", "ws_conformance/../"] {
        assert_eq!(p.blobs.delete_prefix(bad).await.unwrap(), 0, "{bad:?} deletes nothing");
    }
    assert!(p.blobs.get(&beside).await.unwrap().is_some());
    p.blobs.delete(&beside).await.unwrap();
}

/// A body of `chunks` chunks of `chunk` bytes each (byte `i` of the whole is `i % 251`), then
/// `tail` (an error ends a body that fails).
fn body_of(chunks: usize, chunk: usize, tail: Option<std::io::Error>) -> crate::ports::ByteStream<'static> {
    use futures::StreamExt;
    let parts = (0..chunks)
        .map(move |n| Ok(bytes::Bytes::from((0..chunk).map(|i| ((n * chunk + i) % 251) as u8).collect::<Vec<u8>>())));
    Box::pin(futures::stream::iter(parts).chain(futures::stream::iter(tail.map(Err))))
}

async fn collect(read: crate::ports::BlobRead) -> Vec<u8> {
    use futures::StreamExt;
    let mut out = Vec::new();
    let mut body = read.body;
    while let Some(chunk) = body.next().await {
        out.extend_from_slice(&chunk.expect("a stored blob reads"));
    }
    out
}

/// Streamed puts and reads: bounded, all-or-nothing, ranges.
pub async fn blob_streams(p: &Stores, unique: &str) {
    use crate::ports::{ByteRange, StreamPutError};
    let expected = |len: usize| (0..len).map(|i| (i % 251) as u8).collect::<Vec<u8>>();
    let key = format!("ws_conformance/upl_{unique}s/big.bin");
    // 20 MiB in 1 MiB chunks: several parts where the store uploads in parts.
    let size = p.blobs.put_stream(&key, "application/octet-stream", &mut body_of(20, 1 << 20, None), 20 << 20).await;
    assert_eq!(size.unwrap(), 20 << 20, "the stored size");
    let whole = p.blobs.read(&key, None).await.unwrap().expect("the streamed blob");
    assert_eq!(whole.size, 20 << 20);
    assert!(collect(whole).await == expected(20 << 20), "the streamed bytes read back whole");
    let range = ByteRange { start: 9 << 20, end: (9 << 20) + 9 };
    let part = p.blobs.read(&key, Some(range)).await.unwrap().expect("a range");
    assert_eq!(part.size, 20 << 20, "a range still tells the whole size");
    assert_eq!(collect(part).await, expected(20 << 20)[(9 << 20)..(9 << 20) + 10].to_vec());
    assert!(p.blobs.read(&format!("{key}.absent"), None).await.unwrap().is_none());

    // Over the limit: refused, and nothing stored (also not a previous version's replacement).
    let over = format!("ws_conformance/upl_{unique}s/over.bin");
    let refused = p.blobs.put_stream(&over, "application/octet-stream", &mut body_of(10, 1 << 20, None), 9 << 20).await;
    assert!(matches!(refused, Err(StreamPutError::TooLarge { max_bytes }) if max_bytes == 9 << 20), "{refused:?}");
    assert_eq!(p.blobs.get(&over).await.unwrap(), None, "nothing of a refused body is kept");
    let small = p.blobs.put_stream(&over, "text/plain", &mut body_of(1, 3, None), 10).await;
    assert_eq!(small.unwrap(), 3);
    let broken = std::io::Error::new(std::io::ErrorKind::TimedOut, "stalled");
    let failed = p.blobs.put_stream(&over, "text/plain", &mut body_of(12, 1 << 20, Some(broken)), 64 << 20).await;
    assert!(matches!(failed, Err(StreamPutError::Body(_))), "{failed:?}");
    assert_eq!(p.blobs.get(&over).await.unwrap(), Some(expected(3)), "a failed body leaves the old blob whole");
    for k in [&key, &over] {
        p.blobs.delete(k).await.unwrap();
    }
}
