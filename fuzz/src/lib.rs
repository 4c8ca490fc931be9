//! The checks behind every fuzz target, as plain functions.
//!
//! Each `fuzz_targets/<name>.rs` is a one-line libFuzzer wrapper around the
//! function of the same name here, and `examples/smoke.rs` calls the same
//! functions on generated inputs. Keeping the checks in one place means a
//! crash found by libFuzzer replays unchanged with the stable-only smoke
//! runner (`cargo run --example smoke -- --replay <target> <file>`).
//!
//! A check "fails" by panicking: libFuzzer reports the panic as a crash and
//! saves the input.

use std::io::Write;

use txtfp::{
    Canonicalizer, CanonicalizerBuilder, CaseFold, Error, Fingerprint, FingerprintMetadata,
    Fingerprinter, GraphemeTokenizer, MinHashFingerprinter, MinHashSig, MinHashStreaming,
    Normalization, ShingleTokenizer, SimHash64, SimHashFingerprinter, SimHashStreaming,
    StreamingFingerprinter, Tokenizer, Weighting, WordTokenizer,
};

/// Names of the targets, in the order the smoke runner reports them.
pub const TARGETS: [&str; 9] = [
    "canonicalize",
    "streaming",
    "from_bytes",
    "deserialize",
    "index_file",
    "tlsh_parse",
    "store_files",
    "store_log",
    "store_segment",
];

/// Run the named target on one input. Unknown names return `false`.
pub fn run(target: &str, data: &[u8]) -> bool {
    match target {
        "canonicalize" => canonicalize(data),
        "streaming" => streaming(data),
        "from_bytes" => from_bytes(data),
        "deserialize" => deserialize(data),
        "index_file" => index_file(data),
        "tlsh_parse" => tlsh_parse(data),
        "store_files" => store_files(data),
        "store_log" => store_log(data),
        "store_segment" => store_segment(data),
        _ => return false,
    }
    true
}

// ---------------------------------------------------------------------------
// canonicalize
// ---------------------------------------------------------------------------

/// The canonicalizer configuration selected by one byte: every combination
/// of the five fields is reachable (2 bits normalization, 1 bit each for the
/// rest; the fourth normalization code maps to the default, NFKC).
pub fn config_from_byte(b: u8) -> CanonicalizerBuilder {
    CanonicalizerBuilder {
        normalization: match b & 3 {
            0 => Normalization::Nfc,
            2 => Normalization::None,
            _ => Normalization::Nfkc,
        },
        case_fold: if b & 4 != 0 {
            CaseFold::None
        } else {
            CaseFold::Simple
        },
        strip_bidi: b & 8 == 0,
        strip_format: b & 16 == 0,
        apply_confusable: b & 32 != 0,
    }
}

/// Any text under any configuration: no panic, and `canonicalize_into` (into
/// a buffer that already holds text) gives exactly what `canonicalize` gives.
pub fn canonicalize(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let builder = config_from_byte(first);
    // The fuzz crate enables `security`, so every configuration builds.
    let canon = builder
        .clone()
        .try_build()
        .unwrap_or_else(|e| panic!("config {builder:?} rejected with security on: {e}"));
    canon
        .check()
        .unwrap_or_else(|e| panic!("check() failed for {builder:?}: {e}"));

    let out = canon.canonicalize(&text);
    let mut buf = String::from("stale contents that must be cleared \u{202E}");
    canon.canonicalize_into(&text, &mut buf);
    assert_eq!(
        buf, out,
        "canonicalize_into differs, config {builder:?}, input {text:?}"
    );
    let tried = canon
        .try_canonicalize(&text)
        .unwrap_or_else(|e| panic!("try_canonicalize failed for {builder:?}: {e}"));
    assert_eq!(tried, out, "try_canonicalize differs, config {builder:?}");

    // The free function is the default configuration.
    if builder == CanonicalizerBuilder::default() {
        assert_eq!(
            txtfp::canonicalize(&text),
            out,
            "free fn differs from default"
        );
    }
    // The output is itself text every configuration accepts again.
    let _ = canon.canonicalize(&out);
}

// ---------------------------------------------------------------------------
// streaming
// ---------------------------------------------------------------------------

/// How the fuzz input is cut up: a tokenizer choice, chunk boundaries, and
/// the payload that is streamed.
struct StreamCase<'a> {
    tokenizer: u8,
    cuts: Vec<usize>,
    via_write: bool,
    payload: &'a [u8],
}

impl<'a> StreamCase<'a> {
    /// Byte 0: tokenizer (low 3 bits), `io::Write` instead of `update`
    /// (bit 3). Byte 1: number of cut points `n` (mod 16). Next `n` bytes:
    /// cut points, scaled onto the payload. Everything after is the payload.
    fn parse(data: &'a [u8]) -> Option<Self> {
        let (&mode, rest) = data.split_first()?;
        let (&n, rest) = rest.split_first()?;
        let n = usize::from(n % 16).min(rest.len());
        let (cut_bytes, payload) = rest.split_at(n);
        let mut cuts: Vec<usize> = cut_bytes
            .iter()
            .map(|&c| usize::from(c) * payload.len() / 255)
            .collect();
        cuts.sort_unstable();
        Some(Self {
            tokenizer: mode & 7,
            cuts,
            via_write: mode & 8 != 0,
            payload,
        })
    }

    /// The payload split at the cut points (empty chunks included: they must
    /// be accepted as no-ops).
    fn chunks(&self) -> Vec<&'a [u8]> {
        let mut out = Vec::with_capacity(self.cuts.len() + 1);
        let mut start = 0;
        for &c in &self.cuts {
            out.push(&self.payload[start..c]);
            start = c;
        }
        out.push(&self.payload[start..]);
        out
    }
}

/// Feeding a document in arbitrary chunks gives the offline fingerprint of
/// the whole document; invalid UTF-8 is reported (with the offset of the
/// first bad byte when the error carries one), never a panic.
pub fn streaming(data: &[u8]) {
    let Some(case) = StreamCase::parse(data) else {
        return;
    };
    match case.tokenizer {
        0 => both(&case, WordTokenizer),
        1 => both(&case, GraphemeTokenizer),
        2 => both(&case, shingle(1, WordTokenizer)),
        3 => both(&case, shingle(2, WordTokenizer)),
        4 => both(&case, shingle(3, WordTokenizer)),
        5 => both(&case, shingle(5, WordTokenizer)),
        6 => both(&case, shingle(3, GraphemeTokenizer)),
        _ => both(&case, shingle(2, shingle(2, WordTokenizer))),
    }
}

fn shingle<T: Tokenizer>(k: usize, inner: T) -> ShingleTokenizer<T> {
    ShingleTokenizer::new(k, inner).expect("small shingle sizes are valid")
}

fn both<T: Tokenizer + Clone>(case: &StreamCase<'_>, tok: T) {
    let mh = MinHashFingerprinter::<T, 16>::new(Canonicalizer::default(), tok.clone());
    let offline = std::str::from_utf8(case.payload).map(|s| mh.fingerprint(s));
    let stream = MinHashStreaming::new(mh);
    compare(case, stream, offline, "minhash");

    let sh = SimHashFingerprinter::new(Canonicalizer::default(), tok.clone())
        .with_weighting(Weighting::Tf);
    let offline = std::str::from_utf8(case.payload).map(|s| sh.fingerprint(s));
    compare(case, SimHashStreaming::new(sh), offline, "simhash-tf");

    let sh =
        SimHashFingerprinter::new(Canonicalizer::default(), tok).with_weighting(Weighting::Uniform);
    let offline = std::str::from_utf8(case.payload).map(|s| sh.fingerprint(s));
    compare(case, SimHashStreaming::new(sh), offline, "simhash-uniform");
}

fn compare<S>(
    case: &StreamCase<'_>,
    mut stream: S,
    offline: Result<txtfp::Result<S::Output>, std::str::Utf8Error>,
    what: &str,
) where
    S: StreamingFingerprinter + Write,
    S::Output: PartialEq + std::fmt::Debug,
{
    let mut fed_error: Option<Error> = None;
    for chunk in case.chunks() {
        let r = if case.via_write {
            stream.write_all(chunk).map_err(unwrap_io)
        } else {
            stream.update(chunk)
        };
        if let Err(e) = r {
            fed_error = Some(e);
            break;
        }
    }
    let streamed = match fed_error {
        Some(e) => Err(e),
        None => stream.finalize(),
    };
    match offline {
        Ok(Ok(want)) => match streamed {
            Ok(got) => assert_eq!(got, want, "{what}: stream differs from offline"),
            Err(e) => panic!("{what}: offline Ok({want:?}) but stream failed: {e}"),
        },
        Ok(Err(want)) => {
            let got = streamed.expect_err("offline failed but the stream succeeded");
            assert_eq!(
                got.to_string(),
                want.to_string(),
                "{what}: different errors"
            );
        }
        Err(utf8) => {
            let got = streamed.expect_err("invalid UTF-8 was accepted by the stream");
            if let Some(offset) = invalid_utf8_offset(&got) {
                assert_eq!(
                    offset,
                    utf8.valid_up_to() as u64,
                    "{what}: wrong offset in {got}"
                );
            }
        }
    }
}

/// The `Write` impl wraps the crate's error in an `io::Error`; take it back
/// out so that both feeding paths report the same thing.
fn unwrap_io(e: std::io::Error) -> Error {
    let kind = e.kind();
    match e.into_inner() {
        Some(inner) => match inner.downcast::<Error>() {
            Ok(err) => *err,
            Err(other) => Error::Io(std::io::Error::new(kind, other)),
        },
        None => Error::Io(kind.into()),
    }
}

fn invalid_utf8_offset(e: &Error) -> Option<u64> {
    match e {
        Error::InvalidUtf8 { offset } => Some(*offset),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// from_bytes
// ---------------------------------------------------------------------------

/// `from_bytes` on arbitrary bytes at every alignment never panics, and a
/// success re-encodes to exactly the bytes it was read from.
pub fn from_bytes(data: &[u8]) {
    for off in 0..data.len().min(8) {
        let bytes = &data[off..];
        check_minhash::<128>(bytes);
        check_minhash::<16>(bytes);
        check_minhash::<0>(bytes);
        check_simhash(bytes);
    }
    // Random bytes almost never have the exact length and header, so also
    // build inputs of the right size from the data, at an odd alignment, with
    // a valid header unless the first data byte says otherwise.
    let flag = data.first().copied().unwrap_or(0);
    for h in [16usize, 128] {
        let len = 8 + 8 * h;
        let mut buf = vec![0u8; len + 1];
        for (i, b) in buf[1..].iter_mut().enumerate() {
            *b = data.get(i % data.len().max(1)).copied().unwrap_or(0);
        }
        if flag & 1 == 0 {
            buf[1..9].copy_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
        }
        if h == 16 {
            check_minhash::<16>(&buf[1..]);
        } else {
            check_minhash::<128>(&buf[1..]);
        }
    }
}

fn check_minhash<const H: usize>(bytes: &[u8]) {
    let via_try = MinHashSig::<H>::try_from(bytes);
    match MinHashSig::<H>::from_bytes(bytes) {
        Ok(sig) => {
            assert_eq!(sig.to_le_bytes(), bytes, "MinHashSig<{H}> round trip");
            #[cfg(target_endian = "little")]
            assert_eq!(sig.as_bytes(), bytes, "MinHashSig<{H}> as_bytes");
            assert_eq!(
                MinHashSig::<H>::from_bytes(&sig.to_le_bytes()).ok(),
                Some(sig)
            );
            assert_eq!(via_try.ok(), Some(sig), "TryFrom differs from from_bytes");
        }
        Err(e) => {
            assert_eq!(via_try.err().map(|e| e.to_string()), Some(e.to_string()));
            let well_formed =
                bytes.len() == 8 + 8 * H && bytes[..2] == [1, 0] && bytes[2..8] == [0; 6];
            assert!(
                !well_formed,
                "a well-formed MinHashSig<{H}> was rejected: {e}"
            );
        }
    }
}

fn check_simhash(bytes: &[u8]) {
    match SimHash64::from_bytes(bytes) {
        Ok(s) => {
            assert_eq!(bytes.len(), 8);
            assert_eq!(s.to_le_bytes(), bytes);
            assert_eq!(SimHash64::from_bytes(&s.to_le_bytes()).ok(), Some(s));
        }
        Err(_) => assert_ne!(bytes.len(), 8, "8 bytes must always parse"),
    }
}

// ---------------------------------------------------------------------------
// deserialize
// ---------------------------------------------------------------------------

/// JSON of any shape never panics the deserializers, and whatever they accept
/// serializes back to a value that deserializes to the same thing.
pub fn deserialize(data: &[u8]) {
    round_trip::<MinHashSig<128>>(data);
    round_trip::<MinHashSig<16>>(data);
    round_trip::<SimHash64>(data);
    round_trip::<Fingerprint>(data);
    round_trip::<FingerprintMetadata>(data);
    if let Ok(sig) = serde_json::from_slice::<MinHashSig<16>>(data) {
        assert_eq!((sig.schema, sig._pad), (1, [0; 6]), "accepted {sig:?}");
    }
    if let Ok(sig) = serde_json::from_slice::<MinHashSig<128>>(data) {
        assert_eq!((sig.schema, sig._pad), (1, [0; 6]), "accepted {sig:?}");
    }
}

fn round_trip<T>(data: &[u8])
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let Ok(v) = serde_json::from_slice::<T>(data) else {
        return;
    };
    let json = serde_json::to_vec(&v).expect("serializing an accepted value");
    let back: T = serde_json::from_slice(&json).unwrap_or_else(|e| {
        panic!(
            "{} does not re-read its own JSON {}: {e}",
            std::any::type_name::<T>(),
            String::from_utf8_lossy(&json)
        )
    });
    assert_eq!(back, v, "{} round trip", std::any::type_name::<T>());
}

// ---------------------------------------------------------------------------
// index_file
// ---------------------------------------------------------------------------

/// Index files from untrusted bytes: every reader returns a value or an
/// error, never panics, and a file it accepts answers queries and saves
/// again to a file it also accepts.
pub fn index_file(data: &[u8]) {
    use txtfp::{LshCandidateIndex, LshIndex, SimHashIndex};
    let probe = MinHashSig::<8> {
        hashes: core::array::from_fn(|i| data.get(i).copied().unwrap_or(0).into()),
        ..MinHashSig::empty()
    };
    if let Ok(idx) = LshIndex::<8>::from_bytes(data) {
        let _ = idx.query_with_threshold(&probe, 0.5);
        let again = LshIndex::<8>::from_bytes(&idx.to_bytes()).expect("re-saved file reads back");
        assert_eq!(again.len(), idx.len());
    }
    if let Ok(idx) = LshCandidateIndex::<8>::from_bytes(data) {
        let _ = idx.query(&probe);
    }
    if let Ok(idx) = SimHashIndex::from_bytes(data) {
        let _ = idx.query(&SimHash64(probe.hashes[0]));
        let again = SimHashIndex::<SimHash64>::from_bytes(&idx.to_bytes())
            .expect("re-saved file reads back");
        assert_eq!(again.len(), idx.len());
    }
}

// ---------------------------------------------------------------------------
// store_files
// ---------------------------------------------------------------------------

/// A small embedded store made once per process: a checkpoint (so a
/// manifest, segments and `docs.idx` exist) and a log tail after it.
fn store_template() -> &'static (std::path::PathBuf, Vec<String>) {
    use txtfp::store::backend::EmbeddedBackend;
    use txtfp::store::{GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};
    static T: std::sync::OnceLock<(std::path::PathBuf, Vec<String>)> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("txtfp-fuzz-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let mut cfg = GlobalStoreConfig::default();
        cfg.root_path = root.clone();
        cfg.chunk_size = 8;
        let words = [
            "river", "stone", "lamp", "cloud", "paper", "glass", "tower", "field", "music",
            "bread", "coast", "ember", "frost", "grain", "harbor", "island",
        ];
        let mut texts = Vec::new();
        for i in 0..40usize {
            let t: Vec<&str> = (0..30)
                .map(|j| words[(i * 7 + j * (i % 5 + 1)) % words.len()])
                .collect();
            texts.push(t.join(" "));
        }
        let backend = EmbeddedBackend::open(&root)
            .expect("template store")
            .checkpoint_every(300);
        let store =
            GlobalFingerprintStore::with_backend(cfg, Box::new(backend)).expect("template store");
        for (i, t) in texts.iter().enumerate() {
            let src = if i % 3 == 0 { "a" } else { "b" };
            store
                .ingest(&IncomingDocument::new(format!("d{i}"), t.clone(), src))
                .expect("ingest");
        }
        drop(store);
        (root, texts)
    })
}

/// The embedded store's files damaged: byte 0 picks the file (log,
/// manifest, `docs.idx`, a segment, `params.json`), byte 1 how (flips at
/// the offsets that follow, a cut, or the rest of the input as the whole
/// file). Opening and every read return a value or an error, never panic.
pub fn store_files(data: &[u8]) {
    use txtfp::store::backend::EmbeddedBackend;
    use txtfp::store::{GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};
    let (template, texts) = store_template();
    let dir = std::env::temp_dir().join(format!(
        "txtfp-fuzz-store-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut names: Vec<String> = std::fs::read_dir(template)
        .expect("template")
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .filter(|n| n != "LOCK")
        .collect();
    names.sort();
    for n in &names {
        std::fs::copy(template.join(n), dir.join(n)).expect("copy");
    }
    let pick = data.first().copied().unwrap_or(0) as usize % names.len().max(1);
    if let Some(name) = names.get(pick) {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).unwrap_or_default();
        let damaged = damage(bytes, data.get(1..).unwrap_or_default());
        std::fs::write(&path, &damaged).expect("write");
    }
    let mut cfg = GlobalStoreConfig::default();
    cfg.root_path = dir.clone();
    cfg.chunk_size = 8;
    if let Ok(backend) = EmbeddedBackend::open(&dir)
        && let Ok(store) = GlobalFingerprintStore::with_backend(cfg, Box::new(backend))
    {
        for i in 0..texts.len() {
            let _ = store.document(&format!("d{i}"));
        }
        let _ = store.metrics();
        let _ = store.query(&texts[0]);
        let _ = store.ingest(&IncomingDocument::new("new", texts[1].clone(), "a"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bytes` damaged as the input says: byte 0 how (flips at the offsets
/// that follow, a cut, or the rest of the input as the whole file).
fn damage(mut bytes: Vec<u8>, data: &[u8]) -> Vec<u8> {
    let how = data.first().copied().unwrap_or(0);
    let rest = data.get(1..).unwrap_or_default();
    match how % 3 {
        0 => {
            for p in rest.chunks(3) {
                if bytes.is_empty() || p.len() < 3 {
                    break;
                }
                let at = usize::from(u16::from_le_bytes([p[0], p[1]])) * 7 % bytes.len();
                bytes[at] ^= p[2] | 1;
            }
        }
        1 => {
            let keep = rest
                .iter()
                .fold(0usize, |a, &b| a.wrapping_mul(31).wrapping_add(b.into()));
            bytes.truncate(keep % (bytes.len() + 1));
        }
        _ => bytes = rest.to_vec(),
    }
    bytes
}

/// The template store's log and first segment, read once per process.
fn store_file_bytes() -> &'static (Vec<u8>, Vec<u8>) {
    static B: std::sync::OnceLock<(Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        let (root, _) = store_template();
        let log = std::fs::read(root.join("store.log")).expect("template log");
        let mut segs: Vec<_> = std::fs::read_dir(root)
            .expect("template")
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "seg"))
            .collect();
        segs.sort();
        let seg =
            std::fs::read(segs.first().expect("the template has a segment")).expect("segment");
        // The undamaged files read whole, or every check below is moot.
        let scan = txtfp::store::backend::embedded_fuzzing::log(&log).expect("template log");
        assert!(scan.ops > 0 && scan.damaged_at.is_none(), "{scan:?}");
        let tags = txtfp::store::backend::embedded_fuzzing::segment(seg.clone()).expect("segment");
        assert!(tags.iter().any(|t| !t.lookups.is_empty()));
        (log, seg)
    })
}

/// The document log's reader on any bytes (byte 0 even: the rest is the
/// log; odd: the template store's log damaged as [`damage`] reads the
/// rest). Never a panic; what it accepts is whole frames from the start,
/// back to back, and damage is where the frames stop.
pub fn store_log(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        damage(store_file_bytes().0.clone(), rest)
    };
    let Ok(scan) = txtfp::store::backend::embedded_fuzzing::log(&bytes) else {
        return;
    };
    let mut end = 0u64;
    for &(at, len) in &scan.frames {
        assert_eq!(at, end + 12, "frames back to back: {scan:?}");
        end = at + len as u64;
    }
    match scan.damaged_at {
        None => assert_eq!(end, bytes.len() as u64, "{scan:?}"),
        Some(bad) => {
            assert_eq!(bad, end, "{scan:?}");
            assert!(
                scan.valid_after
                    .is_none_or(|v| v > bad && v < bytes.len() as u64)
            );
        }
    }
}

/// A segment's reader on any bytes (byte 0 as in [`store_log`]). Never a
/// panic; in a segment it accepts, the block-directory lookup of every key
/// returns exactly that key's additions, and every removal is found.
pub fn store_segment(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        damage(store_file_bytes().1.clone(), rest)
    };
    let Ok(tags) = txtfp::store::backend::embedded_fuzzing::segment(bytes) else {
        return;
    };
    for tag in &tags {
        for (key, docs) in &tag.lookups {
            let want: Vec<u32> = tag
                .adds
                .iter()
                .filter(|&&e| (e >> 32) as u32 == *key)
                .map(|&e| e as u32)
                .collect();
            assert_eq!(docs, &want, "key {key:#x}");
        }
        assert!(tag.found_removes.iter().all(|&f| f));
        assert!(tag.filtered_out.is_empty(), "{:?}", tag.filtered_out);
    }
}

// ---------------------------------------------------------------------------
// tlsh_parse
// ---------------------------------------------------------------------------

/// TLSH digests from untrusted text: parsing never panics, an accepted
/// digest round-trips, and distances are symmetric and zero on self.
pub fn tlsh_parse(data: &[u8]) {
    use txtfp::{TlshFingerprint, tlsh_distance};
    let text = String::from_utf8_lossy(data);
    let mid = (0..=text.len() / 2)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let (a, b) = text.split_at(mid);
    let parsed: Vec<TlshFingerprint> = [text.as_ref(), a, b]
        .into_iter()
        .filter_map(|s| s.parse::<TlshFingerprint>().ok())
        .collect();
    for x in &parsed {
        let back: TlshFingerprint = x.as_str().parse().expect("a parsed digest parses again");
        assert_eq!(&back, x);
        assert_eq!(tlsh_distance(x, x).expect("valid digests"), 0);
        for y in &parsed {
            assert_eq!(tlsh_distance(x, y).ok(), tlsh_distance(y, x).ok());
        }
    }
    let _ = txtfp::TlshFingerprinter::default().sketch_bytes(data);
}
