use super::*;

const COMMONMARK: MarkdownSyntax = MarkdownSyntax::CommonMark;

/// The 0.3.2 vectors (spec vectors file, `== markdown ==`).
#[test]
fn reference_vectors() {
    let spaced_opts = MarkdownOptions::default();
    let nobreak = MarkdownOptions {
        break_to_space: false,
        ..spaced_opts
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
        assert_eq!(
            markdown_to_text_as(md, spaced_opts, COMMONMARK).unwrap(),
            spaced
        );
        assert_eq!(markdown_to_text_as(md, nobreak, COMMONMARK).unwrap(), glued);
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

/// COMPAT.md W18: the switch lives outside the 0.3.2 struct; both
/// existing entry points keep parsing GFM.
#[test]
fn syntax_is_chosen_outside_the_options() {
    let md = "| a | b |\n|---|---|\n| 1 | ~~2~~ |\n\n- [x] done";
    let opts = MarkdownOptions {
        include_code_blocks: true,
        include_inline_code: true,
        break_to_space: true,
    };
    let gfm = markdown_to_text_as(md, opts, MarkdownSyntax::Gfm).unwrap();
    assert_eq!(gfm, "a b 1 2 done");
    assert_eq!(markdown_to_text(md).unwrap(), gfm);
    assert_eq!(markdown_to_text_with(md, opts).unwrap(), gfm);
    assert_eq!(
        markdown_to_text_as(md, opts, MarkdownSyntax::default()).unwrap(),
        gfm
    );
    assert_eq!(
        markdown_to_text_as(md, opts, MarkdownSyntax::CommonMark).unwrap(),
        "| a | b | |---|---| | 1 | ~~2~~ | [x] done"
    );
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
