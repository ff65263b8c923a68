//! The SQS job queue: jobs arrive as messages the ingest worker can parse, and bootstrap gives
//! the queue a dead-letter queue.

mod support;

use aws_sdk_sqs::types::QueueAttributeName;
use lore_app::ports::{IngestJob, Job};
use lore_aws::parse_job;
use lore_domain::id::{SourceId, WorkspaceId};
use std::time::{Duration, Instant};

#[tokio::test]
async fn enqueued_jobs_arrive_as_parseable_messages() {
    let b = support::backend("queue").await;
    let jobs: Vec<Job> = (1..=3)
        .map(|g| {
            IngestJob { workspace_id: WorkspaceId::generate(), source_id: SourceId::generate(), generation: g }.into()
        })
        .collect();
    for j in &jobs {
        b.ports.jobs.enqueue(j.clone()).await.unwrap();
    }
    let mut received = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while received.len() < jobs.len() && Instant::now() < deadline {
        let out = b
            .sqs
            .client()
            .receive_message()
            .queue_url(b.sqs.queue_url())
            .max_number_of_messages(10)
            .wait_time_seconds(1)
            .send()
            .await
            .unwrap();
        for m in out.messages() {
            received.push(parse_job(m.body().unwrap()).expect("the worker can parse every job"));
        }
    }
    received.sort_by_key(|j| match j {
        Job::Ingest(j) => j.generation,
        Job::TestRun(_) | Job::Channel(_) => u64::MAX,
    });
    assert_eq!(received, jobs);
}

#[tokio::test]
async fn bootstrap_gives_the_queue_a_dead_letter_queue() {
    let b = support::backend("dlq").await;
    let attrs = b
        .sqs
        .client()
        .get_queue_attributes()
        .queue_url(b.sqs.queue_url())
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    let redrive: serde_json::Value = serde_json::from_str(&attrs[&QueueAttributeName::RedrivePolicy]).unwrap();
    let dlq = lore_aws::AwsSettings::dead_letter_queue_name(&b.settings.table);
    assert!(redrive["deadLetterTargetArn"].as_str().unwrap().ends_with(&format!(":{dlq}")), "{redrive}");
    assert_eq!(redrive["maxReceiveCount"].to_string().trim_matches('"'), "5");
    assert_eq!(attrs[&QueueAttributeName::VisibilityTimeout], "1800");
}
