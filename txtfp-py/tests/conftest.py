"""Shared helpers: the crate's golden fixtures and the command-line tool."""

import json
import os
import pathlib
import shutil
import struct

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
GOLDEN_FILES = ["golden-small.compact.jsonl", "golden-edge.compact.jsonl"]


def fnv(data: bytes) -> str:
    """FNV-1a 64 as the Rust golden tests print it."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def minhash_bytes(slots, schema: int = 1) -> bytes:
    """The persisted signature: schema u16, six zero bytes, slots, little-endian."""
    return struct.pack("<H6x", schema) + struct.pack(f"<{len(slots)}Q", *map(int, slots))


@pytest.fixture(scope="session")
def golden():
    records = []
    for name in GOLDEN_FILES:
        with open(DATA / name, encoding="utf-8") as f:
            records.extend(json.loads(line) for line in f)
    assert len(records) == 480, "the committed golden fixtures changed size"
    return records


@pytest.fixture(scope="session")
def cli():
    """Path of the `txtfp` binary, for comparisons with the Rust pipeline."""
    explicit = os.environ.get("TXTFP_CLI")
    candidates = [explicit] if explicit else []
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    candidates += [str(target / p / "txtfp") for p in ("release", "debug")]
    candidates.append(shutil.which("txtfp"))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    if os.environ.get("TXTFP_REQUIRE_CLI") == "1":
        pytest.fail("TXTFP_REQUIRE_CLI=1 but no txtfp binary was found (build txtfp-cli)")
    pytest.skip("SKIPPED LOUDLY: no txtfp binary (cargo build -p txtfp-cli, or set TXTFP_CLI)")
