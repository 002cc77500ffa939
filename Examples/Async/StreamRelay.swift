/// A relay that forwards readings from a source to a consumer through an
/// `AsyncStream`, as a team writes one to decouple the two. The buggy relay
/// builds its stream with `.bufferingNewest(1)` (fine for "latest value"
/// streams), but its consumer needs every reading: when the producer gets two
/// readings ahead of a consumer that is busy awaiting its sink, the older one
/// is dropped. The fix buffers without bound.
public struct StreamRelay: Sendable {
    /// Whether the stream keeps every element (the fix) or only the newest.
    public let keepsEveryElement: Bool

    /// A relay with the given buffering.
    public init(keepsEveryElement: Bool) { self.keepsEveryElement = keepsEveryElement }

    /// Relays readings `1...count` from a fresh source to `sink`; returns what the consumer got.
    public func relay(_ count: Int, to sink: ReadingSink) async -> [Int] {
        let source = ReadingSource()
        let (stream, continuation) = AsyncStream.makeStream(
            of: Int.self, bufferingPolicy: keepsEveryElement ? .unbounded : .bufferingNewest(1))
        async let produced: Void = {
            for _ in 0..<count { continuation.yield(await source.next()) }
            continuation.finish()
        }()
        var received: [Int] = []
        for await reading in stream {
            await sink.store(reading)
            received.append(reading)
        }
        await produced
        return received
    }
}

/// Where readings come from: each `next()` awaits (a device, a socket).
public actor ReadingSource {
    private var last = 0

    /// A source counting from 1.
    public init() {}

    /// The next reading.
    public func next() -> Int {
        last += 1
        return last
    }
}

/// Where the consumer stores readings: each `store` awaits (a database).
public actor ReadingSink {
    /// Readings stored.
    public private(set) var stored = 0

    /// A sink.
    public init() {}

    /// Stores `reading`.
    public func store(_ reading: Int) { stored += 1 }
}
