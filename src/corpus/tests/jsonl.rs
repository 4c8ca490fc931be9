//! JSONL shards: compressions, block boundaries, long records, the cap,
//! truncated streams, bad records.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use rayon::prelude::*;

use super::super::jsonl::{LineReader, LineRec, index_lines, parse_line};
use super::*;

fn cols() -> Columns {
    Columns {
        text: "text".into(),
        id: Some("id".into()),
        extra: None,
    }
}

#[test]
fn borrows_plain_text_and_copies_escaped() {
    let f = parse_line(
        br#"{"id": 7, "x": [1, {"a": 2}], "text": "plain"}"#,
        &cols(),
    )
    .unwrap();
    assert!(matches!(f.text, Cow::Borrowed("plain")));
    assert_eq!(f.id, Some("7"));
    let f = parse_line(br#"{"text": "a\nb", "id": "q"}"#, &cols()).unwrap();
    assert_eq!(f.text, "a\nb");
    assert_eq!(f.id, Some("\"q\""));
}

#[test]
fn says_what_is_wrong_with_a_line() {
    let c = cols();
    assert_eq!(
        parse_line(br#"{"id": 1}"#, &c).unwrap_err(),
        "no \"text\" column"
    );
    let e = parse_line(br#"{"text": 5}"#, &c).unwrap_err();
    assert!(e.contains("expected a string in column \"text\""), "{e}");
    let e = parse_line(br#"{"text": "a""#, &c).unwrap_err();
    assert!(e.starts_with("malformed JSON"), "{e}");
    assert_eq!(
        parse_line(b"{\"text\": \"\xff\"}", &c).unwrap_err(),
        "invalid UTF-8 at byte 11 of the line"
    );
    let e = parse_line(br#"[1]"#, &c).unwrap_err();
    assert!(e.contains("a JSON object per line"), "{e}");
}

#[test]
fn indexes_lines_without_blank_ones() {
    let mut recs = Vec::new();
    index_lines(b"a\r\n\n  \nb\nc", 10, u64::MAX, &mut recs);
    let got: Vec<_> = recs
        .iter()
        .map(|r| match *r {
            LineRec::Line {
                number,
                start,
                end,
                next,
            } => (number, start, end, next),
            LineRec::TooLong { .. } => panic!("{r:?}"),
        })
        .collect();
    assert_eq!(got, [(10, 0, 1, 3), (13, 7, 8, 9), (14, 9, 10, 10)]);
}

#[test]
fn every_compression_reads_the_same_documents() {
    let dir = tempfile::tempdir().unwrap();
    let data = lines(50);
    let plain = write(&dir.path().join("p.jsonl"), &data);
    // Multi-member gzip and multi-frame zstd, as `cat a.gz b.gz` makes.
    let (a, b) = data.split_at(data.len() / 2);
    let gzip = write(&dir.path().join("g.jsonl.gz"), &[gz(a), gz(b)].concat());
    let zstd = write(&dir.path().join("z.jsonl.zst"), &[zst(a), zst(b)].concat());
    // Compression is known by the magic bytes, not the name.
    let hidden = write(&dir.path().join("h.jsonl"), &zst(&data));
    let corpus = resolve(&[&plain, &gzip, &zstd, &hidden]);
    let kinds: Vec<_> = corpus.shards().iter().map(Shard::compression).collect();
    assert_eq!(
        kinds,
        [
            Compression::None,
            Compression::Gzip,
            Compression::Zstd,
            Compression::Zstd
        ]
    );
    let opts = ReadOptions::default();
    let want = read_shard(&corpus.shards()[0], &opts);
    assert!(want.error.is_none() && want.skips.is_empty());
    assert_eq!(want.docs.len(), 50);
    assert_eq!(want.docs[0].id.as_deref(), Some("0"));
    assert_eq!(want.docs[0].text, "doc \"0\"\n");
    assert_eq!(want.docs[1].id.as_deref(), Some("\"s001\""));
    assert_eq!(want.docs[1].key, Key { shard: 0, row: 2 });
    assert_eq!(
        want.docs[1].raw,
        b"{\"text\": \"document number 1\", \"id\": \"s001\"}\n"
    );
    for shard in &corpus.shards()[1..] {
        let got = read_shard(shard, &opts);
        assert!(got.error.is_none(), "{:?}", got.error);
        assert_eq!(got.docs.len(), 50);
        for (g, w) in got.docs.iter().zip(&want.docs) {
            assert_eq!(
                (g.key.row, &g.id, &g.text, &g.raw),
                (w.key.row, &w.id, &w.text, &w.raw)
            );
            assert_eq!(g.key.shard, shard.index());
        }
    }
}

#[test]
fn block_boundaries_never_split_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = lines(40);
    data.extend_from_slice(
        b"\n   \r\n{\"text\": \"crlf\"}\r\n{\"text\": \"no newline at the end\"}",
    );
    let path = write(&dir.path().join("a.jsonl"), &data);
    let gzip = write(&dir.path().join("a2.jsonl.gz"), &gz(&data));
    let corpus = resolve(&[&path, &gzip]);
    let whole = read_shard(&corpus.shards()[0], &ReadOptions::default());
    assert_eq!(whole.blocks, 1);
    assert_eq!(whole.docs.len(), 42);
    let crlf = &whole.docs[40];
    assert_eq!((crlf.key.row, crlf.text.as_str()), (43, "crlf"));
    assert_eq!(crlf.raw, b"{\"text\": \"crlf\"}\r\n");
    assert_eq!(whole.docs[41].raw, b"{\"text\": \"no newline at the end\"}");
    for shard in corpus.shards() {
        for block_bytes in [1, 7, 33, 64, 100, 1000] {
            let opts = ReadOptions::default().block_bytes(block_bytes);
            let got = read_shard(shard, &opts);
            assert!(got.error.is_none());
            assert!(got.blocks > 1, "{block_bytes}");
            let strip = |d: &Owned| (d.key.row, d.id.clone(), d.text.clone(), d.raw.clone());
            let got: Vec<_> = got.docs.iter().map(strip).collect();
            let want: Vec<_> = whole.docs.iter().map(strip).collect();
            assert_eq!(got, want, "block_bytes {block_bytes}");
        }
    }
}

#[test]
fn a_record_larger_than_the_block_grows_it_in_place() {
    let big = "x".repeat(3 << 20);
    let data =
        format!("{{\"text\": \"small\"}}\n{{\"text\": \"{big}\"}}\n{{\"text\": \"after\"}}\n");
    let reader = LineReader::new(
        "big.jsonl".into(),
        Box::new(std::io::Cursor::new(data.clone().into_bytes())),
        Compression::None,
        Arc::new(AtomicU64::new(0)),
        4096,
        u64::MAX,
    );
    let mut sizes = Vec::new();
    for block in reader {
        let block = block.unwrap();
        // One copy of the line, in a buffer grown by doubling at most.
        assert!(
            block.buf.capacity() <= 2 * block.buf.len() + (2 << 20),
            "{}",
            block.buf.capacity()
        );
        sizes.push((block.recs.len(), block.buf.len()));
    }
    assert_eq!(sizes.iter().map(|s| s.0).sum::<usize>(), 3);
    assert!(sizes.iter().any(|s| s.1 > 3 << 20), "{sizes:?}");

    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("big.jsonl.zst"), &zst(data.as_bytes()));
    let got = read_shard(
        &resolve(&[path]).shards()[0],
        &ReadOptions::default().block_bytes(4096),
    );
    let texts: Vec<usize> = got.docs.iter().map(|d| d.text.len()).collect();
    assert_eq!(texts, [5, 3 << 20, 5]);
}

#[test]
fn a_record_over_the_cap_is_skipped_and_reading_goes_on() {
    let long = format!("{{\"text\": \"{}\"}}", "y".repeat(500));
    let dir = tempfile::tempdir().unwrap();
    for (name, data) in [
        (
            "middle.jsonl",
            format!("{{\"text\": \"a\"}}\n{long}\n{{\"text\": \"b\"}}\n"),
        ),
        (
            "first.jsonl",
            format!("{long}\n{long}\n{{\"text\": \"b\"}}\n"),
        ),
        ("last.jsonl", format!("{{\"text\": \"a\"}}\n{long}")),
    ] {
        let path = write(&dir.path().join(name), data.as_bytes());
        for block_bytes in [16, 100, 4096] {
            let opts = ReadOptions::default()
                .max_record_bytes(200)
                .block_bytes(block_bytes);
            let got = read_shard(&resolve(&[&path]).shards()[0], &opts);
            assert!(got.error.is_none(), "{:?}", got.error);
            let texts: Vec<&str> = got.docs.iter().map(|d| d.text.as_str()).collect();
            let skipped: Vec<u64> = got.skips.iter().map(|s| s.key.row).collect();
            match name {
                "middle.jsonl" => {
                    assert_eq!(texts, ["a", "b"]);
                    assert_eq!(skipped, [2]);
                    assert_eq!(got.docs[1].key.row, 3);
                }
                "first.jsonl" => {
                    assert_eq!(texts, ["b"]);
                    assert_eq!(skipped, [1, 2]);
                }
                _ => {
                    assert_eq!(texts, ["a"]);
                    assert_eq!(skipped, [2]);
                }
            }
            let s = &got.skips[0];
            assert!(s.place.ends_with(&format!("{name}:{}", skipped[0])), "{s}");
            assert!(
                s.reason
                    .contains("longer than the limit of 200 bytes (max_record_bytes)"),
                "{s}"
            );
        }
    }
}

/// A prefix of a compressed stream: the records before the cut are
/// delivered, then an error naming the file and saying it is truncated.
#[test]
fn truncated_gzip_and_zstd_deliver_what_came_before() {
    let dir = tempfile::tempdir().unwrap();
    // Enough for several zstd blocks (128 KiB each): zstd decodes whole
    // blocks only.
    let data = lines(20_000);
    for (name, packed) in [("t.jsonl.gz", gz(&data)), ("t.jsonl.zst", zst(&data))] {
        let path = write(&dir.path().join(name), &packed[..packed.len() / 2]);
        let got = read_shard(
            &resolve(&[&path]).shards()[0],
            &ReadOptions::default().block_bytes(4096),
        );
        let err = got.error.expect("an error");
        let msg = err.to_string();
        assert!(msg.starts_with(&path.display().to_string()), "{msg}");
        assert!(msg.contains("truncated"), "{msg}");
        let CorpusError::Read { line, .. } = err else {
            panic!("{err:?}")
        };
        assert!(got.docs.len() > 100, "{}", got.docs.len());
        assert_eq!(got.docs.len() as u64, line);
        let want = lines(got.docs.len());
        let raw: Vec<u8> = got.docs.iter().flat_map(|d| d.raw.clone()).collect();
        assert_eq!(raw, want);
    }
}

#[test]
fn a_corrupt_stream_is_an_error_after_the_good_part() {
    let dir = tempfile::tempdir().unwrap();
    let good = lines(100);
    // A valid frame (member), then bytes that are no frame (member) at all.
    for (name, mut packed) in [("c.jsonl.gz", gz(&good)), ("c.jsonl.zst", zst(&good))] {
        packed.extend_from_slice(&packed.clone()[..4]);
        packed.extend_from_slice(b"garbage, not a header");
        let path = write(&dir.path().join(name), &packed);
        let got = read_shard(&resolve(&[&path]).shards()[0], &ReadOptions::default());
        let msg = got.error.expect("an error").to_string();
        assert!(
            msg.contains("stream is corrupt or unreadable") || msg.contains("truncated"),
            "{msg}"
        );
        assert!(msg.contains("after line 100"), "{msg}");
        assert_eq!(got.docs.len(), 100);
    }
}

#[test]
fn bad_records_are_skips_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = b"{\"text\": \"ok\"}\n{\"text\": \"bad \xff byte\"}\n{\"id\": 3}\nnot json\n{\"text\": \"ok2\", \"id\": null}\n";
    let path = write(&dir.path().join("bad.jsonl"), data);
    let got = read_shard(&resolve(&[&path]).shards()[0], &ReadOptions::default());
    let shown = path.display();
    let skips: Vec<String> = got.skips.iter().map(ToString::to_string).collect();
    assert_eq!(
        skips[0],
        format!("{shown}:2: invalid UTF-8 at byte 15 of the line")
    );
    assert_eq!(skips[1], format!("{shown}:3: no \"text\" column"));
    assert!(
        skips[2].starts_with(&format!("{shown}:4: malformed JSON")),
        "{}",
        skips[2]
    );
    let docs: Vec<_> = got
        .docs
        .iter()
        .map(|d| (d.key.row, d.id.as_deref(), d.text.as_str()))
        .collect();
    assert_eq!(docs, [(1, None, "ok"), (5, Some("null"), "ok2")]);
}

#[test]
fn other_columns_and_the_extra_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir.path().join("c.jsonl"),
        b"{\"body\": \"hello\", \"key\": [1], \"src\": \"web\", \"id\": 9}\n",
    );
    let opts = ReadOptions::default()
        .text_column("body")
        .id_column(Some("key"))
        .extra_column(Some("src"));
    let blocks: Vec<Block> = resolve(&[&path]).shards()[0]
        .blocks(&opts)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let doc = blocks[0].record(0).unwrap().unwrap();
    assert_eq!(doc.id.as_deref(), Some("[1]"));
    assert_eq!(doc.extra.as_deref(), Some("web"));
    assert_eq!(doc.text, "hello");
    assert!(blocks[0].record(1).is_none());
    let none = ReadOptions::default().text_column("body").id_column(None);
    let got = read_shard(&resolve(&[&path]).shards()[0], &none);
    assert_eq!(got.docs[0].id, None);
}

#[test]
fn progress_reaches_the_file_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("p.jsonl.gz"), &gz(&lines(2000)));
    let corpus = resolve(&[&path]);
    assert_eq!(
        corpus.total_bytes(),
        std::fs::metadata(&path).unwrap().len()
    );
    let positions: Vec<u64> = corpus.shards()[0]
        .blocks(&ReadOptions::default().block_bytes(8192))
        .unwrap()
        .map(|b| b.unwrap().input_position())
        .collect();
    assert!(positions.len() > 3);
    assert!(positions.windows(2).all(|w| w[0] <= w[1]), "{positions:?}");
    assert_eq!(positions.last().copied(), Some(corpus.total_bytes()));
}

#[test]
fn stdin_is_read_once() {
    let corpus = resolve(&["-"]);
    assert_eq!(corpus.shards()[0].name(), "<stdin>");
    assert_eq!(corpus.shards()[0].relative_path(), Path::new("stdin.jsonl"));
    // Mark it read without touching the test's standard input.
    if let Source::Stdin { taken } = &corpus.shards()[0].source {
        taken.store(true, std::sync::atomic::Ordering::SeqCst);
    }
    assert!(matches!(
        corpus.shards()[0].blocks(&ReadOptions::default()),
        Err(CorpusError::StdinReread)
    ));
    let twice = Corpus::resolve(["-", "-"], &ResolveOptions::default()).unwrap_err();
    assert!(
        twice.to_string().contains("standard input given twice"),
        "{twice}"
    );
}

#[test]
fn one_thread_reads_while_another_parses() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("p.jsonl.zst"), &zst(&lines(500)));
    let corpus = resolve(&[&path]);
    let blocks = corpus.shards()[0]
        .blocks(&ReadOptions::default().block_bytes(1000))
        .unwrap();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Block>(2);
    let texts: Vec<String> = std::thread::scope(|s| {
        s.spawn(move || {
            for block in blocks {
                tx.send(block.unwrap()).unwrap();
            }
        });
        rx.iter()
            .flat_map(|block| {
                let parsed: Vec<String> = block
                    .par_records()
                    .map(|r| r.unwrap().text.into_owned())
                    .collect();
                parsed
            })
            .collect()
    });
    let want = read_shard(&corpus.shards()[0], &ReadOptions::default());
    let want: Vec<String> = want.docs.into_iter().map(|d| d.text).collect();
    assert_eq!(texts, want);
    assert_eq!(texts.len(), 500);
}
