use crate::{
    Error, MinHashSig, classical::TextEncoding, classical::TextForm,
    classical::minhash::FastMinHashSig,
};

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
