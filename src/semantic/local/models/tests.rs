use super::*;

#[test]
fn table_entries() {
    let bge = lookup("BAAI/bge-small-en-v1.5").unwrap();
    assert_eq!(
        (bge.pooling, bge.query_prefix, bge.doc_prefix),
        (Pooling::Cls, RETRIEVAL, "")
    );
    let e5 = lookup("intfloat/multilingual-e5-small").unwrap();
    assert_eq!(
        (e5.pooling, e5.query_prefix, e5.doc_prefix),
        (Pooling::Mean, "query: ", "passage: ")
    );
    let nomic = lookup("nomic-ai/nomic-embed-text-v1.5").unwrap();
    assert_eq!(
        (nomic.query_prefix, nomic.doc_prefix),
        ("search_query: ", "search_document: ")
    );
    assert_eq!(
        lookup("snowflake/SNOWFLAKE-arctic-embed-m")
            .unwrap()
            .query_prefix,
        RETRIEVAL
    );
    assert_eq!(
        lookup("mixedbread-ai/mxbai-embed-large-v1")
            .unwrap()
            .pooling,
        Pooling::Cls
    );
    assert_eq!(lookup("BAAI/bge-m3").unwrap().query_prefix, "");
    assert!(lookup("acme/unknown").is_none());
    for (id, _) in known_ids() {
        assert_eq!(
            known_ids()
                .filter(|(o, _)| o.eq_ignore_ascii_case(id))
                .count(),
            1,
            "{id}"
        );
    }
}
