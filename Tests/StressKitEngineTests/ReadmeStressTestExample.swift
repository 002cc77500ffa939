import StressKitTesting
import Testing

/// The README's "The same from Swift" example, run as written. The README
/// quotes the function between the markers exactly;
/// `ReadmeExampleTests.testTheReadmeQuotesTheStressTestThatRuns` holds it to this copy.
@Suite struct ReadmeStressTestExample {
    // README: begin
    @Test func transfersConserveTheTotal() async {
        await StressTest(workload: "bank", parameters: ["accounts": 16, "audit_ratio": 0.05])
            .strategies("pthread-mutex", "serial-queue", "rw-queue", "actor")
            .threads(1, 4)
            .duration(.milliseconds(300))
            .seed(42)
            .expectSuccess()
    }
    // README: end
}
