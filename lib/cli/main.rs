use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    lore::telemetry::init();
    let cli = lore::cli::Cli::parse();
    match lore::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
