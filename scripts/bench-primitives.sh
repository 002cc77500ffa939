#!/usr/bin/env bash
# What the harness-aware primitives (StressLock, StressCondition, StressMutex,
# StressSemaphore, StressQueue, fuzzPoint()) and the pthread interposer
# (libStressInterpose.so) cost OUTSIDE a trial, uncontended, beside the plain
# primitives they stand for: what a team pays for leaving them in a test
# build's code paths that run outside stress trials.
#
#   scripts/bench-primitives.sh [ROUNDS [ALTERNATIONS]]
#
# Needs a release build (swift build -c release, which builds the
# development tool stressbench-dev and libStressInterpose.so);
# $STRESSBENCH_DEV overrides the binary. Three runs of the
# `stressbench-dev primitives` command, each timing every pair in one
# process, one after another (best of ROUNDS rounds, default 7):
#   plain         the process as built;
#   interposed    with libStressInterpose.so preloaded: NSLock and NSCondition
#                 then go through the interposer's pthread wrappers, which
#                 outside a trial are one thread-local load and a branch;
#   jemalloc      with jemalloc preloaded, for the bytes each pair allocates
#                 (its per-thread counter; "unavailable" without jemalloc).
#   alternating   each wrapper against its plain partner, alternating
#                 ALTERNATIONS times (default 41), order flipped each time:
#                 the median and quartiles of the per-alternation differences,
#                 which the machine's drift hits alike on both sides. The
#                 figure for a difference smaller than either loop's noise.
#                 Its `pthread-mutex` line calls glibc's own lock and unlock
#                 beside the public names: about 0 here, and with the
#                 interposer preloaded (the last section) what it adds.
# A "pair" is one lock and unlock (wait and signal, one sync, one async whose
# block runs on the queue's thread, one once-token call after the first)
# around an increment; `rwlock` (a pthread_rwlock_t write lock) has no wrapper
# and is there for the interposed run. The added cost of a wrapper is its line minus its plain partner's
# line in the same run; figures drift between runs on a shared VM, so compare
# within a column, not across runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${STRESSBENCH_DEV:-.build/release/stressbench-dev}
rounds=${1:-7}
alternations=${2:-41}
dir=$(dirname "$bin")
[[ -x "$bin" ]] || { echo "no $bin: run swift build -c release first" >&2; exit 2; }
[[ -r "$dir/libStressInterpose.so" ]] || { echo "no $dir/libStressInterpose.so: run swift build -c release" >&2; exit 2; }
jemalloc=$(ls /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 2>/dev/null | head -1 || true)

echo "# $(uname -m), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), $bin, best of $rounds rounds"
echo "## plain"
"$bin" primitives --rounds "$rounds"
echo "## interposed (LD_PRELOAD=libStressInterpose.so)"
LD_PRELOAD="$dir/libStressInterpose.so" "$bin" primitives --rounds "$rounds"
if [[ -n "$jemalloc" ]]; then
    echo "## jemalloc (LD_PRELOAD=$jemalloc): bytes allocated per pair"
    LD_PRELOAD="$jemalloc" "$bin" primitives --rounds 2 --iterations 1000000
else
    echo "## jemalloc: not installed (apt-get install libjemalloc2); bytes per pair unavailable"
fi
echo "## alternating ($alternations alternations of 500k pairs): what each wrapper adds, as the median of paired differences"
"$bin" primitives --alternations "$alternations" --iterations 500000
echo "## interposed, alternating: what the preloaded interposer adds to a pthread mutex pair (glibc's own calls beside the public, interposed ones, in one process)"
LD_PRELOAD="$dir/libStressInterpose.so" "$bin" primitives --alternations "$alternations" --iterations 500000 --only pthread-mutex,stress-lock
