use alloc::format;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::{Canonicalizer, MinHashFingerprinter, SimHashFingerprinter, WordTokenizer};

/// Batch forms give what one `fingerprint` call per input gives.
fn agree<F>(fp: &F, docs: &[alloc::string::String]) -> Result<(), TestCaseError>
where
    F: FingerprintBatch + Sync,
    F::Output: PartialEq + core::fmt::Debug + Send,
{
    let one: Vec<_> = docs.iter().map(|d| fp.fingerprint(d)).collect();
    fn key<O>(v: &[Result<O>]) -> Vec<Result<&O, alloc::string::String>> {
        v.iter()
            .map(|r| r.as_ref().map_err(|e| format!("{e}")))
            .collect()
    }
    let batch = fp.fingerprint_batch(docs);
    prop_assert_eq!(key(&batch), key(&one));
    let lazy: Vec<_> = fp.fingerprint_iter(docs.iter()).collect();
    prop_assert_eq!(key(&lazy), key(&one));
    #[cfg(feature = "parallel")]
    {
        let par = fp.par_fingerprint(docs);
        prop_assert_eq!(key(&par), key(&one));
        let it = fp.par_fingerprint_iter(docs.to_vec());
        prop_assert_eq!(key(&it), key(&one));
    }
    Ok(())
}

proptest! {
    #[test]
    fn batches_equal_single_calls(docs in prop::collection::vec("[a-zA-Zé ,.]{0,60}", 0..40)) {
        agree(&MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer), &docs)?;
        agree(&crate::classical::minhash::FastMinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer), &docs)?;
        agree(&SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer), &docs)?;
        #[cfg(feature = "tlsh")]
        agree(&crate::TlshFingerprinter::default(), &docs)?;
        #[cfg(feature = "interop")]
        agree(&crate::classical::simhash::SimHashDocV1::new(), &docs)?;
    }
}
