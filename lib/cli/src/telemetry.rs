//! Logging: JSON lines on Lambda (CloudWatch), readable lines in a terminal. `RUST_LOG` filters.

use tracing_subscriber::EnvFilter;

const DEFAULT_FILTER: &str = "info";

pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let on_lambda = std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some();
    // Colours only for a terminal: a log redirected to a file or a collector stays plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    // `try_init`: a second call (tests) keeps the first subscriber instead of panicking.
    let _ =
        if on_lambda { builder.json().with_current_span(true).without_time().try_init() } else { builder.try_init() };
}
