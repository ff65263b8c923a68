//! The composition root of Lore and its entry points: [`settings`] (every setting, read once),
//! [`compose`] (which adapters serve the ports), [`serve`] (`lore serve`), [`cli`] (the `lore`
//! command line), `lambda` and [`workers`] (the background work of the Lambdas and of
//! `lore serve`). The Lambda functions' `main`s call [`compose::from_env`]. The AWS backend and
//! the Lambda entry points are built with the `aws` feature only.

pub mod cli;
pub mod compose;
pub mod data_dir;
#[cfg(feature = "aws")]
pub mod lambda;
pub mod serve;
pub mod settings;
pub mod telemetry;
pub mod workers;
