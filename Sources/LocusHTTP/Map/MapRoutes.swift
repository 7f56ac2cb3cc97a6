import Hummingbird

/// The map page: `/` (its HTML), `/map/<file>` (its script and style) and `/leaflet/<path>`
/// (Leaflet, from Debian's install), all without a token — they hold no data; the page asks the
/// data endpoints with the token it is given. When the page or Leaflet is missing, `/` answers
/// 404 with a page saying what to install.
struct MapRoutes: Sendable {
    let assets: MapAssets

    func add(to router: Router<BasicRequestContext>, _ service: HTTPService) {
        let d = HTTPDialect.plain
        let assets = assets
        service.route(router, "/", d, op: "page", authenticated: false) { _, _, _ throws(HTTPFailure) in
            guard assets.problems.isEmpty, let page = assets.page["index.html"] else {
                return HTTPReply(status: .notFound, contentType: "text/html; charset=utf-8", body: assets.problemPage(), outcome: "not_found")
            }
            return HTTPReply(contentType: page.contentType, body: page.bytes)
        }
        service.route(router, "/map/:file", d, op: "page", authenticated: false) { _, _, r throws(HTTPFailure) in
            guard let name = r.get("file"), name != "index.html", let file = assets.page[name] else {
                throw HTTPFailure(.notFound, "the map page has no such file", code: .notFound)
            }
            return HTTPReply(contentType: file.contentType, body: file.bytes)
        }
        service.route(router, "/leaflet/**", d, op: "page", authenticated: false) { _, _, r throws(HTTPFailure) in
            let path = r.getCatchAll().joined(separator: "/")
            guard let file = assets.leaflet[path] else {
                throw HTTPFailure(.notFound, assets.leaflet.isEmpty ? assets.problems.joined(separator: "; ") : "Leaflet has no file \(path.prefix(80))",
                                  code: .notFound)
            }
            return HTTPReply(contentType: file.contentType, body: file.bytes)
        }
    }
}
