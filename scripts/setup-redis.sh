#!/usr/bin/env bash
# Start a throwaway Redis server for the `store-redis` tests and benchmarks,
# and print the environment that points them at it:
#
#   eval "$(scripts/setup-redis.sh)"
#   # -> export TXTFP_REDIS_URL=redis://127.0.0.1:PORT/
#
# - Installs Debian's redis-server (apt-get) when it is missing.
# - Listens on 127.0.0.1 only, on a free port, in a fresh temporary
#   directory, with persistence off (--save '' --appendonly no): the data is
#   test data. Every test uses its own key prefix, so one server serves all.
# - With TXTFP_REDIS_OWNER_PID set (scripts/test.sh passes its own PID), the
#   server is shut down when that process exits; otherwise it keeps running
#   and the command that stops it is printed on stderr.
#
# Progress goes to stderr; stdout carries only the `export` lines.
set -euo pipefail
log() { printf '[setup-redis] %s\n' "$*" >&2; }

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  log "installing redis-server (Debian)"
  if ! apt-get install -y redis-server >&2; then
    apt-get update >&2
    apt-get install -y redis-server >&2
  fi
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d "${TMPDIR:-/tmp}/txtfp-redis.XXXXXX")
redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no \
  --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >&2
for _ in $(seq 1 200); do
  if redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then break; fi
  sleep 0.05
done
if ! redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then
  log "redis-server did not answer on 127.0.0.1:$port (log: $dir/redis.log)"
  exit 1
fi
log "redis-server $(redis-server --version | awk '{print $3}') on 127.0.0.1:$port (dir $dir)"

if [[ -n ${TXTFP_REDIS_OWNER_PID:-} ]]; then
  owner=$TXTFP_REDIS_OWNER_PID
  # The watchdog runs in a session of its own (a harness that kills the
  # owner's process group must not kill it first) and must not hold this
  # script's stdout, or `$(...)` would wait for it.
  setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done
    redis-cli -p "$2" shutdown nosave; rm -rf "$3"' watchdog "$owner" "$port" "$dir" \
    </dev/null >/dev/null 2>&1 &
else
  log "stop it with: redis-cli -p $port shutdown nosave && rm -rf $dir"
fi
echo "export TXTFP_REDIS_URL=redis://127.0.0.1:$port/"
