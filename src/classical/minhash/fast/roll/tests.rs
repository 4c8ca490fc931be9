use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::Roller;
use crate::classical::minhash::fast::hash::{Keys, token_hash};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Shingles of random pieces (empty ones too), mixed with tokens
    /// that only look like shifts: every hash is the definition's.
    #[test]
    fn equals_token_hash(
        pieces in proptest::collection::vec("[aé ]{0,4}|x|", 0..30),
        k in 1usize..5,
        noise in proptest::collection::vec("[bé ]{0,6}", 0..5),
        seed in any::<u64>(),
    ) {
        let keys = Keys::new(seed);
        let mut tokens: Vec<String> = pieces
            .windows(k)
            .map(|w| w.iter().map(|p| p.replace(' ', "")).collect::<Vec<_>>().join(" "))
            .collect();
        for (i, n) in noise.iter().enumerate() {
            let at = (i * 7) % (tokens.len() + 1);
            tokens.insert(at, n.clone());
        }
        let mut r = Roller::default();
        for t in &tokens {
            prop_assert_eq!(r.hash(t, &keys), token_hash(t.as_bytes(), &keys), "{:?}", t);
        }
    }
}
