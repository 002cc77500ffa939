import Foundation
import StressKitTestSupport
import XCTest

/// `stressbench-dev linearizability logs`, as scripts/porcupine-compare.sh
/// reads it: one tab-separated line per log in either of Porcupine's test
/// formats, the verdict fifth; a file it cannot read is a usage error naming
/// the file and line. The logs here are written by hand in those formats
/// (none of Porcupine's own data).
final class LinearizabilityBenchCommandTests: XCTestCase {
    /// A write, a read of it, a compare-and-set that timed out (pending), and
    /// a read of what it set, or of `lastRead`.
    private func etcdLog(lastRead: Int) -> String {
        """
        INFO  jepsen.util - 0\t:invoke\t:write\t1
        INFO  jepsen.util - 0\t:ok\t:write\t1
        INFO  jepsen.util - 1\t:invoke\t:read\tnil
        INFO  jepsen.util - 1\t:ok\t:read\t1
        INFO  jepsen.util - 2\t:invoke\t:cas\t[1 2]
        INFO  jepsen.util - 2\t:info\t:cas\t:timed-out
        INFO  jepsen.util - 3\t:invoke\t:read\tnil
        INFO  jepsen.util - 3\t:ok\t:read\t\(lastRead)

        """
    }

    /// A put and an append to one key, a get of it returning `seen`, and a
    /// get of a key nobody wrote.
    private func kvLog(seen: String) -> String {
        """
        {:process 0, :type :invoke, :f :put, :key "a", :value "x"}
        {:process 0, :type :ok, :f :put, :key "a", :value "x"}
        {:process 1, :type :invoke, :f :append, :key "a", :value "y"}
        {:process 1, :type :ok, :f :append, :key "a", :value "y"}
        {:process 2, :type :invoke, :f :get, :key "a", :value nil}
        {:process 2, :type :ok, :f :get, :key "a", :value "\(seen)"}
        {:process 3, :type :invoke, :f :get, :key "b", :value nil}
        {:process 3, :type :ok, :f :get, :key "b", :value ""}

        """
    }

    func testBothFormatsAreReadAndChecked() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let logs = [
            ("etcd-ok.log", etcdLog(lastRead: 2), "etcd\t4\t1\tlinearizable"),
            ("etcd-bad.log", etcdLog(lastRead: 3), "etcd\t4\t1\tviolated"),
            ("kv-ok.txt", kvLog(seen: "xy"), "kv\t4\t0\tlinearizable"),
            ("kv-bad.txt", kvLog(seen: "yx"), "kv\t4\t0\tviolated"),
        ]
        for (name, text, _) in logs { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let r = try TestSupport.cli(["linearizability", "logs"] + logs.map { dir.appendingPathComponent($0.0).path },
                                    executable: TestSupport.devToolPath)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first?.hasPrefix("#file\tformat\toperations\tpending\tverdict"), true, r.stdout)
        XCTAssertEqual(lines.count, logs.count + 1, r.stdout)
        for (line, (name, _, expected)) in zip(lines.dropFirst(), logs) {
            XCTAssertTrue(line.hasPrefix("\(name)\t\(expected)\t"), "\(line) should start \(name)\t\(expected)")
        }
    }

    func testAnUnreadableLogIsAUsageErrorNamingFileAndLine() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let neither = dir.appendingPathComponent("neither.txt")
        try "just some text\n".write(to: neither, atomically: true, encoding: .utf8)
        let unopened = dir.appendingPathComponent("unopened.log")
        try "INFO  jepsen.util - 7\t:ok\t:read\t1\n".write(to: unopened, atomically: true, encoding: .utf8)
        for (file, message) in [(neither.path, "\(neither.path): neither a Jepsen etcd log nor a Porcupine kv log"),
                                (unopened.path, "\(unopened.path):1: process 7 returns with no operation open"),
                                (dir.appendingPathComponent("missing.log").path, "missing.log: cannot be read")] {
            let r = try TestSupport.cli(["linearizability", "logs", file], executable: TestSupport.devToolPath)
            XCTAssertEqual(r.status, 2, "\(file): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
        }
    }
}
