mod toc;

pub use toc::*;
