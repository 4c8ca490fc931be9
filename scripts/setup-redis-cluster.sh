#!/usr/bin/env bash
# Start a throwaway three-master Redis Cluster for the cluster-store tests
# and benchmarks, and print the environment that points them at it:
#
#   eval "$(scripts/setup-redis-cluster.sh)"
#   # -> export TXTFP_REDIS_CLUSTER=redis://127.0.0.1:P1/,redis://127.0.0.1:P2/,redis://127.0.0.1:P3/
#   #    export TXTFP_REDIS_CLUSTER_DIR=/tmp/txtfp-cluster.XXXXXX
#
# - Installs Debian's redis-server (apt-get) when it is missing.
# - Three masters on 127.0.0.1, free ports, no replicas, each in its own
#   directory under TXTFP_REDIS_CLUSTER_DIR (node N in $dir/N, its port in
#   $dir/N/port), AOF on (`appendfsync everysec`): a master killed and
#   restarted from its directory comes back with every write it replied to.
# - With TXTFP_REDIS_OWNER_PID set (scripts/test.sh passes its own PID), the
#   cluster is shut down when that process exits; otherwise the command that
#   stops it is printed on stderr.
#
# Progress goes to stderr; stdout carries only the `export` lines.
set -euo pipefail
log() { printf '[setup-redis-cluster] %s\n' "$*" >&2; }

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  log "installing redis-server (Debian)"
  if ! apt-get install -y redis-server >&2; then
    apt-get update >&2
    apt-get install -y redis-server >&2
  fi
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/txtfp-cluster.XXXXXX")
# A cluster node also listens on its port + 10000 (the cluster bus), so
# the port must be at most 55535 and both must be free.
ports=$(python3 -c '
import random, socket
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); return True
    except OSError:
        return False
    finally:
        s.close()
got = []
while len(got) < 3:
    p = random.randint(20000, 45000)
    if p not in got and free(p) and free(p + 10000):
        got.append(p)
print(" ".join(map(str, got)))')
urls=() addrs=() n=0
for port in $ports; do
  n=$((n + 1))
  mkdir -p "$dir/$n"
  echo "$port" > "$dir/$n/port"
  # The node's own start command, reused by tests that kill and restart it.
  cat > "$dir/$n/start.sh" <<START
#!/bin/sh
cd "$dir/$n" && exec redis-server --port $port --bind 127.0.0.1 --daemonize yes \
  --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
  --appendonly yes --appendfsync everysec --save '' \
  --dir "$dir/$n" --pidfile "$dir/$n/redis.pid" --logfile "$dir/$n/redis.log"
START
  chmod +x "$dir/$n/start.sh"
  "$dir/$n/start.sh" >&2
  urls+=("redis://127.0.0.1:$port/")
  addrs+=("127.0.0.1:$port")
done
for port in $ports; do
  for _ in $(seq 1 200); do
    if redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then break; fi
    sleep 0.05
  done
done
stop="for p in $ports; do redis-cli -p \$p shutdown nosave >/dev/null 2>&1; done; rm -rf $dir"
echo yes | redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 >"$dir/create.log" 2>&1 || {
  log "redis-cli --cluster create failed:"; cat "$dir/create.log" >&2; eval "$stop"; exit 1; }
first=${ports%% *}
for _ in $(seq 1 200); do
  if redis-cli -p "$first" cluster info 2>/dev/null | grep -q 'cluster_state:ok'; then break; fi
  sleep 0.05
done
if ! redis-cli -p "$first" cluster info 2>/dev/null | grep -q 'cluster_state:ok'; then
  log "the cluster did not reach state ok:"; tail -5 "$dir"/*/redis.log >&2; eval "$stop"
  exit 1
fi
log "redis-server $(redis-server --version | awk '{print $3}'): 3 masters on ports $ports (dir $dir)"

if [[ -n ${TXTFP_REDIS_OWNER_PID:-} ]]; then
  owner=$TXTFP_REDIS_OWNER_PID
  setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done; eval "$2"' \
    watchdog "$owner" "$stop" </dev/null >/dev/null 2>&1 &
else
  log "stop it with: $stop"
fi
(IFS=,; echo "export TXTFP_REDIS_CLUSTER=${urls[*]}")
echo "export TXTFP_REDIS_CLUSTER_DIR=$dir"
