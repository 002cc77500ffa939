/// A connection pool as an actor: `acquire` hands out an idle connection, or
/// opens a new one while under its maximum. Opening awaits the network, and
/// the actor is reentrant: the buggy pool checks its count, awaits the open,
/// then adds the connection, so acquirers that check during one another's
/// opens all see room and the pool ends over its maximum. The fix counts the
/// connections being opened along with the open ones.
public actor ConnectionPool {
    /// The most connections the pool may have open at once.
    public let maximum: Int
    /// Connections open (idle or lent out).
    public private(set) var open = 0
    /// Connections being opened (only the fixed pool counts them).
    private var opening = 0
    /// The most connections ever open at once.
    public private(set) var mostOpen = 0
    private var idle: [Int] = []
    private let countsOpening: Bool
    private let openLatency: Duration
    private var nextID = 0

    /// A pool of at most `maximum` connections; `countsOpening` is the fix.
    public init(maximum: Int, countsOpening: Bool, openLatency: Duration) {
        self.maximum = maximum
        self.countsOpening = countsOpening
        self.openLatency = openLatency
    }

    /// A connection's id, or nil when the pool is at its maximum and none is idle.
    public func acquire() async -> Int? {
        if let connection = idle.popLast() { return connection }
        guard open + (countsOpening ? opening : 0) < maximum else { return nil }
        opening += 1
        try? await Task.sleep(for: openLatency)  // the TCP and TLS handshakes
        opening -= 1
        open += 1
        mostOpen = max(mostOpen, open)
        nextID += 1
        return nextID
    }

    /// Gives `connection` back for reuse.
    public func release(_ connection: Int) {
        idle.append(connection)
    }
}
