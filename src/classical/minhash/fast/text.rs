//! Text forms of [`FastMinHashSig`] (feature `interop`): hex, base32 and
//! base64 of exactly [`FastMinHashSig::to_le_bytes`]. The schema word comes
//! first, so the text starts with its own prefix (hex `0146…`, where a
//! default-scheme signature starts `0100…`) and parsing checks it: neither
//! scheme's text parses as the other's.

use crate::classical::text_form::slot_sig_text_form;

slot_sig_text_form!(
    /// ```
    /// use txtfp::{FastMinHashSig, MinHashSig, TextForm};
    /// let s = FastMinHashSig::<1> { hashes: [0xab], ..FastMinHashSig::empty() };
    /// assert_eq!(s.to_hex(), "0146000000000000ab00000000000000");
    /// assert_eq!(FastMinHashSig::<1>::from_hex(&s.to_hex())?, s);
    /// assert!(MinHashSig::<1>::from_hex(&s.to_hex()).is_err());
    /// assert!(FastMinHashSig::<1>::from_hex(&MinHashSig::<1>::empty().to_hex()).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    FastMinHashSig
);

#[cfg(test)]
mod tests {
    use crate::{Error, FastMinHashSig, MinHashSig, TextEncoding, TextForm};

    #[test]
    fn round_trips_and_refuses_the_default_scheme() {
        let s = FastMinHashSig::<3> {
            hashes: [1, u64::MAX, 0x0123_4567_89ab_cdef],
            ..FastMinHashSig::empty()
        };
        for enc in [
            TextEncoding::Hex,
            TextEncoding::Base32,
            TextEncoding::Base64,
        ] {
            let t = s.to_text(enc);
            assert_eq!(FastMinHashSig::<3>::from_text(&t, enc).unwrap(), s);
            assert!(MinHashSig::<3>::from_text(&t, enc).is_err());
            let d = MinHashSig::<3>::empty().to_text(enc);
            assert!(matches!(
                FastMinHashSig::<3>::from_text(&d, enc),
                Err(Error::SchemaMismatch {
                    expected: 0x4601,
                    actual: 1
                })
            ));
        }
        assert!(s.to_hex().starts_with("0146000000000000"));
        let e = FastMinHashSig::<3>::from_hex("00").unwrap_err().to_string();
        assert!(e.contains("FastMinHashSig<3>"), "{e}");
    }
}
