import CLibFuzzer
import Foundation

/// libFuzzer with a Swift closure as the code under test.
///
/// SwiftPM gives every executable a `main`, so libFuzzer's own cannot be used; `run` hands the
/// process's arguments to libFuzzer's driver instead, and every libFuzzer flag works as usual.
public enum Fuzzer {
    nonisolated(unsafe) private static var body: (@MainActor (UnsafeRawBufferPointer) -> Void)?

    /// Runs libFuzzer on the main thread (without -fork or -jobs, everything it calls runs there),
    /// so `body` and the target's top-level state belong to the main actor.
    @MainActor
    public static func run(_ body: @escaping @MainActor (UnsafeRawBufferPointer) -> Void) -> Never {
        Self.body = body
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            MainActor.assumeIsolated {
                // libFuzzer passes a null pointer for the empty input.
                Fuzzer.body?(UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size))
            }
            return 0
        }
        exit(status)
    }

    /// A property of the code under test does not hold: stop, so libFuzzer saves the input.
    public static func fail(_ message: String, input: UnsafeRawBufferPointer? = nil) -> Never {
        var text = "locus-fuzz: FAILED: \(message)\n"
        if let input, input.count <= 2_048 {
            text += "locus-fuzz: input (\(input.count) bytes): \(String(decoding: input, as: UTF8.self).debugDescription)\n"
        }
        FileHandle.standardError.write(Data(text.utf8))
        // A trap, like any failed precondition: libFuzzer reports a deadly signal and writes
        // the crash-… artifact.
        fatalError(message)
    }

    /// Call first, before any setup. Swift's crash reporter handles SIGILL (every trap) before
    /// libFuzzer sees it, and then no crash artifact is written: the process starts again without
    /// it unless SWIFT_BACKTRACE is set. (`scripts/fuzz` sets it, and prints a backtrace of any
    /// artifact afterwards with the reporter on.)
    public static func begin() {
        guard ProcessInfo.processInfo.environment["SWIFT_BACKTRACE"] == nil else { return }
        setenv("SWIFT_BACKTRACE", "enable=no", 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Only reached when exec failed: fuzz on, with a worse report on a crash.
    }
}
