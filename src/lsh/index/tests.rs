//! Tests of `index.rs` with the fast scheme: the same index, typed and
//! saved as the fast scheme's (the default scheme's are in `lsh/tests.rs`).

use alloc::vec;

use super::*;
use crate::classical::minhash::{FAST_SCHEMA, FastLshIndex, FastMinHashFingerprinter};
use crate::{Canonicalizer, Error, Fingerprinter, LshIndexBuilder, WordTokenizer};

use crate::lsh::tests::fast_sig as sig;

#[test]
fn forwards_and_keeps_the_type() {
    let mut idx = FastLshIndex::<8>::with_bands_rows(4, 2).unwrap();
    assert!(idx.is_empty());
    idx.insert(1, sig(5));
    idx.try_insert(2, sig(6)).unwrap();
    assert_eq!((idx.len(), idx.bands(), idx.rows()), (2, 4, 2));
    assert_eq!(idx.query(&sig(5)), [1, 2]);
    assert_eq!(idx.query_with_threshold(&sig(5), 0.9), [1]);
    assert_eq!(
        idx.query_with_threshold(&sig(5), f32::NAN),
        Vec::<u64>::new()
    );
    assert!(idx.try_query_with_threshold(&sig(5), f32::NAN).is_err());
    assert_eq!(idx.get(2), Some(&sig(6)));
    assert_eq!(idx.get(2).unwrap().schema, FAST_SCHEMA);
    let mut all: Vec<_> = idx.iter().map(|(id, s)| (id, *s)).collect();
    all.sort_by_key(|p| p.0);
    assert_eq!(all, vec![(1, sig(5)), (2, sig(6))]);
    assert_eq!(idx.remove(1), Some(sig(5)));
    assert!(!idx.contains(1));
    idx.compact();
    assert_eq!(idx.ids().collect::<Vec<_>>(), [2]);
    assert!(idx.memory_usage() > 0);
    assert!(alloc::format!("{idx:?}").starts_with("FastLshIndex { h: 8, bands: 4"));
}

#[test]
fn finds_near_duplicates_of_real_text() {
    let fp = FastMinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
    let mut idx =
        FastLshIndex::<128>::from_builder(LshIndexBuilder::for_threshold(0.5, 128).unwrap())
            .unwrap();
    let base = "one two three four five six seven eight nine ten eleven twelve thirteen";
    idx.insert(1, fp.fingerprint(base).unwrap());
    idx.insert(
        2,
        fp.fingerprint("entirely different words about the sea")
            .unwrap(),
    );
    let near = fp.fingerprint(&(base.to_owned() + " fourteen")).unwrap();
    assert_eq!(idx.query_with_threshold(&near, 0.7), [1]);
}

#[test]
fn files_record_the_scheme() {
    let mut idx = FastLshIndex::<8>::with_bands_rows(4, 2).unwrap();
    idx.insert(3, sig(9));
    let bytes = idx.to_bytes();
    assert_eq!(&bytes[..10], b"TXTFPFMH\x01\x46");
    let back = FastLshIndex::<8>::from_bytes(&bytes).unwrap();
    assert_eq!(back.get(3), Some(&sig(9)));
    assert!(LshIndex::<8>::from_bytes(&bytes).is_err());

    let mut default = LshIndex::<8>::with_bands_rows(4, 2).unwrap();
    default.insert(3, MinHashSig::empty());
    let e = FastLshIndex::<8>::from_bytes(&default.to_bytes()).unwrap_err();
    assert!(matches!(e, Error::Config(_)), "{e:?}");
    assert!(
        e.to_string().contains("default-scheme LshIndex file"),
        "{e}"
    );

    let mut other = bytes.clone();
    other[8] = 2;
    assert!(matches!(
        FastLshIndex::<8>::from_bytes(&other),
        Err(Error::SchemaMismatch {
            expected: 0x4601,
            actual: 0x4602
        })
    ));
    let mut pad = bytes.clone();
    pad[12] = 1;
    assert!(matches!(
        FastLshIndex::<8>::from_bytes(&pad),
        Err(Error::Corrupt(_))
    ));
    for cut in [0, 3, 15, 16, 40, bytes.len() - 1] {
        assert!(
            FastLshIndex::<8>::from_bytes(&bytes[..cut]).is_err(),
            "cut {cut}"
        );
    }
    let mut flipped = bytes.clone();
    flipped[40] ^= 1;
    assert!(FastLshIndex::<8>::from_bytes(&flipped).is_err());
    assert!(FastLshIndex::<16>::from_bytes(&bytes).is_err());
}

#[cfg(feature = "std")]
#[test]
fn save_and_load() {
    let path = std::env::temp_dir().join(alloc::format!(
        "txtfp-fast-lsh-test-{}.idx",
        std::process::id()
    ));
    let mut idx = FastLshIndex::<8>::with_bands_rows(4, 2).unwrap();
    idx.try_extend([(1, sig(1)), (2, sig(2))]).unwrap();
    idx.save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), idx.to_bytes());
    let back = FastLshIndex::<8>::load(&path).unwrap();
    assert_eq!(back.get(2), Some(&sig(2)));
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(FastLshIndex::<8>::load(&path), Err(Error::Io(_))));
}
