//! `txtfp store ingest | query | metrics` on the bundled sample, checked
//! against the library's `GlobalFingerprintStore` fed the same documents.

#![cfg(feature = "store")]

use crate::support::*;
use serde_json::Value;
use txtfp::store::{GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};

const SAMPLE: &str = "../examples/data/sample.jsonl";

/// A decision without its time stamp.
fn timeless(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("decided_at");
    v
}

/// A decision as two runs over the same input must agree on it. Which of
/// two equally ranked matches a drop names can differ between runs: the
/// engine ranks ties by ingest time, in milliseconds, then by id, and two
/// documents decided in the same millisecond tie. So a drop is compared by
/// its action and reason kind; every other decision whole.
fn drop_shape(d: &Value) -> Value {
    let mut d = d.clone();
    if d["action"] == "drop" {
        let o = d.as_object_mut().unwrap();
        o.remove("matched_doc_id");
        o.remove("matched_source");
        let kind = o["reason"]["kind"].clone();
        o.insert("reason".into(), kind);
    }
    d
}

#[test]
fn ingest_matches_the_library_and_replays() {
    let dir = fresh_dir("store_ingest");
    let root = dir.join("store");
    let r = root.to_str().unwrap();
    let out = txtfp(&[
        "store",
        "ingest",
        SAMPLE,
        "--root",
        r,
        "--source-column",
        "src",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let decisions = json_lines(&stdout(&out));
    assert_eq!(decisions.len(), 195);
    let err = stderr(&out);
    assert!(err.contains("195 documents (accept "), "{err}");

    // The same documents through the library, in a second store.
    let toml = format!("root_path = {:?}", dir.join("library"));
    let cfg = GlobalStoreConfig::from_toml_str(&toml).unwrap();
    let store = GlobalFingerprintStore::open(cfg).unwrap();
    for (line, got) in json_lines(&read(&data(SAMPLE))).iter().zip(&decisions) {
        let doc = IncomingDocument::new(
            line["id"].as_str().unwrap(),
            line["text"].as_str().unwrap(),
            line["src"].as_str().unwrap(),
        );
        let want = serde_json::to_value(store.ingest(&doc).unwrap()).unwrap();
        assert_eq!(
            drop_shape(&timeless(got.clone())),
            drop_shape(&timeless(want))
        );
    }
    let dropped = decisions.iter().filter(|d| d["action"] == "drop").count();
    assert!(dropped > 0);

    // Metrics agree with the decisions.
    let out = txtfp(&["store", "metrics", "--root", r, "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let m: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(m["docs"], 195);
    assert_eq!(m["duplicates"], dropped);
    let out = txtfp(&["store", "metrics", "--root", r]);
    assert!(
        stdout(&out).starts_with("documents 195: kept "),
        "{}",
        stdout(&out)
    );

    // Ingesting again replays every first decision.
    let decisions_file = dir.join("again.jsonl");
    let args = ["store", "ingest", SAMPLE, "--root", r, "-q", "--decisions"];
    let out = txtfp(&[&args[..], &[decisions_file.to_str().unwrap()]].concat());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let again = json_lines(&read(&decisions_file));
    assert!(again.iter().all(|d| d["replayed"] == true));
    let actions = |v: &[Value]| v.iter().map(|d| d["action"].clone()).collect::<Vec<_>>();
    assert_eq!(actions(&again), actions(&decisions));
}

#[test]
fn query_finds_stored_near_duplicates() {
    let dir = fresh_dir("store_query");
    let r = dir.join("store");
    let r = r.to_str().unwrap();
    let out = txtfp(&[
        "store",
        "ingest",
        SAMPLE,
        "--root",
        r,
        "-q",
        "--decisions",
        "/dev/null",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // a.txt is the text of s000349; b.txt its near-duplicate s000980.
    let out = txtfp(&[
        "store",
        "query",
        "--root",
        r,
        "tests/data/cli/a.txt",
        "tests/data/cli/short.txt",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    assert_eq!(lines[0]["name"], "tests/data/cli/a.txt");
    let ids: Vec<&str> = lines[0]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["doc_id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"s000349"), "{ids:?}");
    assert_eq!(lines[1]["matches"], serde_json::json!([]));
    // From stdin.
    let out = txtfp_stdin(
        &["store", "query", "--root", r],
        read(&data("tests/data/cli/a.txt")).as_bytes(),
    );
    assert_eq!(json_lines(&stdout(&out))[0]["matches"], lines[0]["matches"]);
    // A text longer than --max-bytes is refused, endless input included.
    let out = txtfp(&[
        "store",
        "query",
        "--root",
        r,
        "--max-bytes",
        "100",
        "tests/data/cli/a.txt",
    ]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("a.txt: longer than 100 bytes"),
        "{}",
        stderr(&out)
    );
    let out = txtfp(&[
        "store",
        "query",
        "--root",
        r,
        "--max-bytes",
        "1MiB",
        "/dev/zero",
    ]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("/dev/zero: longer than"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn store_errors() {
    let out = txtfp(&["store", "metrics"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--root DIR or --config FILE"));
    let out = txtfp(&[
        "store",
        "metrics",
        "--config",
        "tests/data/cli/no-such.toml",
    ]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).starts_with("txtfp: tests/data/cli/no-such.toml: "));
    // Bad records are skipped and named; the good ones are ingested.
    let dir = fresh_dir("store_errors");
    let r = dir.join("store");
    let out = txtfp(&[
        "store",
        "ingest",
        "tests/data/cli/mixed.jsonl",
        "--root",
        r.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 7);
    assert!(stderr(&out).contains("skipped tests/data/cli/mixed.jsonl:7: no \"text\" column"));
    let out = txtfp(&[
        "store",
        "ingest",
        "tests/data/cli/mixed.jsonl",
        "--strict",
        "--root",
        r.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).starts_with("txtfp: tests/data/cli/mixed.jsonl:3: malformed JSON"));
}

/// `dedup --store`: a second run over other files drops the documents an
/// earlier run stored (under other ids), and re-running a file is idempotent.
#[test]
fn dedup_with_store_drops_what_earlier_runs_stored() {
    let dir = fresh_dir("dedup_store");
    let root = dir.join("global");
    let r = root.to_str().unwrap();
    let lines = json_lines(&read(&data(SAMPLE)));
    // Run 1: the first 100 documents. Run 2: the next 60, plus copies of
    // ten documents of run 1 under new ids.
    let write = |name: &str, docs: &[Value]| {
        let p = dir.join(name);
        let text: String = docs.iter().map(|d| format!("{d}\n")).collect();
        std::fs::write(&p, text).unwrap();
        p
    };
    let first = write("first.jsonl", &lines[..100]);
    let mut second: Vec<Value> = lines[100..160].to_vec();
    let copied: Vec<Value> = lines[..100]
        .iter()
        .step_by(10)
        .map(|d| {
            let mut d = d.clone();
            d["id"] = Value::from(format!("copy-of-{}", d["id"].as_str().unwrap()));
            d
        })
        .collect();
    second.extend(copied.iter().cloned());
    let second = write("second.jsonl", &second);

    let run = |input: &std::path::Path, out: &str| -> Value {
        let o = dir.join(out);
        let got = txtfp(&[
            "dedup",
            input.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
            "--store",
            r,
            "-q",
        ]);
        assert_eq!(code(&got), 0, "{}", stderr(&got));
        serde_json::from_str(&read(&o.join("report.json"))).unwrap()
    };
    let kept_ids = |out: &str| -> Vec<String> {
        json_lines(&read(&dir.join(out).join("kept.jsonl")))
            .iter()
            .map(|d| d["id"].as_str().unwrap().to_string())
            .collect()
    };

    let one = run(&first, "one");
    let kept_one = kept_ids("one");
    let two = run(&second, "two");
    let g = &two["global_store"];
    let dropped: Vec<(String, String)> = g["dropped_documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["doc_id"].as_str().unwrap().to_string(),
                d["matched_doc_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Every copy whose original run 1 kept is dropped, matched to a
    // document run 1 stored.
    for c in &copied {
        let id = c["id"].as_str().unwrap();
        let original = id.trim_start_matches("copy-of-");
        if kept_one.iter().any(|k| k == original) {
            let m = dropped.iter().find(|(d, _)| d == id);
            assert!(m.is_some(), "{id} not dropped: {g}");
            assert!(!m.unwrap().1.starts_with("copy-of-"), "{m:?}");
        }
    }
    assert!(
        !kept_ids("two")
            .iter()
            .any(|k| dropped.iter().any(|(d, _)| d == k))
    );
    assert_eq!(
        two["kept"].as_u64().unwrap() + two["dropped"].as_u64().unwrap(),
        two["documents"].as_u64().unwrap()
    );
    // Running the first file again replays the stored decisions.
    let again = run(&first, "again");
    assert_eq!(kept_ids("again"), kept_one);
    assert_eq!(
        again["global_store"]["dropped"],
        one["global_store"]["dropped"]
    );
}

/// Ingests `input` (a path, or `-` with `stdin`) into a fresh store under
/// `dir/name` with `extra` arguments; its decisions without time stamps.
fn ingest_decisions(
    dir: &std::path::Path,
    name: &str,
    input: &str,
    stdin: &[u8],
    extra: &[&str],
) -> Vec<Value> {
    let root = dir.join(name);
    let decisions = dir.join(format!("{name}.decisions.jsonl"));
    let mut args = vec![
        "store",
        "ingest",
        input,
        "--root",
        root.to_str().unwrap(),
        "--source-column",
        "src",
        "-q",
        "--decisions",
        decisions.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = txtfp_stdin(&args, stdin);
    assert_eq!(code(&out), 0, "{name}: {}", stderr(&out));
    json_lines(&read(&decisions))
        .into_iter()
        .map(timeless)
        .collect()
}

/// Compressed input, stdin and every batch size give the decisions of the
/// plain file, in input order.
#[test]
fn compression_and_batch_size_do_not_change_decisions() {
    use std::io::Write;
    let dir = fresh_dir("store_batches");
    let plain = std::fs::read(data(SAMPLE)).unwrap();
    let gz = dir.join("sample.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&plain).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let zst = dir.join("sample.jsonl.zst");
    std::fs::write(&zst, zstd::encode_all(&plain[..], 3).unwrap()).unwrap();

    let want = ingest_decisions(&dir, "plain", SAMPLE, b"", &[]);
    assert_eq!(want.len(), 195);
    assert!(want.iter().any(|d| d["action"] == "drop"));
    let runs: [(&str, &str, &[u8], &[&str]); 6] = [
        ("batch1", SAMPLE, b"", &["--batch", "1"]),
        ("batch7", SAMPLE, b"", &["--batch", "7"]),
        ("gz", gz.to_str().unwrap(), b"", &[]),
        ("zst", zst.to_str().unwrap(), b"", &["--batch", "7"]),
        ("stdin", "-", &plain, &["--batch", "50"]),
        ("stdin_zst", "-", &std::fs::read(&zst).unwrap(), &[]),
    ];
    let shape = |v: &[Value]| -> Vec<Value> { v.iter().map(drop_shape).collect() };
    for (name, input, stdin, extra) in runs {
        let got = ingest_decisions(&dir, name, input, stdin, extra);
        assert_eq!(shape(&got), shape(&want), "{name}");
    }
    let out = txtfp(&["store", "ingest", SAMPLE, "--root", "x", "--batch", "0"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

/// A few thousand short documents, some repeating an earlier text or id.
fn many_documents(n: usize) -> String {
    const WORDS: [&str; 40] = [
        "river", "stone", "cloud", "lamp", "orbit", "maple", "quartz", "harbor", "signal",
        "meadow", "copper", "lantern", "thistle", "glacier", "ember", "falcon", "prism", "cedar",
        "velvet", "canyon", "anchor", "beacon", "willow", "summit", "tundra", "marble", "comet",
        "garnet", "fjord", "saffron", "pewter", "juniper", "basalt", "nectar", "obsidian", "plume",
        "ripple", "sparrow", "timber", "zephyr",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut texts: Vec<String> = Vec::with_capacity(n);
    let mut out = String::new();
    for i in 0..n {
        let text = if i % 11 == 10 {
            texts[i - 7].clone()
        } else {
            (0..24)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    WORDS[(state % WORDS.len() as u64) as usize]
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let id = if i % 97 == 96 {
            format!("d{}", i - 50)
        } else {
            format!("d{i}")
        };
        out += &serde_json::json!({ "id": id, "text": text }).to_string();
        out.push('\n');
        texts.push(text);
    }
    out
}

/// Runs `txtfp` with `args(decisions file)` five times, each SIGKILLed
/// once its decisions file holds a pseudo-random number of bytes (or left
/// to end), and checks after each kill that every whole line written is the
/// decision the store `open` returns holds. Returns every line written.
fn killed_five_times(
    dir: &std::path::Path,
    args: &dyn Fn(&std::path::Path) -> Vec<String>,
    open: &dyn Fn() -> GlobalFingerprintStore,
) -> Vec<Value> {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut written_all: Vec<Value> = Vec::new();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for round in 0..5 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let kill_at = 2_000 + x % 60_000;
        let file = dir.join(format!("run{round}.jsonl"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_txtfp"))
            .args(args(&file))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start txtfp");
        let deadline = Instant::now() + Duration::from_secs(120);
        while std::fs::metadata(&file).map_or(0, |m| m.len()) < kill_at
            && Instant::now() < deadline
            && child.try_wait().unwrap().is_none()
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        let bytes = std::fs::read(&file).unwrap_or_default();
        let complete = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(i) => &bytes[..=i],
            None => &bytes[..0],
        };
        let written = json_lines(std::str::from_utf8(complete).unwrap());
        let s = open();
        for line in &written {
            let id = line["doc_id"].as_str().unwrap();
            let stored = s.document(id).unwrap().unwrap_or_else(|| {
                panic!("round {round}: {id} has a decision line but is not stored")
            });
            let d = serde_json::to_value(&stored.decision).unwrap();
            for field in ["action", "matched_doc_id", "decided_at", "reason"] {
                assert_eq!(line[field], d[field], "{id}: {field}");
            }
        }
        written_all.extend(written);
    }
    assert!(!written_all.is_empty(), "nothing written before the kills");
    written_all
}

/// `store ingest` of `input` with the store named by `store` (`--root DIR`
/// or `--config FILE`) SIGKILLed at five moments (see
/// [`killed_five_times`]), then run to the end: every document is stored
/// with the decision the last run printed, and the decisions of the killed
/// runs are replayed unchanged.
fn killed_five_times_then_completed(
    dir: &std::path::Path,
    input: &std::path::Path,
    store: [&str; 2],
    batch: usize,
    open: &dyn Fn() -> GlobalFingerprintStore,
) {
    let args = |decisions: &std::path::Path| {
        [
            "store",
            "ingest",
            input.to_str().unwrap(),
            store[0],
            store[1],
            "--decisions",
            decisions.to_str().unwrap(),
            "--batch",
            &batch.to_string(),
            "-q",
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let written = killed_five_times(dir, &args, open);
    let last = dir.join("last.jsonl");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_txtfp"))
        .args(args(&last))
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let again = json_lines(&read(&last));
    let inputs = json_lines(&read(input));
    assert_eq!(again.len(), inputs.len());
    for line in &written {
        let id = &line["doc_id"];
        let replay = again.iter().find(|d| &d["doc_id"] == id).unwrap();
        assert_eq!(replay["replayed"], true, "{id}");
        assert_eq!(replay["decided_at"], line["decided_at"], "{id}");
        assert_eq!(replay["action"], line["action"], "{id}");
    }
    let s = open();
    for (line, d) in inputs.iter().zip(&again) {
        let id = line["id"].as_str().unwrap();
        assert_eq!(d["doc_id"], id);
        let stored = s.document(id).unwrap().expect("stored");
        assert_eq!(
            stored.decision.decided_at,
            d["decided_at"].as_u64().unwrap(),
            "{id}"
        );
    }
}

/// Killed at any moment (five of them), `store ingest` leaves in
/// `--decisions` only whole lines (but perhaps a last one cut short), each
/// the decision the store holds for its document; running it again
/// completes the store and replays them unchanged.
#[test]
fn decisions_survive_five_kills() {
    let dir = fresh_dir("store_kill");
    let input = dir.join("docs.jsonl");
    std::fs::write(&input, many_documents(3000)).unwrap();
    let root = dir.join("store");
    let open = || {
        let mut c = GlobalStoreConfig::default();
        c.root_path = root.clone();
        GlobalFingerprintStore::open(c).unwrap()
    };
    killed_five_times_then_completed(&dir, &input, ["--root", root.to_str().unwrap()], 50, &open);
}

/// A store of the earlier single-file format: refused with a message
/// naming `migrate`, converted by it, then the same metrics and decisions.
#[test]
fn an_earlier_store_is_refused_then_migrated() {
    use txtfp::store::backend::LegacyRedbStore;
    let dir = fresh_dir("store_migrate");
    let root = dir.join("store");
    let r = root.to_str().unwrap();
    let mut cfg = GlobalStoreConfig::default();
    cfg.root_path = root.clone();
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let docs: Vec<IncomingDocument> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            IncomingDocument::new(
                v["id"].as_str().unwrap(),
                v["text"].as_str().unwrap(),
                "cli",
            )
        })
        .collect();
    let old = GlobalFingerprintStore::with_backend(
        cfg.clone(),
        Box::new(LegacyRedbStore::open(&root).unwrap()),
    )
    .unwrap();
    for d in &docs {
        old.ingest(d).unwrap();
    }
    let want = old.metrics().unwrap().to_json();
    drop(old);
    let out = txtfp(&["store", "metrics", "--root", r, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("store migrate"), "{}", stderr(&out));
    let out = txtfp(&["store", "migrate", "--root", r]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(root.join("store.redb.migrated").exists());
    let out = txtfp(&["store", "metrics", "--root", r, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got, serde_json::from_str::<Value>(&want).unwrap());
    // Nothing left to convert.
    assert_eq!(
        txtfp(&["store", "migrate", "--root", r]).status.code(),
        Some(1)
    );
}

/// `store ingest` on a Redis Cluster, killed with SIGKILL at five moments:
/// every decision line it wrote is the decision the store holds, and a
/// last run completes the store, replaying them unchanged. Needs
/// `TXTFP_REDIS_CLUSTER` (`eval "$(scripts/setup-redis-cluster.sh)"`).
#[cfg(feature = "store-redis")]
#[test]
fn decisions_on_a_cluster_survive_five_kills() {
    let Ok(nodes) = std::env::var("TXTFP_REDIS_CLUSTER") else {
        assert!(
            std::env::var("TXTFP_REQUIRE_REDIS").map_or(true, |v| v != "1"),
            "TXTFP_REQUIRE_REDIS=1 but TXTFP_REDIS_CLUSTER is not set"
        );
        eprintln!("SKIPPED: TXTFP_REDIS_CLUSTER is not set");
        return;
    };
    let dir = fresh_dir("store_cluster_kill");
    let input = dir.join("docs.jsonl");
    std::fs::write(&input, many_documents(3000)).unwrap();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let toml = format!(
        "[global_fingerprints]\nbackend = \"redis-cluster\"\nredis_nodes = [{}]\n\
         redis_prefix = \"cli-kill-{}-{nanos}\"\nredis_lease_ms = 3000\n",
        nodes
            .split(',')
            .map(|n| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(", "),
        std::process::id()
    );
    let config = dir.join("store.toml");
    std::fs::write(&config, &toml).unwrap();
    let open =
        || GlobalFingerprintStore::open(GlobalStoreConfig::from_toml_str(&toml).unwrap()).unwrap();
    killed_five_times_then_completed(
        &dir,
        &input,
        ["--config", config.to_str().unwrap()],
        40,
        &open,
    );
}
