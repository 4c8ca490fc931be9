//! Fingerprinting one document for the store: its SimHash, MinHash
//! signature and chunk hashes, and the lookup keys they file under.

use sha2::{Digest, Sha256};

use super::config::GlobalStoreConfig;
use crate::lsh::{LshIndexBuilder, SimHashLayout};
use crate::{
    Canonicalizer, Error, Fingerprinter, MinHashFingerprinter, Result, ShingleTokenizer,
    SimHashFingerprinter, Tokenizer, WordTokenizer,
};

/// Name of the text pipeline every store fingerprint goes through: the
/// default [`Canonicalizer`] (NFKC, simple case fold, bidi and invisible
/// characters stripped) and UAX #29 word tokens. Persisted in
/// [`HashParams`](super::HashParams).
pub const TEXT_PIPELINE: &str = "canonical-default/word-uax29";

/// LSH bands for a signature of `num_perm` slots that find a pair at
/// `threshold` with probability 0.999 (one band of every slot at 1.0, one
/// slot per band where no banding reaches it).
pub(crate) fn bands_for(threshold: f64, num_perm: usize) -> usize {
    if threshold >= 1.0 {
        return 1;
    }
    match LshIndexBuilder::for_recall(threshold, num_perm, 0.999) {
        Ok(b) if b.bands > 0 => b.bands,
        _ => num_perm.max(1),
    }
}

/// A MinHash fingerprinter of one of the supported signature lengths.
enum MinHasher {
    P64(MinHashFingerprinter<ShingleTokenizer<WordTokenizer>, 64>),
    P128(MinHashFingerprinter<ShingleTokenizer<WordTokenizer>, 128>),
    P256(MinHashFingerprinter<ShingleTokenizer<WordTokenizer>, 256>),
}

impl MinHasher {
    fn signature(&self, text: &str) -> Result<Vec<u64>> {
        Ok(match self {
            Self::P64(f) => f.fingerprint(text)?.hashes.to_vec(),
            Self::P128(f) => f.fingerprint(text)?.hashes.to_vec(),
            Self::P256(f) => f.fingerprint(text)?.hashes.to_vec(),
        })
    }
}

/// The fingerprints of one document (no text).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Prepared {
    pub simhash: Option<u64>,
    pub minhash: Option<Vec<u64>>,
    pub chunks: Vec<[u8; 32]>,
}

/// Where a document's fingerprints are filed, and so where its candidates
/// are looked up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lookup {
    /// The document id (its own record is read first).
    pub doc_id: String,
    /// `(table, masked bits)` of each SimHash permuted table.
    pub simhash_keys: Vec<(u8, u64)>,
    /// `(band, band key)` of each MinHash LSH band.
    pub band_keys: Vec<(u16, u64)>,
    /// SHA-256 of each chunk, in chunk order.
    pub chunk_hashes: Vec<[u8; 32]>,
}

/// Computes [`Prepared`] fingerprints and [`Lookup`] keys for a config.
pub(crate) struct Hasher {
    canon: Canonicalizer,
    simhash: Option<(SimHashFingerprinter<WordTokenizer>, Vec<u64>)>,
    minhash: Option<(MinHasher, usize)>,
    chunk: Option<(usize, usize)>,
}

impl Hasher {
    pub(crate) fn new(cfg: &GlobalStoreConfig) -> Result<Self> {
        let simhash = if cfg.simhash {
            let layout = SimHashLayout::for_distance(cfg.simhash_max_hamming)?;
            let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
            Some((fp, layout.masks().to_vec()))
        } else {
            None
        };
        let minhash = if cfg.minhash {
            let tok = ShingleTokenizer {
                k: cfg.minhash_ngram,
                inner: WordTokenizer,
            };
            tok.validate()?;
            let c = Canonicalizer::default();
            let f = match cfg.minhash_num_perm {
                64 => MinHasher::P64(MinHashFingerprinter::new(c, tok)),
                128 => MinHasher::P128(MinHashFingerprinter::new(c, tok)),
                256 => MinHasher::P256(MinHashFingerprinter::new(c, tok)),
                n => {
                    return Err(Error::Config(format!(
                        "global_fingerprints: minhash_num_perm must be 64, 128 or 256; got {n}"
                    )));
                }
            };
            let bands = bands_for(cfg.minhash_partial_threshold, cfg.minhash_num_perm);
            Some((f, cfg.minhash_num_perm / bands))
        } else {
            None
        };
        let chunk = cfg
            .chunk_hash
            .then_some((cfg.chunk_size, cfg.chunk_size - cfg.chunk_overlap));
        Ok(Self {
            canon: Canonicalizer::default(),
            simhash,
            minhash,
            chunk,
        })
    }

    /// Fingerprints `text`. A kind that finds no token in it is absent.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when no enabled kind finds a token.
    pub(crate) fn prepare(&self, doc_id: &str, text: &str) -> Result<Prepared> {
        let mut p = Prepared::default();
        if let Some((fp, _)) = &self.simhash {
            p.simhash = no_tokens_is_none(fp.fingerprint(text).map(|s| s.0))?;
        }
        if let Some((fp, _)) = &self.minhash {
            p.minhash = no_tokens_is_none(fp.signature(text))?;
        }
        if let Some((size, stride)) = self.chunk {
            p.chunks = chunk_hashes(&self.canon.canonicalize(text), size, stride);
        }
        if p.simhash.is_none() && p.minhash.is_none() && p.chunks.is_empty() {
            return Err(Error::InvalidInput(format!(
                "document {doc_id:?} has no words to fingerprint"
            )));
        }
        Ok(p)
    }

    /// The keys `p` files under.
    pub(crate) fn lookup(&self, doc_id: &str, p: &Prepared) -> Lookup {
        let mut l = Lookup {
            doc_id: doc_id.to_owned(),
            chunk_hashes: p.chunks.clone(),
            ..Lookup::default()
        };
        if let (Some((_, masks)), Some(f)) = (&self.simhash, p.simhash) {
            l.simhash_keys = simhash_keys(masks, f);
        }
        if let (Some((_, rows)), Some(sig)) = (&self.minhash, &p.minhash) {
            l.band_keys = band_keys(sig, *rows);
        }
        l
    }
}

/// `(table, f & mask)` for each table of the permuted-table layout.
pub(crate) fn simhash_keys(masks: &[u64], f: u64) -> Vec<(u8, u64)> {
    masks
        .iter()
        .enumerate()
        .map(|(t, m)| (t as u8, f & m))
        .collect()
}

/// `(band, key)` of each band of `rows` slots (the LSH index's band keys).
pub(crate) fn band_keys(sig: &[u64], rows: usize) -> Vec<(u16, u64)> {
    if rows == 0 {
        return Vec::new();
    }
    crate::lsh::band_keys(sig, rows)
        .enumerate()
        .map(|(b, k)| (b as u16, k))
        .collect()
}

/// Estimated Jaccard of two signatures: the fraction of equal slots (0
/// when the lengths differ).
pub(crate) fn estimated_jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let eq = a.iter().zip(b).filter(|(x, y)| x == y).count();
    eq as f64 / a.len() as f64
}

/// SHA-256 of each chunk of `size` words, starting every `stride` words,
/// of the canonical text: the words joined by one space. A trailing
/// window is hashed only when it holds words no earlier chunk covered, so
/// a document of fewer than `size` words is one chunk.
pub(crate) fn chunk_hashes(canonical: &str, size: usize, stride: usize) -> Vec<[u8; 32]> {
    // The word scanner the sketches use (token-identical to UAX #29's
    // `unicode_words`, property-tested), not the general state machine.
    let mut words: Vec<&str> = Vec::new();
    crate::tokenize::word::for_each_word_span(canonical, |s, e| {
        if let Some(w) = canonical.get(s..e) {
            words.push(w);
        }
    });
    let (size, stride) = (size.max(1), stride.max(1));
    let mut out = Vec::new();
    let mut start = 0usize;
    while start < words.len() {
        let end = (start + size).min(words.len());
        let mut h = Sha256::new();
        for (i, w) in words[start..end].iter().enumerate() {
            if i > 0 {
                h.update(b" ");
            }
            h.update(w.as_bytes());
        }
        out.push(h.finalize().into());
        if end == words.len() {
            break;
        }
        start += stride;
    }
    out
}

/// A fingerprinter's "no tokens" error becomes an absent fingerprint; any
/// other error stays.
fn no_tokens_is_none<T>(r: Result<T>) -> Result<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(Error::InvalidInput(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const D: &[u8; 16] = b"0123456789abcdef";
    // Bytes first, one check at the end: pushing chars one by one cost a
    // tenth of batch ingest (a MinHash value is 2,048 digits).
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.extend_from_slice(&[D[(b >> 4) as usize], D[(b & 15) as usize]]);
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The MinHash signature of a record value (hex of the little-endian
/// slots, either case).
///
/// The store parses the signature of every candidate it meets, thousands
/// per document in a crowded band, so the digits go through a table rather
/// than `from_str_radix` (which also took a leading `+` that no record
/// holds).
pub(crate) fn parse_signature(value: &str) -> Option<Vec<u64>> {
    const BAD: u8 = 0xff;
    const DIGIT: [u8; 256] = {
        let mut t = [BAD; 256];
        let mut i = 0;
        while i < 10 {
            t[b'0' as usize + i] = i as u8;
            i += 1;
        }
        let mut i = 0;
        while i < 6 {
            t[b'a' as usize + i] = 10 + i as u8;
            t[b'A' as usize + i] = 10 + i as u8;
            i += 1;
        }
        t
    };
    let b = value.as_bytes();
    if !b.len().is_multiple_of(16) {
        return None;
    }
    let mut out = Vec::with_capacity(b.len() / 16);
    for c in b.chunks_exact(16) {
        let (mut v, mut bad) = (0u64, 0u8);
        for &d in c {
            let x = DIGIT[usize::from(d)];
            bad |= x & 0xf0;
            v = (v << 4) | u64::from(x & 0x0f);
        }
        if bad != 0 {
            return None;
        }
        out.push(v.swap_bytes());
    }
    Some(out)
}

/// The SHA-256 of a chunk record value (64 hex digits).
pub(crate) fn parse_chunk_hash(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The record value of a MinHash signature.
pub(crate) fn signature_hex(sig: &[u64]) -> String {
    let bytes: Vec<u8> = sig.iter().flat_map(|s| s.to_le_bytes()).collect();
    hex(&bytes)
}

#[cfg(test)]
mod tests;
