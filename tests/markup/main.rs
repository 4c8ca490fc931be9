//! HTML, Markdown and PDF to text: goldens, hostile and huge input, real PDFs.

// Helpers shared by several test binaries (one copy, mounted in each).
#[path = "../common/mod.rs"]
mod common;

mod adversarial;
mod golden;
mod huge;
mod pdf_hostile;
mod pdf_real;
mod pdf_support;
