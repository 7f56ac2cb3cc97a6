#!/usr/bin/env python3
"""Which polygons of a layer cover each point, according to shapely 2 (GEOS).

The reference Locus's `within` is tested against. Reads points as CSV (x,y header, lon/lat) and
prints one line per point: its 0-based index, then the sorted ids of the covering polygons
separated by ';' (empty when none). Boundary points count as covered (intersects = covers
for a point).

    python3 scripts/shapely_within.py --layer neighborhoods.geojson --id-property OBJECTID --points pts.csv
"""
import argparse
import csv
import json
import sys

import numpy as np
import shapely


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layer", required=True, help="GeoJSON FeatureCollection in lon/lat")
    ap.add_argument("--id-property", required=True)
    ap.add_argument("--points", required=True, help="CSV with x,y header")
    args = ap.parse_args()

    with open(args.layer) as f:
        features = json.load(f)["features"]
    geoms = shapely.from_geojson([json.dumps(ft["geometry"]) for ft in features])
    ids = [str(ft["properties"][args.id_property]) for ft in features]
    with open(args.points) as f:
        rows = list(csv.DictReader(f))
    xs = np.array([float(r["x"]) for r in rows])
    ys = np.array([float(r["y"]) for r in rows])

    tree = shapely.STRtree(geoms)
    pts = shapely.points(xs, ys)
    point_idx, geom_idx = tree.query(pts, predicate="intersects")
    covering = [[] for _ in rows]
    for p, g in zip(point_idx, geom_idx):
        covering[p].append(ids[g])
    out = sys.stdout
    for i, c in enumerate(covering):
        out.write(f"{i},{';'.join(sorted(c))}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
