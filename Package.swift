// swift-tools-version: 6.1
//
// stressbench: a Swift concurrency stress-testing harness.
//
// Module layering (each depends only on the ones above it):
//   CStressSupport  tiny C shims the Swift overlays do not expose (cpu pause, dispatch_*_f)
//   StressCore      vocabulary, primitives, fuzzing, the engine, built-in strategies and workloads
//   StressRunner    plans, the trial matrix, child processes, results, gate, reports
//   StressKit       what users import: the two above re-exported, plus StressTest
//   StressBenchCLI  the argument-parser front end, public so a team can ship its own
//                   `stressbench` with its own workloads and strategies registered
//   stressbench     the executable: a one-line main over StressBenchCLI
//
// Not shipped (no product names them): stressbench-dev (Tools/), the
// benchmark commands the scripts run; the test fixtures (Tests/Fixtures/),
// registered only in the tests' own stressbench-fixtures executable.
import PackageDescription

let package = Package(
    name: "stressbench",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StressKit", targets: ["StressKit"]),
        .library(name: "StressBenchCLI", targets: ["StressBenchCLI"]),
        // `StressTest` in a team's own tests: failures recorded as Swift Testing
        // issues or XCTest failures, and the running test found for isolation.
        .library(name: "StressKitTesting", targets: ["StressKitTesting"]),
        .executable(name: "stressbench", targets: ["stressbench"]),
        // Preloaded into trial processes whose plan says `interpose: true`:
        // the pthread lock and condition calls of the code under test, seen.
        .library(name: "StressInterpose", type: .dynamic, targets: ["CStressInterpose"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // Counts the system allocator's calls (allocations per operation without
        // jemalloc), as package-benchmark does: linked, its malloc/free replace
        // the C library's in every stressbench process on Linux.
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
    ],
    targets: [
        .target(name: "CStressSupport"),
        .target(name: "CStressInterpose", linkerSettings: [.linkedLibrary("dl")]),
        // libStressInterpose.so again, as a resource every stressbench
        // executable carries: `swift run` builds only what the executable
        // links, so the product above is missing after it (Plugins/InterposerBuilder).
        .plugin(name: "InterposerBuilder", capability: .buildTool()),
        .target(name: "InterposerPayload", plugins: ["InterposerBuilder"]),
        // The layers, each depending only on those before it:
        //   StressCore    the vocabulary (workload, scenario, step, strategy),
        //                 the harness-aware primitives, fuzzing, the engine and
        //                 the built-in strategies, workloads and scenarios
        //   StressRunner  plan → matrix of trials → child processes → records,
        //                 and what reads records: the gate, paired comparison,
        //                 the report renderers
        //   StressKit     what a team imports: both of the above re-exported,
        //                 plus StressTest
        // What crosses a layer but is not for users is `package`, not `public`.
        .target(
            name: "StressCore",
            dependencies: [
                "CStressSupport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer", condition: .when(platforms: [.linux])),
            ]
        ),
        .target(
            name: "StressRunner",
            dependencies: [
                "StressCore",
                "CStressSupport",
                "InterposerPayload",
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .target(
            name: "StressKit",
            dependencies: ["StressCore", "StressRunner", "CStressSupport", .product(name: "Yams", package: "Yams")]
        ),
        // Links XCTest and Swift Testing (both ship with the toolchain); only
        // test targets depend on it, so `stressbench` itself links neither.
        .target(name: "StressKitTesting", dependencies: ["StressKit"]),
        .target(
            name: "StressBenchCLI",
            dependencies: [
                "StressKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The harness's own benchmarks (`stressbench-dev baseline`, `overhead`,
        // `primitives`): hand-written loops timed beside the harness, which
        // scripts/bench-*.sh run. A development tool, not a product.
        .executableTarget(
            name: "stressbench-dev",
            dependencies: [
                "StressKit",
                "StressCore",  // the linearizability checker, which is `package`, not re-exported API
                "CStressSupport",  // the dispatch_*_f shims and the CPU pinning of the hand loops
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/stressbench-dev"
        ),
        .executableTarget(name: "stressbench", dependencies: ["StressBenchCLI", "OwnCodeExample", "AsyncExample", "CStressbenchDefaults"]),
        // ThreadSanitizer's defaults for the stressbench process itself, in a
        // TSan build (docs/data-races.md); linked into no library.
        .target(name: "CStressbenchDefaults"),
        // "Testing your own code" (docs/own-code.md): a thread-safe class written
        // the ordinary way, and the workload that tests it; `stressbench` registers it.
        .target(name: "OwnCodeExample", dependencies: ["StressKit"], path: "Examples/OwnCode"),
        .target(name: "AsyncExample", dependencies: ["StressKit"], path: "Examples/Async"),
        // The README's example of a team's own stressbench: the command line with
        // a custom workload registered. Not a product; the tests build and run it.
        .executableTarget(
            name: "custom-stressbench",
            dependencies: ["StressBenchCLI", "StressKit"],
            path: "Examples/CustomStressBench",
            exclude: ["seats.yaml"]
        ),
        // The builds `stressbench ab` is calibrated with (scripts/ab-calibration.sh):
        // `stressbench` with the hidden `_ab-work` workload, whose operation does
        // 0 (base), 1 or 2 (plusN) more arithmetic steps. Not products.
        .target(name: "ABCalibrationWork", dependencies: ["StressKit"], path: "Examples/ABCalibration/Work"),
        .executableTarget(name: "ab-calibration-base", dependencies: ["ABCalibrationWork", "StressBenchCLI"], path: "Examples/ABCalibration/Base"),
        .executableTarget(name: "ab-calibration-plus1", dependencies: ["ABCalibrationWork", "StressBenchCLI"], path: "Examples/ABCalibration/Plus1"),
        .executableTarget(name: "ab-calibration-plus2", dependencies: ["ABCalibrationWork", "StressBenchCLI"], path: "Examples/ABCalibration/Plus2"),
        // The workloads and scenarios that break on purpose (`_fault`,
        // `_hang-in-round`, `_stuck-in-round`), for the harness's own tests of
        // crashes, hangs and stalls. Registered only by the tests: in process,
        // and in `stressbench-fixtures`, which is `stressbench` with them
        // added, the binary the tests run wherever a plan names one (also as
        // the trial child process). Neither is a product.
        .target(name: "StressKitFixtures", dependencies: ["StressKit", "CStressSupport"], path: "Tests/Fixtures/StressKitFixtures"),
        .executableTarget(
            name: "stressbench-fixtures",
            dependencies: ["StressBenchCLI", "StressKit", "StressKitFixtures", "OwnCodeExample", "AsyncExample"],
            path: "Tests/Fixtures/stressbench-fixtures"
        ),
        // The tests, in three targets as swift-argument-parser splits its own;
        // `swift test` runs them all (on Linux they link into one test binary).
        // What the three share: the built binaries' paths, plans run in process
        // or through `stressbench`, made-up result records, the docs as the tests
        // read them. A plain target, so it links no executable.
        .target(
            name: "StressKitTestSupport",
            dependencies: ["StressKit", "StressKitTesting", "StressKitFixtures"],
            path: "Tests/StressKitTestSupport"
        ),
        // Pure logic, no trial run and no process started: plans, quantities,
        // thresholds, statistics, the matrix, reports of made-up records, the
        // watchdog's rules, the docs held to the code. About half a minute.
        .testTarget(
            name: "StressKitUnitTests",
            dependencies: ["StressKit", "StressBenchCLI", "StressKitFixtures", "StressKitTestSupport", "OwnCodeExample", "AsyncExample",
                           .product(name: "Histogram", package: "hdrhistogram-swift")]
        ),
        // Trials run in this process: workloads, strategies, loops, fuzzing,
        // measurement, the records a real run writes; and `StressTest` as a
        // team's tests call it, whose isolated trials run this test binary
        // again (no executable of the package needed).
        .testTarget(
            name: "StressKitEngineTests",
            dependencies: ["StressKit", "StressKitTesting", "StressKitTestSupport"],
            exclude: ["page-views.yaml"]
        ),
        // Processes: the `stressbench` command line and its exit codes, trials in
        // child processes (crashes, hangs, stalls, signals), the examples'
        // executables. The only test target that needs the executables built.
        .testTarget(
            name: "StressKitEndToEndTests",
            dependencies: ["StressKit", "StressBenchCLI", "InterposerPayload", "StressKitFixtures", "StressKitTestSupport",
                           "stressbench", "stressbench-fixtures", "stressbench-dev", "custom-stressbench",
                           "ab-calibration-base", "ab-calibration-plus1"],
            exclude: ["HostilePlans"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
