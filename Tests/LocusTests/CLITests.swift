import Foundation
import Testing

/// The `locus` binary as a user runs it, on the Portland index.
@Suite struct CLITests {
    let index: String

    init() throws { index = try TestSupport.portlandIndexPath() }

    @Test func reverseWithNegativeLongitude() throws {
        let r = try TestSupport.locus(["reverse", "-122.6296", "45.5676", "--index", index])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("6132 NE 34th Ave, Portland, OR 97211\n"))
    }

    @Test func reverseJSON() throws {
        let r = try TestSupport.locus(["reverse", "-122.6296", "45.5676", "--json", "--index", index])
        #expect(r.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(object["address"] as? String == "6132 NE 34th Ave, Portland, OR 97211")
        #expect(object["match_type"] as? String == "point_address")
        let components = try #require(object["components"] as? [String: Any])
        #expect(components["postcode"] as? String == "97211")
        let location = try #require(object["location"] as? [String: Any])
        #expect(location["wkid"] as? Int == 4326)
    }

    @Test func withinJSONInWebMercator() throws {
        let r = try TestSupport.locus(["within", "-13650000", "5710000", "--wkid", "102100", "--json", "--index", index])
        #expect(r.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let features = try #require(object["features"] as? [[String: Any]])
        #expect(features.count >= 1)
        #expect(features.first?["layer"] as? String == "neighborhoods")
        #expect(features.first?["attributes"] is [String: Any])
    }

    @Test func nothingNearbyIsAClearNotFound() throws {
        let r = try TestSupport.locus(["reverse", "-121.0", "45.0", "--index", index])
        #expect(r.status == 3)
        #expect(r.stderr.contains("no address within 100.0 m"))
    }

    @Test(arguments: [
        (["reverse", "45.5676", "-122.6296"], "latitude -122.6296 is outside", 64),
        (["reverse", "-122.6", "nan"], "finite", 64),
        (["reverse", "-122.6"], "exactly two coordinates", 64),
        (["within", "-122.6", "45.5", "--bogus"], "unknown option '--bogus'", 64),
        (["within", "-122.6", "45.5", "--layer", "nope"], "no layer named \"nope\"", 3),
        (["reverse", "-122.6", "45.5", "--wkid", "999999"], "unknown or unsupported coordinate reference system", 64),
        (["reverse", "-122.6", "45.5", "--max-distance", "-5"], "--max-distance", 64),
    ] as [([String], String, Int32)])
    func badInputGetsAClearError(_ arguments: [String], _ message: String, _ status: Int32) throws {
        let r = try TestSupport.locus(arguments + ["--index", index])
        #expect(r.status == status)
        #expect(r.stderr.contains(message), "stderr was: \(r.stderr)")
    }

    @Test func indexInfo() throws {
        let r = try TestSupport.locus(["index", "info", index])
        #expect(r.status == 0)
        #expect(r.stdout.contains("schema     8"))
        #expect(r.stdout.contains("addresses  435177 indexed of 435177 rows"))
        #expect(r.stdout.contains("layer      neighborhoods: 98 polygons"))
        #expect(r.stdout.contains("addresses.csv.gz"))
    }
}
