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
#endif

/// Asks the kernel to SIGKILL this process when its parent dies (Linux), so a
/// trial process never outlives a killed stressbench. Returns 0, or -1 where unsupported.
int stress_die_with_parent(void);

/// The calling process's environment block (for handing on to a child).
char **stress_environ(void);

/// pipe2(fds, O_CLOEXEC) where available, else pipe + FD_CLOEXEC. 0 on success.
int stress_pipe_cloexec(int fds[2]);
