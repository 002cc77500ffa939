#!/usr/bin/env python3
"""One line of scripts/exploration.sh from a run's JSON results.

  shrink  NAME results.json report.txt   events and preemptions before/after,
                                         busy workers, drawn rows, candidates,
                                         wall time (one trial a run)
  explore NAME results.json SECONDS      schedules, failed, complete, pruned
  free    NAME results.json              trials that found the bug
"""
import json
import sys


def trials(path):
    with open(path) as f:
        data = json.load(f)
    return data.get("trials") or data.get("results") or []


def drawn_rows(report_path):
    """Rows of the first drawn trace table (lines starting with '  |', minus the header)."""
    rows, inside = 0, False
    with open(report_path) as f:
        for line in f:
            if line.startswith("  interleaving"):
                inside = True
                continue
            if inside:
                if line.startswith("  |"):
                    rows += 1
                else:
                    break
    return max(0, rows - 1)


def main():
    kind, name, path = sys.argv[1], sys.argv[2], sys.argv[3]
    ts = trials(path)
    if kind == "shrink":
        rows = drawn_rows(sys.argv[4])
        for t in ts:
            s = t.get("shrink")
            wall = (t.get("wallNs") or 0) / 1e9
            if s:
                busy = s.get("busyWorkers")
                print("    %-8s %s: events %d->%d, preemptions %d->%d, busy %s, rows %d, %d candidates%s, %.1fs" % (
                    name, t["outcome"], s["eventsBefore"], s["eventsAfter"], s["preemptionsBefore"], s["preemptionsAfter"],
                    ",".join("w%d" % w for w in busy) if busy else "all", rows,
                    s["attempts"], " (time bound)" if s.get("timedOut") else "", wall))
            else:
                print("    %-8s %s: not shrunk, %.1fs" % (name, t["outcome"], wall))
    elif kind == "explore":
        seconds = float(sys.argv[4])
        for t in ts:
            e = t.get("exploration") or {}
            print("%-55s %s: %d schedules, %d failed, complete %s, pruned %d, %.2fs" % (
                name, t["outcome"], e.get("schedules", -1), e.get("failed", -1), e.get("complete"), e.get("pruned", 0), seconds))
    elif kind == "free":
        found = sum(1 for t in ts if t["outcome"] != "passed")
        rounds = [t.get("rounds") or 0 for t in ts]
        print("%-20s found in %d of %d trials (rounds a trial: %s)" % (name, found, len(ts), ", ".join(map(str, rounds))))


if __name__ == "__main__":
    main()
