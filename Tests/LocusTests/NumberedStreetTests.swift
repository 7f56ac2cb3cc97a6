import Foundation
import LocusCore
@testable import LocusEngine
import Testing

/// A numbered street the address points lack in its quarter or town: placed between the
/// numbered streets either side of it, on real Portland data.
@Suite(.serialized) struct NumberedStreetTests {
    /// Portland's numbered avenues of four quarters taken out of the real address points; every
    /// seventh of their addresses asked for with "Portland, OR".
    static let removed: Set<String> = Set(
        (["13th", "27th", "41st", "52nd", "68th", "79th", "102nd", "122nd"].map { "Northeast \($0) Avenue" }
            + ["19th", "33rd", "57th", "71st", "92nd", "112th", "136th"].map { "Southeast \($0) Avenue" }
            + ["Northwest 22nd Avenue", "Northwest 19th Avenue", "Southwest 13th Avenue", "Southwest 35th Avenue", "Southwest 45th Avenue",
               "Northeast 33rd Avenue"])
            .map { "Portland|\($0)" })
    /// Suburbs' numbered streets, no directional: no other quarter of the town has them.
    static let removedInTowns: Set<String> = ["Forest Grove|17th Avenue", "Forest Grove|19th Avenue", "Forest Grove|22nd Avenue",
                                              "Lake Oswego|8th Street", "Oregon City|12th Street", "Oregon City|9th Street"]

    static let holed: Result<(index: LocusIndex, asked: [String: [(text: String, at: GeoPoint)]]), Error> = Result {
        let reader = try CompressedFileReader(path: TestSupport.portlandAddresses)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try chunk.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, count: $0.count) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        var kept: [String] = []
        var asked: [String: [(String, GeoPoint)]] = [:]
        var seen = 0
        // The file has no quoted fields: number,street,city,state,postcode,lon,lat,… (CRLF lines,
        // which a String splits as one character, not at "\n").
        for raw in bytes.split(separator: 0x0A) {
            let line = String(decoding: raw.last == 0x0D ? raw.dropLast() : raw, as: UTF8.self)
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count >= 7, case let key = "\(f[2])|\(f[1])", removed.contains(key) || removedInTowns.contains(key) else {
                kept.append(line)
                continue
            }
            seen += 1
            if seen % 7 == 0, let x = Double(f[5]), let y = Double(f[6]) {
                let one = ("\(f[0]) \(f[1]), \(f[2]), OR", GeoPoint(x: x, y: y))
                asked[String(f[2]) == "Portland" ? "Portland" : "towns", default: []].append(one)
                if f[1] == "Northeast 33rd Avenue" { asked["Northeast 33rd Avenue", default: []].append(one) }
            }
        }
        let dir = TestSupport.temporaryDirectory()
        let csv = dir.appendingPathComponent("holed.csv").path
        try (kept.joined(separator: "\n") + "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        var config = IndexBuildConfiguration(output: dir.appendingPathComponent("holed.locus").path)
        config.addresses = csv
        _ = try IndexBuilder.build(config)
        return (try LocusIndex(path: config.output), asked)
    }

    /// Before, most went to another town's street of the name (Hillsboro's SE 33rd Ave, Happy
    /// Valley's SE 136th Ave, Canby's NW 22nd Ave) or a street of another type: 284 of 612 within
    /// 75 m of their points (taken out alone); now 557. The suburbs' streets: 0 of 166 (every one
    /// in another town: "19th Ave, Forest Grove" was Portland's NE 19th Ave); now 140. NE 33rd
    /// Ave lies 35 m from NE 34th Ave and 160 m from NE 32nd Ave (NE 32nd Pl between): halfway
    /// between its neighbours, 27 of its 41 here were within 75 m; where the cross streets'
    /// numbers turn to 3300, 35.
    @Test(arguments: [("Portland", 500, 0.8), ("towns", 50, 0.7), ("Northeast 33rd Avenue", 30, 0.8)])
    func aNumberedStreetTakenOutIsPlacedBetweenItsNeighbours(_ group: String, _ least: Int, _ share: Double) throws {
        let (index, all) = try Self.holed.get()
        let locator = Locator(index: index)
        let asked = all[group] ?? []
        #expect(asked.count > least)
        var near = 0, elsewhere: [String] = []
        for (text, at) in asked {
            guard let top = try locator.geocode(GeocodeRequest(.text(text))).candidates.first else { continue }
            if !text.contains(", \(top.components.city),") { elsewhere.append("\(text) → \(top.address)") }
            if GeoPoint(x: top.location.x, y: top.location.y).metres(to: at) <= 75 { near += 1 }
            // Its key (a continuation's `v`, a town's `o`) geocodes back to it.
            if top.key.hasPrefix("v") || top.key.hasPrefix("o") {
                let again = try #require(try locator.geocode(GeocodeRequest(.key(top.key))).candidates.first, "\(top.key)")
                #expect(again.address == top.address && again.location == top.location, "\(top.key)")
            }
        }
        #expect(Double(near) >= share * Double(asked.count), "\(near) of \(asked.count) within 75 m")
        #expect(Double(elsewhere.count) <= 0.03 * Double(asked.count), "\(elsewhere.count): \(elsewhere.prefix(5))")
    }

    /// The Pearl's avenues have no points in Portland's import; the town named says which NW 12th
    /// Ave is meant (it went to Canby's, 30 km off, or to none for NW 8th Ave).
    @Test(arguments: ["1234 NW 12th Ave, Portland, OR 97209", "1000 NW 8th Ave, Portland, OR", "1000 NW 13th Ave, Portland",
                      "1000 NW 10th Ave 97209"])
    func aPearlAvenueIsPlacedInThePearl(_ text: String) throws {
        let locator = Locator(index: try TestSupport.portland())
        let top = try #require(try locator.geocode(GeocodeRequest(.text(text))).candidates.first)
        let street = text.replacingOccurrences(of: ",", with: "").split(separator: " ").dropFirst().prefix(3).joined(separator: " ")
        #expect(top.components.city == "Portland" && top.components.street == street, "\(text): \(top.address)")
        // In the Pearl: between the river and NW 16th Ave, north of Burnside.
        #expect((-122.690 ... -122.670).contains(top.location.x) && (45.523 ... 45.540).contains(top.location.y), "\(top.location)")
    }

    /// Two streets' leading directionals that a grid's numbers can make meet: one quarter, or a
    /// street on the quarters' line ("N" with "NE"), or one without a directional.
    @Test(arguments: [
        ("northwest", "northwest", true), ("north", "northeast", true), ("east", "southeast", true), (nil, "southwest", true),
        ("northwest", "northeast", false), ("southwest", "southeast", false), ("north", "south", false), ("east", "west", false),
        ("southwest", "northwest", false),
    ] as [(String?, String?, Bool)])
    func numberedCrossingsMeetInOneQuarter(_ a: String?, _ b: String?, _ meet: Bool) {
        var x = StreetNameParts(tokens: ["madison", "street"]), y = StreetNameParts(tokens: ["6th", "avenue"])
        (x.predirectional, y.predirectional) = (a, b)
        #expect(AddressSearch.sameQuarter(x, y) == meet)
        #expect(AddressSearch.sameQuarter(y, x) == meet)
    }
}
