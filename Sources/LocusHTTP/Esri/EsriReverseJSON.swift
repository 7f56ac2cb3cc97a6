import LocusWire

/// `reverseGeocode`'s answer written straight into bytes: what the tree app asks for every new
/// tree. Through the streaming `Encoder` its 25 address fields went through a generic container
/// and dynamic casts each, about as long as the rest of the request; written so, Pelias's
/// `/v1/reverse` went from 0.45 to 0.68 of the constant route under wrk (BENCHMARKS.md). Same
/// fields, order and values as the `Encodable` conformance, which `HTTPEsriTests` checks against `f=pjson` (written by the `Encoder`) on real answers.
extension EsriGeocodeServer.ReverseReplyJSON {
    func jsonBytes() -> [UInt8] {
        var out = JSONBytes(bytes: [])
        out.bytes.reserveCapacity(900)
        let a = address
        func field(_ key: StaticString, _ value: String, first: Bool = false) {
            out.append(first ? "{\"" : ",\"")
            out.append(key)
            out.append("\":")
            out.writeString(value)
        }
        out.append(#"{"address":"#)
        field("Match_addr", a.Match_addr, first: true)
        field("LongLabel", a.LongLabel)
        field("ShortLabel", a.ShortLabel)
        field("Addr_type", a.Addr_type)
        field("Type", a.Type)
        field("PlaceName", a.PlaceName)
        field("AddNum", a.AddNum)
        field("Address", a.Address)
        field("Block", a.Block)
        field("Sector", a.Sector)
        field("Neighborhood", a.Neighborhood)
        field("District", a.District)
        field("City", a.City)
        field("MetroArea", a.MetroArea)
        field("Subregion", a.Subregion)
        field("Region", a.Region)
        field("RegionAbbr", a.RegionAbbr)
        field("Territory", a.Territory)
        field("Postal", a.Postal)
        field("PostalExt", a.PostalExt)
        field("CntryName", a.CntryName)
        field("CountryCode", a.CountryCode)
        out.append(#","Distance":"#)
        out.writeDouble(a.Distance)
        out.append(#"},"location":{"x":"#)
        out.writeDouble(location.x)
        out.append(#","y":"#)
        out.writeDouble(location.y)
        if let sr = location.spatialReference {
            out.append(#","spatialReference":{"wkid":"#)
            out.writeInteger(sr.wkid)
            out.append(#","latestWkid":"#)
            out.writeInteger(sr.latestWkid)
            out.append("}")
        }
        out.append("}}")
        return out.bytes
    }
}
