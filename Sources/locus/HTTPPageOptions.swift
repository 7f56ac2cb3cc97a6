import ArgumentParser
import Foundation
import LocusEngine
import LocusHTTP

/// What `serve --http` and `map` tell the HTTP endpoints alike: the layer naming answers'
/// neighbourhoods, and where the map page's files and Leaflet are.
struct HTTPPageOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The polygon layer that names an answer's neighbourhood over HTTP. Default: the index's first layer.", valueName: "layer"))
    var neighbourhoodLayer: String?
    @Option(help: ArgumentHelp("Folder of the map page served at / over HTTP. Default: Web/map in the checkout ($LOCUS_HOME).", valueName: "dir"))
    var webDir: String?
    @Option(help: ArgumentHelp("Where Debian's libjs-leaflet installed Leaflet, which the map page draws with.", valueName: "dir"))
    var leafletDir: String = "/usr/share/javascript/leaflet"

    func apply(to c: inout HTTPConfiguration) {
        c.neighbourhoodLayer = neighbourhoodLayer
        c.mapPageDirectory = webDir ?? URL(fileURLWithPath: DefaultDataset(dataDirectory: nil).home).appendingPathComponent("Web/map").path
        c.leafletDirectory = leafletDir
    }

    /// The neighbourhood layer, if one is named, must be one of the index's.
    func check(_ index: LocusIndex) throws {
        if let layer = neighbourhoodLayer, !index.metadata.layers.contains(where: { $0.name == layer }) {
            throw ValidationError("--neighbourhood-layer: the index has no layer \(layer) (it has: \(index.metadata.layers.map(\.name).joined(separator: ", ")))")
        }
    }
}
