use super::*;

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "txtfp-hub-unit-{tag}-{}-{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn urls() {
    let e = "https://huggingface.co";
    assert_eq!(
        info_url(e, "BAAI/bge-small-en-v1.5"),
        "https://huggingface.co/api/models/BAAI/bge-small-en-v1.5/revision/main"
    );
    assert_eq!(
        file_url(e, "org/m", "abc123", "onnx/model.onnx"),
        "https://huggingface.co/org/m/resolve/abc123/onnx/model.onnx"
    );
    assert_eq!(
        file_url(e, "gpt2", "abc", "a b/c%d+é.txt"),
        "https://huggingface.co/gpt2/resolve/abc/a%20b/c%25d%2B%C3%A9.txt"
    );
}

#[test]
fn endpoints_and_tokens_are_checked() {
    let hub = |e: &str| Hub::new(e, None).map(|h| h.endpoint);
    assert_eq!(hub("https://huggingface.co/").unwrap(), DEFAULT_ENDPOINT);
    assert_eq!(
        hub("http://127.0.0.1:8080/mirror").unwrap(),
        "http://127.0.0.1:8080/mirror"
    );
    for bad in [
        "",
        "huggingface.co",
        "ftp://x",
        "https://",
        "https://h/?q",
        "https://h/#f",
    ] {
        let e = hub(bad).unwrap_err().to_string();
        assert!(e.contains("HF_ENDPOINT must be"), "{bad}: {e}");
    }
    let e = Hub::new(DEFAULT_ENDPOINT, Some("hf_a b".into()))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("HF_TOKEN") && !e.contains("hf_a"), "{e}");
}

#[test]
fn file_names_from_the_server_cannot_escape_the_snapshot() {
    for ok in [
        "tokenizer.json",
        "onnx/model.onnx",
        "a..b",
        ".gitattributes",
        "x/y.z/w",
    ] {
        assert!(is_safe_file_name(ok), "{ok}");
    }
    let long = "x".repeat(NAME_CAP + 1);
    for bad in [
        "",
        "..",
        ".",
        "../x",
        "a/../../x",
        "a/./b",
        "/etc/passwd",
        "a//b",
        "a/",
        "a\\..\\b",
        "C:x",
        "a\0b",
        "a\nb",
        long.as_str(),
    ] {
        assert!(!is_safe_file_name(bad), "{bad:?}");
    }
    for ok in ["0123456789abcdef0123456789abcdef01234567", "a"] {
        assert!(is_valid_commit(ok), "{ok}");
    }
    for bad in ["", "..", "a/b", "abc ", &"a".repeat(129)] {
        assert!(!is_valid_commit(bad), "{bad:?}");
    }
}

#[test]
fn file_lists_are_parsed_defensively() {
    let info = parse_info(
        br#"{"sha":"abc","siblings":[{"rfilename":"model.onnx"},{"rfilename":"../../x"},
                {"rfilename":"/abs"},{"rfilename":7},{},"str",{"rfilename":"onnx/a.onnx"}],
                "extra":1}"#,
    )
    .unwrap();
    assert_eq!(
        info,
        RepoInfo {
            sha: "abc".into(),
            files: vec!["model.onnx".into(), "onnx/a.onnx".into()]
        }
    );
    let deep = "[".repeat(100_000);
    for bad in [
        &b"not json"[..],
        b"",
        b"[]",
        b"{\"siblings\":[]}",
        br#"{"sha":"../x","siblings":[]}"#,
        br#"{"sha":"abc"}"#,
        br#"{"sha":"abc","siblings":{}}"#,
        deep.as_bytes(),
    ] {
        assert!(parse_info(bad).is_err(), "{}", String::from_utf8_lossy(bad));
    }
}

/// Yields `n` bytes, then fails like a dropped connection.
struct BreaksOff(usize);

impl Read for BreaksOff {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0 == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "connection reset",
            ));
        }
        let n = self.0.min(buf.len()).min(1000);
        buf[..n].fill(b'x');
        self.0 -= n;
        Ok(n)
    }
}

#[test]
fn atomic_writes_leave_nothing_partial() {
    let dir = temp_dir("atomic");
    let dest = dir.join("sub/model.onnx");
    // A broken transfer: no file under either name, the folder is empty.
    let e = write_atomic(&dest, &mut BreaksOff(5000), None).unwrap_err();
    assert!(e.contains("broke off after 5000 bytes"), "{e}");
    assert!(!dest.exists());
    assert!(entries(&dir.join("sub")).is_empty());
    // A short body for its Content-Length.
    let e = write_atomic(&dest, &mut &b"abc"[..], Some(10)).unwrap_err();
    assert!(e.contains("3 of 10 bytes"), "{e}");
    assert!(entries(&dir.join("sub")).is_empty());
    // A whole one, then a replacement: only the final name remains.
    assert_eq!(write_atomic(&dest, &mut &b"abc"[..], Some(3)), Ok(3));
    assert_eq!(write_atomic(&dest, &mut &b"de"[..], None), Ok(2));
    assert_eq!(fs::read(&dest).unwrap(), b"de");
    assert_eq!(entries(&dir.join("sub")), ["model.onnx"]);
    // A failed replacement keeps the old file.
    assert!(write_atomic(&dest, &mut BreaksOff(10), None).is_err());
    assert_eq!(fs::read(&dest).unwrap(), b"de");
    assert_eq!(entries(&dir.join("sub")), ["model.onnx"]);
    fs::remove_dir_all(&dir).unwrap();
}
