"""txtfp.GlobalFingerprintStore: the library's global store from Python,
compared with `txtfp store ingest | query | metrics` on the same documents;
batches, reopening, replays, bad configurations, damaged stores, threads,
and the Redis backends when a server is running (scripts/setup-redis.sh,
scripts/setup-redis-cluster.sh)."""

import json
import os
import shutil
import subprocess
import threading
import time

import pytest

import txtfp
from conftest import REPO

CONFIG = """
[global_fingerprints]
chunk_size = 16
document_type_priority = ["books", "docs"]
source_to_document_type = { library = "books", "python-doc" = "docs", "postgresql-doc" = "docs" }
"""

CHAPTER = ("The river rose all night and by morning the low fields were a lake, with the tops of "
           "fences showing like the backs of swimming animals, and the farmers stood on the ridge "
           "watching the water take the hay they had cut the week before.")


def corpus():
    """(id, text, source): the sample corpus, then documents planted for every
    action: a crawled page, its book (replace), a later crawl (drop), a quote
    of its first 16 words (link), a document without words (refused), and a
    repeated id (replayed)."""
    with open(REPO / "examples" / "data" / "sample.jsonl", encoding="utf-8") as f:
        docs = [(r["id"], r["text"], r["src"]) for r in map(json.loads, f)]
    quote = " ".join(CHAPTER.split()[:16]) + " Later floods in the same valley were recorded by the county surveyor."
    return docs + [
        ("crawl-1", CHAPTER, "crawl"),
        ("book-1", CHAPTER, "library"),
        ("crawl-2", CHAPTER.replace("night", "day"), "crawl"),
        ("wiki-1", quote, "wiki"),
        ("empty-1", " ... ", "crawl"),
        ("crawl-1", "a different text under an id stored before", "crawl"),
    ]


def plain(decision):
    """A decision without its time (it differs between runs)."""
    d = dict(decision.to_dict() if isinstance(decision, txtfp.DecisionRecord) else decision)
    del d["decided_at"]
    return d


def ingest_one_by_one(store, docs):
    out = []
    for doc_id, text, source in docs:
        try:
            out.append(store.ingest(doc_id, text, source))
        except txtfp.TxtfpError as e:
            out.append(e)
    return out


def run_cli(cli, *args):
    done = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def cli_run(cli, tmp_path_factory):
    """The corpus through `txtfp store ingest`: (store folder, decisions)."""
    tmp = tmp_path_factory.mktemp("cli")
    (tmp / "store.toml").write_text(CONFIG)      # the metrics test reads it too
    src = tmp / "in.jsonl"
    src.write_text("".join(json.dumps({"id": i, "text": t, "src": s}) + "\n" for i, t, s in corpus()))
    run_cli(cli, "store", "ingest", src, "--config", tmp / "store.toml", "--root", tmp / "store",
            "--source-column", "src", "--decisions", tmp / "decisions.jsonl", "--batch", "7", "-q")
    lines = (tmp / "decisions.jsonl").read_text().splitlines()
    return tmp / "store", [json.loads(line) for line in lines]


def test_decisions_match_the_command_line_tool(cli_run, tmp_path):
    _, want = cli_run
    with txtfp.GlobalFingerprintStore(tmp_path / "s", toml=CONFIG) as store:
        got = ingest_one_by_one(store, corpus())
    refused = [e for e in got if isinstance(e, Exception)]
    assert len(refused) == 1 and "no words" in str(refused[0]) and "empty-1" in str(refused[0])
    assert [plain(d) for d in got if not isinstance(d, Exception)] == [plain(d) for d in want]
    actions = {d.action for d in got if isinstance(d, txtfp.DecisionRecord)}
    assert actions == {"accept", "drop", "replace", "link", "mark_partial"}
    by_id = {d.doc_id: d for d in got[-6:] if isinstance(d, txtfp.DecisionRecord) and not d.replayed}
    assert by_id["book-1"].action == "replace" and by_id["book-1"].superseded == ["crawl-1"]
    assert (by_id["crawl-2"].action, by_id["crawl-2"].matched_doc_id) == ("drop", "book-1")
    assert by_id["crawl-2"].reason["kind"] in ("sim_hash", "min_hash") and not by_id["crawl-2"].is_kept
    assert (by_id["wiki-1"].action, by_id["wiki-1"].linked_docs, by_id["wiki-1"].duplicate_chunks) == (
        "link", ["book-1"], [0])
    replay = got[-1]
    assert replay.replayed and replay.action == "accept" and replay.doc_id == "crawl-1"
    assert replay.to_dict()["replayed"] is True and want[-1]["replayed"] is True


def test_metrics_and_query_match_the_command_line_tool(cli, cli_run, tmp_path):
    cli_store, _ = cli_run
    root = tmp_path / "s"
    store = txtfp.GlobalFingerprintStore(root, toml=CONFIG)
    ingest_one_by_one(store, corpus())
    m = store.metrics()
    config = cli_store.parent / "store.toml"
    assert m == json.loads(run_cli(cli, "store", "metrics", "--json", "--config", config, "--root", cli_store))
    docs = len(corpus()) - 2          # the refused document and the replay are not counted
    assert (m["docs"], m["duplicates"], m["superseded"], m["linked"]) == (docs, docs - m["kept"], 1, 1)
    assert {s["source"] for s in m["sources"]} == {"kjv", "python-doc", "postgresql-doc", "crawl", "library", "wiki"}
    near = CHAPTER.replace("farmers", "neighbours")
    hits = store.query(near)
    assert hits[0]["doc_id"] == "book-1" and hits[0]["reason"]["kind"] in ("sim_hash", "min_hash")
    assert "crawl-1" not in [h["doc_id"] for h in hits]      # superseded: not live
    assert store.query("an unrelated sentence about something else entirely") == []
    # The same answer as the tool's, on this store once Python has closed it.
    store.close()
    assert store.closed and "closed" in repr(store)
    (tmp_path / "near.txt").write_text(near)
    line = run_cli(cli, "store", "query", "--config", config, "--root", root, tmp_path / "near.txt")
    assert json.loads(line)["matches"] == hits
    with pytest.raises(ValueError, match="closed"):
        store.query(near)
    store.close()                     # again: nothing


def test_batch_decides_as_one_at_a_time(tmp_path):
    docs = corpus()
    with txtfp.GlobalFingerprintStore(tmp_path / "one", toml=CONFIG) as store:
        one = ingest_one_by_one(store, docs)
    # Tuples of 2 to 4 items and mappings, the source of some by default.
    entries = []
    for i, (doc_id, text, source) in enumerate(docs):
        if source == "kjv":
            entries.append((doc_id, text))
        elif i % 3 == 0:
            entries.append({"id": doc_id, "text": text, "source": source})
        elif i % 3 == 1:
            entries.append({"doc_id": doc_id, "text": text.encode(), "source": source, "language": "en"})
        else:
            entries.append((doc_id, text, source, None))
    with txtfp.GlobalFingerprintStore(tmp_path / "batch", toml=CONFIG) as store:
        half = len(entries) // 2
        batch = store.ingest_batch(iter(entries[:half]), source="kjv")
        batch += store.ingest_batch(entries[half:], source="kjv")
        assert store.fingerprints(docs[1][0])[0]["language"] == "en"
    assert len(batch) == len(one)
    for a, b in zip(one, batch):
        if isinstance(a, Exception):
            assert isinstance(b, txtfp.TxtfpError) and str(b).endswith(str(a))
        else:
            assert plain(a) == plain(b)


def test_batch_entries_refused_alone_or_raised(tmp_path):
    with txtfp.GlobalFingerprintStore(tmp_path / "s") as store:
        out = store.ingest_batch([
            ("a", "a document with enough words in it", "web"),
            ("b", "", "web"),
            ("c", b"\xff\xfe not utf-8", "web"),
            ("d", "lone \ud800 surrogate", "web"),
            ("", "an empty id is refused", "web"),
            ("f", "a document with enough words in it", "web"),
        ])
        assert [type(x).__name__ for x in out] == ["DecisionRecord"] + ["TxtfpError"] * 4 + ["DecisionRecord"]
        assert "docs[2]" in str(out[2]) and "UTF-8" in str(out[2])
        assert "docs[3]" in str(out[3]) and "surrogates" in str(out[3])
        assert str(out[1]).startswith("docs[1]: invalid input:") and "no words" in str(out[1])
        assert "docs[4]" in str(out[4]) and "doc_id" in str(out[4])
        assert (out[5].action, out[5].matched_doc_id) == ("drop", "a")
        for bad, exc, msg in [
            ([("x",)], ValueError, r"docs\[0\]: a tuple"),
            ([("x", "text")], ValueError, "no source"),
            ([("x", 12, "web")], TypeError, "str or bytes"),
            ([("x", "t", "web"), 5], TypeError, r"docs\[1\]"),
            ([{"text": "no id"}], ValueError, "doc_id"),
            ([(1.5, "text", "web")], TypeError, "doc_id must be str or int"),
        ]:
            with pytest.raises(exc, match=msg):
                store.ingest_batch(bad)
        assert store.metrics()["docs"] == 2            # the raised batches stored nothing
        assert store.ingest(7, "an integer id becomes its decimal text", "web").doc_id == "7"
        assert store.document(7)["doc_id"] == "7"
        assert store.ingest_batch([]) == []


def test_reopen_keeps_everything_and_replays(tmp_path):
    root = tmp_path / "s"
    docs = corpus()
    with txtfp.GlobalFingerprintStore(root, toml=CONFIG) as store:
        first = ingest_one_by_one(store, docs)
        metrics = store.metrics()
        entries = {d: store.document(d) for d in ("book-1", "crawl-1", "crawl-2", "wiki-1")}
        prints = store.fingerprints("book-1")
        config = store.config
    assert entries["crawl-1"]["status"] == "superseded" and entries["crawl-1"]["superseded_by"] == "book-1"
    assert entries["crawl-2"]["status"] == "duplicate" and entries["book-1"]["status"] == "live"
    assert entries["book-1"]["document_type"] == "books"
    kinds = [p["fingerprint_type"] for p in prints]
    assert kinds[:2] == ["simhash", "minhash"] and set(kinds[2:]) == {"chunk"}
    assert prints[2]["fingerprint_id"] == "book-1/chunk/0" and prints[2]["chunk_id"] == 0
    assert len(prints[0]["value"]) == 16 and len(prints[2]["value"]) == 64
    assert prints[0]["fingerprint_version"] == "v1" and "max_hamming=3" in prints[0]["hash_params"]

    with txtfp.GlobalFingerprintStore(root, toml=config) as store:
        assert store.metrics() == metrics
        for d, entry in entries.items():
            again = store.document(d)
            assert again["decision"].to_dict() == entry["decision"].to_dict()
            assert {k: v for k, v in again.items() if k != "decision"} == {
                k: v for k, v in entry.items() if k != "decision"}
        assert store.fingerprints("book-1") == prints
        assert [p["fingerprint_type"] for p in store.fingerprints("crawl-2")][:2] == ["simhash", "minhash"]
        assert store.fingerprints("nobody") == [] and store.document("nobody") is None
        # Every stored id replays its first decision, time included; nothing is counted.
        for doc, was in zip(docs, first):
            if isinstance(was, Exception):
                continue
            replay = store.ingest(doc[0], "whatever text now", "elsewhere")
            want = dict(was.to_dict(), replayed=True)
            assert replay.replayed and replay.to_dict() == want
        assert store.metrics() == metrics


def test_hash_parameters_are_checked_at_open(tmp_path):
    with txtfp.GlobalFingerprintStore(tmp_path / "s", chunk_size=16):
        pass
    with pytest.raises(txtfp.TxtfpError, match="store parameter mismatch: chunk_size is 16 in the store, 32"):
        txtfp.GlobalFingerprintStore(tmp_path / "s", chunk_size=32)
    # Priorities may change between runs.
    with txtfp.GlobalFingerprintStore(tmp_path / "s", chunk_size=16, source_priority=["a", "b"]) as store:
        assert 'source_priority = ["a", "b"]' in store.config


def test_one_process_at_a_time(tmp_path):
    with txtfp.GlobalFingerprintStore(tmp_path / "s") as store:
        with pytest.raises(txtfp.TxtfpError, match="open in another process"):
            txtfp.GlobalFingerprintStore(tmp_path / "s")
        store.ingest("a", "some words to store", "web")
    # Closed: the folder is free again, for this process or another.
    with txtfp.GlobalFingerprintStore(tmp_path / "s") as store:
        assert store.document("a")["status"] == "live"


def test_settings_and_mark_duplicate(tmp_path):
    with txtfp.GlobalFingerprintStore(tmp_path / "s", on_duplicate="mark", simhash_max_hamming=2,
                                      minhash_threshold=0.8, fingerprint_version="exp-2") as store:
        assert 'on_duplicate = "mark"' in store.config and "minhash_threshold = 0.8" in store.config
        assert store.config.startswith("[global_fingerprints]")
        a = store.ingest("a", CHAPTER, "web", language="en")
        b = store.ingest("b", CHAPTER, "web")
        assert (a.action, b.action, b.matched_doc_id) == ("accept", "mark_duplicate", "a")
        assert b.is_kept and b.is_duplicate and not b.is_indexed and a.is_indexed
        assert store.fingerprints("a")[0]["language"] == "en"
        assert store.fingerprints("a")[0]["fingerprint_version"] == "exp-2"
        assert repr(b) == "DecisionRecord(doc_id=\"b\", action=\"mark_duplicate\", matched_doc_id=\"a\")"
    # config= names a TOML file; root_path overrides its root_path.
    path = tmp_path / "store.toml"
    path.write_text(f'root_path = "{tmp_path / "elsewhere"}"\n' + CONFIG.replace("[global_fingerprints]", ""))
    with txtfp.GlobalFingerprintStore(config=path) as store:
        assert 'chunk_size = 16' in store.config
    assert (tmp_path / "elsewhere" / "store.log").exists()
    with txtfp.GlobalFingerprintStore(tmp_path / "third", config=str(path)):
        pass
    assert (tmp_path / "third" / "store.log").exists()


def test_bad_configurations(tmp_path):
    s = tmp_path / "s"
    for kwargs, exc, msg in [
        (dict(chunk_size=8, chunk_overlap=8), txtfp.TxtfpError, r"chunk_overlap \(8\) must be smaller than chunk_size \(8\)"),
        (dict(chunk_sise=8), txtfp.TxtfpError, "unknown field `chunk_sise`"),
        (dict(chunk_size="big"), txtfp.TxtfpError, "invalid type"),
        (dict(minhash_num_perm=100), txtfp.TxtfpError, "minhash_num_perm must be 64, 128 or 256; got 100"),
        (dict(minhash_threshold=float("nan")), txtfp.TxtfpError, "minhash_threshold"),
        (dict(chunk_size=2**70), ValueError, "does not fit a TOML integer"),
        (dict(redis_url=None), ValueError, "None has no TOML form"),
        (dict(source_priority=[object()]), TypeError, "source_priority: a store setting is"),
        (dict(source_priority=[[[[[["deep"]]]]]]), ValueError, "nested too deeply"),
        (dict(backend="redis"), txtfp.TxtfpError, "needs redis_url"),
        (dict(backend="redis-cluster", redis_nodes=["http://x"]), txtfp.TxtfpError, "redis_nodes must start with redis://"),
        (dict(enabled=False), txtfp.TxtfpError, "enabled = false"),
        (dict(simhash=False, minhash=False, chunk_hash=False), txtfp.TxtfpError, "at least one of"),
        (dict(fingerprint_version="a\nb"), txtfp.TxtfpError, "fingerprint_version"),
    ]:
        with pytest.raises(exc, match=msg):
            txtfp.GlobalFingerprintStore(s, **kwargs)
    for toml, msg in [
        ("chunk_size = ", "global_fingerprints TOML"),
        ("[global_fingerprints]\nchunk_size = -1", "chunk_size"),
        ("[global_fingerprints]\nbackend = \"mongodb\"", "unknown variant `mongodb`"),
    ]:
        with pytest.raises(txtfp.TxtfpError, match=msg):
            txtfp.GlobalFingerprintStore(s, toml=toml)
    with pytest.raises(OSError, match="missing.toml"):
        txtfp.GlobalFingerprintStore(config=tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_text("chunk_size = [")
    with pytest.raises(txtfp.TxtfpError, match="bad.toml: config error: global_fingerprints TOML"):
        txtfp.GlobalFingerprintStore(config=tmp_path / "bad.toml")
    with pytest.raises(ValueError, match="name the store"):
        txtfp.GlobalFingerprintStore()
    with pytest.raises(ValueError, match="name the store"):
        txtfp.GlobalFingerprintStore(chunk_size=16)
    with pytest.raises(ValueError, match="not both"):
        txtfp.GlobalFingerprintStore(s, config=tmp_path / "bad.toml", toml="")
    with pytest.raises(ValueError, match="put them in the TOML"):
        txtfp.GlobalFingerprintStore(s, toml="", chunk_size=16)
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(OSError, match="cannot open the store"):
        txtfp.GlobalFingerprintStore(tmp_path / "file")
    assert not s.exists()             # nothing was created by a refused config


def test_bad_documents(tmp_path):
    with txtfp.GlobalFingerprintStore(tmp_path / "s", max_doc_bytes=100) as store:
        with pytest.raises(txtfp.TxtfpError, match="max_doc_bytes is 100"):
            store.ingest("big", "word " * 50, "web")
        with pytest.raises(txtfp.TxtfpError, match="no words"):
            store.ingest("empty", "", "web")
        with pytest.raises(txtfp.TxtfpError, match="source must be 1 to 1024 bytes"):
            store.ingest("x", "some words", "")
        with pytest.raises(txtfp.TxtfpError, match="control characters"):
            store.ingest("a\nb", "some words", "web")
        with pytest.raises(TypeError):
            store.ingest("x", None, "web")
        with pytest.raises(txtfp.TxtfpError, match="max_doc_bytes is 100"):
            store.query("word " * 50)
        assert store.metrics()["docs"] == 0 and store.document("big") is None


DAMAGE = {
    "truncated": lambda p: os.truncate(p, p.stat().st_size // 2),
    "zeroed": lambda p: p.write_bytes(b"\0" * p.stat().st_size),
    "emptied": lambda p: os.truncate(p, 0),
    "garbage": lambda p: p.write_bytes(bytes(range(256)) * (p.stat().st_size // 256 + 1)),
}


def open_damaged(root, probe, **settings):
    """("opened", what was repaired, docs) after using the store, or
    ("refused", message) for the exception it raised at open or at a call."""
    try:
        with txtfp.GlobalFingerprintStore(root, **settings) as store:
            docs = store.metrics()["docs"]
            hits = [h["doc_id"] for h in store.query(probe)]
            store.ingest("new-doc", CHAPTER, "crawl")
            assert store.metrics()["docs"] == docs + 1
            return "opened", store.recovered, docs, hits
    except (txtfp.TxtfpError, OSError) as e:
        return "refused", str(e)


def test_damaged_log_or_parameters_are_refused_or_cut(tmp_path):
    pristine = tmp_path / "pristine"
    docs = corpus()[:60]
    with txtfp.GlobalFingerprintStore(pristine, toml=CONFIG) as store:
        for i in range(0, 60, 10):                   # six commits
            store.ingest_batch(docs[i:i + 10])
    for name in ("params.json", "store.log"):
        for mode, damage in DAMAGE.items():
            root = tmp_path / f"{name}-{mode}"
            shutil.copytree(pristine, root)
            damage(root / name)
            got = open_damaged(root, docs[0][1], toml=CONFIG)
            if name == "params.json":
                assert got[0] == "refused" and "params" in got[1], got
            elif mode == "emptied":
                assert got[0] == "refused" and "store.log is empty" in got[1], got
            elif mode == "truncated":
                # The commit cut in two is dropped, the ones before it kept.
                assert got[0] == "opened" and got[2] == 30 and got[3] == [docs[0][0]], got
                assert len(got[1]) == 1 and "store.log: cut off" in got[1][0], got
            else:
                assert got[0] == "refused" or any("store.log" in n for n in got[1]), got
    with txtfp.GlobalFingerprintStore(pristine, toml=CONFIG) as store:
        assert store.recovered == [] and store.metrics()["docs"] == 60


def test_damaged_tables_are_rebuilt_or_refused(tmp_path):
    # Enough documents for a checkpoint: segments, docs.idx and MANIFEST.
    pristine = tmp_path / "pristine"
    with txtfp.GlobalFingerprintStore(pristine, chunk_size=16) as store:
        for b in range(0, 24000, 4000):
            store.ingest_batch([(f"d{i}", " ".join(f"w{i}x{j}" for j in range(64)), "web")
                                for i in range(b, b + 4000)])
    segments = sorted(p.name for p in pristine.glob("seg-*.seg"))
    assert segments and (pristine / "MANIFEST").exists() and (pristine / "docs.idx").exists()
    probe = " ".join(f"w5x{j}" for j in range(64))
    for name in ["MANIFEST", "docs.idx", segments[0]]:
        for mode in ("truncated", "garbage"):
            root = tmp_path / f"{name}-{mode}"
            shutil.copytree(pristine, root)
            DAMAGE[mode](root / name)
            got = open_damaged(root, probe, chunk_size=16)
            if got[0] == "refused":
                assert name == "docs.idx" and "corrupt data" in got[1], got
            else:
                assert got[2:] == (24000, ["d5"]), got
                assert any(name in n and "rebuilt the tables from the log" in n for n in got[1]), got
            shutil.rmtree(root)


def test_threads_share_one_store(tmp_path):
    docs = [(f"t{i}", f"thread document number {i} " + " ".join(f"w{i * 7 + j}" for j in range(30)), "web")
            for i in range(80)]
    dupes = [(f"copy-{d[0]}", d[1], "mirror") for d in docs]
    errors = []
    stored = threading.Barrier(4, timeout=120)      # the copies come after every original
    with txtfp.GlobalFingerprintStore(tmp_path / "s") as store:
        def work(i):
            try:
                for doc in docs[i::4]:
                    store.ingest(*doc)
                    store.query(doc[1])
                stored.wait()
                store.ingest_batch(dupes[10 * i:10 * i + 10])
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        m = store.metrics()
        assert (m["docs"], m["kept"], m["duplicates"]) == (120, 80, 40)
        assert all(store.document(d[0])["status"] == "live" for d in docs)

    # close() waits for a call under way on another thread: the batch is
    # stored whole, or (when close came first) refused whole.
    store = txtfp.GlobalFingerprintStore(tmp_path / "s")
    big = [(f"b{i}", f"batch document {i} " + "filler words " * 200, "web") for i in range(300)]
    result = []

    def batch():
        try:
            result.append(len(store.ingest_batch(big)))
        except ValueError as e:
            result.append(str(e))

    t = threading.Thread(target=batch)
    t.start()
    time.sleep(0.05)
    store.close()
    t.join()
    assert result in ([300], ["the store is closed"])
    with txtfp.GlobalFingerprintStore(tmp_path / "s") as store:
        assert store.metrics()["docs"] == (420 if result == [300] else 120)


def redis_settings(var):
    value = os.environ.get(var)
    if not value:
        if os.environ.get("TXTFP_REQUIRE_REDIS") == "1":
            pytest.fail(f"TXTFP_REQUIRE_REDIS=1 but {var} is not set")
        script = "setup-redis.sh" if var == "TXTFP_REDIS_URL" else "setup-redis-cluster.sh"
        pytest.skip(f"SKIPPED LOUDLY: {var} is not set (eval \"$(scripts/{script})\")")
    prefix = f"txtfp-py-{os.getpid()}-{time.time_ns()}"
    if var == "TXTFP_REDIS_URL":
        return f'backend = "redis"\nredis_url = "{value}"\nredis_prefix = "{prefix}"\n'
    nodes = ", ".join(f'"{n}"' for n in value.split(","))
    return f'backend = "redis-cluster"\nredis_nodes = [{nodes}]\nredis_prefix = "{prefix}"\nredis_lease_ms = 3000\n'


@pytest.mark.parametrize("var", ["TXTFP_REDIS_URL", "TXTFP_REDIS_CLUSTER"])
def test_redis_backends_decide_as_the_embedded_store(var, cli_run):
    backend = redis_settings(var)
    _, want = cli_run
    docs = corpus()
    toml = CONFIG.replace("[global_fingerprints]\n", "[global_fingerprints]\n" + backend)
    with txtfp.GlobalFingerprintStore(toml=toml) as store:
        got = store.ingest_batch(docs[:100]) + ingest_one_by_one(store, docs[100:])
        assert [plain(d) for d in got if not isinstance(d, Exception)] == [plain(d) for d in want]
        assert store.metrics()["docs"] == len(docs) - 2
        assert store.query(CHAPTER)[0]["doc_id"] == "book-1"
        assert "redis" in repr(store)
    # Another client of the same store sees everything.
    with txtfp.GlobalFingerprintStore(toml=toml) as store:
        assert store.document("crawl-1")["status"] == "superseded"
        assert store.ingest("book-1", CHAPTER, "library").replayed


def test_batches_run_without_the_gil(tmp_path):
    words = [f"w{k}" for k in range(5000)]
    docs = [(f"d{i}", " ".join(words[(i * 131 + j * 7) % 5000] for j in range(1000)), "web") for i in range(3000)]
    with txtfp.GlobalFingerprintStore(tmp_path / "s") as store:
        took = []

        def batch():
            start = time.perf_counter()
            store.ingest_batch(docs)
            took.append(time.perf_counter() - start)

        t = threading.Thread(target=batch)
        last, longest = time.perf_counter(), 0.0
        t.start()
        while t.is_alive():           # this thread keeps running while the store works
            now = time.perf_counter()
            longest, last = max(longest, now - last), now
            time.sleep(0.001)
        t.join()
        assert took and longest < took[0] / 3, (longest, took)
        assert store.metrics()["docs"] == 3000
