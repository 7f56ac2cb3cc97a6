import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire
import Testing

/// The server writes replies with its own JSON writers; they must say exactly what Foundation's
/// `JSONEncoder` says for the same values (key order aside), for the hot results written by hand
/// and for everything that goes through the streaming `Encoder`.
@Suite struct ReplyJSONTests {
    let locator: Locator

    init() throws { locator = Locator(index: try TestSupport.fixture()) }

    func same<T: Encodable>(_ value: T, _ label: String) throws {
        let mine = ReplyEncoder.success(id: .string("x"), result: value, elapsed: .zero)
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(mine)) as? [String: Any])
        let ours = try #require(envelope["result"])
        let foundation = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value), options: [.fragmentsAllowed])
        #expect(NSDictionary(dictionary: ["v": ours]) == NSDictionary(dictionary: ["v": foundation]), "\(label): \(String(decoding: mine, as: UTF8.self).prefix(300))")
    }

    @Test func handWrittenAndStreamedRepliesAgreeWithFoundation() throws {
        let here = GeoPoint(x: -122.65, y: 45.55)
        let address = try #require(try locator.reverse(ReverseRequest(location: here)))
        try same(address, "reverse")
        var w = WithinRequest(location: GeoPoint(x: -13649996, y: 5711707))
        w.spatialReference = try SpatialReference(wkid: 102100)
        w.layer = "areas"
        let within = try locator.within(w)
        #expect(within.features.count == 2)
        try same(within, "within, two polygons")
        var far = WithinRequest(location: GeoPoint(x: -122.45, y: 45.55))
        far.layer = "areas"
        far.nearestWithin = 3_000
        let nearest = try locator.within(far)
        #expect(nearest.features.first?.relation == .nearest)
        try same(nearest, "within, nearest")
        try same(ReverseReply(address: address, features: within.features), "reverse with layers")
        try same(ReverseReply(address: nil, features: within.features), "reverse with layers, no address")
        var g = GeocodeRequest(.text("100 ne alpha st apt 3, portland"))
        g.explain = true
        try same(try locator.geocode(g), "geocode")
        try same(try locator.suggest(SuggestRequest(text: "alph")), "suggest")
        try same(LocatorInfo(index: locator.index.metadata), "info")
        let tricky: JSONValue = .object(["s": .string("quote \" backslash \\ newline \n tab \t bell \u{07} é 🌲"), "n": .number(-0.000015),
                                         "big": .number(1e300), "i": .number(42), "whole": .integer(-7), "beyondDouble": .integer(1 << 60), "a": .array([.null, .bool(true), .bool(false)])])
        try same(tricky, "escapes and numbers")
    }
}
