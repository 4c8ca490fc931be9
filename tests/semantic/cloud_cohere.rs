//! CohereProvider against a local mock of the Cohere Embed v2 API.
#![cfg(feature = "cohere")]

use crate::cloud_mock::{MockServer, Reply, cohere_answer, fake_vector, texts};
use serde_json::json;
use txtfp::semantic::providers::{COHERE_MAX_BATCH, CohereInputType, CohereProvider, RetryPolicy};
use txtfp::{EmbeddingProvider, Error};

fn provider(server: &MockServer) -> CohereProvider {
    CohereProvider::new("co-test-key")
        .unwrap()
        .with_base_url(&server.url())
        .unwrap()
        .with_retry_policy(RetryPolicy::no_retries())
        .unwrap()
}

#[test]
fn sends_the_documented_request_with_each_input_type() {
    let server = MockServer::start(|r| cohere_answer(r, 1024));
    let p = provider(&server);
    let docs = p
        .embed_batch(&["lorem", "ipsum"], "search_document")
        .unwrap();
    assert_eq!(docs[1].vector(), fake_vector("ipsum", 1024).as_slice());
    assert_eq!(docs[0].model_id(), Some("embed-english-v3.0"));
    p.embed_query("q").unwrap();
    p.embed_batch(&["c"], "clustering").unwrap();
    EmbeddingProvider::embed(&p, "trait default").unwrap();
    let p2 = p.clone().with_input_type(CohereInputType::Classification);
    EmbeddingProvider::embed(&p2, "x").unwrap();
    let reqs = server.requests();
    assert!(
        reqs.iter()
            .all(|r| r.path == "/v2/embed" && r.method == "POST")
    );
    assert_eq!(reqs[0].header("authorization"), Some("Bearer co-test-key"));
    assert_eq!(
        reqs[0].body,
        json!({"texts": ["lorem", "ipsum"], "model": "embed-english-v3.0",
               "input_type": "search_document", "embedding_types": ["float"]})
    );
    let kinds: Vec<_> = reqs.iter().map(|r| r.body["input_type"].clone()).collect();
    assert_eq!(
        kinds,
        [
            json!("search_document"),
            json!("search_query"),
            json!("clustering"),
            json!("search_document"),
            json!("classification")
        ]
    );
}

#[test]
fn unknown_input_types_are_refused_before_sending() {
    let server = MockServer::start(|r| cohere_answer(r, 1024));
    let e = provider(&server).embed_batch(&["x"], "query").unwrap_err();
    assert!(
        matches!(e, Error::InvalidInput(ref m) if m.ends_with("got \"query\"")),
        "{e}"
    );
    assert_eq!(server.count(), 0);
    for t in [
        CohereInputType::SearchDocument,
        CohereInputType::SearchQuery,
        CohereInputType::Classification,
        CohereInputType::Clustering,
    ] {
        assert_eq!(t.as_str().parse::<CohereInputType>().unwrap(), t);
    }
}

#[test]
fn batches_of_more_than_96_are_split() {
    let server = MockServer::start(|r| cohere_answer(r, 384));
    let p = provider(&server).with_model("embed-multilingual-light-v3.0");
    assert_eq!(p.dimension(), 384);
    let inputs: Vec<String> = (0..2 * COHERE_MAX_BATCH + 5)
        .map(|i| format!("doc {i}"))
        .collect();
    let out = p.embed_batch(&inputs, "search_document").unwrap();
    for (e, t) in out.iter().zip(&inputs) {
        assert_eq!(e.vector(), fake_vector(t, 384).as_slice());
    }
    let sizes: Vec<usize> = server
        .requests()
        .iter()
        .map(|r| texts(r, "texts").len())
        .collect();
    assert_eq!(sizes, [COHERE_MAX_BATCH, COHERE_MAX_BATCH, 5]);
}

#[test]
fn output_dimension_and_unusable_answers() {
    let server = MockServer::start(|r| {
        cohere_answer(
            r,
            r.body["output_dimension"].as_u64().unwrap_or(1536) as usize,
        )
    });
    let p = provider(&server).with_model("embed-v4.0");
    assert_eq!(p.embed_document("x").unwrap().dim(), 1536);
    let p = p.with_dimensions(512).unwrap();
    assert_eq!(p.embed_document("x").unwrap().dim(), 512);
    assert_eq!(
        server.requests().last().unwrap().body["output_dimension"],
        json!(512)
    );

    let server = MockServer::start(|_| Reply::json(200, json!({"embeddings": {"float": [[0.5]]}})));
    let e = provider(&server)
        .with_model("m")
        .embed_batch(&["a", "b"], "search_query")
        .unwrap_err();
    assert!(
        matches!(e, Error::Http(ref m) if m.contains("1 embeddings for 2 inputs")),
        "{e}"
    );
    let server = MockServer::start(|_| Reply::json(200, json!({"embeddings": {"int8": [[1]]}})));
    let e = provider(&server).embed_document("a").unwrap_err();
    assert!(
        matches!(e, Error::Http(ref m) if m.contains("malformed JSON")),
        "{e}"
    );
}

#[test]
fn debug_redacts_the_key() {
    let p = CohereProvider::new("co-secret-value").unwrap();
    assert_eq!(
        format!("{p:?}"),
        "CohereProvider { model: \"embed-english-v3.0\", base_url: \"https://api.cohere.com\", api_key: \"<redacted>\" }"
    );
}
