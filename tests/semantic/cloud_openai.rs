//! OpenAiProvider against a local mock of the OpenAI Embeddings API:
//! request shape, ordering, batching, validation of answers, errors.
#![cfg(feature = "openai")]

use crate::cloud_mock::{MockServer, Reply, data_answer, fake_vector, texts};
use serde_json::json;
use txtfp::semantic::providers::{OPENAI_MAX_BATCH, OpenAiProvider, RetryPolicy};
use txtfp::{EmbeddingProvider, Error};

const KEY: &str = "sk-test-0123456789";

fn provider(server: &MockServer) -> OpenAiProvider {
    OpenAiProvider::new(KEY)
        .unwrap()
        .with_base_url(&server.url())
        .unwrap()
        .with_retry_policy(RetryPolicy::no_retries())
        .unwrap()
}

#[test]
fn sends_the_documented_request_and_orders_by_index() {
    let server = MockServer::start(|r| data_answer(r, 1536));
    let p = provider(&server);
    let out = p.embed_batch(&["fox", "wolf", "lion"]).unwrap();
    assert_eq!(out.len(), 3);
    for (e, t) in out.iter().zip(["fox", "wolf", "lion"]) {
        assert_eq!(e.vector(), fake_vector(t, 1536).as_slice(), "{t}");
        assert_eq!(e.model_id(), Some("text-embedding-3-small"));
    }
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/embeddings")
    );
    assert_eq!(r.header("authorization"), Some("Bearer sk-test-0123456789"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.body,
        json!({"model": "text-embedding-3-small", "input": ["fox", "wolf", "lion"]})
    );
    // The trait path: one text, same vector.
    let one = EmbeddingProvider::embed(&p, "fox").unwrap();
    assert_eq!(one, out[0]);
    assert_eq!(
        (p.model_id(), p.dimension()),
        ("text-embedding-3-small", 1536)
    );
}

#[test]
fn model_and_dimensions_go_into_the_request() {
    let server = MockServer::start(|r| {
        let dim = r.body["dimensions"].as_u64().unwrap_or(3072) as usize;
        data_answer(r, dim)
    });
    let p = provider(&server).with_model("text-embedding-3-large");
    assert_eq!(p.dimension(), 3072);
    assert_eq!(p.embed("x").unwrap().dim(), 3072);
    let p = p.with_dimensions(256).unwrap();
    assert_eq!(p.dimension(), 256);
    let e = p.embed("x").unwrap();
    assert_eq!(
        (e.dim(), e.model_id()),
        (256, Some("text-embedding-3-large"))
    );
    let last = server.requests().pop().unwrap();
    assert_eq!(
        last.body,
        json!({"model": "text-embedding-3-large", "input": ["x"], "dimensions": 256})
    );
    for bad in [0, txtfp::semantic::MAX_EMBEDDING_DIM + 1] {
        let e = provider(&server).with_dimensions(bad).unwrap_err();
        assert!(
            matches!(e, Error::Config(ref m) if m.contains(&bad.to_string())),
            "{e}"
        );
    }
}

#[test]
fn large_batches_are_split_at_the_api_limit_and_keep_order() {
    let server = MockServer::start(|r| data_answer(r, 8));
    let p = provider(&server).with_model("tiny-compatible-model");
    assert_eq!(
        p.dimension(),
        0,
        "unknown model: learned from the first answer"
    );
    let inputs: Vec<String> = (0..OPENAI_MAX_BATCH + 3).map(|i| format!("t{i}")).collect();
    let out = p.embed_batch(&inputs).unwrap();
    assert_eq!(p.dimension(), 8);
    assert_eq!(out.len(), inputs.len());
    for (e, t) in out.iter().zip(&inputs) {
        assert_eq!(e.vector(), fake_vector(t, 8).as_slice());
    }
    let sizes: Vec<usize> = server
        .requests()
        .iter()
        .map(|r| texts(r, "input").len())
        .collect();
    assert_eq!(sizes, [OPENAI_MAX_BATCH, 3]);

    let server = MockServer::start(|r| data_answer(r, 8));
    let p = provider(&server).with_model("m").with_batch_size(2);
    let out = p.embed_batch(&["a", "b", "c", "d", "e"]).unwrap();
    let sizes: Vec<Vec<String>> = server
        .requests()
        .iter()
        .map(|r| texts(r, "input"))
        .collect();
    assert_eq!(sizes, [vec!["a", "b"], vec!["c", "d"], vec!["e"]]);
    assert_eq!(out[4].vector(), fake_vector("e", 8).as_slice());
}

#[test]
fn empty_batches_and_empty_texts() {
    let server = MockServer::start(|r| data_answer(r, 1536));
    let p = provider(&server);
    assert!(p.embed_batch::<&str>(&[]).unwrap().is_empty());
    let e = p.embed_batch(&["ok", ""]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid input: text 1 of the batch is empty; OpenAI rejects empty inputs"
    );
    assert_eq!(server.count(), 0, "nothing is sent for either");
    let e = provider(&server).with_model("").embed("x").unwrap_err();
    assert!(matches!(e, Error::Config(_)), "{e}");
}

/// A server that answers every request with `body` (status 200).
fn answering(body: serde_json::Value) -> (MockServer, OpenAiProvider) {
    let server = MockServer::start(move |_| Reply::json(200, body.clone()));
    let p = provider(&server).with_model("m");
    (server, p)
}

fn http_message(e: Error) -> String {
    match e {
        Error::Http(m) => m,
        other => panic!("expected Error::Http, got {other:?}"),
    }
}

#[test]
fn unusable_answers_are_http_errors() {
    let item = |i: usize, v: serde_json::Value| json!({"index": i, "embedding": v});
    let cases = [
        (
            json!({"data": [item(0, json!([1.0])), item(0, json!([2.0]))]}),
            "index 0 appears twice",
        ),
        (
            json!({"data": [item(0, json!([1.0])), item(5, json!([2.0]))]}),
            "index 5 is out of range",
        ),
        (
            json!({"data": [item(0, json!([1.0]))]}),
            "1 embeddings for 2 inputs",
        ),
        (
            json!({"data": [item(0, json!([1.0])), item(1, json!([]))]}),
            "embedding vector is empty",
        ),
        (
            json!({"data": [item(0, json!([1.0])), item(1, json!([1e39]))]}),
            "non-finite",
        ),
        (
            json!({"data": [item(0, json!([1.0])), item(1, json!([1.0, 2.0]))]}),
            "a 2-value embedding, but m gives 1",
        ),
        (
            json!({"data": [item(0, json!(["x"])), item(1, json!([1.0]))]}),
            "malformed JSON",
        ),
        (json!({"embeddings": []}), "malformed JSON"),
    ];
    for (body, want) in cases {
        let (server, p) = answering(body.clone());
        let m = http_message(p.embed_batch(&["a", "b"]).unwrap_err());
        assert!(
            m.starts_with("OpenAI returned an unusable response: "),
            "{m}"
        );
        assert!(m.contains(want), "{body}: {m}");
        assert_eq!(server.count(), 1, "unusable answers are not retried");
    }
    let (_s, p) = answering(json!({"data": []}));
    assert!(matches!(p.embed("a"), Err(Error::EmptyEmbedding)));
}

#[test]
fn malformed_json_is_not_retried() {
    let server = MockServer::start(|_| Reply::raw(200, "{\"data\": [{\"index\": 0, \"embedd"));
    let p = OpenAiProvider::new(KEY)
        .unwrap()
        .with_base_url(&server.url())
        .unwrap();
    let m = http_message(p.embed("x").unwrap_err());
    assert!(m.contains("malformed JSON"), "{m}");
    assert_eq!(server.count(), 1);
}

#[test]
fn a_wrong_dimension_from_a_known_model_is_refused() {
    let server = MockServer::start(|r| data_answer(r, 1535));
    let m = http_message(provider(&server).embed("x").unwrap_err());
    assert!(
        m.contains("a 1535-value embedding, but text-embedding-3-small gives 1536"),
        "{m}"
    );
}

#[test]
fn error_answers_carry_status_and_message_without_the_key() {
    let server = MockServer::start(|r| {
        let key = r
            .header("authorization")
            .unwrap_or("")
            .trim_start_matches("Bearer ");
        // The real API masks the key; a careless proxy might not.
        Reply::json(
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {key}"), "type": "invalid_request_error", "code": "invalid_api_key"}}),
        )
    });
    let e = provider(&server).embed("x").unwrap_err();
    let text = e.to_string();
    assert_eq!(
        text,
        "http error: OpenAI returned 401: Incorrect API key provided: <redacted>"
    );
    assert!(matches!(
        e,
        Error::HttpStatus {
            provider: "OpenAI",
            status: 401,
            ..
        }
    ));
    assert!(!text.contains(KEY));
}

#[test]
fn debug_redacts_the_key() {
    let p = OpenAiProvider::new(KEY).unwrap();
    let d = format!("{p:?}");
    assert_eq!(
        d,
        "OpenAiProvider { model: \"text-embedding-3-small\", base_url: \"https://api.openai.com\", api_key: \"<redacted>\" }"
    );
    assert!(!format!("{p:#?}").contains("0123456789"));
    let e = OpenAiProvider::new("").unwrap_err();
    assert_eq!(e.to_string(), "config error: OpenAI API key is empty");
    let e = OpenAiProvider::new("sk-abc\r\nX-Evil: 1").unwrap_err();
    assert!(
        matches!(e, Error::Config(ref m) if !m.contains("abc")),
        "{e}"
    );
    let e = OpenAiProvider::new(KEY)
        .unwrap()
        .with_base_url("api.openai.com")
        .unwrap_err();
    assert!(matches!(e, Error::Config(_)), "{e}");
}

#[test]
fn clones_work_from_threads_and_share_the_learned_dimension() {
    let server = MockServer::start(|r| data_answer(r, 4));
    let p = provider(&server).with_model("m");
    assert_eq!(p.dimension(), 0);
    let q = p.clone();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let q = q.clone();
            std::thread::spawn(move || q.embed(&format!("text {i}")).unwrap())
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        assert_eq!(
            h.join().unwrap().vector(),
            fake_vector(&format!("text {i}"), 4).as_slice()
        );
    }
    assert_eq!((p.dimension(), q.dimension()), (4, 4));
    // A new model starts over.
    assert_eq!(p.clone().with_model("other").dimension(), 0);
    assert_eq!(p.dimension(), 4);
}
