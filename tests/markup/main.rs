//! HTML, Markdown and PDF to text: goldens, hostile input, real PDFs (the
//! 100 MB page is `markup_huge`, a binary of its own for its memory figure).

// Helpers shared by several test binaries (one copy, mounted in each).
#[path = "../common/mod.rs"]
mod common;

mod adversarial;
mod golden;
mod pdf_hostile;
mod pdf_real;
mod pdf_support;
