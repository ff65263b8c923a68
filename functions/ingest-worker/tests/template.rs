//! What `template.yaml` grants the ingest worker: besides processing sources it queues answer-test
//! runs after a change of an owner's sources (`runTestsOnChange`, docs/api.md §21) on the ingest
//! queue, so it must be allowed to send there (on AWS the send fails with AccessDenied otherwise).

/// The lines of one resource of the template: from `  Name:` up to the next resource.
fn resource(template: &str, name: &str) -> String {
    let head = format!("  {name}:");
    let mut lines = template.lines().skip_while(|l| *l != head);
    let first = lines.next().unwrap_or_else(|| panic!("{name} in template.yaml"));
    let next_resource = |l: &&str| {
        let indent = l.len() - l.trim_start().len();
        !l.trim().is_empty() && indent <= 2 && !l.trim_start().starts_with('#')
    };
    std::iter::once(first).chain(lines.take_while(|l| !next_resource(l))).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_ingest_worker_may_send_to_the_ingest_queue() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml");
    let template = std::fs::read_to_string(path).unwrap();
    let worker = resource(&template, "IngestWorkerFunction");
    assert!(worker.contains("Type: AWS::Serverless::Function"), "{worker}");
    let policies = &worker[worker.find("Policies:").expect("its policies")..];
    let policies = &policies[..policies.find("Events:").unwrap_or(policies.len())];
    assert!(
        policies.contains("- SQSSendMessagePolicy: { QueueName: !GetAtt IngestQueue.QueueName }"),
        "IngestWorkerFunction queues test runs on IngestQueue: {policies}"
    );
}
