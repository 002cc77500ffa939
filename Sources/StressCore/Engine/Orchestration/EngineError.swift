/// A failure of the harness itself while running a trial (not of the code under test).
package struct EngineError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    package init(_ description: String) { self.description = description }
}
