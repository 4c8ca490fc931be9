"""Near-duplicate detection of a Spark DataFrame with txtfp's MinHash engine.

``dedup(df)`` reaches the clusters that ``txtfp.MinHashDedup`` (and the Rust
crate, and the ``txtfp dedup`` command) reach on the same documents taken in
ascending id order, on any number of executors:

1. **signatures** (``mapInArrow``): each executor computes, for its Arrow
   batches, the content key of every text, its MinHash signature and its
   band keys, in native code without the GIL;
2. **exact copies**: documents with equal content keys are linked to the
   smallest id among them and are not bucketed;
3. **candidates** (Spark's shuffle): documents with a token are grouped by
   ``(band, key)``; every member of a bucket is paired with the bucket's
   smallest id;
4. **verification** (``mapInArrow`` over the joined pairs): exact Jaccard of
   the token sets (``verification="exact"``, the default), the signatures'
   estimate (``"estimated"``), or none;
5. **components** in Spark itself: large-star / small-star iterations
   (Kiveris et al., 2014) over the verified pairs and the copy links, so
   every document ends up labelled with the smallest id of its cluster,
   which is the document kept.

Documents without a token (and ``null`` texts) are compared with nothing:
kept (``empty="keep"``) or dropped (``empty="drop"``).

The executors' Python must import ``txtfp`` (``pip install ./txtfp-py`` in
the environment ``PYSPARK_PYTHON`` names) and ``pyarrow``.
"""

from __future__ import annotations

import time
from typing import Optional, Tuple

import numpy as np

from . import DEFAULT_SEED, MinHashDedup

__all__ = ["dedup", "dedup_parquet", "connected_components"]

_INTEGRAL = ("bigint", "int", "smallint", "tinyint")


def _materialize(df):
    """``df`` computed now and kept: in the checkpoint directory when the
    context has one (reliable storage: a lost executor costs nothing),
    else on the executors (``localCheckpoint``: faster, but a lost executor
    fails the run)."""
    if df.sparkSession.sparkContext._jsc.sc().getCheckpointDir().isDefined():
        return df.checkpoint(eager=True)
    return df.localCheckpoint(eager=True)


def _settings(threshold, k, num_perm, fast, verification, seed):
    return dict(threshold=threshold, k=k, num_perm=num_perm, fast=fast,
                verification=verification, seed=seed)


def _engine(settings):
    return MinHashDedup(
        settings["threshold"], k=settings["k"], num_perm=settings["num_perm"],
        fast=settings["fast"], verification=settings["verification"], seed=settings["seed"],
    )


def _signature_stage(settings):
    """The ``mapInArrow`` function of step 1 (runs on the executors)."""

    def run(batches):
        import pyarrow as pa
        import pyarrow.compute as pc

        engine = _engine(settings)
        for batch in batches:
            ids = batch.column("id")
            # A null text is an empty document: no token, like "".
            parts = engine.parts(pc.fill_null(batch.column("text"), ""))
            ck = parts["content_key"].view(np.int64)
            has = parts["has_tokens"]
            sig = np.ascontiguousarray(parts["signature"])
            keys = parts["band_keys"].view(np.int64)
            n, bands = keys.shape
            width = sig.shape[1] * 8
            # Arrow arrays straight from the NumPy buffers: a binary value of
            # 8·H bytes per signature, a list of `bands` keys per document.
            sig_offsets = pa.py_buffer(np.arange(0, (n + 1) * width, width, dtype=np.int32).tobytes())
            sig_bytes = pa.Array.from_buffers(pa.binary(), n, [None, sig_offsets, pa.py_buffer(sig.tobytes())])
            key_offsets = pa.array(np.arange(0, (n + 1) * bands, bands, dtype=np.int32))
            key_lists = pa.ListArray.from_arrays(key_offsets, pa.array(keys.reshape(-1)))
            yield pa.RecordBatch.from_arrays(
                [ids, pa.array(ck[:, 0]), pa.array(ck[:, 1]), pa.array(has), sig_bytes, key_lists],
                names=["id", "ck_lo", "ck_hi", "has_tokens", "signature", "band_keys"],
            )

    return run


def _measure_stage(settings, kind):
    """The ``mapInArrow`` function of step 4: the similarity of each pair
    ``(a, b)``, from the texts (``kind="exact"``) or the signatures."""

    def run(batches):
        import pyarrow as pa

        engine = _engine(settings)
        for batch in batches:
            if kind == "exact":
                sim = engine.exact_jaccard(batch.column("a_text"), batch.column("b_text"))
            else:
                h = settings["num_perm"]
                a = np.frombuffer(b"".join(batch.column("a_sig").to_pylist()), dtype="<u8").reshape(-1, h)
                b = np.frombuffer(b"".join(batch.column("b_sig").to_pylist()), dtype="<u8").reshape(-1, h)
                # The engine's estimate: equal slots / H, in float32.
                sim = (a == b).sum(axis=1).astype(np.float32) / np.float32(h)
            yield pa.RecordBatch.from_arrays(
                [batch.column("a"), batch.column("b"), pa.array(sim, type=pa.float32())],
                names=["a", "b", "similarity"],
            )

    return run


def _measure(pairs, docs, signed, settings):
    """``pairs`` ``(a, b)`` with their similarity under the run's verification
    (the signatures' estimate when there is none, as the engine reports)."""
    from pyspark.sql import functions as F

    kind = settings["verification"]
    schema = "a long, b long, similarity float"
    # The documents the pairs involve, read once (a broadcast semi-join when
    # the pairs are few), then joined to both ends of each pair.
    ids = pairs.select(F.col("a").alias("id")).union(pairs.select(F.col("b").alias("id"))).distinct()
    if kind == "exact":
        t = _materialize(docs.select("id", "text").join(ids, "id", "left_semi"))
        joined = (pairs.join(t.withColumnRenamed("id", "a").withColumnRenamed("text", "a_text"), "a")
                  .join(t.withColumnRenamed("id", "b").withColumnRenamed("text", "b_text"), "b"))
        return joined.select("a", "b", "a_text", "b_text").mapInArrow(_measure_stage(settings, "exact"), schema)
    s = _materialize(signed.select("id", "signature").join(ids, "id", "left_semi"))
    joined = (pairs.join(s.withColumnRenamed("id", "a").withColumnRenamed("signature", "a_sig"), "a")
              .join(s.withColumnRenamed("id", "b").withColumnRenamed("signature", "b_sig"), "b"))
    return joined.select("a", "b", "a_sig", "b_sig").mapInArrow(_measure_stage(settings, "estimated"), schema)


def connected_components(edges, max_iterations: int = 64):
    """Labels every node of ``edges`` (columns ``u``, ``v``: longs) with the
    smallest node of its connected component.

    Alternates large-star and small-star (Kiveris et al., "Connected
    Components in MapReduce and Beyond", 2014) until the edge set stops
    changing: each round is a few joins and aggregations on Spark's shuffle,
    the number of rounds grows with the logarithm of the components' size,
    and the result does not depend on partitioning. Returns a DataFrame of
    ``(id, label)`` for every node that has an edge.
    """
    from pyspark.sql import functions as F

    def norm(df):
        return (df.select(F.least("u", "v").alias("u"), F.greatest("u", "v").alias("v"))
                .where(F.col("u") != F.col("v")).distinct())

    def large_star(e):
        both = e.union(e.select(F.col("v").alias("u"), F.col("u").alias("v")))
        low = both.groupBy("u").agg(F.min("v").alias("m")).withColumn("m", F.least("m", "u"))
        return norm(both.join(low, "u").where(F.col("v") > F.col("u"))
                    .select(F.col("v").alias("u"), F.col("m").alias("v")))

    def small_star(e):
        # Each node x with smaller neighbours joins them and itself to the
        # smallest of them: edges are (u < v), so x is v.
        low = e.groupBy("v").agg(F.min("u").alias("m"))
        return norm(e.join(low, "v").select(F.col("u").alias("u"), F.col("m").alias("v"))
                    .union(low.select(F.col("v").alias("u"), F.col("m").alias("v"))))

    def fingerprint(df):
        row = df.agg(F.count("*").alias("n"), F.sum(F.xxhash64("u", "v").cast("decimal(38,0)")).alias("h")).collect()[0]
        return row["n"], row["h"]

    e = _materialize(norm(edges))
    seen = fingerprint(e)
    for _ in range(max_iterations):
        after = _materialize(small_star(large_star(e)))
        now = fingerprint(after)
        # Equal counts and sums of 64-bit hashes of two distinct edge sets
        # almost always mean an unchanged set; it is confirmed once, here.
        done = now == seen and after.exceptAll(e).limit(1).count() == 0
        e, seen = after, now
        if done:
            break
    else:
        raise RuntimeError(f"connected components did not converge in {max_iterations} rounds")
    labels = e.groupBy(F.col("v").alias("id")).agg(F.min("u").alias("label"))
    centers = e.select(F.col("u").alias("id"), F.col("u").alias("label"))
    return labels.union(centers).groupBy("id").agg(F.min("label").alias("label"))


def dedup(
    df,
    id_col: str = "id",
    text_col: str = "text",
    threshold: float = 0.8,
    *,
    k: int = 5,
    num_perm: int = 128,
    fast: bool = False,
    verification: str = "exact",
    empty: str = "keep",
    seed: int = DEFAULT_SEED,
    max_iterations: int = 64,
    timings: Optional[dict] = None,
) -> Tuple[object, object]:
    """Deduplicates ``df`` by the MinHash engine's rules (see the module).

    ``id_col`` holds unique integer ids (their order stands for input order:
    the smallest id of a cluster is kept); ``text_col`` the texts. Returns
    ``(kept, clusters)``: ``kept`` is ``df`` without the dropped rows (all its
    columns), ``clusters`` has one row per member of a cluster of two or
    more documents: ``id``, ``kept_id`` (the cluster's kept document),
    ``keep`` and ``similarity`` (to the kept document, under the run's
    verification).

    Raises ``TypeError`` for a non-integer id or non-string text column and
    ``ValueError`` for a repeated or null id, before any work is done.

    With a ``timings`` dict, each stage is computed eagerly and its wall
    seconds recorded under ``checks``, ``signatures``, ``candidates``,
    ``verification``, ``components`` and ``similarities`` (where the time
    goes; the returned frames are then cheap to write).
    """
    from pyspark.sql import functions as F

    clock = [time.perf_counter()]

    def stage(name, frame):
        if timings is None:
            return frame
        frame = _materialize(frame)
        now = time.perf_counter()
        timings[name] = round(now - clock[0], 3)
        clock[0] = now
        return frame

    if empty not in ("keep", "drop"):
        raise ValueError(f'empty must be "keep" or "drop", not {empty!r}')
    settings = _settings(threshold, k, num_perm, fast, verification, seed)
    bands, rows = _engine(settings).banding  # validates the settings here, not on an executor
    types = dict(df.dtypes)
    if id_col not in types or text_col not in types:
        raise ValueError(f"columns {id_col!r} and {text_col!r} must exist; the frame has {list(types)}")
    if types[id_col] not in _INTEGRAL:
        raise TypeError(f"the id column {id_col!r} must be an integer type, not {types[id_col]}")
    if types[text_col] != "string":
        raise TypeError(f"the text column {text_col!r} must be a string column, not {types[text_col]}")
    docs = df.select(F.col(id_col).cast("long").alias("id"), F.col(text_col).alias("text"))
    bad = (docs.groupBy("id").count().where((F.col("count") > 1) | F.col("id").isNull())
           .orderBy(F.col("id").asc_nulls_first()).limit(1).collect())
    if bad:
        what = "a null id" if bad[0]["id"] is None else f"id {bad[0]['id']} occurs {bad[0]['count']} times"
        raise ValueError(f"dedup needs unique, non-null ids: {what}")
    if timings is not None:
        stage("checks", docs.limit(0))

    sig_schema = ("id long, ck_lo long, ck_hi long, has_tokens boolean, signature binary, "
                  "band_keys array<long>")
    signed = _materialize(docs.mapInArrow(_signature_stage(settings), sig_schema))
    stage("signatures", signed.limit(0))

    # Exact copies: every document with a token links to the smallest id of
    # its content key; only those smallest ids are bucketed. (A narrow
    # projection: the signatures do not travel through this shuffle.)
    from pyspark.sql import Window

    keyed = (signed.select("id", "ck_lo", "ck_hi", "has_tokens")
             .withColumn("first", F.min("id").over(Window.partitionBy("ck_lo", "ck_hi"))))
    links = (keyed.where(F.col("has_tokens") & (F.col("id") != F.col("first")))
             .select(F.col("first").alias("a"), F.col("id").alias("b"),
                     F.lit(1.0).cast("float").alias("similarity")))
    live_ids = keyed.where(F.col("has_tokens") & (F.col("id") == F.col("first"))).select("id")
    live = signed.select("id", "band_keys").join(live_ids, "id", "left_semi")

    # One shuffle of (band, key, id) rows, sorted by bucket: each member of
    # a bucket is paired with the bucket's smallest id. (A window measured
    # faster than an aggregation joined back: no second pass over the rows.)
    exploded = live.select("id", F.posexplode("band_keys").alias("band", "key"))
    pairs = (exploded.withColumn("rep", F.min("id").over(Window.partitionBy("band", "key")))
             .where(F.col("id") != F.col("rep"))
             .select(F.col("rep").alias("a"), F.col("id").alias("b")).distinct())
    pairs = stage("candidates", pairs)
    measured = _measure(pairs, docs, signed, settings)
    if verification != "none":
        measured = measured.where(F.col("similarity") >= F.lit(np.float32(threshold).item()).cast("float"))
    measured = stage("verification", measured)
    edges = measured.select("a", "b").union(links.select("a", "b"))
    labels = _materialize(connected_components(edges.select(F.col("a").alias("u"), F.col("b").alias("v")),
                                               max_iterations))
    stage("components", labels.limit(0))

    members = labels.select("id", F.col("label").alias("kept_id"))
    dropped = members.where(F.col("id") != F.col("kept_id"))
    # Similarity to the kept document: 1.0 for an exact copy of it, else
    # measured like a candidate pair.
    ck = signed.select("id", "ck_lo", "ck_hi")
    same = (dropped.join(ck, "id")
            .join(ck.select(F.col("id").alias("kept_id"), F.col("ck_lo").alias("k_lo"), F.col("ck_hi").alias("k_hi")),
                  "kept_id")
            .withColumn("copy", (F.col("ck_lo") == F.col("k_lo")) & (F.col("ck_hi") == F.col("k_hi"))))
    copies = same.where("copy").select("id", "kept_id", F.lit(1.0).cast("float").alias("similarity"))
    # Most dropped documents were verified against their kept one already.
    known = measured.select(F.col("b").alias("id"), F.col("a").alias("kept_id"), "similarity")
    rest = same.where(~F.col("copy")).select("id", "kept_id")
    seen = rest.join(known, ["id", "kept_id"])
    unseen = _materialize(rest.join(known, ["id", "kept_id"], "left_anti"))
    others = seen.select("id", "kept_id", "similarity")
    if unseen.limit(1).count():
        others = others.union(_measure(unseen.select(F.col("kept_id").alias("a"), F.col("id").alias("b")),
                      docs, signed, settings).select(F.col("b").alias("id"), F.col("a").alias("kept_id"),
                                                     "similarity"))
    sims = copies.union(others)
    clusters = (members.join(sims.select("id", "similarity"), "id", "left")
                .withColumn("keep", F.col("id") == F.col("kept_id"))
                .select("id", "kept_id", "keep", "similarity"))
    clusters = stage("similarities", clusters)
    gone = dropped.select("id")
    if empty == "drop":
        gone = gone.union(signed.where(~F.col("has_tokens")).select("id"))
    kept = df.join(gone.withColumnRenamed("id", "__txtfp_id"),
                   F.col(id_col).cast("long") == F.col("__txtfp_id"), "left_anti")
    return kept, clusters


def dedup_parquet(spark, source: str, kept_path: str, clusters_path: Optional[str] = None, **options):
    """Reads Parquet ``source``, runs :func:`dedup` with ``options``, writes
    the kept rows to ``kept_path`` (and the clusters to ``clusters_path``) as
    Parquet, and returns ``(kept_rows, dropped_rows)``."""
    df = spark.read.parquet(source)
    kept, clusters = dedup(df, **options)
    kept.write.mode("overwrite").parquet(kept_path)
    if clusters_path is not None:
        clusters.write.mode("overwrite").parquet(clusters_path)
    written = spark.read.parquet(kept_path).count()
    return written, df.count() - written
