"""The band index of ``txtfp.spark.dedup``: Parquet tables an earlier run
left so that a later run drops the documents that duplicate the earlier
corpus without reading it again.

A run pairs a document only with the first document of each band bucket
and links an exact copy only to the first copy, so an earlier corpus
matters to a later run only through those first documents. The index holds
exactly them, one generation per run that updated it:

- ``bands/<gen>``: ``(band, key, gen, id)``, one row per band key, its first
  document;
- ``content/<gen>``: ``(ck_lo, ck_hi, gen, id)``, one row per distinct text,
  its first document;
- ``docs/<gen>``: ``(gen, id, text)`` of every document that leads a band
  key, for the verification of later pairs (an estimate signs the text
  again: signatures would take about as much room as the texts);
- ``meta-<NNNNNN>.json``: the settings and the generations in force. The
  highest-numbered one is current; an update writes its tables beside the
  others, then creates the next meta file (the commit point: created once,
  by a rename, which HDFS refuses onto an existing name, so two runs
  updating at once cannot both commit there; elsewhere an existence check
  comes first).

Indexed documents are ordered by ``(gen, id)``: an earlier generation
comes first, as it would in one run over all the corpora. The keys a
generation adds are those its run did not find in the index, so every key
is in at most one generation.

Files go through Hadoop's ``FileSystem`` (the index may live on HDFS, S3 or
a local path).
"""

from __future__ import annotations

import json
import uuid

FORMAT = "txtfp-spark-band-index"
VERSION = 1
TABLES = ("bands", "content", "docs")
SCHEMAS = {
    "bands": "band int, key long, gen int, id long",
    "content": "ck_lo long, ck_hi long, gen int, id long",
    "docs": "gen int, id long, text string",
}


class BandIndex:
    """An opened index: its folder, settings and generations in force."""

    def __init__(self, spark, path: str, meta: dict, number: int):
        self.spark = spark
        self.path = path.rstrip("/")
        self.meta = meta
        self.number = number
        self.retry = False

    @property
    def generations(self) -> list:
        """The generations this run reads: all, or all but the last when
        the run retries the update that wrote it."""
        gens = self.meta["generations"]
        return gens[:-1] if self.retry else gens

    @property
    def generation(self) -> int:
        return len(self.generations)

    @property
    def documents(self) -> int:
        return sum(g["documents"] for g in self.generations)

    def skip_retry(self, fingerprint: str) -> None:
        """When the last generation was written by a run of the same input
        and settings (``fingerprint``), this run retries it: it reads the
        index without it and writes nothing."""
        gens = self.meta["generations"]
        self.retry = bool(gens) and gens[-1].get("input") == fingerprint

    def table(self, name: str):
        """The rows of table ``name`` over the generations this run reads."""
        dirs = [f"{self.path}/{name}/{g['dir']}" for g in self.generations]
        if not dirs:
            return self.spark.createDataFrame([], SCHEMAS[name])
        return self.spark.read.schema(SCHEMAS[name]).parquet(*dirs)

    def write(self, bands, content, docs, added: int, fingerprint: str) -> None:
        """Adds one generation (``bands``, ``content``, ``docs`` with the
        columns of :data:`SCHEMAS`, ``gen`` set to ``generation + 1``) of
        ``added`` documents, written by a run of input ``fingerprint``, and
        commits it; a retry writes nothing. Raises ``RuntimeError`` when
        another run committed an update since this index was opened."""
        if self.retry:
            return
        fs, jpath = _fs(self.spark, self.path)
        name = f"g{self.generation + 1:06d}-{uuid.uuid4().hex[:12]}"
        for table, frame in zip(TABLES, (bands, content, docs)):
            frame.write.mode("overwrite").option("compression", "zstd").parquet(f"{self.path}/{table}/{name}")
        meta = dict(self.meta)
        meta["generations"] = list(self.meta["generations"]) + [{"dir": name, "documents": added,
                                                              "input": fingerprint}]
        _commit(self.spark, fs, jpath, self.number + 1, meta)
        self.meta, self.number = meta, self.number + 1


def open_index(spark, path: str, settings: dict, create: bool) -> BandIndex:
    """Opens the index in ``path`` built with ``settings`` (the run's
    fingerprint and banding settings); a missing index is an empty one when
    ``create``, else ``FileNotFoundError``. Raises ``ValueError`` naming the
    folder for an index of other settings or another format."""
    fs, jpath = _fs(spark, path)
    metas = []
    if fs.exists(jpath):
        for status in fs.listStatus(jpath):
            name = status.getPath().getName()
            if name.startswith("meta-") and name.endswith(".json"):
                try:
                    metas.append((int(name[5:-5]), name))
                except ValueError:
                    pass
    if not metas:
        if not create:
            raise FileNotFoundError(f"{path}: no txtfp band index here (update_index=True creates one)")
        return BandIndex(spark, path, {"format": FORMAT, "version": VERSION, "settings": settings,
                                       "generations": []}, 0)
    number, name = max(metas)
    text = _read_text(spark, fs, f"{path.rstrip('/')}/{name}")
    try:
        meta = json.loads(text)
    except ValueError as e:
        raise ValueError(f"{path}/{name}: not a txtfp band index meta file ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise ValueError(f"{path}/{name}: not a version {VERSION} txtfp band index")
    if meta.get("settings") != settings:
        raise ValueError(f"{path}: the index was built with other settings ({meta.get('settings')}) "
                         f"than this run's ({settings})")
    return BandIndex(spark, path, meta, number)


def _fs(spark, path: str):
    jvm = spark.sparkContext._jvm
    jpath = jvm.org.apache.hadoop.fs.Path(path)
    return jpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), jpath


def _read_text(spark, fs, path: str) -> str:
    jvm = spark.sparkContext._jvm
    stream = fs.open(jvm.org.apache.hadoop.fs.Path(path))
    try:
        return jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8")
    finally:
        stream.close()


def _commit(spark, fs, jpath, number: int, meta: dict) -> None:
    """Creates ``meta-<number>.json``: written under a temporary name, then
    renamed, which fails when the name exists (another run committed)."""
    jvm = spark.sparkContext._jvm
    Path = jvm.org.apache.hadoop.fs.Path
    final = Path(jpath, f"meta-{number:06d}.json")
    tmp = Path(jpath, f"_tmp-meta-{uuid.uuid4().hex}")
    out = fs.create(tmp, False)
    try:
        out.write(bytearray(json.dumps(meta, indent=1).encode("utf-8")))
    finally:
        out.close()
    if fs.exists(final) or not fs.rename(tmp, final):
        fs.delete(tmp, False)
        raise RuntimeError(f"{final.toString()}: another run updated the index at the same time; "
                           "run again against the updated index")
