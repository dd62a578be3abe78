#!/usr/bin/env bash
# Builds and runs one of the core's micro-benchmarks (release build, no sanitizers):
#
#   scripts/bench-core.sh head-parser [iterations]
#       HTTPHeadParser + BodyFraming.of on a browser-shaped head
#   scripts/bench-core.sh delimiter-search [MiB per payload, default 256] [passes, default 5]
#       MultipartParser.parse on 256 KiB pieces of random and of text payload
#
# Each is bench/<name>/main.swift, built with swiftc directly so the default package build
# stays free of benchmark targets; outputs go under .build/bench/.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 <head-parser|delimiter-search> [arguments...]" >&2; exit 2; }
name=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f "bench/$name/main.swift" ] || { echo "bench/$name/main.swift does not exist" >&2; exit 2; }
out=.build/bench
mkdir -p "$out/lib"
mapfile -t core < <(find Sources/FiledropCore -name '*.swift' | sort)
# Sources a benchmark shares with the unit tests, compiled in beside its entry point.
shared=()
[ "$name" = delimiter-search ] && shared=(Tests/FiledropTesting/SeededGenerator.swift)
swiftc -O -wmo -parse-as-library -module-name FiledropCore -emit-module -emit-module-path "$out/lib/FiledropCore.swiftmodule" \
    -emit-library -static -o "$out/lib/libFiledropCore.a" "${core[@]}"
swiftc -O -parse-as-library -module-name Benchmark -I "$out/lib" -L "$out/lib" -lFiledropCore \
    "bench/$name/main.swift" "${shared[@]}" -o "$out/$name"
"$out/$name" "$@"
