/// The scratchpad a worker carries through the steps of one operation.
///
/// A frame belongs to exactly one worker. Steps read and write it to hand values
/// from one critical section to the next (the registers), to draw arguments (the
/// random stream), and to keep per-thread running sums that final checks add up
/// (the tally). It is a plain value so that actor-based strategies can carry it
/// into and out of an isolated region without sharing it.
public struct OpFrame: Sendable {
    /// The worker's index, `0..<threads`.
    public let thread: Int
    /// How many operations this worker started before the current one (0-based),
    /// counting warm-up operations too. Violation messages cite it.
    public internal(set) var opNumber: Int = 0
    /// The worker's seeded random stream; draw operation arguments from it.
    public var random: SplitMix64
    /// Registers for handing values between the steps of one operation.
    /// The engine zeroes them before every operation.
    public var r0 = 0, r1 = 0, r2 = 0, r3 = 0
    /// Registers 4 and up (``subscript(register:)``), zeroed before an
    /// operation only when one was written in the operation before.
    private var extra = ExtraRegisters()
    private var extraUsed = false
    /// Per-thread running sums that persist across operations; the engine sums
    /// them over all workers and hands the total to ``Workload/finalCheck(_:_:)``.
    public var tally = Tally()
    /// Where this worker publishes its site for the watchdog and crash reports.
    var probe = SiteProbe.detached
    /// The site id of step 0 of the current operation.
    var siteBase = 0
    /// This worker's fuzzer (inactive unless the trial fuzzes).
    var fuzz = Fuzzer.off
    /// The trial's clock, and whether the current operation is one of the timed
    /// (sampled) ones: then the engine also times each wait to acquire.
    var clock = TimeSource.monotonic
    var timeThisOp = false
    /// The clock reading at the start of a timed operation; the first guarded
    /// step's acquire wait is measured from it, which saves a reading.
    var opStartTicks: UInt64 = 0
    /// Raw clock ticks this operation spent waiting to acquire, over its steps.
    var acquireTicks: UInt64 = 0
    var acquired = false
    /// True while a step body runs inside an actor's isolated code, where a
    /// workload's own fuzz point must not make a PCT wait (it would hold the
    /// actor the other workers need), as the built-in points there do not.
    var insideActor = false
    /// The resources the operation holds across steps (``StepAccess/hold(_:)``), one bit each.
    var heldMask: UInt64 = 0

    /// Makes a frame for worker `thread` with its own random stream.
    ///
    /// - Parameters:
    ///   - thread: The worker's number.
    ///   - seed: The seed of the worker's random stream.
    public init(thread: Int, seed: UInt64) {
        self.thread = thread
        self.random = SplitMix64(seed: seed)
    }

    @inline(__always)
    mutating func beginOperation(number: Int, siteBase: Int) {
        self.siteBase = siteBase
        beginOperation(number: number)
    }

    /// The same for an operation at the site base the frame already has (the
    /// specialized loop's batch of one operation sets it once). Registers are
    /// zeroed only when one is not: a load and a branch instead of two stores
    /// for operations that never use them, and every store before a lock's
    /// atomic instruction must drain before it can run.
    @inline(__always)
    mutating func beginOperation(number: Int) {
        opNumber = number
        if r0 | r1 | r2 | r3 != 0 { r0 = 0; r1 = 0; r2 = 0; r3 = 0 }
        if extraUsed { clearExtraRegisters() }
    }

    /// ``beginOperation(number:)`` for a frame the compiler can keep in
    /// registers (the kernel loop's, which it gets `inout` and nothing else
    /// sees): the registers are zeroed without looking at them first, which
    /// there costs nothing where the body never reads them (the stores are
    /// dead, and the compiler drops them) and a register move where it does.
    @inline(__always)
    mutating func resetForOperation(number: Int) {
        resetFourRegisters(number: number)
        // Cleared here, not by the call ``beginOperation(number:)`` makes: a
        // call that takes the frame's address, even on a path never taken,
        // keeps the whole frame in memory, so every operation would store its
        // number and registers there before the lock.
        resetExtraRegisters()
    }

    /// ``resetForOperation(number:)`` without the look at registers 4 and
    /// up, for a kernel that never writes them (``FourRegisterKernel``):
    /// they were zeroed before its batch.
    @inline(__always)
    mutating func resetFourRegisters(number: Int) {
        opNumber = number
        r0 = 0; r1 = 0; r2 = 0; r3 = 0
    }

    /// Zeroes registers 4 and up if an operation wrote one: once before a
    /// batch of a ``FourRegisterKernel``.
    @inline(__always)
    mutating func resetExtraRegisters() {
        if extraUsed {
            extra = ExtraRegisters()
            extraUsed = false
        }
    }

    @inline(never)
    private mutating func clearExtraRegisters() {
        extra = ExtraRegisters()
        extraUsed = false
    }

    /// How many registers ``subscript(register:)`` has.
    public static let registerCount = 4 + ExtraRegisters.count

    /// Register `index`, `0..<16`: 0 to 3 are ``r0`` to ``r3``; the rest are
    /// for operations that hand more values between their steps. Zeroed
    /// before every operation, like the first four. Nothing is allocated.
    ///
    /// - Parameter index: The register's number, `0..<16`.
    /// - Returns: The register's value.
    public subscript(register index: Int) -> Int {
        get {
            switch index {
            case 0: return r0
            case 1: return r1
            case 2: return r2
            case 3: return r3
            default: return extra[index - 4]
            }
        }
        set {
            switch index {
            case 0: r0 = newValue
            case 1: r1 = newValue
            case 2: r2 = newValue
            case 3: r3 = newValue
            default:
                extra[index - 4] = newValue
                extraUsed = true
            }
        }
    }

    /// A fuzz point a workload may place anywhere in a step body (between two
    /// halves of a multi-part update, say): when the trial fuzzes, the worker may
    /// yield, spin or sleep here; when it does not, this is one branch on a
    /// worker-local flag. Step boundaries and lock acquire/release are fuzz
    /// points already.
    ///
    /// Under controlled scheduling the point shows in a failure's trace when
    /// a switch happens here, or always when it has a `label`, with the
    /// place in the source that called it.
    ///
    /// - Parameters:
    ///   - label: What the code is about to do, for the trace (`"publish"`); nil for none.
    ///   - file: The caller's file (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    @inline(__always)
    public mutating func fuzzPoint(_ label: StaticString? = nil, file: StaticString = #fileID, line: UInt = #line) {
        if fuzz.active {
            if insideActor {
                fuzz.hitIsolated(.user)
            } else {
                Participation.locate(file: file, line: line, label: label)
                fuzz.hit(.user)
            }
        }
    }

    /// Reports a value the step read or wrote, for a controlled trial's
    /// trace ("read count -> 3"): nothing outside controlled scheduling but
    /// one branch on a worker-local flag.
    ///
    /// - Parameters:
    ///   - label: What the value is (`"read count"`).
    ///   - value: The value.
    ///   - file: The caller's file (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    @inline(__always)
    public func traceValue(_ label: StaticString, _ value: Int, file: StaticString = #fileID, line: UInt = #line) {
        if fuzz.active && !insideActor { Participation.traceValue(label, value, file: file, line: line) }
    }

    /// The clock reading before asking for a critical section (0 when this
    /// operation is not timed).
    @inline(__always)
    func askedAt(step: Int = 1) -> UInt64 { timeThisOp ? (step == 0 ? opStartTicks : clock.now()) : 0 }

    /// Adds the wait since `asked` to this operation's acquire time.
    @inline(__always)
    mutating func entered(_ asked: UInt64) {
        if timeThisOp {
            acquireTicks &+= clock.now() &- asked
            acquired = true
        }
    }

    /// A built-in fuzz point: the engine's own (exploration knows that no
    /// code under test runs between some pairs of them).
    @inline(__always)
    mutating func fuzz(_ point: FuzzPoint) {
        if fuzz.active { fuzz.hit(point, detail: ControlledScheduler.enginePoint) }
    }

    /// A built-in fuzz point at an operation's start or between its steps,
    /// with the operation's or next step's index (a controlled trial's trace
    /// names it).
    @inline(__always)
    mutating func fuzz(_ point: FuzzPoint, detail: Int) {
        if fuzz.active { fuzz.hit(point, detail: detail) }
    }

    /// A built-in fuzz point inside an actor's isolated region.
    @inline(__always)
    mutating func fuzzIsolated(_ point: FuzzPoint) {
        if fuzz.active { fuzz.hitIsolated(point) }
    }

    /// The perturbations for the two points around a nested actor hop, decided now.
    @inline(__always)
    mutating func nestedHops() -> NestedHops {
        guard fuzz.active else { return .none }
        return NestedHops(outerEntry: fuzz.decideNext(), resumed: fuzz.decideNext())
    }

    /// Publishes where this worker is (one relaxed store to its own cache line).
    @inline(__always)
    func publish(step: Int, _ phase: WorkerPhase, resource: Int = 0, inner: Int = 0, write: Bool = false) {
        probe.publish(SiteWord(site: siteBase &+ step, phase: phase, resource: resource, inner: inner, write: write))
    }
}

/// Four per-thread running sums (`tally[0]` ... `tally[3]`), merged by addition.
public struct Tally: Sendable, Equatable, Codable {
    private var a = 0, b = 0, c = 0, d = 0

    /// A tally with every slot zero.
    public init() {}

    /// The number of slots.
    public static let slotCount = 4

    /// Slot `index`, `0..<4`.
    ///
    /// - Parameter index: The slot's number, `0..<4`.
    /// - Returns: The slot's count.
    @inline(__always)
    public subscript(index: Int) -> Int {
        get {
            switch index {
            case 0: return a
            case 1: return b
            case 2: return c
            default: return d
            }
        }
        set {
            switch index {
            case 0: a = newValue
            case 1: b = newValue
            case 2: c = newValue
            default: d = newValue
            }
        }
    }

    /// Adds another tally slot by slot (wrapping, so a racy workload cannot trap here).
    ///
    /// - Parameter other: The tally to add to this one.
    public mutating func add(_ other: Tally) {
        a &+= other.a; b &+= other.b; c &+= other.c; d &+= other.d
    }
}

/// Registers 4 to 15 of an ``OpFrame``, inline (no allocation).
struct ExtraRegisters: Sendable {
    static let count = 12
    private var slots: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    subscript(index: Int) -> Int {
        get {
            precondition(index >= 0 && index < Self.count, "register \(index + 4) does not exist: an OpFrame has registers 0..<\(4 + Self.count)")
            return withUnsafeBytes(of: slots) { $0.load(fromByteOffset: index * MemoryLayout<Int>.stride, as: Int.self) }
        }
        set {
            precondition(index >= 0 && index < Self.count, "register \(index + 4) does not exist: an OpFrame has registers 0..<\(4 + Self.count)")
            withUnsafeMutableBytes(of: &slots) { $0.storeBytes(of: newValue, toByteOffset: index * MemoryLayout<Int>.stride, as: Int.self) }
        }
    }
}
