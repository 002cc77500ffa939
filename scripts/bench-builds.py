#!/usr/bin/env python3
"""Paired comparison of several stressbench builds on the uncontended counter.

For work on the hot loop: is build B faster than build A, and how far is each
from the hand-written loop? On a shared VM the same loop drifts by 10-30%
from one minute to the next, so builds timed minutes apart cannot be compared;
here every repetition runs each build's trial and the hand loop back to back
(the order rotates from one repetition to the next), and each build's figure is
the median over the repetitions of (hand loop ns/op / build ns/op) within the
repetition.

    scripts/bench-builds.py --lock mutex --reps 15 main=/tmp/sb-main new=.build/release/stressbench

Each build runs one trial of the `counter` workload (1 thread, --ops
operations, 200 ms warm-up, --sample timing) in its own child process, as
`scripts/bench-lock-overhead.sh` does. The hand loop is the `baseline` command
of --hand (default: the `stressbench-dev` beside the last build named, or that
build itself if there is none), one round after a warm-up round and 200 ms or
more into its process. --hand is a `stressbench-dev`, or a `stressbench` from
before the benchmark commands moved out of it, whose hidden `_baseline` is the
same command; it needs `--warmup-ms` (builds from 2026-11-24 09:20 UTC on), and
--lock must be one of its loops as well as a strategy: pthread-mutex, mutex,
nslock (`stressbench-dev baseline --help` lists the loops). Prints, per build:
median ns/op, the median paired ratio and its range. The ablation in
docs/benchmarks/overhead-ablation-2026-11-24/ was measured with it.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("builds", nargs="+", metavar="NAME=BINARY", help="stressbench binaries to compare, each with a label")
    parser.add_argument("--lock", default="pthread-mutex", help="strategy (and hand loop) to time (default pthread-mutex)")
    parser.add_argument("--ops", type=int, default=10_000_000, help="operations per trial and per hand-loop round (default 10M)")
    parser.add_argument("--reps", type=int, default=12, help="repetitions (default 12)")
    parser.add_argument("--sample", default="auto", help="the trials' timing: auto or an interval (default auto)")
    parser.add_argument("--hand", metavar="BINARY",
                        help="the stressbench-dev (or an older stressbench, with _baseline) that times the hand loop "
                             "(default: the stressbench-dev beside the last build, else the last build)")
    args = parser.parse_args()
    if args.ops < 1 or args.reps < 1:
        parser.error("--ops and --reps must be at least 1")

    builds = []
    for spec in args.builds:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            parser.error(f"expected NAME=BINARY, got {spec!r}")
        if not os.access(path, os.X_OK):
            parser.error(f"{path}: not an executable")
        builds.append((name, path))
    names = [name for name, _ in builds]
    if "hand" in names:
        parser.error("'hand' is the hand loop's label; name the builds otherwise")
    if len(set(names)) != len(names):
        parser.error("each build needs a name of its own")
    beside = os.path.join(os.path.dirname(builds[-1][1]), "stressbench-dev")
    hand_binary = args.hand or (beside if os.access(beside, os.X_OK) else builds[-1][1])
    if not os.access(hand_binary, os.X_OK):
        parser.error(f"{hand_binary}: not an executable")
    # The command's name in stressbench-dev; a stressbench from before the move
    # had it as the hidden `_baseline` (which stressbench-dev answers to as well).
    hand_command = "baseline" if os.path.basename(hand_binary).startswith("stressbench-dev") else "_baseline"

    with tempfile.TemporaryDirectory() as tmp:
        plan = os.path.join(tmp, "plan.yaml")
        with open(plan, "w") as f:
            f.write(f"experiments:\n  - workload: counter\n    strategies: [{args.lock}]\n    threads: [1]\n"
                    f"    ops: {args.ops}\n    warmup: 200ms\n    timing: {{sample: {args.sample}}}\n")
        out = os.path.join(tmp, "run.json")

        def trial(binary: str) -> float:
            # A run that fails before writing its results must not be read
            # as the previous build's file.
            if os.path.exists(out):
                os.remove(out)
            r = subprocess.run([binary, "run", plan, "--json", out, "-q"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
            if not os.path.exists(out):
                sys.exit(f"{binary}: exit {r.returncode}, no results written\n{r.stderr.strip()}")
            t = json.load(open(out))["trials"][0]
            if t["outcome"] != "passed":
                sys.exit(f"{binary}: trial {t['outcome']} (exit {r.returncode})")
            m = t["measurement"]
            return m["elapsedNs"] / m["totalOps"]

        warned: set[str] = set()

        def hand() -> float:
            r = subprocess.run([hand_binary, hand_command, args.lock, "--iterations", str(args.ops),
                                "--warmup-rounds", "1", "--warmup-ms", "200", "--rounds", "1"], capture_output=True, text=True)
            fields = r.stdout.split()
            if r.returncode != 0 or len(fields) < 2 or fields[-1] != "ns/op":
                sys.exit(f"{hand_binary} {hand_command} {args.lock} --warmup-ms 200: exit {r.returncode}\n{r.stderr.strip()}\n"
                         "(--hand must be a stressbench-dev, or a stressbench with `_baseline --warmup-ms`, and --lock one of its loops)")
            # A hand loop that says the C library still runs its process as
            # single-threaded (the idle thread did not start, say) times a
            # cheaper lock than any trial's.
            for line in r.stderr.splitlines():
                if "warning" in line and line not in warned:
                    warned.add(line)
                    print(line, file=sys.stderr)
            return float(fields[-2])

        runners = [("hand", hand)] + [(name, lambda path=path: trial(path)) for name, path in builds]
        rows = []
        for rep in range(args.reps):
            k = rep % len(runners)
            rows.append({name: run() for name, run in runners[k:] + runners[:k]})

    print(f"{args.lock}, counter, 1 thread, {args.ops} ops, sample {args.sample}, {args.reps} repetitions")
    print(f"{'build':<32} {'ns/op':>7} {'ratio':>6}  range")
    for name, _ in runners:
        ratios = sorted(r["hand"] / r[name] for r in rows)
        print(f"{name:<32} {statistics.median(r[name] for r in rows):7.2f} {statistics.median(ratios):6.2f}  "
              f"{ratios[0]:.2f}-{ratios[-1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
