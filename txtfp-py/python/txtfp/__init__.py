"""txtfp: text fingerprinting and near-duplicate detection at native speed.

MinHash, SimHash and TLSH over canonicalized Unicode text, computed by the
Rust crate ``txtfp``: the same values, slot for slot, as the Rust API. Batch
calls take a list of ``str`` or an Arrow string array (read in place),
release the GIL and use every core; signatures come back as NumPy arrays.

>>> import txtfp
>>> fp = txtfp.MinHashFingerprinter(k=5, num_perm=128)
>>> a = fp.fingerprint("the quick brown fox jumps over the lazy dog at noon today")
>>> b = fp.fingerprint("the quick brown fox jumps over the lazy dog at dusk today")
>>> a.shape, a.dtype.name
((128,), 'uint64')
>>> 0.2 < txtfp.jaccard(a, b) < 0.8
True
"""

from ._native import (
    DEFAULT_SEED,
    NUM_PERMS,
    Canonicalizer,
    DecisionRecord,
    DedupReport,
    ExternalDecisions,
    ExternalReport,
    GlobalFingerprintStore,
    LshIndex,
    MinHashDedup,
    MinHashFingerprinter,
    SimHashFingerprinter,
    TlshFingerprinter,
    TxtfpError,
    __version__,
    canonicalize,
    hamming,
    jaccard,
    tlsh_distance,
)

__all__ = [
    "DEFAULT_SEED",
    "NUM_PERMS",
    "Canonicalizer",
    "DecisionRecord",
    "DedupReport",
    "ExternalDecisions",
    "ExternalReport",
    "GlobalFingerprintStore",
    "LshIndex",
    "MinHashDedup",
    "MinHashFingerprinter",
    "SimHashFingerprinter",
    "TlshFingerprinter",
    "TxtfpError",
    "__version__",
    "canonicalize",
    "hamming",
    "jaccard",
    "tlsh_distance",
]
