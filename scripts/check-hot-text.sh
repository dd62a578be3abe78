#!/usr/bin/env bash
# scripts/check-hot-text.sh [BINARY]: fails when fewer than half of the functions named in
# Sources/filedrop/hot-text.order are in BINARY (default .build/release/filedrop). The linker
# skips names that are gone without a word, so a list that has gone stale would silently stop
# doing its work; when this fails, make it again with scripts/hot-text.py.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/.build/release/filedrop}
order=$root/Sources/filedrop/hot-text.order
[ -x "$binary" ] || { echo "check-hot-text: $binary is not built" >&2; exit 2; }
listed=$(grep -v '^#' "$order" | sort -u)
total=$(wc -l <<<"$listed")
present=$(comm -12 <(printf '%s\n' "$listed") <(nm --defined-only "$binary" | awk '{print $3}' | sort -u) | wc -l)
echo "check-hot-text: $present of $total ordered functions are in $binary"
if [ $((present * 2)) -lt "$total" ]; then
    echo "check-hot-text: most of hot-text.order is missing: run scripts/hot-text.py $binary" >&2
    exit 1
fi
