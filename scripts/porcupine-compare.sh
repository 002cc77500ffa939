#!/usr/bin/env bash
# stressbench's linearizability checker beside Porcupine's, on Porcupine's own
# test histories: the key-value logs (test_data/kv/*.txt, checked by key) and
# Jepsen's etcd logs (test_data/jepsen/etcd_*.log, one register).
#
#   scripts/porcupine-compare.sh PORCUPINE_CHECKOUT [BENCHTIME]
#
# PORCUPINE_CHECKOUT is a clone of github.com/anishathalye/porcupine (nothing
# of it is in this repository). Needs Go (apt-get install golang-go) and a
# release build of the development tool (swift build -c release --product
# stressbench-dev; $STRESSBENCH_DEV overrides the binary).
#
# Porcupine's side is its own benchmark suite, run as it ships: `go test
# -bench` on BenchmarkKv*Client* and BenchmarkEtcdJepsen*, each of which checks
# one log again and again and fails if the verdict is not the one its test
# asserts (BENCHTIME per benchmark, default 1x: one check per log after Go's
# warm-up run; say 2s for steadier figures). Its verdicts are those
# assertions, read from porcupine_test.go (`checkKv(t, "c10-bad", false, ...)`,
# `checkJepsen(t, 3, false)`), which `go test -run` confirms first.
# stressbench's side: `stressbench-dev linearizability logs`, which reads the
# same files with its own readers and checks each at least 3 times (median).
# Porcupine checks a log's partitions in parallel goroutines (GOMAXPROCS is
# the machine's cores unless set); stressbench checks them on one thread.
#
# Prints one line per log: both verdicts, both times, and whether the
# verdicts agree; exits 1 if any disagrees.
set -euo pipefail
cd "$(dirname "$0")/.."
porcupine=${1:?usage: scripts/porcupine-compare.sh PORCUPINE_CHECKOUT [BENCHTIME]}
benchtime=${2:-1x}
bin=${STRESSBENCH_DEV:-.build/release/stressbench-dev}
[[ -f "$porcupine/porcupine_test.go" && -d "$porcupine/test_data" ]] || { echo "$porcupine: not a Porcupine checkout (no porcupine_test.go, test_data/)" >&2; exit 2; }
[[ -x "$bin" ]] || { echo "no $bin: run swift build -c release --product stressbench-dev first" >&2; exit 2; }
command -v go >/dev/null || { echo "no go: apt-get install golang-go" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Go's caches out of the user's home, and no module downloads: Porcupine has no dependencies.
export GOCACHE=${GOCACHE:-$work/gocache} GOPATH=${GOPATH:-$work/gopath} GOFLAGS=-mod=mod GOPROXY=off

echo "# Porcupine beside stressbench: scripts/porcupine-compare.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# porcupine $(git -C "$porcupine" rev-parse --short HEAD 2>/dev/null || echo '(not a git checkout)'), $(go version | cut -d' ' -f3), GOMAXPROCS ${GOMAXPROCS:-$(nproc)}; $bin"
echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)"

# Porcupine's expected verdicts, as its tests assert them (true: linearizable).
sed -nE 's/.*checkKv\(t, "([^"]+)", (true|false), true\).*/\1.txt \2/p; s/.*checkJepsen\(t, ([0-9]+), (true|false)\).*/\1 \2/p' "$porcupine/porcupine_test.go" \
    | awk '$1 ~ /\.txt$/ { print; next } { printf "etcd_%03d.log %s\n", $1, $2 }' | sort -u > "$work/expected"
[[ -s "$work/expected" ]] || { echo "no checkKv/checkJepsen assertions found in $porcupine/porcupine_test.go" >&2; exit 2; }

echo "== Porcupine's tests (go test -run 'TestKv[0-9]|TestEtcdJepsen'): they assert those verdicts"
(cd "$porcupine" && go test -count=1 -run 'TestKv[0-9]|TestEtcdJepsen' .) | tail -1

echo "== Porcupine's benchmarks (go test -bench, -benchtime $benchtime)"
(cd "$porcupine" && go test -count=1 -run '^$' -bench 'BenchmarkKv[0-9]|BenchmarkEtcdJepsen' -benchtime "$benchtime" .) > "$work/go-bench"
grep -E '^(ok|FAIL|--- FAIL)' "$work/go-bench" || true
# BenchmarkKv10ClientsBad-2  1  123 ns/op  →  c10-bad.txt 123
awk '/^Benchmark/ {
        name = $1; sub(/-[0-9]+$/, "", name); ns = $3
        if (name ~ /^BenchmarkEtcdJepsen/) { sub(/^BenchmarkEtcdJepsen/, "", name); file = "etcd_" name ".log" }
        else { sub(/^BenchmarkKv/, "", name); n = name; sub(/Clients?(Ok|Bad)$/, "", n); kind = (name ~ /Ok$/) ? "ok" : "bad"; file = sprintf("c%02d-%s.txt", n, kind) }
        print file, ns
     }' "$work/go-bench" | sort > "$work/porcupine-times"

echo "== stressbench-dev linearizability logs"
files=()
while read -r file _; do
    case $file in
        *.txt) files+=("$porcupine/test_data/kv/$file") ;;
        *) files+=("$porcupine/test_data/jepsen/$file") ;;
    esac
done < "$work/expected"
"$bin" linearizability logs "${files[@]}" > "$work/ours"

echo "== side by side (times: Porcupine ns/op from go test -bench; stressbench the median of its checks)"
awk -v expected="$work/expected" -v times="$work/porcupine-times" '
    BEGIN {
        while ((getline line < expected) > 0) { split(line, f, " "); want[f[1]] = (f[2] == "true") ? "linearizable" : "violated" }
        while ((getline line < times) > 0) { split(line, f, " "); pns[f[1]] = f[2] }
        printf "%-14s %6s %8s  %-13s %-13s %12s %12s %7s  %s\n", "log", "ops", "pending", "porcupine", "stressbench", "porcupine", "stressbench", "ratio", "agree"
        disagree = 0; n = 0
    }
    /^#/ { next }
    {
        split($0, f, "\t")
        file = f[1]; ours = f[5]; sec = f[7] + 0; theirs = want[file]
        p = (file in pns) ? pns[file] / 1e9 : -1
        ok = (ours == theirs) ? "yes" : "NO"
        if (ok == "NO") disagree++
        n++
        ratio = (p > 0) ? sprintf("%.2f", sec / p) : "-"
        printf "%-14s %6d %8d  %-13s %-13s %9.3f ms %9.3f ms %7s  %s\n", file, f[3], f[4], theirs, ours, p * 1000, sec * 1000, ratio, ok
        if (p > 0) { sumP += p; sumS += sec }
    }
    END {
        printf "# %d logs, %d disagree; total of the per-log times: porcupine %.1f ms, stressbench %.1f ms (ratio: stressbench / porcupine)\n", n, disagree, sumP * 1000, sumS * 1000
        exit (disagree > 0) ? 1 : 0
    }' "$work/ours"
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
