//! COMPAT.md W18: 0.3.2's three-field `MarkdownOptions`.
#![cfg(feature = "markup")]

use txtfp::{MarkdownOptions, markdown_to_text, markdown_to_text_with};

/// 0.3.2 code: a struct literal naming exactly the three fields, and a copy.
#[test]
fn markdown_options_struct_literal_compiles() {
    let opts = MarkdownOptions {
        include_code_blocks: false,
        include_inline_code: true,
        break_to_space: true,
    };
    let copy = opts; // Copy, as in 0.3.2
    assert!(!opts.include_code_blocks && copy.include_inline_code && copy.break_to_space);
    let text = markdown_to_text_with("run `ls`\n\n```\nls -l\n```", copy).unwrap();
    assert_eq!(text, "run ls");
    let glued = MarkdownOptions {
        include_code_blocks: true,
        include_inline_code: true,
        break_to_space: false,
    };
    assert_eq!(
        markdown_to_text_with("# Head\n\nPara", glued).unwrap(),
        "HeadPara"
    );
}

/// The fix stays on in 0.3.2's entry points: GFM syntax does not leak, and
/// 0.3.2's output is one call away.
#[test]
fn markdown_gfm_fix_is_kept() {
    let md = "| a | b |\n|---|---|\n| 1 | ~~2~~ |";
    let opts = MarkdownOptions {
        include_code_blocks: true,
        include_inline_code: true,
        break_to_space: true,
    };
    assert_eq!(markdown_to_text(md).unwrap(), "a b 1 2");
    assert_eq!(markdown_to_text_with(md, opts).unwrap(), "a b 1 2");
    assert_eq!(
        txtfp::markup::markdown_to_text_as(md, opts, txtfp::markup::MarkdownSyntax::CommonMark)
            .unwrap(),
        "| a | b | |---|---| | 1 | ~~2~~ |"
    );
}
