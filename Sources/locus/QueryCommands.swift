import ArgumentParser
import Foundation
import LocusCore
import LocusEngine

extension Locus {
    struct Within: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every polygon of a layer that covers a point, smallest first.",
            discussion: "Example: locus within -122.6296 45.5676"
        )

        @OptionGroup var coordinates: Coordinates
        @Option(name: .long, help: ArgumentHelp("Polygon layer to search.", valueName: "name"))
        var layer: String = "neighborhoods"
        @Option(name: .long, help: ArgumentHelp("When no polygon covers the point, return the nearest within this many metres.", valueName: "metres"))
        var nearestWithin: Double?
        @OptionGroup var query: QueryOptions
        @OptionGroup var index: IndexOptions

        func validate() throws {
            if let d = nearestWithin, !(d >= 0 && d <= QueryLimits.maximumDistance) {
                throw ValidationError("--nearest-within must be between 0 and \(Int(QueryLimits.maximumDistance)) metres")
            }
        }

        func run() throws {
            do {
                let locator = Locator(index: try index.open(.layers))
                var request = WithinRequest(location: coordinates.point)
                request.spatialReference = try SpatialReference(wkid: query.wkid)
                request.layer = layer
                request.nearestWithin = nearestWithin
                let result = try locator.within(request)
                if query.json { return Output.json(result) }
                if result.features.isEmpty {
                    Output.line("no \(layer) polygon covers this point" + (nearestWithin.map { " or lies within \(Self.metres($0))" } ?? ""))
                    return
                }
                for f in result.features {
                    let relation = f.relation == .covers ? "" : "  (nearest, \(Self.metres(f.distanceMetres)) away)"
                    Output.line("\(f.name)  [\(f.layer) id \(f.id)]\(relation)")
                }
            } catch let error as LocusError {
                throw fail(error, json: query.json)
            }
        }

        static func metres(_ d: Double) -> String {
            d >= 1000 ? String(format: "%.2f km", d / 1000) : String(format: "%.1f m", d)
        }
    }

    struct Reverse: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The street address at a point: the nearest address within a distance.",
            discussion: "Example: locus reverse -122.6296 45.5676"
        )

        @OptionGroup var coordinates: Coordinates
        @Option(name: .long, help: ArgumentHelp("Search radius in metres.", valueName: "metres"))
        var maxDistance: Double = 100
        @Option(help: "frontage: the lot the point stands in front of; nearest: the nearest address point.")
        var method: ReverseMethod = .frontage
        @OptionGroup var query: QueryOptions
        @OptionGroup var index: IndexOptions

        func validate() throws {
            guard maxDistance >= 0, maxDistance <= QueryLimits.maximumDistance else {
                throw ValidationError("--max-distance must be between 0 and \(Int(QueryLimits.maximumDistance)) metres")
            }
        }

        func run() throws {
            do {
                let locator = Locator(index: try index.open(.addresses))
                var request = ReverseRequest(location: coordinates.point)
                request.spatialReference = try SpatialReference(wkid: query.wkid)
                request.outSpatialReference = try query.outWkid.map { (w) throws(LocusError) in try SpatialReference(wkid: w) }
                request.maxDistance = maxDistance
                request.method = method
                guard let result = try locator.reverse(request) else {
                    throw LocusError(.notFound, "no address within \(Within.metres(maxDistance)) of this point")
                }
                if query.json { return Output.json(result) }
                Output.line(result.address)
                Output.line("  \(result.matchType.rawValue), \(Within.metres(result.distanceMetres)) away, at \(result.location.x), \(result.location.y) (wkid \(result.location.wkid))")
            } catch let error as LocusError {
                throw fail(error, json: query.json)
            }
        }
    }
}

extension ReverseMethod: ExpressibleByArgument {}
