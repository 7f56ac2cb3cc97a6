import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire
import Testing

/// Protocol v1 in process: request line → reply line, on the Portland index.
@Suite(.serialized) struct ProtocolTests {
    let handler: RequestHandler

    init() throws { handler = RequestHandler(index: try TestSupport.fixture()) }

    func reply(_ line: String) throws -> [String: Any] {
        let bytes = handler.reply(to: Array(line.utf8))
        #expect(bytes.last == 0x0A, "a reply is one line")
        #expect(!bytes.dropLast().contains(0x0A))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    func errorCode(_ line: String) throws -> String? {
        let r = try reply(line)
        #expect(r["ok"] as? Bool == false)
        return (r["error"] as? [String: Any])?["code"] as? String
    }

    @Test func reverseWithLayersInOneRoundTrip() throws {
        let r = try reply(#"{"id":1,"op":"reverse","location":{"x":-122.65,"y":45.55},"max_distance":100,"layers":["areas"]}"#)
        #expect(r["id"] as? Int == 1)
        #expect(r["ok"] as? Bool == true)
        #expect(r["elapsed"] is Double)
        let result = try #require(r["result"] as? [String: Any])
        #expect(result["address"] as? String == "100 NE Alpha St, Portland, OR 97211")
        let features = try #require(result["features"] as? [[String: Any]])
        #expect(features.map { $0["name"] as? String } == ["Beta", "Alpha"])
        #expect((features.first?["attributes"] as? [String: Any])?["rank"] as? Int == 2)
    }

    @Test func reverseWithLayersFarFromAddressesStillNamesTheArea() throws {
        // Inside Gamma, kilometres from the addresses on NE Alpha St.
        let r = try reply(#"{"id":"t","op":"reverse","location":{"x":-122.49,"y":45.51},"layers":["areas"]}"#)
        let result = try #require(r["result"] as? [String: Any])
        #expect(result["address"] is NSNull)
        #expect((result["features"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Gamma"])
        #expect(try errorCode(#"{"id":"t","op":"reverse","location":{"x":-122.49,"y":45.51}}"#) == "not_found")
    }

    @Test func withinSuggestGeocodeInfoPing() throws {
        let w = try reply(#"{"id":2,"op":"within","location":{"x":-13649996,"y":5711707,"wkid":102100},"layer":"areas"}"#)
        #expect(((w["result"] as? [String: Any])?["features"] as? [[String: Any]])?.first?["name"] as? String == "Beta")
        let s = try reply(#"{"id":3,"op":"suggest","text":"100 ne al","max_results":5,"location":{"x":-122.63,"y":45.57}}"#)
        let suggestions = try #require((s["result"] as? [String: Any])?["suggestions"] as? [[String: Any]])
        #expect(suggestions.first?["text"] as? String == "100 NE Alpha St, Portland, OR 97211")
        let key = try #require(suggestions.first?["key"] as? String)
        let g = try reply(#"{"id":4,"op":"geocode","key":"\#(key)"}"#)
        let candidates = try #require((g["result"] as? [String: Any])?["candidates"] as? [[String: Any]])
        #expect(candidates.first?["address"] as? String == "100 NE Alpha St, Portland, OR 97211")
        let fields = try reply(#"{"id":5,"op":"geocode","address":{"number":100,"street":"NE Alpha St","postcode":"97211"},"out_wkid":102100}"#)
        let c = try #require(((fields["result"] as? [String: Any])?["candidates"] as? [[String: Any]])?.first)
        #expect((c["location"] as? [String: Any])?["wkid"] as? Int == 102100)
        let info = try reply(#"{"id":6,"op":"info"}"#)
        let operations = try #require((info["result"] as? [String: Any])?["operations"] as? [[String: Any]])
        #expect(Set(operations.compactMap { $0["name"] as? String }) == Operation.names)
        #expect(try reply(#"{"op":"ping"}"#)["id"] is NSNull)
    }

    @Test(arguments: [
        (#"not json"#, "invalid_json"),
        (#"[1,2]"#, "invalid_request"),
        (#"{"id":[1],"op":"ping"}"#, "invalid_request"),
        (#"{"id":1}"#, "invalid_request"),
        (#"{"id":1,"op":"fly"}"#, "unknown_op"),
        (#"{"id":1,"op":"reverse"}"#, "invalid_argument"),
        (#"{"id":1,"op":"reverse","location":{"x":"a","y":1}}"#, "invalid_argument"),
        (#"{"id":1,"op":"reverse","location":{"x":45.5,"y":-122.6}}"#, "invalid_argument"),
        (#"{"id":1,"op":"reverse","location":{"x":-122.6,"y":45.5},"max_distance":1e9}"#, "invalid_argument"),
        (#"{"id":1,"op":"reverse","location":{"x":-122.6,"y":45.5,"wkid":999999}}"#, "invalid_argument"),
        (#"{"id":1,"op":"within","location":{"x":-122.6,"y":45.5},"layer":"nope"}"#, "not_found"),
        (#"{"id":1,"op":"suggest","text":5}"#, "invalid_argument"),
        (#"{"id":1,"op":"geocode","text":"a","key":"b"}"#, "invalid_argument"),
        (#"{"id":1,"op":"geocode","key":"zzz"}"#, "not_found"),
        (#"{"id":1,"op":"geocode","key":"a999999999"}"#, "not_found"),
        (#"{"id":1,"op":"geocode","text":"a","max_results":0}"#, "invalid_argument"),
        (#"{"id":1,"op":"geocode","text":"a","explain":"yes"}"#, "invalid_argument"),
        // No positions on a map: a height (answered latitude in x, labelled 5703), Earth-centred XYZ.
        (#"{"id":1,"op":"reverse","location":{"x":45.57,"y":-122.63,"wkid":3855}}"#, "invalid_argument"),
        (#"{"id":1,"op":"reverse","location":{"x":45.57,"y":-122.63,"wkid":5703}}"#, "invalid_argument"),
        (#"{"id":1,"op":"within","location":{"x":-2500000,"y":-3800000,"wkid":4978}}"#, "invalid_argument"),
        (#"{"id":1e400,"op":"ping"}"#, "invalid_request"),
        // Whole numbers past 64 bits: read as doubles, they were echoed as another number.
        (#"{"id":18446744073709551615,"op":"ping"}"#, "invalid_request"),
        (#"{"id":-9223372036854775809,"op":"ping"}"#, "invalid_request"),
        (#"{"id":1e19,"op":"ping"}"#, "invalid_request"),
        // An id no request can have (was not_found, "no pending request with id null").
        (#"{"id":1,"op":"cancel","request":[1]}"#, "invalid_argument"),
    ])
    func badRequestsGetTheirCodes(_ line: String, _ code: String) throws {
        #expect(try errorCode(line) == code)
    }

    /// A key the operation does not take is refused, named with the one it likely stands for: it
    /// was passed over, so "maxResults" got 5 suggestions and "near" no bias, with no word of why
    /// (a measuring script of this project sent both).
    @Test(arguments: [
        (#"{"id":1,"op":"suggest","text":"100 ne al","maxResults":10}"#, #"suggest takes no argument "maxResults" (did you mean "max_results"?)"#),
        (#"{"id":1,"op":"suggest","text":"100 ne al","near":{"x":-122.63,"y":45.57}}"#, #"(did you mean "location"?)"#),
        (#"{"id":1,"op":"geocode","text":"100 ne alpha","outSR":102100}"#, #"(did you mean "out_wkid"?)"#),
        (#"{"id":1,"op":"geocode","text":"100 ne alpha","min_scor":90}"#, #"(did you mean "min_score"?)"#),
        (#"{"id":1,"op":"geocode","address":{"number":100,"street":"NE Alpha St","zip":"97211"}}"#, #"address takes no member "zip" (did you mean "postcode"?)"#),
        (#"{"id":1,"op":"reverse","location":{"x":-122.65,"y":45.55},"layer":["areas"]}"#, #"(did you mean "layers"?)"#),
        (#"{"id":1,"op":"reverse","location":{"x":-13651064,"y":5711325,"spatialReference":{"wkid":102100}}}"#, #"location takes no member "spatialReference" (did you mean "wkid"?)"#),
        (#"{"id":1,"op":"suggest","text":"a","extent":{"xmin":-123,"ymin":45,"xmax":-122,"ymax":46,"wkid":4326}}"#, #"extent takes no member "wkid""#),
        (#"{"id":1,"op":"ping","token":"t"}"#, #"ping takes no argument "token"; it takes none"#),
        // Two unknown keys: the same one named every time, whatever the dictionary's order.
        (#"{"id":1,"op":"within","location":{"x":-122.65,"y":45.55},"zz":1,"aa":2}"#, #"within takes no argument "aa"; it takes location, layer, nearest_within"#),
    ])
    func anArgumentTheOperationDoesNotTakeIsRefused(_ line: String, _ message: String) throws {
        let r = try reply(line)
        let error = try #require(r["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalid_argument")
        #expect((error["message"] as? String)?.contains(message) == true, "\(error["message"] ?? "")")
        #expect(r["id"] as? Int == 1)
    }

    /// Every argument an operation writes into a request line (`wireArguments`, what the CLI's
    /// `--server` and `LocusClient` send) is one it declares and one its syntax shows, so that no
    /// client of this project is refused its own requests.
    @Test func everyOperationDeclaresTheArgumentsItWritesAndShows() throws {
        func wire(_ line: String) throws -> [String: JSONValue] {
            guard case .success(let decoded) = RequestDecoder().decode(Array(line.utf8)) else { throw WireError(.internalError, "not decoded: \(line)") }
            return decoded.request.wireArguments
        }
        let written: [(LocusProtocol.Operation, [String: JSONValue])] = [
            (.geocode, try wire(#"{"op":"geocode","text":"a","location":{"x":-122.6,"y":45.5}}"#)),
            (.geocode, try wire(#"{"op":"geocode","address":{"number":"1","street":"a"}}"#)),
            (.suggest, try wire(#"{"op":"suggest","text":"a","location":{"x":-122.6,"y":45.5},"extent":{"xmin":-123,"ymin":45,"xmax":-122,"ymax":46}}"#)),
            (.reverse, try wire(#"{"op":"reverse","location":{"x":-122.6,"y":45.5},"out_wkid":3857,"layers":["areas"]}"#)),
            (.within, try wire(#"{"op":"within","location":{"x":-122.6,"y":45.5},"nearest_within":10}"#)),
            (.cancel, try wire(#"{"op":"cancel","request":1}"#)),
            (.auth, try wire(#"{"op":"auth","token":"t"}"#)),
            (.reload, try wire(#"{"op":"reload","path":"/x.locus"}"#)),
        ]
        for (operation, arguments) in written {
            #expect(Set(arguments.keys).isSubset(of: operation.arguments), "\(operation.name): \(arguments.keys.sorted())")
        }
        for operation in Operation.all {
            for argument in operation.arguments { #expect(operation.syntax.contains("\"\(argument)\""), "\(operation.name)'s syntax lacks \(argument)") }
        }
    }

    /// A whole-number id is echoed exactly: 9007199254740993 came back 9007199254740992.0 (the
    /// id of another request), and every id from 10^15 on as a float a strict decoder refuses.
    @Test(arguments: ["9007199254740993", "1000000000000000", "-9223372036854775808", "9223372036854775807", "0", "42"])
    func aWholeNumberIdIsEchoedAsSent(_ id: String) throws {
        let bytes = handler.reply(to: Array(#"{"id":\#(id),"op":"ping"}"#.utf8))
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix(#"{"id":\#(id),"ok":true"#))
    }

    /// Reverse and within in a system PROJ may take 100–300 ms to set up go to the worker threads,
    /// so that the event loop's other connections do not wait for it; 4326 and Web Mercator stay.
    @Test(arguments: [
        (#"{"op":"reverse","location":{"x":-122.63,"y":45.57}}"#, true),
        (#"{"op":"reverse","location":{"x":-13651000,"y":5711000,"wkid":102100},"out_wkid":3857}"#, true),
        (#"{"op":"reverse","location":{"x":7650000,"y":690000,"wkid":2913}}"#, false),
        (#"{"op":"reverse","location":{"x":-122.63,"y":45.57},"out_wkid":2913}"#, false),
        (#"{"op":"within","location":{"x":-122.63,"y":45.57,"wkid":4326}}"#, true),
        (#"{"op":"within","location":{"x":7650000,"y":690000,"wkid":2913}}"#, false),
    ])
    func aSlowSystemIsAnsweredByTheWorkers(_ line: String, _ onTheEventLoop: Bool) throws {
        guard case .success(let decoded) = RequestDecoder().decode(Array(line.utf8)) else { Issue.record("not decoded"); return }
        if case .eventLoop = decoded.request.answeredBy { #expect(onTheEventLoop) } else { #expect(!onTheEventLoop) }
    }

    @Test func idIsEchoedOnErrors() throws {
        let r = try reply(#"{"id":"abc","op":"fly"}"#)
        #expect(r["id"] as? String == "abc")
    }

    @Test func invalidUTF8AndOversizedLines() throws {
        let bad = handler.reply(to: [0x7B, 0xFF, 0xFE, 0x7D])
        #expect(String(decoding: bad, as: UTF8.self).contains("invalid_json"))
        let long = Array(#"{"id":1,"op":"suggest","text":""#.utf8) + [UInt8](repeating: 0x61, count: 70_000) + Array(#""}"#.utf8)
        #expect(String(decoding: handler.reply(to: long), as: UTF8.self).contains("too_large"))
    }
}
