//! What `template.yaml` gives the api-integrations function for channels (docs/api.md §24): the
//! platforms' routes `/channels/{proxy+}` reach it, and it may send their messages to the ingest
//! queue, where the ingest worker answers them (on AWS the send fails with AccessDenied otherwise).

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

fn function() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml");
    let template = std::fs::read_to_string(path).unwrap();
    let function = resource(&template, "ApiIntegrationsFunction");
    assert!(function.contains("Type: AWS::Serverless::Function"), "{function}");
    function
}

#[test]
fn api_integrations_may_send_to_the_ingest_queue() {
    let function = function();
    let policies = &function[function.find("Policies:").expect("its policies")..];
    let policies = &policies[..policies.find("Events:").unwrap_or(policies.len())];
    assert!(
        policies.contains("- SQSSendMessagePolicy: { QueueName: !GetAtt IngestQueue.QueueName }"),
        "ApiIntegrationsFunction queues channels' messages on IngestQueue: {policies}"
    );
}

#[test]
fn api_integrations_serves_the_channels_routes() {
    let function = function();
    let events = &function[function.find("Events:").expect("its events")..];
    // Its events, each from its name (indented 8) to the next.
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    for line in events.lines().skip(1) {
        let indent = line.len() - line.trim_start().len();
        if indent == 8 && !line.trim_start().starts_with('#') {
            blocks.push(vec![line]);
        } else if let Some(block) = blocks.last_mut() {
            block.push(line);
        }
    }
    // One HttpApi event of the shared API whose path is `/channels/{proxy+}`, any method.
    let event = blocks
        .iter()
        .map(|block| block.join("\n"))
        .find(|block| block.contains("Path: \"/channels/{proxy+}\""))
        .unwrap_or_else(|| panic!("an event for /channels/{{proxy+}}: {events}"));
    for line in ["Type: HttpApi", "ApiId: !Ref HttpApi", "Method: ANY"] {
        assert!(event.contains(line), "{line} in {event}");
    }
}
