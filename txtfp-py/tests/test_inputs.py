"""Inputs from Python: every accepted form gives the same rows, and bad
input gets a clear exception (or a documented fill), never a crash."""

import json
import threading
import time

import numpy as np
import pyarrow as pa
import pytest

import txtfp
from conftest import DATA

TEXTS = [
    "the quick brown fox jumps over the lazy dog near the river bank",
    "Straße ＡＢＣ ﬁle — the quick brown fox jumps over the lazy dog",
    "日本語のテキストも同じように処理されます。the fox again",
    "a b c d e f g h i j k l m n o p",
]
MAX = np.iinfo(np.uint64).max


@pytest.fixture(scope="module")
def fp():
    return txtfp.MinHashFingerprinter(k=3, num_perm=64)


def test_every_input_form_gives_the_same_rows(fp):
    want = np.stack([fp.fingerprint(t) for t in TEXTS])
    forms = [
        TEXTS,
        tuple(TEXTS),
        (t for t in TEXTS),
        [t.encode() for t in TEXTS],
        pa.array(TEXTS),
        pa.array(TEXTS, type=pa.large_string()),
        pa.array(TEXTS, type=pa.string_view()),
        pa.array([t.encode() for t in TEXTS], type=pa.binary()),
        pa.array([t.encode() for t in TEXTS], type=pa.large_binary()),
        pa.chunked_array([TEXTS[:1], TEXTS[1:3], [], TEXTS[3:]]),
        pa.array(TEXTS * 3).slice(4, 4),
        np.array(TEXTS, dtype=object),
    ]
    for form in forms:
        got = fp.fingerprint_batch(form)
        assert got.shape == want.shape, type(form)
        assert (got == want).all(), type(form)
    assert fp.fingerprint(TEXTS[1].encode()).tolist() == want[1].tolist()


def test_empty_batch(fp):
    assert fp.fingerprint_batch([]).shape == (0, 64)
    assert fp.fingerprint_batch(pa.array([], type=pa.string())).shape == (0, 64)
    assert txtfp.SimHashFingerprinter().fingerprint_batch([]).shape == (0,)
    assert txtfp.TlshFingerprinter().fingerprint_batch([]) == []


def test_none_and_nulls_raise_or_fill(fp):
    texts = [TEXTS[0], None, TEXTS[1], None]
    with pytest.raises(txtfp.TxtfpError, match=r"texts\[1\]: .*None.*\(1 more documents failed\)"):
        fp.fingerprint_batch(texts)
    rows = fp.fingerprint_batch(texts, errors="empty")
    assert (rows[1] == MAX).all() and (rows[3] == MAX).all()
    assert (rows[2] == fp.fingerprint(TEXTS[1])).all()
    arrow = fp.fingerprint_batch(pa.array(texts), errors="empty")
    assert (arrow == rows).all()
    with pytest.raises(txtfp.TxtfpError, match=r"texts\[1\]"):
        fp.fingerprint_batch(pa.array(texts))


def test_invalid_utf8_is_reported_by_index(fp):
    bad = [TEXTS[0].encode(), b"\xff\xfe not utf-8", TEXTS[1].encode()]
    with pytest.raises(txtfp.TxtfpError, match=r"texts\[1\]: the value is not valid UTF-8"):
        fp.fingerprint_batch(pa.array(bad, type=pa.binary()))
    with pytest.raises(txtfp.TxtfpError, match=r"texts\[1\]"):
        fp.fingerprint_batch(bad)
    rows = fp.fingerprint_batch(pa.array(bad, type=pa.binary()), errors="empty")
    assert (rows[1] == MAX).all() and not (rows[0] == MAX).any()
    # A str with a lone surrogate has no UTF-8 form.
    with pytest.raises(txtfp.TxtfpError, match=r"texts\[0\]"):
        fp.fingerprint_batch(["abc \udc80 def ghi"])
    with pytest.raises(txtfp.TxtfpError, match="surrogate"):
        fp.fingerprint("abc \udc80 def ghi")
    with pytest.raises(txtfp.TxtfpError, match="UTF-8"):
        fp.fingerprint(b"\xff")


def test_wrong_types_are_type_errors(fp):
    with pytest.raises(TypeError, match=r"texts\[1\] is int"):
        fp.fingerprint_batch(["ok text here", 5])
    with pytest.raises(TypeError, match="not a single str"):
        fp.fingerprint_batch("a single string")
    with pytest.raises(TypeError, match="iterable"):
        fp.fingerprint_batch(42)
    with pytest.raises(TypeError, match="Int64"):
        fp.fingerprint_batch(pa.array([1, 2, 3]))
    with pytest.raises(TypeError):
        fp.fingerprint(None)
    with pytest.raises(TypeError):
        fp.fingerprint(3.5)


def test_bad_settings_are_value_errors():
    for kwargs in [dict(num_perm=100), dict(k=0), dict(hasher="md5"), dict(fast=True, hasher="murmur3")]:
        with pytest.raises(ValueError):
            txtfp.MinHashFingerprinter(**kwargs)
    with pytest.raises(txtfp.TxtfpError, match="shingle size"):
        txtfp.MinHashFingerprinter(k=10_000)
    for kwargs in [dict(bits=8), dict(weighting="idf"), dict(scheme="doc-v1", bits=128)]:
        with pytest.raises(ValueError):
            txtfp.SimHashFingerprinter(**kwargs)
    with pytest.raises(ValueError, match="normalization"):
        txtfp.Canonicalizer(normalization="nfd")
    fp = txtfp.MinHashFingerprinter()
    with pytest.raises(ValueError, match="errors must be"):
        fp.fingerprint_batch(TEXTS, errors="skip")
    with pytest.raises(ValueError, match="threads"):
        fp.fingerprint_batch(TEXTS, threads=0)
    with pytest.raises(ValueError, match="at most 1024"):
        fp.fingerprint_batch(TEXTS, threads=1_000_000)
    with pytest.raises(txtfp.TxtfpError):
        txtfp.tlsh_distance("T1zz", "T1zz")


def test_threads_do_not_change_results():
    fp = txtfp.MinHashFingerprinter(fast=True)
    texts = [f"{TEXTS[i % 4]} document {i} " * (1 + i % 7) for i in range(3000)]
    one = fp.fingerprint_batch(texts, threads=1)
    assert (fp.fingerprint_batch(texts, threads=2) == one).all()
    assert (fp.fingerprint_batch(texts, threads=3) == one).all()
    assert (fp.fingerprint_batch(texts) == one).all()


def test_many_rounds_keep_order():
    """More than one round of 32 MiB of text: rows stay in input order."""
    fp = txtfp.SimHashFingerprinter()
    base = " ".join(f"w{i}" for i in range(800))
    texts = [f"doc {i} {base}" for i in range(12_000)]  # ~46 MB
    got = fp.fingerprint_batch(texts)
    want = fp.fingerprint_batch(pa.array(texts))
    assert got.shape == (12_000,) and (got == want).all()
    assert int(got[7777]) == fp.fingerprint(texts[7777])


def test_failures_are_named_by_their_index_in_the_whole_input():
    """A failure in a later round is named by its index in the input, not
    in its round."""
    fp = txtfp.SimHashFingerprinter()
    base = " ".join(f"w{i}" for i in range(800))
    texts = [f"doc {i} {base}" for i in range(12_000)]  # ~46 MB: several rounds
    texts[11_000] = None
    texts[11_500] = ""
    with pytest.raises(txtfp.TxtfpError, match=r"^texts\[11000\]: .*\(1 more documents failed\)"):
        fp.fingerprint_batch(texts)
    with pytest.raises(txtfp.TxtfpError, match=r"^texts\[11000\]"):
        fp.fingerprint_batch(pa.chunked_array([texts[:5000], texts[5000:9000], texts[9000:]]))
    rows = fp.fingerprint_batch(texts, errors="empty")
    assert rows[11_000] == 0 and rows[11_500] == 0 and rows[10_999] != 0


def test_batches_release_the_gil():
    fp = txtfp.MinHashFingerprinter()
    texts = [f"{TEXTS[0]} {i} " * 200 for i in range(6000)]
    ticks = []
    done = threading.Event()

    def counter():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=counter)
    t.start()
    time.sleep(0.02)
    start = time.perf_counter()
    fp.fingerprint_batch(texts, threads=1)
    end = time.perf_counter()
    done.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    # Holding the GIL for the whole call would leave no tick inside it.
    assert end - start > 0.05
    assert len(during) >= 5, (end - start, len(during))


def test_one_gigabyte_string():
    text = "lorem ipsum dolor sit amet " * (2**30 // 27)
    fp = txtfp.MinHashFingerprinter(fast=True)
    row = fp.fingerprint(text)
    assert row.shape == (128,) and not (row == MAX).all()
    assert txtfp.SimHashFingerprinter().fingerprint_batch([text, "short text"]).shape == (2,)


def test_canonicalizer_and_doc_v1():
    assert txtfp.canonicalize("Straße\u200b ＡＢＣ ﬁ") == "strasse abc fi"
    nfc = txtfp.Canonicalizer(normalization="nfc")
    assert nfc.canonicalize("ＡＢＣ ﬁ") == "ａｂｃ fi"
    assert nfc.config_string == "nfc-cf-simple-bidi-fmt"
    a = txtfp.MinHashFingerprinter(canonicalizer=nfc).fingerprint("ＡＢＣ ﬁ one two three four five")
    b = txtfp.MinHashFingerprinter().fingerprint("ＡＢＣ ﬁ one two three four five")
    assert not (a == b).all()
    doc_v1 = txtfp.SimHashFingerprinter(scheme="doc-v1")
    checked = 0
    with open(DATA / "simhash-doc-v1.jsonl", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec["stop"] is None and rec.get("simhash"):
                assert f"{doc_v1.fingerprint(rec['text']):016x}" == rec["simhash"], rec["id"]
                checked += 1
    assert checked >= 10


def test_jaccard_and_hamming():
    fp = txtfp.MinHashFingerprinter()
    rows = fp.fingerprint_batch(TEXTS)
    assert txtfp.jaccard(rows[0], rows[0]) == 1.0
    j = txtfp.jaccard(rows[0], rows[1])
    assert j == float((rows[0] == rows[1]).mean())
    pair = txtfp.jaccard(rows, rows[::-1].copy())
    assert pair.shape == (4,) and pair[0] == txtfp.jaccard(rows[0], rows[3])
    with pytest.raises(ValueError):
        txtfp.jaccard(rows[0], rows[0][:10])
    with pytest.raises(TypeError):
        txtfp.jaccard("a", "b")
    assert txtfp.hamming(0b1011, 0b0110) == 3
    assert txtfp.hamming(0, 2**128 - 1) == 128
