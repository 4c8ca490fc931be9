//! Chinese and Japanese segmentation: goldens, dictionaries, the segmenters.

// Helpers shared by several test binaries (one copy, mounted in each).
#[path = "../common/mod.rs"]
mod common;

mod golden;
mod japanese;
mod segmenters;
