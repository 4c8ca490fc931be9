use super::cut_for_tokenizer;

#[test]
fn cut_keeps_enough_pieces() {
    let text = (0..100)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join("  \n");
    let cut = cut_for_tokenizer(&text, 2); // limit 16 pieces
    assert_eq!(cut.split_whitespace().count(), 16);
    assert!(text.starts_with(cut));
    assert_eq!(cut_for_tokenizer("short text", 2), "short text");
    assert_eq!(cut_for_tokenizer("", 0), "");
    let huge_word = "x".repeat(10_000);
    assert_eq!(cut_for_tokenizer(&huge_word, 1), huge_word);
}
