"""txtfp.MinHashDedup.run_external: the library's out-of-core run from
Python, compared with the in-memory run and with `txtfp dedup` out of core."""

import json
import os
import pathlib
import subprocess
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import txtfp
from conftest import DATA

# The library's smallest budget: the corpus below then spills many runs.
MEMORY = 64 << 10


def golden_texts():
    texts = []
    for name in ["golden-small.compact.jsonl", "golden-edge.compact.jsonl"]:
        with open(DATA / name, encoding="utf-8") as f:
            texts += [json.loads(line)["text"] for line in f]
    return texts


def corpus():
    """Golden texts plus near-duplicates, exact copies and empty documents."""
    base = golden_texts()
    near = [base[i] + " with a few more words appended at the very end" for i in range(0, len(base), 9)]
    copies = [base[i] for i in range(3, len(base), 31)]
    upper = [base[i].upper() for i in range(5, len(base), 37)]
    return base + near + copies + upper + ["", "   "]


TEXTS = corpus()
IDS = [1000 + 7 * i for i in range(len(TEXTS))]


def write_jsonl(path, ids, texts):
    with open(path, "w", encoding="utf-8") as f:
        for i, t in zip(ids, texts):
            f.write(json.dumps({"id": i, "text": t}) + "\n")
    return path


@pytest.fixture(scope="module")
def jsonl(tmp_path_factory):
    return write_jsonl(tmp_path_factory.mktemp("corpus") / "docs.jsonl", IDS, TEXTS)


@pytest.fixture(scope="module")
def in_memory():
    return txtfp.MinHashDedup().run(TEXTS, ids=IDS)


def clusters_of(arrays, ids):
    """{kept id: member ids} from the decision arrays (the kept document is
    a cluster's first)."""
    out = {}
    for pos, c in enumerate(arrays["cluster"]):
        if c >= 0:
            out.setdefault(int(c), []).append(ids[pos])
    return {m[0]: m for m in out.values()}


def same_decisions(a, b, ids=True):
    for k in ["position", "keep", "duplicate_of", "cluster", "matched", "empty", "indexed"]:
        assert (a[k] == b[k]).all(), k
    assert np.array_equal(a["similarity"], b["similarity"], equal_nan=True)
    if ids:
        assert a["ids"] == b["ids"]


def test_matches_the_in_memory_run_and_the_command_line_tool(cli, jsonl, in_memory, tmp_path):
    work = tmp_path / "work"
    report = txtfp.MinHashDedup().run_external(str(jsonl), work, memory=MEMORY)
    a = report.to_arrays()
    n = len(TEXTS)
    assert len(report) == n and a["position"].tolist() == list(range(n)) and a["ids"] == IDS
    # The in-memory run: kept set, duplicate_of, clusters, counts.
    assert (a["keep"] == in_memory.keep).all() and (report.keep == in_memory.keep).all()
    dup = [IDS[d] if d >= 0 else -1 for d in a["duplicate_of"]]
    assert dup == in_memory.duplicate_of.tolist()
    assert (a["empty"] == in_memory.empty).all() and a["empty"].sum() == in_memory.stats["empty"] >= 2
    want = {k: sorted(m) for k, m in in_memory.clusters}
    assert clusters_of(a, IDS) == want and len(want) > 50
    # Clusters are numbered alike: from 0, in order of their first member.
    assert (a["cluster"] == in_memory.cluster).all()
    for key in ["documents", "kept", "dropped", "empty", "clusters"]:
        assert report.stats[key] == in_memory.stats[key], key
    # A dropped document's best link passes the threshold; kept ones have none.
    dropped = ~a["keep"]
    assert (a["similarity"][dropped] >= 0.8).all() and (a["matched"][dropped] >= 0).all()
    assert np.isnan(a["similarity"][a["cluster"] < 0]).all()
    assert (a["indexed"] == -1).all() and report.indexed_duplicates == 0
    # The budget made the sketch spill several runs per band.
    assert len(list((work / "sketch").glob("band-000*"))) >= 2
    assert [s["name"] for s in report.stages] == ["sketch", "pairs", "verify", "cluster"]
    assert not any(s["resumed"] for s in report.stages)
    assert all(s["work_dir_bytes"] > 0 and s["seconds"] >= 0 for s in report.stages)
    assert report.bytes > 0 and report.skipped == 0 and report.warnings == []
    assert report.id(5) == IDS[5] and report.duplicate_ids() == {"count": 0, "examples": []}

    out = tmp_path / "cli"
    subprocess.run([cli, "dedup", str(jsonl), "--memory", str(MEMORY), "-o", str(out), "-q"],
                   check=True, capture_output=True)
    cli_clusters = {c["kept"]: sorted(c["members"])
                    for c in map(json.loads, (out / "clusters.jsonl").read_text().splitlines())}
    assert clusters_of(a, IDS) == cli_clusters
    kept = [json.loads(line)["id"] for f in sorted((out / "kept").rglob("*.jsonl"))
            for line in f.read_text().splitlines()]
    assert kept == [i for i, k in zip(IDS, a["keep"]) if k]
    cli_dups = {d["id"]: d["duplicate_of"]
                for d in map(json.loads, (out / "duplicates.jsonl").read_text().splitlines())}
    assert cli_dups == {IDS[p]: IDS[d] for p, d in enumerate(a["duplicate_of"]) if d >= 0}


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_a_callable_source_equals_the_jsonl_one(jsonl, tmp_path, threads):
    want = txtfp.MinHashDedup().run_external(jsonl, tmp_path / "j", memory=MEMORY).to_arrays()
    pairs = txtfp.MinHashDedup().run_external(
        lambda: zip(IDS, TEXTS), tmp_path / "p", memory=MEMORY, threads=threads, identity="docs v1")
    same_decisions(pairs.to_arrays(), want)
    # Plain texts: the ids are the positions.
    plain = txtfp.MinHashDedup().run_external(
        lambda: iter(TEXTS), tmp_path / "t", memory=MEMORY, threads=threads)
    got = plain.to_arrays()
    same_decisions(got, want, ids=False)
    assert got["ids"] == list(range(len(TEXTS)))
    # str ids, with characters JSON escapes, come back as given.
    names = [f'doc "{i}"\\\n' for i in range(len(TEXTS))]
    named = txtfp.MinHashDedup().run_external(lambda: zip(names, TEXTS), tmp_path / "n", memory=MEMORY)
    assert named.to_arrays()["ids"] == names and named.id(3) == names[3]


def test_parquet_shards_equal_the_jsonl_file(jsonl, tmp_path):
    want = txtfp.MinHashDedup().run_external(jsonl, tmp_path / "j", memory=MEMORY).to_arrays()
    shards = tmp_path / "shards"
    shards.mkdir()
    half = len(TEXTS) // 2
    for name, lo, hi in [("part-0.parquet", 0, half), ("part-1.parquet", half, len(TEXTS))]:
        table = pa.table({"doc": pa.array(IDS[lo:hi], pa.int64()), "body": TEXTS[lo:hi]})
        pq.write_table(table, shards / name, row_group_size=100)
    dedup = txtfp.MinHashDedup()
    for source in [shards, str(shards / "*.parquet"), [shards / "part-0.parquet", shards / "part-1.parquet"]]:
        work = tmp_path / f"w{abs(hash(str(source)))}"
        report = dedup.run_external(source, work, memory=MEMORY, text_field="body", id_field="doc")
        same_decisions(report.to_arrays(), want)
    # Without an id field, a record's id is "FILE:ROW".
    report = dedup.run_external(shards, tmp_path / "noid", memory=MEMORY, text_field="body", id_field=None)
    assert report.id(0).endswith("part-0.parquet:0") and report.id(half).endswith("part-1.parquet:0")


def test_against_an_index_matches_the_command_line_tool(cli, tmp_path):
    n = 300
    a_ids, a_texts = IDS[:n], TEXTS[:n]
    # B: the rest, exact copies and near-duplicates of A's documents, and A's
    # duplicates among the rest.
    b_texts = TEXTS[n:] + [TEXTS[i] for i in range(0, n, 23)] + [TEXTS[i] + " one more" for i in range(1, n, 29)]
    b_ids = [5_000_000 + i for i in range(len(b_texts))]
    fa = write_jsonl(tmp_path / "a.jsonl", a_ids, a_texts)
    fb = write_jsonl(tmp_path / "b.jsonl", b_ids, b_texts)
    dedup = txtfp.MinHashDedup()
    index = tmp_path / "index"
    ra = dedup.run_external(fa, tmp_path / "wa", memory=MEMORY, against=index, update_index=True)
    assert ra.index_added > 0 and ra.indexed_duplicates == 0 and [s["name"] for s in ra.stages][-1] == "index"
    rb = dedup.run_external(fb, tmp_path / "wb", memory=MEMORY, against=index)
    b = rb.to_arrays()
    assert rb.index_added == 0 and rb.indexed_duplicates == int((b["indexed"] >= 0).sum()) > 10
    assert not b["keep"][b["indexed"] >= 0].any()
    # Deduplicating A then B together keeps the same B documents.
    both = dedup.run(a_texts + b_texts, ids=a_ids + b_ids)
    assert [i for i, k in zip(b_ids, b["keep"]) if k] == [i for i, k in zip(a_ids + b_ids, both.keep) if k and i in set(b_ids)]

    cindex = tmp_path / "cindex"
    for f, out, extra in [(fa, "oa", ["--update-index"]), (fb, "ob", [])]:
        subprocess.run([cli, "dedup", str(f), "--memory", str(MEMORY), "--against", str(cindex),
                        *extra, "-o", str(tmp_path / out), "-q"], check=True, capture_output=True)
    kept = [json.loads(line)["id"] for f in sorted((tmp_path / "ob" / "kept").rglob("*.jsonl"))
            for line in f.read_text().splitlines()]
    assert kept == [i for i, k in zip(b_ids, b["keep"]) if k]
    dups = [json.loads(line) for line in (tmp_path / "ob" / "duplicates.jsonl").read_text().splitlines()]
    indexed = {d["id"]: d["duplicate_of"] for d in dups if d.get("indexed")}
    assert indexed == {b_ids[p]: a_ids[x] for p, x in enumerate(b["indexed"]) if x >= 0}


def test_a_run_resumes_after_its_finished_stages(jsonl, tmp_path):
    dedup = txtfp.MinHashDedup()
    first = dedup.run_external(jsonl, tmp_path / "w", memory=MEMORY)
    again = dedup.run_external(jsonl, tmp_path / "w", memory=MEMORY)
    assert [s["resumed"] for s in first.stages] == [False] * 4
    assert [s["resumed"] for s in again.stages] == [True] * 4
    same_decisions(again.to_arrays(), first.to_arrays())

    # A callable whose second pass fails: the run stops in the verify stage
    # with the iterator's own exception; the next call resumes there.
    class Broken(Exception):
        pass

    calls = []

    def flaky():
        calls.append(1)
        if len(calls) == 2:
            def gen():
                yield from TEXTS[:100]
                raise Broken("disk went away")
            return gen()
        return iter(TEXTS)

    with pytest.raises(Broken, match="disk went away"):
        dedup.run_external(flaky, tmp_path / "c", memory=MEMORY, identity="texts")
    resumed = dedup.run_external(flaky, tmp_path / "c", memory=MEMORY, identity="texts")
    assert [(s["name"], s["resumed"]) for s in resumed.stages] == [
        ("sketch", True), ("pairs", True), ("verify", False), ("cluster", False)]
    same_decisions(resumed.to_arrays(), first.to_arrays(), ids=False)

    # An exception of the progress callback (here KeyboardInterrupt, as
    # Ctrl-C would raise) stops the run at its next batch: the second pass
    # starts late, so the pairs stage has been reported by then.
    seen, passes = [], []

    def slow():
        passes.append(1)
        if len(passes) == 2:
            time.sleep(1.0)
        return iter(TEXTS)

    def progress(stage, done, total):
        seen.append((stage, done, total))
        if stage == "pairs":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        dedup.run_external(slow, tmp_path / "p", memory=MEMORY, identity="slow", progress=progress)
    assert {s for s, _, _ in seen} == {"sketch", "pairs"} and seen[-1][1] <= seen[-1][2]
    resumed = dedup.run_external(slow, tmp_path / "p", memory=MEMORY, identity="slow")
    assert [s["resumed"] for s in resumed.stages] == [True, True, False, False]
    same_decisions(resumed.to_arrays(), first.to_arrays(), ids=False)


def test_decisions_stream_in_batches(jsonl, tmp_path):
    report = txtfp.MinHashDedup().run_external(jsonl, tmp_path / "w", memory=MEMORY)
    everything = report.to_arrays()
    batches = list(report.decisions(batch=50))
    assert [len(b["position"]) for b in batches] == [50] * (len(TEXTS) // 50) + [len(TEXTS) % 50]
    for key, col in everything.items():
        joined = sum((b[key] for b in batches), []) if key == "ids" else np.concatenate([b[key] for b in batches])
        assert np.array_equal(joined, col, equal_nan=col.dtype.kind == "f") if key != "ids" else joined == col
    assert everything["keep"].dtype == np.bool_ and everything["duplicate_of"].dtype == np.int64
    assert everything["similarity"].dtype == np.float32 and everything["position"].dtype == np.uint64
    tail = list(report.decisions(batch=1000, start=len(TEXTS) - 7, ids=False))
    assert len(tail) == 1 and "ids" not in tail[0]
    assert tail[0]["position"].tolist() == list(range(len(TEXTS) - 7, len(TEXTS)))
    assert (tail[0]["keep"] == everything["keep"][-7:]).all()


def test_errors(jsonl, tmp_path):
    dedup = txtfp.MinHashDedup()
    with pytest.raises(FileNotFoundError):
        dedup.run_external(tmp_path / "missing.jsonl", tmp_path / "w0")
    for bad in [42, [42], b"docs.jsonl"]:
        with pytest.raises(TypeError, match="source"):
            dedup.run_external(bad, tmp_path / "w1")
    with pytest.raises(TypeError, match="fresh iterable"):
        dedup.run_external((t for t in TEXTS), tmp_path / "w1")
    with pytest.raises(ValueError, match="empty list"):
        dedup.run_external([], tmp_path / "w1")
    with pytest.raises(ValueError, match="memory"):
        dedup.run_external(jsonl, tmp_path / "w1", memory=1000)
    with pytest.raises(ValueError, match="against"):
        dedup.run_external(jsonl, tmp_path / "w1", update_index=True)
    with pytest.raises(ValueError, match="identity"):
        dedup.run_external(jsonl, tmp_path / "w1", identity="x")
    with pytest.raises(ValueError, match="threads"):
        dedup.run_external(jsonl, tmp_path / "w1", threads=0)
    with pytest.raises(TypeError, match="progress"):
        dedup.run_external(jsonl, tmp_path / "w1", progress=3)
    with pytest.raises(ValueError, match="standard input"):
        dedup.run_external("-", tmp_path / "w1")

    # Wrong items from a callable.
    with pytest.raises(TypeError, match="int"):
        dedup.run_external(lambda: 5, tmp_path / "w2")
    with pytest.raises(TypeError, match=r"texts\[1\] is int"):
        dedup.run_external(lambda: iter(["a b c", 3]), tmp_path / "w3")
    with pytest.raises(TypeError, match="the id is float"):
        dedup.run_external(lambda: iter([(1.5, "a b c")]), tmp_path / "w4")
    with pytest.raises(TypeError, match="tuple of 3"):
        dedup.run_external(lambda: iter([(1, "a", "b")]), tmp_path / "w5")
    with pytest.raises(txtfp.TxtfpError, match="source item 1 .*None"):
        dedup.run_external(lambda: iter(["a b c", None]), tmp_path / "w6")

    # An exception raised inside the iterator is raised as it is.
    def boom():
        yield "a b c d e f"
        raise ZeroDivisionError("inside the corpus")
    with pytest.raises(ZeroDivisionError, match="inside the corpus"):
        dedup.run_external(boom, tmp_path / "w7")

    # A second pass that differs from the first.
    for change in ["text", "fewer", "more"]:
        calls = []

        def changing(change=change, calls=calls):
            calls.append(1)
            texts = list(TEXTS)
            if len(calls) > 1:
                if change == "text":
                    texts[40] = texts[40] + " changed"
                elif change == "fewer":
                    texts = texts[:-1]
                else:
                    texts.append("one more document at the end")
            return iter(texts)

        with pytest.raises(txtfp.TxtfpError, match="second pass"):
            dedup.run_external(changing, tmp_path / f"w8{change}", memory=MEMORY)

    # A callable without identity cannot resume: the work directory must be empty.
    with pytest.raises(ValueError, match="identity"):
        dedup.run_external(lambda: iter(TEXTS), tmp_path / "w8text")

    # A work directory holding another run, or damaged.
    work = tmp_path / "w9"
    dedup.run_external(jsonl, work, memory=MEMORY)
    with pytest.raises(txtfp.TxtfpError, match="other settings"):
        txtfp.MinHashDedup(0.7).run_external(jsonl, work, memory=MEMORY)
    markers = sorted(p for p in work.rglob("*") if p.is_file() and p.stat().st_size < 200 and "done" in p.name)
    assert markers, sorted(p.name for p in work.rglob("*"))
    markers[0].write_text("garbage\n")
    with pytest.raises(txtfp.TxtfpError, match="corrupt"):
        dedup.run_external(jsonl, work, memory=MEMORY)
    work = tmp_path / "w10"
    report = dedup.run_external(jsonl, work, memory=MEMORY)
    clusters = work / "cluster" / "clusters.bin"
    clusters.write_bytes(clusters.read_bytes()[:100])
    with pytest.raises(OSError, match="clusters.bin"):
        report.to_arrays()

    # Bad records are skipped and counted, or refused with strict=True.
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "text": "a b c d e"}\nnot json\n{"id": 3}\n{"id": 4, "text": "f g h i j"}\n')
    report = dedup.run_external(bad, tmp_path / "w11")
    assert report.skipped == 2 and len(report) == 2 and report.to_arrays()["ids"] == [1, 4]
    assert report.skipped_records[0][0].endswith("bad.jsonl:2")
    with pytest.raises(txtfp.TxtfpError, match="bad.jsonl:2"):
        dedup.run_external(bad, tmp_path / "w12", strict=True)
