#!/usr/bin/env bash
# A real Spark standalone cluster on 127.0.0.1 for the Python package's Spark
# tests, run by scripts/test.sh: a master and two workers of one core and
# 1 GiB each, as separate JVMs, from PyPI's pyspark (installed into the
# Python tests' venv) on Debian's OpenJDK 17.
#
#   eval "$(scripts/setup-spark.sh)"
#   TXTFP_PY_VENV=DIR          the venv (default target/py-venv-txtfp); its
#                              python runs the executors (PYSPARK_PYTHON)
#   TXTFP_SPARK_WORKER_MEMORY  memory of each worker (default 1g; the
#                              benchmarks on gigabytes of text want 3g)
#   TXTFP_SPARK_OWNER_PID=PID  stop the cluster when PID exits (test.sh);
#                              otherwise the command that stops it is printed
#
# Progress goes to stderr; stdout carries only the `export` lines.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf '[setup-spark] %s\n' "$*" >&2; }

if ! command -v java >/dev/null; then
  log "installing OpenJDK 17 (Debian)"
  apt-get install -y openjdk-17-jre-headless >&2 || { apt-get update >&2; apt-get install -y openjdk-17-jre-headless >&2; }
fi
venv=${TXTFP_PY_VENV:-target/py-venv-txtfp}
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv" >&2
fi
venv=$(cd "$venv" && pwd)
if ! "$venv/bin/python" -c 'import pyspark, pyarrow, pandas' 2>/dev/null; then
  log "installing pyspark 4.3.0, pyarrow, pandas into $venv"
  "$venv/bin/pip" install --quiet 'pyspark==4.3.0' pyarrow 'pandas<3' >&2
fi
spark_home=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
read -r port ui w1 w2 < <("$venv/bin/python" - <<'PY'
import socket
socks = [socket.socket() for _ in range(4)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
PY
)
dir=$(mktemp -d "${TMPDIR:-/tmp}/txtfp-spark.XXXXXX")
export SPARK_HOME=$spark_home PYSPARK_PYTHON=$venv/bin/python SPARK_LOCAL_IP=127.0.0.1
export SPARK_LOG_DIR=$dir/logs SPARK_WORKER_DIR=$dir/work SPARK_NO_DAEMONIZE=1
mkdir -p "$SPARK_LOG_DIR" "$SPARK_WORKER_DIR"
class="$spark_home/bin/spark-class"
setsid "$class" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$port" \
  --webui-port "$ui" </dev/null >"$dir/master.log" 2>&1 &
echo $! >"$dir/pids"
for w in "$w1" "$w2"; do
  setsid "$class" org.apache.spark.deploy.worker.Worker "spark://127.0.0.1:$port" --cores 1 \
    --memory "${TXTFP_SPARK_WORKER_MEMORY:-1g}" --webui-port "$w" --work-dir "$SPARK_WORKER_DIR" </dev/null >"$dir/worker-$w.log" 2>&1 &
  echo $! >>"$dir/pids"
done
alive=0
for _ in $(seq 1 120); do
  alive=$("$venv/bin/python" - "$ui" <<'PY' 2>/dev/null || echo 0
import json, sys, urllib.request
with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/json/", timeout=2) as r:
    print(json.load(r).get("aliveworkers", 0))
PY
)
  [[ $alive -ge 2 ]] && break
  sleep 1
done
if [[ $alive -lt 2 ]]; then
  log "the cluster did not come up ($alive workers alive); logs in $dir:"
  tail -n 20 "$dir"/*.log >&2 || true
  xargs kill <"$dir/pids" 2>/dev/null || true
  exit 1
fi
log "Spark $("$venv/bin/python" -c 'import pyspark; print(pyspark.__version__)') master spark://127.0.0.1:$port, 2 workers of 1 core and ${TXTFP_SPARK_WORKER_MEMORY:-1g} (logs in $dir)"
stop="xargs kill <$dir/pids; sleep 1; rm -rf $dir"
if [[ -n ${TXTFP_SPARK_OWNER_PID:-} ]]; then
  setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done; eval "$2"' watchdog \
    "$TXTFP_SPARK_OWNER_PID" "$stop" </dev/null >/dev/null 2>&1 &
else
  log "stop it with: $stop"
fi
printf 'export TXTFP_SPARK_MASTER=%q SPARK_HOME=%q PYSPARK_PYTHON=%q SPARK_LOCAL_IP=127.0.0.1\n' \
  "spark://127.0.0.1:$port" "$spark_home" "$venv/bin/python"
