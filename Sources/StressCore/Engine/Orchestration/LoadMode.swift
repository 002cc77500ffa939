/// How workers issue operations.
package enum LoadMode: String, Sendable, Codable {
    /// Each worker starts its next operation when the last ends (saturation).
    case closed
    /// Each worker follows a schedule of intended start times (open loop).
    case paced
}
