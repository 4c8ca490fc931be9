#!/bin/bash
# Kill and resume: SIGKILL `txtfp dedup` at random moments of an out-of-core
# run, start it again with the same arguments each time, and check that the
# finished run's kept shards, clusters and duplicates are byte-identical to
# an uninterrupted run's.
#
#   scripts/bench/kill_resume.sh CORPUS_DIR [KILLS=5] [MEMORY=1GiB]
#
# Uses target/release/txtfp (TXTFP=... to override). Needs about three times
# the corpus's compressed size of free disk under $OUT (default /tmp/kr).
set -eu
corpus=$1; kills=${2:-5}; memory=${3:-1GiB}
txtfp=${TXTFP:-target/release/txtfp}
out=${OUT:-/tmp/kr}
rm -rf "$out"; mkdir -p "$out"

digest() { (cd "$1" && find kept -type f | sort | xargs sha256sum; sha256sum clusters.jsonl duplicates.jsonl); }

start=$(date +%s.%N)
"$txtfp" dedup "$corpus" --output "$out/whole" --memory "$memory" -q
whole=$(python3 -c "import time; print(round(time.time() - $start, 1))")
echo "uninterrupted run: ${whole} s"

args=(dedup "$corpus" --output "$out/killed" --memory "$memory" --work-dir "$out/work" -q)
for i in $(seq 1 "$kills"); do
  delay=$(python3 -c "import random; print(round(random.uniform(0.5, $whole * 0.9), 2))")
  "$txtfp" "${args[@]}" & pid=$!
  sleep "$delay"
  if kill -9 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || true
    stages=$(ls "$out/work" 2>/dev/null | grep -c '\.done$' || true)
    echo "kill $i at ${delay} s: ${stages} stages had finished"
  else
    wait "$pid" || true
    echo "kill $i at ${delay} s: the run had already finished"
  fi
done
"$txtfp" "${args[@]}"
if diff <(digest "$out/whole") <(digest "$out/killed") > /dev/null; then
  echo "resumed output identical to the uninterrupted run"
else
  echo "OUTPUTS DIFFER"; exit 1
fi
