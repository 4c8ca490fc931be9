use super::*;

const COMMONMARK: MarkdownOptions = MarkdownOptions {
    include_code_blocks: true,
    include_inline_code: true,
    break_to_space: true,
    gfm: false,
};

/// The 0.3.2 vectors (spec vectors file, `== markdown ==`).
#[test]
fn reference_vectors() {
    let nobreak = MarkdownOptions {
        break_to_space: false,
        ..COMMONMARK
    };
    let cases: [(&str, &str, &str); 6] = [
        (
            "# Head\n\nPara *em* **strong** `code` [link](http://x) ![alt](img.png)\n\n- a\n- b\n\n```rust\nlet x = 1;\n  y\n```\nafter",
            "Head Para em strong code link alt a b let x = 1;\n  y\n after",
            "HeadPara em strong code link altablet x = 1;\n  y\nafter",
        ),
        ("a\nb  \nc", "a b c", "abc"),
        (
            "<div>html block</div>\n\ntext <span>inline</span> end",
            "text inline end",
            "text inline end",
        ),
        (
            "> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |",
            "quote | a | b | |---|---| | 1 | 2 |",
            "quote| a | b ||---|---|| 1 | 2 |",
        ),
        (
            "~~strike~~ [^1]\n\n[^1]: note",
            "~~strike~~ ^1",
            "~~strike~~ ^1",
        ),
        ("1. one\n2. two", "one two", "onetwo"),
    ];
    for (md, spaced, glued) in cases {
        assert_eq!(markdown_to_text_with(md, COMMONMARK).unwrap(), spaced);
        assert_eq!(markdown_to_text_with(md, nobreak).unwrap(), glued);
    }
}

#[test]
fn gfm_syntax_stays_out() {
    let md = "> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |";
    assert_eq!(markdown_to_text(md).unwrap(), "quote a b 1 2");
    let md = "~~strike~~ word[^1]\n\n[^1]: note";
    assert_eq!(markdown_to_text(md).unwrap(), "strike word note");
    let md = "- [ ] todo\n- [x] done";
    assert_eq!(markdown_to_text(md).unwrap(), "todo done");
}

#[test]
fn code_switches() {
    let md = "text `inline` more\n\n```\nblock\n```";
    let no_inline = MarkdownOptions {
        include_inline_code: false,
        ..Default::default()
    };
    assert_eq!(
        markdown_to_text_with(md, no_inline).unwrap(),
        "text  more block"
    );
    let no_blocks = MarkdownOptions {
        include_code_blocks: false,
        ..Default::default()
    };
    assert_eq!(
        markdown_to_text_with(md, no_blocks).unwrap(),
        "text inline more"
    );
}
