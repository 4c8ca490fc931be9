use super::*;
use alloc::format;
use alloc::vec;
use proptest::prelude::*;
use unicode_segmentation::UnicodeSegmentation;

fn strat(max_tokens: usize, overlap: usize, mode: ChunkMode) -> ChunkingStrategy {
    ChunkingStrategy {
        max_tokens,
        overlap,
        mode,
    }
}

fn numbered(n: usize) -> String {
    (0..n)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn thirty_words_no_trailing_overlap_chunk() {
    // 0.3.2 adds "w28 w29" once (SentenceBounded) or twice (Recursive) after
    // these six windows; those overlap-only chunks are gone (W16).
    let want = [
        "w0 w1 w2 w3 w4 w5 w6",
        "w5 w6 w7 w8 w9 w10 w11",
        "w10 w11 w12 w13 w14 w15 w16",
        "w15 w16 w17 w18 w19 w20 w21",
        "w20 w21 w22 w23 w24 w25 w26",
        "w25 w26 w27 w28 w29",
    ];
    for mode in [
        ChunkMode::FixedTokens,
        ChunkMode::SentenceBounded,
        ChunkMode::Recursive,
    ] {
        assert_eq!(
            chunk_for_model(&numbered(30), &strat(10, 3, mode)),
            want,
            "{mode:?}"
        );
    }
}

#[test]
fn sentence_packing_matches_0_3_2_up_to_punctuation() {
    let text = "One two three. Four five six! Seven eight? Nine.";
    assert_eq!(
        chunk_for_model(text, &strat(8, 0, ChunkMode::SentenceBounded)),
        ["One two three. Four five six!", "Seven eight? Nine."]
    );
    // 0.3.2: "Four five six Seven eight?", "six Seven eight Nine." (punctuation lost).
    assert_eq!(
        chunk_for_model(text, &strat(8, 4, ChunkMode::SentenceBounded)),
        [
            "One two three. Four five six!",
            "Four five six! Seven eight?",
            "six! Seven eight? Nine."
        ]
    );
}

#[test]
fn recursive_keeps_paragraphs_and_the_cap() {
    let text = "Para one is here.\n\nPara two.\n\nPara three, with, commas.";
    // 0.3.2's last chunk was "here Para two\n\nPara three, with, commas." (10 > 8
    // estimated tokens); the overlap now shrinks to fit.
    assert_eq!(
        chunk_for_model(text, &strat(8, 4, ChunkMode::Recursive)),
        [
            "Para one is here.",
            "one is here.\n\nPara two.",
            "two.\n\nPara three, with, commas."
        ]
    );
    let crlf = "Para one is here.\r\n\r\nPara two.\r\n  \r\nPara three, with, commas.\r\n";
    assert_eq!(
        chunk_for_model(crlf, &strat(8, 0, ChunkMode::Recursive)),
        [
            "Para one is here.",
            "Para two.",
            "Para three, with, commas."
        ]
    );
    // Lines inside a paragraph keep their own line ends.
    assert_eq!(
        chunk_for_model(
            "a b\r\nc d\r\n\r\n\r\ne f",
            &strat(100, 0, ChunkMode::Recursive)
        ),
        ["a b\r\nc d\n\ne f"]
    );
}

#[test]
fn fixed_windows_keep_punctuation_and_edges() {
    assert_eq!(
        chunk_for_model(
            "Hello, world! It's me.",
            &ChunkingStrategy {
                mode: ChunkMode::FixedTokens,
                ..Default::default()
            }
        ),
        ["Hello, world! It's me."]
    );
    assert_eq!(
        chunk_for_model("«a», b; c. d!", &strat(2, 0, ChunkMode::FixedTokens)),
        ["«a»,", "b;", "c.", "d!"]
    );
    for mode in [
        ChunkMode::FixedTokens,
        ChunkMode::SentenceBounded,
        ChunkMode::Recursive,
    ] {
        assert!(chunk_for_model("", &strat(10, 2, mode)).is_empty());
        assert!(chunk_for_model("some words", &strat(0, 2, mode)).is_empty());
        assert!(chunk_for_model(" ... !!! ", &strat(10, 2, mode)).len() <= 1);
        // Overlap larger than the window is capped, never a stall.
        assert_eq!(
            chunk_for_model("a b c", &strat(1, 1000, mode)),
            ["a", "b", "c"]
        );
    }
}

fn words(s: &str) -> Vec<&str> {
    s.unicode_words().collect()
}

/// Text of unique words `w0…` with random separators (sentences, CRLF and LF
/// paragraphs, commas).
fn arb_text() -> impl Strategy<Value = String> {
    let sep = prop_oneof![
        4 => Just(" "), 1 => Just(". "), 1 => Just("! "), 1 => Just(", "),
        1 => Just("\n\n"), 1 => Just("\r\n\r\n"), 1 => Just("\n"), 1 => Just(".\n\n"),
    ];
    proptest::collection::vec(sep, 0..120).prop_map(|seps| {
        let mut s = String::from("w0");
        for (i, sep) in seps.iter().enumerate() {
            s.push_str(sep);
            s.push_str(&format!("w{}", i + 1));
        }
        s.push('.');
        s
    })
}

proptest! {
    /// Every chunk is a contiguous run of the input's words; runs cover the
    /// input in order without gaps, each chunk adds at least one new word (no
    /// overlap-only chunks), and only one-word chunks may exceed the cap.
    #[test]
    fn chunks_cover_the_input_in_order(
        text in arb_text(),
        max_tokens in 1usize..40,
        overlap in 0usize..20,
        which in 0usize..3,
    ) {
        let mode = [ChunkMode::FixedTokens, ChunkMode::SentenceBounded, ChunkMode::Recursive][which];
        let input_words = words(&text);
        let index = |w: &str| w[1..].parse::<usize>().unwrap();
        let chunks = chunk_for_model(&text, &strat(max_tokens, overlap, mode));
        let mut prev_end = 0usize;
        for (i, c) in chunks.iter().enumerate() {
            let ws = words(c);
            prop_assert!(!ws.is_empty(), "empty chunk {i}: {chunks:?}");
            let first = index(ws[0]);
            for (k, w) in ws.iter().enumerate() {
                prop_assert_eq!(index(w), first + k, "not contiguous: {:?}", c);
            }
            let end = first + ws.len();
            prop_assert!(first <= prev_end, "gap before chunk {}: {:?}", i, chunks);
            prop_assert!(end > prev_end, "chunk {} adds nothing: {:?}", i, chunks);
            if overlap == 0 {
                prop_assert_eq!(first, prev_end);
            }
            prop_assert!(ws.len() == 1 || split::approx(ws.len()) <= max_tokens,
                "chunk {} over the cap: {:?}", i, c);
            prev_end = end;
        }
        prop_assert_eq!(prev_end, input_words.len());
    }
}

#[test]
fn paragraph_splitter() {
    let p: Vec<&str> = split::paragraphs("\n\n a \n b\n\n\n\r\nc\r\n \t\r\nd").collect();
    assert_eq!(p, ["a \n b", "c", "d"]);
    assert_eq!(split::paragraphs("").count(), 0);
    assert_eq!(split::paragraphs("\r\n\r\n").count(), 0);
    assert_eq!(
        vec![split::approx(0), split::approx(1), split::approx(10)],
        [0, 2, 13]
    );
}
