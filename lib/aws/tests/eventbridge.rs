//! The EventBridge bus: events reach a rule's SQS target with the envelope as their detail.

mod support;

use aws_sdk_eventbridge::types::Target;
use aws_sdk_sqs::types::QueueAttributeName;
use lore_app::ports::EventBus;
use lore_aws::{EVENT_SOURCE, EventBridgeBus, event_detail};
use lore_domain::event::{Event, EventType};
use lore_domain::id::WorkspaceId;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

#[tokio::test]
async fn events_reach_a_rule_target_with_their_envelope() {
    let b = support::backend("bus").await;
    let sqs = b.sqs.client();
    let target_queue =
        sqs.create_queue().queue_name(support::unique("target")).send().await.unwrap().queue_url.unwrap();
    let arn = sqs
        .get_queue_attributes()
        .queue_url(&target_queue)
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap()
        .remove(&QueueAttributeName::QueueArn)
        .unwrap();
    let eb = b.eventbridge.client();
    let bus = b.eventbridge.bus_name();
    let pattern = json!({"source": [EVENT_SOURCE], "detail-type": ["knowledge.source.ready"]});
    eb.put_rule().name("ready-to-queue").event_bus_name(bus).event_pattern(pattern.to_string()).send().await.unwrap();
    eb.put_targets()
        .rule("ready-to-queue")
        .event_bus_name(bus)
        .targets(Target::builder().id("queue").arn(arn).build().unwrap())
        .send()
        .await
        .unwrap();

    let ws = WorkspaceId::generate();
    let created = Event::new(EventType::SourceCreated, ws.clone(), json!({"sourceId": "src_1"}));
    let ready = Event::new(EventType::SourceReady, ws.clone(), json!({"sourceId": "src_1", "chunkCount": 4}));
    b.ports.events.publish(created).await.unwrap();
    b.ports.events.publish(ready.clone()).await.unwrap();

    let mut bodies: Vec<Value> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let out = sqs
            .receive_message()
            .queue_url(&target_queue)
            .max_number_of_messages(10)
            .wait_time_seconds(1)
            .send()
            .await
            .unwrap();
        bodies.extend(out.messages().iter().map(|m| serde_json::from_str(m.body().unwrap()).unwrap()));
        if !bodies.is_empty() && out.messages().is_empty() {
            break;
        }
    }
    assert_eq!(bodies.len(), 1, "only the rule's event type is routed: {bodies:?}");
    let e = &bodies[0];
    assert_eq!(e["source"], EVENT_SOURCE);
    assert_eq!(e["detail-type"], "knowledge.source.ready");
    assert_eq!(e["detail"], event_detail(&ready));
    assert_eq!(e["detail"]["workspaceId"], ws.as_str());
    assert_eq!(e["detail"]["data"]["chunkCount"], 4);
}

#[tokio::test]
async fn publishing_to_a_missing_bus_is_an_error() {
    let b = support::backend("nobus").await;
    let missing = EventBridgeBus::new(b.eventbridge.client().clone(), support::unique("absent"));
    let e = Event::new(EventType::SourceCreated, WorkspaceId::generate(), json!({}));
    assert!(missing.publish(e).await.is_err(), "a failed entry is reported, not swallowed");
}
