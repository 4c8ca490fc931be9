#!/usr/bin/env python3
"""A stand-in for the Hugging Face Hub on 127.0.0.1, for tests/semantic/hub.rs.

    semantic_hf_mock.py CONFIG.json

CONFIG maps repo ids to {"files": {rfilename: local path}, "fail": [rfilename...]}.
Serves what the Hub serves to txtfp's client (and to other clients):
  GET /api/models/<id>/revision/main       -> {"sha": ..., "siblings": [{"rfilename": ...}]}
  GET /<id>/resolve/<main or sha>/<file>   -> the file (206 with etag, x-repo-commit,
                                              content-range; a Range header is honoured)
  .onnx and *_data files (LFS on the real Hub) answer 302 to /lfs/<id>/<file>,
  which serves them like resolve does.
Unknown repos, revisions and files are 404; files listed under "fail" answer 500.
Prints "PORT <n>" on stdout once listening; stops after 120 s or on SIGTERM.
Standard library only.
"""

import hashlib
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CONFIG = json.load(open(sys.argv[1], encoding="utf-8"))
COMMIT = "0123456789abcdef0123456789abcdef01234567"


class Hub(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep test output quiet
        pass

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        m = re.fullmatch(r"/api/models/(.+)/revision/main", self.path)
        if m:
            repo = CONFIG.get(m.group(1))
            if repo is None:
                return self.send(404, b'{"error":"Repository not found"}', [("Content-Type", "application/json")])
            info = {"sha": COMMIT, "siblings": [{"rfilename": f} for f in repo["files"]]}
            return self.send(200, json.dumps(info).encode(), [("Content-Type", "application/json")])
        lfs = re.fullmatch(r"/lfs/(.+?/[^/]+)/(.+)", self.path)
        m = lfs or re.fullmatch(r"/(.+?/[^/]+)/resolve/([^/]+)/(.+)", self.path)
        repo = CONFIG.get(m.group(1)) if m else None
        name = m.group(m.lastindex) if m else None
        if repo is None or name not in repo["files"] or (not lfs and m.group(2) not in ("main", COMMIT)):
            return self.send(404, b"Entry not found")
        if name in repo.get("fail", []):
            return self.send(500, b"internal error")
        if not lfs and (name.endswith(".onnx") or name.endswith("_data")):
            return self.send(302, b"", [("Location", f"/lfs/{m.group(1)}/{name}")])
        data = open(repo["files"][name], "rb").read()
        start = 0
        end = len(data) - 1
        rng = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if rng:
            start = int(rng.group(1))
            if rng.group(2):
                end = min(end, int(rng.group(2)))
        etag = hashlib.sha256(data).hexdigest()
        self.send(
            206,
            data[start : end + 1],
            [
                ("ETag", f'"{etag}"'),
                ("X-Repo-Commit", COMMIT),
                ("Content-Range", f"bytes {start}-{end}/{len(data)}"),
            ],
        )


server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
stopper = threading.Timer(120, server.shutdown)
stopper.daemon = True
stopper.start()
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
os._exit(0)
