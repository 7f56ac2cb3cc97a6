import LocusWire

/// Pelias's answers written straight into bytes, their only encoding (the field names are Pelias's,
/// checked by `HTTPDialectTests`, `HTTPDocumentTests` and geopy's `Pelias` in `HTTPClientsTests`).
///
/// Through the streaming `Encoder`, writing a one-feature `/v1/reverse` answer (~1 KB) was about
/// half of that endpoint's handler time under wrk (`perf record`): each of its forty-odd values
/// went through a generic container and dynamic casts.
extension PeliasAnswers.Collection {
    func jsonBytes() -> [UInt8] {
        var out = JSONBytes(bytes: [], sortsKeys: true)
        out.bytes.reserveCapacity(640 + 760 * features.count)
        out.append(#"{"geocoding":"#)
        geocoding.write(&out)
        out.append(#","type":"#)
        out.writeString(type)
        out.append(#","features":["#)
        for (n, f) in features.enumerated() {
            if n > 0 { out.append(",") }
            f.write(&out)
        }
        out.append("]")
        if let bbox {
            out.append(#","bbox":["#)
            for (n, d) in bbox.enumerated() {
                if n > 0 { out.append(",") }
                out.writeDouble(d)
            }
            out.append("]")
        }
        out.append("}")
        return out.bytes
    }
}

extension PeliasAnswers.Geocoding {
    func write(_ out: inout JSONBytes) {
        out.append(#"{"version":"#)
        out.writeString(version)
        out.append(#","attribution":"#)
        out.writeString(attribution)
        out.append(#","query":"#)
        out.writeValue(.object(query))
        if let errors {
            out.append(#","errors":["#)
            for (n, e) in errors.enumerated() {
                if n > 0 { out.append(",") }
                out.writeString(e)
            }
            out.append("]")
        }
        out.append(#","engine":{"name":"#)
        out.writeString(engine.name)
        out.append(#","author":"#)
        out.writeString(engine.author)
        out.append(#","version":"#)
        out.writeString(engine.version)
        out.append(#"},"timestamp":"#)
        out.writeInteger(timestamp)
        out.append("}")
    }
}

extension PeliasAnswers.Feature {
    func write(_ out: inout JSONBytes) {
        out.append(#"{"type":"#)
        out.writeString(type)
        out.append(#","geometry":{"type":"Point","coordinates":["#)
        out.writeDouble(geometry.lon)
        out.append(",")
        out.writeDouble(geometry.lat)
        out.append(#"]},"properties":"#)
        properties.write(&out)
        out.append("}")
    }
}

extension PeliasAnswers.Properties {
    /// In `CodingKeys` order; nil members are left out, as `encodeIfPresent` does.
    func write(_ out: inout JSONBytes) {
        func string(_ key: StaticString, _ value: String?, first: Bool = false) {
            guard let value else { return }
            if !first { out.append(",") }
            out.append("\"")
            out.append(key)
            out.append("\":")
            out.writeString(value)
        }
        func number(_ key: StaticString, _ value: Double?) {
            guard let value else { return }
            out.append(",\"")
            out.append(key)
            out.append("\":")
            out.writeDouble(value)
        }
        out.append("{")
        string("id", id, first: true)
        string("gid", gid)
        string("layer", layer)
        string("source", source)
        string("name", name)
        string("housenumber", housenumber)
        string("street", street)
        string("postalcode", postalcode)
        number("confidence", confidence)
        number("distance", distance)
        string("accuracy", accuracy)
        string("country", country)
        string("region", region)
        string("locality", locality)
        string("neighbourhood", neighbourhood)
        string("label", label)
        string("source_id", sourceID)
        string("match_type", matchType)
        string("country_code", countryCode)
        string("country_a", countryA)
        string("region_a", regionA)
        out.append("}")
    }
}
