//! The composition root of Lore and its entry points: [`settings`] (every setting, read once),
//! [`compose`] (which adapters serve the ports), [`serve`] (`lore serve`), [`cli`] (the `lore`
//! command line), [`lambda`] and [`workers`] (the background work of the Lambdas and of
//! `lore serve`). The Lambda functions' `main`s call [`compose::from_env`].

pub mod cli;
pub mod compose;
pub mod data_dir;
pub mod lambda;
pub mod serve;
pub mod settings;
pub mod telemetry;
pub mod workers;
