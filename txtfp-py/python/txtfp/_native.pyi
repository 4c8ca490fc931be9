"""Type stubs of the native module (re-exported by ``txtfp``)."""

from collections.abc import Iterable, Mapping
from typing import Literal, Optional, Union

import numpy as np
import numpy.typing as npt

__version__: str
DEFAULT_SEED: int
NUM_PERMS: list[int]

# A batch's texts: str (or UTF-8 bytes, or None) from any iterable, or any
# object of the Arrow PyCapsule interface holding string / binary values
# (pyarrow Array or ChunkedArray, polars Series, ...).
Texts = Union[Iterable[Union[str, bytes, None]], object]
Text = Union[str, bytes]
Errors = Literal["raise", "empty"]

class TxtfpError(ValueError):
    """An input or a configuration txtfp cannot fingerprint."""

class Canonicalizer:
    def __init__(
        self,
        *,
        normalization: Literal["nfkc", "nfc", "none"] = "nfkc",
        case_fold: bool = True,
        strip_bidi: bool = True,
        strip_format: bool = True,
        apply_confusable: bool = False,
    ) -> None: ...
    def canonicalize(self, text: Text) -> str: ...
    @property
    def config_string(self) -> str: ...

def canonicalize(text: Text) -> str: ...

class MinHashFingerprinter:
    def __init__(
        self,
        k: int = 5,
        num_perm: Literal[16, 32, 64, 128, 256, 512] = 128,
        *,
        fast: bool = False,
        seed: int = ...,
        hasher: Literal["xxh3", "murmur3"] = "xxh3",
        canonicalizer: Optional[Canonicalizer] = None,
    ) -> None: ...
    def fingerprint(self, text: Text) -> npt.NDArray[np.uint64]: ...
    def fingerprint_batch(
        self, texts: Texts, *, errors: Errors = "raise", threads: Optional[int] = None
    ) -> npt.NDArray[np.uint64]: ...
    @property
    def k(self) -> int: ...
    @property
    def num_perm(self) -> int: ...
    @property
    def fast(self) -> bool: ...
    @property
    def seed(self) -> int: ...
    @property
    def hasher(self) -> str: ...
    @property
    def config_hash(self) -> int: ...

class SimHashFingerprinter:
    def __init__(
        self,
        bits: Literal[16, 32, 64, 128] = 64,
        *,
        weighting: Literal["tf", "uniform"] = "tf",
        idf: Optional[Mapping[str, float]] = None,
        seed: int = ...,
        hasher: Literal["xxh3", "murmur3"] = "xxh3",
        scheme: Literal["default", "doc-v1"] = "default",
        canonicalizer: Optional[Canonicalizer] = None,
    ) -> None: ...
    def fingerprint(self, text: Text) -> int: ...
    def fingerprint_batch(
        self, texts: Texts, *, errors: Errors = "raise", threads: Optional[int] = None
    ) -> npt.NDArray[Union[np.uint16, np.uint32, np.uint64]]: ...
    @property
    def bits(self) -> int: ...
    @property
    def config_hash(self) -> int: ...

class TlshFingerprinter:
    def __init__(self, *, canonicalizer: Optional[Canonicalizer] = None) -> None: ...
    def fingerprint(self, text: Text) -> str: ...
    def fingerprint_batch(
        self, texts: Texts, *, errors: Errors = "raise", threads: Optional[int] = None
    ) -> list[Optional[str]]: ...
    @property
    def config_hash(self) -> int: ...

def tlsh_distance(a: str, b: str) -> int: ...
def jaccard(
    a: npt.NDArray[np.uint64], b: npt.NDArray[np.uint64]
) -> Union[float, npt.NDArray[np.float64]]:
    """A float for two signatures (1-D), an array for two stacks (2-D)."""
def hamming(a: int, b: int) -> int: ...
