//! Conformance tests: the canonicalization vectors observed on txtfp 0.3.2 (`vectors.rs`)
//! (all configurations), the 81 golden records, and the API contract.

mod proptests;
mod vectors;

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::*;
use vectors::*;

fn cfg(
    normalization: Normalization,
    case_fold: CaseFold,
    strip_bidi: bool,
    strip_format: bool,
    apply_confusable: bool,
) -> Canonicalizer {
    CanonicalizerBuilder {
        normalization,
        case_fold,
        strip_bidi,
        strip_format,
        apply_confusable,
    }
    .build()
}

use CaseFold::{None as NoFold, Simple};
use Normalization::{Nfc, Nfkc, None as NoNorm};

/// One section of the vectors file: config, expected config_string, rows.
type Section = (
    Canonicalizer,
    &'static str,
    Vec<(&'static str, &'static str)>,
);

/// The rows of a section observed on [`PROBES`].
fn probed(outputs: [&'static str; 9]) -> Vec<(&'static str, &'static str)> {
    PROBES.into_iter().zip(outputs).collect()
}

/// Every section of the vectors file.
fn sections() -> Vec<Section> {
    alloc::vec![
        (
            Canonicalizer::default(),
            "nfkc-cf-simple-bidi-fmt",
            DEFAULT.to_vec()
        ),
        (
            cfg(Nfc, Simple, true, true, false),
            "nfc-cf-simple-bidi-fmt",
            probed(NFC)
        ),
        (
            cfg(NoNorm, Simple, true, true, false),
            "none-cf-simple-bidi-fmt",
            probed(NONE)
        ),
        (
            cfg(Nfkc, NoFold, true, true, false),
            "nfkc-cf-none-bidi-fmt",
            probed(NFKC_NOCF)
        ),
        (
            cfg(Nfkc, Simple, false, true, false),
            "nfkc-cf-simple-fmt",
            probed(NOBIDI)
        ),
        (
            cfg(Nfkc, Simple, true, false, false),
            "nfkc-cf-simple-bidi",
            probed(NOFMT)
        ),
        (
            cfg(Nfkc, Simple, false, false, false),
            "nfkc-cf-simple",
            probed(NOTHING)
        ),
        (
            cfg(Nfkc, Simple, true, true, true),
            "nfkc-cf-simple-bidi-fmt-conf",
            probed(CONF)
        ),
        (
            cfg(NoNorm, NoFold, false, false, false),
            "none-cf-none",
            probed(ALLNONE)
        ),
        (
            cfg(NoNorm, NoFold, false, false, true),
            "none-cf-none-conf",
            probed(ALLNONE_CONF)
        ),
    ]
}

#[test]
fn vectors_file_every_configuration() {
    let mut checked = 0;
    for (canon, config_string, rows) in sections() {
        assert_eq!(canon.config_string(), config_string);
        if canon.config().apply_confusable && !cfg!(feature = "security") {
            // Without the skeleton the flag must be refused, not ignored.
            assert!(matches!(
                canon.check(),
                Err(Error::FeatureDisabled("security"))
            ));
            continue;
        }
        let mut buf = String::from("stale");
        for (input, want) in rows {
            assert_eq!(
                canon.canonicalize(input),
                want,
                "{config_string}: {input:?}"
            );
            canon.canonicalize_into(input, &mut buf);
            assert_eq!(buf, want, "{config_string} (into): {input:?}");
            checked += 1;
        }
    }
    let expected = if cfg!(feature = "security") { 138 } else { 120 };
    assert_eq!(checked, expected);
}

#[test]
fn spec_2_8_table() {
    let rows: &[(&str, &str)] = &[
        ("Hello\u{200B}World", "helloworld"),
        ("\u{FEFF}BOM", "bom"),
        ("ＡＢＣ", "abc"),
        ("ﬁle", "file"),
        ("Straße", "strasse"),
        ("ẞ", "ss"),
        ("İ", "i\u{0307}"),
        ("İ\u{0329}", "i\u{0329}\u{0307}"),
        ("ΣΟΦΟΣ", "σοφοσ"),
        ("ς", "σ"),
        ("soft\u{00AD}hyphen", "soft\u{00AD}hyphen"),
        ("a\u{FE0F}b", "ab"),
        ("x\u{E0061}y", "xy"),
        ("①②", "12"),
        ("㎏", "kg"),
        ("Ⅻ", "xii"),
        ("½", "1\u{2044}2"),
        ("Ǆ", "d\u{017E}"),
        ("ǅ", "d\u{017E}"),
        ("e\u{0301}", "\u{00E9}"),
        ("ﬁ\u{0301}", "fí"),
        ("\u{3000}x\u{3000}", " x "),
        ("\u{00A0}nbsp", " nbsp"),
        ("ﾊﾟ", "パ"),
        ("ｶﾞ", "ガ"),
        ("tab\tnl\n", "tab\tnl\n"),
        // Not in the table, same semantics: Kelvin sign, and a fold that
        // creates a composition NFKC could not make before folding.
        ("\u{212A}", "k"),
        ("W\u{030A}", "\u{1E98}"),
    ];
    for &(input, want) in rows {
        assert_eq!(canonicalize(input), want, "{input:?}");
    }
    let nfc = cfg(Nfc, Simple, true, true, false);
    assert_eq!(nfc.canonicalize("ＡＢＣ ﬁ"), "ａｂｃ fi");
}

#[test]
fn config_strings_of_spec_2_7() {
    let rows = [
        (
            cfg(Nfkc, Simple, true, true, false),
            "nfkc-cf-simple-bidi-fmt",
        ),
        (
            cfg(Nfc, Simple, true, true, false),
            "nfc-cf-simple-bidi-fmt",
        ),
        (
            cfg(Nfkc, NoFold, true, true, false),
            "nfkc-cf-none-bidi-fmt",
        ),
        (cfg(Nfkc, Simple, false, true, false), "nfkc-cf-simple-fmt"),
        (cfg(Nfkc, Simple, true, false, false), "nfkc-cf-simple-bidi"),
        (cfg(Nfkc, Simple, false, false, false), "nfkc-cf-simple"),
        (
            cfg(Nfkc, Simple, true, true, true),
            "nfkc-cf-simple-bidi-fmt-conf",
        ),
        (cfg(NoNorm, NoFold, false, false, false), "none-cf-none"),
    ];
    for (c, want) in rows {
        assert_eq!(c.config_string(), want);
    }
}

#[test]
fn defaults_and_accessors() {
    let b = CanonicalizerBuilder::default();
    assert_eq!(b.normalization, Nfkc);
    assert_eq!(b.case_fold, Simple);
    assert!(b.strip_bidi && b.strip_format && !b.apply_confusable);
    assert_eq!(Normalization::default(), Nfkc);
    assert_eq!(CaseFold::default(), Simple);
    let c = b.clone().build();
    assert_eq!(c.config(), &b);
    assert_eq!(Canonicalizer::new(b.clone()).config(), &b);
    assert_eq!(Canonicalizer::default().config(), &b);
    fn send_sync<T: Send + Sync + Clone + core::fmt::Debug + Default>() {}
    send_sync::<Canonicalizer>();
}

/// W7: the skeleton is never silently dropped by a fallible entry point.
#[test]
fn confusable_flag_is_refused_without_security() {
    let b = CanonicalizerBuilder {
        apply_confusable: true,
        ..Default::default()
    };
    let c = b.clone().build();
    assert_eq!(c.config_string(), "nfkc-cf-simple-bidi-fmt-conf");
    if cfg!(feature = "security") {
        assert!(c.check().is_ok());
        assert!(b.try_build().is_ok());
        assert_eq!(c.try_canonicalize("раураl").unwrap(), "paypal");
    } else {
        let e = c.check().unwrap_err();
        assert!(matches!(e, Error::FeatureDisabled("security")));
        assert_eq!(
            e.to_string(),
            "feature `security` not enabled at compile time"
        );
        assert!(matches!(
            b.try_build(),
            Err(Error::FeatureDisabled("security"))
        ));
        assert!(matches!(
            c.try_canonicalize("x"),
            Err(Error::FeatureDisabled("security"))
        ));
        // The infallible path keeps 0.3.2's output (no skeleton).
        assert_eq!(c.canonicalize("раураl"), canonicalize("раураl"));
    }
    let plain = Canonicalizer::default();
    assert!(plain.check().is_ok());
    assert_eq!(plain.try_canonicalize("ÀB").unwrap(), "àb");
}

#[test]
fn canonicalize_into_clears_and_matches() {
    let c = Canonicalizer::default();
    let mut buf = String::from("previous contents \u{202E}");
    c.canonicalize_into("", &mut buf);
    assert_eq!(buf, "");
    for input in ["ABC", "İ\u{0329} x", "ＡＢＣ\u{200B}", "Привет, МИР"] {
        c.canonicalize_into(input, &mut buf);
        assert_eq!(buf, c.canonicalize(input));
    }
}

#[test]
fn split_safe_rule() {
    for prev in 0..=255u8 {
        for next in 0..=255u8 {
            let ws = |b: u8| b" \t\n\r\x0b\x0c".contains(&b);
            assert_eq!(
                split_safe(prev, next),
                ws(prev) && next < 0x80 && !ws(next),
                "{prev} {next}"
            );
        }
    }
    assert!(Canonicalizer::default().supports_split());
}

/// Joins the corpus (id → text) with the golden records of txtfp 0.3.2 and
/// checks `canonical` (and `canonical_security` with the skeleton).
#[cfg(feature = "std")]
#[test]
fn golden_edge_records() {
    use serde_json::Value;
    use std::collections::HashMap;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared");
    let golden = std::format!("{root}/golden/golden-edge.jsonl");
    let corpus = std::format!("{root}/corpus/edge-cases.jsonl");
    let (Ok(golden), Ok(corpus)) = (
        std::fs::read_to_string(&golden),
        std::fs::read_to_string(&corpus),
    ) else {
        std::eprintln!("SKIPPED golden_edge_records: {golden} or {corpus} not found");
        return;
    };
    let texts: HashMap<String, String> = corpus
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("corpus line parses");
            (
                v["id"].as_str().unwrap().to_string(),
                v["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let plain = Canonicalizer::default();
    let secure = CanonicalizerBuilder {
        apply_confusable: true,
        ..Default::default()
    }
    .build();
    let mut records = 0;
    for line in golden.lines().filter(|l| !l.trim().is_empty()) {
        let rec: Value = serde_json::from_str(line).expect("golden line parses");
        let id = rec["id"].as_str().unwrap();
        let text = &texts[id];
        assert_eq!(
            plain.canonicalize(text),
            rec["canonical"].as_str().unwrap(),
            "{id}"
        );
        if cfg!(feature = "security") {
            let want = rec["canonical_security"].as_str().unwrap();
            assert_eq!(secure.canonicalize(text), want, "{id} (security)");
        }
        records += 1;
    }
    assert_eq!(records, 81, "golden-edge.jsonl should hold 81 records");
}
