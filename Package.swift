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
    ],
    targets: [
        .target(name: "VitalSimCore", dependencies: [.product(name: "Yams", package: "Yams")], swiftSettings: strict),
        .target(name: "Physiology", dependencies: ["VitalSimCore"], swiftSettings: strict),
        .target(name: "Devices", dependencies: ["VitalSimCore", "Physiology"], swiftSettings: strict),
        .target(name: "GATT", dependencies: ["VitalSimCore"], swiftSettings: strict),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .target(name: "BLE", dependencies: ["GATT", "CBluetooth"], swiftSettings: strict),
        .target(
            name: "ReferenceSUT",
            dependencies: ["VitalSimCore", "GATT", .product(name: "Yams", package: "Yams"), .product(name: "Hummingbird", package: "hummingbird")],
            resources: [.copy("default-rules.yaml")],
            swiftSettings: strict
        ),
        .target(name: "Harness", dependencies: ["VitalSimCore", "Physiology", "Devices", "GATT", "BLE"], swiftSettings: strict),
        .executableTarget(
            name: "vitalsim",
            dependencies: [
                "VitalSimCore", "Physiology", "Devices", "GATT", "BLE", "Harness", "ReferenceSUT",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VitalSimTests",
            dependencies: ["VitalSimCore", "Physiology", "Devices", "GATT", "BLE", "Harness", "ReferenceSUT"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
