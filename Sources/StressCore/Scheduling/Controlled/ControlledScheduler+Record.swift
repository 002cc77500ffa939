// What a controlled trial records of its schedule, and of the work that
// escaped it (see ``EscapeMonitor``).
extension ControlledScheduler {
    /// Notes work that escaped control; the first few distinct ones are kept.
    func noteEscape(_ what: String) {
        escapes.withLockSeen { list in
            if list.count < 8 && !list.contains(what) { list.append(what) }
        }
    }

    /// The record of the decisions so far (takes the state lock: for any
    /// thread but a worker inside the scheduler, which uses ``recordLocked()``).
    func record() -> ScheduleRecord {
        lockState()
        defer { unlockState() }
        return recordLocked()
    }

    /// ``record()``, under the state lock.
    func recordLocked() -> ScheduleRecord {
        let escaped = escapes.withLockSeen { $0 }
        return ScheduleRecord(mode: .controlled, decisions: log.count, encoded: log.encoded,
                              controlled: escaped.isEmpty ? .full : .partial, escapes: escaped.isEmpty ? nil : escaped)
    }
}
