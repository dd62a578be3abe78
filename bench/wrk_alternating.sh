#!/usr/bin/env bash
# Small-file requests per second, filedrop against nginx only, in alternating rounds:
#
#   bench/wrk_alternating.sh [ROUNDS] [SECONDS]     (default 8 rounds of 10 s each)
#
# Each round starts a fresh filedrop (--log-level warning, as `make bench` runs it) and a fresh
# nginx (the configuration `make bench` writes: sendfile, tcp_nopush, access_log off), runs
# `wrk -t2 -c64 -d<SECONDS>s` on the same 4 KiB file against each, and stops both. The two
# are close (about 12-13 µs of CPU per request each on the 2-core VM) and one 10-second run
# swings by ±15%, so the medians of many alternating rounds say more than `make bench`'s three.
# Needs `make build`, nginx and wrk (make bench installs them). Loopback only.
set -euo pipefail

rounds=${1:-8}
seconds=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
binary=$root/.build/release/filedrop
[ -x "$binary" ] || { echo "run make build first" >&2; exit 2; }
command -v nginx >/dev/null && command -v wrk >/dev/null || { echo "needs nginx and wrk (make bench installs them)" >&2; exit 2; }

work=$(mktemp -d /tmp/filedrop-wrk-XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/save" "$work/nginx/files/files" "$work/nginx/body-temp"
head -c 4096 /dev/urandom > "$work/save/small.bin"
cp "$work/save/small.bin" "$work/nginx/files/files/small.bin"
cat > "$work/nginx/nginx.conf" <<EOF
user root;
worker_processes auto;
worker_rlimit_nofile 8192;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65s;
    client_body_temp_path $work/nginx/body-temp;
    server {
        listen 127.0.0.1:18491;
        root $work/nginx/files;
    }
}
EOF

# Starts "$@" in the background, waits until URL answers, runs wrk, stops it; prints req/s.
measure() {
    local url=$1
    shift
    "$@" >/dev/null 2>&1 &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 50); do curl -sf -o /dev/null "$url" && break; sleep 0.1; done
    cmp -s <(curl -sf "$url") "$work/save/small.bin" || { echo "wrong bytes from $url" >&2; exit 1; }
    wrk -t2 -c64 -d"${seconds}s" "$url" | awk '/Requests\/sec/ { print $2 }'
    kill "$pid"
    wait "$pid" 2>/dev/null || true
}

filedrop_runs=()
nginx_runs=()
for round in $(seq "$rounds"); do
    f=$(measure http://127.0.0.1:18490/files/small.bin "$binary" --config "" --listen 127.0.0.1:18490 \
        --save-dir "$work/save" --web-root "$root/web" --log-level warning)
    n=$(measure http://127.0.0.1:18491/files/small.bin nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -g "daemon off;")
    filedrop_runs+=("$f")
    nginx_runs+=("$n")
    echo "round $round: filedrop $f req/s, nginx $n req/s"
done

python3 - "${filedrop_runs[*]}" "${nginx_runs[*]}" <<'EOF'
import statistics, sys
filedrop = [float(x) for x in sys.argv[1].split()]
nginx = [float(x) for x in sys.argv[2].split()]
ahead = sum(f > n for f, n in zip(filedrop, nginx))
print(f"median: filedrop {statistics.median(filedrop):,.0f} req/s, nginx {statistics.median(nginx):,.0f} req/s, "
      f"filedrop ÷ nginx {statistics.median(filedrop) / statistics.median(nginx):.2f}; "
      f"filedrop ahead in {ahead} of {len(filedrop)} rounds")
EOF
