#!/usr/bin/env python3
"""The tables of scripts/controlled-scheduling.sh, read from stressbench's JSON.

    controlled_scheduling.py select DESCRIBE.json buggy|correct [EXCLUDE...]
        the `--only=experiment/strategy` arguments of a plan's buggy (an
        `expect` without `passed`) or correct (no `expect`) cells that a
        controlled schedule can run: thread strategies without asynchronous
        writes, no litmus scenario; EXCLUDE drops experiments by name
        (shell patterns: ledger-*)
    controlled_scheduling.py fuzz DESCRIBE.json ONLY...
        the fuzz profile each selected cell's plan gives it, one line each
    controlled_scheduling.py detect SEEDS RESULTS.json...
        one line a cell: found, as expected, slowest time to the bug, slowest
        wallNs, outcomes, deadlocks with a cycle and found at once
    controlled_scheduling.py failing RESULTS.json...
        one failing trial an experiment: `id seed outcome fuzz`
    controlled_scheduling.py alarms RESULTS.json
        trials, and those that did not pass, by outcome
    controlled_scheduling.py speed RESULTS.json
        rounds (operations), decisions, elapsed, per second

Every figure is read by key; a results file whose schema is not
stressbench.results/1 is refused (exit 2).
"""
import collections
import fnmatch
import json
import sys

LITMUS = {"store-buffering", "message-passing", "load-buffering", "dekker"}
FOUND = ("violated", "deadlock", "hang", "crashed")


def refuse(why):
    print(f"controlled_scheduling.py: {why}", file=sys.stderr)
    sys.exit(2)


def results(path):
    with open(path) as f:
        report = json.load(f)
    if report.get("schema") != "stressbench.results/1":
        refuse(f"{path}: schema {report.get('schema')!r}, not stressbench.results/1")
    return report["trials"]


def controllable(description):
    traits = {s["name"]: s["traits"] for s in description["strategies"]}
    for t in description["trials"]:
        mine = traits.get(t["strategy"], [])
        if "execution=tasks" in mine or "asynchronousWrites=true" in mine or t["workload"] in LITMUS:
            continue
        yield t


def select(path, kind, exclude):
    cells = []
    with open(path) as f:
        description = json.load(f)
    for t in controllable(description):
        if any(fnmatch.fnmatchcase(t["experiment"], pattern) for pattern in exclude):
            continue
        expect = t.get("expect")
        buggy = expect is not None and "passed" not in expect
        if (kind == "buggy" and buggy) or (kind == "correct" and expect is None):
            cell = f"{t['experiment']}/{t['strategy']}"
            if cell not in cells:
                cells.append(cell)
    print(" ".join(f"--only={c}" for c in cells))


def fuzz(path, only):
    with open(path) as f:
        description = json.load(f)
    wanted = {o.removeprefix("--only=") for o in only}
    for t in description["trials"]:
        cell = f"{t['experiment']}/{t['strategy']}"
        if cell in wanted:
            print(cell, t["fuzz"]["profile"])
            wanted.discard(cell)


def cell_of(t):
    return f"{t['trial']['experiment']}/{t['trial']['strategy']}/t{t['trial']['threads']}"


def ms(ns):
    return f"{ns / 1e6:.1f} ms"


def detected_after_ns(t):
    """When the trial saw its bug, from the start of its window: the first
    violation a worker saw, or the start of the stall; None for a crash or a
    bug only the final check saw."""
    if t["outcome"] == "violated":
        return t["violations"].get("firstAfterNs")
    if t["outcome"] in ("deadlock", "hang"):
        return (t.get("stall") or {}).get("beganAfterNs")
    return None


def detect(seeds, paths):
    cells = collections.OrderedDict()
    for path in paths:
        for t in results(path):
            cells.setdefault(cell_of(t), []).append(t)
    print(f"{'cell':50} {'found':>7} {'expected':>8} {'to bug':>9} {'wallNs':>9}  outcomes; deadlocks with a cycle, at once; control")
    totals = collections.Counter()
    for cell, runs in cells.items():
        found = [t for t in runs if t["outcome"] in FOUND]
        expected = [t for t in runs if t["outcome"] in (t["trial"].get("expect") or FOUND)]
        walls = [t["wallNs"] for t in found if "wallNs" in t]
        outcomes = collections.Counter(t["outcome"] for t in runs)
        deadlocks = [t for t in runs if t["outcome"] == "deadlock"]
        cycles = sum(1 for t in deadlocks if (t.get("stall") or {}).get("cycle"))
        at_once = sum(1 for t in deadlocks if "found at once by controlled scheduling" in (t.get("stall") or {}).get("summary", ""))
        control = collections.Counter((t.get("schedule") or {}).get("controlled", "none") for t in runs)
        how = " ".join(f"{o}={n}" for o, n in sorted(outcomes.items()))
        if deadlocks:
            how += f"; {cycles}/{len(deadlocks)} with a cycle, {at_once}/{len(deadlocks)} at once"
        how += "; " + " ".join(f"{k}={n}" for k, n in sorted(control.items()))
        slowest = ms(max(walls)) if walls else "-"
        afters = [x for x in map(detected_after_ns, found) if x is not None]
        to_bug = ms(max(afters)) if afters else "-"
        print(f"{cell:50} {len(found):>3}/{len(runs):<3} {len(expected):>4}/{len(runs):<3} {to_bug:>9} {slowest:>9}  {how}")
        totals["cells"] += 1
        totals["all found"] += len(found) == seeds == len(runs)
        totals["all expected"] += len(expected) == seeds == len(runs)
        totals["within 2 s"] += bool(walls) and len(walls) == len(runs) and max(walls) <= 2e9
    print(f"cells: {totals['cells']}; found in {seeds}/{seeds}: {totals['all found']}; as expected in {seeds}/{seeds}: "
          f"{totals['all expected']}; every run found within 2 s (wallNs): {totals['within 2 s']}")


def failing(paths):
    seen = set()
    for path in paths:
        for t in results(path):
            experiment = t["trial"]["experiment"]
            if experiment in seen or t["outcome"] not in FOUND:
                continue
            seen.add(experiment)
            print(t["trial"]["id"], t["trial"]["seed"], t["outcome"], t["trial"]["fuzz"]["profile"])


def alarms(path):
    trials = results(path)
    outcomes = collections.Counter(t["outcome"] for t in trials)
    bad = [t for t in trials if t["outcome"] != "passed"]
    partial = sum(1 for t in trials if (t.get("schedule") or {}).get("controlled") == "partial")
    print(f"{len(trials)} trials, {len(bad)} not passed ({' '.join(f'{o}={n}' for o, n in sorted(outcomes.items()))}); "
          f"controlled partial: {partial}")
    for t in bad[:5]:
        first = (t["violations"].get("samples") or [{}])[0].get("message") or (t.get("failure") or {}).get("message", "")
        print(f"  NOT PASSED {t['trial']['id']} seed {t['trial']['seed']} fuzz {t['trial'].get('fuzz', {}).get('profile')}: "
              f"{t['outcome']}: {first[:160]}")


def speed(path):
    for t in results(path):
        m = t.get("measurement") or {}
        s = t.get("schedule") or {}
        # A scenario's rounds (the record's `rounds`); totalOps counts every
        # role's operations, twice the rounds of a 2-role scenario.
        ops, elapsed, decisions = t.get("rounds") or m.get("totalOps"), m.get("elapsedNs"), s.get("decisions")
        if not (ops and elapsed and decisions):
            print(f"{t['trial']['id']}: {t['outcome']}, no measurement (ops {ops}, elapsed {elapsed}, decisions {decisions})")
            continue
        seconds = elapsed / 1e9
        print(f"{t['trial']['id']} fuzz {t['trial'].get('fuzz', {}).get('profile')}: {t['outcome']}, {ops} rounds, "
              f"{decisions} decisions ({decisions / ops:.1f} a round), {seconds:.3f} s: {ops / seconds:,.0f} rounds/s, "
              f"{decisions / seconds:,.0f} decisions/s, {elapsed / decisions:,.0f} ns a decision; controlled "
              f"{s.get('controlled')}")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "select":
        select(args[0], args[1], set(args[2:]))
    elif command == "fuzz":
        fuzz(args[0], args[1:])
    elif command == "detect":
        detect(int(args[0]), args[1:])
    elif command == "failing":
        failing(args)
    elif command == "alarms":
        alarms(args[0])
    elif command == "speed":
        speed(args[0])
    else:
        refuse(f"unknown command {command}")
