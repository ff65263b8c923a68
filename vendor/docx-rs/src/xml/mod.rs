pub mod common;
pub mod writer;
