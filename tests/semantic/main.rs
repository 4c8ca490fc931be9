//! Embeddings: the local ONNX provider (parity, versions, the hub cache) and the
//! cloud providers against a mock server (requests, retries, errors).

mod cloud_cohere;
mod cloud_mock;
mod cloud_openai;
mod cloud_retry;
mod cloud_voyage;
mod hub;
mod local;
mod parity;
mod support;
