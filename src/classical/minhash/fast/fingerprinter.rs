//! [`FastMinHashFingerprinter`]: text to [`FastMinHashSig`].

use alloc::format;
use alloc::string::String;

use super::FastMinHashSig;
use alloc::vec::Vec;

use super::hash::{BASE, Keys, base_pow, finish, word_hash, word_hash_at};
use super::roll::Roller;
use super::sketch::{FastSketch, place};
use crate::canonical::Canonicalizer;
use crate::classical::{DEFAULT_SEED, Fingerprinter, hex16};
use crate::tokenize::{Builtin, StreamPlan, Tokenizer, WordTokenizer};
use crate::{Error, Result};

/// The opt-in fast MinHash scheme: one hash per word, a rolling hash per
/// word shingle, one bin update per shingle (one-permutation hashing), and
/// empty bins filled by re-hashing rounds (fast similarity sketching). See
/// the [module docs](super) for the scheme, its accuracy and its speed.
///
/// Its signatures ([`FastMinHashSig`]) estimate the same Jaccard similarity
/// as [`MinHashFingerprinter`](crate::MinHashFingerprinter)'s, but the
/// slot values are unrelated: the two schemes never compare with each
/// other, and their types, wire tags and [`config_hash`](Self::config_hash)
/// keep them apart.
///
/// `&self` methods only: one instance can be shared across threads.
/// Memory per call: the canonical text and 8 bytes per token (the filling
/// rounds revisit the token hashes). For text that arrives in chunks, see
/// [`FastMinHashStreaming`](crate::classical::minhash::FastMinHashStreaming).
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, ShingleTokenizer, WordTokenizer};
/// use txtfp::classical::minhash::FastMinHashFingerprinter;
/// let fp = FastMinHashFingerprinter::<_, 128>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let a = fp.fingerprint("the quick brown fox jumps over the lazy dog at noon today")?;
/// let b = fp.fingerprint("the quick brown fox jumps over the lazy dog at dusk today")?;
/// // 10 shingles each, 7 shared: J = 7/13
/// assert!((a.jaccard(&b) - 7.0 / 13.0).abs() < 0.2);
/// assert_eq!(a.jaccard(&a), 1.0);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FastMinHashFingerprinter<T: Tokenizer, const H: usize> {
    canon: Canonicalizer,
    tok: T,
    seed: u64,
}

impl<T: Tokenizer, const H: usize> FastMinHashFingerprinter<T, H> {
    /// A fingerprinter with [`DEFAULT_SEED`].
    pub fn new(canon: Canonicalizer, tok: T) -> Self {
        Self {
            canon,
            tok,
            seed: DEFAULT_SEED,
        }
    }

    /// The same fingerprinter with another seed; signatures of different
    /// seeds are not comparable (the seed is in [`Self::config_hash`]).
    ///
    /// ```
    /// use txtfp::{Canonicalizer, Fingerprinter, WordTokenizer};
    /// use txtfp::classical::minhash::FastMinHashFingerprinter;
    /// let a = FastMinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
    /// let b = a.clone().with_seed(7);
    /// assert_ne!(a.fingerprint("some words")?, b.fingerprint("some words")?);
    /// assert_ne!(a.config_hash(), b.config_hash());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The canonicalizer applied before tokenizing.
    pub fn canonicalizer(&self) -> &Canonicalizer {
        &self.canon
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &T {
        &self.tok
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// `XXH3_64` of `canonicalizer | tokenizer | fast-minhash-fss1-h{H} |
    /// seed` (see [`crate::config_hash`]); never equal to a default-scheme
    /// fingerprinter's, which hashes `minhash-h{H}` and a hash family.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, MinHashFingerprinter, WordTokenizer};
    /// use txtfp::classical::minhash::FastMinHashFingerprinter;
    /// let fast = FastMinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
    /// let default = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
    /// assert_ne!(fast.config_hash(), default.config_hash());
    /// ```
    pub fn config_hash(&self) -> u64 {
        crate::config_hash(
            &self.canon,
            &self.tok.name(),
            &format!("fast-minhash-fss1-h{H}|{}", hex16(self.seed)),
        )
    }

    /// [`Fingerprinter::fingerprint`] with a caller-owned buffer for the
    /// canonical text (its previous contents are discarded), so a loop
    /// over many documents reuses one allocation.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, Fingerprinter, WordTokenizer};
    /// use txtfp::classical::minhash::FastMinHashFingerprinter;
    /// let fp = FastMinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
    /// let mut buf = String::new();
    /// for doc in ["one doc", "another doc"] {
    ///     assert_eq!(fp.fingerprint_with_buffer(doc, &mut buf)?, fp.fingerprint(doc)?);
    /// }
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    pub fn fingerprint_with_buffer(
        &self,
        input: &str,
        buf: &mut String,
    ) -> Result<FastMinHashSig<H>> {
        self.canon.check()?;
        self.tok.validate()?;
        if input.is_empty() {
            return Err(empty_document());
        }
        self.canon.canonicalize_into(input, buf);
        let mut sketch = FastSketch::<H>::new(self.seed, buf.len() / 8 + 16);
        sketch_tokens(&self.tok, buf, &mut sketch);
        if !sketch.fill() {
            return Err(empty_document());
        }
        Ok(FastMinHashSig {
            schema: super::FAST_SCHEMA,
            _pad: [0; 6],
            hashes: sketch.bins,
        })
    }
}

impl<T: Tokenizer, const H: usize> Fingerprinter for FastMinHashFingerprinter<T, H> {
    type Output = FastMinHashSig<H>;

    /// Canonicalize `input`, tokenize it and sketch the tokens.
    ///
    /// # Errors
    /// - the configuration's own errors (a canonicalizer feature that is not
    ///   compiled in, an invalid tokenizer), before anything else;
    /// - [`Error::InvalidInput`]`("empty document")` if `input` is empty or
    ///   yields no token after canonicalization, exactly as the default
    ///   scheme.
    fn fingerprint(&self, input: &str) -> Result<FastMinHashSig<H>> {
        let mut buf = String::with_capacity(input.len());
        self.fingerprint_with_buffer(input, &mut buf)
    }
}

fn empty_document() -> Error {
    Error::InvalidInput(String::from("empty document"))
}

/// Pushes the hash of every token `tok` yields for `text`, each equal to
/// [`token_hash`](super::hash::token_hash), the definition. Words and word
/// k-shingles take fused loops over word spans (or [`spaced_words`] when a
/// word may contain a space); any other tokenizer's tokens go through the
/// [`Roller`], which reuses the piece hashes of overlapping tokens.
pub(super) fn sketch_tokens<T: Tokenizer + ?Sized, const H: usize>(
    tok: &T,
    text: &str,
    sketch: &mut FastSketch<H>,
) {
    let keys = sketch.keys;
    // `Some(0)`: words; `Some(k)`: word k-shingles.
    let fused = if tok.builtin() == Builtin::Words {
        Some(0)
    } else if let StreamPlan::Shingle { k, inner } = tok.stream_plan()
        && k >= 1
        && inner.builtin() == Builtin::Words
    {
        Some(k)
    } else {
        None
    };
    // A token is hashed as its space-separated pieces ([`token_hash`]) and
    // the fused loops take each word as one piece, which holds unless a
    // word contains U+0020. UAX #29 allows that when spaces come right
    // before a combining mark (`" \u{93E}"` is one word); the word scan
    // reports it, and such a text is hashed again by the definition.
    if let Some(k) = fused {
        if word_hashes(text, keys.word, &mut sketch.elems) {
            sketch.elems.clear();
            spaced_words(text, k, &keys, &mut sketch.elems);
            return sketch.bin_all();
        }
        if k > 0 {
            return shingles_in_place(k, &mut sketch.elems, keys.finish, &mut sketch.bins);
        }
        for x in &mut sketch.elems {
            *x = finish(*x, keys.finish);
            place(&mut sketch.bins, *x);
        }
        return;
    }
    // Consecutive shingles share all pieces but one: the roller hashes
    // only the new one (and equals `token_hash` on any token sequence).
    let mut roller = Roller::default();
    let elems = &mut sketch.elems;
    crate::tokenize::fused::for_each_token(tok, text, |t| elems.push(roller.hash(t, &keys)));
    sketch.bin_all();
}

/// Appends the word hash of every UAX #29 word of `text`, in order, and
/// returns whether some word contains U+0020 (then the hashes are not the
/// definition's). The loop body is kept to a hash and a push: the shingle
/// and bin work runs afterwards in its own tight loop.
#[inline(always)]
fn word_hashes(text: &str, key: u64, out: &mut Vec<u64>) -> bool {
    let b = text.as_bytes();
    // The words are spans of `text`: the hash reads whole 8-byte words
    // past the end of a short word.
    crate::tokenize::for_each_word_span_spaced(text, move |s, e| {
        out.push(word_hash_at(b, s, &b[s..e], key))
    })
}

/// The element hashes of the words (`k == 0`) or word k-shingles of a text
/// in which a word may contain U+0020, by the definition: a word of `m`
/// space-separated pieces is the `m`-piece polynomial `W` of their hashes,
/// and a shingle's polynomial over all its pieces is, word by word,
/// `acc·Bᵐ + W`. Each shingle is summed afresh (k steps), which is fine for
/// the few documents that come here.
fn spaced_words(text: &str, k: usize, keys: &Keys, out: &mut Vec<u64>) {
    let mut words: Vec<(u64, u64)> = Vec::new();
    crate::tokenize::fused::for_each_token_bytes(&WordTokenizer, text, |w| {
        let (mut acc, mut pow) = (0u64, 1u64);
        for piece in w.split(|&c| c == b' ') {
            acc = acc
                .wrapping_mul(BASE)
                .wrapping_add(word_hash(piece, keys.word));
            pow = pow.wrapping_mul(BASE);
        }
        words.push((acc, pow));
    });
    let shingle = |ws: &[(u64, u64)]| {
        let acc = ws
            .iter()
            .fold(0u64, |a, &(w, pow)| a.wrapping_mul(pow).wrapping_add(w));
        finish(acc, keys.finish)
    };
    if k == 0 {
        out.extend(words.iter().map(|&w| shingle(&[w])));
    } else if words.len() <= k {
        if !words.is_empty() {
            out.push(shingle(&words));
        }
    } else {
        out.extend(words.windows(k).map(shingle));
    }
}

/// Turns the word hashes in `v` into the hashes of their k-shingles, in
/// place: the polynomial of the last k word hashes rolls forward per word
/// (drop the oldest term, shift, add the newest), and the shingle ending at
/// word `j` overwrites word `j − k + 1`, whose hash is not needed again.
/// Fewer than k words make one shingle of all of them, as
/// [`ShingleTokenizer`](crate::ShingleTokenizer) yields it. Each shingle
/// hash also goes through round 0 ([`place`]) while it is in a register.
fn shingles_in_place<const H: usize>(k: usize, v: &mut Vec<u64>, key: u64, bins: &mut [u64; H]) {
    let n = v.len();
    if n == 0 {
        return;
    }
    let first = k.min(n);
    let mut acc = 0u64;
    for &w in &v[..first] {
        acc = acc.wrapping_mul(BASE).wrapping_add(w);
    }
    if n <= k {
        v[0] = finish(acc, key);
        place(bins, v[0]);
        v.truncate(1);
        return;
    }
    let top = base_pow(k - 1);
    let mut out = 0;
    for j in k..n {
        let (old, new) = (v[j - k], v[j]);
        let x = finish(acc, key);
        v[out] = x;
        place(bins, x);
        acc = acc
            .wrapping_sub(old.wrapping_mul(top))
            .wrapping_mul(BASE)
            .wrapping_add(new);
        out += 1;
    }
    v[out] = finish(acc, key);
    place(bins, v[out]);
    v.truncate(out + 1);
}
