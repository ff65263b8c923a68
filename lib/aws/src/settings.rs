//! Where the AWS resources are: names from the environment, with defaults that match
//! `template.yaml` and `infra/dynamodb.md`.

/// The ingest queue, by URL or by name (resolved with `GetQueueUrl` at connect).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueRef {
    Url(String),
    Name(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsSettings {
    /// `LORE_DYNAMODB_TABLE` (default `lore`): the single table of every record.
    pub table: String,
    /// `LORE_S3_BUCKET` (default `lore-files`): uploaded files.
    pub bucket: String,
    /// `LORE_CDN_BASE_URL`: the CloudFront (or other CDN) origin that serves the bucket;
    /// `fileUrl = <cdn>/<key>`. Unset: the bucket's own S3 URL.
    pub cdn_base_url: Option<String>,
    /// `LORE_INGEST_QUEUE_URL`, else `LORE_INGEST_QUEUE` (a name, default `lore-ingest`).
    pub ingest_queue: QueueRef,
    /// `LORE_DELIVERIES_QUEUE_URL`, else `LORE_DELIVERIES_QUEUE` (a name, default
    /// `lore-deliveries`): where the bus's rule sends `knowledge.source.*` events for the
    /// webhook dispatcher.
    pub deliveries_queue: QueueRef,
    /// `LORE_EVENT_BUS` (default `lore`).
    pub event_bus: String,
    /// `LORE_AWS_BOOTSTRAP=true`: create the missing table, bucket, queues and bus at connect.
    pub bootstrap: bool,
    /// `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`: a non-AWS S3 endpoint (moto, LocalStack,
    /// MinIO). Used for the fallback `fileUrl` form; the SDK reads the same variables itself.
    pub s3_endpoint: Option<String>,
    /// `LORE_S3_FORCE_PATH_STYLE` (default: true exactly when `s3_endpoint` is set):
    /// `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>`.
    pub s3_force_path_style: bool,
}

impl AwsSettings {
    /// A stack whose every resource is named `name` (the deliveries queue `<name>-deliveries`),
    /// created at connect, on the AWS-compatible service at `endpoint` (S3 path-style): a fresh
    /// stack on moto or LocalStack for a test or a bench.
    pub fn local(name: &str, endpoint: &str) -> Self {
        Self {
            table: name.to_owned(),
            bucket: name.to_owned(),
            cdn_base_url: None,
            ingest_queue: QueueRef::Name(name.to_owned()),
            deliveries_queue: QueueRef::Name(format!("{name}-deliveries")),
            event_bus: name.to_owned(),
            bootstrap: true,
            s3_endpoint: Some(endpoint.to_owned()),
            s3_force_path_style: true,
        }
    }
}

pub const DEFAULT_TABLE: &str = "lore";
pub const DEFAULT_BUCKET: &str = "lore-files";
pub const DEFAULT_INGEST_QUEUE: &str = "lore-ingest";
pub const DEFAULT_DELIVERIES_QUEUE: &str = "lore-deliveries";
pub const DEFAULT_EVENT_BUS: &str = "lore";
/// The bus rule that routes knowledge (and form) events to the deliveries queue, as in
/// `template.yaml`.
pub const DELIVERIES_RULE: &str = "lore-webhook-events";

impl AwsSettings {
    /// Reads settings through `get` (the environment, or a map in tests). Empty values count as
    /// unset.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Self {
        let get = |k: &str| get(k).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        let flag = |k: &str| get(k).map(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"));
        let s3_endpoint =
            get("AWS_ENDPOINT_URL_S3").or_else(|| get("AWS_ENDPOINT_URL")).map(|u| u.trim_end_matches('/').to_owned());
        Self {
            table: get("LORE_DYNAMODB_TABLE").unwrap_or_else(|| DEFAULT_TABLE.into()),
            bucket: get("LORE_S3_BUCKET").unwrap_or_else(|| DEFAULT_BUCKET.into()),
            cdn_base_url: get("LORE_CDN_BASE_URL").map(|u| u.trim_end_matches('/').to_owned()),
            ingest_queue: match get("LORE_INGEST_QUEUE_URL") {
                Some(url) => QueueRef::Url(url),
                None => QueueRef::Name(get("LORE_INGEST_QUEUE").unwrap_or_else(|| DEFAULT_INGEST_QUEUE.into())),
            },
            deliveries_queue: match get("LORE_DELIVERIES_QUEUE_URL") {
                Some(url) => QueueRef::Url(url),
                None => QueueRef::Name(get("LORE_DELIVERIES_QUEUE").unwrap_or_else(|| DEFAULT_DELIVERIES_QUEUE.into())),
            },
            event_bus: get("LORE_EVENT_BUS").unwrap_or_else(|| DEFAULT_EVENT_BUS.into()),
            bootstrap: flag("LORE_AWS_BOOTSTRAP").unwrap_or(false),
            s3_force_path_style: flag("LORE_S3_FORCE_PATH_STYLE").unwrap_or(s3_endpoint.is_some()),
            s3_endpoint,
        }
    }

    /// The queue's name: given, or the last segment of its URL.
    pub fn queue_name(queue: &QueueRef) -> String {
        match queue {
            QueueRef::Name(n) => n.clone(),
            QueueRef::Url(u) => u.trim_end_matches('/').rsplit('/').next().unwrap_or_default().to_owned(),
        }
    }

    /// The name of the ingest queue's dead-letter queue (bootstrap creates it beside the queue).
    pub fn dead_letter_queue_name(queue_name: &str) -> String {
        format!("{queue_name}-dlq")
    }
}

impl Default for AwsSettings {
    fn default() -> Self {
        Self::from_lookup(|_| None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(vars: &[(&str, &str)]) -> AwsSettings {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        AwsSettings::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults() {
        let s = settings(&[]);
        assert_eq!(s.table, "lore");
        assert_eq!(s.bucket, "lore-files");
        assert_eq!(s.cdn_base_url, None);
        assert_eq!(s.ingest_queue, QueueRef::Name("lore-ingest".into()));
        assert_eq!(s.event_bus, "lore");
        assert_eq!(s.deliveries_queue, QueueRef::Name("lore-deliveries".into()));
        assert!(!s.bootstrap);
        assert_eq!(s.s3_endpoint, None);
        assert!(!s.s3_force_path_style);
    }

    #[test]
    fn overrides() {
        let s = settings(&[
            ("LORE_DYNAMODB_TABLE", "t"),
            ("LORE_S3_BUCKET", "b"),
            ("LORE_CDN_BASE_URL", "https://cdn.example.com/"),
            ("LORE_INGEST_QUEUE", "q"),
            ("LORE_DELIVERIES_QUEUE", "d"),
            ("LORE_EVENT_BUS", "bus"),
            ("LORE_AWS_BOOTSTRAP", "TRUE"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:5000/"),
        ]);
        assert_eq!((s.table.as_str(), s.bucket.as_str(), s.event_bus.as_str()), ("t", "b", "bus"));
        assert_eq!(s.cdn_base_url.as_deref(), Some("https://cdn.example.com"));
        assert_eq!(s.ingest_queue, QueueRef::Name("q".into()));
        assert_eq!(s.deliveries_queue, QueueRef::Name("d".into()));
        assert!(s.bootstrap);
        assert_eq!(s.s3_endpoint.as_deref(), Some("http://127.0.0.1:5000"));
        assert!(s.s3_force_path_style, "a custom endpoint defaults to path-style addressing");

        let s = settings(&[
            ("LORE_INGEST_QUEUE_URL", "http://q/1/lore-ingest"),
            ("LORE_INGEST_QUEUE", "ignored"),
            ("AWS_ENDPOINT_URL", "http://a"),
            ("AWS_ENDPOINT_URL_S3", "http://s3"),
            ("LORE_S3_FORCE_PATH_STYLE", "false"),
            ("LORE_AWS_BOOTSTRAP", ""),
        ]);
        assert_eq!(s.ingest_queue, QueueRef::Url("http://q/1/lore-ingest".into()));
        assert_eq!(s.s3_endpoint.as_deref(), Some("http://s3"), "the S3-specific endpoint wins");
        assert!(!s.s3_force_path_style);
        assert!(!s.bootstrap);
    }
}
