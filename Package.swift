// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let yams: Target.Dependency = .product(name: "Yams", package: "Yams")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let histogram: Target.Dependency = .product(name: "Histogram", package: "hdrhistogram-swift")
let mustache: Target.Dependency = .product(name: "Mustache", package: "swift-mustache")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let lifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let clocks: Target.Dependency = .product(name: "Clocks", package: "swift-clocks")
let traceContext: Target.Dependency = .product(name: "W3CTraceContext", package: "swift-w3c-trace-context")

/// A library module of the data-flow map (docs/architecture.md, "Modules"), with the modules it
/// may import. `ci/module-map.py` checks the map's rules: at most six levels deep, the harness
/// never importing the reference SUT, transports knowing no payloads, a test target per module.
func module(
    _ name: String,
    _ dependencies: [Target.Dependency] = [],
    resources: [Resource]? = nil
) -> Target {
    .target(name: name, dependencies: dependencies, resources: resources, swiftSettings: strict)
}

/// The in-process tests of one module (no processes, no sockets but loopback in-process servers).
func tests(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: dependencies, swiftSettings: strict)
}

let package = Package(
    name: "VitalSim",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "vitalsim", targets: ["vitalsim"]),
        .executable(name: "vitalsim-fuzz", targets: ["vitalsim-fuzz"]),
        .library(name: "VitalSimCore", targets: ["VitalSimCore"]),
        .library(name: "Bluetooth", targets: ["Bluetooth", "BluetoothHost"]),
        .library(name: "ReferenceSUT", targets: ["ReferenceSUT", "ReferenceEngine"]),
    ],
    // OTLP: `vitalsim run/serve --otlp-endpoint` export spans and metrics through swift-otel. Off by
    // default (swift-otel, SwiftProtobuf and AsyncHTTPClient add minutes to a first build); build
    // with `--traits OTLP` to have it. ci/test.sh builds and tests with it.
    // Benchmarks: the hot-path benchmarks (Benchmarks/HotPaths) under ordo-one/benchmark, which
    // ci/bench-hot-paths.sh builds in release; without it the default build compiles none of it.
    traits: [
        .trait(name: "OTLP", description: "OpenTelemetry export over OTLP/HTTP (swift-otel)"),
        .trait(name: "Benchmarks", description: "The hot-path benchmarks under ordo-one/benchmark"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // OTLP export (the OTLP trait): only its HTTP exporter, not gRPC.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        // The hot-path benchmarks (the Benchmarks trait): allocation counts through its malloc
        // interposer, not its Swift 6.3 runtime interposer (ARC counts, which no threshold reads).
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // A lock-guarded value that ThreadSanitizer understands (used instead of Synchronization.Mutex).
        module("Locking"),
        // The words every module shares: basics (virtual time, seeded randomness, civil time, JSON values),
        // strict position-aware YAML reading, the scenario model and its loader, readings, symptoms, ECG.
        module("VitalSimCore", [yams]),
        // Offline generation: physiology → devices → readings; realism statistics of what was generated.
        module("Generation", ["VitalSimCore"]),
        // Bluetooth (pure): GATT value primitives and characteristics, ATT and HCI protocol constants,
        // the ATT server's PDU handling, btsnoop captures and the offline link recorder.
        module("Bluetooth", ["VitalSimCore"]),
        // The Bluetooth host: HCI transports (H4 over TCP, the HCI user channel through libbluetooth),
        // the link, the peripheral and central roles. Only the live side, the reference SUT and the
        // command line import it.
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        module("BluetoothHost", ["VitalSimCore", "Bluetooth", "CBluetooth"]),
        // Transports: libcurl (HTTP, SSE) and libmosquitto (MQTT) clients; bytes only, no payloads.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        module("Transports", ["Locking", "CMosquitto", "CCurl", crypto]),
        // Traffic: payload formats, recorded traces, and the plan of requests a scenario sends.
        module(
            "Traffic",
            [
                "VitalSimCore", "Generation", "Bluetooth", mustache, crypto, traceContext,
                .product(name: "SwiftCSV", package: "SwiftCSV"),
            ]
        ),
        // What a run observed (pure), the vocabulary below the judge: each request's outcome, the
        // alerts seen, each conformance area's observation, the SUT contract and conformance statement.
        module("RunRecord", ["VitalSimCore", "Traffic", histogram]),
        // Judging (pure): the oracle, stored-data checks, golden files, verdicts, reports, shards,
        // evidence bundles, and the shrinker's search.
        module(
            "Judge",
            [
                "VitalSimCore", "Traffic", "RunRecord", yams, histogram, crypto, mustache,
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Reports/HTML")]
        ),
        // The SUT adapter: profiles (pure), how the harness talks to a SUT, and `vitalsim doctor`.
        module("SUTAdapter", ["Locking", "VitalSimCore", "Transports", "Traffic", "RunRecord", yams, mustache]),
        // The live harness: the runner, suites and shards, alert observers, helper processes, peripherals.
        module(
            "LiveHarness",
            [
                "Locking", "VitalSimCore", "Bluetooth", "BluetoothHost", "Transports", "Traffic", "Judge", "RunRecord",
                "SUTAdapter", histogram, hummingbird, lifecycle, clocks, logging,
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // The requirements catalogue: what a backend is tested against, each check traced to it.
        module(
            "Requirements",
            ["VitalSimCore", "Bluetooth", "Traffic", "Judge", "RunRecord", yams, mustache, crypto],
            resources: [
                .copy("Catalogue/requirements.yaml"), .copy("Catalogue/requirements.md.mustache"),
                .copy("Coverage/coverage.html.mustache"),
            ]
        ),
        // Benchmarks behind `vitalsim bench` and `vitalsim bench-transport`.
        module(
            "Benchmarks",
            ["Locking", "VitalSimCore", "Bluetooth", "Transports", "Traffic", "Judge", "RunRecord", histogram]
        ),
        // The reference SUT's domain (pure): strict JSON, payload validation, observations, the alert engine.
        module(
            "ReferenceEngine",
            ["VitalSimCore", "Bluetooth", yams],
            resources: [.copy("Alerts/default-rules.yaml")]
        ),
        // The reference SUT as a service: HTTP(S) server, MQTT and BLE ingestion, storage, alert delivery.
        module(
            "ReferenceSUT",
            [
                "Locking", "VitalSimCore", "Bluetooth", "BluetoothHost", "Transports", "ReferenceEngine", yams,
                hummingbird, traceContext, .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "X509", package: "swift-certificates"),
                crypto,
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                lifecycle,
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                logging,
            ]
        ),
        // What libFuzzer feeds hostile bytes to (ci/fuzz.sh), and the fuzzing binary / corpus replayer.
        module("FuzzTargets", ["VitalSimCore", "Bluetooth", "Traffic", "Judge", "RunRecord", "ReferenceEngine"]),
        .executableTarget(name: "vitalsim-fuzz", dependencies: ["FuzzTargets"], swiftSettings: strict),
        // The hot paths under ordo-one/benchmark (`swift package benchmark`, which finds executables in
        // Benchmarks/); with the Benchmarks trait only.
        .executableTarget(
            name: "HotPaths",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark", condition: .when(traits: ["Benchmarks"])),
                "Benchmarks", "Judge", "RunRecord", "LiveHarness", "Locking", "Traffic", "Transports", "VitalSimCore",
            ],
            path: "Benchmarks/HotPaths",
            swiftSettings: strict
        ),
        // OpenTelemetry out: the OTLP/HTTP exporters of swift-otel behind the OTLP trait.
        module(
            "Telemetry",
            [
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLP"])),
                lifecycle, logging,
            ]
        ),
        // The command line: parsing, validation of flags, wiring; no logic of its own.
        .executableTarget(
            name: "vitalsim",
            dependencies: [
                "Locking", "VitalSimCore", "Generation", "Bluetooth", "BluetoothHost", "Transports", "Traffic", "Judge",
                "RunRecord",
                "SUTAdapter", "LiveHarness", "Benchmarks", "ReferenceEngine", "ReferenceSUT", "Requirements",
                "Telemetry",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                logging,
            ],
            swiftSettings: strict
        ),

        // Each module's tests, in-process.
        .target(name: "TestFixtures", path: "Tests/TestFixtures", swiftSettings: strict),
        tests("LockingTests", ["Locking"]),
        tests("VitalSimCoreTests", ["VitalSimCore", "TestFixtures"]),
        tests("GenerationTests", ["VitalSimCore", "Generation", "Traffic", "TestFixtures"]),
        tests("BluetoothTests", ["VitalSimCore", "Bluetooth"]),
        tests("BluetoothHostTests", ["VitalSimCore", "Bluetooth", "BluetoothHost"]),
        tests("TransportsTests", ["Locking", "Transports"]),
        tests("RunRecordTests", ["VitalSimCore", "Traffic", "RunRecord", histogram]),
        tests(
            "TrafficTests",
            ["VitalSimCore", "Generation", "Bluetooth", "Traffic", "Judge", "RunRecord", "TestFixtures"]
        ),
        tests(
            "JudgeTests",
            ["VitalSimCore", "Generation", "Traffic", "Judge", "RunRecord", histogram, "TestFixtures"]
        ),
        tests(
            "RequirementsTests",
            ["VitalSimCore", "Traffic", "Judge", "RunRecord", "ReferenceEngine", "Requirements", "TestFixtures"]
        ),
        tests(
            "SUTAdapterTests",
            ["VitalSimCore", "Transports", "Traffic", "Judge", "RunRecord", "SUTAdapter", histogram]
        ),
        tests(
            "LiveHarnessTests",
            [
                "Locking", "VitalSimCore", "Transports", "Traffic", "Judge", "RunRecord", "SUTAdapter", "LiveHarness",
                "InProcessSUT", "TestFixtures", clocks, histogram,
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        tests("TelemetryTests", ["Telemetry", logging]),
        tests("BenchmarksTests", ["VitalSimCore", "Traffic", "Judge", "RunRecord", "Benchmarks", "TestFixtures"]),
        tests(
            "ReferenceEngineTests",
            ["VitalSimCore", "Bluetooth", "Traffic", "Judge", "RunRecord", "ReferenceEngine", "TestFixtures"]
        ),
        // The reference SUT's routes in-process (Hummingbird's router test framework), for the tests
        // of the reference SUT and of the harness run against it.
        .target(
            name: "InProcessSUT",
            dependencies: [
                "VitalSimCore", "Transports", "ReferenceEngine", "ReferenceSUT", "TestFixtures",
                hummingbird,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                logging,
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/InProcessSUT",
            swiftSettings: strict
        ),
        tests(
            "ReferenceSUTTests",
            [
                "VitalSimCore", "ReferenceEngine", "ReferenceSUT", "TestFixtures", "InProcessSUT",
                hummingbird, lifecycle, "Locking",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                logging,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        tests("FuzzTargetsTests", ["FuzzTargets"]),
        // The command line's parsing and flag checks, in-process (`@testable import vitalsim`).
        tests(
            "CommandLineTests",
            [
                "vitalsim", "Judge", "RunRecord", "LiveHarness",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                yams,
            ]
        ),
        // Integration tests: the built `vitalsim`, the reference SUT, brokers, bumble, tshark, PostgreSQL.
        tests(
            "IntegrationTests",
            [
                "Locking", "VitalSimCore", "Bluetooth", "BluetoothHost", "Transports", "Traffic", "Judge", "RunRecord",
                "LiveHarness",
                "Benchmarks", "ReferenceEngine", "ReferenceSUT", "TestFixtures", yams,
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// `ci/tsan.sh` sets VITALSIM_TSAN_SCOPE: ThreadSanitizer watches the tests of the modules that start
/// tasks and threads. Those modules and the tests are compiled with the sanitizer, in the plain
/// build's folder; every other module (the dependencies and VitalSim's pure modules, which hold no
/// shared mutable state: docs/architecture.md, rule 5) keeps its plain objects, so the build
/// compiles only the concurrent code again. The build leaves out the command line, the fuzzer and
/// the pure modules' tests (the integration classes it runs start the plain build's `vitalsim`).
if Context.environment["VITALSIM_TSAN_SCOPE"] != nil {
    let outside: Set<String> = [
        "vitalsim", "vitalsim-fuzz", "HotPaths", "FuzzTargets", "FuzzTargetsTests", "CommandLineTests",
        "VitalSimCoreTests", "BluetoothTests", "RunRecordTests", "RequirementsTests",
        "GenerationTests", "Telemetry", "TelemetryTests",
        "TrafficTests", "JudgeTests", "BenchmarksTests", "ReferenceEngineTests",
    ]
    let concurrent: Set<String> = [
        "Locking", "Transports", "BluetoothHost", "SUTAdapter", "LiveHarness", "ReferenceSUT", "InProcessSUT",
    ]
    package.targets.removeAll { outside.contains($0.name) }
    package.products.removeAll { product in product.name.hasPrefix("vitalsim") }
    for target in package.targets where concurrent.contains(target.name) || target.type == .test {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=thread"])]
        if target.type == .test {
            target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=thread"])]
        }
    }
}
