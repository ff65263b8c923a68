//! Embedding providers.
