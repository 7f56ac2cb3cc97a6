// swift-tools-version: 6.0
import PackageDescription

// Layers depend one way: C system libraries → LocusCore (values, no C) →
// LocusEngine (owns every C handle) → LocusProtocol → the `locus` executable.
let package = Package(
    name: "Locus",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "locus", targets: ["locus"]),
        .library(name: "LocusEngine", targets: ["LocusEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CGDAL", pkgConfig: "gdal", providers: [.apt(["libgdal-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "LocusCore"),
        .target(
            name: "LocusEngine",
            dependencies: [
                "LocusCore", "CGEOS", "CPROJ", "CSQLite", "CGDAL", "CZlib",
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Protocol v1: request lines decoded and checked into typed requests, replies encoded.
        .target(name: "LocusProtocol", dependencies: ["LocusCore", "LocusEngine"]),
        .executableTarget(
            name: "locus",
            dependencies: [
                "LocusCore", "LocusEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Fixtures live in Tests/Fixtures and are found from the test sources' path; the CLI tests
        // run the `locus` binary built beside the test bundle.
        .testTarget(
            name: "LocusTests",
            dependencies: ["LocusCore", "LocusEngine", "LocusProtocol", "CSQLite"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
