//! The Lore domain: identifiers, validated values, scopes, workspaces, keys, chatbots, forms,
//! webhook subscriptions and deliveries, pagination and the error codes of the contract. Pure: no
//! I/O, no framework, no cloud.

pub mod action;
pub mod analytics;
pub mod answer_test;
pub mod api_key;
pub mod assistant;
pub mod audio;
pub mod audit;
pub mod channel;
pub mod chatbot;
pub mod chunk;
pub mod conversation;
pub mod correction;
pub mod delivery;
pub mod document;
pub mod embed;
pub mod error;
pub mod event;
pub mod form;
pub mod hook;
pub mod id;
pub mod language;
pub mod late_interaction;
pub mod metadata;
pub mod mind;
pub mod pagination;
pub mod privacy;
pub mod scope;
pub mod slug;
pub mod source;
pub mod text;
pub mod time;
pub mod vector;
pub mod visitor_match;
pub mod workspace;

pub use error::{DomainError, ErrorCode};
pub use time::Timestamp;
