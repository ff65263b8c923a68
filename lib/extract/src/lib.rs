//! Document text extraction.
