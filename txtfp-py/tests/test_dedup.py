"""txtfp.MinHashDedup: the Rust engine's run from Python, and the pieces of
its definition that the Spark path computes on executors."""

import json
import subprocess

import numpy as np
import pytest

import txtfp
from conftest import DATA


def docs():
    with open(DATA / "golden-small.compact.jsonl", encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f][:80]
    return texts + [texts[5] + " appended words here", texts[5], texts[9].upper(), ""]


def test_run_matches_the_command_line_tool(cli, tmp_path):
    texts = docs()
    ids = [1000 + 3 * i for i in range(len(texts))]
    src = tmp_path / "d.jsonl"
    src.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip(ids, texts)))
    subprocess.run([cli, "dedup", str(src), "-o", str(tmp_path / "o")], check=True, capture_output=True)
    want = sorted((c["kept"], sorted(c["members"]))
                  for c in map(json.loads, (tmp_path / "o" / "clusters.jsonl").read_text().splitlines()))
    report = txtfp.MinHashDedup().run(texts, ids=ids)
    assert sorted((k, sorted(m)) for k, m in report.clusters) == want
    assert len(want) == 2
    assert report.stats["documents"] == len(texts) and report.stats["empty"] == 1
    kept = set(map(int, report.kept_ids()))
    assert kept == set(ids) - set(map(int, report.dropped_ids()))
    i = ids.index(ids[81])
    assert report.duplicate_of[i] == ids[5] and report.similarity[i] == 1.0 and not report.keep[i]
    assert report.cluster[5] == report.cluster[i] >= 0 and report.empty[-1]
    assert "DedupReport(documents=84" in repr(report)


def test_settings_and_errors():
    d = txtfp.MinHashDedup(0.8)
    assert d.banding == (32, 4) and d.num_perm == 128
    assert txtfp.MinHashDedup(1.0).banding == (1, 128)
    with pytest.raises(txtfp.TxtfpError, match="threshold"):
        txtfp.MinHashDedup(0.0)
    for bad in [dict(verification="fuzzy"), dict(empty="skip"), dict(num_perm=100), dict(k=0)]:
        with pytest.raises(ValueError):
            txtfp.MinHashDedup(**bad)
    with pytest.raises(txtfp.TxtfpError, match="occurs more than once"):
        txtfp.MinHashDedup().run(["a b", "c d"], ids=[4, 4])
    with pytest.raises(ValueError, match="2 ids for 3 texts"):
        txtfp.MinHashDedup().run(["a", "b", "c"], ids=[1, 2])
    with pytest.raises(txtfp.TxtfpError, match=r"texts\[1\]"):
        txtfp.MinHashDedup().run(["a b c", None])
    with pytest.raises(txtfp.TxtfpError, match="empty document"):
        txtfp.MinHashDedup(empty="error").run(["a b c", ""])


@pytest.mark.parametrize("fast", [False, True])
def test_parts_are_the_runs_pieces(fast):
    texts = docs()
    d = txtfp.MinHashDedup(fast=fast)
    p = d.parts(texts)
    n = len(texts)
    bands, rows = d.banding
    assert p["signature"].shape == (n, 128) and p["band_keys"].shape == (n, bands)
    assert p["content_key"].shape == (n, 2) and p["has_tokens"].tolist() == [True] * (n - 1) + [False]
    fp = txtfp.MinHashFingerprinter(fast=fast)
    assert (p["signature"][:-1] == fp.fingerprint_batch(texts[:-1])).all()
    assert d.config_hash == fp.config_hash
    # Exact copies share the content key; everything else differs.
    assert (p["content_key"][5] == p["content_key"][81]).all()
    assert not (p["content_key"][5] == p["content_key"][80]).all()
    assert (p["band_keys"][5] == p["band_keys"][81]).all()
    # Bands of equal slots have equal keys, of different slots different ones.
    same = (p["signature"][5].reshape(bands, rows) == p["signature"][80].reshape(bands, rows)).all(axis=1)
    assert ((p["band_keys"][5] == p["band_keys"][80]) == same).all() and same.any() and not same.all()
    with pytest.raises(txtfp.TxtfpError, match=r"texts\[1\]"):
        d.parts(["a b c", None])


def test_exact_jaccard_is_the_token_set_jaccard():
    d = txtfp.MinHashDedup(k=1)
    a = ["one two three four", "alpha beta", "x", ""]
    b = ["two three four five", "alpha beta", "y", ""]
    got = d.exact_jaccard(a, b)
    assert got.dtype == np.float32
    assert got.tolist() == [0.6000000238418579, 1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="2 texts against 1"):
        d.exact_jaccard(a[:2], b[:1])
