import LocusCore

/// A value that writes its own JSON, bypassing `Encoder`.
///
/// `reverse` and `within` are answered hundreds of thousands of times a second; even a streaming
/// `Encoder` spends more on generic dispatch for their results (a dozen fields and a layer's
/// attribute table) than the engine spends finding them. These types write the same JSON their
/// `Codable` conformance would, field for field, and a test checks that the two agree.
protocol JSONLineWritable {
    func writeJSON(_ sink: inout JSONBytes)
}

extension JSONBytes {
    @inline(__always) mutating func field(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        append(name)
        append("\":")
    }
}

extension Location: JSONLineWritable {
    func writeJSON(_ sink: inout JSONBytes) {
        sink.append("{")
        sink.field("x", first: true); sink.writeDouble(x)
        sink.field("y"); sink.writeDouble(y)
        sink.field("wkid"); sink.writeInteger(wkid)
        sink.append("}")
    }
}

extension AddressComponents: JSONLineWritable {
    func writeJSON(_ sink: inout JSONBytes) {
        sink.append("{")
        sink.field("number", first: true); sink.writeString(number)
        sink.field("street"); sink.writeString(street)
        sink.field("street_full"); sink.writeString(streetFull)
        sink.field("city"); sink.writeString(city)
        sink.field("state"); sink.writeString(state)
        sink.field("postcode"); sink.writeString(postcode)
        sink.append("}")
    }
}

extension ReverseResult: JSONLineWritable {
    /// The members without braces, so `ReverseReply` can add `features` to the same object.
    func writeMembers(_ sink: inout JSONBytes) {
        sink.field("address", first: true); sink.writeString(address)
        sink.field("components"); components.writeJSON(&sink)
        sink.field("location"); location.writeJSON(&sink)
        sink.field("distance_m"); sink.writeDouble(distanceMetres)
        sink.field("match_type"); sink.writeString(matchType.rawValue)
    }

    func writeJSON(_ sink: inout JSONBytes) {
        sink.append("{")
        writeMembers(&sink)
        sink.append("}")
    }
}

extension FeatureMatch: JSONLineWritable {
    func writeJSON(_ sink: inout JSONBytes) {
        sink.append("{")
        sink.field("layer", first: true); sink.writeString(layer)
        sink.field("id"); sink.writeString(id)
        sink.field("name"); sink.writeString(name)
        sink.field("attributes"); attributes.writeJSON(&sink)
        sink.field("relation"); sink.writeString(relation.rawValue)
        sink.field("distance_m"); sink.writeDouble(distanceMetres)
        sink.append("}")
    }
}

extension Dictionary: JSONLineWritable where Key == String, Value: JSONLineWritable {
    func writeJSON(_ sink: inout JSONBytes) {
        sink.append("{")
        var first = true
        func member(_ k: String, _ v: Value, _ sink: inout JSONBytes) {
            if !first { sink.append(",") }
            first = false
            sink.writeString(k)
            sink.append(":")
            v.writeJSON(&sink)
        }
        if sink.sortsKeys {
            for (k, v) in sorted(by: { $0.key < $1.key }) { member(k, v, &sink) }
        } else {
            for (k, v) in self { member(k, v, &sink) }
        }
        sink.append("}")
    }
}

extension Array: JSONLineWritable where Element: JSONLineWritable {
    func writeJSON(_ sink: inout JSONBytes) {
        sink.append("[")
        for (k, e) in enumerated() {
            if k > 0 { sink.append(",") }
            e.writeJSON(&sink)
        }
        sink.append("]")
    }
}

extension WithinResult: JSONLineWritable {
    func writeJSON(_ sink: inout JSONBytes) {
        sink.append("{")
        sink.field("features", first: true); features.writeJSON(&sink)
        sink.append("}")
    }
}

extension ReverseReply: JSONLineWritable {
    func writeJSON(_ sink: inout JSONBytes) {
        sink.append("{")
        if let address { address.writeMembers(&sink) } else { sink.field("address", first: true); sink.append("null") }
        if let features { sink.field("features"); features.writeJSON(&sink) }
        sink.append("}")
    }
}
