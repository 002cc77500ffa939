#ifndef CSTRESS_SUPPORT_H
#define CSTRESS_SUPPORT_H
/// A CPU "pause" hint for spin loops (x86 PAUSE, arm64 YIELD); a no-op elsewhere.
static inline void stress_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/// Asks for the cache line holding `address` in a state this CPU may write
/// (x86 PREFETCHW, arm64 PRFM PSTL1KEEP): a hint that never faults and
/// never waits. The controlled scheduler's woken worker asks at once for
/// the lines its next decision writes, so that they come over from the
/// other CPU together rather than one after another as each is touched.
static inline void stress_prefetch_write(const void *address) {
#if defined(__x86_64__)
    __asm__ __volatile__("prefetchw %0" : : "m"(*(const char *)address));
#elif defined(__aarch64__)
    __asm__ __volatile__("prfm pstl1keep, %0" : : "Q"(*(const char *)address));
#else
    __builtin_prefetch(address, 1, 3);
#endif
}
#endif

/// Asks the kernel to SIGKILL this process when its parent dies (Linux), so a
/// trial process never outlives a killed stressbench. Returns 0, or -1 where unsupported.
int stress_die_with_parent(void);

/// The calling process's environment block (for handing on to a child).
char **stress_environ(void);

/// pipe2(fds, O_CLOEXEC) where available, else pipe + FD_CLOEXEC. 0 on success.
int stress_pipe_cloexec(int fds[2]);

/// A file of `size` zero bytes that lives only while a descriptor or a
/// mapping holds it (memfd_create where available, else an unlinked
/// temporary file), its descriptor close-on-exec; -1 on failure. A trial's
/// crash journal: the parent makes it, the child maps it shared.
int stress_anonymous_file(long size);

/// How many CPUs the calling thread may run on (its affinity mask, which a
/// process pinned with taskset or a cpuset narrows), or -1 where the platform
/// cannot say. Unlike the online count, this is what the OS scheduler and
/// Swift's cooperative pool (as wide as this count on Linux) work with.
int stress_usable_cpus(void);

/// Restricts the calling thread, and every thread it creates afterwards, to
/// the first CPU it may run on; returns that CPU's number, or -1 where the
/// platform cannot pin (not Linux) or the call failed. For benchmarks whose
/// two sides must share one CPU's state (`stressbench-dev overhead`).
int stress_pin_to_first_usable_cpu(void);

/// How many CPUs are online (sysconf), or -1 where the platform cannot say.
int stress_online_cpus(void);

#include <stdint.h>

/// Relaxed atomic store/load of a 64-bit word: how workers publish where they
/// are (one word each, on their own cache line) and how the watchdog reads it.
static inline void stress_store_relaxed(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}
static inline uint64_t stress_load_relaxed(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/// Installs handlers for SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS and SIGFPE
/// that, before the process dies, write to standard error where every worker
/// was (from the site words, labelled with `labels[site id]`), then hand the
/// signal to the handler installed before the first call (the Swift runtime's
/// backtracer, when SWIFT_BACKTRACE enables it), if any, and re-raise it with
/// its default action. Everything the handler touches is set up beforehand;
/// it only formats numbers and calls write(2).
///
/// `sites` points at `workers` site words, `stride_words` apart. `labels` has
/// `label_count` strings ("operation/step") that stay alive until
/// stress_crash_reporter_clear(). `phase_names` has 16 strings.
void stress_crash_reporter_install(const uint64_t *sites, int workers, int stride_words,
                                   const char *const *labels, int label_count,
                                   const char *const *phase_names);
/// Stops describing sites on a crash (the handlers stay; they re-raise at once).
void stress_crash_reporter_clear(void);

/// Installs SIGINT and SIGTERM handlers for the parent: the first signal sets
/// a flag (see stress_interrupt_count); a second SIGINT exits at once with 130.
void stress_interrupts_install(void);
/// How many SIGINT/SIGTERM signals arrived since install (0 if none).
int stress_interrupt_count(void);
/// The signal that arrived first (SIGINT or SIGTERM), or 0.
int stress_interrupt_signal(void);

/// 1 when the calling thread is the process's main thread, else 0.
int stress_is_main_thread(void);

/// Names the calling thread (at most 15 bytes on Linux): what debuggers,
/// `top -H` and ThreadSanitizer's reports call it. 0 on success.
int stress_thread_set_name(const char *name);

/// The calling thread's kernel id (gettid), or 0 where the platform has none.
uint64_t stress_thread_id(void);
/// The calling thread's CPU-time clock, as a number the watchdog can read from
/// another thread with stress_cpu_clock_ns (0 when unavailable).
uint64_t stress_thread_cpu_clock(void);
/// CPU time used so far by the thread whose clock is `clock`, in ns, or
/// UINT64_MAX when it cannot be read (the thread ended, or no clock).
uint64_t stress_cpu_clock_ns(uint64_t clock);

/// The CPUs this process may run on (its affinity mask, which `taskset`
/// narrows); 0 when unknown.
int stress_cpus_allowed(void);

/// Waits while the 32-bit `word` holds `expected`, at most `timeout_ns`
/// (Linux: a private futex; elsewhere a nap of at most 100 µs). Returns 1 when
/// woken, 0 on timeout, interruption or a changed word. Not through pthread,
/// so a preloaded interposer never takes it for the code under test's.
int stress_futex_wait(uint32_t *word, uint32_t expected, uint64_t timeout_ns);
/// Wakes every thread waiting on `word`.
void stress_futex_wake_all(uint32_t *word);
/// Sequentially consistent load and increment of 32- and 64-bit words (the
/// engine's per-resource signals).
static inline uint32_t stress_load32(uint32_t *word) { return __atomic_load_n(word, __ATOMIC_SEQ_CST); }
static inline void stress_increment32(uint32_t *word) { __atomic_fetch_add(word, 1, __ATOMIC_SEQ_CST); }
static inline uint64_t stress_load64_seq(uint64_t *word) { return __atomic_load_n(word, __ATOMIC_SEQ_CST); }
static inline void stress_add64_seq(uint64_t *word, int64_t delta) { __atomic_fetch_add(word, (uint64_t)delta, __ATOMIC_SEQ_CST); }

/// Atomic compare-and-swap of a 64-bit word: 1 when it held `expected` and
/// now holds `desired`, else 0 (acquire-release).
static inline int stress_compare_exchange(uint64_t *word, uint64_t expected, uint64_t desired) {
    return __atomic_compare_exchange_n(word, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/// Atomic fetch-and-add of 1, returning the previous value (relaxed).
static inline uint64_t stress_fetch_increment(uint64_t *word) {
    return __atomic_fetch_add(word, 1, __ATOMIC_RELAXED);
}

/// The CPU's cycle/time counter: RDTSC on x86-64, CNTVCT_EL0 on arm64, 0
/// elsewhere (callers then use the monotonic clock). About 10 ns here, against
/// about 25 ns for clock_gettime(CLOCK_MONOTONIC).
static inline uint64_t stress_ticks(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return 0;
#endif
}

/// Whether the C library runs this process as having one thread, which glibc
/// (2.34 and later) serves with cheaper lock paths (a private pthread mutex
/// locked and unlocked without an atomic instruction): 1 or 0, or -1 where the
/// C library does not say (not glibc 2.32 or later).
int stress_libc_single_threaded(void);

/// jemalloc's statistics through mallctl, looked up at run time (dlsym), so the
/// binary works with any allocator and reads jemalloc's figures only when it was
/// loaded (LD_PRELOAD). Each returns 0 on success, -1 when jemalloc is absent.
int stress_jemalloc_loaded(void);
/// One malloc and its free that the optimizer cannot remove: a probe of
/// whether an allocation counter sees this process's allocations.
void stress_malloc_probe(void);
/// Bytes the calling thread has allocated since it started (jemalloc's
/// `thread.allocated`: exact, counted on every allocation).
int stress_jemalloc_thread_allocated(uint64_t *bytes);
/// Flushes the calling thread's cache so its request counts reach the arenas.
int stress_jemalloc_flush_thread_cache(void);
/// After refreshing jemalloc's statistics epoch: allocation requests served so
/// far (small + large, all arenas), and resident and allocated bytes.
int stress_jemalloc_totals(uint64_t *requests, uint64_t *resident, uint64_t *allocated);

/// A pthread mutex call: `pthread_mutex_lock` or `pthread_mutex_unlock`.
typedef int (*stress_mutex_call_t)(void *);
/// The process's `pthread_mutex_lock` and `pthread_mutex_unlock` as code that
/// calls them gets them (the interposer's, when libStressInterpose.so is
/// preloaded), or, with `own` set, the C library's own, which nothing
/// replaces: the two sides of `stressbench-dev primitives`'s measure of what
/// interposition adds, timed side by side in one process. 0 on success, -1
/// where they cannot be looked up (then both are left NULL).
int stress_mutex_calls(int own, stress_mutex_call_t *lock, stress_mutex_call_t *unlock);

/// Parks the calling thread while the 32-bit word at `word` still holds
/// `expected` (a futex wait on Linux; elsewhere a short sleep, after which
/// the caller checks again). Returns early on a wake, a signal, or when the
/// word has already changed. The controlled scheduler's hand-off.
void stress_park(uint32_t *word, uint32_t expected);

/// Wakes the threads parked on `word` (after the caller changed it).
void stress_unpark(uint32_t *word);

/// One worker's baton under controlled scheduling: `turn` counts the times
/// the run token was handed to it, `sleeping` says it is parked in the
/// kernel (so a hand-off wakes it only then), `backoff` how far its waits
/// cut their spin budget (halved per step), `parks` how many of them
/// parked, `probe` whether the next spins the whole budget again (these
/// three: its own worker's fields only). On a cache line of its own.
typedef struct stress_baton {
    uint32_t turn;
    uint32_t sleeping;
    uint32_t backoff;
    uint32_t parks;
    uint32_t probe;
    uint32_t padding[11];
} stress_baton;

/// The baton's hand-off count now (acquire).
static inline uint32_t stress_baton_turn(stress_baton *b) { return __atomic_load_n(&b->turn, __ATOMIC_ACQUIRE); }

/// Whether the baton's worker says it parks (seq_cst): set in
/// stress_baton_wait just before its last look at the count and its sleep in
/// the kernel, cleared once it wakes. For the token's holder, that means it
/// was handed the token and its passer has not woken it yet.
static inline int stress_baton_parked(stress_baton *b) { return (int)__atomic_load_n(&b->sleeping, __ATOMIC_SEQ_CST); }

/// Waits until the baton's count is no longer `seen`: spins up to `spins`
/// times (fewer while recent waits showed spinning does not pay), yields
/// the CPU up to `yields` times, then parks in the kernel.
void stress_baton_wait(stress_baton *b, uint32_t seen, int spins, int yields);

/// Counts a hand-off to the baton's worker and wakes it if it is parked.
void stress_baton_pass(stress_baton *b);

/// stress_baton_pass in two halves, so that the wake-up may come later
/// (once the passer has let go of what the woken worker will need): counts
/// a hand-off to the baton's worker...
void stress_baton_count(stress_baton *b);

/// ...and wakes it if it is parked (after stress_baton_count).
void stress_baton_wake(stress_baton *b);

// ThreadSanitizer, seen at run time. A TSan build links the sanitizer's
// runtime into the executable, which defines these symbols; in any other
// build they stay NULL (weak). Compile-time tests cannot tell: Swift's Clang
// importer, which compiles these inline functions, is not given
// `-fsanitize=thread` even when the Swift code is. Linux only: a weak
// undefined symbol is an error at link time on Darwin.
#if defined(__linux__)
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));
extern void AnnotateIgnoreSyncBegin(const char *file, int line) __attribute__((weak));
extern void AnnotateIgnoreSyncEnd(const char *file, int line) __attribute__((weak));
#endif

#if defined(__linux__)
extern void __sanitizer_set_report_path(const char *path) __attribute__((weak));
#endif

/// Sends this process's sanitizer reports from now on to `path.<pid>` (or
/// back to standard error: "stderr"); nothing without a sanitizer.
static inline void stress_sanitizer_set_report_path(const char *path) {
#if defined(__linux__)
    if (__sanitizer_set_report_path) __sanitizer_set_report_path(path);
#else
    (void)path;
#endif
}

/// 1 when this process runs with ThreadSanitizer's runtime, else 0.
static inline int stress_tsan_active(void) {
#if defined(__linux__)
    return __tsan_acquire != 0;
#else
    return 0;
#endif
}

/// Tells ThreadSanitizer that the calling thread has acquired the
/// synchronization object at `addr` (a lock just taken by a path it cannot
/// see, such as a futex): what the last `stress_tsan_release` of `addr` did
/// happens before what follows. One test of a weak symbol outside TSan builds.
static inline void stress_tsan_acquire(void *addr) {
#if defined(__linux__)
    if (__tsan_acquire) __tsan_acquire(addr);
#else
    (void)addr;
#endif
}

/// Tells ThreadSanitizer that the calling thread releases the
/// synchronization object at `addr` (a lock about to be let go).
static inline void stress_tsan_release(void *addr) {
#if defined(__linux__)
    if (__tsan_release) __tsan_release(addr);
#else
    (void)addr;
#endif
}

/// Until ``stress_tsan_ignore_sync_end``, ThreadSanitizer ignores the
/// synchronization the calling thread does (its acquires and releases make no
/// happens-before edge): for the harness's own hand-offs, which would
/// otherwise order accesses of the code under test that never synchronized.
static inline void stress_tsan_ignore_sync_begin(void) {
#if defined(__linux__)
    if (AnnotateIgnoreSyncBegin) AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
#endif
}

/// Ends ``stress_tsan_ignore_sync_begin``.
static inline void stress_tsan_ignore_sync_end(void) {
#if defined(__linux__)
    if (AnnotateIgnoreSyncEnd) AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
#endif
}

#if defined(__linux__)
extern void AnnotateIgnoreReadsBegin(const char *file, int line) __attribute__((weak));
extern void AnnotateIgnoreReadsEnd(const char *file, int line) __attribute__((weak));
extern void AnnotateIgnoreWritesBegin(const char *file, int line) __attribute__((weak));
extern void AnnotateIgnoreWritesEnd(const char *file, int line) __attribute__((weak));
#endif

/// Until ``stress_tsan_unseen_end``, ThreadSanitizer sees nothing the calling
/// thread does: neither its synchronization nor its reads and writes. For
/// the controlled scheduler's bookkeeping under its state lock: its lock
/// must not order the workers (see ``stress_tsan_ignore_sync_begin``), and
/// what it guards is then unordered too, but it is the harness's, not the
/// code under test's, and never a race.
static inline void stress_tsan_unseen_begin(void) {
#if defined(__linux__)
    if (!AnnotateIgnoreSyncBegin) return;
    AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
#endif
}

/// Ends ``stress_tsan_unseen_begin``.
static inline void stress_tsan_unseen_end(void) {
#if defined(__linux__)
    if (!AnnotateIgnoreSyncEnd) return;
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
    AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
#endif
}
