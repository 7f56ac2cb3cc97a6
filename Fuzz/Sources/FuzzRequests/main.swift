// Target (a): request lines through the path the server answers them by — line framing
// (`RequestLineDecoder`), `ConnectionHandler`, `RequestDecoder`, the engine on the fixture index,
// `ReplyEncoder` — checked for what PROTOCOL.md promises of every line, however hostile:
//
// - exactly one reply per line, each one JSON object on one line with `id`, `ok`, `elapsed` and a
//   result or a coded error; the id echoed as sent;
// - no trap; each line answered within the per-request bound (RequestBound);
// - the same replies when the lines come one per read or all in one read;
// - the JSON parser accepts exactly what Foundation's JSONSerialization accepts, with the same
//   values, but for the differences JSONReferenceTests documents.
//
// The server runs without tokens: `reload` is then refused, so no input makes it load a file.

import Foundation
import FuzzSupport
import LocusClient
import LocusCore
import LocusEngine
import LocusProtocol
import LocusServer
import LocusTesting
import LocusWire
import Logging
import NIOCore
import NIOEmbedded

Fuzzer.begin()

let lineLimit = 1_024
let index = FuzzIndexes.open(FuzzIndexes.fixturePath)
var configuration = ServerConfiguration()
// Smaller than the default 64 KiB so that inputs libFuzzer can reach cross it.
configuration.maximumLineBytes = lineLimit
let serving = ServingIndex(index: index)
let server = ServerContext(configuration: configuration, index: serving, stats: ServerStats(metrics: ServerMetrics(index: serving)),
                           logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }))
let decoder = RequestDecoder(limits: { var l = RequestLimits(); l.maximumLineBytes = lineLimit; return l }())
let bound = RequestBound()
let codes = Set(WireErrorCode.allCases.map(\.rawValue))

/// What the framing makes of the bytes: lines without their terminators, up to and including the
/// first one over the limit (after which the connection closes).
enum Framed: Equatable {
    case line(ArraySlice<UInt8>, chunk: ArraySlice<UInt8>)
    case tooLong(chunk: ArraySlice<UInt8>)
}

@MainActor func frame(_ bytes: [UInt8]) -> [Framed] {
    var out: [Framed] = []
    var start = 0
    while let nl = bytes[start...].firstIndex(of: 0x0A) {
        var end = nl
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        let chunk = bytes[start...nl]
        guard end - start <= lineLimit else { out.append(.tooLong(chunk: chunk)); return out }
        out.append(.line(bytes[start..<end], chunk: chunk))
        start = nl + 1
    }
    let rest = bytes[start...]
    // The decoder gives up on a line without a newline once it is past the limit and a `\r`.
    if rest.count > lineLimit + 1 { out.append(.tooLong(chunk: rest)); return out }
    var end = bytes.count
    if end > start, bytes[end - 1] == 0x0D { end -= 1 }
    if end > start { out.append(.line(bytes[start..<end], chunk: rest)) }
    return out
}

@MainActor func makeChannel() -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    do {
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RequestLineDecoder(maximumLineBytes: lineLimit)))
        try channel.pipeline.syncOperations.addHandler(ConnectionHandler(server: server, allocator: channel.allocator))
        try channel.connect(to: .init(ipAddress: "127.0.0.1", port: 1)).wait()
    } catch {
        Fuzzer.fail("cannot set up the channel: \(error)")
    }
    return channel
}

@MainActor func send(_ channel: EmbeddedChannel, _ bytes: some Collection<UInt8>) {
    guard channel.isActive else { return }
    do {
        try channel.writeInbound(ByteBuffer(bytes: bytes))
    } catch {
        Fuzzer.fail("the pipeline threw \(error)")
    }
    channel.embeddedEventLoop.run()
}

@MainActor func endInput(_ channel: EmbeddedChannel) {
    guard channel.isActive else { return }
    channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    channel.embeddedEventLoop.run()
}

/// Every byte written to the client since the last call.
@MainActor func written(_ channel: EmbeddedChannel) -> [UInt8] {
    var out: [UInt8] = []
    while let b = try? channel.readOutbound(as: ByteBuffer.self) { out += b.readableBytesView }
    return out
}

/// The reply lines in `bytes`, each checked to be a reply object; fails on anything else.
@MainActor func replies(_ bytes: [UInt8], input: UnsafeRawBufferPointer) -> [[String: Any]] {
    guard !bytes.isEmpty else { return [] }
    guard bytes.last == 0x0A else { Fuzzer.fail("the replies do not end with a newline", input: input) }
    return bytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
        let text = String(decoding: line, as: UTF8.self)
        guard let any = try? JSONSerialization.jsonObject(with: Data(line)), let reply = any as? [String: Any] else {
            Fuzzer.fail("a reply is not one JSON object: \(text)", input: input)
        }
        guard reply.keys.contains("id"), reply["ok"] is Bool, let elapsed = reply["elapsed"] as? Double, elapsed >= 0 else {
            Fuzzer.fail("a reply lacks id, ok or elapsed: \(text)", input: input)
        }
        if reply["ok"] as? Bool == true {
            guard reply["result"] != nil, reply["error"] == nil else { Fuzzer.fail("a success without a result: \(text)", input: input) }
        } else {
            guard let error = reply["error"] as? [String: Any], let code = error["code"] as? String, codes.contains(code),
                  error["message"] is String, reply["result"] == nil else {
                Fuzzer.fail("a failure without a coded error: \(text)", input: input)
            }
        }
        return reply
    }
}

/// An id as a reply carries it: a string, a number, or null (no id, or a number beyond Double's
/// range, which has no JSON form). Strings without U+FEFF, which Foundation drops from the start of
/// a string (see JSONReference).
enum ReplyID {
    case string([UInt8])
    case number(Double)
    case null

    init(_ id: RequestID?) {
        switch id {
        case .string(let s)?: self = .string(Self.bytes(s))
        case .number(let d)? where d.isFinite: self = .number(d)
        // A whole-number id is read as the integer it is (the reply echoes its digits).
        case .integer(let i)?: self = .number(Double(i))
        default: self = .null
        }
    }

    /// As Foundation read it from the reply.
    init(reply: [String: Any]) {
        switch reply["id"] {
        case let s as String: self = .string(Self.bytes(s))
        case let n as NSNumber: self = .number(n.doubleValue)
        default: self = .null
        }
    }

    static func bytes(_ s: String) -> [UInt8] { Array(String(String.UnicodeScalarView(s.unicodeScalars.filter { $0 != "\u{FEFF}" })).utf8) }

    /// Numbers by value, within what Foundation's Decimal (for long numbers) loses going to Double.
    static func same(_ a: [ReplyID], _ b: [ReplyID]) -> Bool {
        func parts(_ ids: [ReplyID]) -> (strings: [[UInt8]], numbers: [Double], nulls: Int) {
            var strings: [[UInt8]] = [], numbers: [Double] = [], nulls = 0
            for id in ids {
                switch id {
                case .string(let s): strings.append(s)
                case .number(let d): numbers.append(d)
                case .null: nulls += 1
                }
            }
            return (strings.sorted { $0.lexicographicallyPrecedes($1) }, numbers.sorted(), nulls)
        }
        let (x, y) = (parts(a), parts(b))
        return x.nulls == y.nulls && x.strings == y.strings && x.numbers.count == y.numbers.count
            && zip(x.numbers, y.numbers).allSatisfy { abs($0 - $1) <= abs($0) * 1e-12 }
    }
}

@MainActor func decodedID(_ line: ArraySlice<UInt8>) -> RequestID? {
    switch decoder.decode(line) {
    case .success(let (id, _)): id
    case .failure(let f): f.id
    }
}

Fuzzer.run { input in
    let bytes = [UInt8](input)
    let lines = frame(bytes)

    // One line per read: each answered at once by exactly one reply, within the bound.
    let single = makeChannel()
    for (i, line) in lines.enumerated() {
        let chunk: ArraySlice<UInt8>
        switch line {
        case .line(_, let c), .tooLong(let c): chunk = c
        }
        let unterminated = chunk.last != 0x0A
        let time = RequestBound.measure {
            send(single, chunk)
            if unterminated { endInput(single) }
        }
        let got = replies(written(single), input: input)
        guard got.count == 1 else {
            Fuzzer.fail("line \(i + 1) got \(got.count) replies, not one", input: input)
        }
        switch line {
        case .line(let text, _):
            guard ReplyID.same([ReplyID(reply: got[0])], [ReplyID(decodedID(text))]) else {
                Fuzzer.fail("line \(i + 1): the reply's id \(got[0]["id"] ?? "none") is not the request's", input: input)
            }
            // Timed again on the same connection: as a whole line, so that nothing is left
            // buffered for the lines after it.
            let again = unterminated ? Array(chunk) + [0x0A] : Array(chunk)
            bound.check("line \(i + 1)", first: time, input: input) {
                send(single, again)
                _ = written(single)
            }
        case .tooLong:
            guard (got[0]["error"] as? [String: Any])?["code"] as? String == "too_large" else {
                Fuzzer.fail("a line over the limit is not answered too_large", input: input)
            }
            single.embeddedEventLoop.run()
            guard !single.isActive else { Fuzzer.fail("the connection stays open after a line over the limit", input: input) }
        }
    }
    endInput(single)
    guard written(single).isEmpty else { Fuzzer.fail("replies after the last line", input: input) }
    _ = try? single.finish()

    // All in one read: the same number of replies, the same ids (in any order: ping and the
    // like overtake queued requests).
    let batch = makeChannel()
    send(batch, bytes)
    endInput(batch)
    let all = replies(written(batch), input: input)
    guard all.count == lines.count else {
        Fuzzer.fail("\(lines.count) lines in one read got \(all.count) replies", input: input)
    }
    let expected = lines.map { line -> ReplyID in
        if case .line(let text, _) = line { return ReplyID(decodedID(text)) }
        return .null
    }
    guard ReplyID.same(all.map { ReplyID(reply: $0) }, expected) else {
        Fuzzer.fail("the replies' ids \(all.map { $0["id"] ?? "none" }) are not the requests' \(expected)", input: input)
    }
    _ = try? batch.finish()

    // The parser against Foundation's, line by line.
    for line in lines {
        if case .line(let text, _) = line { JSONReference.compare(Array(text), input: input) }
    }
}
