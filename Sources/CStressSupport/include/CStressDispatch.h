#ifndef CSTRESS_DISPATCH_H
#define CSTRESS_DISPATCH_H
// The C entry points of libdispatch that take a function pointer and a context
// (`dispatch_sync_f`, `dispatch_barrier_sync_f`), for the `serial-queue-f` and
// `rw-queue-f` strategies: Swift's `DispatchQueue.sync` overlay wraps its closure
// in a block and copies it to the heap on every call, these do not, so the two
// strategies side by side show what the overlay costs.
//
// Everything here is `static inline`, so only the Swift compiler's Clang importer
// ever compiles it. That importer already searches the toolchain's
// `usr/lib/swift` (where Linux toolchains keep <dispatch/dispatch.h>; Apple
// SDKs have it on the default path), whereas SwiftPM's plain C compile of this
// target does not, and adding the path there would need `unsafeFlags`, which
// would make StressKit unusable as a package dependency. shim.c therefore never
// includes this header; the module map lists it beside CStressSupport.h.
//
// Queues cross into Swift as an opaque pointer: the Swift overlay's
// `DispatchQueue` does not expose its underlying `dispatch_queue_t` on Linux,
// so these queues are made and released here.
#include <dispatch/dispatch.h>

/// A libdispatch queue made by ``stress_dispatch_queue_create``.
typedef struct stress_dispatch_queue_opaque *stress_dispatch_queue_t;

/// The function a queue runs: `work(context)`.
typedef void (*stress_dispatch_work_t)(void *context);

/// A new serial queue, or a concurrent one when `concurrent` is nonzero
/// (`dispatch_queue_create`). Release it with ``stress_dispatch_queue_release``.
static inline stress_dispatch_queue_t stress_dispatch_queue_create(const char *label, int concurrent) {
    dispatch_queue_t queue = dispatch_queue_create(label, concurrent ? DISPATCH_QUEUE_CONCURRENT : DISPATCH_QUEUE_SERIAL);
    return (stress_dispatch_queue_t)queue;
}

/// Drops the reference ``stress_dispatch_queue_create`` returned (`dispatch_release`).
static inline void stress_dispatch_queue_release(stress_dispatch_queue_t queue) {
    dispatch_release((dispatch_queue_t)queue);
}

/// `dispatch_sync_f`: runs `work(context)` on `queue` and waits for it.
static inline void stress_dispatch_sync_f(stress_dispatch_queue_t queue, void *context, stress_dispatch_work_t work) {
    dispatch_sync_f((dispatch_queue_t)queue, context, work);
}

/// `dispatch_barrier_sync_f`: runs `work(context)` on `queue` alone (no other
/// block of that queue runs meanwhile) and waits for it.
static inline void stress_dispatch_barrier_sync_f(stress_dispatch_queue_t queue, void *context, stress_dispatch_work_t work) {
    dispatch_barrier_sync_f((dispatch_queue_t)queue, context, work);
}
#endif
