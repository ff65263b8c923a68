//! The composition roots of Lore: which adapters serve the ports, how `lore serve` starts, and
//! the `lore` command line. The Lambda entry points reuse [`compose`] (and [`webhooks`], the
//! signed delivery sender).

pub mod aws_backend;
pub mod cli;
pub mod compose;
pub mod lambda;
mod lazy;
pub mod serve;
pub mod telemetry;
pub mod webhooks;
pub mod workers;
