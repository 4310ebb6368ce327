#!/usr/bin/env bash
# Runs the benchmark suite and regenerates BENCHMARKS.md and benches/results/chart.svg.
#
# usage: benches/run.sh [quick|full]
#   quick (default): 100,000 elements (lookups also 1,000,000), short measurements; about 12
#                    minutes on 2 cores.
#   full:            100 samples over 2 s per row (1 s warm-up; 10 samples for the rows at 1,000,000
#                    that build their storages afresh each pass), the 1,000,000-element sizes, and
#                    the compile-time report.
# Honours CARGO_TARGET_DIR. Waits up to QUIET_WAIT seconds (default 300) for the 1-minute load
# average to drop below 0.5, and records the load before and after on the results page.
set -euo pipefail
mode=${1:-quick}
case $mode in quick | full) ;; *) echo "usage: $0 [quick|full]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
# The benchmarks are a workspace of their own (benches/Cargo.toml); they share the root's target
# directory, where criterion writes its results.
export CARGO_TARGET_DIR=$target
bench=(--manifest-path "$root/benches/Cargo.toml")
criterion=$target/criterion
extra=$criterion/sparse-soa

load() { cut -d' ' -f1-3 /proc/loadavg; }

cargo build "${bench[@]}" --release --benches --bins

waited=0
while awk '{exit !($1 >= 0.5)}' /proc/loadavg && [ "$waited" -lt "${QUIET_WAIT:-300}" ]; do
    sleep 10
    waited=$((waited + 10))
done

rm -rf "$criterion"
mkdir -p "$extra"
{
    echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "mode:     $mode"
    echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
    echo "caches:   $(lscpu 2>/dev/null | grep -E '^L[123]' | sed 's/ \+/ /g' | paste -sd ';' -)"
    echo "os:       $(uname -sr)"
    echo "rustc:    $(rustc --version)"
    echo "commit:   ${BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    echo "load before (1, 5, 15 min): $(load)"
} > "$extra/run.txt"

SPARSE_SOA_BENCH_MODE=$mode cargo bench "${bench[@]}" --bench ops
SPARSE_SOA_BENCH_MODE=$mode cargo bench "${bench[@]}" --bench systems
SPARSE_SOA_BENCH_MODE=$mode cargo bench "${bench[@]}" --bench spawn
SPARSE_SOA_BENCH_MODE=$mode cargo bench "${bench[@]}" --bench events
SPARSE_SOA_MEMORY_OUT=$extra/memory.tsv cargo bench "${bench[@]}" --bench memory
if [ "$mode" = full ]; then
    benches/compile-time/measure.sh > "$extra/compile.tsv"
fi
echo "load after (1, 5, 15 min):  $(load)" >> "$extra/run.txt"

cargo run "${bench[@]}" --release -q --bin report -- "$criterion" BENCHMARKS.md benches/results/chart.svg
