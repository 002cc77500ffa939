import Foundation
@testable import StressCore
import XCTest

/// ``ObjectTable`` lends object 0 from a stored property of its own (so that
/// a loop reaches it without loading it from the array every time) and the
/// rest from the array: each index must still lend its own object.
final class ObjectTableTests: XCTestCase {
    func testEveryIndexLendsItsOwnObject() {
        let locks = (0..<3).map { _ in NSLock() }
        let table = ObjectTable(count: 3) { locks[$0] }
        for index in 0..<3 {
            XCTAssertTrue(table.withObject(index) { $0 === locks[index] }, "index \(index)")
        }
        XCTAssertEqual(table.count, 3)
        XCTAssertTrue(table.all.elementsEqual(locks, by: ===))
    }

    func testOneObjectTableLendsIt() {
        let lock = NSLock()
        let table = ObjectTable(count: 1) { _ in lock }
        XCTAssertTrue(table.withObject(0) { $0 === lock })
    }

    func testEmptyTableHasNoObjects() {
        let table = ObjectTable(count: 0) { _ in NSLock() }
        XCTAssertEqual(table.count, 0)
        XCTAssertTrue(table.all.isEmpty)
    }

    /// A table of none keeps a spare at index 0, which it does not count, so
    /// that index 0 is reached without a check: made once, and lent each time.
    func testEmptyTableLendsOneSpareAtIndexZero() {
        var made = 0
        let table = ObjectTable(count: 0) { _ -> NSLock in made += 1; return NSLock() }
        XCTAssertEqual(made, 1)
        let spare = table.withObject(0) { $0 }
        XCTAssertTrue(table.withObject(0) { $0 === spare })
        XCTAssertEqual(table.count, 0)
    }

    /// Each object is made once, by its own index.
    func testMakesEachObjectOnceByItsIndex() {
        var asked: [Int] = []
        let table = ObjectTable(count: 3) { index -> NSLock in asked.append(index); return NSLock() }
        XCTAssertEqual(asked, [0, 1, 2])
        XCTAssertEqual(table.count, 3)
    }
}
