/// The ThreadSanitizer suppressions every trial process of a TSan build
/// gets: races TSan reports inside the Swift runtime and libdispatch on
/// Linux that are not races (their synchronization is in code TSan did not
/// instrument). Each entry says why, and where upstream tracks it. A
/// suppression matches any frame of either stack, so each names a function
/// of the runtime or libdispatch, never of the code under test.
package enum ThreadSanitizerSuppressions {
    /// The suppressions file's text (TSan's format: `race:<pattern>` lines, `#` comments).
    package static let text = """
    # stressbench's ThreadSanitizer suppressions: false positives of the Swift
    # runtime and libdispatch on Linux. Each entry says why.

    """
}
