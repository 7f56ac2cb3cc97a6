import LocusCore
import LocusEngine
import LocusProtocol
import LocusServer
import LocusWire

/// The protocol's operations as the HTTP dialects call them: every answer comes from the
/// operation's descriptor (`Operation.reverse`, `.geocode`, …), run on the calling thread's
/// `RequestHandler` for the index current when the request starts — the same answer a request
/// line gets, written in another shape. No dialect answers anything itself.
struct HTTPEngine: Sendable {
    let index: ServingIndex
    /// The layer naming an answer's neighbourhood (nil: the index's first layer).
    let neighbourhoodLayer: String?

    /// Runs `body` with one handler, so that every operation of one HTTP request reads the same
    /// index generation, even across a reload. Synchronous: the handler belongs to this thread.
    func session<R>(_ body: (Session) throws(HTTPFailure) -> R) throws(HTTPFailure) -> R {
        try body(Session(handler: index.handler(), neighbourhoodLayer: neighbourhoodLayer))
    }

    struct Session {
        let handler: RequestHandler
        let neighbourhoodLayer: String?

        var metadata: IndexMetadata { handler.index.metadata }
        var locator: Locator { handler.locator }

        /// Runs one operation and returns its result, or its error as the HTTP failure that says
        /// the same thing.
        func run<T>(_ operation: Operation, _ arguments: some Sendable, as type: T.Type) throws(HTTPFailure) -> T {
            do {
                return try handler.result(LocusRequest(operation, arguments), as: T.self)
            } catch {
                throw HTTPFailure(error)
            }
        }

        func reverse(_ arguments: ReverseArguments) throws(HTTPFailure) -> ReverseReply {
            try run(.reverse, arguments, as: ReverseReply.self)
        }

        func geocode(_ arguments: GeocodeArguments) throws(HTTPFailure) -> GeocodeResult {
            try run(.geocode, arguments, as: GeocodeResult.self)
        }

        func suggest(_ arguments: SuggestArguments) throws(HTTPFailure) -> SuggestResult {
            try run(.suggest, arguments, as: SuggestResult.self)
        }

        func within(_ request: WithinRequest) throws(HTTPFailure) -> WithinResult {
            try run(.within, request, as: WithinResult.self)
        }

        /// The layer answers' neighbourhoods come from, if the index has one.
        var neighbourhoodLayerName: String? {
            if let neighbourhoodLayer { return metadata.layers.contains { $0.name == neighbourhoodLayer } ? neighbourhoodLayer : nil }
            return metadata.layers.first?.name
        }

        /// The name of the smallest polygon of the neighbourhood layer covering a lon/lat point;
        /// nil when none covers it or the index has no layer.
        func neighbourhood(at point: GeoPoint) -> String? {
            guard let layer = neighbourhoodLayerName else { return nil }
            var w = WithinRequest(location: point)
            w.layer = layer
            return (try? within(w))?.features.first { $0.relation == .covers }?.name
        }

        /// A lon/lat point in `reference`, for answers given in the caller's spatial reference.
        func project(_ point: GeoPoint, to reference: SpatialReference) throws(HTTPFailure) -> GeoPoint {
            if reference.isGeographicWGS84 { return point }
            do {
                let l = try locator.location(point, in: reference)
                return GeoPoint(x: l.x, y: l.y)
            } catch {
                throw HTTPFailure(error)
            }
        }

        /// A point in `reference` as lon/lat.
        func lonLat(_ point: GeoPoint, from reference: SpatialReference) throws(HTTPFailure) -> GeoPoint {
            do { return try locator.lonLat(point, from: reference) } catch { throw HTTPFailure(error) }
        }

        /// The lon/lat envelope of the index: its layers' features and its address points.
        var lonLatExtent: Envelope {
            var e = Envelope.empty
            for layer in handler.index.layers.values { e.extend(layer.extentOfFeatures) }
            if let a = handler.index.addresses, a.count > 0 {
                // The grid is laid over the points' envelope: its corners bound them.
                let g = a.grid
                e.extend(Envelope(minX: g.originX, minY: g.originY,
                                  maxX: g.originX + Double(g.columns) * g.cellWidth, maxY: g.originY + Double(g.rows) * g.cellHeight))
            }
            return e
        }
    }
}
