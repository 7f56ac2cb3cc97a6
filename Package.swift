// swift-tools-version: 6.1
import PackageDescription

// Layers depend one way: C system libraries → LocusCore (values, no C) →
// LocusEngine (owns every C handle) → LocusProtocol → LocusServer, LocusBatch → the `locus`
// executable. Beside the engine, with no C library: LocusWire (the protocol's JSON, replies and
// error codes, on LocusCore) → LocusClient (on SwiftNIO); LocusProtocol and the server build on
// them, and a program that only talks to a server needs nothing else.
// Development tools sit beside the product, never under it: LocusEvaluation (synthetic
// evaluations, the GEOS reference layer), LocusTesting and the `locus-bench` executable are
// linked by the tests, the benchmarks and the fuzzers, not by `locus` or the LocusEngine library.
let package = Package(
    name: "Locus",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "locus", targets: ["locus"]),
        .library(name: "LocusEngine", targets: ["LocusEngine"]),
        .executable(name: "locus-bench", targets: ["locus-bench"]),
        // For the fuzz targets and the micro-benchmarks (Fuzz/ and Benchmarks/, packages of their own).
        .library(name: "LocusCore", targets: ["LocusCore"]),
        .library(name: "LocusWire", targets: ["LocusWire"]),
        .library(name: "LocusClient", targets: ["LocusClient"]),
        .library(name: "LocusProtocol", targets: ["LocusProtocol"]),
        .library(name: "LocusServer", targets: ["LocusServer"]),
        .library(name: "LocusHTTP", targets: ["LocusHTTP"]),
        .library(name: "LocusBatch", targets: ["LocusBatch"]),
        .library(name: "LocusTesting", targets: ["LocusTesting"]),
        .library(name: "LocusEvaluation", targets: ["LocusEvaluation"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Only the trait that needs full Foundation: swift-configuration (the default's other
        // trait) would be built for nothing.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
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
        // Protocol v1 as both ends write and read it, with no C library: JSON values, the parser
        // and encoder, replies, error codes, listen addresses.
        .target(name: "LocusWire", dependencies: ["LocusCore"]),
        // A client of a Locus server, and the line framing both ends use: SwiftNIO and the wire
        // types only, so a program that only talks to a server links no C library.
        .target(
            name: "LocusClient",
            dependencies: [
                "LocusCore", "LocusWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Protocol v1 against the engine: the table of operations (Operation), request lines
        // decoded into typed requests, run on a Locator, replies written.
        .target(name: "LocusProtocol", dependencies: ["LocusCore", "LocusEngine", "LocusWire"]),
        // The server (TCP and Unix sockets, SwiftNIO).
        .target(
            name: "LocusServer",
            dependencies: [
                "LocusCore", "LocusEngine", "LocusWire", "LocusProtocol", "LocusClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The HTTP endpoints (Hummingbird): Esri, Pelias and Nominatim dialects as thin adapters
        // over the protocol's operations, and the operations endpoints (metrics, health).
        .target(
            name: "LocusHTTP",
            dependencies: [
                "LocusCore", "LocusEngine", "LocusWire", "LocusProtocol", "LocusServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Batch jobs over CSV files (enrich, assign), in process or against a server.
        .target(
            name: "LocusBatch",
            dependencies: [
                "LocusCore", "LocusEngine", "LocusWire", "LocusProtocol", "LocusClient",
                .product(name: "CSV", package: "CSV.swift"),
            ]
        ),
        // What the tests and the fuzz targets hold Locus to: the reference JSON comparison; and the
        // load generator that attacks a server (the tests and `locus-bench attack`).
        .target(
            name: "LocusTesting",
            dependencies: [
                "LocusCore", "LocusWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Synthetic evaluations (queries written from the index's own addresses) and the GEOS
        // reference layer that BoundaryLayer is tested and benchmarked against.
        .target(name: "LocusEvaluation", dependencies: ["LocusCore", "LocusEngine", "CGEOS"]),
        .executableTarget(
            name: "locus",
            dependencies: [
                "LocusCore", "LocusEngine", "LocusWire", "LocusProtocol", "LocusClient", "LocusServer", "LocusHTTP", "LocusBatch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The benchmarks behind BENCHMARKS.md: in process, against peers, the server and its start-up.
        .executableTarget(
            name: "locus-bench",
            dependencies: [
                "LocusCore", "LocusEngine", "LocusWire", "LocusProtocol", "LocusClient", "LocusServer", "LocusEvaluation", "LocusTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Fixtures live in Tests/Fixtures and are found from the test sources' path; the CLI tests
        // run the `locus` and `locus-bench` binaries built beside the test bundle.
        .testTarget(
            name: "LocusTests",
            dependencies: [
                "LocusCore", "LocusEngine", "LocusWire", "LocusProtocol", "LocusClient", "LocusServer", "LocusHTTP", "LocusBatch", "LocusTesting",
                "LocusEvaluation", "CSQLite",
                // Hummingbird, not HummingbirdTesting: that one links AsyncHTTPClient and with it
                // BoringSSL, minutes of every CI build; the routes are called directly instead.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The tests' own code unoptimised (Locus's modules stay -O): it is calls into them and
            // checks of their answers. Optimised, this module was a 122 s compile on one core at
            // the end of every `swift test -c release` build; unoptimised 76 s, and the suite ran
            // as fast (195.5 s, against 198.6 s and 235.8 s in two runs of the optimised build).
            swiftSettings: [.unsafeFlags(["-Onone"])]
        ),
        // What a program that only talks to a server builds on: these tests link no C library
        // (no LocusEngine), and run a `locus serve` built beside them.
        .testTarget(
            name: "LocusClientTests",
            dependencies: [
                "LocusCore", "LocusWire", "LocusClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
