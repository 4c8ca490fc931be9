"""txtfp.LshIndex: the Rust index over NumPy signatures."""

import json

import numpy as np
import pytest

import txtfp
from conftest import DATA


@pytest.fixture(scope="module")
def sigs():
    with open(DATA / "golden-small.compact.jsonl", encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f][:150]
    texts += [t + " one more sentence at the end" for t in texts[:30]]
    fp = txtfp.MinHashFingerprinter()
    return fp.fingerprint_batch(texts)


def brute(sigs, probe, threshold):
    return [i for i, s in enumerate(sigs) if (s == probe).mean() >= threshold]


@pytest.mark.parametrize("threshold", [0.5, 0.8])
def test_threshold_queries_find_what_the_banding_promises(sigs, threshold):
    idx = txtfp.LshIndex(threshold)
    idx.insert_batch(list(range(len(sigs))), sigs)
    assert len(idx) == len(sigs) and 7 in idx and 10_000 not in idx
    bands, rows = idx.banding
    assert bands * rows == 128
    for i in range(0, len(sigs), 7):
        got = idx.query(sigs[i], threshold).tolist()
        cand = set(idx.query(sigs[i]).tolist())
        # Exactly the candidates at or above the threshold, ascending.
        assert got == sorted(j for j in cand if (sigs[j] == sigs[i]).mean() >= threshold)
        assert i in got
        # Every stored signature sharing a whole band is a candidate.
        for j in range(len(sigs)):
            shares = (sigs[j].reshape(bands, rows) == sigs[i].reshape(bands, rows)).all(axis=1).any()
            assert (j in cand) == shares
    batch = idx.query_batch(sigs[:20], threshold)
    assert [b.tolist() for b in batch] == [idx.query(s, threshold).tolist() for s in sigs[:20]]


def test_save_load_remove(sigs, tmp_path):
    idx = txtfp.LshIndex(bands=16, rows=8)
    for i, s in enumerate(sigs):
        idx.insert(1000 + i, s)
    assert idx.remove(1003) and not idx.remove(1003)
    path = tmp_path / "idx.bin"
    idx.save(path)
    back = txtfp.LshIndex.load(path)
    assert len(back) == len(idx) == len(sigs) - 1 and back.banding == (16, 8)
    for s in sigs[:40]:
        assert back.query(s).tolist() == idx.query(s).tolist()
    with pytest.raises(txtfp.TxtfpError):
        txtfp.LshIndex.load(path, num_perm=64)
    with pytest.raises(txtfp.TxtfpError):
        txtfp.LshIndex.load(path, fast=True)
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    bad = tmp_path / "bad.bin"
    bad.write_bytes(bytes(raw))
    with pytest.raises(txtfp.TxtfpError):
        txtfp.LshIndex.load(bad)
    (tmp_path / "short.bin").write_bytes(bytes(raw[:100]))
    with pytest.raises(txtfp.TxtfpError):
        txtfp.LshIndex.load(tmp_path / "short.bin")
    with pytest.raises(OSError):
        txtfp.LshIndex.load(tmp_path / "missing.bin")


def test_fast_scheme_and_bad_arguments(sigs):
    fast = txtfp.MinHashFingerprinter(fast=True, num_perm=64)
    rows = fast.fingerprint_batch(["alpha beta gamma delta epsilon zeta", "alpha beta gamma delta epsilon eta"])
    idx = txtfp.LshIndex(bands=64, rows=1, num_perm=64, fast=True)
    idx.insert_batch([1, 2], rows)
    # J = 1/3 over 64 one-row bands: they share a band.
    assert idx.query(rows[0]).tolist() == [1, 2] and 1 in idx
    assert idx.query(rows[0], 0.9).tolist() == [1]
    with pytest.raises(ValueError, match="slots"):
        idx.query(sigs[0])
    with pytest.raises(ValueError, match="either threshold"):
        txtfp.LshIndex()
    with pytest.raises(txtfp.TxtfpError, match="must equal H"):
        txtfp.LshIndex(bands=16, rows=4)
    with pytest.raises(ValueError, match="num_perm"):
        txtfp.LshIndex(0.8, num_perm=100)
    with pytest.raises(ValueError, match="2 ids for 3"):
        txtfp.LshIndex(0.8).insert_batch([1, 2], sigs[:3])
    with pytest.raises(txtfp.TxtfpError, match="NaN"):
        txtfp.LshIndex(0.8).query(sigs[0], float("nan"))
