//! Japanese through lindera with a dictionary compiled at run time.
//!
//! * A tiny hand-written IPADIC-format source exercises the cache: build once,
//!   reuse, rebuild on change or damage, clean errors for missing or broken
//!   sources. Always runs.
//! * Debian's `mecab-ipadic` (`scripts/setup-cjk.sh` installs it) segments
//!   real sentences. Loudly skipped when the source is not installed.
#![cfg(feature = "japanese")]

use std::fs;
use std::path::{Path, PathBuf};

use txtfp::tokenize::cjk::{
    DEFAULT_IPADIC_SOURCE, LinderaDictionary, LinderaTokenizer, default_cache_root,
};
use txtfp::{Error, Tokenizer};

fn toks(t: &dyn Tokenizer, s: &str) -> Vec<String> {
    let mut v = Vec::new();
    t.for_each_token(s, &mut |x| v.push(x.to_string()));
    let streamed: Vec<String> = t.tokens(s).into_string_iter().collect();
    assert_eq!(
        v, streamed,
        "tokens() and for_each_token() disagree on {s:?}"
    );
    v
}

/// A fresh scratch directory under the system temp dir, removed on drop.
struct Scratch(PathBuf);
impl Scratch {
    fn new(name: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("txtfp-cjk-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
}
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A minimal IPADIC-format source (UTF-8): one context id, a few words.
fn write_mini_source(dir: &Path, extra_word: Option<&str>) {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join("char.def"),
        "DEFAULT 0 1 0\nSPACE 0 1 0\nKANJI 0 0 2\nHIRAGANA 0 1 0\nKATAKANA 1 1 0\n\
         0x0020 SPACE\n0x3041..0x309F HIRAGANA\n0x30A1..0x30FF KATAKANA\n0x4E00..0x9FFF KANJI\n",
    )
    .unwrap();
    fs::write(
        dir.join("unk.def"),
        "DEFAULT,0,0,5000,記号,一般,*,*,*,*,*\nSPACE,0,0,5000,記号,空白,*,*,*,*,*\n\
         KANJI,0,0,5000,名詞,一般,*,*,*,*,*\nHIRAGANA,0,0,5000,名詞,一般,*,*,*,*,*\n\
         KATAKANA,0,0,5000,名詞,一般,*,*,*,*,*\n",
    )
    .unwrap();
    fs::write(dir.join("matrix.def"), "1 1\n0 0 0\n").unwrap();
    let mut lex = String::new();
    for (w, r) in [
        ("東京", "トウキョウ"),
        ("タワー", "タワー"),
        ("で", "デ"),
        ("京都", "キョウト"),
    ] {
        lex.push_str(&format!("{w},0,0,100,名詞,一般,*,*,*,*,{w},{r},{r}\n"));
    }
    if let Some(w) = extra_word {
        lex.push_str(&format!("{w},0,0,100,名詞,一般,*,*,*,*,{w},*,*\n"));
    }
    fs::write(dir.join("Noun.csv"), lex).unwrap();
}

fn entries(root: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn mini_dictionary_builds_caches_and_rebuilds() {
    let s = Scratch::new("mini");
    let (src, cache) = (s.0.join("src"), s.0.join("cache"));
    write_mini_source(&src, None);

    let d = LinderaDictionary::ipadic_from_source(&src, &cache).unwrap();
    let tok = LinderaTokenizer::new(d.clone());
    assert_eq!(
        toks(&tok, "東京タワーで、café!"),
        ["東京", "タワー", "で", "café"]
    );
    assert!(
        d.label().starts_with("ipadic-") && d.label().len() == 15,
        "{}",
        d.label()
    );
    assert_eq!(tok.name(), format!("cjk-lindera-{}", d.label()));
    let first = entries(&cache);
    assert_eq!(
        first.len(),
        1,
        "one cache entry, no temp dirs left: {first:?}"
    );
    assert!(cache.join(&first[0]).join("txtfp-ok").is_file());

    // Second load: same entry, same label.
    let again = LinderaDictionary::ipadic_from_source(&src, &cache).unwrap();
    assert_eq!(again.label(), d.label());
    assert_eq!(entries(&cache), first);

    // The cached directory is a lindera dictionary in its own right.
    let built = LinderaDictionary::load_built(&cache.join(&first[0]), "mini").unwrap();
    assert_eq!(
        toks(&LinderaTokenizer::new(built), "京都で"),
        ["京都", "で"]
    );

    // A changed source gets a new entry and a new label.
    write_mini_source(&src, Some("東京タワー"));
    let changed = LinderaDictionary::ipadic_from_source(&src, &cache).unwrap();
    assert_ne!(changed.label(), d.label());
    assert_eq!(
        toks(&LinderaTokenizer::new(changed), "東京タワーで"),
        ["東京タワー", "で"]
    );
    assert_eq!(entries(&cache).len(), 2);
}

#[test]
fn damaged_cache_entry_is_rebuilt() {
    let s = Scratch::new("damaged");
    let (src, cache) = (s.0.join("src"), s.0.join("cache"));
    write_mini_source(&src, None);
    let d = LinderaDictionary::ipadic_from_source(&src, &cache).unwrap();
    let entry = cache.join(&entries(&cache)[0]);
    for f in fs::read_dir(&entry).unwrap() {
        let p = f.unwrap().path();
        if p.file_name().unwrap() != "txtfp-ok" {
            fs::write(&p, b"garbage").unwrap();
        }
    }
    let again = LinderaDictionary::ipadic_from_source(&src, &cache).unwrap();
    assert_eq!(again.label(), d.label());
    assert_eq!(
        toks(&LinderaTokenizer::new(again), "東京で"),
        ["東京", "で"]
    );
}

fn config_message(r: txtfp::Result<LinderaDictionary>) -> String {
    match r {
        Err(Error::Config(m)) => m,
        Err(e) => panic!("expected Error::Config, got {e:?}"),
        Ok(d) => panic!("expected an error, got {d:?}"),
    }
}

#[test]
fn missing_or_broken_sources_are_errors() {
    let s = Scratch::new("errors");
    let cache = s.0.join("cache");
    let nowhere = s.0.join("no-such-dir");
    let m = config_message(LinderaDictionary::ipadic_from_source(&nowhere, &cache));
    assert!(
        m.contains("no-such-dir") && m.contains("mecab-ipadic"),
        "{m}"
    );

    let src = s.0.join("incomplete");
    write_mini_source(&src, None);
    fs::remove_file(src.join("matrix.def")).unwrap();
    let m = config_message(LinderaDictionary::ipadic_from_source(&src, &cache));
    assert!(m.contains("matrix.def"), "{m}");

    let bad = s.0.join("bad");
    write_mini_source(&bad, None);
    fs::write(bad.join("char.def"), "KANJI 1\n").unwrap();
    let m = config_message(LinderaDictionary::ipadic_from_source(&bad, &cache));
    assert!(m.contains("cannot compile"), "{m}");
    // Nothing half-built is left in the cache.
    assert!(entries(&cache).is_empty(), "{:?}", entries(&cache));

    let m = config_message(LinderaDictionary::load_built(&nowhere, "x"));
    assert!(m.contains("no-such-dir"), "{m}");
    match LinderaDictionary::load_built(&nowhere, "bad label!") {
        Err(Error::InvalidInput(m)) => assert!(m.contains("bad label!"), "{m}"),
        other => panic!("{other:?}"),
    }
}

/// Debian's IPADIC, or `None` with a loud notice.
fn debian_ipadic() -> Option<LinderaDictionary> {
    let src = std::env::var_os("TXTFP_IPADIC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_IPADIC_SOURCE));
    if !src.join("matrix.def").is_file() {
        eprintln!(
            "\n*** SKIPPED: no IPADIC source at {} (run scripts/setup-cjk.sh): \
             the Japanese sentences were not checked ***\n",
            src.display()
        );
        return None;
    }
    Some(LinderaDictionary::ipadic_from_source(&src, &default_cache_root().unwrap()).unwrap())
}

#[test]
fn ipadic_segments_japanese_sentences() {
    let Some(d) = debian_ipadic() else { return };
    let t = LinderaTokenizer::new(d);
    let cases: &[(&str, &[&str])] = &[
        (
            "関西国際空港限定トートバッグを東京で買いました",
            &[
                "関西国際空港",
                "限定",
                "トートバッグ",
                "を",
                "東京",
                "で",
                "買い",
                "まし",
                "た",
            ],
        ),
        (
            "すもももももももものうち",
            &["すもも", "も", "もも", "も", "もも", "の", "うち"],
        ),
        (
            "私は、Rustで書かれたcaféのアプリを使っています。",
            &[
                "私",
                "は",
                "rust",
                "で",
                "書か",
                "れ",
                "た",
                "café",
                "の",
                "アプリ",
                "を",
                "使っ",
                "て",
                "い",
                "ます",
            ],
        ),
    ];
    for (s, want) in cases {
        let canon = txtfp::canonicalize(s);
        assert_eq!(toks(&t, &canon), *want, "{s}");
    }
}

fn is_cjk_letter(c: char) -> bool {
    matches!(c as u32, 0x3041..=0x309F | 0x30A1..=0x30FA | 0x30FC..=0x30FF | 0x3005..=0x3007 | 0x4E00..=0x9FFF | 0x3400..=0x4DBF)
}

/// Every Japanese document of corpus-small: no CJK letter is lost or
/// duplicated, and the tokens are words, not single characters.
#[test]
fn ipadic_on_corpus_small_japanese() {
    let Some(d) = debian_ipadic() else { return };
    let Some(path) = crate::common::shared_file("corpus/corpus-small.jsonl") else {
        return;
    };
    let t = LinderaTokenizer::new(d);
    let (mut docs, mut cjk_tokens, mut cjk_chars) = (0, 0usize, 0usize);
    for v in crate::common::read_jsonl(&path) {
        if v["lang"] != "ja" {
            continue;
        }
        docs += 1;
        let text = txtfp::canonicalize(v["text"].as_str().unwrap());
        let got = toks(&t, &text);
        let letters = |s: &str| s.chars().filter(|&c| is_cjk_letter(c)).collect::<String>();
        let joined: String = got.iter().map(|t| letters(t)).collect();
        assert_eq!(joined, letters(&text), "{}", v["id"]);
        for tok in got.iter().filter(|t| t.chars().any(is_cjk_letter)) {
            cjk_tokens += 1;
            cjk_chars += tok.chars().count();
        }
    }
    assert!(docs >= 10, "only {docs} Japanese documents");
    let mean = cjk_chars as f64 / cjk_tokens as f64;
    assert!(
        mean > 1.4,
        "mean CJK token length {mean:.2}: not segmenting into words"
    );
    eprintln!("{docs} Japanese documents, mean CJK token length {mean:.2} chars");
}

#[test]
fn japanese_segmenter_in_a_fingerprinter() {
    use txtfp::{
        Canonicalizer, CjkSegmenter, CjkTokenizer, Fingerprinter, MinHashFingerprinter,
        ShingleTokenizer, jaccard,
    };
    if debian_ipadic().is_none() {
        return;
    }
    let t = CjkTokenizer::new(CjkSegmenter::Japanese);
    t.validate().unwrap();
    assert!(t.name().starts_with("cjk-lindera-ipadic-"), "{}", t.name());
    let fp = MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer { k: 2, inner: t },
    );
    let a = fp
        .fingerprint(
            "東京都は日本の首都であり、世界有数の大都市です。多くの企業が本社を置いています。",
        )
        .unwrap();
    let b = fp
        .fingerprint(
            "東京都は日本の首都であり、世界でも有数の大都市です。多くの企業が本社を置いています。",
        )
        .unwrap();
    let c = fp
        .fingerprint("京都には古いお寺や神社がたくさんあり、毎年多くの観光客が訪れます。")
        .unwrap();
    let (near, far) = (jaccard(&a, &b), jaccard(&a, &c));
    assert!(near > 0.5 && far < 0.2, "near {near}, far {far}");
}

/// With `japanese-embed` built online, lindera's embedded IPADIC segments
/// like the compiled one; built offline with DOCS_RS=1 it is a placeholder
/// that must be refused (and `ipadic()` then falls back to the source).
#[cfg(feature = "japanese-embed")]
#[test]
fn embedded_ipadic_is_real_or_refused() {
    match LinderaDictionary::embedded_ipadic() {
        Ok(d) => {
            assert_eq!(d.label(), "ipadic-2.7.0-20250920");
            let t = LinderaTokenizer::new(d);
            assert_eq!(
                toks(&t, "東京で買いました"),
                ["東京", "で", "買い", "まし", "た"]
            );
        }
        Err(Error::Config(m)) => {
            assert!(m.contains("placeholder"), "{m}");
            eprintln!(
                "\n*** embedded IPADIC is lindera's placeholder (offline DOCS_RS build) ***\n"
            );
            if debian_ipadic().is_some() {
                let d = LinderaDictionary::ipadic().unwrap();
                assert!(d.label().starts_with("ipadic-") && d.label() != "ipadic-2.7.0-20250920");
            }
        }
        Err(e) => panic!("{e:?}"),
    }
}
