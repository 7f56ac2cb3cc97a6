/// The on-disk layout of a Locus index: one SQLite file.
///
/// Tables hold everything in queryable form; the same addresses, packed (little-endian, see
/// `AddressIndex`), follow the database's pages as `IndexSections`, used where they lie. Bump `version` on any change a reader of
/// the previous version would misread: servers refuse an index of another version.
enum IndexSchema {
    static let version = 8

    static let create = """
    CREATE TABLE metadata(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE sources(name TEXT NOT NULL, kind TEXT NOT NULL, file TEXT NOT NULL, size INTEGER NOT NULL,
        sha256 TEXT NOT NULL, crs TEXT NOT NULL, PRIMARY KEY(name, file));
    CREATE TABLE streets(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, display TEXT NOT NULL);
    CREATE TABLE places(id INTEGER PRIMARY KEY, city TEXT NOT NULL, state TEXT NOT NULL, postcode TEXT NOT NULL);
    CREATE TABLE number_suffixes(id INTEGER PRIMARY KEY, suffix TEXT NOT NULL UNIQUE);
    CREATE TABLE addresses(id INTEGER PRIMARY KEY, number INTEGER NOT NULL, suffix_id INTEGER NOT NULL,
        street_id INTEGER NOT NULL, place_id INTEGER NOT NULL, lon REAL NOT NULL, lat REAL NOT NULL,
        source_row INTEGER NOT NULL);
    CREATE TABLE layers(name TEXT PRIMARY KEY, source TEXT NOT NULL, crs TEXT NOT NULL, name_field TEXT NOT NULL,
        id_field TEXT NOT NULL, feature_count INTEGER NOT NULL, fields TEXT NOT NULL);
    CREATE TABLE features(layer TEXT NOT NULL, rank INTEGER NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL,
        attributes TEXT NOT NULL, area_m2 REAL NOT NULL, min_x REAL NOT NULL, min_y REAL NOT NULL,
        max_x REAL NOT NULL, max_y REAL NOT NULL, geometry BLOB NOT NULL, PRIMARY KEY(layer, rank));
    CREATE TABLE import_issues(source TEXT NOT NULL, row INTEGER NOT NULL, outcome TEXT NOT NULL, reason TEXT NOT NULL);
    CREATE TABLE blobs(name TEXT PRIMARY KEY, data BLOB NOT NULL);
    """

    /// The build's scratch database (attached as `staging`, removed after): the address rows
    /// as read, with their names numbered in first-seen order; those numbers' places in order; and
    /// each address's same-side neighbours.
    static let staging = """
    CREATE TABLE staging.rows(street INTEGER, number INTEGER, suffix INTEGER, place INTEGER, lon REAL, lat REAL, row INTEGER);
    CREATE TABLE staging.street_ids(provisional INTEGER PRIMARY KEY, id INTEGER);
    CREATE TABLE staging.suffix_ids(provisional INTEGER PRIMARY KEY, id INTEGER);
    CREATE TABLE staging.place_ids(provisional INTEGER PRIMARY KEY, id INTEGER, zip_city INTEGER);
    CREATE TABLE staging.place_ranks(id INTEGER PRIMARY KEY, city INTEGER, postcode INTEGER, locality INTEGER);
    CREATE TABLE staging.neighbours(id INTEGER PRIMARY KEY, previous INTEGER, next INTEGER);
    """

    /// Bytes per address in the `address_points` section: lon, lat (f64), number (i32), street, place,
    /// suffix (u32), and the previous and next address on the same side of the same street (i32, -1 for none).
    static let packedAddressSize = 40
    // Version 3 adds the `address_frontage` blob: each address's `LotFrontage`, in point order.
    // Version 4 moves `address_points`, `address_cells` and `address_frontage` from blobs to
    // sections after the database, mapped rather than copied at open.
    // Version 5 adds each layer's grid (`LayerTables`) and search's street-level tables
    // (`SearchTables`) as sections, used where they lie rather than derived at open.
    // Version 8: each frontage's street direction is read from both rows of the street's houses
    // (`LotFrontage.pooledAxis`), which the frontage method's weights now assume; a version-7 file
    // would be read without error but answer as before.
}
