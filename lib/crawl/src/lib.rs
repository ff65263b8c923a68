//! Request protection and crawling.
