use super::*;
use alloc::string::ToString;
use alloc::vec;
use proptest::prelude::*;

/// Plain reference: 0.3.2's shingling over a token list.
fn reference(tokens: &[String], k: usize) -> Vec<String> {
    if k == 0 || tokens.is_empty() {
        return vec![];
    }
    if tokens.len() < k {
        return vec![tokens.join(" ")];
    }
    tokens.windows(k).map(|w| w.join(" ")).collect()
}

fn run(ks_outer_first: &[usize], tokens: &[String]) -> Vec<String> {
    let mut stages = stages_for(ks_outer_first);
    let mut out = Vec::new();
    for t in tokens {
        push_through(&mut stages, t, &mut |w| out.push(w.to_string()));
    }
    finish_all(&mut stages, &mut |w| out.push(w.to_string()));
    out
}

#[test]
fn spec_examples() {
    let toks = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    assert_eq!(run(&[2, 2], &toks("a b c d")), ["a b b c", "b c c d"]);
    assert_eq!(run(&[3], &toks("a b")), ["a b"]);
    assert_eq!(run(&[0], &toks("a b")), Vec::<String>::new());
    assert_eq!(run(&[1], &toks("a b")), ["a", "b"]);
    // Grapheme-style tokens that are themselves spaces.
    let g: Vec<String> = ["a", "b", " ", "c", "d"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(run(&[3], &g), ["a b  ", "b   c", "  c d"]);
    // A short inner window feeds the outer stage before it finishes.
    assert_eq!(run(&[2, 5], &toks("a b c")), ["a b c"]);
    assert_eq!(run(&[5, 2], &toks("a b c")), ["a b b c"]);
    assert_eq!(run(&[2], &[]), Vec::<String>::new());
}

proptest! {
    #[test]
    fn matches_reference(
        tokens in proptest::collection::vec("[a-c ]{0,3}", 0..30),
        k in 0usize..7,
        k2 in 0usize..4,
    ) {
        prop_assert_eq!(run(&[k], &tokens), reference(&tokens, k));
        let nested = reference(&reference(&tokens, k2), k);
        prop_assert_eq!(run(&[k, k2], &tokens), nested);
    }

    /// The window buffer never grows past twice the window plus a token.
    #[test]
    fn memory_stays_with_the_window(
        tokens in proptest::collection::vec("[a-z]{0,5}", 0..200),
        k in 1usize..6,
    ) {
        let mut stage = Stage::new(k);
        for t in &tokens {
            stage.push(t, &mut |_| {});
            prop_assert!(stage.held() <= 2 * k * 6 + 6, "{} bytes held", stage.held());
        }
    }
}
