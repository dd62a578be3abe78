#!/usr/bin/env bash
# Builds a libFuzzer target and runs it.
#
#   scripts/fuzz.sh <FuzzHTTPHead|FuzzChunked|FuzzMultipart|FuzzConfigFile|FuzzRequestText> <seconds> [libFuzzer flags, e.g. -runs=1000000]
#
# swiftc builds FiledropCore and the entry point directly with -sanitize=fuzzer,address
# (SwiftPM's `swift build -sanitize=fuzzer` does not link a libFuzzer main for an executable
# target). Outputs, the working corpus and crash artifacts go under .build/fuzz/<target>/;
# the checked-in seeds in Fuzz/corpus/<name>/ are only read. Exits non-zero on a crash.
set -euo pipefail

usage() {
    echo "usage: $0 <FuzzHTTPHead|FuzzChunked|FuzzMultipart|FuzzConfigFile|FuzzRequestText> <seconds> [libFuzzer flags...]" >&2
    exit 2
}
[ $# -ge 2 ] || usage
target=$1
seconds=$2
shift 2
case $target in
    FuzzHTTPHead) seeds=http-head ;;
    FuzzChunked) seeds=chunked ;;
    FuzzMultipart) seeds=multipart ;;
    FuzzConfigFile) seeds=config-file ;;
    FuzzRequestText) seeds=request-text ;;
    *) usage ;;
esac
[[ $seconds =~ ^[0-9]+$ ]] || usage

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f "Fuzz/$target/main.swift" ] || { echo "Fuzz/$target/main.swift does not exist" >&2; exit 2; }
out=.build/fuzz
mkdir -p "$out/lib" "$out/$target/corpus"

flags=(-sanitize=fuzzer,address -parse-as-library -O -g)
echo "building FiledropCore and $target with libFuzzer + ASan..." >&2
mapfile -t core < <(find Sources/FiledropCore -name '*.swift' | sort)
swiftc "${flags[@]}" -module-name FiledropCore -emit-module -emit-module-path "$out/lib/FiledropCore.swiftmodule" \
    -emit-library -static -o "$out/lib/libFiledropCore.a" "${core[@]}"
swiftc "${flags[@]}" -module-name "$target" -I "$out/lib" -L "$out/lib" -lFiledropCore \
    "Fuzz/$target/main.swift" -o "$out/$target/$target"

seedDirectory=()
[ -d "Fuzz/corpus/$seeds" ] && seedDirectory=("Fuzz/corpus/$seeds")
export SWIFT_BACKTRACE=enable=no
exec "$out/$target/$target" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$out/$target/" "$@" "$out/$target/corpus" "${seedDirectory[@]}"
