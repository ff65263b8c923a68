use clap::Parser;

fn main() -> std::process::ExitCode {
    // A document-parser child (lore_extract::Isolation::Process) parses and exits here.
    lore::compose::serve_extraction_child_if_requested();
    lore::telemetry::init();
    let cli = lore::cli::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(lore::cli::run(cli));
    // A parser that hit its time limit may still be running on a blocking thread: do not wait
    // for it on the way out (dropping the runtime normally would).
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
