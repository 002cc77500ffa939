#!/usr/bin/env python3
"""Hostile plan files for `stressbench validate`: a corpus generator, a
mutation fuzzer and a campaign runner that reports every defect.

Usage (Python 3 standard library only):

  scripts/hostile-plans.py generate OUTDIR [--seed N] [--count N] [--clean]
      Writes a deterministic corpus of hostile plans (by default every named
      case, about 380, 2.4 MB; one of 1 MiB) named by category: alias-key-level5.yaml, dup-json-nested.json,
      control-chars-name.yaml, threads-4096.yaml, binary-garbage.yaml, ...
      The named cases never depend on --seed; --count above their number adds
      seeded random combinations (random-NNN.yaml), below it keeps the first
      N. --clean first removes OUTDIR's *.yaml, *.yml and *.json files.
      The corpus in Tests/StressKitEndToEndTests/HostilePlans is regenerated with
        scripts/hostile-plans.py generate --clean Tests/StressKitEndToEndTests/HostilePlans

  scripts/hostile-plans.py mutate OUTDIR [--seed N] [--count N] [--corpus DIR]
      Writes --count mutated plans (default 100) made from the seed corpus
      (the generated corpus, or the files of --corpus, plus Plans/*.yaml) by
      byte flips, line duplication/deletion/swaps, splicing two plans, keys
      and values from a dictionary of plan keys and hostile values, indentation
      changes, truncation, tags, document markers, control characters, long
      tokens, anchors, aliases and alias bombs. The same seed gives the same files.

  scripts/hostile-plans.py campaign BINARY [--count 12000] [--seed N] [--timeout 5]
                                           [--jobs 2] [--keep DIR] [--corpus DIR]
      Runs `BINARY validate FILE` on --count mutated plans (written to a
      temporary directory), each with a time limit, and prints a summary:
      plans run, exits by code, signals, timeouts, the 10 slowest validations
      and every defect. Inputs with a defect, and the slowest ones, are copied
      to --keep (default: a new directory under the system temp dir). Exit 1
      if there was any defect, else 0.

  scripts/hostile-plans.py check BINARY DIR [--timeout 5]
      Runs `BINARY validate FILE` on every file of DIR (README.md excepted),
      prints the defects; exit 1 if any.

A defect is: an exit code other than 0 (valid) or 2 (invalid); death by a
signal; a timeout; a validation over 1 s for a plan of at most 1 MiB (re-run
twice on its own; the fastest of the three counts, so a busy machine does not
make a defect); a stderr line starting with `error:` that does not match
`^error: [^:]+(:\\d+(:\\d+)?)?: \\S.*: .+` or whose key-path part is not a key
path (`(top level)`, or a path whose first key is a plan key or appears in the
plan); any other stderr line that is neither `error:` nor `warning:`; exit 2
without an `error:` line, or exit 0 with one; a raw control character in
stdout or stderr (a byte below 0x20 other than newline, or 0x7f). Raw C1
controls and bidirectional overrides are reported as notes, not defects.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
MIB = 1 << 20
SLOW_SECONDS = 1.0

# The plan's keys, as PlanLoader.swift, PlanLoader+RunSettings.swift,
# PlanLoader+Gate.swift and FuzzSettings.swift know them.
TOP_KEYS = ["name", "description", "order", "allow_large", "defaults", "experiments", "thresholds", "gate"]
SHARED_KEYS = ["strategies", "threads", "duration", "ops", "repetitions", "seed", "warmup", "timeout",
               "deadlock_after", "fuzz", "timing", "allocator", "load", "stop_on_violation"]
EXPERIMENT_KEYS = ["name", "description", "workload", "parameters", "thresholds"] + SHARED_KEYS
FUZZ_KEYS = ["yield", "spin", "spin_min", "spin_max", "sleep", "sleep_min", "sleep_max", "starve", "starve_min",
             "starve_max", "starve_share", "pct_depth", "pct_wait_cap", "stagger"]
GATE_KEYS = ["tolerance", "confidence", "metric", "min_samples"]
TIMING_KEYS = ["clock", "sample"]
LOAD_KEYS = ["mode", "rate", "arrivals"]
FUZZ_PROFILES = ["off", "light", "yield", "chaos", "pct", "portfolio"]
STRATEGIES = ["pthread-mutex", "nslock", "mutex", "spinlock", "recursive-lock", "synchronized", "rwlock", "atomic",
              "serial-queue", "serial-queue-f", "serial-queue-async", "target-queue", "rw-queue", "rw-queue-f",
              "rw-queue-async", "actor", "global-actor", "unsynchronized"]
WORKLOAD_PARAMETERS = {
    "counter": ["read_ratio", "variant", "track_occupancy", "read_spin"],
    "bank": ["accounts", "initial_balance", "max_transfer", "audit_ratio", "deposit_ratio", "withdraw_ratio",
             "close_ratio", "variant"],
    "cache": ["keys", "read_ratio", "distribution", "zipf_exponent", "variant"],
    "lifecycle": ["slots", "cancel_ratio", "max_work", "variant"],
    "queue": ["capacity", "produce_ratio"],
    "lazy-init": ["reset_ratio", "payload_words", "variant"],
}
PARAMETER_KEYS = sorted({p for ps in WORKLOAD_PARAMETERS.values() for p in ps})
ALL_KEYS = sorted(set(TOP_KEYS + EXPERIMENT_KEYS + FUZZ_KEYS + GATE_KEYS + TIMING_KEYS + LOAD_KEYS + PARAMETER_KEYS
                      + ["profile"]))
MISSPELLED_KEYS = ["stratgies", "thread", "durations", "yeild", "repetition", "experiment", "defualts", "Name",
                   "NAME", "allow-large", "deadlock-after", "<<", "~", "null", "true", "1", "-", "?", "key with spaces"]

# Values that are wrong somewhere, or everywhere, in YAML source form.
HOSTILE_VALUES = [
    "~", "null", "", "''", '""', "[]", "{}", "[~]", "{a: 1}", "[[1]]", "-1", "0", "-0", "+4", "4.0", "1.5",
    "1e400", "-1e400", "1e308", "18446744073709551616", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "9007199254740992", "0x10", "0o17", "0b101", "1_000", "1__0", "_", "100k", "1.5k", "2M",
    "1G", "9.3e18k", "4096", "4097", "1025", "1024", "100000", "100001", "168h", "169h", "168.0000001h", "604800s",
    "1e308s", "1e400s", "0.0000001ns", "-1s", "5 ms", "5S", "5sec", "1h30m", "ms", "5µs", "5μs", "nan", ".nan",
    ".inf", "-.inf", "inf", "yes", "no", "on", "off", "True", "maybe", "'4'", '"4"', '"\\e[2J"', '"a\\nerror: forged"',
    '"\\x00"', '"\\x7f"', '"\\u0085"', '"\\u202e"', '"\\t"', '"\\r"', "тест", "ｃｏｕｎｔｅｒ", "４", "٤", "🙂",
    "!!binary aGVsbG8=", "!!python/object:os.system ls", "!!str 4", "!!int '4'", "!!float nan", "!!null ~",
    "!custom x", "!<tag:yaml.org,2002:str> x", "[1, 2, 4]", "[4, 4]", "[0]", "[-1]", "{profile: chaos, stagger: 168h}",
    "{profile: chaos, sleep: 1, sleep_min: 168h, sleep_max: 168h}", "{profile: chaos, pct_depth: 65}",
    "{mode: paced}", "{mode: paced, rate: 0}", "{mode: paced, rate: 50%}", "{mode: closed, rate: 1k}",
    "{clock: rdtsc}", "{sample: 0}", "{tolerance: 100%}", "{confidence: 1e999%}", "{metric: violations}",
    "all", "ALL", "[all, all]", "[atomic]", "[nope]", "chaos", "pct", "auto", "closed", "paced", "10%", "1000%",
    "-5%", "p99 < 50us", '"p99 <"', '["p99 < 50us", "p99 < 50us"]', '["ops_per_s >= 0.9 * baseline * baseline"]',
    "matrix", "interleaved", "random", "jemalloc", "[system, system]", "tcmalloc", "counter", "bank", "cache",
    "lifecycle", "queue", "lazy-init", "nope", "split-rmw", "lock-order-inversion", "|\n  literal", ">-\n  folded",
    "*a", "&a x", "*undefined", "- item", "? complex", "'unterminated", '"unterminated', "[unclosed", "{unclosed",
    "# comment only", "key: value", "a: b: c", "%YAML 1.1", "---", "...", "\t4", "4\t", " 4",
]

# The valid skeleton every targeted case changes: two small experiments,
# short windows, a couple of strategies, as in Plans/quickstart.yaml.
BASE = """\
name: hostile
description: a small valid plan the hostile corpus changes
defaults:
  strategies: [pthread-mutex, actor]
  threads: [1, 2]
  duration: 100ms
  warmup: 10ms
  seed: 1
experiments:
  - name: counter
    workload: counter
    parameters:
      read_ratio: 0.2
  - name: bank
    workload: bank
    parameters: {accounts: 8, audit_ratio: 0.05}
"""

# Wrong kinds of value, for every key.
WRONG_KINDS = {
    "null": "~",
    "empty": "",
    "list": "[1, [2], {a: 3}]",
    "map": "{a: 1, b: [2]}",
    "number": "-1e400",
    "bool": "true",
    "quoted": '"4"',
    "text": "lots and lots",
    "binary": "!!binary aGVsbG8=",
    "python": "!!python/object:os.system ls",
}


def plan(top="", defaults="", experiments=None, name="hostile"):
    """A plan from the skeleton's parts: extra top-level lines, extra
    `defaults` lines (two-space indented), experiment blocks."""
    text = f"name: {name}\n" if name is not None else ""
    text += top
    text += "defaults:\n  strategies: [pthread-mutex, actor]\n  threads: [1, 2]\n  duration: 100ms\n  warmup: 10ms\n  seed: 1\n"
    text += defaults
    text += "experiments:\n"
    for e in experiments if experiments is not None else [exp()]:
        text += e
    return text


def exp(lines="", name="counter", workload="counter", parameters="{read_ratio: 0.2}"):
    """One experiment block; `lines` are extra `key: value` lines (no indentation)."""
    text = f"  - name: {name}\n    workload: {workload}\n"
    if parameters is not None:
        text += f"    parameters: {parameters}\n"
    for line in lines.splitlines():
        text += f"    {line}\n"
    return text


def bomb(levels, width=10, prefix="l"):
    """Billion-laughs anchors as top-level keys: level k is a list of `width`
    aliases of level k-1; level 0 is `width` scalars."""
    lines = [f"{prefix}0: &{prefix}0 [" + ",".join(["lol"] * width) + "]"]
    for k in range(1, levels + 1):
        lines.append(f"{prefix}{k}: &{prefix}{k} [" + ",".join([f"*{prefix}{k - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def pad(text, size, comment="# padding"):
    """`text` with a comment line appended so it is exactly `size` bytes."""
    raw = text.encode()
    if len(raw) >= size:
        return raw
    filler = (comment + " " + "x" * size)[: size - len(raw) - 1]
    return raw + filler.encode() + b"\n"


def experiments_with(key, values, workload="counter", parameters="{read_ratio: 0.2}"):
    """One experiment per value, each setting `key` to it."""
    return [exp(f"{key}: {v}", name=f"e{i}", workload=workload, parameters=parameters) for i, v in enumerate(values)]


def catalogue():
    """The named cases, in a fixed order: (file name, bytes)."""
    out = []

    def add(name, content):
        out.append((name, content.encode() if isinstance(content, str) else content))

    # --- valid skeletons (must print ok) -------------------------------------
    add("valid-skeleton.yaml", BASE)
    add("valid-skeleton.json", json.dumps({
        "name": "hostile", "defaults": {"strategies": ["pthread-mutex", "actor"], "threads": [1, 2],
                                        "duration": "100ms", "warmup": "10ms", "seed": 1},
        "experiments": [{"name": "counter", "workload": "counter", "parameters": {"read_ratio": 0.2}},
                        {"name": "bank", "workload": "bank", "parameters": {"accounts": 8}}]}, indent=2) + "\n")
    add("valid-flow.yaml", "{name: hostile, defaults: {strategies: [actor], threads: 1, duration: 10ms}, "
                           "experiments: [{workload: counter}, {workload: queue, name: q}]}\n")
    add("valid-allow-large-threads-4096.yaml", plan(top="allow_large: true\n",
                                                    experiments=[exp("threads: 4096\nduration: 10ms")]))
    add("valid-trials-100000.yaml", plan(experiments=[exp("strategies: [actor]\nthreads: 1\nrepetitions: 100000\n"
                                                          "duration: 1ms\nwarmup: 0")], top="allow_large: true\n"))
    add("valid-seed-max.yaml", plan(experiments=[exp("seed: 9007199254740991")]))
    add("valid-duration-168h-allow-large.yaml", plan(top="allow_large: true\n",
                                                     experiments=[exp("strategies: [actor]\nthreads: 1\nduration: 168h")]))
    add("valid-every-key.yaml", plan(top="description: every key once\norder: interleaved\nallow_large: false\n"
                                         "thresholds: [\"p99 < 50ms\", \"ops_per_s > 1k\"]\n"
                                         "gate: {tolerance: 10%, confidence: 95%, metric: p50, min_samples: 5}\n",
                                     experiments=[exp("description: x\nstrategies: [pthread-mutex, mutex]\nthreads: [1, 2]\n"
                                                      "ops: 1k\nrepetitions: 2\nseed: 7\nwarmup: 0\ntimeout: 30s\n"
                                                      "deadlock_after: 2s\nfuzz: {profile: chaos, yield: 0.1, stagger: 1ms}\n"
                                                      "timing: {clock: monotonic, sample: 8}\nallocator: [system]\n"
                                                      "load: closed\nstop_on_violation: true\nthresholds: [\"p99 < 1ms\"]")]))

    # --- alias trees as mapping keys: 800 bytes, 10 aliases a level -----------
    for n in range(3, 13):
        text = f"# an alias tree of {n} levels as a mapping key\n" + bomb(n, prefix="a").replace("lol", "x")
        text += "experiments:\n  - workload: counter\n    ? *a%d\n    : 1\n" % n
        add(f"alias-key-level{n}.yaml", pad(text, 800))
    add("alias-key-small.yaml", "a: &a name\nexperiments:\n  - workload: counter\n    *a : x\n")
    add("alias-key-top.yaml", "x: &x [1, 2]\n? *x\n: 1\nexperiments: [{workload: counter}]\n")
    add("alias-key-in-parameters.yaml", plan(top="k: &k read_ratio\n",
                                             experiments=[exp(parameters="{? *k : 0.5}")]))
    add("alias-key-in-defaults.yaml", plan(top="k: &k threads\n", defaults="  ? *k\n  : 4\n"))
    add("alias-key-flow.yaml", "x: &x {a: 1}\nexperiments: [{workload: counter, *x : 1}]\n")
    add("list-key.yaml", "? [a, b]\n: 1\nexperiments: [{workload: counter}]\n")
    add("map-key.yaml", "? {name: x}\n: 1\nexperiments: [{workload: counter}]\n")
    add("map-key-flow.yaml", "{[1, 2]: 3, experiments: [{workload: counter}]}\n")
    add("block-scalar-key.yaml", "? |\n  name\n: x\nexperiments: [{workload: counter}]\n")

    # --- alias bombs as values ------------------------------------------------
    for n in range(3, 13):
        add(f"alias-value-level{n}.yaml", bomb(n) + f"description: *l{n}\nexperiments: [{{workload: counter}}]\n")
    for n in (5, 8):
        add(f"alias-threads-level{n}.yaml", bomb(n) + plan(experiments=[exp(f"threads: *l{n}")]))
        add(f"alias-experiments-level{n}.yaml", bomb(n).replace("lol", "{workload: counter}") + f"experiments: *l{n}\n")
    for n in (4, 9):
        add(f"alias-bomb-dup-key-level{n}.yaml", "name: a\nname: b\n" + bomb(n) + f"description: *l{n}\n"
                                                 "experiments: [{workload: counter}]\n")
        add(f"alias-bomb-then-dup-key-level{n}.yaml", bomb(n) + f"description: *l{n}\nname: a\nname: b\n"
                                                      "experiments: [{workload: counter}]\n")
    add("alias-bomb-wide.yaml", bomb(3, width=100) + "description: *l3\nexperiments: [{workload: counter}]\n")
    add("alias-bomb-mapping.yaml", "m0: &m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10}\n"
        + "".join(f"m{k}: &m{k} {{" + ", ".join(f"k{j}: *m{k - 1}" for j in range(10)) + "}\n" for k in range(1, 9))
        + "defaults: *m8\nexperiments: [{workload: counter}]\n")
    add("alias-limit-under.yaml", "a: &a [" + ",".join(["1"] * 1000) + "]\nb: [" + ",".join(["*a"] * 990) + "]\n"
                                  "experiments: [{workload: counter}]\n")
    add("alias-limit-over.yaml", "a: &a [" + ",".join(["1"] * 1000) + "]\nb: [" + ",".join(["*a"] * 1000) + "]\n"
                                 "experiments: [{workload: counter}]\n")
    add("alias-merge-key.yaml", "base: &base {workload: counter, threads: 2}\nexperiments:\n  - <<: *base\n    name: merged\n")
    add("alias-merge-bomb.yaml", bomb(7).replace("lol", "{a: 1}") + "experiments:\n  - <<: *l7\n    workload: counter\n")
    add("alias-undefined.yaml", plan(experiments=[exp("threads: *nowhere")]))
    add("alias-recursive.yaml", "a: &a [*a]\nexperiments: [{workload: counter}]\n")
    add("alias-redefined-anchor.yaml", "a: &x small\n" + bomb(6) + "b: &x [*l6, *l6]\nc: *x\nexperiments: [{workload: counter}]\n")
    add("alias-anchor-on-key.yaml", "&k name: x\ndescription: *k\nexperiments: [{workload: counter}]\n")
    add("alias-as-whole-plan.yaml", "--- &p\nexperiments: [{workload: counter}]\n")
    add("alias-valid-defaults.yaml", "shared: &s {threads: 1, duration: 10ms}\ndefaults: *s\nexperiments: [{workload: counter}]\n")
    add("alias-experiment-reused.yaml", "experiments:\n  - &e {workload: counter, name: a}\n  - *e\n")

    # --- duplicate keys at every level ----------------------------------------
    add("dup-top-name.yaml", "name: a\n" + plan(name="b"))
    add("dup-top-experiments.yaml", plan() + "experiments: [{workload: bank}]\n")
    add("dup-top-defaults.yaml", plan() + "defaults: {threads: 4}\n")
    add("dup-defaults-threads.yaml", plan(defaults="  threads: 4\n"))
    add("dup-experiment-workload.yaml", plan(experiments=[exp("workload: bank")]))
    add("dup-parameters.yaml", plan(experiments=[exp(parameters="{read_ratio: 0.1, read_ratio: 0.2}")]))
    add("dup-fuzz.yaml", plan(experiments=[exp("fuzz: {profile: chaos, yield: 0.1, yield: 0.2, profile: pct}")]))
    add("dup-timing.yaml", plan(experiments=[exp("timing: {clock: tsc, clock: monotonic}")]))
    add("dup-load.yaml", plan(experiments=[exp("load: {mode: paced, rate: 1k, mode: closed}")]))
    add("dup-gate.yaml", plan(top="gate: {tolerance: 10%, tolerance: 20%}\n"))
    add("dup-three-times.yaml", plan(experiments=[exp("threads: 1\nthreads: 2\nthreads: 3")]))
    add("dup-every-level.yaml", "name: a\nname: b\n" + plan(
        top="gate: {metric: p50, metric: p99}\n", defaults="  seed: 2\n",
        experiments=[exp("workload: counter\nfuzz: {yield: 0.1, yield: 0.1}\ntiming: {sample: 1, sample: 2}",
                         parameters="{read_ratio: 0.1, read_ratio: 0.1}")]) + "experiments: []\n")
    add("dup-quoted-vs-plain.yaml", plan(top='"name": other\n'))
    add("dup-explicit-key.yaml", plan(top="? name\n: other\n"))
    add("dup-null-keys.yaml", "~: 1\nnull: 2\n? \n: 3\n: 4\nexperiments: [{workload: counter}]\n")
    add("dup-flow-mapping.yaml", "{name: a, name: b, experiments: [{workload: counter, workload: bank}]}\n")
    add("dup-after-alias.yaml", "x: &x 1\ny: *x\ny: *x\nexperiments: [{workload: counter}]\n")
    add("dup-many.yaml", "".join(f"name: n{i}\n" for i in range(1000)) + "experiments: [{workload: counter}]\n")
    add("dup-experiment-names.yaml", plan(experiments=[exp(), exp(), exp(name="counter", workload="bank",
                                                                      parameters=None)]))
    add("dup-json-top.json", '{"name": "a", "experiments": [{"workload": "counter"}], "name": "b"}\n')
    add("dup-json-nested.json", '{"experiments": [{"workload": "counter", "parameters": {"read_ratio": 0.1, '
                                '"read_ratio": 0.9}, "workload": "bank"}]}\n')
    add("dup-json-deep.json", '{"experiments": [{"workload": "counter", "fuzz": {"profile": "chaos", "stagger": "1ms", '
                              '"stagger": "2ms"}, "timing": {"clock": "tsc", "clock": "tsc"}}], '
                              '"gate": {"metric": "p50", "metric": "p50"}, "defaults": {"seed": 1, "seed": 1}}\n')
    add("dup-json-escaped.json", '{"name": "a", "n\\u0061me": "b", "experiments": [{"workload": "counter"}]}\n')

    # --- control characters in text that messages quote -----------------------
    evil = '"evil\\nerror: forged.yaml:1:1: x: y\\e[2J\\e[31m"'
    add("control-chars-name.yaml", plan(experiments=[exp(name=evil)]))
    add("control-chars-plan-name.yaml", plan(name=evil))
    add("control-chars-workload.yaml", plan(experiments=[exp(workload=evil, parameters=None)]))
    add("control-chars-key.yaml", plan(experiments=[exp(f"{evil}: 1")]))
    add("control-chars-top-key.yaml", plan(top=f"{evil}: 1\n"))
    add("control-chars-strategy.yaml", plan(experiments=[exp(f"strategies: [{evil}]")]))
    add("control-chars-threshold.yaml", plan(experiments=[exp('thresholds: ["p99\\e[2J < 50us", "p\\n99 < 1ms", '
                                                              '"p99 < 50\\ru"]')]))
    add("control-chars-fuzz-profile.yaml", plan(experiments=[exp(f"fuzz: {evil}")]))
    add("control-chars-metric.yaml", plan(top=f"gate: {{metric: {evil}}}\n"))
    add("control-chars-duration.yaml", plan(experiments=[exp(f"duration: {evil}")]))
    add("control-chars-order.yaml", plan(top=f"order: {evil}\n"))
    add("control-chars-allocator.yaml", plan(experiments=[exp(f"allocator: {evil}")]))
    add("control-chars-clock.yaml", plan(experiments=[exp(f"timing: {{clock: {evil}}}")]))
    add("control-chars-variant.yaml", plan(experiments=[exp(parameters=f"{{variant: {evil}}}")]))
    add("control-chars-parameter-key.yaml", plan(experiments=[exp(parameters=f"{{{evil}: 1}}")]))
    add("control-chars-rate.yaml", plan(experiments=[exp(f"load: {{mode: paced, rate: {evil}}}")]))
    add("control-chars-c1.yaml", plan(experiments=[exp(name='"a\\u0085b\\u009b2J\\x9bc"')]))
    add("control-chars-bidi.yaml", plan(experiments=[exp(name='"admin\\u202e\\u2066gnp.exe"'),
                                                     exp(workload='"count\\u202eer"', name="b", parameters=None)]))
    add("control-chars-nul-escape.yaml", plan(experiments=[exp(name='"a\\0b"', workload='"counter\\0"',
                                                               parameters=None)]))
    add("control-chars-del.yaml", plan(experiments=[exp(name='"a\\x7fb"', workload='"x\\x7f\\x1b"', parameters=None)]))
    add("control-chars-tab-in-value.yaml", plan(experiments=[exp(name='"a\tb"', workload="'co\tunter'", parameters=None)]))
    add("control-chars-raw-cr.yaml", BASE.replace("\n", "\r") + "bogus: 1\r")
    add("control-chars-crlf.yaml", (BASE + "bogus: 1\n").replace("\n", "\r\n"))
    add("control-chars-raw-esc.yaml", plan(experiments=[exp(name="a\x1b[2Jb")]))
    add("control-chars-raw-nul.yaml", BASE.encode() + b"\x00garbage: [\n")
    add("control-chars-raw-nul-in-value.yaml", plan(experiments=[exp(name="a\x00b")]))
    add("control-chars-raw-bell.yaml", plan(experiments=[exp(name='"a\x07b"')]))
    add("control-chars-description.yaml", plan(top='description: "line1\\nerror: forged\\e[2J"\n'))
    add("control-chars-ansi-everywhere.yaml", plan(
        top='"\\e[1mname\\e[0m": x\norder: "\\e]0;title\\a"\n',
        experiments=[exp('"\\e[2J": 1\nstrategies: ["\\e[31mred"]\nthreads: "\\e[5m"\nduration: "1\\e[Ds"',
                         name='"\\e[2J\\e[H"')]))
    add("control-chars-forged-line.yaml", plan(experiments=[exp(workload='"x\\nok: forged.yaml: 1 experiment(s)\\n"',
                                                                parameters=None)]))

    # --- names ------------------------------------------------------------------
    add("name-newline-ansi.yaml", plan(experiments=[exp(name='"bank\\nerror: forged\\e[2J"')]))
    add("name-cyrillic.yaml", plan(experiments=[exp(name="счётчик")]))
    add("name-fullwidth.yaml", plan(experiments=[exp(name="ｃｏｕｎｔｅｒ")]))
    add("name-mixed-script.yaml", plan(experiments=[exp(name="сounter")], name="plаn"))
    add("name-combining.yaml", plan(experiments=[exp(name="cou\u0301nter")]))
    add("name-zero-width.yaml", plan(experiments=[exp(name='"count\\u200ber"'), exp(name='"\\ufeffbank"', workload="bank")]))
    add("name-emoji.yaml", plan(experiments=[exp(name="🔥counter🔥")]))
    add("name-empty.yaml", plan(experiments=[exp(name='""')], name="''"))
    add("name-space.yaml", plan(experiments=[exp(name="'a b'")]))
    add("name-path.yaml", plan(experiments=[exp(name="../../etc/passwd"), exp(name="a/b", workload="bank")], name="/tmp/x"))
    add("name-dots.yaml", plan(experiments=[exp(name=".."), exp(name=".", workload="bank")]))
    add("name-long.yaml", plan(experiments=[exp(name="n" * 4000)]))
    add("name-numbers.yaml", plan(experiments=[exp(name="1e400"), exp(name="0x10", workload="bank")], name="12"))
    add("name-reserved-words.yaml", plan(experiments=[exp(name="null"), exp(name="true", workload="bank")]))

    # --- Unicode --------------------------------------------------------------
    add("unicode-keys.yaml", "ｎａｍｅ: x\nимя: y\nnamе: z\n" + plan(experiments=[exp("ｔｈｒｅａｄｓ: 4\nпотоки: 2")]))
    add("unicode-workload-homoglyph.yaml", plan(experiments=[exp(workload="сounter", parameters=None)]))
    add("unicode-digits.yaml", plan(experiments=experiments_with("threads", ["٤", "４", "Ⅳ", "½", "𝟒", "४"])))
    add("unicode-duration.yaml", plan(experiments=experiments_with("duration", ["5µs", "5μs", "５ms", "5ｍｓ", "١s", "5\u00a0ms"])))
    add("unicode-strategies.yaml", plan(experiments=[exp("strategies: [ａｃｔｏｒ, аctor, act\u200bor]")]))
    add("unicode-emoji-keys.yaml", "🔑: 1\n" + plan(experiments=[exp("🧵: 4")]))
    add("unicode-surrogate-escape.yaml", plan(experiments=[exp(name='"\\ud800"')]))
    add("unicode-nonchar.yaml", plan(experiments=[exp(name='"\\uffff\\ufffe"')]))
    add("unicode-long-key.yaml", plan(experiments=[exp("? " + "🙂" * 2000 + "\n: 1")]))
    add("unicode-nfd.yaml", "nam\u0065\u0301: x\n" + BASE)
    add("bom.yaml", b"\xef\xbb\xbf" + BASE.encode())
    add("bom-json.json", b"\xef\xbb\xbf" + b'{"experiments": [{"workload": "counter"}]}\n')
    add("bom-middle.yaml", BASE.encode() + b"\xef\xbb\xbfbogus: 1\n")
    add("bom-twice.yaml", b"\xef\xbb\xbf\xef\xbb\xbf" + BASE.encode())
    add("utf16-le.yaml", BASE.encode("utf-16-le"))
    add("utf16-bom.yaml", BASE.encode("utf-16"))
    add("utf32.yaml", BASE.encode("utf-32"))
    add("latin1.yaml", plan(experiments=[exp(name="caf\xe9")]).encode("latin-1"))
    add("utf8-overlong.yaml", BASE.encode() + b"x: \xc0\xaf\xe0\x80\xaf\n")
    add("utf8-truncated.yaml", BASE.encode() + b"x: \xe2\x82\n")
    add("utf8-cesu-surrogate.yaml", BASE.encode() + b"x: \xed\xa0\x80\n")

    # --- numbers that overflow or are written oddly --------------------------
    add("numbers-overflow.yaml", plan(experiments=[
        exp("threads: 1e400", name="a"), exp("seed: 18446744073709551616", name="b"),
        exp("duration: 1e308s", name="c"), exp("ops: -0", name="d"), exp("repetitions: 0x10", name="e")]))
    add("numbers-threads.yaml", plan(experiments=experiments_with("threads", [
        "1e400", "18446744073709551616", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "0", "-0", "-1", "1.5k", "4.096k", ".5k", "1e3", "0o17", "0b101", "+4", '"4"', "4.0", ".inf", ".nan",
        "1_0_2_5", "0x1000", "4097", "[1, 1e400]", "[4096, 4096]"])))
    add("numbers-seed.yaml", plan(experiments=experiments_with("seed", [
        "18446744073709551616", "18446744073709551615", "9007199254740991", "9007199254740992", "-1", "-0", "1e400",
        "1.5", "0x10", "9.007199254740992k", "9007199254740.991k", "1G", "9223372036854775807k"])))
    add("numbers-duration.yaml", plan(experiments=experiments_with("duration", [
        "1e308s", "1e400", "1e308", "99999999999999999999999h", "168h", "168.0000001h", "604800s", "604800.000001s",
        "10080m", "10080min", "604800000ms", "604800000000001ns", "0.0000000001ns", "0", "0s", "-1s", "-0", "1_e3s",
        "1__ms", "ms", "5 ms", "5S", "5sec", "1h30m", ".5s", "5.s", "1e3ms", "0x10s", "inf", "nan s", "18446744073709551615ns",
        "18446744073709551616ns", "9.3e18ns", "1.8e19ns"])))
    add("numbers-ops.yaml", plan(experiments=experiments_with("ops", [
        "-0", "0", "9223372036854775807", "9223372036854775808", "9.3e18k", "9e15k", "1e400", "1.5", "1.5k", "-1k",
        "100k", "1_000_000", "0x10", '"100"', "1M", "9223372036854776k"])))
    add("numbers-repetitions.yaml", plan(experiments=experiments_with("repetitions", [
        "0x10", "0", "-0", "100000", "100001", "100k", "1e5", "1_0_0", "_", "1__", "1.0", "1e400", "-1",
        "18446744073709551616"]) + [exp("strategies: [actor]\nthreads: 1\nrepetitions: 100k", name="alone")]))
    add("numbers-warmup.yaml", plan(experiments=experiments_with("warmup", [
        "-1s", "1e-9999s", "169h", "1e308s", "0", "-0", "nan", "168h"])))
    add("numbers-timeout.yaml", plan(experiments=experiments_with("timeout", [
        "0", "0s", "auto", "AUTO", "169h", "1e400s", "1ns", "-1s", "168h"])))
    add("numbers-deadlock-after.yaml", plan(experiments=experiments_with("deadlock_after", [
        "0", "168h", "169h", "1ns", "1e400s", "300s", "1m"])))
    add("numbers-deadlock-vs-timeout.yaml", plan(experiments=[
        exp("timeout: 1s\ndeadlock_after: 1s", name="a"), exp("timeout: 1ns\ndeadlock_after: 168h", name="b"),
        exp("ops: 1\ndeadlock_after: 168h", name="c"), exp("duration: 168h\ndeadlock_after: 168h", name="d")],
        defaults="  timeout: 1ms\n"))

    # --- sizes past the limits ---------------------------------------------------
    add("huge-repetitions.yaml", plan(experiments=[exp("strategies: all\nthreads: [1, 2, 4]\nrepetitions: 100000")]))
    add("huge-repetitions-100k.yaml", plan(experiments=[exp("repetitions: 100k")]))
    add("huge-trials-100001.yaml", plan(top="allow_large: true\n", experiments=[
        exp("strategies: [actor]\nthreads: 1\nrepetitions: 100000\nduration: 1ms", name="a"),
        exp("strategies: [actor]\nthreads: 1\nrepetitions: 1\nduration: 1ms", name="b")]))
    add("huge-threads-list.yaml", plan(top="allow_large: true\n", experiments=[
        exp("strategies: all\nrepetitions: 100000\nduration: 168h\nthreads: [" + ", ".join(map(str, range(1, 4097))) + "]")]))
    add("huge-experiments.yaml", plan(experiments=[exp("strategies: all\nthreads: [1, 2, 4]\nrepetitions: 1000",
                                                       name=f"e{i}") for i in range(200)]))
    add("huge-planned-time.yaml", plan(experiments=[exp("strategies: [actor]\nthreads: 1\nrepetitions: 87\nduration: 1000s"
                                                        "\nwarmup: 0")]))
    add("threads-4096.yaml", plan(experiments=[exp("threads: 4096\nduration: 168h")]))
    add("threads-4096-list.yaml", plan(experiments=[exp("threads: [1, 4096]")]))
    add("threads-4097.yaml", plan(top="allow_large: true\n", experiments=[exp("threads: 4097")]))
    add("threads-1025.yaml", plan(experiments=[exp("threads: 1025")]))
    add("threads-1024.yaml", plan(experiments=[exp("threads: 1024\nstrategies: [actor]\nduration: 10ms")]))
    add("threads-defaults-4096.yaml", plan(defaults="  threads: 4096\n"))
    add("allow-large-garbage.yaml", plan(top="allow_large: maybe\n", experiments=[exp("threads: 4096")]))
    add("allow-large-in-experiment.yaml", plan(experiments=[exp("allow_large: true\nthreads: 4096")]))
    add("duration-168h.yaml", plan(experiments=[exp("duration: 168h")]))
    add("duration-169h.yaml", plan(experiments=[exp("duration: 169h")]))
    add("stagger-168h.yaml", plan(experiments=[exp("fuzz: {profile: chaos, stagger: 168h}")]))
    add("stagger-168h-allow-large.yaml", plan(top="allow_large: true\n", experiments=[
        exp("fuzz: {profile: chaos, stagger: 168h}\nduration: 168h\nstrategies: [actor]\nthreads: 1")]))
    add("sleep-min-168h.yaml", plan(experiments=[exp("fuzz: {profile: chaos, sleep_min: 168h}")]))
    add("sleep-min-max-168h.yaml", plan(experiments=[exp("fuzz: {profile: chaos, sleep: 0.5, sleep_min: 168h, sleep_max: 168h}")]))
    add("sleep-168h-ops.yaml", plan(experiments=[exp("ops: 1\nfuzz: {sleep: 1, sleep_min: 1s, sleep_max: 168h}")]))
    add("pct-wait-cap-168h.yaml", plan(experiments=[exp("fuzz: {profile: pct, pct_depth: 3, pct_wait_cap: 168h}")]))
    add("fuzz-defaults-168h.yaml", plan(defaults="  fuzz: {profile: chaos, stagger: 168h, spin: 1, spin_min: 168h, "
                                                 "spin_max: 168h, starve: 1, starve_min: 168h, starve_max: 168h}\n"))
    add("fuzz-pause-equals-window.yaml", plan(experiments=[exp("duration: 1s\nfuzz: {stagger: 1s}", name="a"),
                                                           exp("duration: 1s\nfuzz: {spin: 1, spin_min: 1s, spin_max: 1s}",
                                                               name="b")]))

    # --- every fuzz key with absurd values ---------------------------------------
    absurd = ["-1", "1e400", "2", "nan", ".inf", "168h", "169h", "1e308s", "lots", "~", "[]", "{}", '"0.5"', "0x10",
              "100k", "-0", "1e-400", "65", "18446744073709551616", "!!binary aGk="]
    for key in FUZZ_KEYS:
        add(f"fuzz-{key.replace('_', '-')}.yaml",
            plan(experiments=[exp(f"fuzz: {{profile: chaos, {key}: {v}}}", name=f"e{i}") for i, v in enumerate(absurd)]))
    add("fuzz-profile.yaml", plan(experiments=experiments_with("fuzz", [
        "chaoss", "CHAOS", "", "~", "[chaos]", "{}", "{profile: ~}", "{profile: [chaos]}", "{profile: nope, yield: 2}",
        "1", "true", "'chaos '", "off", "portfolio", "{profile: chaos, unknown: 1}", "{spin_min: 2ms, spin_max: 1ms}",
        "{sleep_min: 2ms, sleep_max: 1ms, starve_min: 2ms, starve_max: 1ms}", "{pct_depth: 64, pct_wait_cap: 168h}"])))

    # --- thresholds garbage ---------------------------------------------------
    garbage = ['""', '"p99"', '"p99 <"', '"< 50us"', '"p99 < 50"', '"p99 < 50 parsecs"', '"p99 << 50us"',
               '"p99 < 50us and p50 < 1ms"', '"ops_per_s >= 0.9 * baseline * baseline"', '"ops_per_s >= 1e400"',
               '"p99 < -1us"', '"p99 < nanus"', '"(((((("', '"p99 = 50us"', '"p99 ＜ 50us"', '"violations < baseline"',
               '"p99 < 0 * baseline"', '"p99 < 1e400 * baseline"', '"p99 < baseline * -1"', '"p99 < baseline *"',
               '"p99 < 2 baseline"', '"ops_per_s > 50us"', '"failures == 1.5"', '"failures == -1"', '"p99.9999 < 1ms"',
               '"P99 < 1MS"', '"p99 < 168h"', '"p99 < 169h"', '"p99 < 1e308s"', '"mean < 1_0_0us"', '"p99<50us"',
               '"\\u00b5 < 1"', "[p99 < 50us]", "{p99: 50us}", "~", "42", "p99 < 50us", "'p99 < ' ", '"p99 !! 50us"',
               '"' + "(" * 3000 + '"', '"p99 < ' + "9" * 3000 + 'us"', '"' + "p" * 3000 + ' < 1ms"']
    add("thresholds-garbage.yaml", plan(experiments=[exp(f"thresholds: [{g}]", name=f"e{i}") for i, g in enumerate(garbage)]))
    add("thresholds-top-garbage.yaml", plan(top="thresholds:\n" + "".join(f"  - {g}\n" for g in garbage)))
    add("thresholds-twice.yaml", plan(top='thresholds: ["p99 < 1ms"]\n', defaults='  thresholds: ["p99 < 2ms"]\n'))
    add("thresholds-wrong-types.yaml", plan(experiments=experiments_with("thresholds", [
        "~", "{}", "[[p99 < 1ms]]", "[{a: 1}]", "[~]", "[]", "'p99 < 1ms'", "1", "[1, 2]"])))
    add("thresholds-defaults-wrong.yaml", plan(defaults="  thresholds: {p99: 1ms}\n"))

    # --- gate garbage -------------------------------------------------------------
    for key, values in {
        "tolerance": ["100%", "99.5%", "1e999%", "nan%", "'10%'"],
        "confidence": ["49.9%", "99.91%", "100%", "95"],
        "metric": ["violations", "p99.9", "P99", "ops/s", "[p50]"],
        "min_samples": ["1e3", "0", "1001", "18446744073709551616"],
    }.items():
        for i, v in enumerate(values):
            add(f"gate-{key.replace('_', '-')}-{i}.yaml", plan(top=f"gate:\n  {key}: {v}\n"))
    for i, g in enumerate(["[]", "~", "{unknown: 1, tolerance: 10%}", "[tolerance: 10%]", "!!binary aGk=",
                           "{tolerance: *nowhere}"]):
        add(f"gate-garbage-{i}.yaml", plan(top=f"gate: {g}\n"))

    # --- timing, load, allocator, order, strategies garbage ---------------------
    add("timing-garbage.yaml", plan(experiments=experiments_with("timing", [
        "tsc", "~", "[]", "{clock: rdtsc}", "{clock: ~}", "{clock: [tsc]}", "{sample: 0}", "{sample: 1000001}",
        "{sample: -1}", "{sample: 1M}", "{sample: AUTO}", "{sample: 1e400}", "{sample: 1.5}", "{sample: '8'}",
        "{clock: auto, sample: auto, extra: 1}"])))
    add("load-garbage.yaml", plan(experiments=experiments_with("load", [
        "open", "~", "[]", "{mode: paced}", "{mode: paced, rate: 0}", "{mode: paced, rate: -1}", "{mode: paced, rate: 1e400}",
        "{mode: paced, rate: 1001%}", "{mode: paced, rate: 0%}", "{mode: paced, rate: nan%}", "{mode: paced, rate: '50%'}",
        "{mode: closed, rate: 1k}", "{mode: PACED, rate: 1k}", "{mode: paced, rate: 1k, arrivals: burst}",
        "{mode: paced, rate: [1k]}", "{mode: paced, rate: 9223372036854775807}", "{mode: paced, rate: 9.3e18k}",
        "{rate: 1k}", "{arrivals: poisson}", "{mode: ~}"])))
    add("load-share-no-warmup.yaml", plan(experiments=[exp("load: {mode: paced, rate: 50%}\nwarmup: 0")]))
    add("allocator-garbage.yaml", plan(experiments=experiments_with("allocator", [
        "[]", "~", "tcmalloc", "[system, system]", "[jemalloc, JEMALLOC]", "{system: 1}", "[[system]]", "''", "1"])))
    add("order-garbage.yaml", plan(top="order: random\n"))
    add("order-list.yaml", plan(top="order: [matrix]\n"))
    add("strategies-garbage.yaml", plan(experiments=experiments_with("strategies", [
        "[]", "~", "ALL", "[all, all]", "[actor, actor]", "[atomic]", "nope", "[actr]", "{actor: 1}", "[[actor]]",
        "[~]", "[all, actor]", "'all'", "1", "[pthread_mutex]", "[" + ", ".join(STRATEGIES * 3) + "]"])))
    add("strategies-atomic-bank.yaml", plan(experiments=[exp("strategies: [atomic]", workload="bank", parameters=None)]))
    add("stop-on-violation-garbage.yaml", plan(experiments=experiments_with("stop_on_violation", [
        "2", "maybe", "~", "[]", "'true'", "Yes", "ON", "y", "n", "1"])))
    add("duration-and-ops.yaml", plan(experiments=[exp("ops: 1k"), exp("ops: 1k\nduration: 1s", name="b")]))
    add("duration-and-ops-defaults.yaml", plan(defaults="  ops: 100\n"))

    # --- workloads and parameters -------------------------------------------------
    add("workload-garbage.yaml", plan(experiments=[exp(workload=w, name=f"e{i}", parameters=None) for i, w in enumerate(
        ["nope", "Counter", "~", "[counter]", "{a: 1}", "''", "count", "counter ", "1", "_baseline", "lazy_init"])]))
    add("workload-missing.yaml", plan(experiments=["  - name: x\n    threads: 1\n"]))
    for w, params in WORKLOAD_PARAMETERS.items():
        cases = []
        for p in params:
            for v in ["-1", "1e400", "2", "~", "[]", "nope", '"0.5"', "1000000001", "0.5", "1.5"]:
                cases.append(exp(parameters=f"{{{p}: {v}}}", workload=w, name=f"e{len(cases)}"))
        add(f"params-{w}.yaml", plan(experiments=cases))
    add("params-garbage.yaml", plan(experiments=[exp(parameters=p, name=f"e{i}") for i, p in enumerate(
        ["[]", "~", "1", "{nope: 1}", "{read_ratio: 0.2, nope: 1}", "{}", "''", "{? [a] : 1}"])]))
    add("params-bank-ratios.yaml", plan(experiments=[exp(workload="bank", parameters="{audit_ratio: 1, deposit_ratio: 1, "
                                                                                    "withdraw_ratio: 1, close_ratio: 0.5}")]))
    add("params-unknown-workload.yaml", plan(experiments=[exp(workload="nope", parameters="{x: [1, 2]}")]))

    # --- wrong types for every key (problems are collected: one file covers many keys) ---
    for kind, value in WRONG_KINDS.items():
        if kind in ("empty", "bool", "text", "python"):
            continue
        add(f"wrong-type-top-{kind}.yaml", "".join(f"{k}: {value}\n" for k in TOP_KEYS if k != "experiments")
            + "experiments: [{workload: counter}]\n")
        add(f"wrong-type-top-experiments-{kind}.yaml", f"name: hostile\nexperiments: {value}\n")
    for kind in ("null", "map", "text", "binary"):
        add(f"wrong-type-defaults-{kind}.yaml", "defaults:\n" + "".join(f"  {k}: {WRONG_KINDS[kind]}\n" for k in SHARED_KEYS
                                                                         if k != "ops") + "experiments: [{workload: counter}]\n")
    for key in SHARED_KEYS:
        add(f"wrong-type-{key.replace('_', '-')}.yaml", plan(experiments=experiments_with(key, list(WRONG_KINDS.values()))))
    for key in ("name", "description", "workload", "parameters"):
        add(f"wrong-type-experiment-{key}.yaml", "experiments:\n" + "".join(
            f"  - workload: counter\n    {key}: {v}\n" if key != "workload" else f"  - {key}: {v}\n"
            for v in WRONG_KINDS.values()))
    add("wrong-type-experiment-items.yaml", "experiments: [~, 1, [], '', counter, [workload: counter], {}]\n")
    add("defaults-experiment-only-keys.yaml", plan(defaults="  name: x\n  workload: counter\n  parameters: {}\n"
                                                            "  description: y\n"))

    # --- null everywhere --------------------------------------------------------
    add("null-top.yaml", "".join(f"{k}: ~\n" for k in TOP_KEYS))
    add("null-top-empty.yaml", "".join(f"{k}:\n" for k in TOP_KEYS))
    add("null-defaults.yaml", plan(defaults="".join(f"  {k}: null\n" for k in SHARED_KEYS if k != "ops")))
    add("null-experiment.yaml", "experiments:\n  - workload: counter\n" + "".join(f"    {k}: ~\n" for k in EXPERIMENT_KEYS
                                                                                  if k not in ("workload", "ops")))
    add("null-experiment-tagged.yaml", "experiments:\n  - workload: !!null ''\n    threads: !!null ~\n    name: !!null\n")
    add("null-nested.yaml", plan(top="gate: {tolerance: ~, confidence: ~, metric: ~, min_samples: ~}\n",
                                 experiments=[exp("fuzz: {" + ", ".join(f"{k}: ~" for k in ["profile"] + FUZZ_KEYS) + "}\n"
                                                  "timing: {clock: ~, sample: ~}\nload: {mode: ~, rate: ~, arrivals: ~}",
                                                  parameters="{read_ratio: ~, variant: ~}")]))
    add("null-list-items.yaml", plan(experiments=[exp("threads: [~, ~]\nstrategies: [~]\nallocator: [~]\n"
                                                      "thresholds: [~]")]))
    add("null-keys.yaml", "~: 1\n" + plan(experiments=[exp("null: 2\n? \n: 3")]))

    # --- YAML structure -----------------------------------------------------------
    add("empty.yaml", b"")
    add("empty.json", b"")
    add("empty-whitespace.yaml", " \n\n\t\n   \n")
    add("empty-comment.yaml", "# only a comment\n")
    add("empty-document-marker.yaml", "---\n")
    add("empty-document-end.yaml", "...\n")
    add("empty-json-object.json", "{}\n")
    add("empty-json-array.json", "[]\n")
    add("root-null.yaml", "~\n")
    add("root-scalar.yaml", "counter\n")
    add("root-number.yaml", "42\n")
    add("root-list.yaml", "- workload: counter\n")
    add("root-quoted.json", '"experiments"\n')
    add("experiments-empty.yaml", "experiments: []\n")
    add("experiments-null.yaml", "experiments:\n")
    add("experiments-map.yaml", "experiments: {workload: counter}\n")
    add("experiments-missing.yaml", "name: x\ndefaults: {threads: 1}\n")
    add("multi-doc.yaml", BASE + "---\n" + BASE)
    add("multi-doc-empty-second.yaml", BASE + "---\n")
    add("multi-doc-bomb-second.yaml", BASE + "---\n" + bomb(9) + "x: *l9\n")
    add("multi-doc-many.yaml", "---\n" * 5000)
    add("directive-yaml11.yaml", "%YAML 1.1\n---\n" + BASE)
    add("directive-yaml20.yaml", "%YAML 2.0\n---\n" + BASE)
    add("directive-tag.yaml", "%TAG ! tag:evil.example,2024:\n---\n" + BASE.replace("workload: counter", "workload: !x counter"))
    add("directive-no-document.yaml", "%YAML 1.1\n")
    add("tags-python.yaml", "!!python/object/apply:os.system [\"echo pwned\"]\n")
    add("tags-python-values.yaml", plan(top="description: !!python/object:__main__.Evil {}\n",
                                        experiments=[exp("threads: !!python/int 4\nduration: !!python/str 1s")]))
    add("tags-binary.yaml", plan(top="description: !!binary |\n  R0lGODlhDAAMAIQAAP//9/X17unp5WZmZgAAAOfn515eXvPz7Y6OjuDg4J+fn5\n",
                                 experiments=[exp("workload: !!binary Y291bnRlcg==", parameters=None)]))
    add("tags-core.yaml", plan(experiments=[exp("threads: !!int '4'\nrepetitions: !!float 2\nseed: !!str 5\n"
                                                "stop_on_violation: !!bool yes\nduration: !!timestamp 2001-12-14")]))
    add("tags-collections.yaml", plan(top="description: !!set {a, b}\n", experiments=[exp("threads: !!omap [a: 1]\n"
                                                                                           "strategies: !!pairs [a: 1]")]))
    add("tags-custom.yaml", plan(experiments=[exp("threads: !custom 4\nworkload: !<tag:evil,2024:x> counter")]))
    add("tags-on-keys.yaml", plan(experiments=[exp("!!str threads: 4\n!custom seed: 1")]))
    add("tags-on-root.yaml", "!!map\n" + BASE)
    add("tags-wrong-root.yaml", "!!seq\n" + BASE)
    add("tags-invalid.yaml", "x: !<> 1\n" + BASE)
    add("flow-everything.yaml", '{"name": "flow", defaults: {strategies: [actor], threads: [1, 2], duration: 10ms},'
                                ' experiments: [{workload: counter, parameters: {read_ratio: 0.1}}, {workload: bank, '
                                'name: bank, threads: 4}]}\n')
    add("flow-mixed.yaml", plan(experiments=["  - {workload: counter, name: a,\n     threads: [1,\n  2], fuzz: {profile:\n"
                                             " chaos}}\n", "  - {workload: bank, name: b}\n"]))
    add("flow-unclosed.yaml", "experiments: [{workload: counter, threads: [1, 2}\n")
    add("flow-trailing-comma.yaml", "experiments: [{workload: counter,}, ]\n")
    add("flow-empty-entries.yaml", "experiments: [{workload: counter, , }]\n")
    add("flow-implicit-map-in-seq.yaml", "experiments: [workload: counter, workload: bank]\n")
    add("block-scalars.yaml", plan(top="description: |\n  line one\n  line two\n",
                                   experiments=[exp("threads: |\n  4\nduration: >-\n  1s", name="|\n    blocky")]))
    add("block-scalar-keep.yaml", plan(experiments=[exp("workload: |+\n  counter\n\n", parameters=None)]))
    add("tabs.yaml", BASE.replace("    workload", "\tworkload"))
    add("tabs-everywhere.yaml", BASE.replace("  ", "\t"))
    add("tabs-in-flow.yaml", "experiments: [\t{workload:\tcounter,\tthreads:\t[1,\t2]}\t]\n")
    add("tabs-after-colon.yaml", "name:\thostile\nexperiments:\n  - workload:\tcounter\n    threads:\t4\n")
    add("indent-mixed.yaml", "experiments:\n  - workload: counter\n   threads: 4\n     seed: 1\n")
    add("indent-zero-list.yaml", "experiments:\n- workload: counter\n- workload: bank\n")
    add("indent-deep-spaces.yaml", "experiments:\n" + " " * 200 + "- workload: counter\n" + " " * 202 + "threads: 4\n")
    add("very-long-line.yaml", plan(top="description: " + "x" * (256 * 1024) + "\n"))
    add("very-long-strategy.yaml", plan(experiments=[exp("strategies: [" + "x" * MIB + "]")]))
    add("very-long-key.yaml", plan(top="? " + "k" * (32 * 1024) + "\n: 1\n"))
    add("very-long-workload.yaml", plan(experiments=[exp(workload="w" * (32 * 1024), parameters=None)]))
    add("very-long-threshold.yaml", plan(top="thresholds: [\"" + "p" * (32 * 1024) + " < 1ms\"]\n"))
    add("very-long-fuzz-profile.yaml", plan(experiments=[exp("fuzz: " + "c" * (32 * 1024))]))
    add("very-long-metric.yaml", plan(top="gate: {metric: " + "m" * (32 * 1024) + "}\n"))
    add("very-long-number.yaml", plan(experiments=[exp("threads: " + "9" * (32 * 1024)), exp("duration: 0." + "0" * 32000 + "1s",
                                                                                             name="b")]))
    add("very-long-comment.yaml", "#" + "c" * (64 * 1024) + "\n" + BASE)
    add("many-lines.yaml", BASE + "# filler\n" * 10000)
    add("many-experiments.yaml", "experiments:\n" + "  - {workload: counter, strategies: [actor], threads: 1, duration: 1ms}\n" * 1000)
    add("many-keys.yaml", "experiments: [{workload: counter}]\n" + "".join(f"k{i}: {i}\n" for i in range(5000)))
    add("deep-nesting.yaml", "experiments: " + "[" * 900 + "]" * 900 + "\n")
    add("deep-nesting-limit.yaml", "experiments: " + "[" * 5000 + "]" * 5000 + "\n")
    add("deep-nesting-map.yaml", "experiments: " + "{a: " * 900 + "1" + "}" * 900 + "\n")
    add("deep-nesting-block.yaml", "experiments:\n" + "- " * 900 + "x\n")
    add("deep-nesting-block-indented.yaml", "experiments:\n" + "".join(" " * i + "a:\n" for i in range(300)) + " " * 300 + "b\n")
    add("deep-nesting-unclosed.yaml", "experiments: " + "[" * 100000 + "\n")
    add("deep-nesting-params.yaml", plan(experiments=[exp(parameters="{read_ratio: " + "[" * 500 + "]" * 500 + "}")]))
    add("truncated-mid-key.yaml", BASE[: BASE.index("workload: bank") + 4])
    add("truncated-mid-flow.yaml", BASE[: BASE.index("audit_ratio")])
    add("truncated-mid-quote.yaml", plan(experiments=[exp(name='"unterminated')])[:-3])
    add("unterminated-single.yaml", "name: 'abc\nexperiments: [{workload: counter}]\n")
    add("bad-escape.yaml", plan(experiments=[exp(name='"\\q\\x\\uZZZZ"')]))
    add("colon-in-values.yaml", plan(experiments=[exp("duration: 1:30\nseed: 1:2:3\nthreads: 1:1")]))
    add("sexagesimal.yaml", plan(experiments=[exp("repetitions: 1:0\nseed: 190:20:30")]))
    add("question-marks.yaml", "? ? ?\n: :\nexperiments: [{workload: counter}]\n")
    add("dash-only.yaml", "-\n-\n- -\n")
    add("anchor-everywhere.yaml", "&a name: &b x\n&c experiments: &d [&e {&f workload: &g counter}]\n")
    add("comment-tricks.yaml", "name: a#b\nexperiments: [{workload: counter}] # ]\n#experiments: []\n")

    # --- binary garbage (fixed generator, independent of --seed) ----------------
    g = random.Random(20240101)
    add("binary-garbage.yaml", bytes(g.randrange(256) for _ in range(4096)))
    add("binary-garbage-small.yaml", bytes(g.randrange(256) for _ in range(64)))
    add("binary-garbage-ascii.yaml", bytes(g.choice(b"{}[]:,-&*!?|>'\"#%@` \n\t") for _ in range(2048)))
    add("binary-garbage-printable.yaml", "".join(chr(g.choice([g.randrange(0x20, 0x7f), g.randrange(0xa0, 0x3000)]))
                                                 for _ in range(2048)))
    add("binary-garbage-after-plan.yaml", BASE.encode() + bytes(g.randrange(256) for _ in range(512)))
    add("binary-elf-header.yaml", b"\x7fELF\x02\x01\x01\x00" + bytes(g.randrange(256) for _ in range(256)))
    add("binary-gzip.yaml", b"\x1f\x8b\x08\x00" + bytes(g.randrange(256) for _ in range(256)))
    add("binary-all-bytes.yaml", bytes(range(256)) * 4)
    return out


def random_case(rng, i):
    """A seeded combination: the skeleton with a few keys set to hostile values."""
    lines = BASE.splitlines()
    for _ in range(rng.randint(1, 4)):
        where = rng.choice(["top", "defaults", "experiment", "parameters"])
        key = rng.choice({"top": TOP_KEYS + MISSPELLED_KEYS, "defaults": SHARED_KEYS,
                          "experiment": EXPERIMENT_KEYS + FUZZ_KEYS, "parameters": PARAMETER_KEYS}[where])
        value = rng.choice(HOSTILE_VALUES).replace("\n", "\n" + " " * 6)
        indent, anchor = {"top": ("", "experiments:"), "defaults": ("  ", "  seed: 1"),
                          "experiment": ("    ", "    workload: counter"), "parameters": ("      ", "      read_ratio: 0.2")}[where]
        at = lines.index(anchor) + (0 if where == "top" else 1)
        lines.insert(at, f"{indent}{key}: {value}")
    return f"random-{i:03d}.yaml", ("\n".join(lines) + "\n").encode()


def generate(seed=1, count=None):
    """The corpus: the named cases (all of them when `count` is None), then
    seeded random ones up to `count`."""
    cases = catalogue()
    names = [n for n, _ in cases]
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]
    rng = random.Random(seed)
    i = 0
    count = len(cases) if count is None else count
    while len(cases) < count:
        cases.append(random_case(rng, i))
        i += 1
    return cases[:count]


# --- mutation ------------------------------------------------------------------

INTERESTING_BYTES = b"\x00\x1b\x7f\xff\x85:-[]{}&*!?|>\"'#%@`,\t\r\n "
INSERTIONS = [b"\x00", b"\x1b[2J", b"\x1b]0;x\x07", b"\t", b"\r", b"\r\n", b"\x7f", b"\x08", "\u202e".encode(),
              "\u0085".encode(), "\u009b".encode(), "\ufeff".encode(), "\u200b".encode(), "тест".encode(),
              "ｘ".encode(), "🙂".encode(), b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\\e[2J", b"\\n", b"\\0", b"\\x1b",
              b"\\u202e", b": ", b"- ", b"? ", b"#", b"&a ", b"*a", b"!!binary ", b"'", b'"', b"[", b"{", b"]", b"}",
              b"---\n", b"...\n", b"%YAML 1.1\n", b"|\n", b">\n", b"<<: ", b"~", b"1e400", b"168h"]
TAGS = [b"!!binary ", b"!!python/object:os.system ", b"!!str ", b"!!int ", b"!!float ", b"!!null ", b"!!map ",
        b"!!seq ", b"!custom ", b"!<tag:yaml.org,2002:str> ", b"! "]
LINE_RE = re.compile(rb"^(\s*(?:- )?)([^:#\s][^:#]*?):(\s+)(.*)$")


def _lines(data):
    return data.split(b"\n")


def _join(lines):
    return b"\n".join(lines)


def m_byte_flip(rng, data, corpus):
    if not data:
        return bytes([rng.randrange(256)])
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(b))
        b[i] = b[i] ^ (1 << rng.randrange(8)) if rng.random() < 0.6 else rng.choice(INTERESTING_BYTES)
    return bytes(b)


def m_line_dup(rng, data, corpus):
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines[i:i] = [lines[i]] * rng.choice([1, 1, 2, 10])
    return _join(lines)


def m_line_del(rng, data, corpus):
    lines = _lines(data)
    if len(lines) > 1:
        i = rng.randrange(len(lines))
        del lines[i:i + rng.choice([1, 1, 2, 5])]
    return _join(lines)


def m_line_swap(rng, data, corpus):
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return _join(lines)


def m_splice(rng, data, corpus):
    other = rng.choice(corpus)
    a, b = _lines(data), _lines(other)
    if rng.random() < 0.5:
        return _join(a[: rng.randrange(len(a) + 1)] + b[rng.randrange(len(b) + 1):])
    i, j = rng.randrange(len(data) + 1), rng.randrange(len(other) + 1)
    return data[:i] + other[j:]


def _indent_of(line):
    m = re.match(rb"^(\s*)(- )?", line)
    return m.group(1) + (b"  " if m.group(2) else b"")


def m_insert_key(rng, data, corpus):
    lines = _lines(data)
    i = rng.randrange(len(lines))
    key = rng.choice(ALL_KEYS + MISSPELLED_KEYS)
    value = rng.choice(HOSTILE_VALUES)
    indent = _indent_of(lines[i])
    value = value.replace("\n", "\n" + indent.decode(errors="replace") + "  ")
    lines.insert(i + rng.randint(0, 1), indent + f"{key}: {value}".encode())
    return _join(lines)


def m_replace_value(rng, data, corpus):
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if LINE_RE.match(line)]
    if not candidates:
        return m_insert_key(rng, data, corpus)
    i = rng.choice(candidates)
    m = LINE_RE.match(lines[i])
    value = rng.choice(HOSTILE_VALUES)
    if rng.random() < 0.3:
        value = rng.choice(HOSTILE_VALUES) if rng.random() < 0.5 else "[" + ", ".join(rng.choice(HOSTILE_VALUES[:60])
                                                                                        for _ in range(rng.randint(1, 5))) + "]"
    value = value.replace("\n", "\n" + m.group(1).decode(errors="replace") + "  ")
    lines[i] = m.group(1) + m.group(2) + b":" + m.group(3) + value.encode()
    return _join(lines)


def m_replace_key(rng, data, corpus):
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if LINE_RE.match(line)]
    if not candidates:
        return m_insert_key(rng, data, corpus)
    i = rng.choice(candidates)
    m = LINE_RE.match(lines[i])
    key = rng.choice(ALL_KEYS + MISSPELLED_KEYS + ['"' + rng.choice(ALL_KEYS) + '\\e[2J"', "*a", "? x", "[a]", "{a: 1}",
                                                   "&k " + rng.choice(ALL_KEYS)])
    lines[i] = m.group(1) + key.encode() + b":" + m.group(3) + m.group(4)
    return _join(lines)


def m_indent(rng, data, corpus):
    lines = _lines(data)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        line = lines[i]
        r = rng.random()
        if r < 0.35:
            lines[i] = b" " * rng.randint(1, 4) + line
        elif r < 0.7:
            lines[i] = line[min(len(line) - len(line.lstrip(b" ")), rng.randint(1, 4)):]
        else:
            stripped = line.lstrip(b" ")
            lines[i] = b"\t" * rng.randint(1, 2) + stripped
    return _join(lines)


def m_truncate(rng, data, corpus):
    return data[: rng.randrange(len(data) + 1)]


def m_alias(rng, data, corpus):
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if LINE_RE.match(line)]
    r = rng.random()
    if r < 0.4 and len(candidates) >= 2:
        # Anchor one value, alias it from another key (or as another key).
        i, j = rng.sample(candidates, 2)
        mi, mj = LINE_RE.match(lines[i]), LINE_RE.match(lines[j])
        lines[i] = mi.group(1) + mi.group(2) + b":" + mi.group(3) + b"&a " + mi.group(4)
        if rng.random() < 0.75:
            lines[j] = mj.group(1) + mj.group(2) + b":" + mj.group(3) + b"*a"
        else:
            lines[j] = mj.group(1) + b"*a : " + mj.group(4)
        return _join(lines)
    if r < 0.8:
        # A billion-laughs block at the top, used somewhere (as a value, a key or a merge).
        levels = rng.randint(2, 9)
        width = rng.choice([2, 5, 10, 10, 20])
        block = bomb(levels, width=width, prefix="z").encode()
        use = rng.choice([b"*z%d" % levels, b"? *z%d\n: 1" % levels, b"<<: *z%d" % levels, b"[*z%d, *z%d]" % (levels, levels)])
        if candidates and rng.random() < 0.7:
            j = rng.choice(candidates)
            mj = LINE_RE.match(lines[j])
            if use.startswith(b"*") or use.startswith(b"["):
                lines[j] = mj.group(1) + mj.group(2) + b":" + mj.group(3) + use
            else:
                lines.insert(j, _indent_of(lines[j]) + use.replace(b"\n", b"\n" + _indent_of(lines[j])))
        else:
            lines.append(b"x: " + use)
        return block + _join(lines)
    # An alias to nowhere, or an anchor on a key.
    i = rng.randrange(len(lines))
    lines[i] = rng.choice([b"*nowhere ", b"&k ", b"&k *k ", b"*a: *a "]) + lines[i].lstrip()
    return _join(lines)


def m_tag(rng, data, corpus):
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if LINE_RE.match(line)]
    if not candidates:
        return rng.choice(TAGS) + data
    i = rng.choice(candidates)
    m = LINE_RE.match(lines[i])
    lines[i] = m.group(1) + m.group(2) + b":" + m.group(3) + rng.choice(TAGS) + m.group(4)
    return _join(lines)


def m_insert_bytes(rng, data, corpus):
    i = rng.randrange(len(data) + 1)
    return data[:i] + rng.choice(INSERTIONS) + data[i:]


def m_quote_evil(rng, data, corpus):
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if LINE_RE.match(line)]
    if not candidates:
        return m_insert_bytes(rng, data, corpus)
    i = rng.choice(candidates)
    m = LINE_RE.match(lines[i])
    evil = rng.choice([b"\\e[2J", b"\\nerror: forged: x: y", b"\\r", b"\\t", b"\\x7f", b"\\u0085", b"\\u202e", b"\\0",
                       b"\\e]8;;http://x\\a", b"\\x1b[31m"])
    body = m.group(4).replace(b"\\", b"\\\\").replace(b'"', b'\\"')
    pos = rng.randrange(len(body) + 1)
    lines[i] = m.group(1) + m.group(2) + b":" + m.group(3) + b'"' + body[:pos] + evil + body[pos:] + b'"'
    return _join(lines)


def m_long_token(rng, data, corpus):
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if LINE_RE.match(line)]
    size = rng.choice([300, 1100, 4000, 20000, 100000]) if rng.random() < 0.97 else rng.choice([300000, 700000, 1000000])
    if not candidates:
        return data + b"x" * size
    i = rng.choice(candidates)
    m = LINE_RE.match(lines[i])
    unit = (m.group(4) or b"x")[:8] or b"x"
    token = (unit * (size // len(unit) + 1))[:size]
    if rng.random() < 0.3:
        lines[i] = m.group(1) + b"? " + token + b"\n" + m.group(1) + b": " + m.group(4)
    else:
        lines[i] = m.group(1) + m.group(2) + b":" + m.group(3) + token
    return _join(lines)


def m_dup_key(rng, data, corpus):
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if LINE_RE.match(line)]
    if not candidates:
        return m_line_dup(rng, data, corpus)
    i = rng.choice(candidates)
    m = LINE_RE.match(lines[i])
    indent = m.group(1).replace(b"- ", b"  ")
    lines.insert(i + 1, indent + m.group(2) + b": " + rng.choice(HOSTILE_VALUES[:40]).encode())
    return _join(lines)


def m_flowify(rng, data, corpus):
    """Wrap the whole document in flow braces or make a block list flow."""
    if rng.random() < 0.5:
        return b"{" + data.replace(b"\n", b", ") + b"}"
    return data.replace(b"\n  - ", b"\n  - {", 1).replace(b"\n", b"}\n", 1)


# Weights: mutations that keep the YAML well formed (and so reach the plan's
# validation) are favoured over ones that mostly make syntax errors.
MUTATORS = [(m_byte_flip, 6), (m_line_dup, 8), (m_line_del, 8), (m_line_swap, 5), (m_splice, 6), (m_insert_key, 16),
            (m_replace_value, 22), (m_replace_key, 6), (m_indent, 4), (m_truncate, 2), (m_alias, 10), (m_tag, 4),
            (m_insert_bytes, 4), (m_quote_evil, 6), (m_long_token, 2), (m_dup_key, 6), (m_flowify, 2)]
_MUTATOR_FUNCS = [m for m, _ in MUTATORS]
_MUTATOR_WEIGHTS = [w for _, w in MUTATORS]
MAX_MUTANT = 2 * MIB


def seed_corpus(corpus_dir=None):
    """The seed plans: the generated corpus (or the files of `corpus_dir`) and
    Plans/*.yaml; and, of those, the valid ones (Plans/*.yaml and valid-*),
    which mutations take deeper into validation than already-broken seeds."""
    if corpus_dir:
        named = [(p.name, p.read_bytes()) for p in sorted(pathlib.Path(corpus_dir).iterdir())
                 if p.is_file() and p.name != "README.md"]
    else:
        named = generate()
    named += [("plans-" + p.name, p.read_bytes()) for p in sorted((REPO / "Plans").glob("*.yaml"))]
    # Very large seeds make every mutant slow to write and run; the long-token
    # mutation makes large ones often enough.
    named = [(n, s) for n, s in named if len(s) <= 64 * 1024]
    return [s for _, s in named], [s for n, s in named if n.startswith(("plans-", "valid-"))]


def mutants(seed, count, seeds):
    """`count` mutated plans, deterministic for `seed`: (index, bytes, mutation names).
    `seeds` is `seed_corpus()`'s pair; 40% of mutants start from a valid plan."""
    corpus, valid = seeds
    rng = random.Random(seed)
    for i in range(count):
        data = rng.choice(valid) if valid and rng.random() < 0.4 else rng.choice(corpus)
        applied = []
        for _ in range(rng.choice([1, 1, 2, 2, 3, 4, 6])):
            m = rng.choices(_MUTATOR_FUNCS, _MUTATOR_WEIGHTS)[0]
            data = m(rng, data, corpus)
            applied.append(m.__name__[2:])
            if len(data) > MAX_MUTANT:
                data = data[:MAX_MUTANT]
        yield i, data, applied


# --- running and judging -------------------------------------------------------

ERROR_LINE = re.compile(rb"^error: [^:]+(:\d+(:\d+)?)?: \S.*: .+")
ERROR_PARTS = re.compile(rb"^error: (?P<file>[^:]+?)(?::(?P<line>\d+)(?::(?P<col>\d+))?)?: (?P<path>\S.*?): (?P<msg>.+)$")
RAW_CONTROL = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]")
NOTE_CONTROL = re.compile("[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
ESCAPE = re.compile(rb"\\(?:n|r|t|u\{([0-9A-Fa-f]+)\})")
KNOWN_KEYS = {k.encode() for k in ALL_KEYS}


def keypath_ok(path, plan_bytes):
    """Whether `path` (bytes) is a key path: `(top level)`, or a path whose first
    key is a plan key or, escapes undone, appears in the plan's text. Keys may
    hold `.` and `[` themselves, so every prefix cut there is tried."""
    if path == b"(top level)" or re.match(rb"^\[\d+\]", path):  # a list at the top: [0].threads
        return True

    def unescape(m):
        if m.group(1):
            try:
                return chr(int(m.group(1), 16)).encode("utf-8", "surrogatepass")
            except ValueError:
                return b"\x00"
        return {b"\\n": b"\n", b"\\r": b"\r", b"\\t": b"\t"}[m.group(0)]

    raw = ESCAPE.sub(unescape, path)
    # The plan's text with the escapes a quoted YAML/JSON key may use
    # (\u0061, \x41) decoded: the key path names the key as it is, not as written.
    decoded_plan = re.sub(rb"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2}))",
                          lambda m: chr(int(m.group(1) or m.group(2), 16)).encode("utf-8", "surrogatepass"), plan_bytes)
    cuts = [m.start() for m in re.finditer(rb"[.\[]", raw)] + [len(raw)]
    for cut in cuts:
        first = raw[:cut]
        if not first or first != first.strip(b" "):
            continue
        if first in KNOWN_KEYS or first in plan_bytes or first in decoded_plan:
            return True
        # A key written with escapes ("\e", "\x41", "\"", '') or folded:
        # every run of it between controls, spaces and quotes must be in the plan.
        runs = [r for r in re.split(rb"[\x00-\x20\x7f\"'\\]+", first) if r]
        if runs and all(r in plan_bytes for r in runs):
            return True
    return False


class Result:
    __slots__ = ("name", "path", "size", "rc", "sig", "timed_out", "elapsed", "stdout", "stderr", "confirm", "mutations")

    def __init__(self, **kw):
        self.confirm = None
        self.mutations = None
        for k, v in kw.items():
            setattr(self, k, v)


def run_validate(binary, path, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run([binary, "validate", path], stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
        elapsed = time.monotonic() - start
        return p.returncode, p.stdout, p.stderr, elapsed, False
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b"", time.monotonic() - start, True


def execute(binary, path, timeout, name=None):
    size = os.path.getsize(path)
    rc, out, err, elapsed, timed_out = run_validate(binary, path, timeout)
    r = Result(name=name or os.path.basename(path), path=path, size=size, rc=rc, sig=None, timed_out=timed_out,
               elapsed=elapsed, stdout=out, stderr=err)
    if rc is not None and rc < 0:
        r.sig = -rc
    if not timed_out and elapsed > SLOW_SECONDS and size <= MIB:
        # Confirm on a second and third run: the fastest counts.
        times = [elapsed]
        for _ in range(2):
            times.append(run_validate(binary, path, timeout)[3])
        r.confirm = min(times)
    return r


def judge(r, plan_bytes):
    """The defects of one run (list of (kind, detail)) and notes (list of str)."""
    defects, notes = [], []
    if r.timed_out:
        defects.append(("timeout", f"no exit within the time limit ({r.elapsed:.1f} s)"))
    elif r.sig is not None:
        try:
            name = signal.Signals(r.sig).name
        except ValueError:
            name = str(r.sig)
        defects.append(("signal", f"killed by {name}"))
    elif r.rc not in (0, 2):
        defects.append(("exit-code", f"exit code {r.rc}"))
    if r.confirm is not None and r.confirm > SLOW_SECONDS:
        defects.append(("slow", f"{r.confirm:.2f} s (fastest of 3) for {r.size} bytes"))
    for stream_name, stream in (("stdout", r.stdout), ("stderr", r.stderr)):
        m = RAW_CONTROL.search(stream)
        if m:
            line = stream[max(0, stream.rfind(b"\n", 0, m.start()) + 1):][:160]
            defects.append(("raw-control", f"{stream_name} has byte 0x{m.group(0)[0]:02x}: {line!r}"))
        text = stream.decode("utf-8", "replace")
        n = NOTE_CONTROL.search(text)
        if n:
            notes.append(f"{stream_name} has raw U+{ord(n.group(0)):04X}")
    errors = 0
    for line in r.stderr.split(b"\n"):
        if not line:
            continue
        if line.startswith(b"error:"):
            errors += 1
            if not ERROR_LINE.match(line):
                defects.append(("error-format", f"unlocated or malformed: {line[:200]!r}"))
                continue
            parts = ERROR_PARTS.match(line)
            if not parts or not keypath_ok(parts.group("path"), plan_bytes):
                defects.append(("no-key-path", f"no key path: {line[:200]!r}"))
        elif not line.startswith(b"warning:"):
            if not r.timed_out and r.sig is None:
                defects.append(("stray-stderr", f"neither error: nor warning: {line[:200]!r}"))
    if not r.timed_out and r.sig is None:
        if r.rc == 2 and errors == 0:
            defects.append(("exit-2-silent", "exit 2 without an error: line"))
        if r.rc == 0 and errors:
            defects.append(("exit-0-with-error", f"exit 0 with {errors} error: line(s)"))
        if r.rc == 0 and not r.stdout.startswith(b"ok: "):
            defects.append(("exit-0-no-ok", f"exit 0 without an ok: line: {r.stdout[:120]!r}"))
    return defects, notes


def excerpt(b, limit=600):
    text = b.decode("utf-8", "backslashreplace")
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def print_defect(r, defects, out=sys.stdout, where=None, per_kind=3):
    """One line per defect, at most `per_kind` of each kind (a plan with 2,000
    repeated keys has 2,000 alike)."""
    shown = {}
    for kind, detail in defects:
        shown[kind] = shown.get(kind, 0) + 1
        if shown[kind] <= per_kind:
            print(f"  [{kind}] {where or r.name} ({r.size} B, {r.elapsed:.2f} s): {detail}", file=out)
    for kind, n in shown.items():
        if n > per_kind:
            print(f"  [{kind}] {where or r.name}: ... and {n - per_kind} more like these", file=out)


def summarize(results, defects_by_name, notes_by_name, label, out=sys.stdout):
    codes = {}
    sigs = {}
    timeouts = 0
    for r in results:
        if r.timed_out:
            timeouts += 1
        elif r.sig is not None:
            sigs[r.sig] = sigs.get(r.sig, 0) + 1
        else:
            codes[r.rc] = codes.get(r.rc, 0) + 1
    print(f"{label}: {len(results)} plans run", file=out)
    print("exits by code: " + (", ".join(f"{c}: {n}" for c, n in sorted(codes.items())) or "none"), file=out)
    print("signals: " + (", ".join(f"{signal.Signals(s).name if s in signal.Signals._value2member_map_ else s}: {n}"
                                   for s, n in sorted(sigs.items())) or "none"), file=out)
    print(f"timeouts: {timeouts}", file=out)
    print("slowest validations:", file=out)
    for r in sorted(results, key=lambda r: -r.elapsed)[:10]:
        extra = f" (fastest of 3: {r.confirm:.3f} s)" if r.confirm is not None else ""
        print(f"  {r.elapsed:7.3f} s  {r.size:>9} B  exit {r.rc if r.sig is None else 'sig' + str(r.sig)}  {r.name}{extra}",
              file=out)
    kinds = {}
    for name, ds in defects_by_name.items():
        for kind in {kind for kind, _ in ds}:
            kinds[kind] = kinds.get(kind, 0) + 1
    print(f"defects: {len(defects_by_name)} plan(s) with defects"
          + (" (plans by kind: " + ", ".join(f"{k}: {n}" for k, n in sorted(kinds.items())) + ")" if kinds else ""),
          file=out)
    by_name = {r.name: r for r in results}
    for name in sorted(defects_by_name):
        print_defect(by_name[name], defects_by_name[name], out)
    if notes_by_name:
        print(f"notes (raw C1 controls or bidi overrides; not defects): {len(notes_by_name)} plan(s)", file=out)
        for name in sorted(notes_by_name)[:50]:
            print(f"  {name}: {'; '.join(notes_by_name[name])}", file=out)


def hostile_name(i, rng):
    return rng.choice(["m%05d\nerror: forged.yaml", "m%05d\x1b[2J.yaml", "m%05d\t.yaml", "m%05d пла́н.yaml",
                       "m%05d \u202egnp.yaml", "m%05d\r.yaml"]) % i


def cmd_campaign(args):
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit(f"{binary}: not an executable")
    keep = pathlib.Path(args.keep or tempfile.mkdtemp(prefix="hostile-kept-"))
    keep.mkdir(parents=True, exist_ok=True)
    seeds = seed_corpus(args.corpus)
    work = pathlib.Path(tempfile.mkdtemp(prefix="hostile-campaign-"))
    name_rng = random.Random(args.seed + 1)
    results, defects_by_name, notes_by_name = [], {}, {}
    lock = threading.Lock()
    log = open(keep / "defects.txt", "w", encoding="utf-8")
    started = time.monotonic()
    slowest = []

    def one(fname, data, applied):
        path = work / fname
        path.write_bytes(data)
        r = execute(binary, str(path), args.timeout, name=fname)
        r.mutations = applied
        # A hostile file name is part of every message: count it as plan text.
        defects, notes = judge(r, data + b"\n" + fname.encode())
        with lock:
            results.append(r)
            if notes:
                notes_by_name[r.name] = notes
            if defects:
                defects_by_name[r.name] = defects
                safe = re.sub(r"[^A-Za-z0-9._-]", "_", r.name)
                shutil.copyfile(path, keep / f"{defects[0][0]}-{safe}")
                print(f"defect in {r.name!r} (mutations: {', '.join(applied)}):", file=log)
                print_defect(r, defects, log, where=repr(r.name))
                print(f"  exit {r.rc}, signal {r.sig}, timeout {r.timed_out}, {r.elapsed:.3f} s\n"
                      f"  stdout: {excerpt(r.stdout)}\n  stderr: {excerpt(r.stderr)}\n", file=log)
                log.flush()
            slowest.append((r.elapsed, r.name, data))
            slowest.sort(key=lambda t: -t[0])
            del slowest[10:]
            done = len(results)
        if done % 1000 == 0:
            print(f"  ... {done}/{args.count} ({time.monotonic() - started:.0f} s, "
                  f"{len(defects_by_name)} with defects)", file=sys.stderr, flush=True)
        path.unlink()

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()
        for i, data, applied in mutants(args.seed, args.count, seeds):
            # Every 997th plan gets a hostile file name (newline, ESC, tab, CR, Cyrillic, bidi).
            fname = hostile_name(i, name_rng) if i % 997 == 996 else f"m{i:05d}.yaml"
            pending.add(pool.submit(one, fname, data, applied))
            if len(pending) >= args.jobs * 4:
                done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for f in done:
                    f.result()
        for f in concurrent.futures.as_completed(pending):
            f.result()
    log.close()
    for _, name, data in slowest:
        (keep / ("slowest-" + re.sub(r"[^A-Za-z0-9._-]", "_", name))).write_bytes(data)
    shutil.rmtree(work, ignore_errors=True)
    summarize(results, defects_by_name, notes_by_name,
              f"campaign (seed {args.seed}, {args.jobs} jobs, timeout {args.timeout} s, "
              f"{time.monotonic() - started:.0f} s)")
    print(f"kept in {keep} (defects.txt has each defect's output; slowest-* are the 10 slowest plans)")
    return 1 if defects_by_name else 0


def cmd_check(args):
    binary = os.path.abspath(args.binary)
    files = sorted(p for p in pathlib.Path(args.dir).iterdir() if p.is_file() and p.name != "README.md")
    results, defects_by_name, notes_by_name = [], {}, {}

    def one(p):
        r = execute(binary, str(p), args.timeout, name=p.name)
        return r, judge(r, p.read_bytes())

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for r, (defects, notes) in pool.map(one, files):
            results.append(r)
            if defects:
                defects_by_name[r.name] = defects
            if notes:
                notes_by_name[r.name] = notes
    summarize(results, defects_by_name, notes_by_name, f"check of {args.dir}")
    return 1 if defects_by_name else 0


def cmd_generate(args):
    out = pathlib.Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    if args.clean:
        for p in out.iterdir():
            if p.is_file() and p.suffix in (".yaml", ".yml", ".json"):
                p.unlink()
    cases = generate(args.seed, args.count)
    total = 0
    for name, content in cases:
        (out / name).write_bytes(content)
        total += len(content)
    print(f"wrote {len(cases)} plans ({total} bytes) to {out}")
    return 0


def cmd_mutate(args):
    out = pathlib.Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    seeds = seed_corpus(args.corpus)
    total = 0
    for i, data, applied in mutants(args.seed, args.count, seeds):
        (out / f"m{i:05d}.yaml").write_bytes(data)
        total += len(data)
    print(f"wrote {args.count} mutated plans ({total} bytes) to {out} from {len(seeds[0])} seeds")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="write the corpus of hostile plans")
    g.add_argument("outdir")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--count", type=int, default=None, help="default: every named case (about 380)")
    g.add_argument("--clean", action="store_true", help="remove OUTDIR's *.yaml, *.yml and *.json first")
    g.set_defaults(func=cmd_generate)
    m = sub.add_parser("mutate", help="write mutated plans")
    m.add_argument("outdir")
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--count", type=int, default=100)
    m.add_argument("--corpus", help="seed corpus directory (default: the generated corpus)")
    m.set_defaults(func=cmd_mutate)
    c = sub.add_parser("campaign", help="validate many mutated plans and report defects")
    c.add_argument("binary")
    c.add_argument("--count", type=int, default=12000)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--timeout", type=float, default=5)
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--keep", help="directory for inputs with defects (default: a new temporary directory)")
    c.add_argument("--corpus", help="seed corpus directory (default: the generated corpus)")
    c.set_defaults(func=cmd_campaign)
    k = sub.add_parser("check", help="validate every file of a directory and report defects")
    k.add_argument("binary")
    k.add_argument("dir")
    k.add_argument("--timeout", type=float, default=5)
    k.add_argument("--jobs", type=int, default=2)
    k.set_defaults(func=cmd_check)
    args = parser.parse_args()
    sys.exit(args.func(args))


if __name__ == "__main__":
    main()
