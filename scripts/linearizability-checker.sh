#!/usr/bin/env bash
# How fast the linearizability checker decides, on the two shapes its guide
# quotes:
#   1. Lincheck's default scenario shape: 5 operations run alone, 2 threads x
#      5 operations concurrently, 5 alone after (15 operations), on a small
#      map (3 keys; get, put, remove; not partitioned) and on a FIFO queue.
#      HISTORIES histories per model, every other one with one concurrent
#      result replaced by another value the operation can return; each
#      history checked 3 times, its median kept; the quantiles of the time
#      per history, per model and verdict.
#   2. One 10,000-operation history of a key-value store with 100 keys
#      (partitioned by key; 8 threads; get, put, append), as recorded and
#      with its last get broken; the median of at least 5 checks.
#
#   scripts/linearizability-checker.sh [HISTORIES]
#
# Needs a release build of the development tool (swift build -c release
# --product stressbench-dev); $STRESSBENCH_DEV overrides the binary. The
# histories are simulated (seeded, the same every run): each operation takes
# effect at a random instant between its call and return. One process, one
# thread: the figures are single-core. The header records the load; on a
# shared machine compare figures within one run.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${STRESSBENCH_DEV:-.build/release/stressbench-dev}
histories=${1:-2000}
[[ -x "$bin" ]] || { echo "no $bin: run swift build -c release --product stressbench-dev first" >&2; exit 2; }

echo "# linearizability checker: scripts/linearizability-checker.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# $bin, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== 1. Lincheck's default shape"
"$bin" linearizability shape --histories "$histories"
echo "== 2. 10,000 operations, 100 keys, partitioned"
"$bin" linearizability kv --operations 10000 --keys 100 --threads 8
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
