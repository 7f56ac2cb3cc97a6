import ArgumentParser
import Foundation
import LocusClient
import LocusCore
import LocusWire

/// How `locus` ends: one map from every error to a status and a stable code, for every command,
/// whether the answer came from the index in process or from a server. README's "Exit status"
/// lists it and `ExitStatusTests` runs each case. The numbers past 63 are sysexits.h's, which
/// scripts and supervisors already know.
enum ExitStatus: Int32, CaseIterable {
    case answered = 0
    /// A batch job finished, with rows that failed (they are in its output, with their reasons).
    case rowsFailed = 2
    /// The query was understood and found nothing.
    case nothingFound = 3
    /// Bad arguments: an option, a value out of range, a request the server refused as invalid.
    case usage = 64
    /// The index or its source data cannot be used: missing, corrupt, another schema.
    case unusableData = 65
    /// An input file (CSV, ground truth, synonyms) is missing or unreadable.
    case noInput = 66
    /// No server answers at the address given.
    case unavailable = 69
    /// A fault inside Locus.
    case internalError = 70
    /// The output file cannot be written.
    case cannotWrite = 73
    /// The server is busy: the request timed out, was refused as overload, or was cancelled.
    case busy = 75
    /// The server refused the token.
    case refused = 77
    /// A batch job stopped by Ctrl-C or SIGTERM; `--resume` goes on from where it stopped.
    case interrupted = 130
}

/// An error the command line itself finds (a file that is not there), with its status and code.
struct CommandError: Error {
    var status: ExitStatus
    var code: String
    var message: String

    /// An input file that is not there, or not readable: exit 66, before any work starts.
    static func requireInput(_ path: String, _ what: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandError(status: .noInput, code: "no_input", message: "no such file: \(path) (\(what))")
        }
        guard !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: path) else {
            throw CommandError(status: .noInput, code: "no_input", message: "cannot read \(path) (\(what))")
        }
    }
}

/// What the user is told for `error`: a stable code, a message, and the exit status.
func describeFailure(_ error: any Error) -> (code: String, message: String, status: ExitStatus) {
    switch error {
    case let e as CommandError:
        return (e.code, e.message, e.status)
    case let e as LocusError:
        let status: ExitStatus
        switch e.code {
        case .notFound: status = .nothingFound
        case .invalidArgument, .tooLarge: status = .usage
        case .invalidIndex, .importFailed: status = .unusableData
        default: status = .internalError
        }
        return (e.code.description, e.message, status)
    case let e as WireError:
        let status: ExitStatus
        switch e.code {
        case .notFound: status = .nothingFound
        case .invalidArgument, .invalidJSON, .invalidRequest, .unknownOp, .tooLarge: status = .usage
        case .unauthorized: status = .refused
        case .timeout, .overloaded, .cancelled: status = .busy
        default: status = .internalError
        }
        return (e.code.rawValue, e.message, status)
    case let e as LocusClientError:
        return ("unavailable", e.description, .unavailable)
    default:
        return ("internal", "unexpected error: \(error)", .internalError)
    }
}

/// Prints `error` the way every command does (`locus: message` on standard error, or with
/// `--json` one `{"error":{"code","message"}}` line on standard output) and picks the status.
func fail(_ error: any Error, json: Bool) -> ExitCode {
    let (code, message, status) = describeFailure(error)
    if json {
        Output.json(["error": ["code": code, "message": message]])
    } else {
        Output.note("locus: \(message)")
    }
    return ExitCode(status.rawValue)
}
