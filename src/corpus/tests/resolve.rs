//! Resolution: directories, classification, globs, `@list` files,
//! warnings, the order and the fingerprint.

use super::*;

/// A tree with JSONL shards, text files and a nested directory.
fn tree(root: &Path) {
    write(
        &root.join("b.jsonl"),
        b"{\"text\": \"b1\"}\n{\"text\": \"b2\"}\n",
    );
    write(&root.join("a.ndjson.gz"), &gz(b"{\"text\": \"a1\"}\n"));
    write(&root.join("notes/x.txt"), b"note x");
    write(&root.join("notes/y.md"), b"note y");
    write(&root.join("sub/c.json.zst"), &zst(b"{\"text\": \"c1\"}\n"));
    write(&root.join("z.txt"), b"zed");
}

fn names(corpus: &Corpus) -> Vec<(Format, String)> {
    corpus
        .shards()
        .iter()
        .map(|s| (s.format(), s.relative_path().display().to_string()))
        .collect()
}

#[test]
fn a_directory_is_walked_in_path_order() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    tree(&root);
    let corpus = resolve(&[&root]);
    assert!(corpus.warnings().is_empty(), "{:?}", corpus.warnings());
    assert_eq!(
        names(&corpus),
        [
            (Format::Jsonl, "a.ndjson.gz".into()),
            (Format::Jsonl, "b.jsonl".into()),
            (Format::Text, "".into()),
            (Format::Jsonl, "sub/c.json.zst".into()),
        ]
    );
    for (i, s) in corpus.shards().iter().enumerate() {
        assert_eq!(s.index() as usize, i);
    }
    let text = &corpus.shards()[2];
    let rels: Vec<_> = text
        .text_files()
        .map(|(_, r)| r.display().to_string())
        .collect();
    assert_eq!(rels, ["notes/x.txt", "notes/y.md", "z.txt"]);
    assert_eq!(text.rows_hint(), Some(3));
    let (docs, skips) = read_corpus(&corpus, &ReadOptions::default().block_bytes(4));
    assert!(skips.is_empty());
    let got: Vec<_> = docs
        .iter()
        .map(|d| (d.key.shard, d.key.row, d.id.clone(), d.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (0, 1, None, "a1"),
            (1, 1, None, "b1"),
            (1, 2, None, "b2"),
            (2, 0, Some("\"notes/x.txt\"".into()), "note x"),
            (2, 1, Some("\"notes/y.md\"".into()), "note y"),
            (2, 2, Some("\"z.txt\"".into()), "zed"),
            (3, 1, None, "c1"),
        ]
    );
    assert_eq!(docs[3].raw, b"note x");
}

#[test]
fn the_format_override_forces_one_kind() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    tree(&root);
    let text = Corpus::resolve(
        [&root],
        &ResolveOptions::default().format(Some(Format::Text)),
    )
    .unwrap();
    assert_eq!(names(&text), [(Format::Text, "".into())]);
    assert_eq!(text.shards()[0].rows_hint(), Some(6));
    // Every file as JSONL: the text files' lines are not JSON.
    let jsonl = Corpus::resolve(
        [&root],
        &ResolveOptions::default().format(Some(Format::Jsonl)),
    )
    .unwrap();
    assert_eq!(jsonl.shards().len(), 6);
    let (_, skips) = read_corpus(&jsonl, &ReadOptions::default());
    assert_eq!(skips.len(), 3);
    assert!(skips[0].place.ends_with("notes/x.txt:1"), "{}", skips[0]);
    // A file named on its own is JSONL unless told otherwise.
    let one = root.join("z.txt");
    assert_eq!(names(&resolve(&[&one])), [(Format::Jsonl, "z.txt".into())]);
    let as_text = Corpus::resolve(
        [&one],
        &ResolveOptions::default().format(Some(Format::Text)),
    )
    .unwrap();
    let (docs, _) = read_corpus(&as_text, &ReadOptions::default());
    assert_eq!(
        (docs[0].id.as_deref(), docs[0].text.as_str()),
        (Some("\"z.txt\""), "zed")
    );
}

#[test]
fn globs_match_files_in_path_order() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    tree(&root);
    write(&root.join("sub/deeper/d.jsonl"), b"{\"text\": \"d1\"}\n");
    write(&root.join(".hidden.jsonl"), b"{\"text\": \"h\"}\n");
    let r = root.display();
    let top = resolve(&[format!("{r}/*.jsonl*"), format!("{r}/*.ndjson*")]);
    assert_eq!(
        names(&top),
        [
            (Format::Jsonl, "b.jsonl".into()),
            (Format::Jsonl, "a.ndjson.gz".into())
        ]
    );
    let deep = resolve(&[format!("{r}/**/*.json*")]);
    assert_eq!(
        names(&deep),
        [
            (Format::Jsonl, "b.jsonl".into()),
            (Format::Jsonl, "sub/c.json.zst".into()),
            (Format::Jsonl, "sub/deeper/d.jsonl".into()),
        ]
    );
    let mid = resolve(&[format!("{r}/s?b/*")]);
    assert_eq!(names(&mid), [(Format::Jsonl, "sub/c.json.zst".into())]);
    let texts = resolve(&[format!("{r}/*/*.t?t")]);
    assert_eq!(names(&texts), [(Format::Text, "".into())]);
    let (docs, _) = read_corpus(&texts, &ReadOptions::default());
    assert_eq!(docs[0].id.as_deref(), Some("\"notes/x.txt\""));
    // No match: a warning, and with nothing else an error.
    let none = Corpus::resolve([format!("{r}/*.csv")], &ResolveOptions::default()).unwrap_err();
    assert!(matches!(none, CorpusError::Empty { .. }), "{none}");
    assert_eq!(
        none.to_string(),
        format!(
            "no input file found in {r}/*.csv (left out: {r}/*.csv: the glob pattern matched no file)"
        )
    );
    let some = resolve(&[format!("{r}/*.csv"), format!("{r}/b.jsonl")]);
    assert_eq!(some.warnings().len(), 1);
    assert!(some.warnings()[0].reason.contains("matched no file"));
    let bad = Corpus::resolve([format!("{r}/a**b/*")], &ResolveOptions::default()).unwrap_err();
    assert!(bad.to_string().contains("bad glob pattern"), "{bad}");
}

#[test]
fn list_files_name_one_input_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    tree(&root);
    let r = root.display();
    let list = write(
        &dir.path().join("inputs.txt"),
        format!("# the shards\n{r}/b.jsonl\n\n  {r}/sub/*.zst  \r\n{r}/notes\n").as_bytes(),
    );
    let corpus = resolve(&[format!("@{}", list.display())]);
    assert_eq!(
        names(&corpus),
        [
            (Format::Jsonl, "b.jsonl".into()),
            (Format::Jsonl, "c.json.zst".into()),
            (Format::Text, "".into()),
        ]
    );
    let bad = write(
        &dir.path().join("bad.txt"),
        format!("{r}/b.jsonl\n{r}/missing.jsonl\n").as_bytes(),
    );
    let err =
        Corpus::resolve([format!("@{}", bad.display())], &ResolveOptions::default()).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("@{}:2: {r}/missing.jsonl: ", bad.display())),
        "{msg}"
    );
    let err = Corpus::resolve(
        [format!("@{}/none.txt", dir.path().display())],
        &ResolveOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("cannot read"), "{err}");
}

#[test]
fn missing_empty_and_repeated_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let err =
        Corpus::resolve([dir.path().join("nope.jsonl")], &ResolveOptions::default()).unwrap_err();
    assert!(matches!(err, CorpusError::Input { .. }), "{err}");
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let err = Corpus::resolve([dir.path().join("empty")], &ResolveOptions::default()).unwrap_err();
    assert!(matches!(err, CorpusError::Empty { .. }), "{err}");
    let root = dir.path().join("in");
    tree(&root);
    let corpus = resolve(&[root.join("b.jsonl"), root.clone()]);
    assert_eq!(corpus.shards().len(), 4);
    assert_eq!(corpus.shards()[0].relative_path(), Path::new("b.jsonl"));
    assert_eq!(corpus.warnings().len(), 1);
    assert!(
        corpus.warnings()[0].reason.contains("read once"),
        "{}",
        corpus.warnings()[0]
    );
}

#[cfg(unix)]
#[test]
fn links_fifos_and_sockets_in_a_directory_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    tree(&root);
    let outside = write(&dir.path().join("outside.jsonl"), b"{\"text\": \"o\"}\n");
    std::os::unix::fs::symlink(&outside, root.join("link.jsonl")).unwrap();
    std::os::unix::fs::symlink(root.join("sub"), root.join("linkdir")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("pipe.jsonl"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let _socket = std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
    let corpus = resolve(&[&root]);
    assert_eq!(corpus.shards().len(), 4);
    let mut warned: Vec<(String, String)> = corpus
        .warnings()
        .iter()
        .map(|w| {
            let name = w.path.file_name().unwrap().to_string_lossy().into_owned();
            (name, w.reason.clone())
        })
        .collect();
    warned.sort();
    let reasons: Vec<&str> = warned.iter().map(|w| w.0.as_str()).collect();
    assert_eq!(reasons, ["link.jsonl", "linkdir", "pipe.jsonl", "sock"]);
    assert!(
        warned[0].1.starts_with("a symbolic link (to "),
        "{:?}",
        warned[0]
    );
    assert!(warned[2].1.starts_with("a FIFO"), "{:?}", warned[2]);
    assert!(warned[3].1.starts_with("a socket"), "{:?}", warned[3]);
    // Named on its own, a link is followed; a FIFO is refused.
    let linked = resolve(&[root.join("link.jsonl")]);
    assert!(linked.warnings().is_empty());
    let (docs, _) = read_corpus(&linked, &ReadOptions::default());
    assert_eq!(docs[0].text, "o");
    let err = Corpus::resolve([root.join("pipe.jsonl")], &ResolveOptions::default()).unwrap_err();
    assert!(err.to_string().contains("a FIFO"), "{err}");
    // A glob follows matching links to files and reports the others.
    let globbed = resolve(&[format!("{}/*.jsonl", root.display())]);
    let got: Vec<_> = names(&globbed).into_iter().map(|n| n.1).collect();
    assert_eq!(got, ["b.jsonl", "link.jsonl"]);
    assert_eq!(globbed.warnings().len(), 1, "{:?}", globbed.warnings());
    assert!(globbed.warnings()[0].reason.starts_with("a FIFO"));
}

#[cfg(unix)]
#[test]
fn an_unreadable_subdirectory_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    tree(&root);
    let locked = root.join("locked");
    write(&locked.join("l.jsonl"), b"{\"text\": \"l\"}\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable = std::fs::read_dir(&locked).is_ok(); // root reads it anyway
    let corpus = resolve(&[&root]);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    if readable {
        assert_eq!(corpus.shards().len(), 5);
    } else {
        assert_eq!(corpus.shards().len(), 4);
        assert!(
            corpus.warnings()[0]
                .reason
                .contains("cannot read the directory")
        );
    }
}

#[test]
fn same_order_and_keys_on_every_read_and_a_fingerprint_of_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    tree(&root);
    let first = resolve(&[&root]);
    let second = resolve(&[&root]);
    assert_eq!(first.fingerprint(), second.fingerprint());
    assert_eq!(names(&first), names(&second));
    let opts = ReadOptions::default().block_bytes(8);
    let a = read_corpus(&first, &opts);
    let b = read_corpus(&first, &opts);
    let c = read_corpus(&second, &ReadOptions::default());
    assert_eq!(a.0, b.0);
    assert_eq!(a.0, c.0);

    // Another size: another fingerprint, and the old corpus refuses to read it.
    write(&root.join("b.jsonl"), b"{\"text\": \"b1\"}\n");
    let third = resolve(&[&root]);
    assert_ne!(third.fingerprint(), first.fingerprint());
    let err = first.shards()[1].blocks(&opts).unwrap_err();
    assert!(matches!(err, CorpusError::Changed { .. }), "{err}");
    assert!(err.to_string().contains("b.jsonl: changed since"), "{err}");
    write(&root.join("z.txt"), b"zed, longer");
    let text = read_shard(&first.shards()[2], &opts);
    assert!(
        matches!(text.error, Some(CorpusError::Changed { .. })),
        "{:?}",
        text.error
    );
}

#[test]
fn text_files_too_large_or_not_utf8_are_skips() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    write(&root.join("a.txt"), b"fine");
    write(&root.join("b.txt"), b"bad \xc3\x28 utf8");
    write(&root.join("c.txt"), &[b'x'; 300]);
    let corpus = resolve(&[&root]);
    let r = read_shard(
        &corpus.shards()[0],
        &ReadOptions::default().max_record_bytes(100),
    );
    assert_eq!(r.docs.len(), 1);
    let skips: Vec<String> = r.skips.iter().map(ToString::to_string).collect();
    assert_eq!(
        skips[0],
        format!("{}: invalid UTF-8 at byte 5", root.join("b.txt").display())
    );
    assert!(
        skips[1].ends_with(
            "a file of 300 bytes, larger than the limit of 100 bytes (max_record_bytes)"
        )
    );
    assert_eq!(r.skips[1].key, Key { shard: 0, row: 2 });
}

#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_without_the_feature_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    write(&root.join("a.parquet"), b"PAR1");
    let err = Corpus::resolve([&root], &ResolveOptions::default()).unwrap_err();
    assert!(err.to_string().contains("no `parquet` feature"), "{err}");
}
