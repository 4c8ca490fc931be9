//! Stable-toolchain smoke runner: replays every fuzz target's check on
//! generated inputs (and on saved corpus / crash files), without libFuzzer,
//! sanitizers or nightly.
//!
//! ```sh
//! cargo run --release --example smoke                         # all targets, 3000 inputs each
//! cargo run --release --example smoke -- --seconds 30 streaming
//! cargo run --release --example smoke -- --replay streaming artifacts/streaming/crash-*
//! ```
//!
//! Inputs are not uniform random bytes: each target gets a generator that
//! knows its input format (config byte + text, chunk plan + payload, near-valid
//! signature bytes, near-valid JSON), then a few random mutations, so that the
//! success paths and the boundary errors are both reached. Files under
//! `corpus/<target>/` and `artifacts/<target>/` are replayed first when present.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use txtfp::{Fingerprint, MinHashSig, SimHash64};
use txtfp_fuzz::TARGETS;

/// splitmix64: tiny, seedable, good enough to drive input generation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

/// Pieces of text that stress canonicalization and segmentation: strip-set
/// members, case-fold expansions, compatibility forms, combining marks,
/// scripts without spaces, emoji sequences, confusables.
const PALETTE: &[&str] = &[
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    " ",
    " ",
    " ",
    "  ",
    "\n",
    "\r\n",
    "\t",
    ".",
    ",",
    "!",
    "'",
    "’",
    "-",
    "_",
    ":",
    "$100",
    "3.14",
    "1,000",
    "U.S.A.",
    "\u{200B}",
    "\u{200E}",
    "\u{202E}",
    "\u{2066}",
    "\u{FEFF}",
    "\u{FE0F}",
    "\u{E0061}",
    "\u{180B}",
    "\u{061C}",
    "\u{00AD}",
    "\u{034F}",
    "ß",
    "ẞ",
    "Straße",
    "İ",
    "\u{0329}",
    "\u{0301}",
    "\u{0307}",
    "e",
    "ﬁ",
    "ﬅ",
    "ΣΟΦΟΣ",
    "ς",
    "ᾈ",
    "\u{0345}",
    "ꭰ",
    "µ",
    "①②",
    "㎏",
    "Ⅻ",
    "½",
    "Ǆ",
    "ǅ",
    "ﾊﾟ",
    "ｶﾞ",
    "\u{3000}",
    "\u{00A0}",
    "ＡＢＣ",
    "中文分词",
    "日本語のテキスト",
    "한국어 문장",
    "ภาษาไทย",
    "👨\u{200D}👩\u{200D}👧",
    "🇩🇪",
    "👍🏽",
    "раура",
    "σοφος",
    "0",
    "1",
    "I",
    "l",
    "m",
    "rn",
    "\u{FDFA}",
    "\u{1160}",
    "\u{3164}",
    "\u{0}",
    "a\u{0308}",
    "\u{10FFFF}",
    "\u{E0100}",
];

fn text(rng: &mut Rng, max_pieces: usize) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(max_pieces + 1) {
        if rng.chance(12) {
            // Any scalar value, surrogates excluded by `from_u32`.
            if let Some(c) = char::from_u32((rng.next() % 0x11_0000) as u32) {
                s.push(c);
            }
        } else {
            s.push_str(PALETTE[rng.below(PALETTE.len())]);
        }
    }
    s
}

/// Flip, insert, delete or truncate a few bytes.
fn mutate(rng: &mut Rng, mut v: Vec<u8>, max_edits: usize) -> Vec<u8> {
    for _ in 0..rng.below(max_edits + 1) {
        match rng.below(4) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(v.len() + 1);
                v.insert(i, rng.byte());
            }
            2 if !v.is_empty() => {
                v.remove(rng.below(v.len()));
            }
            3 if !v.is_empty() => {
                let n = rng.below(v.len());
                v.truncate(n);
            }
            _ => {}
        }
    }
    v
}

fn gen_canonicalize(rng: &mut Rng) -> Vec<u8> {
    let mut v = vec![rng.byte()];
    v.extend_from_slice(text(rng, 40).as_bytes());
    if rng.chance(4) { mutate(rng, v, 3) } else { v }
}

fn gen_streaming(rng: &mut Rng) -> Vec<u8> {
    let n = rng.below(16) as u8;
    let mut v = vec![rng.byte(), n];
    v.extend((0..n).map(|_| rng.byte()));
    let payload = text(rng, 60).into_bytes();
    // Mostly valid UTF-8 (the equality check needs it); some invalid
    // payloads check the error path and its offset.
    let payload = if rng.chance(5) {
        mutate(rng, payload, 2)
    } else {
        payload
    };
    v.extend(payload);
    v
}

fn gen_from_bytes(rng: &mut Rng) -> Vec<u8> {
    let pick = rng.below(4);
    let v = match pick {
        0 => (0..rng.below(1100)).map(|_| rng.byte()).collect(),
        1 => random_sig::<128>(rng).to_le_bytes(),
        2 => random_sig::<16>(rng).to_le_bytes(),
        _ => rng.next().to_le_bytes().to_vec(),
    };
    // A leading junk byte shifts the signature off its alignment.
    let mut v = if rng.chance(2) {
        [vec![rng.byte()], v].concat()
    } else {
        v
    };
    if rng.chance(3) {
        v = mutate(rng, v, 2);
    }
    v
}

/// A valid LSH or SimHash index file (small alphabet, so buckets are shared),
/// often mutated or truncated.
fn gen_index_file(rng: &mut Rng) -> Vec<u8> {
    let n = rng.below(40);
    let v = if rng.chance(2) {
        let mut idx = txtfp::LshIndex::<8>::with_bands_rows(4, 2).expect("valid banding");
        for id in 0..n {
            let s = MinHashSig::<8> {
                hashes: std::array::from_fn(|_| rng.below(4) as u64),
                ..MinHashSig::empty()
            };
            idx.insert(id as u64, s);
        }
        idx.to_bytes()
    } else {
        let mut idx = txtfp::SimHashIndex::new();
        for id in 0..n {
            idx.insert(id as u64, SimHash64(rng.next() & 0xff00_ff00_ff00_ff0f));
        }
        idx.to_bytes()
    };
    match rng.below(3) {
        0 => v,
        1 => mutate(rng, v, 3),
        _ => {
            let cut = rng.below(v.len() + 1);
            v[..cut].to_vec()
        }
    }
}

/// Text around valid TLSH digests: case changes, mutations, junk.
fn gen_tlsh_parse(rng: &mut Rng) -> Vec<u8> {
    let text: Vec<u8> = (0..200 + rng.below(300))
        .map(|i| b"the quick brown fox jumps over the lazy dog 0123456789"[(i + rng.below(7)) % 54])
        .collect();
    let digest = txtfp::TlshFingerprinter::default()
        .sketch_bytes(&text)
        .map(|d| d.as_str().to_string())
        .unwrap_or_default();
    let mut v = if rng.chance(2) {
        digest.to_lowercase().into_bytes()
    } else {
        format!("{digest}{digest}").into_bytes()
    };
    if rng.chance(2) {
        v = mutate(rng, v, 2);
    }
    v
}

fn random_sig<const H: usize>(rng: &mut Rng) -> MinHashSig<H> {
    let mut s = MinHashSig::<H>::empty();
    for h in s.hashes.iter_mut() {
        *h = if rng.chance(8) { u64::MAX } else { rng.next() };
    }
    s
}

fn gen_deserialize(rng: &mut Rng) -> Vec<u8> {
    let json = match rng.below(7) {
        0 => serde_json::to_vec(&random_sig::<128>(rng)),
        1 => serde_json::to_vec(&random_sig::<16>(rng)),
        2 => serde_json::to_vec(&SimHash64(rng.next())),
        3 => serde_json::to_vec(&Fingerprint::MinHash(random_sig::<128>(rng))),
        4 => serde_json::to_vec(&Fingerprint::SimHash(SimHash64(rng.next()))),
        5 => serde_json::to_vec(
            &Fingerprint::SimHash(SimHash64(rng.next())).metadata().with_config_hash(rng.next()),
        ),
        _ => {
            let templates: [&[u8]; 8] = [
                br#"{"schema":1,"hashes":[1,2]}"#,
                br#"{"schema":2,"hashes":[]}"#,
                br#"{"hashes":[1],"schema":1,"extra":0}"#,
                br#"{"SimHash":-1}"#,
                br#"{"MinHash":{"schema":1,"hashes":null}}"#,
                br#"{"algorithm":"x","config_hash":0,"model_id":null,"schema_version":1,"byte_size":8}"#,
                br#"18446744073709551615"#,
                br#"[1,[1,2,3]]"#,
            ];
            Ok(templates[rng.below(templates.len())].to_vec())
        }
    }
    .expect("serializing a generated value");
    if rng.chance(2) {
        mutate(rng, json, 4)
    } else {
        json
    }
}

/// A file pick, a damage kind and its bytes (flips, a cut length, or a
/// replacement file).
fn gen_store_files(rng: &mut Rng) -> Vec<u8> {
    let n = rng.below(64);
    let mut out = vec![rng.byte(), rng.byte()];
    out.extend((0..n).map(|_| rng.byte()));
    out
}

fn generate(target: &str, rng: &mut Rng) -> Vec<u8> {
    match target {
        "canonicalize" => gen_canonicalize(rng),
        "streaming" => gen_streaming(rng),
        "from_bytes" => gen_from_bytes(rng),
        "index_file" => gen_index_file(rng),
        "tlsh_parse" => gen_tlsh_parse(rng),
        "store_files" | "store_log" | "store_segment" => gen_store_files(rng),
        _ => gen_deserialize(rng),
    }
}

/// Saved inputs for `target`: libFuzzer's corpus and crash artifacts.
fn saved_inputs(root: &Path, target: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["corpus", "artifacts"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir).join(target)) {
            out.extend(
                rd.filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.is_file()),
            );
        }
    }
    out.sort();
    out
}

struct Opts {
    iters: u64,
    seconds: Option<f64>,
    seed: u64,
    replay: Option<Vec<PathBuf>>,
    targets: Vec<String>,
}

fn parse_args() -> Result<Opts, String> {
    let mut o = Opts {
        iters: 3000,
        seconds: None,
        seed: 0x7478_7466,
        replay: None,
        targets: vec![],
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--iters" => {
                o.iters = value("--iters")?
                    .parse()
                    .map_err(|e| format!("--iters: {e}"))?
            }
            "--seconds" => {
                o.seconds = Some(
                    value("--seconds")?
                        .parse()
                        .map_err(|e| format!("--seconds: {e}"))?,
                )
            }
            "--seed" => {
                o.seed = value("--seed")?
                    .parse()
                    .map_err(|e| format!("--seed: {e}"))?
            }
            "--replay" => {
                let t = value("--replay")?;
                o.targets = vec![t];
                o.replay = Some(args.by_ref().map(PathBuf::from).collect());
            }
            "-h" | "--help" => {
                return Err(
                    "usage: smoke [--iters N] [--seconds S] [--seed X] [TARGET...]\n       \
                            smoke --replay TARGET FILE..."
                        .into(),
                );
            }
            t if TARGETS.contains(&t) => o.targets.push(t.to_string()),
            other => return Err(format!("unknown argument `{other}`; targets: {TARGETS:?}")),
        }
    }
    if o.targets.is_empty() {
        o.targets = TARGETS.iter().map(|t| t.to_string()).collect();
    }
    Ok(o)
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(files) = &o.replay {
        for f in files {
            let data = match std::fs::read(f) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("{}: {e}", f.display());
                    return ExitCode::FAILURE;
                }
            };
            txtfp_fuzz::run(&o.targets[0], &data);
            println!("smoke: {} {}: ok", o.targets[0], f.display());
        }
        return ExitCode::SUCCESS;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut passed, mut failed) = (0u64, 0u64);
    for target in &o.targets {
        let saved = saved_inputs(root, target);
        for f in &saved {
            if let Ok(data) = std::fs::read(f) {
                txtfp_fuzz::run(target, &data);
            }
        }
        let mut rng = Rng(o.seed ^ target.len() as u64);
        let start = Instant::now();
        let budget = o.seconds.map(Duration::from_secs_f64);
        let mut n = 0u64;
        let mut crashed = false;
        while !match budget {
            Some(b) => start.elapsed() >= b,
            None => n >= o.iters,
        } {
            let input = generate(target, &mut rng);
            // The default panic hook prints the check's message; the input
            // is saved so that it replays with `--replay` (or libFuzzer).
            if std::panic::catch_unwind(|| txtfp_fuzz::run(target, &input)).is_err() {
                let path = save_crash(root, target, &input);
                eprintln!(
                    "smoke: {target} FAILED on input {} (saved to {path})",
                    hex(&input)
                );
                crashed = true;
                break;
            }
            n += 1;
        }
        if crashed {
            failed += 1;
            continue;
        }
        println!(
            "smoke: {target}: {n} generated + {} saved inputs ok in {:.1}s",
            saved.len(),
            start.elapsed().as_secs_f64()
        );
        passed += 1;
    }
    // The plain closing line that test-output readers recognise.
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn save_crash(root: &Path, target: &str, input: &[u8]) -> String {
    let dir = root.join("artifacts").join(target);
    let name = format!("smoke-crash-{:016x}", fnv1a(input));
    let path = dir.join(name);
    match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, input)) {
        Ok(()) => path.display().to_string(),
        Err(e) => format!("<not saved: {e}>"),
    }
}

fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3)
    })
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
