import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Metrics

/// The server process's memory, open files and start time, read from /proc when scraped (Linux;
/// elsewhere there are none, rather than zeros a dashboard would believe).
///
/// Named `locus_process_…`, not the usual `process_…`: a server embedded in another program
/// reports its own families beside that program's.
final class ProcessMetrics: Sendable {
    private let residentMemory: Metrics.Gauge
    private let openFiles: Metrics.Gauge
    private let startTime: Metrics.Gauge

    init?(_ factory: any MetricsFactory) {
        #if os(Linux)
        guard FileManager.default.fileExists(atPath: "/proc/self/statm") else { return nil }
        residentMemory = Metrics.Gauge(label: "locus_process_resident_memory_bytes", factory: factory)
        openFiles = Metrics.Gauge(label: "locus_process_open_fds", factory: factory)
        startTime = Metrics.Gauge(label: "locus_process_start_time_seconds", factory: factory)
        #else
        return nil
        #endif
    }

    func refresh() {
        #if os(Linux)
        if let bytes = Self.residentBytes() { residentMemory.record(bytes) }
        // The listing's own descriptor is among those listed, as in Prometheus's Go client.
        if let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") { openFiles.record(fds.count) }
        if let start = Self.startTime { startTime.record(start) }
        #endif
    }

    #if os(Linux)
    /// The second field of /proc/self/statm: resident pages.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        let (bytes, overflow) = pages.multipliedReportingOverflow(by: sysconf(Int32(_SC_PAGESIZE)))
        return overflow ? nil : bytes
    }

    /// The process's start, Unix time: its start in clock ticks after boot (field 22 of
    /// /proc/self/stat) plus the boot time (`btime` of /proc/stat). It never changes: read once.
    static let startTime: Double? = {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let system = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        // The command name (field 2) is in parentheses and may hold spaces: count from after it.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Field 3 (the state) is the first after the name, so field 22 is the 20th.
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        guard let line = system.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
              let boot = Double(line.dropFirst("btime ".count)) else { return nil }
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard perSecond > 0 else { return nil }
        return boot + ticks / perSecond
    }()
    #endif
}
