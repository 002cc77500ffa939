#!/usr/bin/env bash
# How long a large run takes to stop when interrupted: starts a run of a plan
# of REPS repetitions of one short trial with --json, --csv and --ndjson,
# sends SIGNAL after DELAY seconds, and prints one line a try: the time from
# the signal to the exit, the exit code, and how many records each file holds
# (every file must hold every trial: the finished ones and the skipped rest).
#
#   scripts/interrupt-latency.sh [TRIES [REPS [SIGNAL [DELAY]]]]
#   scripts/interrupt-latency.sh 5 10000 INT 3
#
# The run passes --allow-large: from about 90,000 repetitions the plan is
# past the size limit of 24 h of trial timeouts, and the point is a plan of
# any size; up to 100,000, the most trials a plan may have. Defaults: 5 tries, 10,000 repetitions, INT, 3 s. Uses
# .build/release/stressbench ($STRESSBENCH overrides it). Needs python3 to
# count the records. Exit 0 when every try exited 130 (INT) or 143 (TERM) with
# whole files, 1 otherwise, 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.."

tries=${1:-5}
reps=${2:-10000}
signal=${3:-INT}
delay=${4:-3}
[[ "$tries" =~ ^[0-9]+$ && "$reps" =~ ^[0-9]+$ && "$delay" =~ ^[0-9.]+$ ]] || { echo "usage: scripts/interrupt-latency.sh [TRIES [REPS [SIGNAL [DELAY]]]]" >&2; exit 2; }
case "$signal" in INT) want=130 ;; TERM) want=143 ;; *) echo "SIGNAL is INT or TERM" >&2; exit 2 ;; esac
bin=${STRESSBENCH:-.build/release/stressbench}
[[ -x "$bin" ]] || { echo "no $bin: run swift build -c release first (or set STRESSBENCH)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/plan.yaml" <<EOF
experiments:
  - workload: counter
    strategies: [mutex]
    threads: 1
    ops: 1000
    warmup: 0
    repetitions: $reps
EOF

echo "# $(date -u +%Y-%m-%dT%H:%MZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $reps repetitions, SIG$signal after ${delay}s; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
bad=0
for ((n = 1; n <= tries; n++)); do
    rm -f "$dir"/r.*
    "$bin" run "$dir/plan.yaml" -q --allow-large --json "$dir/r.json" --csv "$dir/r.csv" --ndjson "$dir/r.ndjson" >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    sent=$(date +%s.%N)
    kill -s "$signal" "$pid"
    wait "$pid"
    status=$?
    took=$(python3 -c "import time; print(f'{time.time() - $sent:.2f}')")
    counts=$(python3 - "$dir" <<'EOF'
import json, sys
d = sys.argv[1]
try:
    j = len(json.load(open(f"{d}/r.json"))["trials"])
except Exception as e:
    j = f"unreadable ({e.__class__.__name__})"
try:
    c = sum(1 for _ in open(f"{d}/r.csv")) - 1
except Exception:
    c = "missing"
try:
    lines = [l for l in open(f"{d}/r.ndjson") if l.strip()]
    for l in lines: json.loads(l)
    s = len(lines)
except Exception as e:
    s = f"unreadable ({e.__class__.__name__})"
print(f"json {j}, csv {c}, ndjson {s}")
EOF
)
    printf 'try %d  stopped %ss after SIG%s  exit %d  load %s  %s\n' "$n" "$took" "$signal" "$status" "$(cut -d' ' -f1 /proc/loadavg)" "$counts"
    [[ $status == "$want" && "$counts" == "json $reps, csv $reps, ndjson $reps" ]] || bad=$((bad + 1))
done
(( bad == 0 ))
