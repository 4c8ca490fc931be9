//! Tests of the text forms of [`FastMinHashSig`](super::FastMinHashSig)
//! (feature `interop`; the one `TextForm` impl of both schemes is in
//! `classical/text_form.rs`): hex, base32 and base64 of exactly its
//! `to_le_bytes`, rejected as the other scheme's.

#[cfg(test)]
mod tests;
