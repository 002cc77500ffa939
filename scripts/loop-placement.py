#!/usr/bin/env python3
"""Where the linker put the counter's lock loops, for reading overhead figures.

Until 2026-11-29 the uncontended counter's loop under `nslock` was 28 bytes:
two calls through the lock's class (loaded before each), the increment, the
count. Functions and loop heads are aligned to 16 bytes, so such a loop lies
inside one 64-byte line of code in 3 placements of 4 and across two lines in
the fourth; on the reference VM (AMD EPYC) the same instructions then ran
about 4% slower, and the overhead ratio of `stressbench-dev overhead nslock`
read about 0.945 instead of 0.985 (docs/overhead.md, "Code placement"). Now
it is the hand loop's instructions, 13 or 14 bytes (the two methods'
addresses loaded once), which lie inside one line wherever the linker puts
them; `pthread-mutex`'s is 24 bytes and `mutex`'s longer, so they still can
cross one. A build's figure
moves with that, not with anything in the source, so before taking a drop in
the overhead benchmark for a change in the loop, look here.

    scripts/loop-placement.py .build/release/stressbench-dev [more binaries...]

For each binary and lock (pthread-mutex, mutex, nslock), prints the address of
the untimed kernel batch of the counter's increment and each small loop in it
(a backward conditional jump of under 96 bytes) as offset-within-64-bytes +
length, with X where the loop crosses a 64-byte boundary. Which of the loops
is the hot one depends on the path the batch takes (resource 0, one
resource): it is the one with no table load (`0x20(%reg,%reg,8)`), the same
instructions as `stressbench-dev baseline`'s loop.
Needs binutils (nm, objdump) and a release build. Exit 0, or 2 on a usage error.
"""
import re
import subprocess
import sys

LOCKS = [
    ("pthread-mutex", r"kernelBatch.*12PthreadMutexV0C_AA15CounterWorkloadV3AddVTg5"),
    ("mutex", r"kernelBatch.*AA05MutexV0C_AA15CounterWorkloadV3AddVTg5"),
    ("nslock", r"kernelBatch.*NSLockV0C_AA15CounterWorkloadV3AddVTg5"),
]


def loops(binary: str, start: int) -> list[str]:
    listing = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", f"--start-address={start:#x}", f"--stop-address={start + 0x800:#x}", binary],
        capture_output=True, text=True, check=True).stdout
    found = []
    lines = listing.splitlines()
    for index, line in enumerate(lines):
        jump = re.match(r"\s*([0-9a-f]+):\s+jne\s+([0-9a-f]+)", line)
        if not jump:
            continue
        at, target = int(jump.group(1), 16), int(jump.group(2), 16)
        if target < at and at - target < 0x60:
            # The loop ends where the next instruction begins (a short `jne`
            # is 2 bytes, a long one 6).
            after = next((int(m.group(1), 16) for m in (re.match(r"\s*([0-9a-f]+):", l) for l in lines[index + 1:]) if m),
                         at + 6)
            length = after - target
            crosses = target // 64 != (after - 1) // 64
            found.append(f"{target % 64:#04x}+{length}{'X' if crosses else ''}")
    return found


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) >= 2 else 2
    for binary in sys.argv[1:]:
        try:
            symbols = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.splitlines()
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"{binary}: cannot read its symbols ({error})", file=sys.stderr)
            return 2
        for lock, pattern in LOCKS:
            matches = [line.split()[0] for line in symbols if re.search(pattern, line) and "timed" not in line]
            if not matches:
                print(f"{binary} {lock}: no untimed kernel batch of the counter's increment (not a release build?)")
                continue
            start = int(matches[0], 16)
            print(f"{binary} {lock:13} batch at {start:#x}  loops (offset in 64 B + length, X: crosses): "
                  + " ".join(loops(binary, start)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
