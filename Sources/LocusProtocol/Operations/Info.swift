import LocusCore
import LocusEngine
import LocusWire

extension Operation {
    public static let info = Operation(
        name: "info", syntax: #"{"id":1,"op":"info"}"#,
        summary: "Locator info: name, version, index metadata, layers and their fields, operations, spatial references.",
        arguments: [],
        decode: { _ in },
        encode: { _ in [:] },
        answeredBy: { _ in .eventLoop },
        run: { _, handler in LocatorInfo(index: handler.index.metadata) }
    )
}

/// The result object of `info`: what an Esri client learns from a locator's info.
public struct LocatorInfo: Encodable, Sendable {
    public var name = "Locus"
    public var version = LocusVersion.current
    public var protocolVersion = 1
    public var index: IndexMetadata
    public var operations = Operation.all
    /// Spatial references accepted for input and output.
    public var spatialReferences = [4326, 3857, 102100, 2913]
    public var spatialReferencesNote = "and any other EPSG code the server's PROJ knows offline"

    public init(index: IndexMetadata) { self.index = index }

    enum CodingKeys: String, CodingKey {
        case name, version, index, operations
        case protocolVersion = "protocol_version"
        case spatialReferences = "spatial_references"
        case spatialReferencesNote = "spatial_references_note"
    }
}
