//! The built `api-forms` binary, run as Lambda runs it (a Runtime API emulator on 127.0.0.1).

#[path = "../../runtime_api.rs"]
mod runtime_api;
#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use runtime_api::{Function, Posted, RuntimeApi};
use support::{Event, Tenant};

const FUNCTION_NAME: &str = "api-forms";
const PROGRAM: &str = env!("CARGO_BIN_EXE_api-forms");

/// `template.yaml` gives every function `LORE_EMBEDDER` and `LORE_MODEL_DIR`, but attaches the
/// MiniLM layer only to the functions that embed. This one never embeds: with `Embedder=minilm`
/// and no model files where the variable points, it still starts and answers.
#[tokio::test]
async fn binary_serves_with_the_minilm_settings_and_no_layer() {
    let tenant = Tenant::new().await;
    let mut runtime = RuntimeApi::start(FUNCTION_NAME).await;
    let data_dir = tenant.dir.path().to_str().expect("a UTF-8 temp dir");
    let no_layer = tenant.dir.path().join("opt/all-MiniLM-L6-v2");
    let env = [
        ("LORE_DATA_DIR", data_dir),
        ("LORE_EMBEDDER", "minilm"),
        ("LORE_MODEL_DIR", no_layer.to_str().expect("a UTF-8 temp dir")),
    ];
    let mut function = Function::spawn(&runtime, PROGRAM, FUNCTION_NAME, &env);
    let event = Event::load("list-forms.json").with_key(&tenant.key);
    match function.invoke(&mut runtime, "inv-1-list", event.json()).await {
        Posted::Response { body, .. } => assert_eq!(body["statusCode"], 200, "{body}\n{}", function.log()),
        other => panic!("expected a response, got {other:?}; the log:\n{}", function.log()),
    }
}
