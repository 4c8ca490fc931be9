"""txtfp.spark on a real standalone cluster (scripts/setup-spark.sh starts a
master and two one-core workers; TXTFP_SPARK_MASTER names it): the clusters
of the Rust engine and of the command-line tool, Parquet in and out, bad
input refused before any work."""

import json
import os
import subprocess

import pytest

import txtfp
from conftest import DATA

if os.environ.get("TXTFP_REQUIRE_SPARK") != "1":
    pytest.importorskip("pyspark", reason="SKIPPED LOUDLY: pyspark is not installed")
import txtfp.spark as ts  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    master = os.environ.get("TXTFP_SPARK_MASTER")
    if not master:
        if os.environ.get("TXTFP_REQUIRE_SPARK") == "1":
            pytest.fail("TXTFP_REQUIRE_SPARK=1 but TXTFP_SPARK_MASTER is not set (scripts/setup-spark.sh)")
        pytest.skip("SKIPPED LOUDLY: no Spark cluster (eval \"$(scripts/setup-spark.sh)\")")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master(master).appName("txtfp-tests")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.ui.enabled", "false")
               .config("spark.executor.memory", "768m")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def corpus():
    """Golden texts with planted near-duplicates, exact copies and empties,
    in id order."""
    with open(DATA / "golden-small.compact.jsonl", encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f][:120]
    docs = list(texts)
    docs += [texts[i].replace(" the ", " a ", 1) + " and one more line" for i in range(0, 120, 8)]
    docs += [texts[i] for i in range(0, 120, 30)]
    docs += ["", None, "   ", "!!!"]
    docs.insert(40, texts[3] + " tail")  # a near-duplicate of an earlier id
    return docs


def clusters_of(rows):
    got = {}
    for r in rows:
        got.setdefault(r["kept_id"], []).append(r["id"])
    return sorted((k, sorted(v)) for k, v in got.items())


def frame(spark, docs):
    return spark.createDataFrame([(i, t) for i, t in enumerate(docs)], "id long, text string")


@pytest.mark.parametrize("verification", ["exact", "estimated", "none"])
def test_same_clusters_and_similarities_as_the_engine(spark, verification):
    docs = corpus()
    kept, clusters = ts.dedup(frame(spark, docs), verification=verification)
    rows = clusters.collect()
    report = txtfp.MinHashDedup(verification=verification).run([d or "" for d in docs])
    want = sorted((k, sorted(m)) for k, m in report.clusters)
    assert len(want) >= 15
    assert clusters_of(rows) == want
    assert sorted(r["id"] for r in kept.select("id").collect()) == sorted(map(int, report.kept_ids()))
    sims = {r["id"]: r["similarity"] for r in rows if not r["keep"]}
    for i, s in zip(report.ids, report.similarity):
        if s == s:  # not NaN: a dropped document
            assert sims[int(i)] == pytest.approx(float(s), abs=0), int(i)
    assert all(r["keep"] == (r["id"] == r["kept_id"]) for r in rows)


def test_same_clusters_as_the_command_line_tool(spark, cli, tmp_path):
    docs = [d for d in corpus() if d is not None]
    src = tmp_path / "docs.jsonl"
    src.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(docs)))
    out = tmp_path / "out"
    subprocess.run([cli, "dedup", str(src), "-o", str(out)], check=True, capture_output=True)
    want = []
    for line in (out / "clusters.jsonl").read_text().splitlines():
        c = json.loads(line)
        want.append((c["kept"], sorted(c["members"])))
    _, clusters = ts.dedup(frame(spark, docs))
    assert clusters_of(clusters.collect()) == sorted(want)


def test_parquet_in_and_out(spark, tmp_path):
    docs = corpus()
    df = spark.createDataFrame([(i, t, f"src-{i % 3}") for i, t in enumerate(docs)],
                               "doc long, body string, source string")
    df.write.parquet(str(tmp_path / "in"))
    kept_rows, dropped = ts.dedup_parquet(spark, str(tmp_path / "in"), str(tmp_path / "kept"),
                                          str(tmp_path / "clusters"), id_col="doc", text_col="body",
                                          empty="drop")
    report = txtfp.MinHashDedup(empty="drop").run([d or "" for d in docs])
    # A null text counts as an empty document.
    assert (kept_rows, dropped) == (int(report.keep.sum()), int((~report.keep).sum()))
    back = spark.read.parquet(str(tmp_path / "kept"))
    assert back.columns == ["doc", "body", "source"]
    assert sorted(r["doc"] for r in back.collect()) == sorted(map(int, report.kept_ids()))
    assert spark.read.parquet(str(tmp_path / "clusters")).count() > 0


def test_bad_input_is_refused_before_any_work(spark):
    with pytest.raises(TypeError, match="integer"):
        ts.dedup(spark.createDataFrame([("a", "x y z")], "id string, text string"))
    with pytest.raises(TypeError, match="string column"):
        ts.dedup(spark.createDataFrame([(1, 5)], "id long, text long"))
    with pytest.raises(ValueError, match="id 7 occurs 2 times"):
        ts.dedup(spark.createDataFrame([(7, "a b c"), (7, "d e f"), (8, "g")], "id long, text string"))
    with pytest.raises(ValueError, match="null id"):
        ts.dedup(spark.createDataFrame([(None, "a b c"), (1, "d")], "id long, text string"))
    with pytest.raises(ValueError, match="must exist"):
        ts.dedup(spark.createDataFrame([(1, "a")], "key long, text string"))
    with pytest.raises(ValueError, match="num_perm"):
        ts.dedup(spark.createDataFrame([(1, "a")], "id long, text string"), num_perm=100)
    with pytest.raises(txtfp.TxtfpError, match="threshold"):
        ts.dedup(spark.createDataFrame([(1, "a")], "id long, text string"), threshold=1.5)


def test_connected_components_label_with_the_smallest_node(spark):
    edges = [(5, 4), (4, 3), (3, 2), (2, 1), (10, 12), (12, 11), (20, 21), (7, 30), (30, 8), (8, 7)]
    df = spark.createDataFrame(edges, "u long, v long")
    labels = {r["id"]: r["label"] for r in ts.connected_components(df).collect()}
    # Plain union-find as the reference.
    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in edges:
        a, b = find(u), find(v)
        parent[max(a, b)] = min(a, b)
    assert labels == {x: find(x) for x in parent}


def cli_decisions(cli, tmp_path, name, rows, index, estimated=False):
    """``txtfp dedup --against index --update-index`` on ``rows`` ``(id, text)``:
    the kept ids and, per dropped id, ``(duplicate_of, indexed)``."""
    src = tmp_path / f"{name}.jsonl"
    src.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in rows))
    out = tmp_path / f"out-{name}"
    subprocess.run([cli, "dedup", str(src), "-o", str(out), "--against", str(index), "--update-index"]
                   + (["--estimated"] if estimated else []), check=True, capture_output=True)
    dropped = {}
    for line in (out / "duplicates.jsonl").read_text().splitlines():
        d = json.loads(line)
        dropped[d["id"]] = (d["duplicate_of"], bool(d.get("indexed")))
    return sorted(set(i for i, _ in rows) - set(dropped)), dropped


def spark_decisions(spark, rows, index, **options):
    kept, clusters = ts.dedup(spark.createDataFrame(rows, "id long, text string"), against=index,
                              update_index=True, **options)
    rows = clusters.collect()
    dropped = {r["id"]: (r["kept_id"], r["indexed"]) for r in rows if not r["keep"]}
    for r in rows:
        if r["indexed"]:
            assert not r["keep"] and (r["similarity"] is None or r["similarity"] >= 0.8), r
    return sorted(r["id"] for r in kept.select("id").collect()), dropped


@pytest.mark.parametrize("verification", ["exact", "estimated"])
def test_runs_against_a_band_index_decide_as_the_command_line_tool(spark, cli, tmp_path, verification):
    """Three corpora, each run against the band index the earlier ones
    left: every decision (kept, dropped as a duplicate of which document, of
    an indexed one or not) equals the CLI's runs against its own index."""
    docs = [d for d in corpus() if d is not None]
    parts = [list(enumerate(docs))[a:b] for a, b in ((0, 60), (60, 110), (110, len(docs)))]
    indexed = 0
    for n, rows in enumerate(parts):
        want = cli_decisions(cli, tmp_path, f"p{n}", rows, tmp_path / "cli-index", verification == "estimated")
        got = spark_decisions(spark, rows, str(tmp_path / "index"), verification=verification)
        assert got == want, n
        indexed += sum(1 for v in got[1].values() if v[1])
    assert indexed >= 8  # copies and near-duplicates of earlier corpora were found
    meta = sorted((tmp_path / "index").glob("meta-*.json"))
    assert [m.name for m in meta] == ["meta-000001.json", "meta-000002.json", "meta-000003.json"]


def test_a_retried_update_gives_the_same_result_and_adds_nothing(spark, tmp_path):
    docs = [d for d in corpus() if d is not None]
    first, second = list(enumerate(docs))[:80], list(enumerate(docs))[80:]
    index = str(tmp_path / "index")
    spark_decisions(spark, first, index)
    once = spark_decisions(spark, second, index)
    again = spark_decisions(spark, second, index)
    assert once == again and any(v[1] for v in once[1].values())
    assert len(list((tmp_path / "index").glob("meta-*.json"))) == 2
    # The same input without update_index is decided against everything.
    kept, _ = ts.dedup(spark.createDataFrame(second, "id long, text string"), against=index)
    assert kept.count() < len(once[0])


def test_a_band_index_is_refused_when_it_does_not_fit(spark, tmp_path):
    df = spark.createDataFrame([(1, "a b c d e f g")], "id long, text string")
    index = str(tmp_path / "index")
    with pytest.raises(FileNotFoundError, match="no txtfp band index"):
        ts.dedup(df, against=index)
    with pytest.raises(ValueError, match="needs the index folder"):
        ts.dedup(df, update_index=True)
    ts.dedup(df, against=index, update_index=True)
    with pytest.raises(ValueError, match="other settings"):
        ts.dedup(df, against=index, num_perm=64)
    with pytest.raises(ValueError, match="other settings"):
        ts.dedup(df, against=index, fast=True)
    (tmp_path / "index" / "meta-000002.json").write_text("{not json")
    with pytest.raises(ValueError, match="meta-000002.json"):
        ts.dedup(df, against=index)


def test_a_large_text_is_deduplicated_like_any_other(spark, tmp_path):
    """A 16 MiB text and its near-duplicate go through every stage (Arrow
    batches, exact verification, the kept rows) on 768 MiB executors."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    words = [f"w{i}" for i in range(5000)]
    unit = " ".join(words[(i * 7919) % 5000] for i in range(100_000)) + " "
    big = (unit * (16 * 2**20 // len(unit) + 1))[: 16 * 2**20]
    texts = [big, "a small document of a few words only here", big[:-100] + " and a new ending", None]
    (tmp_path / "in").mkdir()
    pq.write_table(pa.table({"id": pa.array([1, 2, 3, 4], pa.int64()),
                             "text": pa.array(texts, pa.large_string())}), str(tmp_path / "in" / "p.parquet"))
    del big, unit, texts
    written, dropped = ts.dedup_parquet(spark, str(tmp_path / "in"), str(tmp_path / "kept"),
                                        str(tmp_path / "clusters"))
    assert (written, dropped) == (3, 1)
    rows = spark.read.parquet(str(tmp_path / "clusters")).collect()
    assert sorted((r["id"], r["kept_id"]) for r in rows) == [(1, 1), (3, 1)]


def test_reliable_checkpoints_give_the_same_clusters(spark, tmp_path):
    """With a checkpoint directory, stages are kept there (a lost executor
    costs nothing) instead of on the executors; the result is the same."""
    docs = corpus()
    # Last in this file: a context's checkpoint directory cannot be unset.
    spark.sparkContext.setCheckpointDir(str(tmp_path / "checkpoints"))
    _, clusters = ts.dedup(frame(spark, docs))
    rows = clusters.collect()
    assert any((tmp_path / "checkpoints").rglob("*"))
    report = txtfp.MinHashDedup().run([d or "" for d in docs])
    assert clusters_of(rows) == sorted((k, sorted(m)) for k, m in report.clusters)
