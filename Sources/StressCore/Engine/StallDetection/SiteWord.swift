#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// One published site: which operation and step, what phase, which resources.
///
/// Packed into one 64-bit word (bits 0-23 site id + 1, 24-27 phase, 28-39
/// resource, 40-51 inner resource, 52 write access) so that publishing is a
/// single relaxed store and a reader never sees half of it.
struct SiteWord: Equatable {
    var raw: UInt64

    init(raw: UInt64) { self.raw = raw }

    @inline(__always)
    init(site: Int, phase: WorkerPhase, resource: Int = 0, inner: Int = 0, write: Bool = false) {
        raw = UInt64(truncatingIfNeeded: site &+ 1) & 0xFF_FFFF
            | phase.rawValue << 24
            | (UInt64(truncatingIfNeeded: resource) & 0xFFF) << 28
            | (UInt64(truncatingIfNeeded: inner) & 0xFFF) << 40
            | (write ? 1 << 52 : 0)
    }

    var site: Int? { raw & 0xFF_FFFF == 0 ? nil : Int(raw & 0xFF_FFFF) - 1 }
    var phase: WorkerPhase { WorkerPhase(rawValue: (raw >> 24) & 0xF) ?? .starting }
    var resource: Int { Int((raw >> 28) & 0xFFF) }
    var inner: Int { Int((raw >> 40) & 0xFFF) }
    var isWrite: Bool { raw & (1 << 52) != 0 }
}
