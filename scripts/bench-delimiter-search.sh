#!/usr/bin/env bash
# Times MultipartParser.parse (its delimiter search) on 256 KiB pieces of random and of
# text payload (release build, no sanitizers).
#
#   scripts/bench-delimiter-search.sh [MiB per payload, default 256] [passes, default 5]
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
swiftc -O -parse-as-library -module-name DelimiterSearchBenchmark -I "$out/lib" -L "$out/lib" -lFiledropCore \
    bench/delimiter-search/main.swift -o "$out/delimiter-search"
"$out/delimiter-search" "$@"
