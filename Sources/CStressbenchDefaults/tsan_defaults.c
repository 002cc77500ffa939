#include "CStressbenchDefaults.h"

// ThreadSanitizer reads its options once, as the process starts, from this
// hook and then from TSAN_OPTIONS (which wins where both set a flag). It is
// linked into the `stressbench` executable only, never into StressKit, so a
// team's own test process keeps TSan's defaults. In a build without TSan
// nothing calls it.
//
// - exitcode=0: a run's exit status is the one docs/running.md documents.
//   With TSan's default (66 once anything was reported), a `--in-process`
//   run whose data races were all expected printed "exit code 0" and ended
//   with 66. Trial processes get exitcode=0 from the parent anyway; the
//   reports are still printed, and each race is still a violation.
// - suppress_equal_stacks=0: every in-process trial reports its races, not
//   only the first trial to hit a pair of stacks in this process.
// - atexit_sleep_ms=0: TSan's default sleeps a second at exit whenever a
//   thread besides the main one is alive, to catch races of threads still
//   running then. A trial process exits once its record is written, with
//   its workers finished or parked (or, after a stall, stuck for good), so
//   the sleep cost every trial process up to a second (the parent ends it
//   300 ms after its record): 3 trials of Plans/tsan/data-races.yaml took
//   3.8 to 4.0 s with it and 2.1 to 2.3 s without. A race is reported when
//   its second access runs, so the workers' races are all in the log by
//   then; what the sleep could still catch, a thread the code under test
//   left running past the trial, is given up (docs/data-races.md says how
//   to ask for it back).
const char *__tsan_default_options(void) {
    return "exitcode=0 suppress_equal_stacks=0 atexit_sleep_ms=0";
}
