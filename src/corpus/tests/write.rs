//! The writer: kept records in the input's format, each compression,
//! atomic files, clear errors.

use super::super::decompress::sniff_file;
use super::*;

/// Files under `dir` (recursively), relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn jsonl_round_trip_keeps_every_second_line_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    let mut data = lines(30);
    data.extend_from_slice(b"\n{\"text\": \"crlf\"}\r\nnot json\n{\"text\": \"last\"}");
    write(&root.join("p.jsonl"), &data);
    write(&root.join("deep/g.jsonl.gz"), &gz(&data));
    write(&root.join("z.jsonl.zst"), &zst(&data));
    let corpus = resolve(&[&root]);
    let opts = ReadOptions::default().block_bytes(64);
    let inputs: Vec<Read> = corpus
        .shards()
        .iter()
        .map(|s| read_shard(s, &opts))
        .collect();
    for (chosen, suffixes) in [
        (None, ["deep/g.jsonl.gz", "p.jsonl", "z.jsonl.zst"]),
        (
            Some(Compression::None),
            ["deep/g.jsonl", "p.jsonl", "z.jsonl"],
        ),
        (
            Some(Compression::Gzip),
            ["deep/g.jsonl.gz", "p.jsonl.gz", "z.jsonl.gz"],
        ),
        (
            Some(Compression::Zstd),
            ["deep/g.jsonl.zst", "p.jsonl.zst", "z.jsonl.zst"],
        ),
    ] {
        let out = dir.path().join(format!("out-{chosen:?}"));
        let writer =
            Writer::new(&corpus, &out, &WriteOptions::default().compression(chosen)).unwrap();
        for (shard, input) in corpus.shards().iter().zip(&inputs) {
            // Odd lines, and the last one, which has no line break.
            let keep = |row: u64| row % 2 == 1 || row == 34;
            let summary = writer.write_shard(shard, &opts, keep).unwrap();
            assert_eq!(summary.rows_read, 33);
            let kept: Vec<&Owned> = input.docs.iter().filter(|d| keep(d.key.row)).collect();
            // Line 33 (`not json`) is written too: the predicate sees every record.
            assert_eq!(summary.rows_written, kept.len() as u64 + 1);
            assert_eq!(summary.output, writer.output_path(shard));
            assert_eq!(
                summary.bytes_written,
                std::fs::metadata(&summary.output).unwrap().len()
            );
            let want_compression = chosen.unwrap_or(shard.compression());
            assert_eq!(sniff_file(&summary.output).unwrap(), want_compression);
            let back = read_shard(&resolve(&[&summary.output]).shards()[0], &opts);
            assert!(back.error.is_none());
            let raw: Vec<&[u8]> = back.docs.iter().map(|d| d.raw.as_slice()).collect();
            let want: Vec<&[u8]> = kept.iter().map(|d| d.raw.as_slice()).collect();
            assert_eq!(raw, want);
            assert_eq!(back.skips.len(), 1);
        }
        assert_eq!(listing(&out), suffixes, "{chosen:?}");
    }
}

#[test]
fn a_sorted_row_list_selects_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("a.jsonl"), &lines(10));
    let corpus = resolve(&[&path]);
    let writer = Writer::new(&corpus, dir.path().join("out"), &WriteOptions::default()).unwrap();
    let rows = [1, 4, 5, 10, 11];
    let s = writer
        .write_shard(
            &corpus.shards()[0],
            &ReadOptions::default(),
            keep_rows(&rows),
        )
        .unwrap();
    assert_eq!((s.rows_read, s.rows_written), (10, 4));
    let back = read_shard(&resolve(&[&s.output]).shards()[0], &ReadOptions::default());
    let ids: Vec<_> = back.docs.iter().map(|d| d.id.clone().unwrap()).collect();
    assert_eq!(ids, ["0", "3", "\"s004\"", "9"]);
}

#[test]
fn text_files_are_copied_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    write(&root.join("a.txt"), b"alpha");
    write(&root.join("n/b.txt"), b"beta \xff");
    write(&root.join("n/c.md"), b"gamma");
    let corpus = resolve(&[&root]);
    let writer = Writer::new(
        &corpus,
        dir.path().join("out"),
        &WriteOptions::default().compression(Some(Compression::Gzip)),
    )
    .unwrap();
    let s = writer
        .write_shard(&corpus.shards()[0], &ReadOptions::default(), |r| r != 0)
        .unwrap();
    assert_eq!((s.rows_read, s.rows_written, s.bytes_written), (3, 2, 11));
    let out = dir.path().join("out");
    assert_eq!(listing(&out), ["n/b.txt", "n/c.md"]);
    assert_eq!(std::fs::read(out.join("n/b.txt")).unwrap(), b"beta \xff");
}

#[test]
fn output_names_must_not_clash_nor_be_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(&dir.path().join("a/x.jsonl"), &lines(2));
    let b = write(&dir.path().join("b/x.jsonl"), &lines(2));
    let corpus = resolve(&[&a, &b]);
    let err = Writer::new(&corpus, dir.path().join("out"), &WriteOptions::default()).unwrap_err();
    assert!(matches!(err, CorpusError::OutputClash { .. }), "{err}");
    assert!(
        err.to_string()
            .contains(&format!("both {} and {}", a.display(), b.display())),
        "{err}"
    );

    let corpus = resolve(&[&a]);
    let writer = Writer::new(&corpus, dir.path().join("a"), &WriteOptions::default()).unwrap();
    let err = writer
        .write_shard(&corpus.shards()[0], &ReadOptions::default(), |_| true)
        .unwrap_err();
    assert!(
        err.to_string().contains("is the input file itself"),
        "{err}"
    );
    assert_eq!(std::fs::read(&a).unwrap(), lines(2));
}

#[test]
fn the_final_name_appears_only_when_the_file_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("a.jsonl.gz"), &gz(&lines(200)));
    let corpus = resolve(&[&path]);
    let out = dir.path().join("out");
    let writer = Writer::new(&corpus, &out, &WriteOptions::default()).unwrap();
    let fin = out.join("a.jsonl.gz");
    let tmp = out.join(format!(".a.jsonl.gz.txtfp-tmp-{}", std::process::id()));
    let mut seen = 0;
    writer
        .write_shard(
            &corpus.shards()[0],
            &ReadOptions::default().block_bytes(256),
            |_| {
                // While rows are being written, only the temporary file exists.
                assert!(!fin.exists() && tmp.exists());
                seen += 1;
                true
            },
        )
        .unwrap();
    assert_eq!(seen, 200);
    assert_eq!(listing(&out), ["a.jsonl.gz"]);

    // A failure part way (the input is truncated) leaves neither the final
    // file nor the temporary one.
    let packed = gz(&lines(3000));
    let cut = write(&dir.path().join("t.jsonl.gz"), &packed[..packed.len() / 2]);
    let corpus = resolve(&[&cut]);
    let out = dir.path().join("out2");
    let writer = Writer::new(&corpus, &out, &WriteOptions::default()).unwrap();
    let err = writer
        .write_shard(&corpus.shards()[0], &ReadOptions::default(), |_| true)
        .unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
    assert!(listing(&out).is_empty(), "{:?}", listing(&out));
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_an_error_naming_the_output_file() {
    if !Path::new("/dev/full").exists() {
        panic!("/dev/full is missing: this test needs it on Linux");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("a.jsonl"), &lines(100));
    let corpus = resolve(&[&path]);
    let out = dir.path().join("out");
    let writer = Writer::new(&corpus, &out, &WriteOptions::default()).unwrap();
    // The temporary name leads to /dev/full, which fails every write with
    // ENOSPC, as a full disk does.
    let tmp = out.join(format!(".a.jsonl.txtfp-tmp-{}", std::process::id()));
    std::os::unix::fs::symlink("/dev/full", &tmp).unwrap();
    let err = writer
        .write_shard(&corpus.shards()[0], &ReadOptions::default(), |_| true)
        .unwrap_err();
    let CorpusError::Io {
        file,
        action,
        source,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(file, &out.join("a.jsonl").display().to_string());
    assert_eq!(*action, "write");
    assert_eq!(source.raw_os_error(), Some(28), "{source}");
    assert!(
        err.to_string()
            .contains("cannot write: No space left on device"),
        "{err}"
    );
    assert!(!out.join("a.jsonl").exists());
}
