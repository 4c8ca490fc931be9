//! The global fingerprint store: configuration, the embedded and Redis backends, and
//! the decisions against a plain reference.

mod cluster;
mod config;
mod embedded;
mod hostile;
mod redis;
mod reference;
mod support;
