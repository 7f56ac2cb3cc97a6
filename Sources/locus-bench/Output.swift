import Foundation

/// Results on standard output, progress on standard error, as `locus` writes them.
enum Output {
    static func line(_ s: String = "") {
        FileHandle.standardOutput.write(Data((s + "\n").utf8))
    }

    static func note(_ s: String) {
        FileHandle.standardError.write(Data((s + "\n").utf8))
    }

    /// This executable, symbolic links resolved: `locus` is built beside it.
    static var executable: URL { URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath() }
}
