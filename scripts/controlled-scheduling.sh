#!/usr/bin/env bash
# Controlled scheduling, measured: one thread worker runs at a time and the
# seed's policy picks every switch (docs/plans.md, "Controlled scheduling").
#
#   1. detection: every buggy cell (experiment x strategy) of Plans/bugs.yaml,
#      Plans/own-code.yaml and Plans/scenarios.yaml that control can run (thread
#      strategies without asynchronous writes, no litmus scenario), under
#      --schedule controlled with the plan's fuzz profile (yield wherever the
#      plan gives none: its default, off, is first come first served, the same
#      schedule for every seed), SEEDS seeds each (--repetitions SEEDS: every
#      repetition its own seed), on all CPUs and under taskset -c 0. A line a
#      cell:
#        found     runs that ended violated, deadlock, hang or crashed
#        expected  runs that ended as the plan's `expect` says
#        to bug    the slowest time from the start of the window to the first
#                  violation or to the start of the stall ("-" for a crash)
#        wallNs    the slowest trial time as the harness saw it (the record's
#                  wallNs: the trial process's start, run, report and end);
#                  the runs pass --no-shrink (shrinking comes after the bug
#                  and would only lengthen this)
#        outcomes  how the runs ended; for deadlocks, how many came with a
#                  wait-for cycle and how many say "found at once by
#                  controlled scheduling"; control: full / partial (a worker
#                  blocked where the scheduler could not see) / none (no
#                  schedule recorded: the process died first)
#   2. replay: for one failing seed of each buggy experiment (its first
#      failing cell in step 1 on all CPUs), `replay --seed S --schedule
#      controlled --times REPLAY_TIMES` on all CPUs, under taskset -c 0, and
#      beside BURNERS CPU burners: the replay rate, `identical schedule: N/M`
#      (against the first rerun's own schedule), and whether every
#      reproduction had the same first message;
#   3. no false alarms: the correct cells (no `expect`) of those plans and of
#      Plans/quickstart.yaml under control, ALARM_SEEDS seeds under each
#      policy (off, light, yield, chaos, pct): every trial that did not pass;
#   4. the quick start as shipped (its controls run controlled), QUICK_RUNS
#      times beside BURNERS CPU burners: each run's exit code (must be 0);
#   5. speed: the 2-role `empty` scenario and a 2-role scenario with more
#      points (SPEED_SCENARIO), and the quick start's counter under a mutex
#      with 4 workers, controlled with --fuzz off (first come first served:
#      nearly every point switches workers), SPEED_DECISIONS decisions, on all
#      CPUs and under taskset -c 0: rounds/s, decisions a round (the
#      scheduling points the two roles pass), decisions/s, and elapsed /
#      decisions (one decision, most of them a hand-off); plus a run of
#      SPEED_DECISIONS/10 so the fixed cost of a trial can be told apart.
#
#   scripts/controlled-scheduling.sh
#   SEEDS=30 REPLAY_TIMES=10 ALARM_SEEDS=8 QUICK_RUNS=20 scripts/controlled-scheduling.sh
#
# Defaults: SEEDS 30, REPLAY_TIMES 10, ALARM_SEEDS 8, QUICK_RUNS 20, BURNERS 2,
# SPEED_DECISIONS 100000, SPEED_SCENARIO lazy-init/rwlock (12.5 decisions a round),
# TRIAL_TIMEOUT 5s (every controlled run's --trial-timeout: a trial that
# hangs costs that, and shows as `timeout`). OWN_CODE_SKIP lists own-code
# experiments (shell patterns) to leave out, say to time the rest while one
# is being fixed; none by default. The report names them. PLANS lists the
# plans of steps 1 to 3 (names under Plans/, without .yaml, space-separated;
# default "bugs own-code scenarios"), say PLANS=own-code to measure one;
# step 3 takes the quick start's correct cells too only when PLANS is the default.
# SKIP lists steps to leave out (space-separated numbers of 2 to 5, say
# SKIP="3 4 5" for detection and replay alone; none by default). The binary is
# $STRESSBENCH, default .build/release/stressbench (swift build -c release
# first). Output goes to standard output and to $OUT (default
# docs/benchmarks/controlled-scheduling-DATE.txt). Exit 0 when it ran to the
# end (the figures say whether they are good), 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.."

seeds=${SEEDS:-30}
replay_times=${REPLAY_TIMES:-10}
alarm_seeds=${ALARM_SEEDS:-8}
quick_runs=${QUICK_RUNS:-20}
burners=${BURNERS:-2}
speed_decisions=${SPEED_DECISIONS:-100000}
speed_scenario=${SPEED_SCENARIO:-lazy-init/rwlock}
timeout=${TRIAL_TIMEOUT:-5s}
own_code_skip=${OWN_CODE_SKIP-}
plans_given=${PLANS:-bugs own-code scenarios}
skip=" ${SKIP-} "
bin=${STRESSBENCH:-.build/release/stressbench}
out=${OUT:-docs/benchmarks/controlled-scheduling-$(date -u +%F).txt}
for n in "$seeds" "$replay_times" "$alarm_seeds" "$quick_runs" "$burners" "$speed_decisions"; do
    [[ "$n" =~ ^[0-9]+$ ]] || { echo "SEEDS, REPLAY_TIMES, ALARM_SEEDS, QUICK_RUNS, BURNERS and SPEED_DECISIONS are whole numbers" >&2; exit 2; }
done
[ -x "$bin" ] || { echo "no $bin: swift build -c release first (or set STRESSBENCH)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "needs python3" >&2; exit 2; }
pin=()
command -v taskset > /dev/null && pin=(taskset -c 0)
py=scripts/controlled_scheduling.py
tmp=$(mktemp -d)
source scripts/lib/burners.sh
trap 'stop_burners; rm -rf "$tmp"' EXIT
exec > >(tee "$out") 2>&1

load() { cut -d' ' -f1-3 /proc/loadavg; }
# Runs stressbench under the CPU setting $1 (all or one), the rest its arguments.
on() {
    local cpus=$1
    shift
    if [ "$cpus" = one ]; then "${pin[@]}" "$bin" "$@"; else "$bin" "$@"; fi
}

echo "# Controlled scheduling: scripts/controlled-scheduling.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# $bin ($("$bin" --version 2>/dev/null)), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(load)"
echo "# SEEDS=$seeds REPLAY_TIMES=$replay_times ALARM_SEEDS=$alarm_seeds QUICK_RUNS=$quick_runs BURNERS=$burners SPEED_DECISIONS=$speed_decisions TRIAL_TIMEOUT=$timeout"
echo "# PLANS=\"$plans_given\" SKIP=\"${SKIP-}\""
[ ${#pin[@]} -eq 0 ] && echo "# no taskset: the one-CPU runs are skipped"
start=$SECONDS

# shellcheck disable=SC2206
plans=($plans_given)
for p in "${plans[@]}"; do
    [ -f "Plans/$p.yaml" ] || { echo "PLANS: no Plans/$p.yaml" >&2; exit 2; }
done
for n in ${SKIP-}; do
    [[ "$n" =~ ^[2-5]$ ]] || { echo "SKIP lists steps 2 to 5 by number" >&2; exit 2; }
done
# Whether step $1 runs.
runs() { [[ "$skip" != *" $1 "* ]]; }
# The quick start's correct cells join step 3 only in a run of every plan.
extra_correct=()
[ "$plans_given" = "bugs own-code scenarios" ] && extra_correct=(quickstart)
for p in "${plans[@]}" quickstart; do
    "$bin" _describe "Plans/$p.yaml" > "$tmp/$p.describe.json" || { echo "cannot describe Plans/$p.yaml" >&2; exit 2; }
done
skip_for() { [ "$1" = own-code ] && echo "$own_code_skip"; }

echo
echo "== 1. detection under control, $seeds seeds a cell"
echo "left out of own-code (OWN_CODE_SKIP): ${own_code_skip:-none}"
declare -A found_files
for p in "${plans[@]}"; do
    # shellcheck disable=SC2046
    only=($(python3 "$py" select "$tmp/$p.describe.json" buggy $(skip_for "$p")))
    [ ${#only[@]} -eq 0 ] && continue
    # The cells whose plan gives no fuzz profile (off) run with yield.
    given=() yield=()
    while read -r cell profile; do
        if [ "$profile" = off ]; then yield+=("--only=$cell"); else given+=("--only=$cell"); fi
    done < <(python3 "$py" fuzz "$tmp/$p.describe.json" "${only[@]}")
    [ ${#yield[@]} -gt 0 ] && echo "Plans/$p.yaml: no fuzz profile in the plan, run with yield: ${yield[*]#--only=}"
    for cpus in all one; do
        [ "$cpus" = one ] && [ ${#pin[@]} -eq 0 ] && continue
        files=()
        t0=$SECONDS
        for group in given yield; do
            cells=("${given[@]}")
            extra=()
            [ "$group" = yield ] && cells=("${yield[@]}") && extra=(--fuzz yield)
            [ ${#cells[@]} -eq 0 ] && continue
            f="$tmp/detect-$p-$cpus-$group.json"
            # --no-shrink: shrinking starts after the bug is found and changes
            # neither whether nor when; with it, each failing trial went on
            # for up to its shrink bound, and the 30-seed step took hours.
            on "$cpus" run "Plans/$p.yaml" --schedule controlled --repetitions "$seeds" "${cells[@]}" "${extra[@]}" \
                --no-shrink --trial-timeout "$timeout" --json "$f" -q > "$tmp/detect.log" 2>&1
            status=$?
            case $status in 0|1|3) files+=("$f") ;; *) echo "run exited $status:"; tail -n 5 "$tmp/detect.log" ;; esac
        done
        echo "-- Plans/$p.yaml, $cpus CPU(s): $((SECONDS - t0)) s, load $(load)"
        [ ${#files[@]} -gt 0 ] && python3 "$py" detect "$seeds" "${files[@]}"
        [ "$cpus" = all ] && found_files[$p]="${files[*]}"
    done
done

if runs 2; then
echo
echo "== 2. replay: one failing seed of each buggy experiment, $replay_times reruns, controlled"
for p in "${plans[@]}"; do
    # shellcheck disable=SC2086
    python3 "$py" failing ${found_files[$p]:-} | sed "s|^|$p |"
done > "$tmp/failing"
for where in all one burners; do
    [ "$where" = one ] && [ ${#pin[@]} -eq 0 ] && continue
    [ "$where" = burners ] && { start_burners "$burners"; trap 'stop_burners; rm -rf "$tmp"' EXIT; sleep 5; }
    echo "-- $where ($([ "$where" = burners ] && echo "all CPUs, $burners burners beside" || echo "$where CPU(s)")), load $(load)"
    while read -r p id seed outcome profile; do
        cpus=all
        [ "$where" = one ] && cpus=one
        extra=()
        # A cell that ran with yield because its plan gives no profile replays with it.
        [ "$profile" = yield ] && extra=(--fuzz yield)
        o=$(on "$cpus" replay "Plans/$p.yaml" --only "$id" --seed "$seed" --repetitions "$seeds" --schedule controlled \
            --times "$replay_times" --trial-timeout "$timeout" "${extra[@]}" 2>&1)
        rate=$(grep '^replay rate' <<< "$o" | sed 's/; trial .*//')
        same=$(grep -E 'first message' <<< "$o" | tail -n 1)
        echo "$p $id seed $seed (found $outcome): ${rate:-no replay line: $(tail -n 1 <<< "$o")}; ${same:-one reproduction or none}"
    done < "$tmp/failing"
    [ "$where" = burners ] && stop_burners && burner_pids=()
done
fi

if runs 3; then
echo
echo "== 3. false alarms: correct cells under control, $alarm_seeds seeds each, every policy"
alarms=0
for p in "${plans[@]}" "${extra_correct[@]}"; do
    # shellcheck disable=SC2046
    only=($(python3 "$py" select "$tmp/$p.describe.json" correct $(skip_for "$p")))
    [ ${#only[@]} -eq 0 ] && continue
    echo "-- Plans/$p.yaml: ${only[*]#--only=}"
    for policy in off light yield chaos pct; do
        f="$tmp/alarms-$p-$policy.json"
        "$bin" run "Plans/$p.yaml" --schedule controlled --fuzz "$policy" --repetitions "$alarm_seeds" "${only[@]}" \
            --trial-timeout "$timeout" --json "$f" -q > "$tmp/alarms.log" 2>&1
        status=$?
        case $status in 0|1|3) ;; *) echo "fuzz $policy: run exited $status: $(tail -n 1 "$tmp/alarms.log")"; continue ;; esac
        line=$(python3 "$py" alarms "$f")
        echo "fuzz $policy: $line"
        bad=$(head -n 1 <<< "$line" | sed -E 's/^[0-9]+ trials, ([0-9]+) not passed.*/\1/')
        alarms=$((alarms + bad))
    done
done
echo "trials that did not pass, in all: $alarms"
fi

if runs 4; then
echo
echo "== 4. the quick start as shipped, $quick_runs runs beside $burners CPU burners"
start_burners "$burners"
trap 'stop_burners; rm -rf "$tmp"' EXIT
sleep 10
codes=()
for i in $(seq 1 "$quick_runs"); do
    t0=$SECONDS
    "$bin" run Plans/quickstart.yaml -q > "$tmp/quick.log" 2>&1
    status=$?
    codes+=("$status")
    printf 'run %2d  exit %d  %3ds  load %s  %s\n' "$i" "$status" $((SECONDS - t0)) "$(cut -d' ' -f1 /proc/loadavg)" "$(tail -n 1 "$tmp/quick.log")"
    [ "$status" -ne 0 ] && grep -E ': (passed|violated|deadlock|crashed|timeout|hang|error), but|: timeout|: error' "$tmp/quick.log" | head -n 3
done
stop_burners
burner_pids=()
zeros=$(printf '%s\n' "${codes[@]}" | grep -c '^0$')
echo "exit 0 in $zeros of $quick_runs runs"
fi

if runs 5; then
echo
echo "== 5. speed under control (fuzz off: first come first served), $speed_decisions and $((speed_decisions / 10)) decisions"
for cpus in all one; do
    [ "$cpus" = one ] && [ ${#pin[@]} -eq 0 ] && continue
    echo "-- $cpus CPU(s), load $(load)"
    for target in "scenarios empty" "scenarios $speed_scenario" "quickstart counter/pthread-mutex/t4"; do
        set -- $target
        for decisions in "$speed_decisions" $((speed_decisions / 10)); do
            f="$tmp/speed.json"
            # A controlled trial ends by its decisions, not by the clock: a
            # slow hand-off makes it long, so it gets a generous timeout.
            on "$cpus" run "Plans/$1.yaml" --only "$2" --schedule controlled --fuzz off --max-decisions "$decisions" \
                --trial-timeout 60s --json "$f" -q > /dev/null 2>&1
            python3 "$py" speed "$f" | sed 's/^/  /'
        done
    done
done
echo "(a scenario's \"rounds\" are its rounds: decisions a round / 2 is about the scheduling points each role passes;"
echo " the counter's are its operations, 4 workers: decisions an operation are the points one operation passes)"
fi

echo
echo "== 6. PCT's bound (a planted depth-2 bug with n workers and k points over 1,000 seeds): measured by"
echo "   scripts/pct-bound.sh, not here"
echo
echo "# $((SECONDS - start)) s in all; load at the end $(load)"
