import Foundation
@testable import StressCore
import XCTest

/// ``ObjectTable`` lends object 0 from a stored property of its own (so that
/// a loop reaches it without loading it from the array every time) and the
/// rest from the array: each index must still lend its own object.
final class ObjectTableTests: XCTestCase {
    func testEveryIndexLendsItsOwnObject() {
        let locks = (0..<3).map { _ in NSLock() }
        let table = ObjectTable(locks)
        for index in 0..<3 {
            XCTAssertTrue(table.withObject(index) { $0 === locks[index] }, "index \(index)")
        }
        XCTAssertEqual(table.count, 3)
        XCTAssertTrue(table.all.elementsEqual(locks, by: ===))
    }

    func testOneObjectTableLendsIt() {
        let lock = NSLock()
        let table = ObjectTable([lock])
        XCTAssertTrue(table.withObject(0) { $0 === lock })
    }

    func testEmptyTableHasNoObjects() {
        let table = ObjectTable([NSLock]())
        XCTAssertEqual(table.count, 0)
        XCTAssertTrue(table.all.isEmpty)
    }
}
