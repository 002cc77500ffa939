#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Foundation
import Synchronization

/// What the interposer noted of a primitive the code under test took: what
/// it is, and where it was first taken (see CStressInterpose.h).
struct FirstTaken: Equatable {
    enum Kind: UInt64 {
        case mutex = 1, recursiveMutex, rwlock, condition, conditionMutex
    }

    var kind: Kind
    /// The site id (an index into the board's labels), nil outside any step.
    var site: Int?
    /// Among the primitives of its kind first taken at that site, which (1: the first).
    var rank: Int

    /// What the preloaded interposer knows of `key`, if it is loaded and has seen it.
    static func lookup(_ key: UInt64) -> FirstTaken? {
        var site: UInt64 = 0, info: UInt64 = 0
        var rank: Int32 = 0
        guard stress_interpose_first_taken_lookup(key, &site, &info, &rank) != 0,
              let kind = Kind(rawValue: info & 0xFF) else { return nil }
        return FirstTaken(kind: kind, site: SiteWord(raw: site).site, rank: Int(max(1, rank)))
    }

    /// "the mutex first taken at post/post", "the 2nd read-write lock first
    /// taken at settle/settle", "the condition first waited on at audit/audit".
    func description(labels: [String]) -> String {
        let noun: String
        switch kind {
        case .mutex: noun = "mutex"
        case .recursiveMutex: noun = "recursive mutex"
        case .rwlock: noun = "read-write lock"
        case .condition: noun = "condition"
        case .conditionMutex: noun = "lock of a condition"
        }
        let verb = kind == .condition ? "first waited on" : "first taken"
        let place = site.flatMap { labels.indices.contains($0) ? "at " + labels[$0] : nil } ?? "outside any step"
        return "the " + (rank > 1 ? Self.ordinal(rank) + " " : "") + noun + " " + verb + " " + place
    }

    /// 2nd, 3rd, 4th, 11th, 21st.
    static func ordinal(_ n: Int) -> String {
        let suffix: String
        switch (n % 10, n % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(n)\(suffix)"
    }
}
