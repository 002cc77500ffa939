#define _GNU_SOURCE
#include "CStressInterpose.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

// Words and constants of a participant's line (CStressParticipant.h in the
// executable; repeated here, as this library is built on its own).
enum { WORD_SITE = 0, WORD_WAIT_KEY = 4, WORD_WAIT_KIND = 5, WORD_HELD = 6, HELD_SLOTS = 8, WORD_SAVED_SITE = 15 };
enum { WAIT_LOCK = 1, WAIT_READ_LOCK = 2, WAIT_WRITE_LOCK = 3, WAIT_CONDITION = 4 };
enum { POINT_BEFORE_ACQUIRE = 2, POINT_AFTER_ACQUIRE = 3, POINT_BEFORE_RELEASE = 4, POINT_AFTER_RELEASE = 5 };
// What a primitive in the first-taken table is (CStressInterpose.h).
enum { KIND_MUTEX = 1, KIND_RECURSIVE_MUTEX = 2, KIND_RWLOCK = 3, KIND_CONDITION = 4, KIND_CONDITION_MUTEX = 5 };
#define PHASE_SHIFT 24
#define PHASE_MASK ((uint64_t)0xF << PHASE_SHIFT)
#define PHASE_BLOCKED ((uint64_t)13 << PHASE_SHIFT)
#define SHARED ((uint64_t)1)

// initial-exec: the library is preloaded (LD_PRELOAD), so its thread-local
// lives in the static TLS block and one %fs-relative load reads it. The
// default model for a shared library calls __tls_get_addr on every read, and
// every pthread_mutex_lock and unlock of the process reads it. With that and
// the fast paths below, what interposition adds to an uncontended lock and
// unlock pair outside a trial went from 10.5-12.3 ns to 2.4-3.7 ns (`stressbench-dev
// primitives --only pthread-mutex`, one process; docs/own-code.md).
static _Thread_local uint64_t *line __attribute__((tls_model("initial-exec")));
static void (*fuzz_hook)(int point);
static int (*model_hook)(int op, uint64_t key, uint64_t a, uint64_t b);
/// The executable's "a trial is running" flag. A thread's line points into
/// the running trial's board; once the trial is over the board may be gone
/// while a thread (the main thread serving its run loop, a dispatch worker)
/// still has the line it last had, so no line is read unless a trial runs.
static const int *trial_running;

// Where each primitive the code under test used was first taken (or waited
// on), and what it is, so that a report calls an unnamed lock "the mutex
// first taken at post/post", not by its address. One fixed table, open
// addressing on the primitive's address: no allocation and no lock; a slot
// is claimed with one compare-and-swap on its key, then its description is
// stored. Only the traced (in-trial, in-code) paths touch it; a primitive
// already in it costs a hash and a load or two.
enum { FIRST_SLOTS = 4096, FIRST_PROBES = 32 };
struct first_taken {
    uint64_t key;   // the primitive's address; 0: a free slot
    uint64_t site;  // the taker's site word at the time
    uint64_t info;  // kind | sequence << 8; 0 until written
};
static struct first_taken first_table[FIRST_SLOTS];
static uint64_t first_sequence;

static inline uint64_t first_slot(uint64_t key) {
    return ((key >> 3) * 0x9E3779B97F4A7C15ull) >> (64 - 12);
}

/// Notes `key` as first taken now, at the site `p` publishes, unless it
/// already is; with `upgrade`, a primitive already noted gets `kind` (a
/// mutex seen waited with by a condition is that condition's lock).
static void note_first(const uint64_t *p, uint64_t key, uint64_t kind, int upgrade) {
    uint64_t h = first_slot(key);
    for (int i = 0; i < FIRST_PROBES; i++) {
        struct first_taken *e = &first_table[(h + i) & (FIRST_SLOTS - 1)];
        uint64_t k = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
        if (k == 0) {
            uint64_t expected = 0;
            if (__atomic_compare_exchange_n(&e->key, &expected, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&e->site, __atomic_load_n(p + WORD_SITE, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
                uint64_t n = __atomic_add_fetch(&first_sequence, 1, __ATOMIC_RELAXED);
                __atomic_store_n(&e->info, kind | n << 8, __ATOMIC_RELEASE);
                return;
            }
            k = expected;
        }
        if (k == key) {
            if (upgrade) {
                uint64_t info = __atomic_load_n(&e->info, __ATOMIC_ACQUIRE);
                if (info != 0 && (info & 0xFF) != kind) __atomic_store_n(&e->info, (info & ~(uint64_t)0xFF) | kind, __ATOMIC_RELEASE);
            }
            return;
        }
    }
}

int stress_interpose_first_taken(uint64_t key, uint64_t *site, uint64_t *info) {
    uint64_t h = first_slot(key);
    for (int i = 0; i < FIRST_PROBES; i++) {
        const struct first_taken *e = &first_table[(h + i) & (FIRST_SLOTS - 1)];
        uint64_t k = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
        if (k == 0) return 0;
        if (k != key) continue;
        uint64_t n = __atomic_load_n(&e->info, __ATOMIC_ACQUIRE);
        if (n == 0) return 0;
        *site = __atomic_load_n(&e->site, __ATOMIC_RELAXED);
        *info = n;
        return 1;
    }
    return 0;
}

int stress_interpose_first_taken_rank(uint64_t key) {
    uint64_t site, info;
    if (!stress_interpose_first_taken(key, &site, &info)) return 0;
    // Site ids only (bits 0-23): the phase it was taken in does not matter.
    int rank = 1;
    for (int i = 0; i < FIRST_SLOTS; i++) {
        const struct first_taken *e = &first_table[i];
        if (__atomic_load_n(&e->key, __ATOMIC_ACQUIRE) == 0) continue;
        uint64_t other = __atomic_load_n(&e->info, __ATOMIC_ACQUIRE);
        if (other == 0 || (other & 0xFF) != (info & 0xFF) || (other >> 8) >= (info >> 8)) continue;
        if ((__atomic_load_n(&e->site, __ATOMIC_RELAXED) & 0xFFFFFF) == (site & 0xFFFFFF)) rank++;
    }
    return rank;
}

void stress_interpose_attach(uint64_t *l) { line = l; }
void stress_interpose_install_model(int (*model)(int op, uint64_t key, uint64_t a, uint64_t b)) {
    __atomic_store_n(&model_hook, model, __ATOMIC_RELEASE);
}

/// Asks a controlled trial's model (-1: the thread is not under control).
static inline int model(int op, uint64_t key, uint64_t a, uint64_t b) {
    int (*m)(int, uint64_t, uint64_t, uint64_t) = __atomic_load_n(&model_hook, __ATOMIC_ACQUIRE);
    return m ? m(op, key, a, b) : -1;
}
void stress_interpose_install(void (*fuzz)(int point), const int *running) {
    // A new trial: its primitives are new (an address may be reused).
    for (int i = 0; i < FIRST_SLOTS; i++) {
        __atomic_store_n(&first_table[i].info, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&first_table[i].key, 0, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&trial_running, running, __ATOMIC_RELEASE);
    __atomic_store_n(&fuzz_hook, fuzz, __ATOMIC_RELEASE);
}

/// The calling thread's line while a trial runs; NULL otherwise.
static inline uint64_t *current_line(void) {
    uint64_t *p = line;
    if (!p) return 0;
    const int *running = __atomic_load_n(&trial_running, __ATOMIC_ACQUIRE);
    return running && __atomic_load_n(running, __ATOMIC_ACQUIRE) ? p : 0;
}

// The C library's own functions. glibc exports the mutex and rwlock ones
// under a second name; the condition ones are versioned and looked up once.
extern int __pthread_mutex_lock(pthread_mutex_t *);
extern int __pthread_mutex_trylock(pthread_mutex_t *);
extern int __pthread_mutex_unlock(pthread_mutex_t *);
extern int __pthread_rwlock_rdlock(pthread_rwlock_t *);
extern int __pthread_rwlock_wrlock(pthread_rwlock_t *);
extern int __pthread_rwlock_tryrdlock(pthread_rwlock_t *);
extern int __pthread_rwlock_trywrlock(pthread_rwlock_t *);
extern int __pthread_rwlock_unlock(pthread_rwlock_t *);

static int (*real_cond_wait)(pthread_cond_t *, pthread_mutex_t *);
static int (*real_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
static int (*real_cond_signal)(pthread_cond_t *);
static int (*real_cond_broadcast)(pthread_cond_t *);

__attribute__((constructor)) static void resolve(void) {
    real_cond_wait = dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2");
    real_cond_timedwait = dlvsym(RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
    real_cond_signal = dlvsym(RTLD_NEXT, "pthread_cond_signal", "GLIBC_2.3.2");
    real_cond_broadcast = dlvsym(RTLD_NEXT, "pthread_cond_broadcast", "GLIBC_2.3.2");
}

/// The line of the calling thread when it is in a step's body (running or
/// inside a section), where its pthread calls are the code under test's;
/// NULL elsewhere (outside a trial, at the harness's barriers, in the
/// strategy's own lock calls, which the engine publishes itself).
static inline uint64_t *in_code(void) {
    uint64_t *p = current_line();
    if (!p) return 0;
    uint64_t phase = (__atomic_load_n(p + WORD_SITE, __ATOMIC_RELAXED) & PHASE_MASK) >> PHASE_SHIFT;
    return phase == 1 || phase == 3 || phase == 6 ? p : 0;
}

static inline void fuzz(int point) {
    void (*f)(int) = __atomic_load_n(&fuzz_hook, __ATOMIC_ACQUIRE);
    if (f) f(point);
}

static inline void wait_begin(uint64_t *p, uint64_t key, uint64_t kind) {
    uint64_t site = __atomic_load_n(p + WORD_SITE, __ATOMIC_RELAXED);
    __atomic_store_n(p + WORD_SAVED_SITE, site, __ATOMIC_RELAXED);
    __atomic_store_n(p + WORD_WAIT_KEY, key, __ATOMIC_RELAXED);
    __atomic_store_n(p + WORD_WAIT_KIND, kind, __ATOMIC_RELAXED);
    __atomic_store_n(p + WORD_SITE, (site & ~PHASE_MASK) | PHASE_BLOCKED, __ATOMIC_RELAXED);
}

static inline void wait_end(uint64_t *p) {
    __atomic_store_n(p + WORD_SITE, __atomic_load_n(p + WORD_SAVED_SITE, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    __atomic_store_n(p + WORD_WAIT_KIND, 0, __ATOMIC_RELAXED);
    __atomic_store_n(p + WORD_WAIT_KEY, 0, __ATOMIC_RELAXED);
}

static inline void hold(uint64_t *p, uint64_t key) {
    for (int i = 0; i < HELD_SLOTS; i++) {
        if (__atomic_load_n(p + WORD_HELD + i, __ATOMIC_RELAXED) == 0) {
            __atomic_store_n(p + WORD_HELD + i, key, __ATOMIC_RELAXED);
            return;
        }
    }
}

/// Releases `key` if this participant holds it; 1 when it did.
static inline int unhold(uint64_t *p, uint64_t key) {
    for (int i = HELD_SLOTS - 1; i >= 0; i--) {
        if (__atomic_load_n(p + WORD_HELD + i, __ATOMIC_RELAXED) == key) {
            __atomic_store_n(p + WORD_HELD + i, 0, __ATOMIC_RELAXED);
            return 1;
        }
    }
    return 0;
}

static inline int holds(uint64_t *p, uint64_t key) {
    for (int i = 0; i < HELD_SLOTS; i++) {
        if (__atomic_load_n(p + WORD_HELD + i, __ATOMIC_RELAXED) == key) return 1;
    }
    return 0;
}

#define KEY(object) ((uint64_t)(uintptr_t)(object))

// The calls every lock user makes (mutex lock and unlock, rwlock lock and
// unlock) start with `if (!line) return the C library's own call;`: on a
// thread with no line attached (every thread outside a trial, and every
// thread but a worker's inside one) that is one thread-local load, a branch
// and a tail jump. The rest lives in a separate function (`noinline`), so
// that this path saves no registers and reads nothing else. (The try-locks
// and the condition calls test the same line first, inline.)
#define SLOW __attribute__((noinline))

static SLOW int mutex_lock_traced(pthread_mutex_t *m);
static SLOW int mutex_unlock_traced(pthread_mutex_t *m);

int pthread_mutex_lock(pthread_mutex_t *m) {
    if (__builtin_expect(line == 0, 1)) return __pthread_mutex_lock(m);
    return mutex_lock_traced(m);
}

int pthread_mutex_unlock(pthread_mutex_t *m) {
    if (__builtin_expect(line == 0, 1)) return __pthread_mutex_unlock(m);
    return mutex_unlock_traced(m);
}

/// A mutex's kind for the first-taken table: recursive or not (glibc keeps
/// the type in the mutex itself).
static inline uint64_t mutex_kind(const pthread_mutex_t *m) {
    return (m->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP ? KIND_RECURSIVE_MUTEX : KIND_MUTEX;
}

static SLOW int mutex_lock_traced(pthread_mutex_t *m) {
    uint64_t *p = in_code();
    if (!p) return __pthread_mutex_lock(m);
    note_first(p, KEY(m), mutex_kind(m), 0);
    fuzz(POINT_BEFORE_ACQUIRE);
    wait_begin(p, KEY(m), WAIT_LOCK);
    // Under control the model decides who waits; once it grants the mutex
    // the real one is free, so this never blocks in the kernel.
    model(STRESS_MODEL_ACQUIRE, KEY(m), 0, mutex_kind(m) == KIND_RECURSIVE_MUTEX);
    int r = __pthread_mutex_lock(m);
    wait_end(p);
    if (r == 0) hold(p, KEY(m));
    fuzz(POINT_AFTER_ACQUIRE);
    return r;
}

int pthread_mutex_trylock(pthread_mutex_t *m) {
    if (line && in_code()) {
        fuzz(POINT_BEFORE_ACQUIRE);
        if (model(STRESS_MODEL_TRY, KEY(m), mutex_kind(m) == KIND_RECURSIVE_MUTEX, 0) == 0) return EBUSY;
    }
    int r = __pthread_mutex_trylock(m);
    uint64_t *p = in_code();
    if (p && r == 0) {
        note_first(p, KEY(m), mutex_kind(m), 0);
        hold(p, KEY(m));
    }
    return r;
}

static SLOW int mutex_unlock_traced(pthread_mutex_t *m) {
    uint64_t *p = current_line();
    // Only what the code under test took (a held key): the strategy's and
    // the harness's own locks are never in the held set.
    if (!p || !holds(p, KEY(m))) return __pthread_mutex_unlock(m);
    fuzz(POINT_BEFORE_RELEASE);
    unhold(p, KEY(m));
    int r = __pthread_mutex_unlock(m);
    model(STRESS_MODEL_RELEASE, KEY(m), 0, 0);
    fuzz(POINT_AFTER_RELEASE);
    return r;
}

static SLOW int rwlock(pthread_rwlock_t *l, int shared) {
    uint64_t *p = in_code();
    if (!p) return shared ? __pthread_rwlock_rdlock(l) : __pthread_rwlock_wrlock(l);
    note_first(p, KEY(l), KIND_RWLOCK, 0);
    fuzz(POINT_BEFORE_ACQUIRE);
    wait_begin(p, KEY(l) | (shared ? SHARED : 0), shared ? WAIT_READ_LOCK : WAIT_WRITE_LOCK);
    model(STRESS_MODEL_ACQUIRE, KEY(l), shared, 0);
    int r = shared ? __pthread_rwlock_rdlock(l) : __pthread_rwlock_wrlock(l);
    wait_end(p);
    if (r == 0) hold(p, KEY(l) | (shared ? SHARED : 0));
    fuzz(POINT_AFTER_ACQUIRE);
    return r;
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l) {
    if (__builtin_expect(line == 0, 1)) return __pthread_rwlock_rdlock(l);
    return rwlock(l, 1);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l) {
    if (__builtin_expect(line == 0, 1)) return __pthread_rwlock_wrlock(l);
    return rwlock(l, 0);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *l) {
    int r = __pthread_rwlock_tryrdlock(l);
    uint64_t *p = in_code();
    if (p && r == 0) {
        note_first(p, KEY(l), KIND_RWLOCK, 0);
        hold(p, KEY(l) | SHARED);
    }
    return r;
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *l) {
    int r = __pthread_rwlock_trywrlock(l);
    uint64_t *p = in_code();
    if (p && r == 0) {
        note_first(p, KEY(l), KIND_RWLOCK, 0);
        hold(p, KEY(l));
    }
    return r;
}

static SLOW int rwlock_unlock_traced(pthread_rwlock_t *l);
int pthread_rwlock_unlock(pthread_rwlock_t *l) {
    if (__builtin_expect(line == 0, 1)) return __pthread_rwlock_unlock(l);
    return rwlock_unlock_traced(l);
}

static SLOW int rwlock_unlock_traced(pthread_rwlock_t *l) {
    uint64_t *p = current_line();
    if (!p || !(holds(p, KEY(l)) || holds(p, KEY(l) | SHARED))) return __pthread_rwlock_unlock(l);
    fuzz(POINT_BEFORE_RELEASE);
    if (!unhold(p, KEY(l))) unhold(p, KEY(l) | SHARED);
    int r = __pthread_rwlock_unlock(l);
    model(STRESS_MODEL_RELEASE, KEY(l), 0, 0);
    fuzz(POINT_AFTER_RELEASE);
    return r;
}

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *deadline) {
    uint64_t *p = current_line();
    if (!p || !holds(p, KEY(m))) return deadline ? real_cond_timedwait(c, m, deadline) : real_cond_wait(c, m);
    note_first(p, KEY(c), KIND_CONDITION, 0);
    note_first(p, KEY(m), KIND_CONDITION_MUTEX, 1);
    fuzz(POINT_BEFORE_RELEASE);
    unhold(p, KEY(m));
    wait_begin(p, KEY(c), WAIT_CONDITION);
    int r;
    if (model(STRESS_MODEL_ACTIVE, 0, 0, 0) > 0) {
        // Under control: the mutex is given up for real, the wait is the
        // model's (a deadline passes when the policy chooses so, or when
        // nothing else can run), and the
        // mutex is taken back once the model grants it again. Should
        // control end meanwhile, the wait ends as a spurious wake-up.
        __pthread_mutex_unlock(m);
        int signalled = model(STRESS_MODEL_WAIT, KEY(c), KEY(m), deadline != 0);
        __pthread_mutex_lock(m);
        r = signalled == 0 ? ETIMEDOUT : 0;
    } else {
        r = deadline ? real_cond_timedwait(c, m, deadline) : real_cond_wait(c, m);
    }
    wait_end(p);
    hold(p, KEY(m));
    fuzz(POINT_AFTER_ACQUIRE);
    return r;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) { return cond_wait(c, m, 0); }
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t) { return cond_wait(c, m, t); }

int pthread_cond_signal(pthread_cond_t *c) {
    if (in_code()) {
        fuzz(POINT_BEFORE_RELEASE);
        model(STRESS_MODEL_SIGNAL, KEY(c), 0, 0);
    }
    return real_cond_signal(c);
}

int pthread_cond_broadcast(pthread_cond_t *c) {
    if (in_code()) {
        fuzz(POINT_BEFORE_RELEASE);
        model(STRESS_MODEL_BROADCAST, KEY(c), 0, 0);
    }
    return real_cond_broadcast(c);
}
