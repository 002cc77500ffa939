/// The ThreadSanitizer suppressions every trial process of a TSan build
/// gets: races TSan reports in code the Swift runtime calls on Linux that are
/// not races (their synchronization is in the runtime, which is not
/// instrumented). Each entry says why and links where upstream tracks it. A
/// suppression matches any frame of either stack, so each names a runtime
/// function, never a function of the code under test; what one hides is
/// said beside it (docs/data-races.md, "False positives").
package enum ThreadSanitizerSuppressions {
    /// The suppressions file's text (TSan's format: `race:<pattern>` lines, `#` comments).
    package static let text = """
    # stressbench's ThreadSanitizer suppressions: false positives of the Swift
    # runtime on Linux. Each entry says why. None of them matched in the runs
    # docs/data-races.md reports (the strategies, examples and scenarios that
    # stressbench ships); they are for code that takes these paths.

    # A task cancellation handler (withTaskCancellationHandler's onCancel) is
    # run by swift_task_cancel on the cancelling thread; the runtime orders it
    # after the task's start with its own atomics, which TSan does not see, so
    # the handler's reads of what the task's creator wrote are reported.
    # Hides: any race whose stack passes through swift_task_cancel, so a real
    # race inside an onCancel handler too.
    # https://github.com/swiftlang/swift/issues/59068
    race:swift_task_cancel

    # Type metadata accessors (mangled names ending in "Ma") read their cache
    # variable, which the runtime fills under its own lock: concurrent first
    # uses of a generic type are reported as racing on the cache.
    # Hides: races inside those accessors only; they contain no user code.
    # https://github.com/swiftlang/swift/issues/61073
    race:*Ma$

    """
}
