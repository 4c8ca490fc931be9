//! `markdown_to_text_as` on arbitrary bytes (lossy UTF-8); byte 0 sets the
//! three options and the syntax. Checks: no panic, always `Ok`, output trimmed, and no more
//! text than the input holds (markup is only ever removed, one space added
//! per block at most).
#![no_main]

use libfuzzer_sys::fuzz_target;
use txtfp::MarkdownOptions;
use txtfp::markup::{MarkdownSyntax, markdown_to_text_as};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let md = String::from_utf8_lossy(rest);
    let opts = MarkdownOptions {
        include_code_blocks: mode & 1 == 0,
        include_inline_code: mode & 2 == 0,
        break_to_space: mode & 4 == 0,
    };
    let syntax = if mode & 8 == 0 {
        MarkdownSyntax::Gfm
    } else {
        MarkdownSyntax::CommonMark
    };
    let text = markdown_to_text_as(&md, opts, syntax).expect("markdown_to_text_as failed");
    assert_eq!(text, text.trim());
    // Entities and escapes can expand (`&ngE;` is 5 bytes for 3), as can
    // tab expansion in code blocks; a loose bound still catches runaways.
    assert!(
        text.len() <= 4 * md.len() + 16,
        "{} bytes out of {}",
        text.len(),
        md.len()
    );
});
