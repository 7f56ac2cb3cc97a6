// swift-tools-version: 6.1
import Foundation
import PackageDescription

// Micro-benchmarks of Locus's hot paths with ordo-one/benchmark: throughput, allocations and
// p99 latency, compared with stored baselines. A package of its own, not targets of the main one,
// so that building Locus never builds the benchmark framework and its malloc interposer.
// `scripts/bench` and `locus-bench` measure the rest (peers, the server, start-up); see
// BENCHMARKS.md.
//
// The main package is a path dependency; SwiftPM names a path dependency after its folder, which
// is whatever the checkout was cloned as.
let locus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "LocusBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        // The allocation counts come from the malloc interposer; the runtime interposer (ARC
        // counts) is left out.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The plugin finds benchmark targets under Benchmarks/ (here Benchmarks/Benchmarks/).
        .executableTarget(
            name: "HotPaths",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LocusCore", package: locus),
                .product(name: "LocusEngine", package: locus),
                .product(name: "LocusProtocol", package: locus),
                .product(name: "LocusEvaluation", package: locus),
            ],
            path: "Benchmarks/HotPaths",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
