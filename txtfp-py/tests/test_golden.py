"""The Python API gives the Rust crate's values: the frozen golden fixtures
(tests/data, made by txtfp 0.3.2) and the command-line tool's output."""

import json
import subprocess

import numpy as np
import pyarrow as pa
import pytest

import txtfp
from conftest import fnv, minhash_bytes

MINHASH = {
    "minhash_xxh3_k5": dict(k=5, num_perm=128),
    "minhash_murmur_k5": dict(k=5, num_perm=128, hasher="murmur3"),
    "minhash_xxh3_k1_h64": dict(k=1, num_perm=64),
}
SIMHASH = {"simhash_tf": dict(weighting="tf"), "simhash_uniform": dict(weighting="uniform")}


def check_minhash_row(want, row, config_hash):
    assert f"{config_hash:016x}" == want["config_hash"]
    assert int(row[0]) == want["slot0"]
    assert fnv(minhash_bytes(row)) == want["bytes_digest"]


@pytest.mark.parametrize("field", sorted(MINHASH))
def test_minhash_matches_golden_one_by_one(golden, field):
    fp = txtfp.MinHashFingerprinter(**MINHASH[field])
    checked = 0
    for rec in golden:
        want = rec[field]
        if "error" in want:
            with pytest.raises(txtfp.TxtfpError, match="empty document"):
                fp.fingerprint(rec["text"])
            continue
        check_minhash_row(want, fp.fingerprint(rec["text"]), fp.config_hash)
        checked += 1
    assert checked > 400


@pytest.mark.parametrize("field", sorted(MINHASH))
@pytest.mark.parametrize("source", ["list", "arrow", "arrow-chunked", "large_string"])
def test_minhash_batch_matches_golden(golden, field, source):
    fp = txtfp.MinHashFingerprinter(**MINHASH[field])
    texts = [r["text"] for r in golden]
    if source == "arrow":
        texts = pa.array(texts)
    elif source == "arrow-chunked":
        texts = pa.chunked_array([texts[:100], texts[100:101], texts[101:]])
    elif source == "large_string":
        texts = pa.array(texts, type=pa.large_string())
    rows = fp.fingerprint_batch(texts, errors="empty")
    assert rows.shape == (480, fp.num_perm) and rows.dtype == np.uint64
    for rec, row in zip(golden, rows):
        want = rec[field]
        if "error" in want:
            assert (row == np.iinfo(np.uint64).max).all()
        else:
            check_minhash_row(want, row, fp.config_hash)


@pytest.mark.parametrize("field", sorted(SIMHASH))
def test_simhash_matches_golden(golden, field):
    fp = txtfp.SimHashFingerprinter(64, **SIMHASH[field])
    assert f"{fp.config_hash:016x}" == golden[0][field]["config_hash"]
    batch = fp.fingerprint_batch([r["text"] for r in golden], errors="empty", threads=2)
    for rec, value in zip(golden, batch):
        want = rec[field]
        if "error" in want:
            assert value == 0
            with pytest.raises(txtfp.TxtfpError):
                fp.fingerprint(rec["text"])
            continue
        assert f"{int(value):016x}" == want["hex"]
        assert fp.fingerprint(rec["text"]) == int(value)
        assert fnv(int(value).to_bytes(8, "little")) == want["bytes_digest"]


def test_tlsh_matches_golden(golden):
    fp = txtfp.TlshFingerprinter()
    digests = fp.fingerprint_batch([r["text"] for r in golden], errors="empty")
    ok = 0
    for rec, got in zip(golden, digests):
        want = rec["tlsh"]
        if "error" in want:
            assert got is None
            with pytest.raises(txtfp.TxtfpError):
                fp.fingerprint(rec["text"])
        else:
            assert got == want["hex"]
            assert f"{fp.config_hash:016x}" == want["config_hash"]
            ok += 1
    assert ok > 300
    a, b = digests[10], digests[11]
    assert txtfp.tlsh_distance(a, a) == 0 and txtfp.tlsh_distance(a, b) > 0


def cli_signatures(cli, algo, texts, *extra):
    lines = "".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts))
    out = subprocess.run(
        [cli, "fingerprint", "--algo", algo, "--jsonl", *extra],
        input=lines.encode(),
        capture_output=True,
        check=False,
    )
    got = {}
    for line in out.stdout.decode().splitlines():
        rec = json.loads(line)
        if "signature" in rec:
            got[int(rec["id"])] = rec["signature"]
    return got


@pytest.mark.parametrize("fast", [False, True])
def test_minhash_equals_the_command_line_tool(golden, cli, fast):
    texts = [r["text"] for r in golden]
    want = cli_signatures(cli, "minhash-fast" if fast else "minhash", texts)
    assert len(want) > 400
    fp = txtfp.MinHashFingerprinter(5, 128, fast=fast)
    rows = fp.fingerprint_batch(texts, errors="empty")
    schema = 0x4601 if fast else 1
    for i, hexsig in want.items():
        assert minhash_bytes(rows[i], schema).hex() == hexsig, f"document {i}"
    # The documents the tool skipped are exactly the ones Python flags.
    empty = {i for i, row in enumerate(rows) if (row == np.iinfo(np.uint64).max).all()}
    assert empty == set(range(len(texts))) - set(want)


def test_simhash_widths_are_consistent(golden):
    texts = [r["text"] for r in golden[:60] if r["words_count"] > 0]
    s64 = txtfp.SimHashFingerprinter(64).fingerprint_batch(texts)
    s128 = txtfp.SimHashFingerprinter(128).fingerprint_batch(texts)
    s32 = txtfp.SimHashFingerprinter(32).fingerprint_batch(texts)
    s16 = txtfp.SimHashFingerprinter(16).fingerprint_batch(texts)
    assert s128.shape == (len(texts), 2) and s32.dtype == np.uint32 and s16.dtype == np.uint16
    assert (s128[:, 0] == s64).all()
    assert (s32 == (s64 & 0xFFFFFFFF)).all() and (s16 == (s64 & 0xFFFF)).all()
    one = txtfp.SimHashFingerprinter(128).fingerprint(texts[0])
    assert one == int(s128[0, 0]) | int(s128[0, 1]) << 64
