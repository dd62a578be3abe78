#!/usr/bin/env bash
# Builds a libFuzzer target and runs it.
#
#   scripts/fuzz.sh <FuzzHTTPHead|FuzzChunked|FuzzMultipart|FuzzConfigFile|FuzzRequestText|FuzzConnection|FuzzCatalogue|FuzzLocalSend|FuzzControl> <seconds> [libFuzzer flags, e.g. -runs=1000000]
#
# swiftc builds FiledropHTTP, FiledropCore and the entry point directly with -sanitize=fuzzer,address
# (SwiftPM's `swift build -sanitize=fuzzer` does not link a libFuzzer main for an executable
# target). Outputs, the working corpus and crash artifacts go under .build/fuzz/<target>/;
# the checked-in seeds in Fuzz/corpus/<name>/ are only read. Exits non-zero on a crash.
#
# FUZZ_SANITIZERS=fuzzer drops AddressSanitizer for long runs: about three times the inputs
# per second. It builds with -assert-config Debug instead, so the standard library's debug
# checks stay on in the optimised code (the bounds of every UnsafeBufferPointer access, which
# -O alone removes), besides Swift's usual bounds and overflow traps. The default,
# fuzzer,address, is what `make test` and `make fuzz` use.
set -euo pipefail

usage() {
    echo "usage: $0 <FuzzHTTPHead|FuzzChunked|FuzzMultipart|FuzzConfigFile|FuzzRequestText|FuzzConnection|FuzzCatalogue|FuzzLocalSend|FuzzControl> <seconds> [libFuzzer flags...]" >&2
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
    FuzzConnection) seeds=connection ;;
    FuzzCatalogue) seeds=catalogue ;;
    FuzzLocalSend) seeds=localsend ;;
    FuzzControl) seeds=control ;;
    *) usage ;;
esac
# Sources a target shares with the unit tests, compiled in beside its entry point.
shared=()
[ "$target" = FuzzConnection ] && shared=(Tests/FiledropTesting/PausingConsumer.swift)
[[ $seconds =~ ^[0-9]+$ ]] || usage

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f "Fuzz/$target/main.swift" ] || { echo "Fuzz/$target/main.swift does not exist" >&2; exit 2; }
sanitizers=${FUZZ_SANITIZERS:-fuzzer,address}
[[ $sanitizers =~ ^fuzzer(,address)?$ ]] || { echo "FUZZ_SANITIZERS must be fuzzer or fuzzer,address" >&2; exit 2; }
out=.build/fuzz
# Each sanitizer set has its own library and binaries; the working corpus is shared.
build=$out/${sanitizers/,/-}
mkdir -p "$build/lib" "$out/$target/corpus"

flags=(-sanitize="$sanitizers" -parse-as-library -O -g)
[ "$sanitizers" = fuzzer ] && flags+=(-assert-config Debug)
# -enable-testing: a target may `@testable import` the engine or the application to reach
# internal parsers (tus).
library_flags=(-enable-testing)
mapfile -t engine < <(find Sources/FiledropHTTP -name '*.swift' | sort)
mapfile -t core < <(find Sources/FiledropCore -name '*.swift' | sort)
engine_library=$build/lib/libFiledropHTTP.a
library=$build/lib/libFiledropCore.a
binary=$build/$target

# True when $1 is missing or older than any later argument (make's rule, without make).
stale() {
    local product=$1
    shift
    [ -e "$product" ] || return 0
    [ -n "$(find "$@" -newer "$product" -print -quit)" ]
}

# One instrumented engine and application serve every target: each is built only when a
# source changed, and under a lock so targets started side by side never write them at once.
{
    flock 9
    if stale "$engine_library" "${engine[@]}" "$0"; then
        echo "building FiledropHTTP with -sanitize=$sanitizers..." >&2
        swiftc "${flags[@]}" "${library_flags[@]}" -module-name FiledropHTTP -emit-module -emit-module-path "$build/lib/FiledropHTTP.swiftmodule" \
            -emit-library -static -o "$engine_library" "${engine[@]}"
    fi
    if stale "$library" "$engine_library" "${core[@]}" "$0"; then
        echo "building FiledropCore with -sanitize=$sanitizers..." >&2
        swiftc "${flags[@]}" "${library_flags[@]}" -module-name FiledropCore -I "$build/lib" -emit-module -emit-module-path "$build/lib/FiledropCore.swiftmodule" \
            -emit-library -static -o "$library" "${core[@]}"
    fi
    if stale "$binary" "$library" "Fuzz/$target/main.swift" "${shared[@]}"; then
        echo "building $target..." >&2
        swiftc "${flags[@]}" -module-name "$target" -I "$build/lib" -L "$build/lib" -lFiledropCore -lFiledropHTTP \
            "Fuzz/$target/main.swift" "${shared[@]}" -o "$binary"
    fi
} 9>"$build/lib/.lock"

seedDirectory=()
[ -d "Fuzz/corpus/$seeds" ] && seedDirectory=("Fuzz/corpus/$seeds")
export SWIFT_BACKTRACE=enable=no
exec "$binary" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$out/$target/" "$@" "$out/$target/corpus" "${seedDirectory[@]}"
