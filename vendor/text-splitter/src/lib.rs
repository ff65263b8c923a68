#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod chunk_size;
mod splitter;
mod trim;

pub use chunk_size::{
    Characters, ChunkCapacity, ChunkCapacityError, ChunkConfig, ChunkConfigError, ChunkSizer,
    TryChunkSizer,
};
#[cfg(feature = "markdown")]
pub use splitter::MarkdownSplitter;
pub use splitter::{ChunkCharIndex, TextSplitter};
#[cfg(feature = "code")]
pub use splitter::{CodeSplitter, CodeSplitterError};
