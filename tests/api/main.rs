//! Black-box tests of the HTTP API: the real app on a free port, requests over a socket.

mod auth;
mod chatbots;
mod errors;
mod openapi;
mod pagination;
mod rate_limit;
mod support;
