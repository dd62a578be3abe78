#!/usr/bin/env bash
# Times HTTPHeadParser + BodyFraming.of on a browser-shaped head (release build, no sanitizers).
#
#   scripts/bench-head-parser.sh [iterations]
#
# Built with swiftc directly so the default package build stays free of benchmark targets;
# outputs go under .build/bench/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=.build/bench
mkdir -p "$out/lib"
mapfile -t core < <(find Sources/FiledropCore -name '*.swift' | sort)
swiftc -O -wmo -parse-as-library -module-name FiledropCore -emit-module -emit-module-path "$out/lib/FiledropCore.swiftmodule" \
    -emit-library -static -o "$out/lib/libFiledropCore.a" "${core[@]}"
swiftc -O -parse-as-library -module-name HeadParserBenchmark -I "$out/lib" -L "$out/lib" -lFiledropCore \
    bench/head-parser/main.swift -o "$out/head-parser"
"$out/head-parser" "$@"
