#define _GNU_SOURCE
#include "CStressSupport.h"
#include "CStressParticipant.h"

_Thread_local uint64_t *stress_participant_line;
_Thread_local void *stress_ambient_context;
int stress_trial_running;
#if defined(__linux__)
#include <sys/prctl.h>
#include <signal.h>
#endif
#include <unistd.h>
#include <fcntl.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__linux__)
#include <sched.h>
#endif

extern char **environ;

int stress_die_with_parent(void) {
#if defined(__linux__)
    return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
#else
    return -1;
#endif
}

char **stress_environ(void) { return environ; }

int stress_usable_cpus(void) {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    return CPU_COUNT(&set);
#else
    return -1;
#endif
}

int stress_pin_to_first_usable_cpu(void) {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set)) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        return sched_setaffinity(0, sizeof(one), &one) == 0 ? cpu : -1;
    }
    return -1;
#else
    return -1;
#endif
}

int stress_online_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < 1 << 30 ? (int)n : -1;
}

int stress_pipe_cloexec(int fds[2]) {
#if defined(__linux__)
    return pipe2(fds, O_CLOEXEC);
#else
    if (pipe(fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
#endif
}

int stress_anonymous_file(long size) {
    int fd = -1;
#if defined(__linux__)
    fd = memfd_create("stressbench-journal", MFD_CLOEXEC);
#endif
    if (fd < 0) {
        char path[] = "/tmp/stressbench-journal-XXXXXX";
        fd = mkstemp(path);
        if (fd < 0) return -1;
        unlink(path);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    if (ftruncate(fd, (off_t)size) != 0) { close(fd); return -1; }
    return fd;
}

#include <signal.h>
#include <string.h>

/* ---- Crash reporter ---------------------------------------------------- */

static const uint64_t *volatile crash_sites;
static volatile int crash_workers, crash_stride;
static const char *const *volatile crash_labels;
static volatile int crash_label_count;
static const char *const *volatile crash_phases;

static void put(const char *s) { (void)!write(2, s, strlen(s)); }

static void put_number(uint64_t n) {
    char buf[24];
    int i = sizeof buf;
    buf[--i] = 0;
    do { buf[--i] = (char)('0' + n % 10); n /= 10; } while (n && i > 0);
    put(buf + i);
}

static const char *signal_label(int sig) {
    switch (sig) {
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    default: return "a signal";
    }
}

/* What handled each crash signal before the reporter: the Swift runtime's
   backtracer when it is enabled (SWIFT_BACKTRACE), else the default action.
   The reporter hands the signal on to it after its own report, so that the
   backtracer still names the failed check ("Swift runtime failure:
   arithmetic overflow") and the crashed thread's frames. */
static const int crash_signals[] = { SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE };
#define CRASH_SIGNAL_COUNT (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction crash_previous[CRASH_SIGNAL_COUNT];
static volatile int crash_previous_saved;

/* Site word layout (see SiteBoard.swift): bits 0-23 site id + 1 (0: none),
   24-27 phase, 28-39 resource, 40-51 inner resource. */
static void crash_handler(int sig, siginfo_t *info, void *context) {
    const uint64_t *sites = crash_sites;
    if (sites) {
        put("stressbench: the trial process got ");
        put(signal_label(sig));
        put("; where each worker was:\n");
        for (int w = 0; w < crash_workers; w++) {
            uint64_t word = __atomic_load_n(sites + (size_t)w * (size_t)crash_stride, __ATOMIC_RELAXED);
            uint64_t site = word & 0xFFFFFF, phase = (word >> 24) & 0xF;
            uint64_t resource = (word >> 28) & 0xFFF, inner = (word >> 40) & 0xFFF;
            put("stressbench:   worker ");
            put_number((uint64_t)w);
            put(": ");
            if (site > 0 && (int)(site - 1) < crash_label_count) { put(crash_labels[site - 1]); put(", "); }
            put(crash_phases[phase]);
            if (phase >= 2 && phase <= 6) { put(" resource "); put_number(resource); }
            if (phase == 5 || phase == 6) { put(" (inner: resource "); put_number(inner); put(")"); }
            put("\n");
        }
    }
    /* Hand on to the previous handler, with the fault's own context (a
       backtrace then starts at the faulting instruction); the default
       action, or a handler that returns, ends with the signal re-raised. */
    const struct sigaction *previous = 0;
    for (unsigned i = 0; i < CRASH_SIGNAL_COUNT; i++) {
        if (crash_signals[i] == sig && crash_previous_saved) previous = &crash_previous[i];
    }
    if (previous && (previous->sa_flags & SA_SIGINFO) && previous->sa_sigaction) {
        sigaction(sig, previous, 0);
        previous->sa_sigaction(sig, info, context);
    } else if (previous && previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN && previous->sa_handler) {
        sigaction(sig, previous, 0);
        previous->sa_handler(sig);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void stress_crash_reporter_install(const uint64_t *sites, int workers, int stride_words,
                                   const char *const *labels, int label_count,
                                   const char *const *phase_names) {
    crash_workers = workers;
    crash_stride = stride_words;
    crash_labels = labels;
    crash_label_count = label_count;
    crash_phases = phase_names;
    crash_sites = sites;
    for (unsigned i = 0; i < CRASH_SIGNAL_COUNT; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = crash_handler;
        sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
        sigaction(crash_signals[i], &sa, &old);
        /* Installed once per trial: keep the handler from before the first
           (a later install finds the reporter, or the default its
           SA_RESETHAND left, and must not replace it). */
        if (!crash_previous_saved) crash_previous[i] = old;
    }
    crash_previous_saved = 1;
}

void stress_crash_reporter_clear(void) { crash_sites = 0; }

/* ---- Interrupts (parent) ----------------------------------------------- */

static volatile sig_atomic_t interrupts, first_signal;

static void interrupt_handler(int sig) {
    if (!first_signal) first_signal = sig;
    interrupts++;
    if (interrupts > 1 && sig == SIGINT) _exit(130);
}

void stress_interrupts_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = interrupt_handler;
    sigaction(SIGINT, &sa, 0);
    sigaction(SIGTERM, &sa, 0);
}

int stress_interrupt_count(void) { return interrupts; }
int stress_interrupt_signal(void) { return first_signal; }

/* ---- jemalloc statistics -------------------------------------------------- */

#include <dlfcn.h>
#include <stdlib.h>
#include <stddef.h>

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

static mallctl_fn find_mallctl(void) {
    // Every worker asks at its end: looked up once, published with release
    // and read with acquire (plain variables here were a data race, harmless
    // on x86-64, that ThreadSanitizer rightly reported).
    static mallctl_fn fn;
    static int looked;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&fn, (mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl"), __ATOMIC_RELAXED);
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&fn, __ATOMIC_RELAXED);
}

int stress_jemalloc_loaded(void) { return find_mallctl() != 0; }

void stress_malloc_probe(void) {
    void *volatile p = malloc(64);  // volatile: the pair must really happen
    free(p);
}

int stress_jemalloc_thread_allocated(uint64_t *bytes) {
    mallctl_fn m = find_mallctl();
    size_t size = sizeof *bytes;
    return m && m("thread.allocated", bytes, &size, 0, 0) == 0 ? 0 : -1;
}

int stress_jemalloc_flush_thread_cache(void) {
    mallctl_fn m = find_mallctl();
    return m && m("thread.tcache.flush", 0, 0, 0, 0) == 0 ? 0 : -1;
}

int stress_jemalloc_totals(uint64_t *requests, uint64_t *resident, uint64_t *allocated) {
    mallctl_fn m = find_mallctl();
    if (!m) return -1;
    uint64_t epoch = 1;
    size_t size = sizeof epoch;
    if (m("epoch", &epoch, &size, &epoch, size) != 0) return -1;
    uint64_t small = 0, large = 0;
    size_t n = sizeof small;
    /* 4096 is MALLCTL_ARENAS_ALL: the sum over every arena. */
    if (m("stats.arenas.4096.small.nrequests", &small, &n, 0, 0) != 0) return -1;
    n = sizeof large;
    if (m("stats.arenas.4096.large.nrequests", &large, &n, 0, 0) != 0) return -1;
    *requests = small + large;
    size_t z = 0;
    n = sizeof z;
    if (m("stats.resident", &z, &n, 0, 0) != 0) return -1;
    *resident = z;
    n = sizeof z;
    if (m("stats.allocated", &z, &n, 0, 0) != 0) return -1;
    *allocated = z;
    return 0;
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#include <sys/single_threaded.h>
int stress_libc_single_threaded(void) { return __libc_single_threaded ? 1 : 0; }
#else
int stress_libc_single_threaded(void) { return -1; }
#endif

/* ---- Threads, as the watchdog sees them --------------------------------- */

#include <pthread.h>
#include <time.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

uint64_t stress_thread_id(void) {
#if defined(__linux__)
    return (uint64_t)syscall(SYS_gettid);
#else
    return 0;
#endif
}

int stress_thread_set_name(const char *name) {
#if defined(__linux__)
    return pthread_setname_np(pthread_self(), name);
#elif defined(__APPLE__)
    return pthread_setname_np(name);
#else
    (void)name;
    return -1;
#endif
}

int stress_is_main_thread(void) {
#if defined(__linux__)
    return syscall(SYS_gettid) == getpid();
#elif defined(__APPLE__)
    return pthread_main_np();
#else
    return 0;
#endif
}

uint64_t stress_thread_cpu_clock(void) {
    clockid_t clock;
    if (pthread_getcpuclockid(pthread_self(), &clock) != 0) return 0;
    /* Stored + 1: Linux thread CPU clocks are negative numbers, never -1. */
    return (uint64_t)(int64_t)clock + 1;
}

uint64_t stress_cpu_clock_ns(uint64_t clock) {
    if (clock == 0) return UINT64_MAX;
    struct timespec ts;
    if (clock_gettime((clockid_t)(int64_t)(clock - 1), &ts) != 0) return UINT64_MAX;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int stress_cpus_allowed(void) {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
    return 0;
}

/* ---- The preloaded interposer, when there is one ------------------------- */

typedef void (*interpose_attach_fn)(uint64_t *);
typedef void (*interpose_install_fn)(void (*)(int), const int *);

static interpose_attach_fn interpose_attach(void) {
    static interpose_attach_fn fn;
    static int looked;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&fn, (interpose_attach_fn)dlsym(RTLD_DEFAULT, "stress_interpose_attach"), __ATOMIC_RELAXED);
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&fn, __ATOMIC_RELAXED);
}

void stress_participant_attach(uint64_t *line) {
    stress_participant_line = line;
    interpose_attach_fn attach = interpose_attach();
    if (attach) attach(line);
}

int stress_interpose_connect(void (*fuzz)(int point)) {
    interpose_install_fn install = (interpose_install_fn)dlsym(RTLD_DEFAULT, "stress_interpose_install");
    if (!install) return 0;
    install(fuzz, &stress_trial_running);
    return 1;
}

typedef void (*interpose_install_model_fn)(int (*)(int, uint64_t, uint64_t, uint64_t));

int stress_interpose_connect_model(int (*model)(int op, uint64_t key, uint64_t a, uint64_t b)) {
    interpose_install_model_fn install = (interpose_install_model_fn)dlsym(RTLD_DEFAULT, "stress_interpose_install_model");
    if (!install) return 0;
    install(model);
    return 1;
}

typedef int (*interpose_first_taken_fn)(uint64_t, uint64_t *, uint64_t *);
typedef int (*interpose_rank_fn)(uint64_t);

int stress_interpose_first_taken_lookup(uint64_t key, uint64_t *site, uint64_t *info, int *rank) {
    interpose_first_taken_fn first = (interpose_first_taken_fn)dlsym(RTLD_DEFAULT, "stress_interpose_first_taken");
    interpose_rank_fn ranked = (interpose_rank_fn)dlsym(RTLD_DEFAULT, "stress_interpose_first_taken_rank");
    if (!first || !ranked || !first(key, site, info)) return 0;
    *rank = ranked(key);
    return 1;
}

/* ---- A futex, for the engine's own waits -------------------------------- */
/* The engine's waits must not go through pthread: a preloaded interposer
   would take them for the code under test's. */
#if defined(__linux__)
#include <linux/futex.h>
#endif

int stress_futex_wait(uint32_t *word, uint32_t expected, uint64_t timeout_ns) {
#if defined(__linux__)
    struct timespec ts = { (time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u) };
    return (int)syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0) == 0;
#else
    // No futex: a short nap; the caller looks at the word again.
    (void)word; (void)expected;
    struct timespec ts = { 0, timeout_ns < 100000 ? (long)timeout_ns : 100000 };
    nanosleep(&ts, NULL);
    return 0;
#endif
}

void stress_futex_wake_all(uint32_t *word) {
#if defined(__linux__)
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
#else
    (void)word;
#endif
}

int stress_mutex_calls(int own, stress_mutex_call_t *lock, stress_mutex_call_t *unlock) {
    *lock = 0;
    *unlock = 0;
#if defined(__linux__)
    // RTLD_DEFAULT searches the executable, then preloaded libraries, then
    // the rest: what a call from code finds. A handle on libc searches libc.
    void *scope = RTLD_DEFAULT;
    if (own) {
        scope = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
        if (!scope) return -1;
    }
    *lock = (stress_mutex_call_t)dlsym(scope, "pthread_mutex_lock");
    *unlock = (stress_mutex_call_t)dlsym(scope, "pthread_mutex_unlock");
    if (own) dlclose(scope);
    if (*lock && *unlock) return 0;
    *lock = 0;
    *unlock = 0;
#endif
    return -1;
}

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <limits.h>
void stress_park(uint32_t *word, uint32_t expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}
void stress_unpark(uint32_t *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
#else
#include <time.h>
void stress_park(uint32_t *word, uint32_t expected) {
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != expected) return;
    struct timespec pause = {0, 20000};
    nanosleep(&pause, NULL);
}
void stress_unpark(uint32_t *word) { (void)word; }
#endif

// Under ThreadSanitizer both sides of a hand-off ignore their own
// synchronization: the baton's release and acquire would otherwise order
// everything one worker did before the switch before everything the next
// does after it, and TSan would never report a race between two controlled
// workers, which never synchronized with each other in the code under test.
// (No-ops outside a TSan build.)
//
// The spin adapts. Spinning pays only while the passer is on a CPU and
// passes soon; on a loaded machine the passer is often preempted, and a
// waiter that spins its whole budget (2,000 PAUSEs: 50 to 300 us) burns
// the CPU time the passer needs. So each wait that spun in vain and parked
// halves the next waits' budget (down to spins >> 7, a few PAUSEs), and
// each that ended while spinning doubles it back. Under a load of 14 on 2
// cores this took the scheduler's hand-off (scripts/controlled-handoff.c)
// from 14-25 us to 2.3-2.8 us; on an idle machine the spins succeed and
// the budget stays whole.
//
// Alone, that rule can trap a run: once a stretch of long waits has cut the
// budget below the length of the usual short wait, every wait parks and
// keeps the budget cut, and the run stays ten times slower to its end. How
// long the park lasted cannot tell the two apart, because on a loaded
// machine a spinner delays the passer it waits for, and parking is what
// lets it pass soon. So every STRESS_BATON_PROBE_EVERY-th park makes the
// next wait a probe with the whole budget: one that ends while spinning
// restores the whole budget, one that parks changes nothing. Where spinning
// never pays, the probes cost one budget's spin (50 us) in that many parks.
//
// Where spinning does not pay at all (more threads than CPUs, or one CPU),
// a few sched_yield()s before parking still do: a waiter that yields stays
// runnable, so the passer's hand-off needs no wake-up in the kernel, and a
// passer that then waits itself yields its CPU to the waiter at once.
// Measured on the 2-core VM (2026-11-29, a C ping-pong of the batons' two
// protocols): pinned to one CPU, 2 threads 3.2 -> 2.0 us a hand-off, 3
// threads 4.7 -> 1.8, 8 threads 5.3 -> 1.9; on both CPUs, 4 threads
// 6.1 -> 2.1, 9 threads 7.0 -> 4.5 (with 4 yields; 1 and 16 were no better).
#define STRESS_BATON_MAX_BACKOFF 7
#define STRESS_BATON_PROBE_EVERY 256

void stress_baton_wait(stress_baton *b, uint32_t seen, int spins, int yields) {
    stress_tsan_ignore_sync_begin();
    int probing = b->probe;
    int budget = probing ? spins : spins >> b->backoff;
    b->probe = 0;
    for (int i = 0; i < budget; i++) {
        if (__atomic_load_n(&b->turn, __ATOMIC_ACQUIRE) != seen) {
            if (probing) b->backoff = 0;
            else if (b->backoff > 0) b->backoff--;
            stress_tsan_ignore_sync_end();
            return;
        }
        stress_cpu_relax();
    }
    if (spins > 0) {
        if (!probing && b->backoff < STRESS_BATON_MAX_BACKOFF) b->backoff++;
        if (b->backoff > 0 && ++b->parks % STRESS_BATON_PROBE_EVERY == 0) b->probe = 1;
    }
    for (int i = 0; i < yields; i++) {
        if (__atomic_load_n(&b->turn, __ATOMIC_ACQUIRE) != seen) {
            stress_tsan_ignore_sync_end();
            return;
        }
        sched_yield();
    }
    // Say we sleep before looking a last time: a passer that counts after
    // this store sees it and wakes us (both sides sequentially consistent).
    __atomic_store_n(&b->sleeping, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&b->turn, __ATOMIC_SEQ_CST) == seen) stress_park(&b->turn, seen);
    __atomic_store_n(&b->sleeping, 0, __ATOMIC_RELAXED);
    stress_tsan_ignore_sync_end();
}

void stress_baton_count(stress_baton *b) {
    stress_tsan_ignore_sync_begin();
    __atomic_add_fetch(&b->turn, 1, __ATOMIC_SEQ_CST);
    stress_tsan_ignore_sync_end();
}

void stress_baton_wake(stress_baton *b) {
    // After the count (seq_cst, then this load): a waiter that said it
    // sleeps before the count is seen here; one that says so after it sees
    // the count and does not sleep.
    stress_tsan_ignore_sync_begin();
    if (__atomic_load_n(&b->sleeping, __ATOMIC_SEQ_CST)) stress_unpark(&b->turn);
    stress_tsan_ignore_sync_end();
}

void stress_baton_pass(stress_baton *b) {
    stress_baton_count(b);
    stress_baton_wake(b);
}
