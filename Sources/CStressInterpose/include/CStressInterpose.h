#ifndef CSTRESS_INTERPOSE_H
#define CSTRESS_INTERPOSE_H
// libStressInterpose.so: preloaded (LD_PRELOAD) into a trial's process when
// its plan says `interpose: true`, it puts itself in front of the pthread
// mutex, reader-writer lock and condition calls, so that code under test that
// uses them (NSLock, NSRecursiveLock, NSCondition, pthread users) is seen by
// the trial without a change: a thread that takes part in the trial and is
// in a step's body publishes what it waits for and holds, and gets fuzz
// points around each call. Everywhere else each call is the C library's,
// plus a thread-local load and a branch.
//
// The trial process finds these entry points with dlsym (they exist only
// when the library was preloaded).
#include <stdint.h>

/// Sets the calling thread's participant line (NULL: none).
void stress_interpose_attach(uint64_t *line);

/// Sets the function the interposed calls use for their fuzz points (the
/// worker's own fuzzer): `point` is a FuzzPoint raw value.
void stress_interpose_install(void (*fuzz)(int point), const int *running);

/// What the interposed calls ask a controlled trial's scheduler (see
/// `stress_interpose_install_model`).
enum {
    STRESS_MODEL_ACQUIRE = 1,        // key, shared (0/1), reentrant (0/1): wait in the model until granted
    STRESS_MODEL_TRY = 2,            // key, reentrant: take in the model if free (1) or not (0)
    STRESS_MODEL_RELEASE = 3,        // key: given back (after the real unlock)
    STRESS_MODEL_WAIT = 4,           // condition key, mutex key, timed: returns 1 signalled, 0 timed out
    STRESS_MODEL_SIGNAL = 5,         // condition key: wake one waiter
    STRESS_MODEL_BROADCAST = 6,      // condition key: wake every waiter
    STRESS_MODEL_ACTIVE = 7,         // 1 when the calling thread is under control
};

/// Sets the function the interposed calls ask under controlled scheduling:
/// `model(op, key, a, b)` returns -1 when the calling thread is not under
/// control (the call then goes on as free-running), else the op's answer.
/// Installed with the fuzz hook, for the length of the process.
void stress_interpose_install_model(int (*model)(int op, uint64_t key, uint64_t a, uint64_t b));

/// Where the primitive at `key` was first taken (or waited on) in this
/// trial: the taker's site word, and `kind | sequence << 8`, where kind is
/// 1 a mutex, 2 a recursive mutex, 3 a read-write lock, 4 a condition, 5 a
/// mutex a condition waits with, and sequence numbers the primitives in the
/// order they were first taken. 0 when it is not known (never taken by the
/// code under test, or past the table's 4,096 entries).
int stress_interpose_first_taken(uint64_t key, uint64_t *site, uint64_t *info);

/// Among the primitives of the same kind first taken at the same site, the
/// place of `key` in the order they were (1 for the first); 0 when unknown.
int stress_interpose_first_taken_rank(uint64_t key);

#endif
