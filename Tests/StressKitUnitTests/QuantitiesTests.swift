import StressKit
import XCTest

final class QuantitiesTests: XCTestCase {
    func testDurations() {
        XCTAssertEqual(Quantities.nanoseconds(from: "250ns"), 250)
        XCTAssertEqual(Quantities.nanoseconds(from: "100us"), 100_000)
        XCTAssertEqual(Quantities.nanoseconds(from: "1.5ms"), 1_500_000)
        XCTAssertEqual(Quantities.nanoseconds(from: "2s"), 2_000_000_000)
        XCTAssertEqual(Quantities.nanoseconds(from: "3"), 3_000_000_000, "a bare number is seconds")
        XCTAssertEqual(Quantities.nanoseconds(from: "1m"), 60_000_000_000)
        XCTAssertNil(Quantities.nanoseconds(from: "fast"))
        XCTAssertNil(Quantities.nanoseconds(from: "-1s"))
        XCTAssertNil(Quantities.nanoseconds(from: "5 parsecs"))
    }

    func testCounts() {
        XCTAssertEqual(Quantities.count(from: "100k"), 100_000)
        XCTAssertEqual(Quantities.count(from: "2M"), 2_000_000)
        XCTAssertEqual(Quantities.count(from: "1.5k"), 1_500)
        XCTAssertEqual(Quantities.count(from: "1_000"), 1_000)
        XCTAssertEqual(Quantities.count(from: "-3"), -3)
        XCTAssertNil(Quantities.count(from: "1.5"))
        XCTAssertNil(Quantities.count(from: "lots"))
        XCTAssertNil(Quantities.count(from: "99999999999G"), "overflow is not a count")
    }

    func testFormatting() {
        XCTAssertEqual(Formatting.latency(45), "45ns")
        XCTAssertEqual(Formatting.latency(1_234), "1.23µs")
        XCTAssertEqual(Formatting.latency(45_600_000), "45.6ms")
        XCTAssertEqual(Formatting.rate(950), "950")
        XCTAssertEqual(Formatting.rate(12_345_678), "12.3M")
        XCTAssertEqual(Quantities.format(nanoseconds: 1_500_000_000), "1.5s")
    }
}
