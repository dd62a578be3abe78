#!/usr/bin/env bash
# Small-file requests per second, filedrop against one peer, in alternating rounds:
#
#   bench/wrk_alternating.sh [ROUNDS] [SECONDS]     (default 8 rounds of 10 s each)
#   PEER=lighttpd bench/wrk_alternating.sh          (the peer: nginx, the default, or lighttpd)
#   CLOSE=1 bench/wrk_alternating.sh                (one request per connection: wrk's
#                                                    -H 'Connection: close', the wrkclose row)
#
# Each round starts a fresh filedrop and a fresh peer, each with the command line and
# configuration `make bench` uses (bench/servers.py), runs
# `wrk -t2 -c64 -d<SECONDS>s` on the same 4 KiB file against each, and stops both. The two
# are close and one 10-second run on the 2-core VM swings by ±15%, so the medians of paired
# rounds, and how often filedrop is ahead, say more than `make bench`'s rotating medians.
# Needs `make build`, the peer and wrk (make bench installs them). Loopback only.
set -euo pipefail

rounds=${1:-8}
seconds=${2:-10}
peer=${PEER:-nginx}
case $peer in nginx|lighttpd) ;; *) echo "PEER is nginx or lighttpd" >&2; exit 2 ;; esac
close=()
[ -n "${CLOSE:-}" ] && close=(-H "Connection: close")
root=$(cd "$(dirname "$0")/.." && pwd)
binary=$root/.build/release/filedrop
[ -x "$binary" ] || { echo "run make build first" >&2; exit 2; }
command -v "$peer" >/dev/null && command -v wrk >/dev/null || { echo "needs $peer and wrk (make bench installs them)" >&2; exit 2; }

work=$(mktemp -d /tmp/filedrop-wrk-XXXXXX)
trap 'rm -rf "$work"' EXIT
head -c 4096 /dev/urandom > "$work/small.bin"

# Each server as `make bench` starts it (bench/servers.py writes nginx's configuration):
# prints its URL for small.bin, then its command line, one argument per line.
server() {
    local key=$1 port=$2
    mkdir -p "$work/$key/files"
    cp "$work/small.bin" "$work/$key/files/small.bin"
    python3 - "$root" "$work/$key" "$port" "$key" <<'EOF'
import sys
from pathlib import Path
from types import SimpleNamespace
repo, root, port, key = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, str(repo / "bench"))
from servers import Filedrop, Lighttpd, Nginx
kind = {"filedrop": lambda: Filedrop(fsync=True), "nginx": Nginx, "lighttpd": Lighttpd}[key]()
tools = SimpleNamespace(filedrop=repo / ".build/release/filedrop", web_root=repo / "web")
print(f"http://127.0.0.1:{port}{kind.get_prefix}small.bin")
print("\n".join(kind.argv(root, port, tools)))
EOF
}
mapfile -t filedrop_server < <(server filedrop 18490)
mapfile -t peer_server < <(server "$peer" 18491)

# Given a URL and a command line: starts the server, waits until the URL answers with the
# file, runs wrk, stops the server; prints req/s. (Runs in a subshell: it stops its own server.)
measure() {
    local url=$1
    shift
    "$@" >/dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 50); do curl -sf -o /dev/null "$url" && break; sleep 0.1; done
    if ! cmp -s <(curl -sf "$url") "$work/small.bin"; then
        kill "$pid"
        echo "wrong bytes from $url" >&2
        exit 1
    fi
    wrk -t2 -c64 -d"${seconds}s" "${close[@]}" "$url" | awk '/Requests\/sec/ { print $2 }'
    kill "$pid"
    wait "$pid" 2>/dev/null || true
}

filedrop_runs=()
peer_runs=()
for round in $(seq "$rounds"); do
    f=$(measure "${filedrop_server[@]}")
    p=$(measure "${peer_server[@]}")
    filedrop_runs+=("$f")
    peer_runs+=("$p")
    echo "round $round: filedrop $f req/s, $peer $p req/s"
done

python3 - "$peer" "${filedrop_runs[*]}" "${peer_runs[*]}" <<'EOF'
import statistics, sys
peer = sys.argv[1]
filedrop = [float(x) for x in sys.argv[2].split()]
other = [float(x) for x in sys.argv[3].split()]
ahead = sum(f > p for f, p in zip(filedrop, other))
print(f"median: filedrop {statistics.median(filedrop):,.0f} req/s, {peer} {statistics.median(other):,.0f} req/s, "
      f"filedrop ÷ {peer} {statistics.median(filedrop) / statistics.median(other):.2f} "
      f"(median of the rounds' ratios {statistics.median(f / p for f, p in zip(filedrop, other)):.2f}); "
      f"filedrop ahead in {ahead} of {len(filedrop)} rounds")
EOF
