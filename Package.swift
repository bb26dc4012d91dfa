// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let yams: Target.Dependency = .product(name: "Yams", package: "Yams")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let histogram: Target.Dependency = .product(name: "Histogram", package: "hdrhistogram-swift")
let mustache: Target.Dependency = .product(name: "Mustache", package: "swift-mustache")

let package = Package(
    name: "VitalSim",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "vitalsim", targets: ["vitalsim"]),
        .executable(name: "vitalsim-fuzz", targets: ["vitalsim-fuzz"]),
        .library(name: "VitalSimCore", targets: ["VitalSimCore", "VitalSimBasics", "StrictYAML"]),
        .library(name: "GATT", targets: ["GATT", "GATTPrimitives"]),
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
    ],
    targets: [
        // Strict, position-aware YAML reading: every problem with file, line, column and field
        // (scenarios, golden files, SUT profiles, alert rules and credentials all read through it).
        .target(name: "StrictYAML", dependencies: [yams], swiftSettings: strict),
        // The dependency-free basics: virtual durations, seeded randomness, civil time, JSON values, math.
        .target(name: "VitalSimBasics", swiftSettings: strict),
        // Words and data every module shares: scenarios, readings, symptoms, ECG recordings.
        // It re-exports VitalSimBasics and StrictYAML: a loader's errors (ScenarioIssue) are part of its API.
        .target(name: "VitalSimCore", dependencies: ["VitalSimBasics", "StrictYAML", yams], swiftSettings: strict),
        // Offline generation: physiology → devices → GATT payloads.
        .target(name: "Physiology", dependencies: ["VitalSimCore"], swiftSettings: strict),
        .target(name: "Devices", dependencies: ["VitalSimCore", "Physiology"], swiftSettings: strict),
        // Byte-level building blocks of GATT values: IEEE-11073 SFLOAT/FLOAT, the little-endian reader,
        // Date Time, the E2E-CRC and the decoding error.
        .target(name: "GATTPrimitives", dependencies: ["VitalSimCore"], swiftSettings: strict),
        // Bluetooth SIG characteristics (encode and decode) and the GATT database of each device type.
        .target(name: "GATT", dependencies: ["VitalSimCore", "GATTPrimitives"], swiftSettings: strict),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .target(name: "BLE", dependencies: ["VitalSimCore", "GATT", "CBluetooth"], swiftSettings: strict),
        // A lock-guarded value that ThreadSanitizer understands (used instead of Synchronization.Mutex).
        .target(name: "Locking", swiftSettings: strict),
        // Transports: libcurl (HTTP, SSE) and libmosquitto (MQTT) clients.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "Wire", dependencies: ["CMosquitto", "CCurl", "Locking"], swiftSettings: strict),
        // Payload formats: a reading as the bytes or JSON its device sends.
        .target(name: "Payloads", dependencies: ["VitalSimCore", "GATT", "GATTPrimitives", mustache], swiftSettings: strict),
        // Traffic planning: scenario → readings → requests, readings.jsonl and btsnoop captures.
        .target(
            name: "TrafficPlanning",
            dependencies: ["VitalSimCore", "Physiology", "Devices", "GATT", "BLE", "Payloads", crypto],
            swiftSettings: strict
        ),
        // Simulated devices as live BLE peripherals, with their record stores.
        .target(
            name: "Peripherals",
            dependencies: ["Locking", "VitalSimCore", "GATT", "GATTPrimitives", "BLE", "Payloads", "TrafficPlanning"],
            swiftSettings: strict
        ),
        // The alert oracle (pure): alerts derived from the readings and the clinical rules.
        .target(name: "Oracle", dependencies: ["VitalSimCore", "TrafficPlanning"], swiftSettings: strict),
        // Realism statistics of generated readings (`vitalsim stats`).
        .target(name: "Realism", dependencies: ["VitalSimCore"], swiftSettings: strict),
        // The judge (pure): golden files, verdicts, JUnit/JSON/HTML reports.
        .target(
            name: "Judge",
            dependencies: ["VitalSimCore", "Payloads", "TrafficPlanning", "Oracle", "StoredData", yams, histogram],
            swiftSettings: strict
        ),
        // Sharded runs (pure): a shard's result file, and the merge of every shard's into one verdict.
        .target(
            name: "Sharding",
            dependencies: ["VitalSimCore", "TrafficPlanning", "Judge", histogram],
            swiftSettings: strict
        ),
        // Stored data (pure): what a SUT must hold after a run, and when a stored reading is the one sent.
        .target(
            name: "StoredData",
            dependencies: ["VitalSimCore", "TrafficPlanning", "Oracle"],
            swiftSettings: strict
        ),
        // Live runs: the runner, alert observers, helper processes, evidence bundles.
        // SUT profiles (pure): how a team's own backend is reached, authenticated to and read.
        .target(
            name: "SUTProfile",
            dependencies: ["VitalSimCore", "Payloads", "TrafficPlanning", "Oracle", "Judge", "StoredData", yams, mustache],
            swiftSettings: strict
        ),
        // How the harness talks to a SUT: credentials per request (OAuth2 too), the alert list, run health.
        .target(
            name: "SUTClient",
            dependencies: ["Locking", "Wire", "Judge", "SUTProfile", "StoredData", "VitalSimCore", "TrafficPlanning"],
            swiftSettings: strict
        ),
        // `vitalsim doctor`: whether a SUT can be tested at all, before a run blames it.
        .target(
            name: "Diagnosis",
            dependencies: ["Locking", "VitalSimCore", "Wire", "TrafficPlanning", "Judge", "SUTProfile", "SUTClient", "StoredData"],
            swiftSettings: strict
        ),
        // Auditors' evidence bundles of live runs, and their replay.
        .target(
            name: "Evidence",
            dependencies: ["VitalSimCore", "TrafficPlanning", "Judge", "Traces", crypto],
            swiftSettings: strict
        ),
        // The helper processes a run starts: the embedded reference SUT, mosquitto (users, ACLs), bumble's controllers.
        .target(name: "RunHelpers", dependencies: ["Locking"], swiftSettings: strict),
        .target(
            name: "LiveRun",
            dependencies: [
                "Locking", "RunHelpers",
                "VitalSimCore", "BLE", "Wire", "Payloads", "TrafficPlanning", "Peripherals", "Oracle", "Judge", "SUTProfile", "SUTClient",
                "Evidence", "StoredData", "Traces", "Sharding",
                histogram,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // Devices whose readings come from recordings: VitalSim's JSONL, CSV, Dexcom Clarity, Apple Health, btsnoop.
        .target(
            name: "Traces",
            dependencies: ["VitalSimCore", "GATT", "GATTPrimitives", "BLE", .product(name: "SwiftCSV", package: "SwiftCSV")],
            swiftSettings: strict
        ),
        // `vitalsim shrink`: delta debugging over a scenario's parts for a failure's smallest scenario.
        .target(name: "Shrinking", dependencies: ["VitalSimCore", "Judge", yams], swiftSettings: strict),
        // Benchmarks behind `vitalsim bench` and `vitalsim bench-transport`.
        .target(
            name: "Benchmarks",
            dependencies: ["Locking", "VitalSimCore", "BLE", "Wire", "Payloads", "TrafficPlanning", "Judge", histogram],
            swiftSettings: strict
        ),
        // A strict JSON parser for hostile request bodies, and the 400 a bad body earns.
        .target(name: "StrictJSON", dependencies: ["VitalSimCore"], swiftSettings: strict),
        // The reference SUT's domain (pure): payload validation, observations, the alert engine and its rules.
        .target(
            name: "ReferenceEngine",
            dependencies: ["VitalSimCore", "StrictJSON", "GATT", "GATTPrimitives", yams],
            resources: [.copy("default-rules.yaml")],
            swiftSettings: strict
        ),
        // The reference SUT's durable storage: SQLite (GRDB) and PostgreSQL.
        .target(
            name: "ReferenceStorage",
            dependencies: [
                "VitalSimCore", "ReferenceEngine",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The reference SUT's service: HTTP(S) server, MQTT and BLE ingestion, storage, alert delivery.
        .target(
            name: "ReferenceSUT",
            dependencies: [
                "Locking",
                "VitalSimCore", "GATT", "GATTPrimitives", "BLE", "Wire", "ReferenceEngine", "ReferenceStorage", yams,
                .product(name: "Hummingbird", package: "hummingbird"),
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
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // What libFuzzer feeds hostile bytes to (ci/fuzz.sh), and the fuzzing binary / corpus replayer.
        .target(name: "FuzzTargets", dependencies: ["VitalSimCore", "GATT", "Judge", "ReferenceEngine", "Traces"], swiftSettings: strict),
        .executableTarget(name: "vitalsim-fuzz", dependencies: ["FuzzTargets"], swiftSettings: strict),
        .executableTarget(
            name: "vitalsim",
            dependencies: [
                "Locking",
                "VitalSimCore", "GATT", "GATTPrimitives", "BLE", "Wire", "TrafficPlanning", "Peripherals", "Oracle", "Realism", "Judge",
                "LiveRun", "RunHelpers", "Evidence", "Diagnosis", "Benchmarks", "ReferenceEngine", "ReferenceSUT", "SUTProfile",
                "SUTClient", "Shrinking", "Traces", "Sharding",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Unit tests: one target per module, no processes.
        .target(name: "TestFixtures", path: "Tests/TestFixtures", swiftSettings: strict),
        .testTarget(name: "VitalSimCoreTests", dependencies: ["VitalSimCore", "TestFixtures"], swiftSettings: strict),
        .testTarget(name: "GATTTests", dependencies: ["GATT", "GATTPrimitives", "VitalSimCore"], swiftSettings: strict),
        .testTarget(
            name: "TrafficPlanningTests",
            dependencies: [
                "VitalSimCore", "Physiology", "Devices", "GATT", "GATTPrimitives", "Payloads", "TrafficPlanning", "Realism", "Judge",
                "TestFixtures",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "OracleTests",
            dependencies: ["VitalSimCore", "Devices", "TrafficPlanning", "Oracle", "Judge", "Traces", "TestFixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "JudgeTests",
            dependencies: ["VitalSimCore", "Payloads", "TrafficPlanning", "Judge", "Oracle", "StoredData", "Sharding", histogram],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ReferenceEngineTests",
            dependencies: [
                "VitalSimCore", "GATT", "GATTPrimitives", "Payloads", "TrafficPlanning", "ReferenceEngine", "FuzzTargets", "TestFixtures",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SUTProfileTests",
            dependencies: ["SUTProfile", "TrafficPlanning", "Judge", "StoredData", "VitalSimCore", histogram],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TracesTests",
            dependencies: ["Traces", "VitalSimCore", "TrafficPlanning", "TestFixtures"],
            swiftSettings: strict
        ),
        .testTarget(name: "ShrinkingTests", dependencies: ["Shrinking", "Judge", "VitalSimCore", "TestFixtures"], swiftSettings: strict),
        .testTarget(
            name: "LiveRunTests",
            dependencies: ["Judge", "Locking", "LiveRun", "SUTClient", "SUTProfile", "Wire"],
            swiftSettings: strict
        ),
        // The ATT server PDU by PDU, without a controller.
        .testTarget(name: "BLETests", dependencies: ["BLE", "GATT", "VitalSimCore"], swiftSettings: strict),
        // The reference SUT's routes in-process, through Hummingbird's router test framework.
        .testTarget(
            name: "ReferenceSUTTests",
            dependencies: [
                "ReferenceSUT", "ReferenceEngine", "ReferenceStorage", "VitalSimCore", "TestFixtures",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Integration tests: the built `vitalsim`, the reference SUT, brokers, bumble, tshark, PostgreSQL.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "Locking",
                "VitalSimCore", "GATT", "GATTPrimitives", "BLE", "Wire", "TrafficPlanning", "Judge", "LiveRun", "RunHelpers", "Benchmarks",
                "ReferenceEngine",
                "ReferenceSUT", "TestFixtures", yams,
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
