// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "VitalSim",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "vitalsim", targets: ["vitalsim"]),
        .library(name: "VitalSimCore", targets: ["VitalSimCore"]),
        .library(name: "GATT", targets: ["GATT"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
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
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        .target(name: "VitalSimCore", dependencies: [.product(name: "Yams", package: "Yams")], swiftSettings: strict),
        .target(name: "Physiology", dependencies: ["VitalSimCore"], swiftSettings: strict),
        .target(name: "Devices", dependencies: ["VitalSimCore", "Physiology"], swiftSettings: strict),
        .target(name: "GATT", dependencies: ["VitalSimCore"], swiftSettings: strict),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .target(name: "BLE", dependencies: ["GATT", "CBluetooth"], swiftSettings: strict),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "Wire", dependencies: ["VitalSimCore", "CMosquitto", "CCurl"], swiftSettings: strict),
        .target(
            name: "ReferenceSUT",
            dependencies: [
                "VitalSimCore", "GATT", "BLE", "Wire", .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "X509", package: "swift-certificates"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"), .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"), .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("default-rules.yaml")],
            swiftSettings: strict
        ),
        .target(
            name: "Harness",
            dependencies: [
                "VitalSimCore", "Physiology", "Devices", "GATT", "BLE", "Wire", .product(name: "Yams", package: "Yams"),
                .product(name: "Histogram", package: "hdrhistogram-swift"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "vitalsim",
            dependencies: [
                "VitalSimCore", "Physiology", "Devices", "GATT", "BLE", "Wire", "Harness", "ReferenceSUT",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VitalSimTests",
            dependencies: ["VitalSimCore", "Physiology", "Devices", "GATT", "BLE", "Wire", "Harness", "ReferenceSUT", .product(name: "Yams", package: "Yams"),
                           .product(name: "Histogram", package: "hdrhistogram-swift")],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
