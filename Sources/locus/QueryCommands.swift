import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire

extension Locus {
    struct Within: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every polygon of a layer that covers a point, smallest first.",
            usage: "locus within <x> <y> [<options>]",
            discussion: "Example: locus within -122.6296 45.5676"
        )

        @OptionGroup var coordinates: Coordinates
        @Option(name: .long, help: ArgumentHelp("Polygon layer to search (of an index with one layer, by default that one).", valueName: "name"))
        var layer: String = WithinRequest.defaultLayer
        @Option(name: .long, help: ArgumentHelp("When no polygon covers the point, return the nearest within this many metres.", valueName: "metres"))
        var nearestWithin: Double?
        @OptionGroup var query: QueryOptions
        @OptionGroup var index: IndexOptions
        @OptionGroup var server: ServerOptions

        func validate() throws {
            if let d = nearestWithin, !(d >= 0 && d <= QueryLimits.maximumDistance) {
                throw ValidationError("--nearest-within must be between 0 and \(Int(QueryLimits.maximumDistance)) metres")
            }
        }

        func run() async throws {
            let result: WithinResult
            do {
                var request = WithinRequest(location: coordinates.point)
                request.spatialReference = try SpatialReference(wkid: query.wkid)
                request.layer = layer
                request.nearestWithin = nearestWithin
                if server.address != nil {
                    result = try await server.ask(LocusRequest(.within, request), as: WithinResult.self)
                } else {
                    result = try Locator(index: try index.open(.layers)).within(request)
                }
            } catch {
                throw fail(error, json: query.json)
            }
            if query.json { return Output.json(result) }
            if result.features.isEmpty {
                Output.line("no \(layer) polygon covers this point" + (nearestWithin.map { " or lies within \(Self.metres($0))" } ?? ""))
                return
            }
            Self.printFeatures(result.features)
        }

        static func printFeatures(_ features: [FeatureMatch]) {
            for f in features {
                let relation = f.relation == .covers ? "" : "  (nearest, \(Self.metres(f.distanceMetres)) away)"
                Output.line("\(f.name)  [\(f.layer) id \(f.id)]\(relation)")
            }
        }

        static func metres(_ d: Double) -> String {
            d >= 1000 ? String(format: "%.2f km", d / 1000) : String(format: "%.1f m", d)
        }
    }

    struct Reverse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The street address at a point: the address of the lot it fronts, within a distance.",
            usage: "locus reverse <x> <y> [<options>]",
            discussion: "Example: locus reverse -122.6296 45.5676"
        )

        @OptionGroup var coordinates: Coordinates
        @Option(name: .long, help: ArgumentHelp("Search radius in metres.", valueName: "metres"))
        var maxDistance: Double = 100
        @Option(help: ArgumentHelp("frontage: the lot the point stands in front of; nearest: the nearest address point.", valueName: "method"))
        var method: ReverseMethod = .frontage
        @Option(name: .long, help: ArgumentHelp("Also name the polygons of this layer covering the point (repeatable): the address and the neighbourhood in one answer.", valueName: "name"))
        var layer: [String] = []
        @OptionGroup var query: QueryOptions
        @OptionGroup var index: IndexOptions
        @OptionGroup var server: ServerOptions

        func validate() throws {
            guard maxDistance >= 0, maxDistance <= QueryLimits.maximumDistance else {
                throw ValidationError("--max-distance must be between 0 and \(Int(QueryLimits.maximumDistance)) metres")
            }
        }

        func run() async throws {
            let reply: ReverseReply
            do {
                var request = ReverseRequest(location: coordinates.point)
                request.spatialReference = try SpatialReference(wkid: query.wkid)
                request.outSpatialReference = try query.outWkid.map { (w) throws(LocusError) in try SpatialReference(wkid: w) }
                request.maxDistance = maxDistance
                request.method = method
                if server.address != nil {
                    reply = try await server.ask(LocusRequest(.reverse, ReverseArguments(request: request, layers: layer)), as: ReverseReply.self)
                } else {
                    let locator = Locator(index: try index.open(layer.isEmpty ? .addresses : [.addresses, .layers]))
                    reply = try ReverseReply(request, layers: layer, locator: locator)
                }
            } catch {
                throw fail(error, json: query.json)
            }
            if query.json {
                if let address = reply.address, reply.features == nil { return Output.json(address) }
                return Output.json(reply)
            }
            if let result = reply.address {
                Output.line(result.address)
                Output.line("  \(result.matchType.rawValue), \(Within.metres(result.distanceMetres)) away, at \(result.location.x), \(result.location.y) (wkid \(result.location.wkid))")
            } else {
                Output.line("no address within \(Within.metres(maxDistance)) of this point")
            }
            Within.printFeatures(reply.features ?? [])
        }
    }
}

extension ReverseMethod: ExpressibleByArgument {}
