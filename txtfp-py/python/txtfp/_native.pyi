"""Type stubs of the native module (re-exported by ``txtfp``)."""

import os
import pathlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Literal, Optional, Union

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

class DedupReport:
    @property
    def ids(self) -> npt.NDArray[np.uint64]: ...
    @property
    def keep(self) -> npt.NDArray[np.bool_]: ...
    @property
    def duplicate_of(self) -> npt.NDArray[np.int64]: ...
    @property
    def similarity(self) -> npt.NDArray[np.float32]: ...
    @property
    def cluster(self) -> npt.NDArray[np.int64]: ...
    @property
    def empty(self) -> npt.NDArray[np.bool_]: ...
    @property
    def clusters(self) -> list[tuple[int, list[int]]]: ...
    @property
    def pairs(self) -> list[tuple[int, int, float]]: ...
    @property
    def stats(self) -> dict[str, int]: ...
    def kept_ids(self) -> npt.NDArray[np.uint64]: ...
    def dropped_ids(self) -> npt.NDArray[np.uint64]: ...
    def __len__(self) -> int: ...

# An out-of-core run's source: JSONL / Parquet shards, folders or glob
# patterns, or a callable returning a fresh iterable of texts or (id, text).
PathLike = Union[str, "os.PathLike[str]"]
Source = Union[
    PathLike,
    list[PathLike],
    tuple[PathLike, ...],
    Callable[[], Iterable[Union[str, tuple[Union[int, str], str]]]],
]
# The ids of a source: a corpus's id field as stored, "FILE:ROW", a
# callable's given ids or the positions.
Id = Union[int, str, object]

class ExternalDecisions(Iterator[dict[str, Any]]):
    """Batches of decisions: dicts of NumPy arrays (see ExternalReport.decisions)."""
    def __iter__(self) -> "ExternalDecisions": ...
    def __next__(self) -> dict[str, Any]: ...

class ExternalReport:
    @property
    def stats(self) -> dict[str, int]: ...
    @property
    def stages(self) -> list[dict[str, Any]]:
        """name, seconds, resumed, peak_rss (bytes or None), work_dir_bytes."""
    @property
    def indexed_duplicates(self) -> int: ...
    @property
    def index_added(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def work_dir(self) -> pathlib.Path: ...
    @property
    def skipped(self) -> int: ...
    @property
    def skipped_records(self) -> list[tuple[str, str]]: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def keep(self) -> npt.NDArray[np.bool_]: ...
    def decisions(self, batch: int = 65536, *, start: int = 0, ids: bool = True) -> ExternalDecisions:
        """position (uint64), keep, empty (bool), duplicate_of, cluster, matched,
        indexed, indexed_matched (int64, -1 for none), similarity,
        indexed_similarity (float32, NaN for none) and ids (list)."""
    def to_arrays(self, *, ids: bool = True) -> dict[str, Any]: ...
    def id(self, position: int) -> Id: ...
    def duplicate_ids(self, examples: int = 5) -> dict[str, Any]: ...
    def __len__(self) -> int: ...

class MinHashDedup:
    def __init__(
        self,
        threshold: float = 0.8,
        *,
        k: int = 5,
        num_perm: Literal[16, 32, 64, 128, 256, 512] = 128,
        fast: bool = False,
        verification: Literal["exact", "estimated", "none"] = "exact",
        empty: Literal["keep", "drop", "error"] = "keep",
        seed: int = ...,
        hasher: Literal["xxh3", "murmur3"] = "xxh3",
        canonicalizer: Optional[Canonicalizer] = None,
        record_pairs: bool = False,
    ) -> None: ...
    def run(self, texts: Texts, ids: Optional[Iterable[int]] = None) -> DedupReport: ...
    def parts(self, texts: Texts, *, threads: Optional[int] = None) -> dict[str, npt.NDArray]: ...
    def exact_jaccard(
        self, a: Texts, b: Texts, *, threads: Optional[int] = None
    ) -> npt.NDArray[np.float32]: ...
    def run_external(
        self,
        source: Source,
        work_dir: PathLike,
        *,
        memory: Optional[int] = None,
        against: Optional[PathLike] = None,
        update_index: bool = False,
        threads: Optional[int] = None,
        text_field: str = "text",
        id_field: Optional[str] = "id",
        strict: bool = False,
        identity: Optional[str] = None,
        progress: Optional[Callable[[str, int, int], object]] = None,
    ) -> ExternalReport: ...
    @property
    def banding(self) -> tuple[int, int]: ...
    @property
    def threshold(self) -> float: ...
    @property
    def num_perm(self) -> int: ...
    @property
    def config_hash(self) -> int: ...

class LshIndex:
    def __init__(
        self,
        threshold: Optional[float] = None,
        num_perm: Literal[16, 32, 64, 128, 256, 512] = 128,
        *,
        bands: Optional[int] = None,
        rows: Optional[int] = None,
        fast: bool = False,
    ) -> None: ...
    @staticmethod
    def load(path: Union[str, "os.PathLike[str]"], num_perm: int = 128, *, fast: bool = False) -> "LshIndex": ...
    def insert(self, id: int, signature: npt.NDArray[np.uint64]) -> None: ...
    def insert_batch(self, ids: Iterable[int], signatures: npt.NDArray[np.uint64]) -> None: ...
    def remove(self, id: int) -> bool: ...
    def query(
        self, signature: npt.NDArray[np.uint64], threshold: Optional[float] = None
    ) -> npt.NDArray[np.uint64]: ...
    def query_batch(
        self, signatures: npt.NDArray[np.uint64], threshold: Optional[float] = None
    ) -> list[npt.NDArray[np.uint64]]: ...
    def save(self, path: Union[str, "os.PathLike[str]"]) -> None: ...
    @property
    def banding(self) -> tuple[int, int]: ...
    @property
    def num_perm(self) -> int: ...
    @property
    def fast(self) -> bool: ...
    @property
    def memory_usage(self) -> int: ...
    def __len__(self) -> int: ...
    def __contains__(self, id: int) -> bool: ...

# One document of GlobalFingerprintStore.ingest_batch: (doc_id, text[,
# source[, language]]) or a mapping with doc_id (or id), text, source,
# language.
StoreDocument = Union[
    tuple[Union[str, int], Text],
    tuple[Union[str, int], Text, Optional[str]],
    tuple[Union[str, int], Text, Optional[str], Optional[str]],
    Mapping[str, object],
]
StoreAction = Literal["accept", "drop", "mark_duplicate", "replace", "link", "mark_partial"]

class DecisionRecord:
    """The store's decision on one document."""
    @property
    def doc_id(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def action(self) -> StoreAction: ...
    @property
    def reason(self) -> dict[str, Union[str, int, float]]:
        """kind: no_match, sim_hash (distance), min_hash / partial_min_hash
        (jaccard), chunk_overlap (shared, total)."""
    @property
    def matched_doc_id(self) -> Optional[str]: ...
    @property
    def matched_source(self) -> Optional[str]: ...
    @property
    def superseded(self) -> list[str]: ...
    @property
    def linked_docs(self) -> list[str]: ...
    @property
    def duplicate_chunks(self) -> list[int]: ...
    @property
    def decided_at(self) -> int: ...
    @property
    def replayed(self) -> bool: ...
    @property
    def is_kept(self) -> bool: ...
    @property
    def is_duplicate(self) -> bool: ...
    @property
    def is_indexed(self) -> bool: ...
    def to_dict(self) -> dict[str, object]:
        """The JSON object `txtfp store ingest` writes."""

class GlobalFingerprintStore:
    def __init__(
        self,
        root_path: Union[str, "os.PathLike[str]", None] = None,
        *,
        config: Union[str, "os.PathLike[str]", None] = None,
        toml: Optional[str] = None,
        **settings: object,
    ) -> None:
        """An embedded store in root_path (settings: keys of the TOML
        configuration), or the store a TOML file (config=) or text (toml=)
        describes, embedded, Redis or Redis Cluster."""
    def ingest(
        self, doc_id: Union[str, int], text: Text, source: str, *, language: Optional[str] = None
    ) -> DecisionRecord: ...
    def ingest_batch(
        self, docs: Iterable[StoreDocument], *, source: Optional[str] = None
    ) -> list[Union[DecisionRecord, TxtfpError]]:
        """One entry per document: its decision, or the TxtfpError (not
        raised) of a document refused alone."""
    def query(self, text: Text) -> list[dict[str, object]]:
        """doc_id, source, reason, shared_chunks; strongest first."""
    def document(self, doc_id: Union[str, int]) -> Optional[dict[str, object]]:
        """doc_id, source, document_type, language, created_at, status
        ("live", "duplicate", "superseded"), superseded_by, decision."""
    def fingerprints(self, doc_id: Union[str, int]) -> list[dict[str, object]]: ...
    def metrics(self) -> dict[str, object]:
        """The dict of `txtfp store metrics --json`."""
    @property
    def config(self) -> str:
        """The configuration as a [global_fingerprints] TOML document."""
    @property
    def recovered(self) -> list[str]: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def __enter__(self) -> "GlobalFingerprintStore": ...
    def __exit__(self, *exc: object) -> bool: ...
