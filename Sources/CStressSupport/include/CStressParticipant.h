#ifndef CSTRESS_PARTICIPANT_H
#define CSTRESS_PARTICIPANT_H
// What a thread taking part in a trial publishes about the primitives it waits
// for and holds, beyond its site word: one line of the trial's board per
// participant (a worker, the main thread, or a helper thread that runs
// harness-aware code, such as a dispatch thread running a queue's block).
//
// The calling thread's line is a thread-local pointer, NULL outside a trial,
// so every call here is one load and one branch when no trial runs. Inside a
// trial each is a few relaxed stores to the thread's own line: no lock, no
// allocation. The watchdog reads the lines to build the wait-for graph.
#include <stdint.h>

// Words of a participant's line; they must match SiteBoard.Word in Swift.
enum {
    STRESS_WORD_SITE = 0,
    STRESS_WORD_COMPLETED = 1,
    STRESS_WORD_THREAD_ID = 2,
    STRESS_WORD_CPU_CLOCK = 3,
    STRESS_WORD_WAIT_KEY = 4,
    STRESS_WORD_WAIT_KIND = 5,
    STRESS_WORD_HELD = 6,
    STRESS_HELD_SLOTS = 8,
    STRESS_WORD_HELD_OVERFLOW = 14,
    STRESS_WORD_SAVED_SITE = 15,
};

// The site word's phase field (bits 24 to 27), and the phase a participant
// shows while it waits for a harness-aware primitive (WorkerPhase.blocked).
#define STRESS_SITE_PHASE_MASK ((uint64_t)0xF << 24)
#define STRESS_SITE_PHASE_BLOCKED ((uint64_t)13 << 24)

// A key names one primitive: its address, with the low bit set when it is
// held (or waited for) shared, as a reader. Keys of the strategy's resources
// and of the main queue are made above every user-space address.
#define STRESS_KEY_SHARED ((uint64_t)1)

// What a participant waits for (STRESS_WORD_WAIT_KIND); 0: nothing.
enum {
    STRESS_WAIT_NONE = 0,
    STRESS_WAIT_LOCK = 1,        // a mutex, an NSLock, a Mutex, a spin lock
    STRESS_WAIT_READ_LOCK = 2,   // the shared side of a reader-writer lock
    STRESS_WAIT_WRITE_LOCK = 3,  // the exclusive side
    STRESS_WAIT_CONDITION = 4,   // to be signalled (a condition variable)
    STRESS_WAIT_QUEUE = 5,       // a serial queue, or a barrier on a concurrent one
    STRESS_WAIT_QUEUE_SHARED = 6,// a concurrent queue's non-barrier block
    STRESS_WAIT_SEMAPHORE = 7,   // a semaphore
    STRESS_WAIT_ONCE = 8,        // a once-token another thread is running
};

/// This thread's line (NULL: not in a trial).
extern _Thread_local uint64_t *stress_participant_line;
/// What the code under test reaches from anywhere on this thread during a
/// trial (the worker's own fuzzer and violation book; see Ambient.swift), or NULL.
extern _Thread_local void *stress_ambient_context;
/// Nonzero while a trial runs in this process (for code on threads and tasks
/// the thread-local pointers above do not cover: task workers).
extern int stress_trial_running;

/// Sets the calling thread's line here and, when libStressInterpose.so was
/// preloaded, in it too (its interposed pthread calls publish on the same line).
void stress_participant_attach(uint64_t *line);
/// Hands the preloaded interposer (if any) the function its calls use for
/// their fuzz points; returns 1 when the interposer is loaded, else 0.
int stress_interpose_connect(void (*fuzz)(int point));
/// Hands the preloaded interposer (if any) the function its calls ask under
/// controlled scheduling (see CStressInterpose.h's STRESS_MODEL_ ops);
/// returns 1 when the interposer is loaded, else 0.
int stress_interpose_connect_model(int (*model)(int op, uint64_t key, uint64_t a, uint64_t b));
/// What the preloaded interposer (if any) knows of the primitive at `key`:
/// where it was first taken (a site word), `kind | sequence << 8` (see
/// CStressInterpose.h) and its rank among those of its kind first taken at
/// that site; returns 0 when it knows nothing (or is not loaded). Looked up
/// by name on every call: only stall reports ask.
int stress_interpose_first_taken_lookup(uint64_t key, uint64_t *site, uint64_t *info, int *rank);

static inline uint64_t *stress_participant(void) { return stress_participant_line; }
static inline void stress_participant_set(uint64_t *line) { stress_participant_line = line; }
static inline void *stress_ambient(void) { return stress_ambient_context; }
static inline void stress_ambient_set(void *context) { stress_ambient_context = context; }
static inline int stress_trial_is_running(void) { return __atomic_load_n(&stress_trial_running, __ATOMIC_RELAXED); }
static inline void stress_trial_set_running(int running) { __atomic_store_n(&stress_trial_running, running, __ATOMIC_RELAXED); }

/// Publishes that this thread now waits for `key` (a STRESS_WAIT_* kind):
/// the wait words, and its site word's phase set to blocked (the site itself,
/// which says where in the code under test it is, is kept aside and put back
/// by stress_wait_end).
static inline void stress_wait_begin(uint64_t key, uint64_t kind) {
    uint64_t *p = stress_participant_line;
    if (!p) return;
    uint64_t site = __atomic_load_n(p + STRESS_WORD_SITE, __ATOMIC_RELAXED);
    __atomic_store_n(p + STRESS_WORD_SAVED_SITE, site, __ATOMIC_RELAXED);
    __atomic_store_n(p + STRESS_WORD_WAIT_KEY, key, __ATOMIC_RELAXED);
    __atomic_store_n(p + STRESS_WORD_WAIT_KIND, kind, __ATOMIC_RELAXED);
    __atomic_store_n(p + STRESS_WORD_SITE, (site & ~STRESS_SITE_PHASE_MASK) | STRESS_SITE_PHASE_BLOCKED, __ATOMIC_RELAXED);
}

/// Publishes that this thread no longer waits (and puts its site back).
static inline void stress_wait_end(void) {
    uint64_t *p = stress_participant_line;
    if (!p) return;
    __atomic_store_n(p + STRESS_WORD_SITE, __atomic_load_n(p + STRESS_WORD_SAVED_SITE, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    __atomic_store_n(p + STRESS_WORD_WAIT_KIND, 0, __ATOMIC_RELAXED);
    __atomic_store_n(p + STRESS_WORD_WAIT_KEY, 0, __ATOMIC_RELAXED);
}

/// Publishes that this thread holds `key` (held twice, it appears twice: a
/// recursive lock). Past the slots, the overflow counts it.
static inline void stress_hold(uint64_t key) {
    uint64_t *p = stress_participant_line;
    if (!p) return;
    for (int i = 0; i < STRESS_HELD_SLOTS; i++) {
        if (__atomic_load_n(p + STRESS_WORD_HELD + i, __ATOMIC_RELAXED) == 0) {
            __atomic_store_n(p + STRESS_WORD_HELD + i, key, __ATOMIC_RELAXED);
            return;
        }
    }
    __atomic_store_n(p + STRESS_WORD_HELD_OVERFLOW, __atomic_load_n(p + STRESS_WORD_HELD_OVERFLOW, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/// Publishes that this thread released `key` (its latest hold of it).
static inline void stress_unhold(uint64_t key) {
    uint64_t *p = stress_participant_line;
    if (!p) return;
    for (int i = STRESS_HELD_SLOTS - 1; i >= 0; i--) {
        if (__atomic_load_n(p + STRESS_WORD_HELD + i, __ATOMIC_RELAXED) == key) {
            __atomic_store_n(p + STRESS_WORD_HELD + i, 0, __ATOMIC_RELAXED);
            return;
        }
    }
    uint64_t overflow = __atomic_load_n(p + STRESS_WORD_HELD_OVERFLOW, __ATOMIC_RELAXED);
    if (overflow) __atomic_store_n(p + STRESS_WORD_HELD_OVERFLOW, overflow - 1, __ATOMIC_RELAXED);
}

/// Whether this thread holds `key` now (a `sync` onto the queue it runs on).
static inline int stress_holds(uint64_t key) {
    uint64_t *p = stress_participant_line;
    if (!p) return 0;
    for (int i = 0; i < STRESS_HELD_SLOTS; i++) {
        if (__atomic_load_n(p + STRESS_WORD_HELD + i, __ATOMIC_RELAXED) == key) return 1;
    }
    return 0;
}

#endif
