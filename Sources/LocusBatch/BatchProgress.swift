import Foundation
import LocusCore

/// A one-line progress display on standard error: rows, rows per second, percent and time left.
/// Shown only when standard error is a terminal, so logs and pipes get the summary alone.
public final class BatchProgress: @unchecked Sendable {
    private let enabled: Bool
    private let started = ContinuousClock.now
    private var lastDrawn = ContinuousClock.now - .seconds(1)
    private var drewSomething = false

    public init(enabled: Bool = isatty(STDERR_FILENO) == 1) { self.enabled = enabled }

    public func update(rows: Int, fraction: Double, force: Bool = false) {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard force || now - lastDrawn >= .milliseconds(200) else { return }
        lastDrawn = now
        let seconds = (now - started).inSeconds
        let rate = seconds > 0 ? Double(rows) / seconds : 0
        var line = "\r\u{1B}[K  \(Self.grouped(rows)) rows  \(Self.grouped(Int(rate))) rows/s"
        if fraction > 0.001 {
            let width = 24
            let filled = Int(Double(width) * fraction)
            let left = seconds * (1 - fraction) / fraction
            line += "  [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
            line += String(format: " %3.0f%%  ETA %@", fraction * 100, Self.clock(left))
        }
        FileHandle.standardError.write(Data(line.utf8))
        drewSomething = true
    }

    public func finish() {
        guard enabled, drewSomething else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    static func clock(_ s: Double) -> String {
        guard s.isFinite else { return "--:--" }
        let t = Int(s.rounded())
        return t >= 3600 ? String(format: "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60) : String(format: "%d:%02d", t / 60, t % 60)
    }

    public static func grouped(_ n: Int) -> String {
        let s = String(n)
        var out = ""
        for (i, c) in s.enumerated() {
            if i > 0, (s.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}
