//! VoyageProvider against a local mock of the Voyage Embeddings API.
#![cfg(feature = "voyage")]

use crate::cloud_mock::{MockServer, Reply, data_answer, fake_vector, texts};
use serde_json::json;
use txtfp::semantic::providers::{RetryPolicy, VOYAGE_MAX_BATCH, VoyageInputType, VoyageProvider};
use txtfp::{EmbeddingProvider, Error};

fn provider(server: &MockServer) -> VoyageProvider {
    VoyageProvider::new("pa-test-key")
        .unwrap()
        .with_base_url(&server.url())
        .unwrap()
        .with_retry_policy(RetryPolicy::no_retries())
        .unwrap()
}

#[test]
fn sends_the_documented_request_with_each_input_type() {
    let server = MockServer::start(|r| data_answer(r, 1024));
    let p = provider(&server);
    let docs = p
        .embed_batch(&["lorem", "ipsum"], Some("document"))
        .unwrap();
    assert_eq!(docs[1].vector(), fake_vector("ipsum", 1024).as_slice());
    assert_eq!(docs[0].model_id(), Some("voyage-3"));
    p.embed_query("lorem?").unwrap();
    p.embed_batch(&["plain"], None).unwrap();
    EmbeddingProvider::embed(&p, "trait").unwrap();
    EmbeddingProvider::embed(&p.clone().with_input_type(VoyageInputType::Query), "q").unwrap();
    let reqs = server.requests();
    assert!(
        reqs.iter()
            .all(|r| r.path == "/v1/embeddings" && r.method == "POST")
    );
    assert_eq!(reqs[0].header("authorization"), Some("Bearer pa-test-key"));
    assert_eq!(
        reqs[0].body,
        json!({"input": ["lorem", "ipsum"], "model": "voyage-3", "input_type": "document"})
    );
    let kinds: Vec<_> = reqs
        .iter()
        .map(|r| r.body.get("input_type").cloned())
        .collect();
    assert_eq!(
        kinds,
        [
            Some(json!("document")),
            Some(json!("query")),
            None,
            None,
            Some(json!("query"))
        ]
    );
    assert_eq!((p.model_id(), p.dimension()), ("voyage-3", 1024));
}

#[test]
fn unknown_input_types_are_refused_before_sending() {
    let server = MockServer::start(|r| data_answer(r, 1024));
    let e = provider(&server)
        .embed_batch(&["x"], Some("search_query"))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid input: Voyage input_type must be \"query\" or \"document\", got \"search_query\""
    );
    assert_eq!(server.count(), 0);
    assert_eq!(
        "document".parse::<VoyageInputType>().unwrap(),
        VoyageInputType::Document
    );
    assert_eq!(VoyageInputType::Query.as_str(), "query");
}

#[test]
fn models_dimensions_and_batches() {
    let server = MockServer::start(|r| {
        let dim = r.body["output_dimension"].as_u64().unwrap_or(512) as usize;
        data_answer(r, dim)
    });
    let p = provider(&server).with_model("voyage-3-lite");
    assert_eq!(p.dimension(), 512);
    let inputs: Vec<String> = (0..VOYAGE_MAX_BATCH + 1).map(|i| i.to_string()).collect();
    let out = p.embed_batch(&inputs, Some("document")).unwrap();
    assert_eq!(out.len(), inputs.len());
    assert_eq!(
        out[VOYAGE_MAX_BATCH].vector(),
        fake_vector("1000", 512).as_slice()
    );
    let sizes: Vec<usize> = server
        .requests()
        .iter()
        .map(|r| texts(r, "input").len())
        .collect();
    assert_eq!(sizes, [VOYAGE_MAX_BATCH, 1]);

    let p = provider(&server)
        .with_model("voyage-3-large")
        .with_dimensions(256)
        .unwrap();
    assert_eq!(p.embed_document("x").unwrap().dim(), 256);
    assert_eq!(
        server.requests().last().unwrap().body["output_dimension"],
        json!(256)
    );
}

#[test]
fn errors_and_debug() {
    let server = MockServer::start(|_| Reply::json(400, json!({"detail": "Input list too long"})));
    let e = provider(&server).embed_document("x").unwrap_err();
    assert_eq!(
        e.to_string(),
        "http error: Voyage returned 400: Input list too long"
    );
    let server = MockServer::start(|_| Reply::json(200, json!({"data": [{"index": 0}]})));
    let e = provider(&server).embed_document("x").unwrap_err();
    assert!(
        matches!(e, Error::Http(ref m) if m.contains("malformed JSON")),
        "{e}"
    );
    let p = VoyageProvider::new("pa-secret-value").unwrap();
    assert_eq!(
        format!("{p:?}"),
        "VoyageProvider { model: \"voyage-3\", base_url: \"https://api.voyageai.com\", api_key: \"<redacted>\" }"
    );
}
