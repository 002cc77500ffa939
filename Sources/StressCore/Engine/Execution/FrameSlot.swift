/// A task worker's frame, in memory of its own while a step body runs in an
/// actor's isolated code: the worker swaps its frame in before the `await`
/// and back after, so the 464-byte frame is moved twice per step instead of
/// copied (with its references retained and released) into a closure, into
/// the body's frame, into a result and back, as a frame travelling by value
/// was. @unchecked: the worker's task is suspended in that `await` while the
/// isolated code uses the frame, so exactly one of them touches it at a time,
/// and the `await` orders the two.
struct FrameSlot: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<OpFrame>

    init(_ frame: OpFrame) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: frame)
    }

    /// A slot for a frame that already has memory of its own, such as the
    /// frame of a worker the measured task loop holds at a fixed address.
    /// Not to be freed: the memory is its owner's.
    init(at pointer: UnsafeMutablePointer<OpFrame>) {
        self.pointer = pointer
    }

    func free() {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
