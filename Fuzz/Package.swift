// swift-tools-version: 6.0
import Foundation
import PackageDescription

// libFuzzer targets for Locus. A package of its own, not targets of the main one: they are built
// only with `-sanitize=fuzzer` (which supplies libFuzzer's entry point) and would not link in a
// plain `swift build`. `scripts/fuzz` builds and runs them; see README's "Fuzzing".
//
// The main package is a path dependency; SwiftPM names a path dependency after its folder, which
// is whatever the checkout was cloned as.
let locus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "LocusFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Declares LLVMFuzzerRunDriver, libFuzzer's entry for a program with a main of its own.
        .target(name: "CLibFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer",
                .product(name: "LocusCore", package: locus),
                .product(name: "LocusEngine", package: locus),
                .product(name: "LocusProtocol", package: locus),
                .product(name: "LocusTesting", package: locus),
            ]
        ),
        .executableTarget(
            name: "FuzzRequests",
            dependencies: [
                "FuzzSupport",
                .product(name: "LocusCore", package: locus),
                .product(name: "LocusEngine", package: locus),
                .product(name: "LocusWire", package: locus),
                .product(name: "LocusClient", package: locus),
                .product(name: "LocusProtocol", package: locus),
                .product(name: "LocusServer", package: locus),
                .product(name: "LocusTesting", package: locus),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "FuzzGeocoder",
            dependencies: [
                "FuzzSupport",
                .product(name: "LocusCore", package: locus),
                .product(name: "LocusEngine", package: locus),
            ]
        ),
        .executableTarget(
            name: "FuzzCSV",
            dependencies: [
                "FuzzSupport",
                .product(name: "LocusCore", package: locus),
                .product(name: "LocusEngine", package: locus),
                .product(name: "LocusBatch", package: locus),
            ]
        ),
        .executableTarget(
            name: "FuzzIndex",
            dependencies: [
                "FuzzSupport",
                .product(name: "LocusCore", package: locus),
                .product(name: "LocusEngine", package: locus),
                .product(name: "LocusProtocol", package: locus),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
