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

``against=`` a band index that earlier runs left (``update_index=True``)
adds the earlier corpora: their band keys and content keys join the run's,
and a cluster that reaches an indexed document is dropped whole (see
``txtfp._spark_index`` for the tables).

The executors' Python must import ``txtfp`` (``pip install ./txtfp-py`` in
the environment ``PYSPARK_PYTHON`` names) and ``pyarrow``.
"""

from __future__ import annotations

import time
from typing import Optional, Tuple

import numpy as np

from . import DEFAULT_SEED, MinHashDedup
from . import _spark_index

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


_MEASURED = ("a_text", "b_text", "a_sig", "b_sig")


def _measure_stage(settings, kind):
    """The ``mapInArrow`` function of step 4: the similarity of each pair,
    from its texts ``a_text``, ``b_text`` (``kind="exact"``) or its
    signatures ``a_sig``, ``b_sig``; the other columns pass through."""

    def run(batches):
        import pyarrow as pa
        import pyarrow.compute as pc

        engine = _engine(settings)
        for batch in batches:
            if kind == "exact":
                sim = engine.exact_jaccard(batch.column("a_text"), batch.column("b_text"))
            else:
                h = settings["num_perm"]
                if "a_text" in batch.schema.names:  # an indexed document: its text only
                    a = engine.parts(pc.fill_null(batch.column("a_text"), ""))["signature"]
                else:
                    a = np.frombuffer(b"".join(batch.column("a_sig").to_pylist()), dtype="<u8").reshape(-1, h)
                b = np.frombuffer(b"".join(batch.column("b_sig").to_pylist()), dtype="<u8").reshape(-1, h)
                # The engine's estimate: equal slots / H, in float32.
                sim = (a == b).sum(axis=1).astype(np.float32) / np.float32(h)
            names = [n for n in batch.schema.names if n not in _MEASURED]
            yield pa.RecordBatch.from_arrays(
                [batch.column(n) for n in names] + [pa.array(sim, type=pa.float32())],
                names=names + ["similarity"],
            )

    return run


def _measure(pairs, docs, signed, settings, indexed=None):
    """``pairs`` ``(a, b)`` with their similarity under the run's verification
    (the signatures' estimate when there is none, as the engine reports).
    With ``indexed`` (the index's documents), ``a`` is the indexed document
    ``(x_gen, x_id)`` instead, and the pairs are ``(b, x_gen, x_id)``; the
    index keeps texts only, so an estimate signs the indexed text again."""
    from pyspark.sql import functions as F

    exact = settings["verification"] == "exact"
    col, kind = ("text", "exact") if exact else ("signature", "estimated")
    ids = pairs.select(F.col("b").alias("id"))
    if indexed is None:
        ids = ids.union(pairs.select(F.col("a").alias("id")))
    # The documents the pairs involve, read once, then joined to both ends
    # of each pair.
    side = _materialize((docs if exact else signed).select("id", col).join(ids.distinct(), "id", "left_semi"))
    short = "text" if exact else "sig"
    joined = pairs.join(side.select(F.col("id").alias("b"), F.col(col).alias(f"b_{short}")), "b")
    if indexed is None:
        joined = joined.join(side.select(F.col("id").alias("a"), F.col(col).alias(f"a_{short}")), "a")
        keys, schema = ["a", "b"], "a long, b long, similarity float"
    else:
        joined = joined.join(indexed.select(F.col("gen").alias("x_gen"), F.col("id").alias("x_id"),
                                            F.col("text").alias("a_text")), ["x_gen", "x_id"])
        keys, schema = ["b", "x_gen", "x_id"], "b long, x_gen int, x_id long, similarity float"
    a_col = f"a_{short}" if indexed is None else "a_text"
    return joined.select(*keys, a_col, f"b_{short}").mapInArrow(_measure_stage(settings, kind), schema)


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
    against: Optional[str] = None,
    update_index: bool = False,
    max_iterations: int = 64,
    timings: Optional[dict] = None,
) -> Tuple[object, object]:
    """Deduplicates ``df`` by the MinHash engine's rules (see the module).

    ``id_col`` holds unique integer ids (their order stands for input order:
    the smallest id of a cluster is kept); ``text_col`` the texts. Returns
    ``(kept, clusters)``: ``kept`` is ``df`` without the dropped rows (all its
    columns), ``clusters`` has one row per member of a cluster of two or
    more documents: ``id``, ``kept_id`` (the cluster's kept document),
    ``keep``, ``similarity`` (to the kept document, under the run's
    verification) and ``indexed``.

    ``against`` names the folder of a band index (Parquet, on any file
    system Spark reads) that earlier runs left with ``update_index=True``:
    the documents are then decided as in one run over the indexed corpora
    followed by this one. A cluster that reaches an indexed document is
    dropped whole; its rows have ``indexed`` true, ``kept_id`` the smallest
    indexed document it links to (the earliest generation first) and
    ``similarity`` to it where the document was compared with it (else
    null). ``update_index=True`` then adds this run's documents to the index
    (creating it when missing), before ``dedup`` returns; running the same
    input with the same settings again against an index it updated (a retry
    after a failed write, say) gives the same result and adds nothing.

    Raises ``TypeError`` for a non-integer id or non-string text column and
    ``ValueError`` for a repeated or null id, or an index of other settings,
    before any work is done.

    With a ``timings`` dict, each stage is computed eagerly and its wall
    seconds recorded under ``checks``, ``signatures``, ``candidates``,
    ``verification``, ``components``, ``similarities`` (and ``index``:
    where the time goes; the returned frames are then cheap to write).
    """
    from pyspark.sql import Window
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
    if update_index and against is None:
        raise ValueError("update_index=True needs the index folder: against=...")
    settings = _settings(threshold, k, num_perm, fast, verification, seed)
    bands, rows = _engine(settings).banding  # validates the settings here, not on an executor
    docs = _checked_docs(df, id_col, text_col)
    index = None
    if against is not None:
        index = _spark_index.open_index(
            df.sparkSession, against,
            dict(k=k, num_perm=num_perm, scheme="fast" if fast else "classic", seed=seed,
                 bands=bands, rows=rows),
            create=update_index)
    if timings is not None:
        stage("checks", docs.limit(0))

    sig_schema = ("id long, ck_lo long, ck_hi long, has_tokens boolean, signature binary, "
                  "band_keys array<long>")
    signed = _materialize(docs.mapInArrow(_signature_stage(settings), sig_schema))
    stage("signatures", signed.limit(0))
    fingerprint = _input_fingerprint(signed, settings, empty) if update_index else None
    if update_index:
        index.skip_retry(fingerprint)

    # Exact copies: every document with a token links to the smallest id of
    # its content key, or to the indexed document of that text; only the
    # documents that do neither are bucketed. (A narrow projection: the
    # signatures do not travel through this shuffle.)
    keyed = (signed.select("id", "ck_lo", "ck_hi", "has_tokens")
             .withColumn("first", F.min("id").over(Window.partitionBy("ck_lo", "ck_hi"))))
    if index is not None:
        ic = index.table("content").select("ck_lo", "ck_hi", F.col("gen").alias("x_gen"),
                                           F.col("id").alias("x_id"))
        keyed = keyed.join(ic, ["ck_lo", "ck_hi"], "left")
    else:
        keyed = keyed.withColumn("x_id", F.lit(None).cast("long")).withColumn("x_gen", F.lit(None).cast("int"))
    keyed = _materialize(keyed.where("has_tokens"))
    fresh = keyed.where(F.col("x_id").isNull())
    links = (fresh.where(F.col("id") != F.col("first"))
             .select(F.col("first").alias("a"), F.col("id").alias("b")))
    live = signed.select("id", "band_keys").join(fresh.where(F.col("id") == F.col("first")).select("id"),
                                                 "id", "left_semi")

    # One shuffle of (band, key, id) rows, sorted by bucket: each member of
    # a bucket is paired with the bucket's smallest id, or with its indexed
    # document. (A window measured faster than an aggregation joined back:
    # no second pass over the rows.)
    exploded = live.select("id", F.posexplode("band_keys").alias("band", "key"))
    if index is not None:
        ib = index.table("bands").select("band", "key", F.col("gen").alias("x_gen"), F.col("id").alias("x_id"))
        exploded = exploded.join(ib, ["band", "key"], "left")
    else:
        exploded = exploded.withColumn("x_id", F.lit(None).cast("long")).withColumn("x_gen", F.lit(None).cast("int"))
    buckets = exploded.withColumn(
        "rep", F.when(F.col("x_id").isNull(), F.min("id").over(Window.partitionBy("band", "key"))))
    if index is not None:
        buckets = _materialize(buckets)  # read again for the indexed pairs and the update
    pairs = (buckets.where(F.col("x_id").isNull() & (F.col("id") != F.col("rep")))
             .select(F.col("rep").alias("a"), F.col("id").alias("b")).distinct())
    pairs = stage("candidates", pairs)
    measured = _measure(pairs, docs, signed, settings)
    xmeasured = None
    if index is not None:
        xpairs = buckets.where(F.col("x_id").isNotNull()).select(F.col("id").alias("b"), "x_gen", "x_id").distinct()
        xmeasured = _measure(xpairs, docs, signed, settings, index.table("docs"))
    if verification != "none":
        bar = F.lit(np.float32(threshold).item()).cast("float")
        measured = measured.where(F.col("similarity") >= bar)
        xmeasured = None if xmeasured is None else xmeasured.where(F.col("similarity") >= bar)
    measured = stage("verification", measured)
    edges = measured.select("a", "b").union(links.select("a", "b"))
    labels = _materialize(connected_components(edges.select(F.col("a").alias("u"), F.col("b").alias("v")),
                                               max_iterations))
    stage("components", labels.limit(0))

    members = labels.select("id", F.col("label").alias("kept_id"))
    xrows = None
    if index is not None:
        xlinks = _materialize(xmeasured.union(
            keyed.where(F.col("x_id").isNotNull())
            .select(F.col("id").alias("b"), "x_gen", "x_id", F.lit(1.0).cast("float").alias("similarity"))))
        members, xrows = _indexed_clusters(members, xlinks)
    clusters = _similarities(members, measured, docs, signed, settings)
    gone = members.where(F.col("id") != F.col("kept_id")).select("id")
    if xrows is not None:
        clusters = clusters.union(xrows)
        gone = gone.union(xrows.select("id"))
    clusters = stage("similarities", clusters)
    if empty == "drop":
        gone = gone.union(signed.where(~F.col("has_tokens")).select("id"))
    if update_index:
        _add_to_index(index, keyed, buckets, docs, signed, fingerprint)
        stage("index", clusters.limit(0))
    kept = df.join(gone.withColumnRenamed("id", "__txtfp_id"),
                   F.col(id_col).cast("long") == F.col("__txtfp_id"), "left_anti")
    return kept, clusters


def _checked_docs(df, id_col, text_col):
    """``df``'s ``(id, text)`` as ``long`` and ``string``, after checking the
    columns' types and the ids' uniqueness (one aggregation)."""
    from pyspark.sql import functions as F

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
    return docs


def _similarities(members, measured, docs, signed, settings):
    """The clusters' rows ``(id, kept_id, keep, similarity, indexed)`` of
    ``members`` ``(id, kept_id)``: the similarity to the kept document is
    1.0 for an exact copy of it, reused from the verified pairs, else
    measured like a candidate pair."""
    from pyspark.sql import functions as F

    dropped = members.where(F.col("id") != F.col("kept_id"))
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
                                       docs, signed, settings)
                              .select(F.col("b").alias("id"), F.col("a").alias("kept_id"), "similarity"))
    sims = copies.union(others)
    return (members.join(sims.select("id", "similarity"), "id", "left")
            .withColumn("keep", F.col("id") == F.col("kept_id"))
            .select("id", "kept_id", "keep", "similarity", F.lit(False).alias("indexed")))


def _indexed_clusters(members, xlinks):
    """Splits the run's clusters by whether they reach the index: returns the
    ``members`` ``(id, kept_id)`` of those that do not, and the clusters'
    rows of every document of those that do (``indexed`` true, ``kept_id``
    the smallest indexed document the cluster links to). ``xlinks`` are the
    verified links ``(b, x_gen, x_id, similarity)`` to indexed documents."""
    from pyspark.sql import functions as F

    # A document with no link in the run is a cluster of its own.
    alone = (xlinks.select(F.col("b").alias("id")).distinct()
             .join(members, "id", "left_anti").select("id", F.col("id").alias("kept_id")))
    everyone = members.union(alone)
    reach = (xlinks.join(everyone.withColumnRenamed("id", "b"), "b")
             .groupBy("kept_id").agg(F.min(F.struct("x_gen", "x_id")).alias("x")))
    decided = everyone.join(reach, "kept_id").select("id", F.col("x.x_gen").alias("x_gen"),
                                                     F.col("x.x_id").alias("x_id"))
    direct = xlinks.select(F.col("b").alias("id"), "x_gen", "x_id", "similarity")
    rows = (decided.join(direct, ["id", "x_gen", "x_id"], "left")
            .select("id", F.col("x_id").alias("kept_id"), F.lit(False).alias("keep"), "similarity",
                    F.lit(True).alias("indexed")))
    return members.join(reach.select("kept_id"), "kept_id", "left_anti"), rows


def _input_fingerprint(signed, settings, empty):
    """What a retried run recognizes its own index update by: the settings
    and an order-free digest of the documents' ids and content keys."""
    from pyspark.sql import functions as F

    row = signed.agg(F.count("*").alias("n"),
                     F.sum(F.xxhash64("id", "ck_lo", "ck_hi").cast("decimal(38,0)")).alias("h")).collect()[0]
    return f"{row['n']} {row['h']} {sorted(settings.items())} empty={empty}"


def _add_to_index(index, keyed, buckets, docs, signed, fingerprint):
    """Writes this run's generation into ``index``: the band keys and texts
    the index did not hold, each with its first document, and the texts of
    the documents that lead a new band key."""
    from pyspark.sql import functions as F

    if index.retry:
        return
    gen = F.lit(index.generation + 1).cast("int")
    new_keys = _materialize(buckets.where(F.col("x_id").isNull() & (F.col("id") == F.col("rep")))
                            .select("band", "key", gen.alias("gen"), "id"))
    content = keyed.where(F.col("x_id").isNull() & (F.col("id") == F.col("first"))).select(
        "ck_lo", "ck_hi", gen.alias("gen"), "id")
    leads = new_keys.select("id").distinct()
    lead_docs = docs.join(leads, "id", "left_semi").select(gen.alias("gen"), "id", "text")
    content = _materialize(content)
    index.write(new_keys, content, lead_docs, content.count(), fingerprint)


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
