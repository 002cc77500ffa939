import Foundation
import StressCore

/// Readers for the two history formats of Porcupine's test data, so the
/// comparison runs both checkers on the very same histories: Jepsen's etcd
/// logs (`test_data/jepsen/etcd_NNN.log`, a register) and the key-value logs
/// (`test_data/kv/*.txt`, a string store with append). Each event line is one
/// tick of the clock, as Porcupine reads them. Lines neither reader knows are
/// skipped, as Porcupine skips them (Jepsen's `:info` timeouts among them:
/// their operations stay open, so they are pending at the end).
enum PorcupineLogs {
    /// A file the readers could not make sense of.
    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    /// Which reader a file needs, from its first event line.
    enum Format: String {
        case etcd, kv
    }

    /// The format of `lines`: kv when an event line starts with `{:process`,
    /// etcd when one comes from `jepsen.util`.
    static func format(of lines: [Substring], path: String) throws -> Format {
        for line in lines {
            if line.hasPrefix("{:process") { return .kv }
            if line.contains("jepsen.util") { return .etcd }
        }
        throw ReadError(description: "\(path): neither a Jepsen etcd log nor a Porcupine kv log (no `{:process` or `jepsen.util` line)")
    }

    /// Jepsen's etcd log at `path`: reads, writes and compare-and-sets of one
    /// register. A read that timed out (`:fail :read :timed-out`) is pending:
    /// it changes nothing, so leaving it out or placing it anywhere is all one.
    static func etcd(_ lines: [Substring], path: String) throws -> [HistoryOperation<EtcdRegisterModel.Operation, EtcdRegisterModel.Result>] {
        var history: [HistoryOperation<EtcdRegisterModel.Operation, EtcdRegisterModel.Result>] = []
        var open: [Int: Int] = [:]  // process → its operation's index in history
        var clock: UInt64 = 0
        for (number, line) in lines.enumerated() {
            guard line.hasPrefix("INFO"), line.contains("jepsen.util"), let dash = line.range(of: " - ") else { continue }
            let fields = line[dash.upperBound...].split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 4, let process = Int(fields[0]) else { continue }
            let kind = fields[1], function = fields[2], argument = fields[3...].joined(separator: " ")
            func integer(_ text: Substring) throws -> Int {
                guard let value = Int(text) else { throw ReadError(description: "\(path):\(number + 1): \(text) is not an integer") }
                return value
            }
            func pair() throws -> (Int, Int) {
                let parts = argument.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).split(separator: " ")
                guard parts.count == 2 else { throw ReadError(description: "\(path):\(number + 1): \(argument) is not [from to]") }
                return (try integer(parts[0]), try integer(parts[1]))
            }
            var operation: EtcdRegisterModel.Operation?
            var result: EtcdRegisterModel.Result??  // .some(nil): returned, result unknown
            switch (kind, function) {
            case (":invoke", ":read") where argument == "nil": operation = .read
            case (":invoke", ":write"): operation = .write(try integer(fields[3]))
            case (":invoke", ":cas"): let (from, to) = try pair(); operation = .compareAndSet(from, to)
            case (":ok", ":read"): result = .value(argument == "nil" ? nil : try integer(fields[3]))
            case (":ok", ":write"): result = .written
            case (":ok", ":cas"), (":fail", ":cas"): result = .swapped(kind == ":ok")
            case (":fail", ":read") where argument == ":timed-out": result = .some(nil)
            default: continue
            }
            if let operation {
                open[process] = history.count
                history.append(HistoryOperation(worker: process, operation: operation, result: nil, called: clock, returned: .max))
            } else if let result {
                guard let index = open.removeValue(forKey: process) else {
                    throw ReadError(description: "\(path):\(number + 1): process \(process) returns with no operation open")
                }
                history[index].result = result
                history[index].returned = result == nil ? .max : clock
            }
            clock += 1
        }
        return history
    }

    /// A Porcupine kv log at `path`: gets, puts and appends on string keys.
    static func kv(_ lines: [Substring], path: String) throws -> [HistoryOperation<AppendKeyValueModel.Operation, AppendKeyValueModel.Result>] {
        var history: [HistoryOperation<AppendKeyValueModel.Operation, AppendKeyValueModel.Result>] = []
        var open: [Int: Int] = [:]
        var clock: UInt64 = 0
        for (number, line) in lines.enumerated() where line.hasPrefix("{:process ") {
            func field(_ name: String) throws -> Substring {
                guard let start = line.range(of: ":\(name) ") else {
                    throw ReadError(description: "\(path):\(number + 1): no :\(name)")
                }
                let rest = line[start.upperBound...]
                // A quoted value runs to its closing quote before the next
                // field (or the closing brace); a bare one to the comma.
                if rest.hasPrefix("\"") {
                    let body = rest.dropFirst()
                    guard let end = body.range(of: "\", :") ?? body.range(of: "\"}", options: .backwards) else {
                        throw ReadError(description: "\(path):\(number + 1): unterminated :\(name)")
                    }
                    return body[..<end.lowerBound]
                }
                return rest.prefix { $0 != "," && $0 != "}" }
            }
            guard let process = Int(try field("process")) else {
                throw ReadError(description: "\(path):\(number + 1): :process is not an integer")
            }
            let kind = try field("type"), function = try field("f"), key = String(try field("key"))
            if kind == ":invoke" {
                let operation: AppendKeyValueModel.Operation
                switch function {
                case ":get": operation = .get(key)
                case ":put": operation = .put(key, String(try field("value")))
                case ":append": operation = .append(key, String(try field("value")))
                default: continue
                }
                open[process] = history.count
                history.append(HistoryOperation(worker: process, operation: operation, result: nil, called: clock, returned: .max))
            } else if kind == ":ok" {
                guard let index = open.removeValue(forKey: process) else {
                    throw ReadError(description: "\(path):\(number + 1): process \(process) returns with no operation open")
                }
                history[index].result = function == ":get" ? .value(String(try field("value"))) : .done
                history[index].returned = clock
            } else {
                continue
            }
            clock += 1
        }
        return history
    }
}
