//! Hostile input against the real `lore serve` process (docs/limits.md): each case sends what an
//! attacker would and asserts that the server's memory stays within its stated budget (read from
//! `/proc/<pid>/status`) and that other tenants' work still finishes in bounded time.

mod support;

mod export;
mod fairness;
mod files;
mod parsers;
mod quotas;
mod streams;
