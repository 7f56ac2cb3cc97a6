#!/usr/bin/env python3
"""The shapely 2 peer for `locus-bench within`: STRtree + vectorised contains_xy over the same points.

    locus-bench within --points 1000000 --write-points /tmp/pts.csv
    python3 scripts/peer_within_shapely.py --layer ../shared/data/portland/neighborhoods.geojson --points /tmp/pts.csv

Prints points/s, best of --repeats, timing only the query (points already in numpy arrays, the
tree built), which is the most favourable way to time shapely.
"""
import argparse
import json
import time

import numpy as np
import shapely


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layer", required=True)
    ap.add_argument("--points", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    with open(args.layer) as f:
        features = json.load(f)["features"]
    geoms = shapely.from_geojson([json.dumps(ft["geometry"]) for ft in features])
    data = np.loadtxt(args.points, delimiter=",", skiprows=1)
    xs, ys = np.ascontiguousarray(data[:, 0]), np.ascontiguousarray(data[:, 1])
    n = len(xs)

    tree = shapely.STRtree(geoms)
    shapely.prepare(geoms)

    def strtree_query() -> int:
        # Candidates by envelope from the tree, then the exact test, all vectorised.
        point_idx, geom_idx = tree.query(shapely.points(xs, ys), predicate="intersects")
        return len(point_idx)

    def contains_xy_loop() -> int:
        # contains_xy per polygon over every point: the idiom shapely 2 documents for point-in-polygon.
        hits = 0
        for g in geoms:
            hits += int(np.count_nonzero(shapely.contains_xy(g, xs, ys)))
        return hits

    for label, fn in (("shapely STRtree.query(intersects)", strtree_query), ("shapely contains_xy per polygon", contains_xy_loop)):
        best = float("inf")
        hits = 0
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            hits = fn()
            best = min(best, time.perf_counter() - t0)
        print(f"{label}: {n} points in {best:.3f} s = {n / best:.0f} points/s (best of {args.repeats}; hits {hits})")


if __name__ == "__main__":
    main()
