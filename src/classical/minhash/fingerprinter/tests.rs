//! Tests of the MinHash fingerprinter and sketch: spec Appendix A vectors,
//! errors, configuration, and properties against a plain reference.

use super::*;
use crate::classical::minhash::kernel::{Kernel, update_slots_reference};
use crate::tokenize::{ShingleTokenizer, TokenStream, WordTokenizer};
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::ToString;
use alloc::vec::Vec;
use proptest::prelude::*;

/// Splits on ASCII whitespace and nothing else: tokens are exactly the
/// words of the list, so the properties below control the token multiset.
#[derive(Clone, Debug)]
struct Ws;

impl Tokenizer for Ws {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        TokenStream::Borrowed(Box::new(input.split_ascii_whitespace()))
    }
    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed("test-ws")
    }
}

/// A tokenizer whose configuration is always rejected.
struct Broken;

impl Tokenizer for Broken {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        TokenStream::Borrowed(Box::new(core::iter::once(input)))
    }
    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed("broken")
    }
    fn validate(&self) -> Result<()> {
        Err(Error::Config("broken tokenizer".into()))
    }
}

fn k3() -> ShingleTokenizer<WordTokenizer> {
    ShingleTokenizer {
        k: 3,
        inner: WordTokenizer,
    }
}

fn hex_row<const H: usize>(sig: &MinHashSig<H>) -> alloc::string::String {
    let parts: Vec<_> = sig.hashes.iter().map(|h| format!("{h:016x}")).collect();
    parts.join(" ")
}

/// The definition: hash every token, fold it in with the reference update.
fn reference_sig<const H: usize>(tokens: &[&str], family: HashFamily, seed: u64) -> [u64; H] {
    let mut slots = [u64::MAX; H];
    for t in tokens {
        let (lo, hi) = family.hash128(t.as_bytes(), seed);
        update_slots_reference(&mut slots, lo, hi);
    }
    slots
}

const FOX: &str = "the quick brown fox jumps over the lazy dog";

#[test]
fn appendix_a_xxh3_k3_h8() {
    let fp = MinHashFingerprinter::<_, 8>::new(Canonicalizer::default(), k3());
    let cases = [
        (
            FOX,
            "7356d04baffd6060 26e41fc908ac7c47 001d2d2fff1a9c28 34d4f8f4fb04978c \
             5e6728694c15c1f2 05708ef78d3db8e6 03c8127a47587371 1d4a7e6c7a9878e4",
        ),
        (
            "The Quick Brown Fox",
            "7356d04baffd6060 5fea1e8629add544 2a24d92c8c7f9b34 a21ba406c7c28215 \
             b1b29545250437fc 88d5091fb4f4ed04 530fc3c617c6b2f4 1d4a7e6c7a9878e4",
        ),
        (
            "a b",
            "5b9f61bd8e65fd59 34ff3971fd46eea5 0e5f11266c27dff1 e7bee8dadb08d13d \
             c11ec08f49e9c289 9a7e9843b8cab3d5 73de6ff827aba521 4d3e47ac968c966d",
        ),
        (
            "hello",
            "9c165db7b53c9009 bdaaf475f6548783 df3f8b34376c7efd 00d421f278847677 \
             2268b8b0b99c6df1 43fd4f6efab4656b 6591e62d3bcc5ce5 87267ceb7ce4545f",
        ),
    ];
    for (input, want) in cases {
        let sig = fp.fingerprint(input).unwrap();
        assert_eq!(hex_row(&sig), want, "input {input:?}");
        assert_eq!((sig.schema, sig._pad), (1, [0; 6]));
    }
    let hello = fp.fingerprint("hello").unwrap();
    assert_eq!(
        hello.to_le_bytes()[..16],
        [
            1, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x90, 0x3c, 0xb5, 0xb7, 0x5d, 0x16, 0x9c
        ]
    );
    assert_eq!(
        hello.to_string(),
        "MinHashSig<8>[9c165db7b53c9009, bdaaf475f6548783, df3f8b34376c7efd, \
         00d421f278847677, ..+4 more]"
    );
}

#[test]
fn appendix_a_murmur_k3_h8() {
    let fp = MinHashFingerprinter::<_, 8>::new(Canonicalizer::default(), k3())
        .with_hasher(HashFamily::MurmurHash3_x64_128);
    let cases = [
        (
            FOX,
            "11a02ef6b4bd2f93 03705c687b397531 2372c40a911881f5 3f8f1f683df4f426 \
             1b7396118acd0205 4c21d0fe75f05298 3677791baa317071 27785fff9f94a4ea",
        ),
        (
            "hello",
            "bb93b20b339e7d54 b9d88755f6223d85 b81d5ca0b8a5fdb6 b66231eb7b29bde7 \
             b4a707363dad7e18 b2ebdc8100313e49 b130b1cbc2b4fe7a af7587168538beab",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(
            hex_row(&fp.fingerprint(input).unwrap()),
            want,
            "input {input:?}"
        );
    }
}

#[test]
fn empty_documents_are_rejected() {
    let fp = MinHashFingerprinter::<_, 8>::new(Canonicalizer::default(), k3());
    for input in ["", "   ", "!!!", "\u{200B}"] {
        let err = fp.fingerprint(input).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidInput(m) if m == "empty document"),
            "{input:?}: {err:?}"
        );
        assert_eq!(err.to_string(), "invalid input: empty document");
    }
}

#[test]
fn config_errors_come_first() {
    let fp = MinHashFingerprinter::<_, 8>::new(Canonicalizer::default(), Broken);
    for input in ["", "text"] {
        let err = fp.fingerprint(input).unwrap_err();
        assert_eq!(err.to_string(), "config error: broken tokenizer");
    }
}

#[test]
fn config_hashes_match_spec() {
    let fp = MinHashFingerprinter::<_, 8>::new(Canonicalizer::default(), k3());
    assert_eq!(fp.config_hash(), 0x4726_09a3_2441_4e7c);
    let fp = MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        },
    );
    assert_eq!(fp.config_hash(), 0x1ffc_8214_c1e9_e9db);
    let murmur = fp.clone().with_hasher(HashFamily::MurmurHash3_x64_128);
    assert_eq!(murmur.config_hash(), 0x9639_e2c5_8887_9c6d);
    assert_ne!(fp.clone().with_seed(1).config_hash(), fp.config_hash());
    let h64 = MinHashFingerprinter::<_, 64>::new(Canonicalizer::default(), WordTokenizer);
    assert_eq!(h64.config_hash(), 0xa9d1_3833_8dd1_1922);
}

#[test]
fn builder_and_getters() {
    let fp = MinHashFingerprinter::<_, 4>::new(Canonicalizer::default(), Ws);
    assert_eq!(fp.seed(), DEFAULT_SEED);
    assert_eq!(fp.hasher(), HashFamily::Xxh3_64);
    assert_eq!(fp.tokenizer().name(), "test-ws");
    assert_eq!(
        fp.canonicalizer().config_string(),
        Canonicalizer::default().config_string()
    );
    let b = MinHashFingerprinterBuilder::default().build::<_, 4>(Canonicalizer::default(), Ws);
    assert_eq!((b.seed(), b.hasher()), (DEFAULT_SEED, HashFamily::Xxh3_64));
    let b = MinHashFingerprinterBuilder::default()
        .seed(99)
        .hasher(HashFamily::MurmurHash3_x64_128)
        .build::<_, 4>(Canonicalizer::default(), Ws);
    let w = fp
        .with_seed(99)
        .with_hasher(HashFamily::MurmurHash3_x64_128);
    assert_eq!(
        (b.seed(), b.hasher()),
        (99, HashFamily::MurmurHash3_x64_128)
    );
    assert_eq!(b.config_hash(), w.config_hash());
    assert_eq!(b.fingerprint("x y").unwrap(), w.fingerprint("x y").unwrap());
    let s = b.into_streaming();
    assert_eq!(s.fingerprinter().seed(), 99);
}

#[test]
fn slot_zero_is_min_lo_and_one_token_is_the_sequence() {
    let fp = MinHashFingerprinter::<_, 6>::new(Canonicalizer::default(), Ws);
    let (lo, hi) = HashFamily::Xxh3_64.hash128(b"hello", DEFAULT_SEED);
    let sig = fp.fingerprint("hello").unwrap();
    for (i, h) in sig.hashes.iter().enumerate() {
        assert_eq!(*h, lo.wrapping_add((i as u64).wrapping_mul(hi)));
    }
    let two = fp.fingerprint("hello world").unwrap();
    let (lo2, _) = HashFamily::Xxh3_64.hash128(b"world", DEFAULT_SEED);
    assert_eq!(two.hashes[0], lo.min(lo2));
}

#[test]
fn sketch_without_tokens_is_an_error_and_h0_works() {
    let s = MinHashSketch::<4>::new(HashFamily::Xxh3_64, 1);
    assert_eq!(
        s.finish().unwrap_err().to_string(),
        "invalid input: empty document"
    );
    let mut s = MinHashSketch::<0>::new(HashFamily::Xxh3_64, 1);
    s.push("a");
    assert_eq!(s.finish().unwrap().hashes, [0u64; 0]);
    let fp = MinHashFingerprinter::<_, 0>::new(Canonicalizer::default(), Ws);
    assert_eq!(fp.fingerprint("a").unwrap(), MinHashSig::<0>::empty());
    assert!(fp.fingerprint(" ").is_err());
}

#[test]
fn buffer_reuse_gives_the_same_signatures() {
    let fp = MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
    let mut buf = "stale contents that must not leak".to_string();
    for doc in [FOX, "Hello, World", "x", "ÉCOLE école"] {
        let a = fp.fingerprint_with_buffer(doc, &mut buf).unwrap();
        assert_eq!(a, fp.fingerprint(doc).unwrap(), "{doc:?}");
    }
}

fn words() -> impl Strategy<Value = Vec<&'static str>> {
    const POOL: [&str; 12] = [
        "a", "b", "cat", "dog", "the", "mat", "zebra", "0", "x1", "long-ish", "q", "zz",
    ];
    proptest::collection::vec(proptest::sample::select(&POOL[..]), 1..20)
}

fn family() -> impl Strategy<Value = HashFamily> {
    prop_oneof![
        Just(HashFamily::Xxh3_64),
        Just(HashFamily::MurmurHash3_x64_128)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn sketch_matches_reference_on_every_kernel(
        tokens in words(),
        fam in family(),
        seed in any::<u64>(),
    ) {
        let want: [u64; 37] = reference_sig(&tokens, fam, seed);
        for k in Kernel::all_available() {
            let mut s = MinHashSketch::<37>::with_kernel(fam, seed, k);
            for t in &tokens {
                s.push(t);
            }
            prop_assert_eq!(s.finish().unwrap().hashes, want, "kernel {:?}", k);
        }
    }

    #[test]
    fn signature_ignores_token_order_and_repetition(
        tokens in words(),
        perm_seed in any::<u64>(),
        reps in proptest::collection::vec(0usize..3, 20),
        fam in family(),
    ) {
        let fp = MinHashFingerprinter::<_, 24>::new(Canonicalizer::default(), Ws)
            .with_hasher(fam);
        let base = fp.fingerprint(&tokens.join(" ")).unwrap();
        prop_assert_eq!(base.hashes, reference_sig::<24>(&tokens, fam, DEFAULT_SEED));

        // Repeat some tokens, then shuffle deterministically.
        let mut more: Vec<&str> = Vec::new();
        for (t, r) in tokens.iter().zip(&reps) {
            for _ in 0..=*r {
                more.push(t);
            }
        }
        let mut state = perm_seed | 1;
        for i in (1..more.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            more.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let shuffled = fp.fingerprint(&more.join("  ")).unwrap();
        prop_assert_eq!(shuffled, base);
    }

    #[test]
    fn le_bytes_round_trip_of_real_signatures(tokens in words()) {
        let fp = MinHashFingerprinter::<_, 9>::new(Canonicalizer::default(), Ws);
        let sig = fp.fingerprint(&tokens.join(" ")).unwrap();
        prop_assert_eq!(MinHashSig::<9>::from_bytes(&sig.to_le_bytes()).unwrap(), sig);
        #[cfg(target_endian = "little")]
        prop_assert_eq!(MinHashSig::<9>::from_bytes(sig.as_bytes()).unwrap(), sig);
    }
}
