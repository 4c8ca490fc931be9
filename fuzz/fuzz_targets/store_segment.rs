//! libFuzzer entry point for [`txtfp_fuzz::store_segment`]; the check itself lives in
//! `src/lib.rs` so that the smoke runner replays the same code.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| txtfp_fuzz::store_segment(data));
