import Foundation

/// The map page's static files and Leaflet's, read once when the routes are made: a request
/// never touches the file system, so no path a client sends can reach a file that was not
/// listed here, and a missing install is known (and logged) at start rather than per request.
struct MapAssets: Sendable {
    struct File: Sendable {
        var contentType: String
        var bytes: [UInt8]
    }

    /// The page's files by name (`index.html`, `map.js`, …).
    let page: [String: File]
    /// Leaflet's files by path under its folder (`leaflet.js`, `images/marker-icon.png`, …).
    let leaflet: [String: File]
    /// Why the page cannot be shown, for the 404 page and the log; empty when it can.
    let problems: [String]

    /// Largest file read; Leaflet's largest is 140 KB, the page's a few tens.
    static let maximumFileBytes = 4 << 20

    init(configuration: HTTPConfiguration) {
        var problems: [String] = []
        if let dir = configuration.mapPageDirectory {
            page = Self.files(in: dir, subfolders: [])
            if page["index.html"] == nil { problems.append("the map page is not at \(dir) (no index.html there): give --web-dir") }
        } else {
            page = [:]
            problems.append("no folder for the map page was given (--web-dir; Web/map in a checkout)")
        }
        leaflet = Self.files(in: configuration.leafletDirectory, subfolders: ["images"])
        if leaflet["leaflet.js"] == nil || leaflet["leaflet.css"] == nil {
            problems.append("Leaflet is not installed at \(configuration.leafletDirectory): install Debian's libjs-leaflet (apt-get install libjs-leaflet; scripts/setup does), or give --leaflet-dir")
        }
        self.problems = problems
    }

    /// The servable files of a folder and of the named subfolders, by relative path. Compressed
    /// copies and source maps are left out: the page asks for neither.
    private static func files(in directory: String, subfolders: [String]) -> [String: File] {
        var out: [String: File] = [:]
        let manager = FileManager.default
        for folder in [""] + subfolders {
            let dir = folder.isEmpty ? directory : directory + "/" + folder
            guard let names = try? manager.contentsOfDirectory(atPath: dir) else { continue }
            for name in names {
                guard let type = contentType(name) else { continue }
                let path = dir + "/" + name
                guard let size = (try? manager.attributesOfItem(atPath: path))?[.size] as? Int, size <= maximumFileBytes,
                      let data = manager.contents(atPath: path) else { continue }
                out[folder.isEmpty ? name : folder + "/" + name] = File(contentType: type, bytes: Array(data))
            }
        }
        return out
    }

    static func contentType(_ name: String) -> String? {
        switch (name as NSString).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        default: nil
        }
    }

    /// What `/` shows when the page cannot work: what is missing and how to install it.
    func problemPage() -> [UInt8] {
        let items = problems.map { "<li>\(Self.escaped($0))</li>" }.joined()
        return Array("""
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Locus map: not available</title>
        <link rel="icon" href="data:,"></head><body><h1>The Locus map page is not available</h1><ul>\(items)</ul>
        <p>The geocoding endpoints answer regardless (see PROTOCOL.md).</p></body></html>
        """.utf8)
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
