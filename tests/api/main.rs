//! Black-box tests of the HTTP API: the real app on a free port, requests over a socket.

mod auth;
mod batch;
mod chatbots;
mod contract;
mod conversations;
mod crawl;
mod embed;
mod errors;
mod fixtures;
mod followup;
mod forms;
mod knowledge;
mod mind_sources;
mod mind_uploads;
mod minds;
mod openapi;
mod pagination;
mod public_chat;
mod rate_limit;
mod receiver;
mod search;
mod site;
mod speech;
mod support;
mod webhooks;
