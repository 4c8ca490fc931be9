//! Byte parity with txtfp 0.3.2: every golden field this build can compute.
//!
//! * `tests/data/*.compact.jsonl` (committed): edge cases + every 5th
//!   corpus-small document, long values as FNV digests. Always runs.
//! * `../shared/golden/golden-edge.jsonl` (full tokens) and
//!   `golden-small.digest.jsonl` (all 2,000 documents): run when ../shared is
//!   present, loudly skipped otherwise.
//! * `../shared/golden/upstream`: the 18 fixtures of the upstream repository.

use crate::common::*;
use serde_json::{Map, Value, json};
use txtfp::tokenize::TokenStream;
use txtfp::{
    Canonicalizer, Fingerprint, Fingerprinter, GraphemeTokenizer, HashFamily, MinHashFingerprinter,
    MinHashSig, ShingleTokenizer, SimHash64, SimHashFingerprinter, Tokenizer, Weighting,
    WordTokenizer,
};

type Shingle = ShingleTokenizer<WordTokenizer>;

struct Ctx {
    canon: Canonicalizer,
    shingle3: Shingle,
    mh_xxh3_k5: MinHashFingerprinter<Shingle, 128>,
    mh_murmur_k5: MinHashFingerprinter<Shingle, 128>,
    mh_xxh3_k1_h64: MinHashFingerprinter<WordTokenizer, 64>,
    sim_tf: SimHashFingerprinter<WordTokenizer>,
    sim_uniform: SimHashFingerprinter<WordTokenizer>,
}

fn shingle(k: usize) -> Shingle {
    ShingleTokenizer {
        k,
        inner: WordTokenizer,
    }
}

impl Ctx {
    fn new() -> Self {
        let canon = Canonicalizer::default();
        Ctx {
            shingle3: shingle(3),
            mh_xxh3_k5: MinHashFingerprinter::new(canon.clone(), shingle(5)),
            mh_murmur_k5: MinHashFingerprinter::new(canon.clone(), shingle(5))
                .with_hasher(HashFamily::MurmurHash3_x64_128),
            mh_xxh3_k1_h64: MinHashFingerprinter::new(canon.clone(), WordTokenizer),
            sim_tf: SimHashFingerprinter::new(canon.clone(), WordTokenizer),
            sim_uniform: SimHashFingerprinter::new(canon.clone(), WordTokenizer)
                .with_weighting(Weighting::Uniform),
            canon,
        }
    }
}

fn collect_each(t: &dyn Tokenizer, s: &str) -> Vec<String> {
    let mut v = Vec::new();
    t.for_each_token(s, &mut |x| v.push(x.to_string()));
    v
}

fn collect_stream(t: &dyn Tokenizer, s: &str) -> Vec<String> {
    match t.tokens(s) {
        TokenStream::Borrowed(it) => it.map(String::from).collect(),
        TokenStream::Owned(it) => it.collect(),
    }
}

fn err_json(e: &txtfp::Error) -> Value {
    json!({ "error": e.to_string(), "error_debug": format!("{e:?}") })
}

fn minhash_json<const H: usize>(r: txtfp::Result<MinHashSig<H>>, config_hash: u64) -> Value {
    match r {
        Ok(sig) => {
            let mut o = Map::new();
            o.insert("schema".into(), json!(sig.schema));
            o.insert("hashes".into(), json!(sig.hashes.to_vec()));
            o.insert("bytes_hex".into(), json!(hex(sig.as_bytes())));
            if H == 128 {
                let s128 = MinHashSig::<128>::from_bytes(sig.as_bytes()).expect("H = 128");
                o.insert("name".into(), json!(Fingerprint::MinHash(s128).name()));
            }
            o.insert("config_hash".into(), json!(format!("{config_hash:016x}")));
            Value::Object(o)
        }
        Err(e) => err_json(&e),
    }
}

fn simhash_json(r: txtfp::Result<SimHash64>, config_hash: u64) -> Value {
    match r {
        Ok(s) => json!({
            "hex": format!("{:016x}", s.bits()),
            "u64": s.bits(),
            "serde": s.bits(),
            "bytes_hex": hex(s.as_bytes()),
            "name": Fingerprint::SimHash(s).name(),
            "config_hash": format!("{config_hash:016x}"),
        }),
        Err(e) => err_json(&e),
    }
}

/// Our record for `text`, in the reference harness's field layout.
fn ours(ctx: &Ctx, text: &str) -> Map<String, Value> {
    let mut o = Map::new();
    let canonical = ctx.canon.canonicalize(text);
    let mut into = String::from("junk that must be cleared");
    ctx.canon.canonicalize_into(text, &mut into);
    let words = collect_each(&WordTokenizer, &canonical);
    let sh3 = collect_each(&ctx.shingle3, &canonical);
    let agree = into == canonical
        && words == collect_stream(&WordTokenizer, &canonical)
        && sh3 == collect_stream(&ctx.shingle3, &canonical)
        && collect_each(&GraphemeTokenizer, &canonical)
            == collect_stream(&GraphemeTokenizer, &canonical);
    let mut g_can = 0usize;
    GraphemeTokenizer.for_each_token(&canonical, &mut |_| g_can += 1);
    let mut g_raw = 0usize;
    GraphemeTokenizer.for_each_token(text, &mut |_| g_raw += 1);
    o.insert("bytes".into(), json!(text.len()));
    o.insert("chars".into(), json!(text.chars().count()));
    o.insert("canonical_bytes".into(), json!(canonical.len()));
    o.insert("canonical".into(), json!(canonical));
    #[cfg(feature = "security")]
    {
        let sec = txtfp::CanonicalizerBuilder {
            apply_confusable: true,
            ..Default::default()
        }
        .build()
        .canonicalize(text);
        o.insert("canonical_security".into(), json!(sec));
    }
    o.insert("grapheme_count".into(), json!(g_can));
    o.insert("grapheme_count_raw".into(), json!(g_raw));
    o.insert("words_count".into(), json!(words.len()));
    o.insert("words_digest".into(), json!(token_digest(&words)));
    o.insert("words".into(), json!(words));
    o.insert("shingles_k3_count".into(), json!(sh3.len()));
    o.insert("shingles_k3_digest".into(), json!(token_digest(&sh3)));
    o.insert("shingles_k3".into(), json!(sh3));
    o.insert("paths_agree".into(), json!(agree));
    o.insert(
        "minhash_xxh3_k5".into(),
        minhash_json(
            ctx.mh_xxh3_k5.fingerprint(text),
            ctx.mh_xxh3_k5.config_hash(),
        ),
    );
    o.insert(
        "minhash_murmur_k5".into(),
        minhash_json(
            ctx.mh_murmur_k5.fingerprint(text),
            ctx.mh_murmur_k5.config_hash(),
        ),
    );
    o.insert(
        "minhash_xxh3_k1_h64".into(),
        minhash_json(
            ctx.mh_xxh3_k1_h64.fingerprint(text),
            ctx.mh_xxh3_k1_h64.config_hash(),
        ),
    );
    o.insert(
        "simhash_tf".into(),
        simhash_json(ctx.sim_tf.fingerprint(text), ctx.sim_tf.config_hash()),
    );
    o.insert(
        "simhash_uniform".into(),
        simhash_json(
            ctx.sim_uniform.fingerprint(text),
            ctx.sim_uniform.config_hash(),
        ),
    );
    o
}

/// The compact form of a full record (mirrors scripts/make_test_data.py).
fn compact_sig(v: &Value) -> Value {
    if v.get("error").is_some() {
        return json!({"error": v["error"], "error_debug": v["error_debug"]});
    }
    let bytes: Vec<u8> = (0..v["bytes_hex"].as_str().unwrap().len() / 2)
        .map(|i| {
            u8::from_str_radix(&v["bytes_hex"].as_str().unwrap()[2 * i..2 * i + 2], 16).unwrap()
        })
        .collect();
    let mut o = Map::new();
    o.insert("bytes_digest".into(), json!(fnv(&bytes)));
    o.insert("config_hash".into(), v["config_hash"].clone());
    for k in ["name", "hex"] {
        if let Some(x) = v.get(k) {
            o.insert(k.into(), x.clone());
        }
    }
    if let Some(h) = v.get("hashes") {
        o.insert("slot0".into(), h[0].clone());
    }
    Value::Object(o)
}

const SIG_FIELDS: [&str; 5] = [
    "minhash_xxh3_k5",
    "minhash_murmur_k5",
    "minhash_xxh3_k1_h64",
    "simhash_tf",
    "simhash_uniform",
];
const PLAIN_FIELDS: [&str; 10] = [
    "bytes",
    "chars",
    "canonical_bytes",
    "grapheme_count",
    "grapheme_count_raw",
    "words_count",
    "words_digest",
    "shingles_k3_count",
    "shingles_k3_digest",
    "paths_agree",
];

/// Compare `want` (reference) with `got` on `fields`; collect differences.
fn diff(
    id: &Value,
    fields: &[&str],
    want: &Map<String, Value>,
    got: &Map<String, Value>,
    errs: &mut Vec<String>,
) {
    for f in fields {
        if want.get(*f) != got.get(*f) {
            let show = |v: Option<&Value>| {
                let s = v
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "<missing>".into());
                s.chars().take(300).collect::<String>()
            };
            errs.push(format!(
                "{id} {f}: want {} got {}",
                show(want.get(*f)),
                show(got.get(*f))
            ));
        }
    }
}

fn report(what: &str, n: usize, errs: &[String]) {
    assert!(n > 0, "{what}: no records checked");
    if !errs.is_empty() {
        for e in errs.iter().take(40) {
            eprintln!("{e}");
        }
        panic!("{what}: {} differences over {n} records", errs.len());
    }
    eprintln!("{what}: {n} records identical");
}

fn check_compact(file: &str) {
    let ctx = Ctx::new();
    let mut errs = Vec::new();
    let recs = read_jsonl(&data_file(file));
    for rec in &recs {
        let want = rec.as_object().unwrap();
        let text = want["text"].as_str().unwrap();
        let full = ours(&ctx, text);
        let mut got = Map::new();
        for f in PLAIN_FIELDS {
            got.insert(f.into(), full[f].clone());
        }
        got.insert(
            "canonical_digest".into(),
            json!(fnv(full["canonical"].as_str().unwrap().as_bytes())),
        );
        #[cfg(feature = "security")]
        got.insert(
            "canonical_security_digest".into(),
            json!(fnv(full["canonical_security"].as_str().unwrap().as_bytes())),
        );
        for f in SIG_FIELDS {
            got.insert(f.into(), compact_sig(&full[f]));
        }
        let mut fields: Vec<&str> = PLAIN_FIELDS.to_vec();
        fields.extend(SIG_FIELDS);
        fields.push("canonical_digest");
        #[cfg(feature = "security")]
        fields.push("canonical_security_digest");
        diff(&want["id"], &fields, want, &got, &mut errs);
    }
    report(file, recs.len(), &errs);
}

#[test]
fn compact_edge_cases() {
    check_compact("golden-edge.compact.jsonl");
}

#[test]
fn compact_corpus_small_sample() {
    check_compact("golden-small.compact.jsonl");
}

fn texts_by_id(rel: &str) -> Option<std::collections::HashMap<String, String>> {
    let p = shared_file(rel)?;
    Some(
        read_jsonl(&p)
            .into_iter()
            .enumerate()
            .map(|(n, v)| {
                let id = v.get("id").cloned().unwrap_or(json!(n));
                (id.to_string(), v["text"].as_str().unwrap().to_string())
            })
            .collect(),
    )
}

fn check_full(corpus: &str, golden: &str, token_arrays: bool) {
    let (Some(texts), Some(gold)) = (texts_by_id(corpus), shared_file(golden)) else {
        return;
    };
    let ctx = Ctx::new();
    let mut fields: Vec<&str> = PLAIN_FIELDS.to_vec();
    fields.extend(SIG_FIELDS);
    fields.push("canonical");
    if token_arrays {
        fields.extend(["words", "shingles_k3"]);
    }
    #[cfg(feature = "security")]
    fields.push("canonical_security");
    let mut errs = Vec::new();
    let recs = read_jsonl(&gold);
    for rec in &recs {
        let want = rec.as_object().unwrap();
        let text = &texts[&want["id"].to_string()];
        let got = ours(&ctx, text);
        diff(&want["id"], &fields, want, &got, &mut errs);
    }
    report(golden, recs.len(), &errs);
}

#[test]
fn full_golden_edge() {
    check_full("corpus/edge-cases.jsonl", "golden/golden-edge.jsonl", true);
}

#[test]
fn full_golden_corpus_small() {
    check_full(
        "corpus/corpus-small.jsonl",
        "golden/golden-small.digest.jsonl",
        false,
    );
}

#[test]
fn upstream_fixtures() {
    let Some(dir) = shared_dir()
        .map(|d| d.join("golden/upstream"))
        .filter(|d| d.is_dir())
    else {
        eprintln!(
            "\n*** SKIPPED: ../shared/golden/upstream not found: the 18 upstream fixtures were not checked ***\n"
        );
        return;
    };
    let canon = Canonicalizer::default();
    let mh = MinHashFingerprinter::<_, 128>::new(canon.clone(), shingle(5));
    let sh = SimHashFingerprinter::new(canon.clone(), WordTokenizer);
    let mut checked = 0;
    for entry in std::fs::read_dir(dir.join("corpora")).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let want_canon =
            std::fs::read_to_string(dir.join(format!("golden/canonical/{stem}.txt"))).unwrap();
        assert_eq!(canon.canonicalize(&text), want_canon, "{stem}: canonical");
        let want_mh =
            std::fs::read(dir.join(format!("golden/minhash/{stem}_h128_k5.bin"))).unwrap();
        assert_eq!(
            mh.fingerprint(&text).unwrap().as_bytes(),
            &want_mh[..],
            "{stem}: minhash"
        );
        let want_sh = std::fs::read(dir.join(format!("golden/simhash/{stem}_b64.bin"))).unwrap();
        assert_eq!(
            sh.fingerprint(&text).unwrap().as_bytes(),
            &want_sh[..],
            "{stem}: simhash"
        );
        checked += 3;
    }
    assert_eq!(checked, 18, "expected 18 upstream fixtures");
}

/// W19: the Unicode tables in force are the ones the goldens were made with.
#[test]
fn unicode_versions_match_goldens() {
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(data_file("golden.meta.json")).unwrap())
            .unwrap();
    let v = txtfp::canonical::unicode_versions();
    let want = &meta["unicode_versions"];
    let fmt = |t: (u8, u8, u8)| format!("{}.{}.{}", t.0, t.1, t.2);
    assert_eq!(
        fmt(v.normalization),
        want["unicode-normalization"].as_str().unwrap()
    );
    assert_eq!(
        fmt(v.segmentation),
        want["unicode-segmentation"].as_str().unwrap()
    );
    assert_eq!(fmt(v.case_folding), want["caseless"].as_str().unwrap());
}
